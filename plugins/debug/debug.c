/*
** sensor.other.debug — CARLA's world.debug (carla.DebugHelper) as a stream: the shapes a script
** or a scene draws (points, lines, arrows, boxes, strings), each with its colour and life time,
** published on the frame they were drawn. CARLA draws them into its window for the spectator;
** here views draw them: the MCAP view as foxglove.SceneUpdate entities on /debug, each with its
** lifetime (docs/mcap.md), the report onto its top view (docs/views.md).
**
** Methods (sn_engine_call, a scene's `calls:`; numbers as text, CARLA's units: metres, degrees,
** colour channels 0..255; the trailing arguments may be left out: colour red 255 0 0 255,
** life_time -1):
**   draw_point  x y z  [size r g b a life_time]
**   draw_line   x1 y1 z1 x2 y2 z2  [thickness r g b a life_time]
**   draw_arrow  x1 y1 z1 x2 y2 z2  [thickness arrow_size r g b a life_time]
**   draw_box    cx cy cz ex ey ez pitch yaw roll  [thickness r g b a life_time]  (a wireframe)
**   draw_string x y z text  [r g b a life_time]
** life_time as CARLA's: < 0 one frame, 0 for ever, > 0 that many seconds.
**
** A message (only on a frame something was drawn since the previous one) has, after the
** header keys, `delta_seconds` (the frame's step: how long a one-frame shape shows) and
** `shapes`: an array of maps, in the order drawn, each with
**   kind "point" | "line" | "arrow" | "box" | "string", color [r, g, b, a], life_time,
**   point: location, size; line: begin, end, thickness; arrow: the same and arrow_size;
**   box: location, extent, rotation [pitch, yaw, roll], thickness; string: location, text.
** It draws nothing from the random stream and nothing in the world depends on it.
*/
#include <sensim/grow.h>
#include <sensim/plugin.h>

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define DBG_TEXT_MAX 1024
#define DBG_MAX_SHAPES 100000 /* drawn in one frame: a script drawing in a loop gets an error, not all memory */
#define DBG_MAX_COORD 1e7     /* metres from the origin */

static const sn_attr_def debug_attrs[] = {
    {"sensor_tick", SN_ATTR_FLOAT, "0.0", NULL, NULL, true, 0, 1e9, "s", "seconds between messages (0: every frame)"},
};

enum { K_POINT, K_LINE, K_ARROW, K_BOX, K_STRING, K_N };
static const char *const KIND[K_N] = {"point", "line", "arrow", "box", "string"};
/* numbers before the optional ones, and the optional ones' count before the colour */
static const uint32_t GEOM[K_N] = {3, 6, 6, 9, 3};
static const uint32_t SIZES[K_N] = {1, 1, 2, 1, 0};

typedef struct shape {
    uint8_t kind;
    double life, color[4], size[2], p[9];
    char *text;
} shape;

typedef struct dbg {
    const sn_host *h;
    sn_ctx *ctx;
    shape *pend, *out; /* drawn since the last tick; published this frame */
    uint32_t n_pend, cap_pend, n_out, cap_out;
} dbg;

static sn_status create(const sn_host *h, sn_ctx *ctx, void **out)
{
    dbg *d = calloc(1, sizeof *d);
    if (!d) {
        h->set_error(ctx, "out of memory");
        return SN_E_NOMEM;
    }
    d->h = h, d->ctx = ctx;
    *out = d;
    return SN_OK;
}

static void clear(shape *s, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        free(s[i].text);
}

static void destroy(void *self)
{
    dbg *d = self;
    if (!d)
        return;
    clear(d->pend, d->n_pend);
    clear(d->out, d->n_out);
    free(d->pend);
    free(d->out);
    free(d);
}

static sn_status set(void *self, const sn_value *v, uint32_t n)
{
    (void)self, (void)v, (void)n;
    return SN_OK;
}

static bool number(const char *s, double *v)
{
    char *end;
    errno = 0;
    *v = strtod(s, &end);
    return end != s && !*end && errno == 0 && isfinite(*v);
}

