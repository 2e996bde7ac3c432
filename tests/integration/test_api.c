/* The public C API the sensim program is built on, used as an embedding program would (links
** libsensim, includes only <sensim/sensim.h>). argv[1]: temp folder, argv[2]: the collision
** plugin's folder, argv[3]: the broken test plugins' folder, argv[4]: scenes/.
**
** 1. The blueprint library without an engine: built-ins with their attributes, the collision
**    sensor with its plugin file, plugin files with their blueprints; the same from an engine.
** 2. The log callback receives refused-plugin warnings and a sensor's host->log instead of
**    stderr, per engine (two engines, two callbacks); without it, stderr as before.
** 3. Run statistics of scenes/crash.yaml, step by step, against the written stream.
** 4. The stream tools: dump and the converter names. */
#include "../check.h"

#include <sensim/sensim.h>
#include <sensim/testworld.h>

#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *tmp, *collision_dir, *broken_dir, *scenes;

/* ---- capturing stderr (fd 2) around a call ---- */

static int saved_fd = -1;
static char cap_path[PATH_MAX];

static void capture_begin(void)
{
    snprintf(cap_path, sizeof cap_path, "%s/api_stderr.txt", tmp);
    fflush(stderr);
    saved_fd = dup(2);
    FILE *f = fopen(cap_path, "w");
    if (f) {
        dup2(fileno(f), 2);
        fclose(f);
    }
}

/* The captured text (static buffer). */
static const char *capture_end(void)
{
    static char text[16384];
    fflush(stderr);
    dup2(saved_fd, 2);
    close(saved_fd);
    text[0] = 0;
    FILE *f = fopen(cap_path, "r");
    if (f) {
        size_t n = fread(text, 1, sizeof text - 1, f);
        text[n] = 0;
        fclose(f);
    }
    return text;
}

/* ---- a log callback that keeps what it got ---- */

typedef struct log_rec {
    int n, n_warn;
    char all[16384];
} log_rec;

static void on_log(sn_log_level level, const char *line, void *user)
{
    log_rec *r = user;
    r->n++;
    r->n_warn += level == SN_LOG_WARN;
    size_t used = strlen(r->all);
    snprintf(r->all + used, sizeof r->all - used, "%d %s\n", (int)level, line);
}

static const sn_attr_def *attr_named(const sn_blueprint_info *b, const char *name)
{
    for (uint32_t k = 0; k < b->n_attrs; k++)
        if (strcmp(b->attrs[k]->name, name) == 0)
            return b->attrs[k];
    return NULL;
}

