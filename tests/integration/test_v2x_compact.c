/* report_layout compact against CARLA's layout on the same scene and seed: every reception of
** every sensor (CAM and custom, carried over a slower sensor_tick, LOS, NLOSb and NLOSv) turned
** into one line of text from each layout, the two texts equal; the compact bytes the same at 1
** and 2 threads; the CARLA-layout bytes the same with and without compact sensors beside them
** (the medium is shared, the layout is per sensor).
** argv[1]: temp folder, argv[2]: the folder of sensim_v2x.so. */
#include "../check.h"
#include "../testutil.h"

#include <stdarg.h>

#define CARS 24
#define CAM_RECORD 60

static const char *dir, *plugins;

typedef struct text {
    char *s;
    size_t n, cap;
    sn_engine *e;
} text;

static void add(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(text *t, const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (t->n + (size_t)k + 1 > t->cap) {
        t->cap = (t->n + (size_t)k + 1) * 2;
        t->s = realloc(t->s, t->cap);
    }
    memcpy(t->s + t->n, line, (size_t)k + 1);
    t->n += (size_t)k;
}

static const char *los_name(unsigned los) { return los == 0 ? "LOS" : los == 1 ? "NLOSb" : los == 2 ? "NLOSv" : "?"; }

static int64_t i32_at(const unsigned char *p)
{
    return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
}
static uint32_t u32_at(const unsigned char *p) { return (uint32_t)i32_at(p); }

static const unsigned char *bin(const msgpack_object *m, const char *key, size_t want)
{
    const msgpack_object *o = tu_get(m, key);
    if (!o || o->type != MSGPACK_OBJECT_BIN || o->via.bin.size != want)
        return NULL;
    return (const unsigned char *)o->via.bin.ptr;
}

/* One line per reception from the compact layout. */
static void from_compact(text *t, const sn_message *msg, const msgpack_object *m)
{
    uint32_t n = (uint32_t)tu_num(tu_get(m, "receptions"));
    bool custom = tu_get(m, "data") != NULL;
    const unsigned char *pw = bin(m, "power", 8 * (size_t)n), *los = bin(m, "los", n), *snd = bin(m, "sender", 4 * (size_t)n);
    const unsigned char *body = custom ? bin(m, "station_id", 4 * (size_t)n) : bin(m, "cam", CAM_RECORD * (size_t)n);
    const msgpack_object *data = tu_get(m, "data");
    if (!pw || !los || !snd || !body || (custom && (data->type != MSGPACK_OBJECT_ARRAY || data->via.array.size != n))) {
        add(t, "%s: malformed compact report\n", msg->sensor);
        return;
    }
    for (uint32_t i = 0; i < n; i++) {
        double p;
        uint64_t u = (uint64_t)u32_at(pw + 8 * i) | (uint64_t)u32_at(pw + 8 * i + 4) << 32;
        memcpy(&p, &u, 8);
        add(t, "%llu %s <- %u %a %s", (unsigned long long)msg->frame, msg->sensor, u32_at(snd + 4 * i), p, los_name(los[i]));
        if (custom) {
            const msgpack_object *s = &data->via.array.ptr[i];
            add(t, " st %u text %.*s\n", u32_at(body + 4 * i), (int)s->via.str.size, s->via.str.ptr);
            continue;
        }
        const unsigned char *c = body + CAM_RECORD * (size_t)i, *b = c + 52;
        add(t, " st %u gdt %u type %u pos %lld %lld %lld", u32_at(c), u32_at(c + 4), b[1], (long long)i32_at(c + 8),
            (long long)i32_at(c + 12), (long long)i32_at(c + 16));
        if (b[2] == 1)
            add(t, " veh %lld %lld %u %lld %lld %lld %lld %lld %lld", (long long)i32_at(c + 20), (long long)i32_at(c + 24),
                b[3], (long long)i32_at(c + 28), (long long)i32_at(c + 32), (long long)i32_at(c + 36),
                (long long)i32_at(c + 40), (long long)i32_at(c + 44), (long long)i32_at(c + 48));
        else
            add(t, b[2] == 2 ? " rsu" : " none");
        add(t, b[4] ? " lf %u %u\n" : " nolf\n", b[5], b[6]);
    }
}

/* One line per reception from CARLA's layout, sender names as ids. */
static void from_carla(text *t, const sn_message *msg, const msgpack_object *m)
{
    const msgpack_object *list = tu_get(m, "messages");
    for (uint32_t i = 0; list && i < list->via.array.size; i++) {
        const msgpack_object *o = &list->via.array.ptr[i], *c = tu_get(o, "cam"), *s = tu_get(o, "sender");
        char name[64], los[8];
        snprintf(name, sizeof name, "%.*s", (int)s->via.str.size, s->via.str.ptr);
        const msgpack_object *l = tu_get(o, "los");
        snprintf(los, sizeof los, "%.*s", (int)l->via.str.size, l->via.str.ptr);
        add(t, "%llu %s <- %u %a %s", (unsigned long long)msg->frame, msg->sensor, sn_engine_find_actor(t->e, name),
            tu_num(tu_get(o, "power")), los);
        if (!c) {
            const msgpack_object *d = tu_get(o, "data");
            add(t, " st %.0f text %.*s\n", tu_num(tu_get(tu_get(o, "header"), "station_id")), (int)d->via.str.size,
                d->via.str.ptr);
            continue;
        }
        const msgpack_object *bc = tu_get(c, "basic_container"), *rp = tu_get(bc, "reference_position");
        const msgpack_object *hf = tu_get(c, "high_frequency_container"), *lf = tu_get(c, "low_frequency_container");
        add(t, " st %.0f gdt %.0f type %.0f pos %.0f %.0f %.0f", tu_num(tu_get(tu_get(c, "header"), "station_id")),
            tu_num(tu_get(c, "generation_delta_time")), tu_num(tu_get(bc, "station_type")), tu_num(tu_get(rp, "latitude")),
            tu_num(tu_get(rp, "longitude")), tu_num(tu_get(rp, "altitude")));
        if (hf->type == MSGPACK_OBJECT_MAP && tu_get(hf, "speed"))
            add(t, " veh %.0f %.0f %.0f %.0f %.0f %.0f %.0f %.0f %.0f", tu_num(tu_get(hf, "heading")),
                tu_num(tu_get(hf, "speed")), tu_num(tu_get(hf, "drive_direction")), tu_num(tu_get(hf, "vehicle_length")),
                tu_num(tu_get(hf, "vehicle_width")), tu_num(tu_get(hf, "longitudinal_acceleration")),
                tu_num(tu_get(hf, "lateral_acceleration")), tu_num(tu_get(hf, "vertical_acceleration")),
                tu_num(tu_get(hf, "yaw_rate")));
        else
            add(t, hf->type == MSGPACK_OBJECT_MAP ? " rsu" : " none");
        if (lf->type == MSGPACK_OBJECT_MAP)
            add(t, " lf %.0f %.0f\n", tu_num(tu_get(lf, "vehicle_role")), tu_num(tu_get(lf, "exterior_lights")));
        else
            add(t, " nolf\n");
    }
}

typedef struct run {
    text lines;      /* receptions as text */
    uint64_t digest; /* FNV-1a of every message's bytes, in order */
    uint64_t carla_digest; /* ... of the messages of radio_b and every third cam only */
} run;

static void on_msg(const sn_message *msg, void *user)
{
    run *r = user;
    for (size_t i = 0; i < msg->size; i++)
        r->digest = (r->digest ^ ((const unsigned char *)msg->data)[i]) * 1099511628211ull;
    msgpack_unpacked u;
    msgpack_unpacked_init(&u);
    if (msgpack_unpack_next(&u, msg->data, msg->size, NULL) == MSGPACK_UNPACK_SUCCESS) {
        if (tu_get(&u.data, "receptions")) {
            from_compact(&r->lines, msg, &u.data);
        } else {
            from_carla(&r->lines, msg, &u.data);
        }
        int k = -1;
        if (strcmp(msg->sensor, "radio_b") == 0 || (sscanf(msg->sensor, "cam%d", &k) == 1 && k % 3 == 0))
            for (size_t i = 0; i < msg->size; i++) /* the sensors in CARLA's layout in the mixed run */
                r->carla_digest = (r->carla_digest ^ ((const unsigned char *)msg->data)[i]) * 1099511628211ull;
    }
    msgpack_unpacked_destroy(&u);
}

/* Cars driving past a building and behind a truck, an RSU, custom radios sending; every sensor
** in `layout` except, with `mixed`, every third one in CARLA's. */
static void scene_run(const char *layout, bool mixed, int threads, run *r)
{
    char s[16384];
    size_t n = (size_t)snprintf(s, sizeof s,
        "settings: {fixed_delta_seconds: 0.05, seed: 9, frames: 14}\nactors:\n  - {name: ground, blueprint: static.ground}\n"
        "  - {name: wall, blueprint: static.building, transform: {location: [52, 10, 5]}, attributes: {extent: \"3,3,5\"}}\n"
        "  - {name: truck, blueprint: vehicle.truck, transform: {location: [30, -12, 0]}}\n");
    for (int i = 0; i < CARS; i++)
        n += (size_t)snprintf(s + n, sizeof s - n,
                              "  - {name: car%d, blueprint: vehicle.sedan, transform: {location: [%d, %d, 0]}}\n", i,
                              (i % 8) * 15, (i / 8) * 20 - 20);
    n += (size_t)snprintf(s + n, sizeof s - n, "sensors:\n"
        "  - {name: rsu, blueprint: sensor.other.v2x, transform: {location: [60, 0, 6]}, attributes: {report_layout: %s}}\n"
        "  - {name: radio_a, blueprint: sensor.other.v2x_custom, attach_to: car0, transform: {location: [0, 0, 1.6]},\n"
        "     attributes: {report_layout: %s}, calls: [{at: 0.1, method: send, args: [\"hello\"]}, {at: 0.3, method: send, args: [\"again\"]}]}\n"
        "  - {name: radio_b, blueprint: sensor.other.v2x_custom, attach_to: car20, transform: {location: [0, 0, 1.6]},\n"
        "     attributes: {report_layout: %s, sensor_tick: 0.2}, calls: [{at: 0.2, method: send, args: [\"from b\"]}]}\n",
        layout, layout, mixed ? "carla" : layout);
    for (int i = 0; i < CARS; i++)
        n += (size_t)snprintf(s + n, sizeof s - n,
                              "  - {name: cam%d, blueprint: sensor.other.v2x, attach_to: car%d, transform: {location: [0, 0, 1.6]},"
                              " attributes: {report_layout: %s, sensor_tick: %s, noise_lat_stddev: 0.0001}}\n",
                              i, i, mixed && i % 3 == 0 ? "carla" : layout, i % 5 == 0 ? "0.15" : "0");
    sn_error err = {0};
    sn_engine_options o = {.plugin_dir = plugins, .quiet_plugins = true, .threads = threads};
    sn_engine *e = sn_engine_create(&o, &err);
    memset(r, 0, sizeof *r);
    r->digest = r->carla_digest = 1469598103934665603ull;
    r->lines.e = e;
    CHECK(e && sn_engine_load_scene(e, tu_write(dir, "v2x_compact.yaml", s), &err) == SN_OK, "%s", err.msg);
    for (int i = 0; i < CARS; i++) { /* moving: position-triggered CAMs, accelerations, yaw */
        char name[16];
        snprintf(name, sizeof name, "car%d", i);
        sn_vehicle_control c = {.throttle = 0.3 + 0.02 * i, .steer = i % 2 ? 0.1 : 0};
        sn_engine_apply_control(e, sn_engine_find_actor(e, name), &c, &err);
    }
    CHECK(sn_engine_listen_all(e, on_msg, r, &err) == SN_OK && sn_engine_run(e, 0, &err) == SN_OK, "%s", err.msg);
    sn_engine_destroy(e);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: test_v2x_compact TMPDIR PLUGINDIR\n");
        return 2;
    }
    dir = argv[1], plugins = argv[2];
    run carla, compact, compact2, mixed;
    scene_run("carla", false, 1, &carla);
    scene_run("compact", false, 1, &compact);
    scene_run("compact", false, 2, &compact2);
    scene_run("compact", true, 2, &mixed);
    CHECK(carla.lines.n > 1000 && strstr(carla.lines.s, "NLOSb") && strstr(carla.lines.s, "NLOSv") &&
          strstr(carla.lines.s, " LOS") && strstr(carla.lines.s, "text again") && strstr(carla.lines.s, " rsu"),
          "the scene exercises LOS, NLOSb, NLOSv, texts and the RSU (%zu bytes of lines)", carla.lines.n);
    CHECK(carla.lines.n == compact.lines.n && memcmp(carla.lines.s, compact.lines.s, carla.lines.n) == 0,
          "compact and CARLA's layout carry the same receptions");
    if (carla.lines.n != compact.lines.n || memcmp(carla.lines.s, compact.lines.s, carla.lines.n) != 0) {
        size_t i = 0;
        while (i < carla.lines.n && i < compact.lines.n && carla.lines.s[i] == compact.lines.s[i])
            i++;
        fprintf(stderr, "first difference at byte %zu:\n carla:   %.200s\n compact: %.200s\n", i,
                carla.lines.s + (i > 80 ? i - 80 : 0), compact.lines.s + (i > 80 ? i - 80 : 0));
    }
    CHECK(compact.digest == compact2.digest, "compact reports: the same bytes at 1 and 2 threads");
    CHECK(mixed.lines.n == compact.lines.n && memcmp(mixed.lines.s, compact.lines.s, mixed.lines.n) == 0,
          "layouts mixed per sensor: the same receptions");
    CHECK(mixed.carla_digest == carla.carla_digest && carla.carla_digest != 1469598103934665603ull,
          "the sensors in CARLA's layout write the same bytes beside compact ones");
    free(carla.lines.s), free(compact.lines.s), free(compact2.lines.s), free(mixed.lines.s);
    return CHECK_DONE();
}
