/* No work for nobody (issue 25 item 2) and streams through the writer thread (item 4).
**
** One scene — a car sending CAMs, a free-standing custom V2X unit sending text at 0.2 s and
** 1.0 s, two receivers (one ticking every 0.5 s, so receptions are carried to its tick) and a
** depth camera whose messages are large enough to be written from their own buffer — run
** four ways:
**   A  every message listened to from the start: the reference;
**   B  nothing consumes anything for 8 frames (no serialisation: time_serialize stays 0, the
**      message count still grows), then a listener of every sensor: from frame 9 on the same
**      bytes as A — the receiver's report at its tick of frame 11 holds the text sent at
**      frame 4, when nobody listened;
**   C  a listener of one receiver added at frame 8 and removed at frame 30: its messages are
**      A's, and after the removal nothing is serialised any more;
**   D  streams in a folder: each file is A's messages of that sensor back to back.
** argv[1]: temp folder, argv[2]: the plugins' build folder. */
#include "../check.h"
#include "../testutil.h"
#include "../testrun.h"

#define FRAMES 40
#define QUIET_AT 8

static const char *dir, *plugins;

typedef struct heard {
    char sensor[32];
    uint64_t frame;
    char *bytes;
    size_t size;
} heard;

typedef struct log_ {
    heard *m;
    size_t n, cap;
} log_;

static void on_msg(const sn_message *m, void *user)
{
    log_ *l = user;
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 256;
        l->m = realloc(l->m, l->cap * sizeof *l->m);
    }
    heard *h = &l->m[l->n++];
    snprintf(h->sensor, sizeof h->sensor, "%s", m->sensor);
    h->frame = m->frame;
    h->size = m->size;
    h->bytes = malloc(m->size);
    memcpy(h->bytes, m->data, m->size);
}

static void log_free(log_ *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->m[i].bytes);
    free(l->m);
    memset(l, 0, sizeof *l);
}

static const char scene[] =
    "settings: {fixed_delta_seconds: 0.05, frames: 40, seed: 5}\n"
    "actors:\n"
    "  - {name: ground, blueprint: static.ground}\n"
    "  - {name: car, blueprint: vehicle.sedan, transform: {location: [0, 0, 0]}, velocity: [12, 0, 0],\n"
    "     control: {throttle: 0.3}}\n"
    "sensors:\n"
    "  - {name: cam, blueprint: sensor.other.v2x, attach_to: car, transform: {location: [0, 0, 1.5]}}\n"
    "  - {name: tx, blueprint: sensor.other.v2x_custom, transform: {location: [0, 10, 2]},\n"
    "     calls: [{at: 0.2, method: send, args: [one]}, {at: 1.0, method: send, args: [two]}]}\n"
    "  - {name: rx, blueprint: sensor.other.v2x_custom, transform: {location: [40, 10, 2]},\n"
    "     attributes: {sensor_tick: 0.5}}\n"
    "  - {name: rsu, blueprint: sensor.other.v2x, transform: {location: [60, -10, 3]}}\n"
    "  - {name: depth, blueprint: sensor.camera.depth, transform: {location: [-5, 0, 2]},\n"
    "     attributes: {image_size_x: 320, image_size_y: 240, depth_float: true}}\n";

static sn_engine *load(void) { return tu_load(plugins, tu_write(dir, "consumers.yaml", scene)); }

static sn_run_stats stats(sn_engine *e)
{
    sn_run_stats s = {.struct_size = sizeof s};
    sn_error err = {0};
    CHECK(sn_engine_stats(e, &s, &err) == SN_OK, "%s", err.msg);
    return s;
}

/* The messages of `l` from frame `from` on (of `sensor` only, when given) equal `got`'s, in order. */
static void same(const log_ *ref, const log_ *got, uint64_t from, const char *sensor, const char *what)
{
    size_t k = 0, n = 0;
    bool ok = true;
    for (size_t i = 0; i < ref->n; i++) {
        const heard *r = &ref->m[i];
        if (r->frame < from || (sensor && strcmp(r->sensor, sensor) != 0))
            continue;
        n++;
        if (k >= got->n || strcmp(got->m[k].sensor, r->sensor) != 0 || got->m[k].frame != r->frame ||
            got->m[k].size != r->size || memcmp(got->m[k].bytes, r->bytes, r->size) != 0) {
            ok = false;
            break;
        }
        k++;
    }
    CHECK(ok && k == got->n && n > 0, "%s: %zu of the reference's %zu messages from frame %llu equal, %zu heard", what,
          k, n, (unsigned long long)from, got->n);
}