static void blueprint_library(void)
{
    sn_error err = {0};
    log_rec rec = {0};
    sn_blueprints *lib = sn_blueprints_open(
        &(sn_engine_options){.plugin_dir = collision_dir, .log = on_log, .log_user = &rec}, &err);
    CHECK(lib != NULL, "open: %s", err.msg);
    if (!lib)
        return;
    CHECK(rec.n == 0, "the collision folder refuses nothing: %s", rec.all);
    size_t n = sn_blueprints_count(lib);
    CHECK(n >= 8, "%zu blueprints", n);

    sn_blueprint_info b = {.struct_size = sizeof b};
    CHECK(sn_blueprints_find(lib, "vehicle.sedan", &b, &err) == SN_OK, "%s", err.msg);
    CHECK(b.kind == SN_ACTOR_VEHICLE && b.plugin == NULL && b.doc[0], "sedan: kind %d, plugin %s", (int)b.kind,
          b.plugin ? b.plugin : "NULL");
    CHECK(b.n_attrs >= 5 && b.attrs[b.n_attrs] == NULL, "sedan: %u attributes, NULL-terminated", b.n_attrs);
    const sn_attr_def *mass = attr_named(&b, "mass");
    CHECK(mass && mass->type == SN_ATTR_FLOAT && mass->has_range && mass->min > 0 && mass->def[0],
          "sedan mass: a float with a range and a default");
    CHECK(mass && strcmp(sn_attr_type_name(mass->type), "float") == 0, "type name");
    CHECK(attr_named(&b, "extent") && attr_named(&b, "max_power") && attr_named(&b, "color"),
          "sedan: extent, max_power, color");
    const sn_attr_def *color = attr_named(&b, "color");
    CHECK(color && color->type == SN_ATTR_RGB, "color is rgb");

    char real[PATH_MAX];
    CHECK(realpath(collision_dir, real) != NULL, "realpath %s", collision_dir);
    sn_blueprint_info c = {.struct_size = sizeof c};
    CHECK(sn_blueprints_find(lib, "sensor.other.collision", &c, &err) == SN_OK, "%s", err.msg);
    CHECK(c.kind == SN_ACTOR_SENSOR && c.plugin && strncmp(c.plugin, real, strlen(real)) == 0,
          "collision comes from %s, plugin %s", real, c.plugin ? c.plugin : "NULL");
    CHECK(sn_blueprints_find(lib, "vehicle.ufo", &c, &err) == SN_E_NOT_FOUND && strstr(err.msg, "vehicle.ufo"),
          "unknown id: %s", err.msg);
    CHECK(sn_blueprints_get(lib, n, &c, &err) == SN_E_RANGE, "index beyond the end");
    sn_blueprint_info zero = {0};
    CHECK(sn_blueprints_get(lib, 0, &zero, &err) == SN_E_INVALID, "struct_size 0 is refused");

    /* an older caller's smaller struct: only its members are written */
    struct {
        sn_blueprint_info head;
        uint64_t guard;
    } small;
    memset(&small, 0xAB, sizeof small);
    small.head.struct_size = (uint32_t)offsetof(sn_blueprint_info, kind);
    CHECK(sn_blueprints_get(lib, 0, &small.head, &err) == SN_OK && small.head.id, "%s", err.msg);
    CHECK(small.guard == 0xABABABABABABABABull && (uint32_t)small.head.kind == 0xABABABABu,
          "nothing written beyond struct_size");

    size_t np = sn_blueprints_plugin_count(lib);
    bool found = false;
    for (size_t i = 0; i < np; i++) {
        sn_plugin_info p = {.struct_size = sizeof p};
        CHECK(sn_blueprints_plugin(lib, i, &p, &err) == SN_OK, "%s", err.msg);
        CHECK(p.blueprints && p.blueprints[p.n_blueprints] == NULL, "blueprints NULL-terminated");
        for (uint32_t k = 0; k < p.n_blueprints; k++)
            if (strcmp(p.blueprints[k], "sensor.other.collision") == 0 && p.loaded && !p.reason &&
                strncmp(p.path, real, strlen(real)) == 0 && p.abi_major == SN_ABI_MAJOR && p.name[0])
                found = true;
    }
    CHECK(found, "a loaded plugin file of %s provides sensor.other.collision (%zu files)", real, np);

    /* the same list from a live engine made with the same options */
    sn_engine *e = sn_engine_create(&(sn_engine_options){.plugin_dir = collision_dir}, &err);
    CHECK(e != NULL, "%s", err.msg);
    sn_blueprints *of_engine = e ? sn_engine_blueprints(e, &err) : NULL;
    CHECK(of_engine != NULL, "%s", err.msg);
    CHECK(sn_blueprints_count(of_engine) == n && sn_blueprints_plugin_count(of_engine) == np,
          "engine's list: %zu blueprints, %zu files", sn_blueprints_count(of_engine),
          sn_blueprints_plugin_count(of_engine));
    CHECK(sn_blueprints_find(of_engine, "sensor.other.collision", &c, &err) == SN_OK, "%s", err.msg);
    sn_engine_destroy(e);
    sn_blueprints_close(of_engine); /* after its engine: allowed */
    sn_blueprints_close(lib);
    sn_blueprints_close(NULL);
}

