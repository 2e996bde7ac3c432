/*
** sensor.other.lane_invasion — CARLA's lane invasion detector as a sensim plugin (SDK 1.4).
**
** CARLA computes it on the client (LibCarla LaneInvasionSensor.cpp): every tick, the four
** corners of the parent's bounding box (at the box's height, rotated by yaw only) are compared
** with their places at the previous tick, and the lane markings each corner's move crossed
** are reported together as one carla.LaneInvasionEvent. The first tick only records the
** corners; a parent that did not move reports nothing. This plugin does the same. Each
** corner's move gives what CARLA's LaneCrossingCalculator gives (crossing_rule carla, the
** default): the closest driving, bidirectional, biking or parking lane of each end; nothing
** unless both are in one section of one road outside junctions, nothing when both ends are off
** those lanes or both in the same lane; else ONE marking: the origin lane's own (outer) or
** inner marking, or, when the origin was off the road, the destination lane's, by the side the
** corner moved to. So leaving the road reports the lane's own marking, type NONE included
** (Town01's unpainted edges), and never a kerb (a sidewalk is off those lanes).
** crossing_rule painted keeps sensim's earlier rule: every painted border a corner crosses
** (host->map_marks_crossed), in the order it meets them, NONE never (issue 33 item 12).
**
** Message keys after the header: actor (the parent, as host->write_actor) and
** crossed_lane_markings: a list of {type, color, lane_change, width} with CARLA's enum names
** (carla.LaneMarkingType, LaneMarkingColor, LaneChange), plus, beyond CARLA, where each
** was crossed (location) and whose outer border it is (road_id, lane_id).
**
** One attribute beyond CARLA's (which has none): crossing_rule. It ticks every frame after physics.
*/
#include <sensim/plugin.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_MARKS 64 /* per corner and tick: more would be a teleport, counted but not kept */

typedef struct invasion {
    const sn_host *host;
    sn_ctx *ctx;
    uint32_t parent;
    bool painted; /* crossing_rule painted: every painted border crossed (sensim's earlier rule) */
    bool have_prev, warned;
    sn_vec3 prev[4];
    uint64_t frame;                 /* frame of the marks below */
    sn_mark_crossing marks[4 * MAX_MARKS];
    uint32_t n_marks;
} invasion;

static sn_status create(const sn_host *host, sn_ctx *ctx, void **out)
{
    if (host->hdr.abi_minor < 4) {
        host->set_error(ctx, "needs a host of ABI 1.4 or later (the map queries); this one is 1.%u",
                        (unsigned)host->hdr.abi_minor);
        return SN_E_UNSUPPORTED;
    }
    invasion *v = calloc(1, sizeof *v);
    if (!v)
        return SN_E_NOMEM;
    v->host = host, v->ctx = ctx;
    *out = v;
    return SN_OK;
}

static void destroy(void *self) { free(self); }

static const char *const rules[] = {"carla", "painted", NULL};
static const sn_attr_def attrs[] = {
    {"crossing_rule", SN_ATTR_ENUM, "carla", NULL, rules, false, 0, 0, NULL,
     "sensim: carla = one marking per corner as CARLA's LaneCrossingCalculator (NONE included, never kerbs); "
     "painted = every painted border a corner crosses"},
};

static sn_status set(void *self, const sn_value *v, uint32_t n)
{
    invasion *iv = self;
    if (n != 1) {
        iv->host->set_error(iv->ctx, "expected 1 attribute value, got %u", n);
        return SN_E_INVALID;
    }
    iv->painted = v[0].s && strcmp(v[0].s, "painted") == 0;
    return SN_OK;
}

static sn_status attach(void *self, uint32_t parent)
{
    invasion *v = self;
    v->parent = parent;
    if (!parent)
        v->host->log(v->ctx, SN_LOG_WARN, "a lane invasion sensor without attach_to never reports anything");
    return SN_OK;
}

