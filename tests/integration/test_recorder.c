/*
** test_recorder.c — the recorder plugin end to end, through the public API only:
** record the crash scene, read every frame back against the live run, the CARLA queries,
** truncation at every byte offset, a flipped byte, replay against the live poses and
** velocities, a depth camera added at replay against the same camera live, and a hero
** branched to physics from mid-recording (deterministic, and it really drives into the wall).
** argv: tmp dir, plugin dir (build/plugins), scene dir (tests/integration/recorder).
*/
#define _GNU_SOURCE
#include "../check.h"
#include "../testutil.h"
#include "../testrun.h"

#include <msgpack.h>
#include <sensim/sensim.h>
#include <stdlib.h>
#include <string.h>

#define FRAMES 60
static const char *tmp, *plugins, *scenes;

typedef struct live {
    sn_transform pose[FRAMES + 1];
    sn_vec3 vel[FRAMES + 1];
    uint32_t hero;
} live;

/* Depth images of the camera, per frame, decoded from raw_data (metres). */
typedef struct images {
    float *d[FRAMES + 1];
    size_t px;
} images;

static void on_cam(const sn_message *m, void *user)
{
    images *im = user;
    msgpack_unpacked u;
    msgpack_unpacked_init(&u);
    if (msgpack_unpack_next(&u, m->data, m->size, NULL) == MSGPACK_UNPACK_SUCCESS && m->frame <= FRAMES) {
        const msgpack_object_map *map = &u.data.via.map;
        for (uint32_t i = 0; i < map->size; i++) {
            const msgpack_object *k = &map->ptr[i].key, *v = &map->ptr[i].val;
            if (k->type == MSGPACK_OBJECT_STR && k->via.str.size == 8 && !memcmp(k->via.str.ptr, "raw_data", 8)) {
                const uint8_t *p = (const uint8_t *)v->via.bin.ptr;
                im->px = v->via.bin.size / 4;
                im->d[m->frame] = malloc(im->px * sizeof(float));
                for (size_t j = 0; j < im->px; j++)
                    im->d[m->frame][j] = (float)((p[4 * j] | p[4 * j + 1] << 8 | p[4 * j + 2] << 16) / 16777215.0 * 1000);
            }
        }
    }
    msgpack_unpacked_destroy(&u);
}

static void record(const char *scene, const char *file, live *lv, images *im)
{
    sn_error err;
    sn_engine *e = tu_engine(plugins, 1);
    CHECK(sn_engine_load_scene(e, scene, &err) == SN_OK, "%s", err.msg);
    sn_record_options ro = {sizeof ro, file, true, 0};
    CHECK(sn_engine_record(e, &ro, &err) == SN_OK, "%s", err.msg);
    if (im)
        CHECK(sn_engine_listen(e, "cam", on_cam, im, &err) == SN_OK, "%s", err.msg);
    lv->hero = sn_engine_find_actor(e, "hero");
    for (int f = 1; f <= FRAMES; f++) {
        CHECK(sn_engine_step(e, &err) == SN_OK, "%s", err.msg);
        sn_actor_info a = {.struct_size = sizeof a};
        sn_engine_actor_get(e, lv->hero, &a);
        lv->pose[f] = a.transform;
        lv->vel[f] = a.velocity;
    }
    sn_engine_finish(e, true, NULL);
    sn_engine_destroy(e);
}

static double tf_diff(const sn_transform *a, const sn_transform *b)
{
    double d = fabs(a->location.x - b->location.x) + fabs(a->location.y - b->location.y) +
               fabs(a->location.z - b->location.z);
    return fmax(d, fabs(a->rotation.pitch - b->rotation.pitch) + fabs(a->rotation.yaw - b->rotation.yaw) +
                       fabs(a->rotation.roll - b->rotation.roll));
}

static void write_all(const char *path, const char *b, size_t n)
{
    FILE *f = fopen(path, "wb");
    fwrite(b, 1, n, f);
    fclose(f);
}

