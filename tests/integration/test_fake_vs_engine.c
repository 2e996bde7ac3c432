/* One host: the collision and camera plugins through the SDK's fake host (sensim/testing.h)
** and through the engine running a scene file, on the same scene, message for message.
** Cameras: byte for byte (the same static scene, a camera riding on its parent with a mount and
** one standing free). Collisions: the engine's physics makes them; the fake host gets them
** injected with the engine's values, the parent placed at the engine's pose of that frame;
** every key equal byte for byte except the header `transform`, equal within 1e-9: the fake
** places the parent with a rotation (pitch, yaw, roll) that the engine turned into a quaternion
** and back, which need not give the last bit of the same quaternion again.
** argv[1]: temp folder, argv[2]: plugin folder (build/plugins) */
#define SN_TESTING_IMPLEMENTATION
#include <sensim/testing.h>

#include "../check.h"
#include "../testutil.h"

#define MAX_FRAMES 80

typedef struct frames {
    struct { char *data; size_t size; } msg[MAX_FRAMES + 1][4];
    uint32_t n[MAX_FRAMES + 1];
} frames;

static void keep(const sn_message *m, void *user)
{
    frames *fr = user;
    uint64_t k = m->frame;
    if (k > MAX_FRAMES || fr->n[k] >= 4)
        return;
    void *p = malloc(m->size);
    memcpy(p, m->data, m->size);
    fr->msg[k][fr->n[k]].data = p;
    fr->msg[k][fr->n[k]++].size = m->size;
}

static void frames_free(frames *fr)
{
    for (int k = 0; k <= MAX_FRAMES; k++)
        for (uint32_t i = 0; i < fr->n[k]; i++)
            free(fr->msg[k][i].data);
}

static sn_transform T(double x, double y, double z, double pitch, double yaw, double roll)
{
    return (sn_transform){{x, y, z}, {pitch, yaw, roll}};
}

static void cameras(const char *dir, const char *plugins)
{
    const char *path = tu_write(dir, "fake_vs_engine_cam.yaml",
        "settings: {fixed_delta_seconds: 0.05, seed: 5}\n"
        "actors:\n"
        "  - {name: ground, blueprint: static.ground}\n"
        "  - {name: post, blueprint: static.prop.box, transform: {location: [12, 0, 1]}, attributes: {extent: \"0.5,0.5,1\", color: \"200,40,40\"}}\n"
        "  - {name: house, blueprint: static.building, transform: {location: [25, -8, 5], rotation: [0, 20, 0]}, attributes: {extent: \"5,5,5\"}}\n"
        "  - {name: ball, blueprint: static.prop.sphere, transform: {location: [15, 4, 1]}, attributes: {radius: 1}}\n"
        "  - {name: mast, blueprint: static.prop.box, transform: {location: [0, 0, 1]}, attributes: {extent: \"0.2,0.2,1\"}}\n"
        "sensors:\n"
        "  - {name: cam, blueprint: sensor.camera.rgb, attach_to: mast, transform: {location: [0.3, 0, 1.2], rotation: [-5, 0, 0]},\n"
        "     attributes: {image_size_x: 64, image_size_y: 48}}\n"
        "  - {name: depth, blueprint: sensor.camera.depth, transform: {location: [0, 3, 2], rotation: [0, -10, 0]},\n"
        "     attributes: {image_size_x: 40, image_size_y: 30, fov: 70}}\n");
    frames *eng = calloc(2, sizeof *eng), *fk = eng + 1;
    sn_engine *e = tu_load(plugins, path);
    sn_error err;
    CHECK(!sn_engine_listen(e, "cam", keep, eng, &err) && !sn_engine_listen(e, "depth", keep, eng, &err), "%s", err.msg);
    for (int k = 0; k < 3; k++)
        CHECK(sn_engine_step(e, &err) == SN_OK, "%s", err.msg);
    sn_engine_destroy(e);

    sn_fake *f = sn_fake_new(5);
    char so[1024];
    snprintf(so, sizeof so, "%s/sensim_camera.so", plugins);
    sn_plugin_entry_fn entry = sn_fake_open(f, so);
    CHECK(entry, "%s", sn_fake_error(f));
    sn_fake_spawn_actor(f, "static.ground", "ground", T(0, 0, 0, 0, 0, 0), 0, NULL);
    sn_fake_spawn_actor(f, "static.prop.box", "post", T(12, 0, 1, 0, 0, 0), 0, (const char *[]){"extent=0.5,0.5,1", "color=200,40,40", NULL});
    sn_fake_spawn_actor(f, "static.building", "house", T(25, -8, 5, 0, 20, 0), 0, (const char *[]){"extent=5,5,5", NULL});
    sn_fake_spawn_actor(f, "static.prop.sphere", "ball", T(15, 4, 1, 0, 0, 0), 0, (const char *[]){"radius=1", NULL});
    uint32_t mast = sn_fake_spawn_actor(f, "static.prop.box", "mast", T(0, 0, 1, 0, 0, 0), 0, (const char *[]){"extent=0.2,0.2,1", NULL});
    sn_fake_sensor *cam = sn_fake_spawn_named(f, entry, "sensor.camera.rgb", "cam",
                                              (const char *[]){"image_size_x=64", "image_size_y=48", NULL}, mast, T(0.3, 0, 1.2, -5, 0, 0));
    sn_fake_sensor *depth = sn_fake_spawn_named(f, entry, "sensor.camera.depth", "depth",
                                                (const char *[]){"image_size_x=40", "image_size_y=30", "fov=70", NULL}, 0, T(0, 3, 2, 0, -10, 0));
    CHECK(mast && cam && depth, "%s", sn_fake_error(f));
    int same = 0;
    for (int k = 1; cam && depth && k <= 3; k++) {
        CHECK(sn_fake_step(f) == SN_OK, "%s", sn_fake_error(f));
        sn_fake_sensor *s[2] = {cam, depth};
        for (int i = 0; i < 2; i++) {
            size_t n = 0;
            const void *raw = sn_fake_raw(s[i], 0, &n);
            CHECK(eng->n[k] == 2 && sn_fake_message_count(s[i]) == 1, "frame %d: %u engine messages", k, eng->n[k]);
            if (raw && eng->n[k] == 2) {
                bool eq = n == eng->msg[k][i].size && !memcmp(raw, eng->msg[k][i].data, n);
                CHECK(eq, "frame %d, %s: the fake host's message (%zu bytes) differs from the engine's (%zu)", k,
                      sn_fake_sensor_name(s[i]), n, eng->msg[k][i].size);
                same += eq;
            }
        }
    }
    CHECK(same == 6, "%d of 6 camera messages byte for byte", same);
    /* and the picture is a picture: the red post is in the middle of the attached camera's image */
    const uint8_t *px = sn_fake_bin(cam, 0, "raw_data", NULL);
    CHECK(px && px[4 * (22 * 64 + 32) + 2] > 100 && px[4 * (22 * 64 + 32) + 1] < 60, "the post in the middle");
    sn_fake_free(f);
    frames_free(eng);
    free(eng);
    (void)fk;
}