/* The box's four corners at the box centre's height, turned by the parent's yaw only (CARLA's
** MakeBounds; a car's box centre is above its origin, so only yaw matters on flat roads). */
static void corners(const sn_actor_info *a, sn_vec3 out[4])
{
    const double yaw = a->transform.rotation.yaw * (M_PI / 180.0), c = cos(yaw), s = sin(yaw);
    const sn_bbox *b = &a->bounding_box;
    const sn_vec3 o = {a->transform.location.x + c * b->location.x - s * b->location.y,
                       a->transform.location.y + s * b->location.x + c * b->location.y,
                       a->transform.location.z + b->location.z};
    const double sx[4] = {1, -1, 1, -1}, sy[4] = {1, 1, -1, -1};
    for (int i = 0; i < 4; i++) {
        double x = sx[i] * b->extent.x, y = sy[i] * b->extent.y;
        out[i] = (sn_vec3){o.x + c * x - s * y, o.y + s * x + c * y, o.z};
    }
}

/* The lane types CARLA's LaneCrossingCalculator searches (its FLAGS). */
#define CARLA_FLAGS (SN_LANE_DRIVING | SN_LANE_BIDIRECTIONAL | SN_LANE_BIKING | SN_LANE_PARKING)

/* CARLA's LaneCrossingCalculator::Calculate for one corner's move a -> b: 0 or 1 marking. A
** waypoint's own marking (CARLA's GetMarkRecord first) is its outer border, on the right of
** its direction of travel in right-hand traffic; the inner one (second) on the left. */
static sn_status carla_crossing(invasion *v, sn_vec3 a, sn_vec3 b, sn_mark_crossing *out, size_t *n)
{
    const sn_host *h = v->host;
    *n = 0;
    sn_waypoint w0, w1, probe;
    if (h->map_waypoint(v->ctx, a, true, CARLA_FLAGS, &w0) != SN_OK ||
        h->map_waypoint(v->ctx, b, true, CARLA_FLAGS, &w1) != SN_OK)
        return SN_OK;
    if (w0.road_id != w1.road_id || w0.section_id != w1.section_id || w0.is_junction || w1.is_junction)
        return SN_OK;
    bool off0 = h->map_waypoint(v->ctx, a, false, CARLA_FLAGS, &probe) != SN_OK;
    bool off1 = h->map_waypoint(v->ctx, b, false, CARLA_FLAGS, &probe) != SN_OK;
    if ((off0 && off1) || (w0.lane_id == w1.lane_id && !off0 && !off1))
        return SN_OK;
    /* the side of w0's direction the move goes to: CARLA's cross product, in its frame (y to
    ** the right), which is sensim's world frame */
    double yaw = w0.transform.rotation.yaw * (M_PI / 180.0), fx = cos(yaw), fy = sin(yaw);
    double dx = b.x - a.x, dy = b.y - a.y, len = hypot(dx, dy);
    if (len > 0)
        dx /= len, dy /= len;
    bool right = (-fx * dy + fy * dx) < 0;
    const sn_waypoint *w = off0 ? &w1 : &w0;
    bool own = right != off0; /* right: w0's own, or w1's inner when off; left: w0's inner, or w1's own */
    out->marking = own ? w->right_marking : w->left_marking;
    out->location = b; /* CARLA's rule says which marking, not where: the corner's new place */
    out->road_id = w->road_id;
    out->lane_id = own ? w->lane_id : w->lane_id < 0 ? w->lane_id + 1 : w->lane_id - 1; /* whose outer border */
    *n = 1;
    return SN_OK;
}

