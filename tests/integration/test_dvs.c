/* The event camera in the engine: a still world makes no event; a kinematic checkered car
** crossing the view makes events of both polarities only where it passes, inside their tick,
** in order, labelled with its id; the same bytes at 1 and 3 threads; a thin bar moving 8 px per
** tick leaves gaps between its event columns when sampled once per tick (CARLA) and none with
** sub-frames; event frames saved as PNG through `save` and `sensim convert`; the DVS's blueprint
** lists every attribute of the RGB camera's, alike in all but nothing.
** argv[1]: temp folder, argv[2]: plugin folder (dvs), argv[3]: plugin folder (camera) */
#include "../check.h"
#include "../testutil.h"

#include <sys/stat.h>

static const char *dir, *plugins, *camera_plugins;

typedef struct capture {
    uint8_t *ev, *lab, *bytes; /* all events, labels, whole messages, back to back */
    size_t n_ev, n_lab, n_bytes, messages;
    int64_t *t_lo, *t_hi;      /* each message's tick interval, per event */
} capture;

static void append(uint8_t **buf, size_t *n, const void *data, size_t size)
{
    *buf = realloc(*buf, *n + size + 1);
    memcpy(*buf + *n, data, size);
    *n += size;
}

static void on_msg(const sn_message *m, void *user)
{
    capture *c = user;
    append(&c->bytes, &c->n_bytes, m->data, m->size);
    c->messages++;
    msgpack_unpacked u;
    msgpack_unpacked_init(&u);
    size_t off = 0;
    if (msgpack_unpack_next(&u, m->data, m->size, &off) == MSGPACK_UNPACK_SUCCESS) {
        const msgpack_object *ev = tu_get(&u.data, "events"), *lab = tu_get(&u.data, "labels");
        size_t n0 = c->n_ev / 13, n = ev->via.bin.size / 13;
        append(&c->ev, &c->n_ev, ev->via.bin.ptr, ev->via.bin.size);
        if (lab)
            append(&c->lab, &c->n_lab, lab->via.bin.ptr, lab->via.bin.size);
        c->t_lo = realloc(c->t_lo, (n0 + n + 1) * sizeof *c->t_lo);
        c->t_hi = realloc(c->t_hi, (n0 + n + 1) * sizeof *c->t_hi);
        int64_t t1 = (int64_t)llround(m->timestamp * 1e9);
        for (size_t i = n0; i < n0 + n; i++)
            c->t_lo[i] = t1 - 50000000, c->t_hi[i] = t1;
    }
    msgpack_unpacked_destroy(&u);
}

static void release(capture *c) { free(c->ev), free(c->lab), free(c->bytes), free(c->t_lo), free(c->t_hi); }

static unsigned ev_x(const capture *c, size_t i) { return c->ev[13 * i] | c->ev[13 * i + 1] << 8; }
static unsigned ev_y(const capture *c, size_t i) { return c->ev[13 * i + 2] | c->ev[13 * i + 3] << 8; }
static int64_t ev_t(const capture *c, size_t i)
{
    uint64_t t = 0;
    for (int b = 7; b >= 0; b--)
        t = t << 8 | c->ev[13 * i + 4 + b];
    return (int64_t)t;
}

/* Camera at (0, 0, 1.5) looking along +x, 160 x 40, fov 90: f = 80 px, column = 80 + 80 y / x.
** A gray wall 30 m ahead fills the view; `car` (a kinematic sedan) stands 10 m ahead at y0,
** moving along +y at `speed` m/s. Runs `frames` frames (dt 0.05 s). */
static int run(const char *car_attrs, double y0, double speed, const char *dvs_attrs, const char *extra, int threads,
               int frames, capture *c)
{
    char scene[4096];
    snprintf(scene, sizeof scene,
             "settings: {fixed_delta_seconds: 0.05}\n"
             "actors:\n"
             "  - {name: wall, blueprint: static.prop.box, transform: {location: [30, 0, 1.5]},"
             " attributes: {extent: \"0.5,100,100\", color: \"60,60,60\", texture: none}}\n"
             "  - {name: car, blueprint: vehicle.sedan, transform: {location: [10, %g, 0]}, attributes: {%s}}\n"
             "sensors:\n"
             "  - name: dvs\n"
             "    blueprint: sensor.camera.dvs\n"
             "    transform: {location: [0, 0, 1.5]}\n"
             "    attributes: {image_size_x: 160, image_size_y: 40, lens_k: 0, %s}\n%s",
             y0, car_attrs, dvs_attrs, extra ? extra : "");
    sn_error err = {0};
    sn_engine_options o = {.plugin_dir = plugins, .quiet_plugins = true, .threads = threads};
    sn_engine *e = sn_engine_create(&o, &err);
    memset(c, 0, sizeof *c);
    uint32_t car = 0;
    int rc = !e || sn_engine_load_scene(e, tu_write(dir, "dvs.yaml", scene), &err) ||
             (extra && sn_engine_open_outputs(e, dir, &err)) || sn_engine_listen(e, "dvs", on_msg, c, &err) ||
             !(car = sn_engine_find_actor(e, "car")) || sn_engine_set_simulate_physics(e, car, false, &err) ||
             sn_engine_set_velocity(e, car, (sn_vec3){0, speed, 0}, (sn_vec3){0, 0, 0}, &err) ||
             sn_engine_run(e, (uint64_t)frames, &err);
    CHECK(rc == 0, "run: %s", err.msg);
    sn_engine_destroy(e);
    return rc;
}