/* Every key of two messages: byte for byte, the header transform within 1e-9. */
static int compare(const void *a, size_t na, const void *b, size_t nb, const char *what)
{
    msgpack_unpacked ua, ub;
    msgpack_unpacked_init(&ua), msgpack_unpacked_init(&ub);
    size_t oa = 0, ob = 0;
    int bad = 0;
    if (msgpack_unpack_next(&ua, a, na, &oa) != MSGPACK_UNPACK_SUCCESS ||
        msgpack_unpack_next(&ub, b, nb, &ob) != MSGPACK_UNPACK_SUCCESS || ua.data.type != MSGPACK_OBJECT_MAP ||
        ub.data.type != MSGPACK_OBJECT_MAP || ua.data.via.map.size != ub.data.via.map.size) {
        CHECK(0, "%s: not two maps of the same size", what);
        bad = 1;
    }
    for (uint32_t i = 0; !bad && i < ua.data.via.map.size; i++) {
        const msgpack_object_kv *x = &ua.data.via.map.ptr[i], *y = &ub.data.via.map.ptr[i];
        char key[64];
        snprintf(key, sizeof key, "%.*s", (int)x->key.via.str.size, x->key.via.str.ptr);
        if (!msgpack_object_equal(x->key, y->key)) {
            CHECK(0, "%s: key %u is '%s' in one, not the other", what, i, key);
            bad++;
            continue;
        }
        if (!strcmp(key, "transform")) {
            for (int part = 0; part < 2; part++) {
                const msgpack_object *px = &x->val.via.map.ptr[part].val, *py = &y->val.via.map.ptr[part].val;
                for (int c = 0; c < 3; c++) {
                    double d = fabs(tu_num(&px->via.array.ptr[c]) - tu_num(&py->via.array.ptr[c]));
                    if (d > 1e-9) {
                        CHECK(0, "%s: transform differs by %g", what, d);
                        bad++;
                    }
                }
            }
            continue;
        }
        msgpack_sbuffer sa, sb;
        msgpack_sbuffer_init(&sa), msgpack_sbuffer_init(&sb);
        msgpack_packer pa, pb;
        msgpack_packer_init(&pa, &sa, msgpack_sbuffer_write), msgpack_packer_init(&pb, &sb, msgpack_sbuffer_write);
        msgpack_pack_object(&pa, x->val), msgpack_pack_object(&pb, y->val);
        if (sa.size != sb.size || memcmp(sa.data, sb.data, sa.size)) {
            CHECK(0, "%s: '%s' differs", what, key);
            bad++;
        }
        msgpack_sbuffer_destroy(&sa), msgpack_sbuffer_destroy(&sb);
    }
    msgpack_unpacked_destroy(&ua), msgpack_unpacked_destroy(&ub);
    return bad;
}