/* Recorded frames vs the live run: every packet round-trips (poses to the 2^-20 quantum). */
static void check_readback(const char *file, const live *lv)
{
    sn_error err;
    sn_engine_options o = {.plugin_dir = plugins, .quiet_plugins = true};
    sn_recording *r = sn_recording_open(file, &o, &err);
    CHECK(r, "%s", err.msg);
    if (!r)
        return;
    sn_log_info in = {.struct_size = sizeof in};
    CHECK(sn_recording_info(r, &in, &err) == SN_OK, "%s", err.msg);
    CHECK(in.frames == FRAMES && in.end == SN_LOG_END_COMPLETE && !in.index_rebuilt, "frames %llu end %d",
          (unsigned long long)in.frames, in.end);
    CHECK(in.additional_data && in.seed == 1 && in.date == 0, "header");
    const sn_log_frame *f;
    int n = 0;
    bool saw_add = false, saw_coll = false;
    while (sn_recording_next(r, &f, &err) == SN_OK) {
        n++;
        CHECK(f->frame == (uint64_t)n && fabs(f->elapsed - (n - 1) * 0.05) < 1e-12, "frame %d", n);
        for (uint32_t i = 0; i < f->n_added; i++)
            if (f->added[i].id == lv->hero) {
                saw_add = true;
                CHECK(f->added[i].hero && !strcmp(f->added[i].blueprint, "vehicle.sedan") && f->added[i].type == 1,
                      "hero add record");
            }
        for (uint32_t i = 0; i < f->n_collisions; i++)
            saw_coll |= f->collisions[i].actor1 == lv->hero && f->collisions[i].hero1;
        bool found = false;
        for (uint32_t i = 0; i < f->n_poses; i++)
            if (f->poses[i].id == lv->hero) {
                found = true;
                CHECK(tf_diff(&f->poses[i].transform, &lv->pose[n]) <= 1.5e-6, "frame %d pose off by %g", n,
                      tf_diff(&f->poses[i].transform, &lv->pose[n]));
            }
        CHECK(found, "frame %d has the hero's pose", n);
        for (uint32_t i = 0; i < f->n_kinematics; i++)
            if (f->kinematics[i].id == lv->hero)
                CHECK_NEAR(f->kinematics[i].velocity.x, lv->vel[n].x, 1e-6, "recorded velocity");
        CHECK(f->n_controls == 1 && f->n_bboxes >= 2, "frame %d: controls %u boxes %u", n, f->n_controls,
              f->n_bboxes);
    }
    CHECK(n == FRAMES && saw_add && saw_coll, "read %d frames, add %d, collision %d", n, saw_add, saw_coll);
    /* Seek to the middle: a snapshot with every live actor, then the same frames again. */
    CHECK(sn_recording_seek(r, 1.0, &err) == SN_OK, "%s", err.msg);
    CHECK(sn_recording_next(r, &f, &err) == SN_OK && f->snapshot && f->frame == 21 && f->n_added >= 4,
          "seek: frame %llu snapshot %d added %u", f ? (unsigned long long)f->frame : 0, f ? f->snapshot : 0,
          f ? f->n_added : 0);
    for (uint32_t i = 0; f && i < f->n_poses; i++)
        if (f->poses[i].id == lv->hero)
            CHECK(tf_diff(&f->poses[i].transform, &lv->pose[21]) <= 1.5e-6, "pose after seek");

    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    CHECK(sn_recording_print_collisions(r, m, 'v', 'o', false, &err) == SN_OK, "%s", err.msg);
    fclose(m);
    char row[64];
    snprintf(row, sizeof row, "   v o  %6u vehicle.sedan", lv->hero);
    CHECK_CONTAINS(text, row);
    CHECK_CONTAINS(text, "    Time  Types     Id Actor 1");
    CHECK(strstr(text, "   o v  ") == NULL, "type filter");
    free(text);
    m = open_memstream(&text, &len);
    CHECK(sn_recording_print_blocked(r, m, 0.8, 2.0, true, &err) == SN_OK, "%s", err.msg);
    fclose(m);
    snprintf(row, sizeof row, "\"id\":%u,\"actor\":\"vehicle.sedan\"", lv->hero);
    CHECK_CONTAINS(text, row);
    free(text);
    sn_recording_close(r);
}