static sn_status call(void *self, const char *method, uint32_t argc, const char *const *argv)
{
    dbg *d = self;
    const sn_host *h = d->h;
    int k = -1;
    for (int i = 0; i < K_N; i++)
        if (strncmp(method, "draw_", 5) == 0 && strcmp(method + 5, KIND[i]) == 0)
            k = i;
    if (k < 0) {
        h->set_error(d->ctx, "no method '%s' (sensor.other.debug has draw_point, draw_line, draw_arrow, draw_box, draw_string)",
                     method);
        return SN_E_INVALID;
    }
    uint32_t geom = GEOM[k] + (k == K_STRING), full = geom + SIZES[k] + 5;
    if (argc < geom || argc > full) {
        h->set_error(d->ctx, "%s takes %u to %u arguments, not %u", method, geom, full, argc);
        return SN_E_INVALID;
    }
    if (d->n_pend >= DBG_MAX_SHAPES) {
        h->set_error(d->ctx, "%s: more than %d shapes drawn in one frame", method, DBG_MAX_SHAPES);
        return SN_E_RANGE;
    }
    shape s = {.kind = (uint8_t)k, .life = -1, .color = {255, 0, 0, 255}, .size = {0.1, 0.1}};
    /* the numbers in order: geometry, sizes, colour, life_time (a string's text sits after its location) */
    double *slot[20];
    uint32_t n = 0;
    for (uint32_t i = 0; i < GEOM[k]; i++)
        slot[n++] = &s.p[i];
    for (uint32_t i = 0; i < SIZES[k]; i++)
        slot[n++] = &s.size[i];
    for (uint32_t i = 0; i < 4; i++)
        slot[n++] = &s.color[i];
    slot[n++] = &s.life;
    for (uint32_t a = 0, j = 0; a < argc; a++) {
        if (k == K_STRING && a == 3)
            continue;
        double v;
        if (!number(argv[a], &v)) {
            h->set_error(d->ctx, "%s: argument %u '%.40s' is not a finite number", method, a + 1, argv[a]);
            return SN_E_INVALID;
        }
        *slot[j++] = v;
    }
    for (uint32_t i = 0; i < 9; i++)
        if (fabs(s.p[i]) > DBG_MAX_COORD) {
            h->set_error(d->ctx, "%s: %g is beyond %g", method, s.p[i], DBG_MAX_COORD);
            return SN_E_RANGE;
        }
    for (uint32_t i = 0; i < 4; i++)
        if (s.color[i] < 0 || s.color[i] > 255) {
            h->set_error(d->ctx, "%s: colour channel %g is not in 0..255", method, s.color[i]);
            return SN_E_RANGE;
        }
    for (uint32_t i = 0; i < 2; i++)
        if (s.size[i] < 0 || s.size[i] > 1e4) {
            h->set_error(d->ctx, "%s: size %g is not in 0..10000 m", method, s.size[i]);
            return SN_E_RANGE;
        }
    if (k == K_BOX && (s.p[3] < 0 || s.p[4] < 0 || s.p[5] < 0)) {
        h->set_error(d->ctx, "%s: a box's extent must not be negative", method);
        return SN_E_RANGE;
    }
    if (s.life > 1e9) {
        h->set_error(d->ctx, "%s: life_time %g is beyond 1e9 s", method, s.life);
        return SN_E_RANGE;
    }
    if (k == K_STRING) {
        size_t len = strlen(argv[3]);
        if (len > DBG_TEXT_MAX) {
            h->set_error(d->ctx, "%s: the text is longer than %d bytes", method, DBG_TEXT_MAX);
            return SN_E_RANGE;
        }
        if (!(s.text = malloc(len + 1))) {
            h->set_error(d->ctx, "out of memory");
            return SN_E_NOMEM;
        }
        memcpy(s.text, argv[3], len + 1);
    }
    if (!SN_GROW32(d->pend, d->cap_pend, d->n_pend + 1)) {
        free(s.text);
        h->set_error(d->ctx, "out of memory");
        return SN_E_NOMEM;
    }
    d->pend[d->n_pend++] = s;
    return SN_OK;
}