static void log_callback(void)
{
    sn_error err = {0};
    /* two engines, each with its own callback record: no process-global state */
    log_rec a = {0}, b = {0};
    capture_begin();
    sn_engine *ea = sn_engine_create(&(sn_engine_options){.plugin_dir = broken_dir, .log = on_log, .log_user = &a}, &err);
    sn_engine *eb = sn_engine_create(&(sn_engine_options){.plugin_dir = broken_dir, .log = on_log, .log_user = &b}, &err);
    const char *out = capture_end();
    CHECK(ea && eb, "create: %s", err.msg);
    CHECK(out[0] == 0, "nothing on stderr with a log callback, got: %s", out);
    CHECK(a.n_warn >= 5 && a.n_warn == a.n, "engine a: %d warnings of %d lines", a.n_warn, a.n);
    CHECK(b.n == a.n, "each engine reports to its own callback: %d and %d", a.n, b.n);
    CHECK_CONTAINS(a.all, "2 plugin ");
    CHECK_CONTAINS(a.all, "broken_abi_major.so the plugin descriptor was built for sensim ABI 99.");
    CHECK_CONTAINS(a.all, "; skipped\n");
    CHECK(!strstr(a.all, "sensim:"), "lines come without the 'sensim:' prefix: %s", a.all);

    /* a sensor's host->log goes there too: a collision sensor attached to nothing warns */
    char scene[PATH_MAX];
    snprintf(scene, sizeof scene, "%s/api_lonely.yaml", tmp);
    FILE *f = fopen(scene, "w");
    if (f) {
        fputs("settings: {frames: 3}\nsensors:\n  - {name: lonely, blueprint: sensor.other.collision}\n", f);
        fclose(f);
    }
    sn_engine_destroy(ea);
    sn_engine_destroy(eb);
    log_rec c = {0};
    sn_engine *e = sn_engine_create(&(sn_engine_options){.plugin_dir = collision_dir, .log = on_log, .log_user = &c}, &err);
    CHECK(e != NULL, "%s", err.msg);
    capture_begin();
    sn_status st = e ? sn_engine_load_scene(e, scene, &err) : SN_E_STATE;
    if (!st)
        st = sn_engine_run(e, 0, &err);
    out = capture_end();
    CHECK(st == SN_OK, "lonely scene: %s", err.msg);
    CHECK(out[0] == 0, "nothing on stderr, got: %s", out);
    CHECK_CONTAINS(c.all, "2 sensor 'lonely': a collision sensor without attach_to never reports anything\n");
    sn_engine_destroy(e);

    /* quiet_plugins: refusals reported nowhere */
    log_rec q = {0};
    capture_begin();
    sn_blueprints *lib = sn_blueprints_open(
        &(sn_engine_options){.plugin_dir = broken_dir, .quiet_plugins = true, .log = on_log, .log_user = &q}, &err);
    out = capture_end();
    CHECK(lib && q.n == 0 && out[0] == 0, "quiet: %d lines, stderr '%s'", q.n, out);
    sn_blueprints_close(lib);

    /* without a callback: stderr as before */
    capture_begin();
    lib = sn_blueprints_open(&(sn_engine_options){.plugin_dir = broken_dir}, &err);
    out = capture_end();
    CHECK(lib != NULL, "%s", err.msg);
    CHECK_CONTAINS(out, "sensim: warning: plugin ");
    CHECK_CONTAINS(out, "broken_abi_major.so the plugin descriptor was built for sensim ABI 99.");
    sn_blueprints_close(lib);
}

static int n_heard;
static void on_message(const sn_message *m, void *user)
{
    (void)user;
    n_heard += strcmp(m->sensor, "crash") == 0;
}

