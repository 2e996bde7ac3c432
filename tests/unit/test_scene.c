/* Scene errors: each names file:line:col and what was expected. argv[1]: a temp folder,
** argv[2]: the plugin folder holding the collision sensor. */
#include "../../engine/sim/engine.h"
#include "../check.h"

#include <stdlib.h>

static const char *dir, *plugins;

/* Loads `text` as a scene; returns the error message ("" on success). */
static const char *load(const char *text)
{
    static sn_error err;
    char path[512];
    snprintf(path, sizeof path, "%s/scene.yaml", dir);
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
    memset(&err, 0, sizeof err);
    sn_engine_options o = {.plugin_dir = plugins, .quiet_plugins = true};
    sn_engine *e = sn_engine_create(&o, &err);
    if (e && sn_engine_load_scene(e, path, &err) == SN_OK)
        err.msg[0] = 0;
    sn_engine_destroy(e);
    /* Strip the folder so expectations read "scene.yaml:L:C". */
    char *p = strstr(err.msg, "scene.yaml");
    return p ? p : err.msg;
}

#define EXPECT(text, needle)                                               \
    do {                                                                   \
        const char *m = load(text);                                        \
        CHECK(strstr(m, needle) != NULL, "got '%s', want '%s'", m, needle); \
    } while (0)

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    dir = argv[1];
    plugins = argv[2];
    const char *ok = load("settings: {frames: 10}\nactors:\n  - {blueprint: static.ground}\n");
    CHECK(ok[0] == 0, "a good scene loads: %s", ok);
    EXPECT("settings: {frames: 10\n", "scene.yaml:2:1: malformed YAML");
    EXPECT("settings:\n  frames: ten\n", "scene.yaml:2:11: expected a whole number >= 0 for frames, found 'ten'");
    EXPECT("settings:\n  fixed_delta_seconds: 0.2\n", "scene.yaml:2:24: fixed_delta_seconds 0.2 exceeds max_substep_delta_time * max_substeps");
    EXPECT("settings:\n  fixed_delta_seconds: 0.2\n  max_substeps: 20\n", "scene.yaml:3:17: max_substeps must be within [1, 16]");
    EXPECT("setings: {}\n", "scene.yaml:1:1: unknown key 'setings' in the scene (expected one of: settings, map, actors, sensors, recorder, traffic, scenario, parameters, scenery)");
    EXPECT("actors:\n  - name: a\n    blueprint: vehicle.spaceship\n",
           "scene.yaml:3:16: unknown actor blueprint 'vehicle.spaceship'");
    EXPECT("actors:\n  - name: a\n    blueprint: vehicle.sedan\n    attributes: {mass: heavy}\n",
           "scene.yaml:4:24: attribute 'mass' of 'vehicle.sedan': expected a float, found 'heavy'");
    EXPECT("actors:\n  - name: a\n    blueprint: vehicle.sedan\n    attributes: {mass: 5}\n",
           "scene.yaml:4:24: attribute 'mass' of 'vehicle.sedan': 5 is outside the range [50, 100000]");
    EXPECT("actors:\n  - name: a\n    blueprint: vehicle.sedan\n    attributes: {wings: 2}\n",
           "scene.yaml:4:18: unknown attribute 'wings' for blueprint 'vehicle.sedan'");
    EXPECT("actors:\n  - name: a\n    blueprint: static.prop.box\n    attributes: {semantic_tag: lava}\n",
           "scene.yaml:4:32: attribute 'semantic_tag': 'lava' is not one of CARLA's semantic tags");
    EXPECT("actors:\n  - name: a\n    blueprint: static.prop.box\n    attributes: {extent: \"1,2\"}\n",
           "scene.yaml:4:26: attribute 'extent' of 'static.prop.box': expected three half extents");
    EXPECT("actors:\n  - {name: a, blueprint: vehicle.sedan, transform: {location: [0, 0]}}\n",
           "scene.yaml:2:63: expected 3 numbers [x, y, z] for transform.location");
    EXPECT("actors:\n  - {name: a, blueprint: vehicle.sedan, control: {throttle: 2}}\n",
           "scene.yaml:2:61: control.throttle must be within [0, 1]");
    EXPECT("actors:\n  - {name: a, blueprint: vehicle.sedan}\n  - {name: a, blueprint: vehicle.sedan}\n",
           "scene.yaml:3:12: name 'a' is already used at line 2");
    EXPECT("sensors:\n  - {name: c, blueprint: sensor.other.collision, attach_to: ghost}\n",
           "scene.yaml:2:61: attach_to 'ghost' names no actor of this scene");
    EXPECT("sensors:\n  - {name: c, blueprint: sensor.camera.teleport}\n",
           "scene.yaml:2:26: unknown sensor blueprint 'sensor.camera.teleport'");
    EXPECT("sensors:\n  - {name: c, blueprint: sensor.other.collision, attributes: {fov: 90}}\n",
           "scene.yaml:2:63: unknown attribute 'fov' for blueprint 'sensor.other.collision'");
    EXPECT("sensors:\n  - {blueprint: sensor.other.collision}\n", "scene.yaml:2:5: a sensor needs a 'name'");
    EXPECT("sensors:\n  - {name: ../x, blueprint: sensor.other.collision}\n", "scene.yaml:2:12: name '../x' may not contain '/'");
    EXPECT("sensors:\n  - {name: c, blueprint: sensor.other.collision, calls: [{at: 1, method: send}]}\n",
           "scene.yaml:2:58: 'sensor.other.collision' has no method 'send'");
    EXPECT("actors: &a [1]\nsensors: *a\n", "scene.yaml:2:10: YAML aliases");
    EXPECT("actors:\n  - {name: w, blueprint: static.prop.box, velocity: [1, 0, 0]}\n",
           "scene.yaml:2:5: 'static.prop.box' is static");
    EXPECT("actors:\n  - {name: a, blueprint: vehicle.sedan}\n  - {name: b, blueprint: vehicle.sedan, attach_to: a}\n",
           "scene.yaml:3:52: only static props and sensors can be attached");
    EXPECT("actors:\n  - {name: a, blueprint: vehicle.sedan, spawn_at: 2, destroy_at: 1}\n",
           "scene.yaml:2:66: destroy_at must be within [0, 1e12] seconds and after spawn_at");
    EXPECT("[1, 2]\n", "scene.yaml:1:1: expected a mapping for the scene, found a list");
    EXPECT("", "scene.yaml:1:1: the scene is empty");
    EXPECT("actors: {a: 1}\nactors: []\n", "scene.yaml:2:1: key 'actors' appears twice");
    return CHECK_DONE();
}