/* Every prefix of the file: never a crash, the complete frames and only them. */
static void check_truncation(const char *file)
{
    size_t n;
    char *full = tu_read_file(file, &n);
    char cut[512];
    snprintf(cut, sizeof cut, "%s/cut.sensimrec", tmp);
    sn_engine_options o = {.plugin_dir = plugins, .quiet_plugins = true};
    /* Each open loads every plugin of the build (~10 ms under ASan), so not every offset: each
    ** byte of the header and the first frame's record head, every 13th byte after (a prime, so
    ** the cuts fall at every offset within the repeating frame records), and each byte of the
    ** last 256 (index and trailer). tests/fuzz (fuzz_reader) cuts and damages it everywhere. */
    uint64_t last = 0;
    int opened = 0;
    for (size_t len = 0; len <= n; len += len < 160 || len + 256 >= n ? 1 : 13) {
        write_all(cut, full, len);
        sn_error err;
        sn_recording *r = sn_recording_open(cut, &o, &err);
        if (!r)
            continue;
        opened++;
        sn_log_info in = {.struct_size = sizeof in};
        sn_recording_info(r, &in, NULL);
        const sn_log_frame *f;
        uint64_t k = 0;
        sn_status st;
        while ((st = sn_recording_next(r, &f, &err)) == SN_OK)
            k++;
        CHECK(st == SN_E_NOT_FOUND && k == in.frames, "cut at %zu: %llu of %llu frames, %s", len,
              (unsigned long long)k, (unsigned long long)in.frames, err.msg);
        CHECK(k >= last || len == n, "cut at %zu: fewer frames than a shorter cut", len);
        CHECK(len == n || in.end != SN_LOG_END_COMPLETE, "cut at %zu claims to be complete", len);
        last = k;
        sn_recording_close(r);
    }
    CHECK(opened > 0 && last == FRAMES, "opened %d, last %llu", opened, (unsigned long long)last);
    free(full);
}

static void check_flip(const char *file)
{
    size_t n;
    char *b = tu_read_file(file, &n);
    b[n / 2] ^= 0x5a;
    char bad[512];
    snprintf(bad, sizeof bad, "%s/flipped.sensimrec", tmp);
    write_all(bad, b, n);
    free(b);
    sn_engine_options o = {.plugin_dir = plugins, .quiet_plugins = true};
    sn_error err;
    sn_recording *r = sn_recording_open(bad, &o, &err);
    CHECK(r, "%s", err.msg);
    const sn_log_frame *f;
    sn_status st;
    int k = 0;
    while ((st = sn_recording_next(r, &f, &err)) == SN_OK)
        k++;
    CHECK(st == SN_E_INVALID && k > 0 && k < FRAMES, "flipped: %d frames then %d", k, st);
    CHECK_CONTAINS(err.msg, "frame ");
    CHECK(strstr(err.msg, "checksum") || strstr(err.msg, "no frame starts") || strstr(err.msg, "damaged"),
          "damage named: %s", err.msg);
    sn_recording_close(r);
    /* A replay reads the frames it will show at load: the damage is bad input there (exit 2),
    ** not a failure half-way through the run (exit 1, partial outputs). */
    sn_engine *e = tu_engine(plugins, 1);
    sn_replay_options ro = {.struct_size = sizeof ro};
    CHECK(sn_engine_load_replay(e, bad, &ro, &err) == SN_E_INVALID, "a damaged recording replays");
    CHECK_CONTAINS(err.msg, "replay: ");
    CHECK_CONTAINS(err.msg, "frame ");
    sn_engine_destroy(e);
    r = sn_recording_open(scenes, &o, &err); /* a folder / not a recording */
    CHECK(!r, "a folder is not a recording");
    char missing[512];
    snprintf(missing, sizeof missing, "%s/no-such.sensimrec", tmp);
    CHECK(!sn_recording_open(missing, &o, &err) && err.status == SN_E_IO, "missing file: %s", err.msg);
}