static const char *const checkered = "extent: \"1,0.8,1.5\", color: \"230,200,40\", texture: checker, checker_size: 0.25";

static void still_world(void)
{
    capture c;
    if (!run(checkered, -1, 0, "", NULL, 2, 6, &c))
        CHECK(c.messages == 0, "a still world: %zu messages", c.messages);
    release(&c);
}

static void crossing_car(void)
{
    /* 4 m/s: 0.2 m a frame; the car's near face (x 9) spans y0 +- 0.8 */
    capture c;
    if (run(checkered, -3, 4, "event_labels: true", NULL, 2, 12, &c))
        return;
    CHECK(c.messages == 11, "%zu messages in 12 frames (the first only initialises)", c.messages);
    size_t pos = 0, outside = 0, late = 0, unordered = 0, unlabelled = 0;
    /* columns the car covers from the end of frame 1 (y -2.8) to frame 12 (y -0.6), near face x 9 */
    double lo = 80 + 80 * (-2.8 - 0.8) / 9, hi = 80 + 80 * (-0.6 + 0.8) / 9;
    for (size_t i = 0; i < c.n_ev / 13; i++) {
        pos += c.ev[13 * i + 12];
        outside += ev_x(&c, i) + 1 < lo || ev_x(&c, i) > hi + 1;
        /* CARLA interpolates a crossing's time in single precision, (cross - it) dt / span with
        ** dt = 5e7 ns, as sensim does byte for byte (test_dvs_fake's reference loop): a crossing at
        ** the sample's own level may land one float ulp of 5e7 (4 ns) past the sample */
        late += ev_t(&c, i) <= c.t_lo[i] || ev_t(&c, i) > c.t_hi[i] + 4;
        if (i && c.t_hi[i] == c.t_hi[i - 1])
            unordered += ev_t(&c, i - 1) > ev_t(&c, i) ||
                         (ev_t(&c, i - 1) == ev_t(&c, i) && ev_y(&c, i - 1) * 160 + ev_x(&c, i - 1) > ev_y(&c, i) * 160 + ev_x(&c, i));
        uint32_t id = c.lab[5 * i + 1] | c.lab[5 * i + 2] << 8 | (uint32_t)c.lab[5 * i + 3] << 16;
        unlabelled += c.lab[5 * i] != 14 || id != 2; /* Car; the car is the scene's second actor */
    }
    size_t n = c.n_ev / 13;
    fprintf(stderr, "crossing car: %zu events, %zu positive, columns %.1f..%.1f\n", n, pos, lo, hi);
    CHECK(n > 500, "%zu events", n);
    CHECK(pos > n / 5 && n - pos > n / 5, "both polarities: %zu positive of %zu", pos, n);
    CHECK(outside == 0, "%zu events outside the columns the car crossed (%.1f..%.1f)", outside, lo, hi);
    CHECK(late == 0, "%zu events outside their tick", late);
    CHECK(unordered == 0, "%zu events out of order", unordered);
    CHECK(c.n_lab == 5 * n && unlabelled == 0, "%zu of %zu events not labelled as the car", unlabelled, n);
    release(&c);
}

static void threads(void)
{
    capture a, b;
    const char *attrs = "subframes: 3, event_labels: true, sigma_positive_threshold: 0.05, threshold_mismatch_sigma: 0.03";
    if (run(checkered, -3, 6, attrs, NULL, 1, 8, &a) || run(checkered, -3, 6, attrs, NULL, 3, 8, &b))
        return;
    CHECK(a.n_bytes > 1000 && a.n_bytes == b.n_bytes && !memcmp(a.bytes, b.bytes, a.n_bytes),
          "1 and 3 threads: %zu and %zu bytes, not the same", a.n_bytes, b.n_bytes);
    release(&a), release(&b);
}

/* Columns of the swept region [first, last] without any event. */
static int empty_columns(const capture *c, int first, int last)
{
    bool seen[160] = {false};
    for (size_t i = 0; i < c->n_ev / 13; i++)
        seen[ev_x(c, i)] = true;
    int empty = 0;
    for (int x = first; x <= last; x++)
        empty += !seen[x];
    return empty;
}

