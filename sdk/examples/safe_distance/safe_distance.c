/*
** sensor.other.safe_distance — seed 002's worked example, written as a third party would:
** one C file, built against the installed SDK with nothing but pkg-config.
**
** The parent's bounding box, grown by safe_distance_front / _back / _lateral (metres), is
** checked on every tick against the bounding boxes of every other vehicle (a 2-D separating
** axis test in the ground plane). On each tick that finds any, one message:
**   vehicles: [id, ...]   ascending actor ids of the vehicles inside the safety box
*/
#include <sensim/grow.h>
#include <sensim/plugin.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { A_FRONT, A_BACK, A_LATERAL, A_TICK, A_COUNT };

static const char *const rec_front[] = {"1.0", "2.0", "5.0", NULL};
static const sn_attr_def attrs[A_COUNT] = {
    [A_FRONT] = {"safe_distance_front", SN_ATTR_FLOAT, "1.0", rec_front, NULL, true, 0, 1000, "m",
                 "distance added in front of the parent's bounding box"},
    [A_BACK] = {"safe_distance_back", SN_ATTR_FLOAT, "0.5", NULL, NULL, true, 0, 1000, "m",
                "distance added behind the parent's bounding box"},
    [A_LATERAL] = {"safe_distance_lateral", SN_ATTR_FLOAT, "0.5", NULL, NULL, true, 0, 1000, "m",
                   "distance added on both sides of the parent's bounding box"},
    [A_TICK] = SN_ATTR_SENSOR_TICK("simulated seconds between ticks (0 = every frame)"),
};

typedef struct safe_distance {
    const sn_host *host;
    sn_ctx *ctx;
    double front, back, lateral;
    uint32_t parent;
    uint32_t *found; /* ids inside the box this tick; reused across ticks */
    uint32_t n_found, cap;
    uint64_t frame; /* of the last tick */
} safe_distance;

static sn_status create(const sn_host *host, sn_ctx *ctx, void **out)
{
    safe_distance *s = calloc(1, sizeof *s);
    if (!s)
        return SN_E_NOMEM;
    s->host = host;
    s->ctx = ctx;
    *out = s;
    return SN_OK;
}

static void destroy(void *self)
{
    safe_distance *s = self;
    if (s)
        free(s->found);
    free(s);
}

static sn_status set(void *self, const sn_value *v, uint32_t n)
{
    safe_distance *s = self;
    if (n < A_COUNT)
        return SN_E_INVALID;
    s->front = v[A_FRONT].f;
    s->back = v[A_BACK].f;
    s->lateral = v[A_LATERAL].f;
    return SN_OK;
}

static sn_status attach(void *self, uint32_t parent)
{
    safe_distance *s = self;
    if (!parent) {
        s->host->set_error(s->ctx, "a safe-distance sensor must be attached to a vehicle (attach_to)");
        return SN_E_INVALID;
    }
    s->parent = parent;
    return SN_OK;
}

/* A rectangle in the ground plane: centre, unit axes, half sizes. */
typedef struct rect {
    double cx, cy, ax, ay, hx, hy;
} rect;

static rect rect_of(const sn_actor_info *a, double front, double back, double lateral)
{
    double yaw = a->transform.rotation.yaw * 3.14159265358979323846 / 180.0;
    rect r = {0};
    r.ax = cos(yaw);
    r.ay = sin(yaw);
    double shift = (front - back) / 2; /* the grown box is not centred when front != back */
    r.cx = a->transform.location.x + (a->bounding_box.location.x + shift) * r.ax;
    r.cy = a->transform.location.y + (a->bounding_box.location.x + shift) * r.ay;
    r.hx = a->bounding_box.extent.x + (front + back) / 2;
    r.hy = a->bounding_box.extent.y + lateral;
    return r;
}

/* Projection radius of rectangle r on unit axis (ux, uy). */
static double radius(const rect *r, double ux, double uy)
{
    return r->hx * fabs(r->ax * ux + r->ay * uy) + r->hy * fabs(-r->ay * ux + r->ax * uy);
}

static int overlap(const rect *a, const rect *b)
{
    const double axes[4][2] = {{a->ax, a->ay}, {-a->ay, a->ax}, {b->ax, b->ay}, {-b->ay, b->ax}};
    double dx = b->cx - a->cx, dy = b->cy - a->cy;
    for (int i = 0; i < 4; i++) {
        double d = fabs(dx * axes[i][0] + dy * axes[i][1]);
        if (d > radius(a, axes[i][0], axes[i][1]) + radius(b, axes[i][0], axes[i][1]))
            return 0;
    }
    return 1;
}

static sn_status tick(void *self, sn_phase phase)
{
    safe_distance *s = self;
    const sn_host *h = s->host;
    (void)phase;
    s->n_found = 0;
    s->frame = h->clock(s->ctx)->frame;
    sn_actor_info me;
    memset(&me, 0, sizeof me);
    me.struct_size = sizeof me;
    if (h->actor_get(s->ctx, s->parent, &me) != SN_OK)
        return SN_OK; /* the parent is gone */
    rect box = rect_of(&me, s->front, s->back, s->lateral);
    uint32_t n = h->actor_count(s->ctx);
    for (uint32_t i = 0; i < n; i++) {
        sn_actor_info other;
        memset(&other, 0, sizeof other);
        other.struct_size = sizeof other;
        uint32_t id = h->actor_id_at(s->ctx, i);
        if (id == s->parent || h->actor_get(s->ctx, id, &other) != SN_OK || other.kind != SN_ACTOR_VEHICLE)
            continue;
        rect r = rect_of(&other, 0, 0, 0);
        if (!overlap(&box, &r))
            continue;
        if (!SN_GROW32(s->found, s->cap, (size_t)s->n_found + 1)) {
            h->set_error(s->ctx, "out of memory");
            return SN_E_NOMEM;
        }
        s->found[s->n_found++] = id; /* ids come in ascending order */
    }
    return SN_OK;
}

/* A message only on ticks that found something: state is left to tick(), for serialize() runs
** only while something consumes the messages. */
static uint32_t pending(void *self)
{
    safe_distance *s = self;
    return s->n_found && s->frame == s->host->clock(s->ctx)->frame ? 1 : 0;
}

static sn_status serialize(void *self, uint32_t index, sn_writer *w)
{
    safe_distance *s = self;
    const sn_host *h = s->host;
    (void)index;
    h->write_key(w, "vehicles");
    h->write_array(w, s->n_found);
    for (uint32_t i = 0; i < s->n_found; i++)
        h->write_uint(w, s->found[i]);
    return SN_OK;
}

static const sn_sensor_class safe_distance_class = {
    .hdr = SN_ABI_HEADER(sn_sensor_class),
    .blueprint = "sensor.other.safe_distance",
    .doc = "ids of the vehicles inside the parent's bounding box grown by safety distances",
    .phases = SN_PHASE_POST,
    SN_ATTR_TABLE(attrs),
    .create = create,
    .destroy = destroy,
    .set = set,
    .attach = attach,
    .tick = tick,
    .pending = pending,
    .serialize = serialize,
};

static const sn_sensor_class *const classes[] = {&safe_distance_class};
SN_PLUGIN_EXPORT(library, "safe_distance", "1.0.0", classes)