static void collisions(const char *dir, const char *plugins)
{
    const char *path = tu_write(dir, "fake_vs_engine_crash.yaml",
        "settings: {fixed_delta_seconds: 0.05, seed: 3, frames: 60}\n"
        "actors:\n"
        "  - {name: ground, blueprint: static.ground}\n"
        "  - {name: hero, blueprint: vehicle.sedan, transform: {location: [0, 0, 0.05]}, velocity: [12, 0, 0],\n"
        "     attributes: {role_name: hero}, control: {throttle: 0.6}}\n"
        "  - {name: wall, blueprint: static.prop.box, transform: {location: [20, 0, 1.5]}, attributes: {extent: \"0.5,5,1.5\", semantic_tag: Wall}}\n"
        "sensors:\n"
        "  - {name: crash, blueprint: sensor.other.collision, attach_to: hero, transform: {location: [1, 0, 0.8]}}\n");
    frames *eng = calloc(1, sizeof *eng);
    sn_engine *e = tu_load(plugins, path);
    sn_error err;
    CHECK(!sn_engine_listen(e, "crash", keep, eng, &err), "%s", err.msg);
    uint32_t hero = sn_engine_find_actor(e, "hero");
    static sn_transform pose[MAX_FRAMES + 1];
    int frames_run = 60;
    for (int k = 1; k <= frames_run; k++) {
        CHECK(sn_engine_step(e, &err) == SN_OK, "%s", err.msg);
        sn_actor_info a = {.struct_size = sizeof a};
        sn_engine_actor_get(e, hero, &a);
        pose[k] = a.transform;
    }
    sn_engine_destroy(e);

    sn_fake *f = sn_fake_new(3);
    char so[1024];
    snprintf(so, sizeof so, "%s/sensim_collision.so", plugins);
    sn_plugin_entry_fn entry = sn_fake_open(f, so);
    sn_fake_spawn_actor(f, "static.ground", "ground", T(0, 0, 0, 0, 0, 0), 0, NULL);
    uint32_t fhero = sn_fake_spawn_actor(f, "vehicle.sedan", "hero", T(0, 0, 0.05, 0, 0, 0), 0, (const char *[]){"role_name=hero", NULL});
    sn_fake_spawn_actor(f, "static.prop.box", "wall", T(20, 0, 1.5, 0, 0, 0), 0, (const char *[]){"extent=0.5,5,1.5", "semantic_tag=Wall", NULL});
    sn_fake_sensor *s = sn_fake_spawn_named(f, entry, "sensor.other.collision", "crash", NULL, fhero, T(1, 0, 0.8, 0, 0, 0));
    CHECK(entry && fhero == hero && s, "%s", sn_fake_error(f));
    int compared = 0, differ = 0;
    for (int k = 1; s && k <= frames_run; k++) {
        sn_fake_set_transform(f, fhero, pose[k]); /* where physics had it at the end of frame k */
        CHECK(sn_fake_begin_frame(f) == SN_OK, "%s", sn_fake_error(f));
        for (uint32_t i = 0; i < eng->n[k]; i++) { /* physics' collisions of frame k, injected */
            msgpack_unpacked u;
            msgpack_unpacked_init(&u);
            size_t off = 0;
            msgpack_unpack_next(&u, eng->msg[k][i].data, eng->msg[k][i].size, &off);
            sn_collision c = {hero, (uint32_t)tu_num(tu_get(tu_get(&u.data, "other_actor"), "id")),
                              tu_vec3(tu_get(&u.data, "normal_impulse")), tu_vec3(tu_get(&u.data, "location")),
                              tu_vec3(tu_get(&u.data, "normal"))};
            CHECK(sn_fake_inject(f, &c) == SN_OK, "%s", sn_fake_error(f));
            msgpack_unpacked_destroy(&u);
        }
        CHECK(sn_fake_end_frame(f) == SN_OK, "%s", sn_fake_error(f));
        CHECK(sn_fake_message_count(s) == eng->n[k], "frame %d: %u messages, the engine %u", k,
              sn_fake_message_count(s), eng->n[k]);
        for (uint32_t i = 0; i < eng->n[k] && i < sn_fake_message_count(s); i++) {
            size_t n = 0;
            const void *raw = sn_fake_raw(s, i, &n);
            char what[64];
            snprintf(what, sizeof what, "frame %d message %u", k, i);
            differ += compare(raw, n, eng->msg[k][i].data, eng->msg[k][i].size, what) != 0;
            compared++;
        }
    }
    CHECK(compared >= 1 && differ == 0, "%d collision messages compared, %d differ", compared, differ);
    fprintf(stderr, "collision messages compared: %d\n", compared);
    sn_fake_free(f);
    frames_free(eng);
    free(eng);
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return fprintf(stderr, "usage: test_fake_vs_engine TMP PLUGINS\n"), 2;
    cameras(argv[1], argv[2]);
    collisions(argv[1], argv[2]);
    return CHECK_DONE();
}
