/* --set PATH=VALUE overrides: every kind of value lands where its path says, and a bad one is
** refused with the scene file, the --set and what was expected. argv[1]: a temp folder,
** argv[2]: the collision plugin folder. */
#include "../../engine/scene/scene.h"
#include "../../engine/sim/engine.h"
#include "../check.h"

#include <stdlib.h>

static const char *dir, *plugins;
static char path[512];

static const char SCENE[] =
    "settings: {frames: 10, seed: 1}\n"
    "actors:\n"
    "  - {name: ground, blueprint: static.ground}\n"
    "  - name: hero\n"
    "    blueprint: vehicle.sedan\n"
    "    transform: {location: [0, 0, 0.75]}\n"
    "    attributes: {color: \"200,30,30\"}\n"
    "    control: {throttle: 0.5, hand_brake: false}\n"
    "  - name: bob\n"
    "    blueprint: walker.pedestrian\n"
    "    transform: {location: [10, 8, 0.95]}\n"
    "    autopilot: {route: [[10, 8, 0], [10, 9, 0]], target_speed: 1.4}\n"
    "sensors:\n"
    "  - {name: crash, blueprint: sensor.other.collision, attach_to: hero}\n";

/* Parses SCENE with the overrides; returns the error ("" on success), scene left in *s. */
static const char *with(sn_scene *s, size_t n, const char *const *sets)
{
    static sn_error err;
    memset(&err, 0, sizeof err);
    if (sn_scene_load_with(s, path, sets, n, &err) == SN_OK)
        err.msg[0] = 0;
    char *p = strstr(err.msg, "scene.yaml");
    return p ? p : err.msg;
}

#define SETS(...) (sizeof((const char *[]){__VA_ARGS__}) / sizeof(const char *)), (const char *[]){__VA_ARGS__}

#define EXPECT_ERR(needle, ...)                                                \
    do {                                                                       \
        sn_scene s;                                                            \
        const char *m = with(&s, SETS(__VA_ARGS__));                           \
        CHECK(strstr(m, needle) != NULL, "got '%s', want '%s'", m, needle);    \
        sn_scene_free(&s);                                                     \
    } while (0)