static void run_stats(void)
{
    sn_error err = {0};
    char scene[PATH_MAX], out[PATH_MAX];
    snprintf(scene, sizeof scene, "%s/crash.yaml", scenes);
    snprintf(out, sizeof out, "%s/api_crash", tmp);
    sn_engine *e = sn_engine_create(&(sn_engine_options){.plugin_dir = collision_dir, .quiet_plugins = true}, &err);
    CHECK(e != NULL, "%s", err.msg);
    if (!e)
        return;
    sn_run_stats s = {.struct_size = sizeof s};
    CHECK(sn_engine_stats(e, &s, &err) == SN_OK && s.frames == 0 && s.messages == 0 && s.sensors == 0 &&
              s.live_actors == 0,
          "before a scene: all zero");
    CHECK(sn_engine_load_scene(e, scene, &err) == SN_OK, "%s", err.msg);
    CHECK(sn_engine_open_outputs(e, out, &err) == SN_OK, "%s", err.msg);
    CHECK(sn_engine_listen(e, "crash", on_message, NULL, &err) == SN_OK, "%s", err.msg);
    /* the sedan reaches the wall at frame 36: nothing before, one collision message after */
    for (int i = 0; i < 30; i++)
        CHECK(sn_engine_step(e, &err) == SN_OK, "%s", err.msg);
    CHECK(sn_engine_stats(e, &s, &err) == SN_OK, "%s", err.msg);
    CHECK(s.frames == 30 && s.messages == 0, "after 30 frames: %llu frames, %llu messages",
          (unsigned long long)s.frames, (unsigned long long)s.messages);
    CHECK_NEAR(s.sim_time, 1.5, 1e-12, "simulated time after 30 frames");
    CHECK(s.sensors == 1 && s.live_sensors == 1, "sensors %u, live %u", s.sensors, s.live_sensors);
    CHECK(s.live_actors == 4, "ground, hero, wall and the sensor: %u live actors", s.live_actors);
    CHECK(sn_engine_run(e, 10, &err) == SN_OK, "%s", err.msg);
    CHECK(sn_engine_stats(e, &s, &err) == SN_OK, "%s", err.msg);
    CHECK(s.frames == 40 && s.messages == 1 && n_heard == 1, "after 40 frames: %llu frames, %llu messages, %d heard",
          (unsigned long long)s.frames, (unsigned long long)s.messages, n_heard);
    CHECK_NEAR(s.sim_time, 2.0, 1e-12, "simulated time after 40 frames");
    /* the timers: each part took time, and together no more than the wall clock around the run */
    struct timespec w0, w1;
    clock_gettime(CLOCK_MONOTONIC, &w0);
    sn_run_stats before = s;
    CHECK(sn_engine_run(e, 10, &err) == SN_OK && sn_engine_stats(e, &s, &err) == SN_OK, "%s", err.msg);
    clock_gettime(CLOCK_MONOTONIC, &w1);
    double wall = (double)(w1.tv_sec - w0.tv_sec) + 1e-9 * (double)(w1.tv_nsec - w0.tv_nsec);
    double spent = (s.time_world - before.time_world) + (s.time_sensors - before.time_sensors) +
                   (s.time_output - before.time_output);
    CHECK(s.time_world > before.time_world && s.time_sensors > before.time_sensors && s.time_output > before.time_output,
          "every timer advanced over 10 frames: world %g, sensors %g, output %g s", s.time_world, s.time_sensors,
          s.time_output);
    CHECK(spent > 0 && spent <= wall, "the parts (%g s) fit in the wall time of the run (%g s)", spent, wall);
    /* a caller built before the timers existed passes a smaller struct: they are left alone */
    sn_run_stats old = {.struct_size = (uint32_t)offsetof(sn_run_stats, time_world), .time_world = -1};
    CHECK(sn_engine_stats(e, &old, &err) == SN_OK && old.time_world == -1 && old.frames == 50,
          "an older struct gets only what it knows");
    sn_run_stats bad = {0};
    CHECK(sn_engine_stats(e, &bad, &err) == SN_E_INVALID, "struct_size 0 is refused");
    CHECK(sn_engine_stats(NULL, &s, &err) == SN_E_INVALID && strstr(err.msg, "stats:"), "NULL engine: %s", err.msg);
    sn_engine_destroy(e);

    /* the stream holds what the stats counted: one JSON line per message */
    char stream[PATH_MAX + 32], json[PATH_MAX + 32];
    snprintf(stream, sizeof stream, "%s/crash.msgpack", out);
    snprintf(json, sizeof json, "%s/crash.jsonl", out);
    FILE *f = fopen(json, "w+");
    CHECK(f && sn_stream_dump(stream, f, false, &err) == SN_OK, "dump: %s", err.msg);
    if (f) {
        rewind(f);
        char line[8192];
        int lines = 0;
        while (fgets(line, sizeof line, f))
            lines += strstr(line, "\"type\":\"sensor.other.collision\"") != NULL;
        fclose(f);
        CHECK(lines == 1, "%d messages in the stream", lines);
    }
    CHECK(sn_stream_dump("/nonexistent/x.msgpack", stdout, false, &err) == SN_E_IO && err.msg[0], "missing file: %s",
          err.msg);
    FILE *devnull = fopen("/dev/null", "w");
    CHECK(devnull && sn_stream_dump(stream, devnull, true, NULL) == SN_OK, "err may be NULL");
    if (devnull)
        fclose(devnull);
    /* not a camera stream: refused with a reason, nothing written */
    size_t written = 7;
    CHECK(sn_stream_save_images(stream, out, SN_COLOR_RAW, &written, &err) == SN_E_INVALID && written == 0,
          "save_images of a collision stream: %s", err.msg);
}