/* POST: what was drawn since the last tick becomes this frame's message (swap the buffers). */
static sn_status tick(void *self, sn_phase phase)
{
    dbg *d = self;
    if (phase != SN_PHASE_POST)
        return SN_OK;
    clear(d->out, d->n_out);
    shape *t = d->out;
    uint32_t cap = d->cap_out;
    d->out = d->pend, d->n_out = d->n_pend, d->cap_out = d->cap_pend;
    d->pend = t, d->n_pend = 0, d->cap_pend = cap;
    return SN_OK;
}

static uint32_t pending(void *self)
{
    const dbg *d = self;
    return d->n_out ? 1 : 0;
}

static void vec(const sn_host *h, sn_writer *w, const char *key, const double *p)
{
    h->write_key(w, key);
    h->write_vec3(w, (sn_vec3){p[0], p[1], p[2]});
}

static sn_status serialize(void *self, uint32_t index, sn_writer *w)
{
    dbg *d = self;
    const sn_host *h = d->h;
    (void)index;
    h->write_key(w, "delta_seconds"); /* the frame's step: how long a one-frame shape (life_time < 0) lasts */
    h->write_double(w, h->clock(d->ctx)->dt);
    h->write_key(w, "shapes");
    h->write_array(w, d->n_out);
    sn_status st = SN_OK;
    for (uint32_t i = 0; i < d->n_out; i++) {
        const shape *s = &d->out[i];
        static const uint32_t KEYS[K_N] = {5, 6, 7, 7, 5};
        h->write_map(w, KEYS[s->kind]);
        h->write_key(w, "kind");
        h->write_str(w, KIND[s->kind]);
        h->write_key(w, "color");
        h->write_array(w, 4);
        for (int c = 0; c < 4; c++)
            h->write_uint(w, (uint64_t)lround(s->color[c]));
        h->write_key(w, "life_time");
        h->write_double(w, s->life);
        switch (s->kind) {
        case K_POINT:
            vec(h, w, "location", s->p);
            h->write_key(w, "size");
            st = h->write_double(w, s->size[0]);
            break;
        case K_LINE:
        case K_ARROW:
            vec(h, w, "begin", s->p);
            vec(h, w, "end", s->p + 3);
            h->write_key(w, "thickness");
            st = h->write_double(w, s->size[0]);
            if (s->kind == K_ARROW) {
                h->write_key(w, "arrow_size");
                st = h->write_double(w, s->size[1]);
            }
            break;
        case K_BOX:
            vec(h, w, "location", s->p);
            vec(h, w, "extent", s->p + 3);
            vec(h, w, "rotation", s->p + 6);
            h->write_key(w, "thickness");
            st = h->write_double(w, s->size[0]);
            break;
        default:
            vec(h, w, "location", s->p);
            h->write_key(w, "text");
            st = h->write_str(w, s->text);
        }
    }
    return st;
}

static const sn_method_def debug_methods[] = {
    {"draw_point", "x y z [size r g b a life_time]: a point (CARLA's draw_point)"},
    {"draw_line", "x1 y1 z1 x2 y2 z2 [thickness r g b a life_time]: a line"},
    {"draw_arrow", "x1 y1 z1 x2 y2 z2 [thickness arrow_size r g b a life_time]: an arrow"},
    {"draw_box", "cx cy cz ex ey ez pitch yaw roll [thickness r g b a life_time]: a wireframe box"},
    {"draw_string", "x y z text [r g b a life_time]: a text"},
};
static const sn_method_args debug_method_args[] = {
    {3, 9, 64}, {6, 12, 64}, {6, 13, 64}, {9, 15, 64}, {4, 9, DBG_TEXT_MAX},
};

static const sn_sensor_class debug_class = {
    .hdr = SN_ABI_HEADER(sn_sensor_class),
    .blueprint = "sensor.other.debug",
    .doc = "CARLA's world.debug: shapes drawn with colour and life time, published on the frame drawn (views draw them)",
    .phases = SN_PHASE_POST,
    SN_ATTR_TABLE(debug_attrs),
    .value_size = sizeof(sn_value),
    SN_METHOD_TABLE(debug_methods),
    .method_args = debug_method_args,
    .create = create,
    .destroy = destroy,
    .set = set,
    .tick = tick,
    .pending = pending,
    .serialize = serialize,
    .call = call,
};

static const sn_sensor_class *const classes[] = {&debug_class};
SN_PLUGIN_EXPORT(lib, "debug", "1.0.0", classes)
