/* Cameras of one picture share a render (engine/sim/render_share.h): a depth, a semantic and an
** instance camera on one mount of a moving car, an RGB camera between them and a depth camera on
** another mount, every frame byte for byte what each camera gives when it is the scene's only
** sensor (its own render), at 1 and 2 threads; and the sharing happens (the semantic and instance
** cameras' renders are copies from the second frame on), copying only what they ask for: the depth
** camera, first on the mount, draws its depth straight into its own image (vec62), not into the
** kept planes and out again. argv[1]: temp folder, argv[2]: plugins. */
#include "../../engine/sim/engine.h"
#include "../../engine/sim/render_share.h"
#include "../check.h"
#include "../testutil.h"

static const char *dir, *plugins;

#define FRAMES 4
#define MOUNT "attach_to: car, transform: {location: [1.5, 0, 1.6], rotation: [-4, 6, 0]}"
#define SIZE "image_size_x: 160, image_size_y: 120"
static const char *const sensors[] = {
    "  - {name: depth, blueprint: sensor.camera.depth, " MOUNT ", attributes: {" SIZE ", depth_float: true}}\n",
    "  - {name: rgb, blueprint: sensor.camera.rgb, " MOUNT ", attributes: {" SIZE "}}\n",
    "  - {name: semantic, blueprint: sensor.camera.semantic_segmentation, " MOUNT ", attributes: {" SIZE "}}\n",
    "  - {name: instance, blueprint: sensor.camera.instance_segmentation, " MOUNT ", attributes: {" SIZE "}}\n",
    "  - {name: back, blueprint: sensor.camera.depth, attach_to: car, transform: {location: [-2, 0, 1.6], rotation: [0, 180, 0]},"
    " attributes: {" SIZE ", depth_float: true}}\n",
};
#define N_SENSORS 5
static const char *const names[N_SENSORS] = {"depth", "rgb", "semantic", "instance", "back"};

/* The world: a car driving past props and a second car; `only` (-1: all) picks one sensor. */
static const char *scene(int only)
{
    static char text[4096];
    int n = snprintf(text, sizeof text,
                     "settings: {fixed_delta_seconds: 0.05, seed: 3}\n"
                     "actors:\n"
                     "  - {name: ground, blueprint: static.ground}\n"
                     "  - {name: car, blueprint: vehicle.sedan, transform: {location: [0, 0, 0.3], rotation: [0, 3, 0]},"
                     " control: {throttle: 1, steer: 0.2}}\n"
                     "  - {name: other, blueprint: vehicle.sedan, transform: {location: [14, 2, 0.3], rotation: [0, 40, 0]}}\n"
                     "  - {name: ball, blueprint: static.prop.sphere, transform: {location: [9, -2, 1]}, attributes: {radius: 1}}\n"
                     "  - {name: box, blueprint: static.prop.box, transform: {location: [-9, 1, 1]}}\n"
                     "  - {name: house, blueprint: static.building, transform: {location: [40, 20, 10]}}\n"
                     "sensors:\n");
    for (int i = 0; i < N_SENSORS; i++)
        if (only < 0 || only == i)
            n += snprintf(text + n, sizeof text - (size_t)n, "%s", sensors[i]);
    return text;
}