static void converters(void)
{
    sn_color_converter c = SN_COLOR_RAW;
    CHECK(sn_color_converter_parse("logarithmic_depth", &c) && c == SN_COLOR_LOGARITHMIC_DEPTH, "log depth");
    CHECK(sn_color_converter_parse("cityscapes", &c) && c == SN_COLOR_CITYSCAPES, "cityscapes");
    CHECK(sn_color_converter_parse("depth", &c) && c == SN_COLOR_DEPTH, "depth");
    CHECK(sn_color_converter_parse("raw", &c) && c == SN_COLOR_RAW, "raw");
    CHECK(!sn_color_converter_parse("sepia", &c) && !sn_color_converter_parse(NULL, &c), "unknown names");
    void (*install)(void) = sn_install_crash_reporter; /* exported; not called: it is process-wide */
    CHECK(install != NULL, "crash reporter exported");
}

/* Issue 33 item 15: a listener that destroys its own engine (Python's world.close() or
** load_world() inside a callback) freed it in the middle of sn_engine_step (ASan: a heap-use-
** after-free in sn_stream_emit). The engine now goes when the step ends: no listener after the
** closing one is called, the step returns SN_E_STATE saying so, nothing is used after free. */
static sn_engine *closing_engine;
static int n_after_close;
static void close_in_listener(const sn_message *m, void *user)
{
    (void)m, (void)user;
    sn_engine_destroy(closing_engine);
    sn_engine_destroy(closing_engine); /* twice: still deferred, still one free */
}
static void after_close(const sn_message *m, void *user)
{
    (void)m, (void)user;
    n_after_close++;
}

static void destroy_in_listener(void)
{
    sn_error err = {0};
    char scene[PATH_MAX];
    snprintf(scene, sizeof scene, "%s/crash.yaml", scenes);
    for (int split = 0; split < 2; split++) { /* sn_engine_step, and the test world's begin + end */
        sn_engine *e = sn_engine_create(&(sn_engine_options){.plugin_dir = collision_dir, .quiet_plugins = true}, &err);
        CHECK(e && sn_engine_load_scene(e, scene, &err) == SN_OK, "%s", err.msg);
        if (!e)
            return;
        closing_engine = e;
        n_after_close = 0;
        CHECK(sn_engine_listen(e, "crash", close_in_listener, NULL, &err) == SN_OK, "%s", err.msg);
        CHECK(sn_engine_listen(e, "crash", after_close, NULL, &err) == SN_OK, "%s", err.msg);
        sn_status st = SN_OK;
        int frames = 0;
        for (; frames < 100 && st == SN_OK; frames++) {
            if (split) {
                st = sn_testworld_begin_frame(e, &err);
                if (st == SN_OK)
                    st = sn_testworld_end_frame(e, &err);
            } else {
                st = sn_engine_step(e, &err);
            }
        }
        /* the sedan reaches the wall at frame 36, whose collision message closes the engine */
        CHECK(st == SN_E_STATE && frames == 36 && strstr(err.msg, "destroyed during the step"),
              "split %d: status %d after %d frames: %s", split, st, frames, err.msg);
        CHECK(n_after_close == 0, "split %d: %d listeners called after the engine was destroyed", split, n_after_close);
        if (st == SN_OK)
            sn_engine_destroy(e);
    }
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: test_api TMP COLLISION_DIR BROKEN_DIR SCENES\n");
        return 2;
    }
    tmp = argv[1];
    collision_dir = argv[2];
    broken_dir = argv[3];
    scenes = argv[4];
    blueprint_library();
    log_callback();
    run_stats();
    destroy_in_listener();
    converters();
    return CHECK_DONE();
}