/* Through the engine and its plugins: attribute values are judged by the blueprint. */
static const char *engine_err(const char *set)
{
    static sn_error err;
    memset(&err, 0, sizeof err);
    sn_engine_options o = {.plugin_dir = plugins, .quiet_plugins = true};
    sn_engine *e = sn_engine_create(&o, &err);
    const char *sets[] = {set};
    if (e && sn_engine_load_scene_with_overrides(e, path, sets, 1, &err) == SN_OK)
        err.msg[0] = 0;
    sn_engine_destroy(e);
    char *p = strstr(err.msg, "scene.yaml");
    return p ? p : err.msg;
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    dir = argv[1];
    plugins = argv[2];
    snprintf(path, sizeof path, "%s/scene.yaml", dir);
    FILE *f = fopen(path, "w");
    fputs(SCENE, f);
    fclose(f);

    sn_scene s;
    const char *m = with(&s, SETS("actors.hero.control.throttle=0.7", "settings.seed=4", "settings.frames=3",
                                  "actors.hero.control.hand_brake=true", "actors.hero.attributes.color=0,0,255",
                                  "actors.hero.attributes.mass=[1200]", "actors.hero.transform.location=[1, 2, 0.8]",
                                  "actors.hero.transform.location.2=0.9", "actors.bob.autopilot.route.1=[11, 9, 0]",
                                  "actors.2.autopilot.loop=true", "actors.hero.velocity=[3, 0, 0]",
                                  "sensors.crash.spawn_at=0.5", "settings.lighting={ambient: 0.5}"));
    CHECK(m[0] == 0, "good overrides load: %s", m);
    if (!m[0]) {
        const sn_scene_entity *hero = &s.actors[1], *bob = &s.actors[2];
        CHECK(hero->control.throttle == 0.7 && hero->control.hand_brake, "control: number and bool");
        CHECK(s.settings.seed == 4 && s.settings.frames == 3, "settings");
        CHECK(strcmp(hero->attrs[0].value, "0,0,255") == 0 && sn_scene_set_of(&s, hero->attrs[0].value_pos) &&
                  strcmp(sn_scene_set_of(&s, hero->attrs[0].value_pos), "actors.hero.attributes.color=0,0,255") == 0 &&
                  !sn_scene_set_of(&s, hero->attrs[0].key_pos) && !sn_scene_set_of(&s, bob->pos),
              "attribute string, positioned at its --set (its key and another actor in the file)");
        CHECK(hero->n_attrs == 2 && strcmp(hero->attrs[1].key, "mass") == 0 && strcmp(hero->attrs[1].value, "1200") == 0,
              "a new attribute, a list joined");
        CHECK(hero->transform.location.x == 1 && hero->transform.location.y == 2 && hero->transform.location.z == 0.9,
              "a list replaced, then one item by index");
        CHECK(bob->more && bob->more->route[1].x == 11 && bob->more->loop_route, "a nested list by index; an actor by index");
        CHECK(hero->more && hero->more->has_velocity && hero->more->velocity.x == 3, "a key added");
        CHECK(sn_scene_more_of(&s.sensors[0])->spawn_at == 0.5, "a sensor by name");
        CHECK(s.settings.ambient == 0.5 && s.settings.sun_intensity == 0.75, "a mapping value");
    }
    sn_scene_free(&s);

    /* Later overrides win; untouched values stay. */
    m = with(&s, SETS("settings.seed=4", "settings.seed=5"));
    CHECK(m[0] == 0 && s.settings.seed == 5 && s.settings.frames == 10, "order: %s", m);
    sn_scene_free(&s);

    EXPECT_ERR("scene.yaml: --set actors.hero.control.throttle=1.7: control.throttle must be within [0, 1]",
               "actors.hero.control.throttle=1.7");
    EXPECT_ERR("scene.yaml: --set actors.hero.control.throttle=fast: expected a number for throttle, found 'fast'",
               "actors.hero.control.throttle=fast");
    EXPECT_ERR("scene.yaml: --set actors.hero.control.hand_brake=2: expected true or false for control.hand_brake",
               "actors.hero.control.hand_brake=2");
    EXPECT_ERR("scene.yaml: --set actors.heroo.control.throttle=1: no entry named 'heroo' in actors (expected a name: ground, hero, bob",
               "actors.heroo.control.throttle=1");
    EXPECT_ERR("scene.yaml: --set actors.hero.contrl=1: unknown key 'contrl' in an actor (expected one of:",
               "actors.hero.contrl=1");
    EXPECT_ERR("scene.yaml: --set settings.seed=-1: expected a whole number >= 0 for seed, found '-1'", "settings.seed=-1");
    EXPECT_ERR("scene.yaml: --set settings.frames.x=1: settings.frames is a single value ('10'), it has no 'x'",
               "settings.frames.x=1");
    EXPECT_ERR("scene.yaml: --set actors.hero.transform.location=[1, 2]: expected 3 numbers [x, y, z] for transform.location",
               "actors.hero.transform.location=[1, 2]");
    EXPECT_ERR("scene.yaml: --set actors.hero.transform.location=[1, 2: at column", "actors.hero.transform.location=[1, 2");
    /* A missing key is created as a mapping on the way, and the schema says what it wanted. */
    EXPECT_ERR("scene.yaml: --set actors.hero.transform.rotation.1=90: expected a list for transform.rotation",
               "actors.hero.transform.rotation.1=90");
    EXPECT_ERR("scene.yaml: --set settings=5: expected a mapping for settings, found a scalar", "settings=5");
    EXPECT_ERR("scene.yaml: --set settings..seed=1: empty name in the path", "settings..seed=1");
    EXPECT_ERR("scene.yaml: --set seed: expected PATH=VALUE", "seed");
    EXPECT_ERR("scene.yaml: --set actors.bob.name=hero: name 'hero' is already used at line 4", "actors.bob.name=hero");
    EXPECT_ERR("scene.yaml: --set actors.9.name=x: no entry named '9' in actors (expected a name: ground, hero, bob; or an index below 3)",
               "actors.9.name=x");
    EXPECT_ERR("scene.yaml: --set actors.hero.spawn_at=*a: at column", "actors.hero.spawn_at=*a");

    /* Blueprint-level checks name the --set too. */
    CHECK_CONTAINS(engine_err("sensors.crash.attributes.fov=110"),
                   "scene.yaml: --set sensors.crash.attributes.fov=110: unknown attribute 'fov'");
    CHECK_CONTAINS(engine_err("actors.hero.attributes.mass=-5"), "scene.yaml: --set actors.hero.attributes.mass=-5:");
    CHECK_CONTAINS(engine_err("actors.hero.blueprint=vehicle.ufo"),
                   "scene.yaml: --set actors.hero.blueprint=vehicle.ufo: unknown actor blueprint 'vehicle.ufo'");
    CHECK_CONTAINS(engine_err("sensors.crash.attach_to=nobody"),
                   "scene.yaml: --set sensors.crash.attach_to=nobody: attach_to 'nobody' names no actor");
    CHECK(engine_err("actors.hero.control.throttle=1")[0] == 0, "a good override loads through the engine");
    return CHECK_DONE();
}