static void gaps(void)
{
    /* A white bar 0.25 m wide (2 px at its face, 9.95 m) moving 20 m/s: 1 m, 8 px a tick. */
    const char *bar = "extent: \"0.05,0.125,3\", color: \"255,255,255\", texture: none";
    capture plain, sub;
    if (run(bar, -4, 20, "", NULL, 2, 9, &plain) || run(bar, -4, 20, "subframes: 8", NULL, 2, 9, &sub))
        return;
    /* swept after the first tick: from y -3 to +4, columns 80 + 80 y / 9.95 */
    int first = (int)ceil(80 + 80 * -3.0 / 9.95) + 2, last = (int)floor(80 + 80 * 4.0 / 9.95) - 2;
    int gap_plain = empty_columns(&plain, first, last), gap_sub = empty_columns(&sub, first, last);
    fprintf(stderr, "gaps: columns %d..%d: %d empty sampled once a tick (%zu events), %d with 8 sub-frames (%zu events)\n",
            first, last, gap_plain, plain.n_ev / 13, gap_sub, sub.n_ev / 13);
    CHECK(gap_plain > (last - first) / 3, "plain sampling: %d of %d columns without events (CARLA's gaps)", gap_plain,
          last - first + 1);
    CHECK(gap_sub == 0, "8 sub-frames: %d of %d columns without events", gap_sub, last - first + 1);
    release(&plain), release(&sub);
}

static void saved_frames(void)
{
    capture c;
    if (run(checkered, -3, 4, "", "    save: {path: \"dvs_frames/%06d.png\"}\n", 2, 3, &c))
        return;
    char path[1024];
    struct stat st;
    snprintf(path, sizeof path, "%s/dvs_frames/000001.png", dir);
    CHECK(stat(path, &st) != 0, "the first frame only initialises, yet %s exists", path);
    snprintf(path, sizeof path, "%s/dvs_frames/000003.png", dir);
    CHECK(stat(path, &st) == 0 && st.st_size > 0, "%s not written", path);
    snprintf(path, sizeof path, "%s/dvs.msgpack", dir);
    char out[1024];
    snprintf(out, sizeof out, "%s/dvs_convert", dir);
    size_t written = 0;
    sn_error err = {0};
    CHECK(sn_stream_save_images(path, out, SN_COLOR_RAW, &written, &err) == SN_OK && written == 2,
          "convert: %zu images: %s", written, err.msg);
    release(&c);
}

static bool same_str(const char *a, const char *b) { return a == b || (a && b && !strcmp(a, b)); }
static bool same_list(const char *const *a, const char *const *b)
{
    for (; a && b && *a && *b; a++, b++)
        if (strcmp(*a, *b))
            return false;
    return a && b ? !*a && !*b : a == b;
}

/* The DVS is a camera: its blueprint starts with every attribute of sensor.camera.rgb, the same
** name, type, default, range, unit, choices and doc, in the same order, then its own; all but the
** RGB camera's own last three: anti_aliasing, whose part the DVS's `supersample` plays, and
** motion_blur_method and motion_blur_subframes (the DVS draws no motion blur). */
static void rgb_attributes(void)
{
    sn_error err = {0};
    sn_blueprints *rl = sn_blueprints_open(&(sn_engine_options){.plugin_dir = camera_plugins, .quiet_plugins = true}, &err);
    sn_blueprints *dl = sn_blueprints_open(&(sn_engine_options){.plugin_dir = plugins, .quiet_plugins = true}, &err);
    sn_blueprint_info rgb = {.struct_size = sizeof rgb}, dvs = {.struct_size = sizeof dvs};
    CHECK(rl && dl && sn_blueprints_find(rl, "sensor.camera.rgb", &rgb, &err) == SN_OK &&
              sn_blueprints_find(dl, "sensor.camera.dvs", &dvs, &err) == SN_OK, "blueprints: %s", err.msg);
    CHECK(rgb.n_attrs >= 41 && dvs.n_attrs > rgb.n_attrs, "rgb %u attributes, dvs %u", rgb.n_attrs, dvs.n_attrs);
    CHECK(rgb.n_attrs >= 3 && !strcmp(rgb.attrs[rgb.n_attrs - 3]->name, "anti_aliasing") &&
              !strcmp(rgb.attrs[rgb.n_attrs - 2]->name, "motion_blur_method") &&
              !strcmp(rgb.attrs[rgb.n_attrs - 1]->name, "motion_blur_subframes"),
          "the RGB camera's last attributes");
    for (uint32_t i = 0; i + 3 < rgb.n_attrs && i < dvs.n_attrs; i++) {
        const sn_attr_def *a = rgb.attrs[i], *b = dvs.attrs[i];
        CHECK(!strcmp(a->name, b->name) && a->type == b->type && same_str(a->def, b->def) && same_str(a->doc, b->doc) &&
                  same_str(a->unit, b->unit) && a->has_range == b->has_range && a->min == b->min && a->max == b->max &&
                  same_list(a->choices, b->choices) && same_list(a->recommended, b->recommended),
              "attribute %u: rgb '%s' (%s, %s: %s), dvs '%s' (%s, %s: %s)", i, a->name, sn_attr_type_name(a->type), a->def,
              a->doc, b->name, sn_attr_type_name(b->type), b->def, b->doc);
    }
    sn_blueprints_close(rl), sn_blueprints_close(dl);
}

int main(int argc, char **argv)
{
    if (argc < 4)
        return 2;
    dir = argv[1], plugins = argv[2], camera_plugins = argv[3];
    rgb_attributes();
    still_world();
    crossing_car();
    threads();
    gaps();
    saved_frames();
    return CHECK_DONE();
}