static sn_status tick(void *self, sn_phase phase)
{
    invasion *v = self;
    const sn_host *h = v->host;
    (void)phase;
    v->n_marks = 0;
    v->frame = h->clock(v->ctx)->frame;
    if (!v->parent || !h->has_map(v->ctx)) {
        if (v->parent && !v->warned)
            h->log(v->ctx, SN_LOG_WARN, "the scene has no map (map: FILE.xodr): no lane markings to cross");
        v->warned = true;
        return SN_OK;
    }
    sn_actor_info a;
    memset(&a, 0, sizeof a);
    a.struct_size = sizeof a;
    if (h->actor_get(v->ctx, v->parent, &a) != SN_OK)
        return SN_OK; /* the parent is gone: the sensor goes with it */
    sn_vec3 now[4];
    corners(&a, now);
    bool moved = true;
    for (int i = 0; i < 4 && v->have_prev; i++) /* CARLA: any corner still means no event */
        if (hypot(hypot(now[i].x - v->prev[i].x, now[i].y - v->prev[i].y), now[i].z - v->prev[i].z) < 1e-6)
            moved = false;
    if (v->have_prev && moved) {
        for (int i = 0; i < 4; i++) {
            size_t n = 0;
            sn_status st = v->painted ? h->map_marks_crossed(v->ctx, v->prev[i], now[i], v->marks + v->n_marks,
                                                             MAX_MARKS, &n)
                                      : carla_crossing(v, v->prev[i], now[i], v->marks + v->n_marks, &n);
            if (st == SN_E_RANGE) /* a teleport of more than 1 km: no lanes were driven across */
                continue;
            if (st)
                return st;
            v->n_marks += (uint32_t)(n < MAX_MARKS ? n : MAX_MARKS);
        }
    }
    memcpy(v->prev, now, sizeof now);
    v->have_prev = true;
    return SN_OK;
}

static uint32_t pending(void *self)
{
    invasion *v = self;
    return v->n_marks && v->frame == v->host->clock(v->ctx)->frame ? 1 : 0;
}

static const char *type_name(uint8_t t)
{
    static const char *const n[] = {"Other", "Broken", "Solid", "SolidSolid", "SolidBroken", "BrokenSolid",
                                    "BrokenBroken", "BottsDots", "Grass", "Curb", "NONE"};
    return t < sizeof n / sizeof n[0] ? n[t] : "Other";
}

static const char *color_name(uint8_t c)
{
    static const char *const n[] = {"White", "Blue", "Green", "Red", "Yellow", "Other"};
    return c < sizeof n / sizeof n[0] ? n[c] : "Other";
}

static const char *change_name(uint8_t c)
{
    static const char *const n[] = {"NONE", "Right", "Left", "Both"};
    return n[c & 3];
}

static sn_status serialize(void *self, uint32_t index, sn_writer *w)
{
    invasion *v = self;
    const sn_host *h = v->host;
    if (index != 0) {
        h->set_error(v->ctx, "serialize(%u) but one message per tick", index);
        return SN_E_RANGE;
    }
    h->write_key(w, "actor");
    h->write_actor(w, v->parent);
    h->write_key(w, "crossed_lane_markings");
    h->write_array(w, v->n_marks);
    for (uint32_t i = 0; i < v->n_marks; i++) {
        const sn_mark_crossing *m = &v->marks[i];
        h->write_map(w, 7);
        h->write_key(w, "type");
        h->write_str(w, type_name(m->marking.type));
        h->write_key(w, "color");
        h->write_str(w, color_name(m->marking.color));
        h->write_key(w, "lane_change");
        h->write_str(w, change_name(m->marking.lane_change));
        h->write_key(w, "width");
        h->write_double(w, m->marking.width);
        h->write_key(w, "location");
        h->write_vec3(w, m->location);
        h->write_key(w, "road_id");
        h->write_int(w, m->road_id);
        h->write_key(w, "lane_id");
        h->write_int(w, m->lane_id);
    }
    return SN_OK;
}

static const sn_sensor_class lane_invasion_class = {
    .hdr = SN_ABI_HEADER(sn_sensor_class),
    .blueprint = "sensor.other.lane_invasion",
    .doc = "the lane markings the parent's bounding box crossed this tick (CARLA's lane invasion detector)",
    .phases = SN_PHASE_POST,
    SN_ATTR_TABLE(attrs),
    .set = set,
    .create = create,
    .destroy = destroy,
    .attach = attach,
    .tick = tick,
    .pending = pending,
    .serialize = serialize,
};

static const sn_sensor_class *const classes[] = {&lane_invasion_class};

SN_PLUGIN_EXPORT(library, "lane_invasion", "1.0.0", classes)