static void check_replay(const char *file, const char *scene, const live *lv, const images *im_live)
{
    sn_error err;
    sn_engine *e = tu_engine(plugins, 1);
    images im = {0};
    sn_replay_options ro = {.struct_size = sizeof ro, .scene = scene};
    CHECK(sn_engine_load_replay(e, file, &ro, &err) == SN_OK, "%s", err.msg);
    CHECK(sn_engine_listen(e, "cam", on_cam, &im, &err) == SN_OK, "%s", err.msg);
    double worst = 0;
    for (int f = 1; f <= FRAMES; f++) {
        CHECK(sn_engine_step(e, &err) == SN_OK, "%s", err.msg);
        uint32_t id = sn_engine_replay_actor(e, lv->hero);
        sn_actor_info a = {.struct_size = sizeof a};
        CHECK(id && sn_engine_actor_get(e, id, &a) == SN_OK, "hero replayed at frame %d", f);
        worst = fmax(worst, tf_diff(&a.transform, &lv->pose[f]));
        CHECK_NEAR(a.velocity.x, lv->vel[f].x, 1e-5, "replayed velocity");
    }
    CHECK(worst <= 1.5e-6, "replayed poses off the live ones by up to %g", worst);
    sn_engine_destroy(e);
    /* The camera added at replay renders what it rendered live. */
    size_t differ = 0, total = 0;
    for (int f = 1; f <= FRAMES; f++) {
        if (!im_live->d[f] || !im.d[f] || im.px != im_live->px) {
            CHECK(0, "frame %d: an image is missing", f);
            continue;
        }
        for (size_t j = 0; j < im.px; j++, total++)
            differ += fabsf(im.d[f][j] - im_live->d[f][j]) > 0.01f;
        free(im.d[f]);
    }
    CHECK(total && differ * 1000 <= total, "%zu of %zu depth pixels differ by more than 1 cm", differ, total);
}

static uint64_t branch_run(const char *file, const char *scene, sn_transform *end, uint64_t *collisions)
{
    sn_error err;
    sn_engine *e = tu_engine(plugins, 1);
    sn_replay_options ro = {.struct_size = sizeof ro, .start = 0.5, .duration = 1.5, .branch_hero = true, .scene = scene};
    CHECK(sn_engine_load_replay(e, file, &ro, &err) == SN_OK, "%s", err.msg);
    CHECK(sn_engine_run(e, 0, &err) == SN_OK, "%s", err.msg);
    sn_actor_info a = {.struct_size = sizeof a};
    sn_engine_actor_get(e, sn_engine_find_actor(e, "hero"), &a);
    *end = a.transform;
    sn_run_stats s = {.struct_size = sizeof s};
    sn_engine_stats(e, &s, NULL);
    *collisions = s.messages;
    sn_engine_destroy(e);
    return s.frames;
}

int main(int argc, char **argv)
{
    if (argc < 4)
        return 2;
    tmp = argv[1], plugins = argv[2], scenes = argv[3];
    char scene[512], file[512];
    snprintf(scene, sizeof scene, "%s/cam.yaml", scenes);
    snprintf(file, sizeof file, "%s/crash.sensimrec", tmp);
    live lv;
    images im = {0};
    record(scene, file, &lv, &im);
    check_readback(file, &lv);
    check_truncation(file);
    check_flip(file);
    check_replay(file, scene, &lv, &im);
    for (int f = 0; f <= FRAMES; f++)
        free(im.d[f]);
    /* Branching: from 0.5 s the hero drives under physics; two runs agree to the bit, and it
    ** hits the wall (its collision sensor reports: a kinematic replay never would). */
    sn_transform a, b;
    uint64_t ca, cb;
    /* 1.5 s from 0.5 s: 30 frames of 0.05 s (docs/recorder.md: a duration D replays D / dt frames) */
    CHECK(branch_run(file, scene, &a, &ca) == 30, "branch frames");
    branch_run(file, scene, &b, &cb);
    CHECK(memcmp(&a, &b, sizeof a) == 0 && ca == cb, "branched runs differ");
    CHECK(ca > 30, "the branched hero's sensors reported %llu messages (camera 30 + collisions)",
          (unsigned long long)ca);
    CHECK(a.location.x > 15 && a.location.x < 19.6, "branched hero ends at x = %g, against the wall", a.location.x);
    return CHECK_DONE();
}