/* Whether rx's report of `frame` in l holds a message with text `text`. */
static bool rx_heard(const log_ *l, uint64_t frame, const char *text)
{
    for (size_t i = 0; i < l->n; i++) {
        if (strcmp(l->m[i].sensor, "rx") != 0 || l->m[i].frame != frame)
            continue;
        msgpack_unpacked u;
        msgpack_unpacked_init(&u);
        size_t off = 0;
        bool found = false;
        if (msgpack_unpack_next(&u, l->m[i].bytes, l->m[i].size, &off) == MSGPACK_UNPACK_SUCCESS) {
            const msgpack_object *ms = tu_get(&u.data, "messages");
            for (uint32_t k = 0; ms && ms->type == MSGPACK_OBJECT_ARRAY && k < ms->via.array.size; k++) {
                const msgpack_object *d = tu_get(&ms->via.array.ptr[k], "data");
                found |= d && d->type == MSGPACK_OBJECT_STR && d->via.str.size == strlen(text) &&
                         memcmp(d->via.str.ptr, text, strlen(text)) == 0;
            }
        }
        msgpack_unpacked_destroy(&u);
        if (found)
            return true;
    }
    return false;
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    dir = argv[1], plugins = argv[2];
    sn_error err = {0};

    /* A: the reference, every message heard */
    log_ a = {0};
    sn_engine *e = load();
    CHECK(sn_engine_listen_all(e, on_msg, &a, &err) == SN_OK, "%s", err.msg);
    tu_step_each(e, QUIET_AT);
    uint64_t a_quiet = a.n;
    tu_step_each(e, FRAMES - QUIET_AT);
    sn_run_stats sa = stats(e);
    CHECK(sa.messages == a.n && sa.time_serialize > 0, "A: %llu messages counted, %zu heard; serialising took %g s",
          (unsigned long long)sa.messages, a.n, sa.time_serialize);
    CHECK(rx_heard(&a, 11, "one") && rx_heard(&a, 21, "two"), "A: rx reports 'one' at frame 11 and 'two' at frame 21");
    size_t cams = 0;
    for (size_t i = 0; i < a.n; i++)
        cams += strcmp(a.m[i].sensor, "rsu") == 0 && a.m[i].frame > QUIET_AT;
    CHECK(cams > 0, "A: the road-side unit heard the car's CAMs after frame %d", QUIET_AT);
    sn_engine_destroy(e);

    /* B: nobody for 8 frames, then everybody */
    log_ b = {0};
    e = load();
    tu_step_each(e, QUIET_AT);
    sn_run_stats sb = stats(e);
    CHECK(sb.time_serialize == 0.0 && sb.time_write == 0.0, "B: nothing consumed, nothing serialised or written "
          "(%g s, %g s)", sb.time_serialize, sb.time_write);
    CHECK(sb.messages == a_quiet && a_quiet > 0, "B: %llu messages produced in %d frames, as A's %llu",
          (unsigned long long)sb.messages, QUIET_AT, (unsigned long long)a_quiet);
    CHECK(sn_engine_listen_all(e, on_msg, &b, &err) == SN_OK, "%s", err.msg);
    tu_step_each(e, FRAMES - QUIET_AT);
    sb = stats(e);
    CHECK(sb.time_serialize > 0 && sb.messages == sa.messages, "B: serialising from the listener on (%g s), %llu messages",
          sb.time_serialize, (unsigned long long)sb.messages);
    same(&a, &b, QUIET_AT + 1, NULL, "B: every sensor after the listener came");
    CHECK(rx_heard(&b, 11, "one"), "B: rx's report at frame 11 holds 'one', sent at frame 4 with nobody listening");
    sn_engine_destroy(e);

    /* C: one receiver's listener for frames 9-30 */
    log_ c = {0};
    e = load();
    tu_step_each(e, QUIET_AT);
    CHECK(sn_engine_listen(e, "rx", on_msg, &c, &err) == SN_OK, "%s", err.msg);
    tu_step_each(e, 30 - QUIET_AT);
    CHECK(sn_engine_unlisten(e, "rx", on_msg, &c, &err) == SN_OK, "%s", err.msg);
    double t_unlisten = stats(e).time_serialize;
    tu_step_each(e, FRAMES - 30);
    sn_run_stats sc = stats(e);
    CHECK(t_unlisten > 0 && sc.time_serialize == t_unlisten, "C: serialising stopped with the listener (%g s, then %g s)",
          t_unlisten, sc.time_serialize);
    log_ a_rx = {0}; /* A's rx messages of frames 9-30 */
    for (size_t i = 0; i < a.n; i++)
        if (strcmp(a.m[i].sensor, "rx") == 0 && a.m[i].frame > QUIET_AT && a.m[i].frame <= 30)
            on_msg(&(sn_message){.sensor = "rx", .frame = a.m[i].frame, .data = a.m[i].bytes, .size = a.m[i].size}, &a_rx);
    same(&a_rx, &c, 0, "rx", "C: rx while listened to");
    log_free(&a_rx);
    sn_engine_destroy(e);

    /* D: streams in a folder, through the writer thread */
    char out[1024], path[1200];
    snprintf(out, sizeof out, "%s/consumers_out", dir);
    char cmd[1100];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", out);
    CHECK(system(cmd) == 0, "%s", cmd);
    e = load();
    CHECK(sn_engine_open_outputs(e, out, &err) == SN_OK, "%s", err.msg);
    CHECK(sn_engine_run(e, FRAMES, &err) == SN_OK, "%s", err.msg);
    sn_run_stats sd = stats(e);
    CHECK(sd.time_write > 0, "D: the writer thread wrote (%g s)", sd.time_write);
    sn_engine_destroy(e);
    static const char *const names[] = {"cam", "tx", "rx", "rsu", "depth"};
    for (size_t s = 0; s < sizeof names / sizeof names[0]; s++) {
        snprintf(path, sizeof path, "%s/%s.msgpack", out, names[s]);
        size_t n = 0, at = 0, want = 0;
        char *file = tu_read_file(path, &n);
        bool ok = file != NULL;
        for (size_t i = 0; ok && i < a.n; i++) {
            if (strcmp(a.m[i].sensor, names[s]) != 0)
                continue;
            want += a.m[i].size;
            ok = at + a.m[i].size <= n && memcmp(file + at, a.m[i].bytes, a.m[i].size) == 0;
            at += a.m[i].size;
        }
        /* tx only sends: it hears nothing, its stream is empty */
        CHECK(ok && at == n && (want > 0) == (s != 1), "D: %s is the listener's %zu bytes (%zu in the file)", path,
              want, n);
        free(file);
    }
    log_free(&a), log_free(&b), log_free(&c);
    return CHECK_DONE();
}