/* Every frame's image of each sensor captured (-1: the whole rig), and the engine's shared renders. */
static int shoot(int only, int threads, tu_image img[FRAMES][N_SENSORS], uint64_t *hits, uint64_t *copied)
{
    sn_error err = {0};
    sn_engine_options o = {.plugin_dir = plugins, .quiet_plugins = true, .threads = threads};
    sn_engine *e = sn_engine_create(&o, &err);
    tu_image last[N_SENSORS];
    memset(last, 0, sizeof last);
    int rc = !e || sn_engine_load_scene(e, tu_write(dir, "share.yaml", scene(only)), &err);
    for (int i = 0; !rc && i < N_SENSORS; i++)
        if (only < 0 || only == i)
            rc = sn_engine_listen(e, names[i], tu_on_image, &last[i], &err) != SN_OK;
    for (int f = 0; !rc && f < FRAMES; f++) {
        rc = sn_engine_step(e, &err) != SN_OK;
        for (int i = 0; i < N_SENSORS; i++) /* the frame's image moves to img; the listener makes a new one */
            img[f][i] = last[i], last[i].raw = NULL, last[i].depth = NULL;
    }
    if (rc)
        fprintf(stderr, "FAIL: %s\n", err.msg);
    *hits = e ? sn_render_share_hits(e->render_share) : 0;
    *copied = e ? sn_render_share_copied(e->render_share) : 0;
    sn_engine_destroy(e);
    return rc;
}

static void same_as_alone(int threads)
{
    static tu_image rig[FRAMES][N_SENSORS], alone[FRAMES][N_SENSORS];
    uint64_t hits = 0, alone_hits = 0, copied = 0, alone_copied = 0;
    if (shoot(-1, threads, rig, &hits, &copied))
        return;
    for (int i = 0; i < N_SENSORS; i++) {
        tu_image one[FRAMES][N_SENSORS];
        memset(one, 0, sizeof one);
        uint64_t h = 0, c = 0;
        if (shoot(i, threads, one, &h, &c))
            return;
        alone_hits += h, alone_copied += c;
        for (int f = 0; f < FRAMES; f++)
            alone[f][i] = one[f][i];
    }
    for (int f = 0; f < FRAMES; f++)
        for (int i = 0; i < N_SENSORS; i++) {
            const tu_image *a = &rig[f][i], *b = &alone[f][i];
            CHECK(a->raw && b->raw, "%s frame %d: no image", names[i], f);
            if (!a->raw || !b->raw)
                continue;
            CHECK(a->size == b->size && !memcmp(a->raw, b->raw, a->size), "%s frame %d, %d thread(s): the rig's image "
                  "differs from the camera's alone", names[i], f, threads);
            CHECK(!a->depth == !b->depth && (!a->depth || !memcmp(a->depth, b->depth, (size_t)a->w * a->h * sizeof(float))),
                  "%s frame %d: float depth differs from the camera's alone", names[i], f);
        }
    /* the pictures change between frames (the car drives): a copy of a stale render would show */
    CHECK(memcmp(rig[0][0].depth, rig[FRAMES - 1][0].depth, 160 * 120 * sizeof(float)) != 0,
          "the depth camera saw the same picture in the first and last frame");
    /* frame 1 learns; from frame 2 on, semantic and instance are copies of depth's render */
    CHECK(hits >= 2 * (FRAMES - 1), "%llu shared renders in %d frames (want >= %d)", (unsigned long long)hits, FRAMES,
          2 * (FRAMES - 1));
    CHECK(alone_hits == 0 && alone_copied == 0, "a camera alone was served %llu copies", (unsigned long long)alone_hits);
    /* every frame copies the semantic camera's tags and the instance camera's tags and ids out of
    ** kept planes, 1 + 1 + 4 bytes a pixel (the first frame from the renders that learn, the others
    ** as hits); the depth camera's depth (4 more) is drawn in place, never kept nor copied */
    const uint64_t px = 160 * 120;
    CHECK(copied == FRAMES * 6 * px, "%llu bytes copied out of kept planes in %d frames (want %llu)",
          (unsigned long long)copied, FRAMES, (unsigned long long)(FRAMES * 6 * px));
    for (int f = 0; f < FRAMES; f++)
        for (int i = 0; i < N_SENSORS; i++)
            tu_image_free(&rig[f][i]), tu_image_free(&alone[f][i]);
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return fprintf(stderr, "usage: test_render_share TMP PLUGINS\n"), 2;
    dir = argv[1], plugins = argv[2];
    same_as_alone(1);
    same_as_alone(2);
    return CHECK_DONE();
}
