/*
** sensor.other.traffic_light_ahead — what a driver sees coming (an outside author's sensor, SDK
** 1.6): mounted on a vehicle, it reports the first traffic light governing the vehicle's lane
** within `range` metres along its route (its autopilot's, or its lane's), the light's state, its
** stop line and the distance to it, and the speed limit of the last speed sign ahead, if any.
*/
#include <sensim/plugin.h>

#include <stdlib.h>

static const sn_attr_def attrs[] = {
    {"range", SN_ATTR_FLOAT, "100", NULL, NULL, true, 1, 1000, "m", "how far along the route"},
    SN_ATTR_SENSOR_TICK("seconds between ticks"),
};

#define MAX_MARKS 16

typedef struct tla {
    const sn_host *host;
    sn_ctx *ctx;
    uint32_t parent;
    double range;
    sn_landmark marks[MAX_MARKS];
    uint32_t n;
} tla;

static sn_status create(const sn_host *h, sn_ctx *c, void **out)
{
    if (!SN_HOST_HAS(h, landmarks_ahead)) {
        h->set_error(c, "needs a host with ABI 1.6 (landmarks_ahead)");
        return SN_E_UNSUPPORTED;
    }
    tla *s = calloc(1, sizeof *s);
    if (!s)
        return SN_E_NOMEM;
    s->host = h, s->ctx = c;
    *out = s;
    return SN_OK;
}
static void destroy(void *self) { free(self); }
static sn_status set(void *self, const sn_value *v, uint32_t n)
{
    (void)n;
    ((tla *)self)->range = v[0].f;
    return SN_OK;
}
static sn_status attach(void *self, uint32_t parent)
{
    tla *s = self;
    if (!parent) {
        s->host->set_error(s->ctx, "attach it to a vehicle (attach_to)");
        return SN_E_INVALID;
    }
    s->parent = parent;
    return SN_OK;
}

static sn_status tick(void *self, sn_phase phase)
{
    tla *s = self;
    (void)phase;
    s->marks[0].struct_size = sizeof s->marks[0];
    uint32_t found = 0;
    sn_status st = s->host->landmarks_ahead(s->ctx, s->parent, s->range, SN_LANDMARK_LIGHT | SN_LANDMARK_SPEED,
                                            s->marks, MAX_MARKS, &found);
    s->n = found < MAX_MARKS ? found : MAX_MARKS;
    return st;
}

static sn_status serialize(void *self, uint32_t index, sn_writer *w)
{
    static const char *const states[] = {"Red", "Yellow", "Green", "Off", "Unknown"};
    tla *s = self;
    const sn_host *h = s->host;
    const sn_landmark *light = NULL, *limit = NULL;
    (void)index;
    for (uint32_t i = 0; i < s->n; i++) {
        if (s->marks[i].kind == SN_LANDMARK_LIGHT && !light)
            light = &s->marks[i];
        if (s->marks[i].kind == SN_LANDMARK_SPEED && (!light || s->marks[i].distance < light->distance))
            limit = &s->marks[i];
    }
    h->write_key(w, "traffic_light");
    if (!light) {
        h->write_nil(w);
    } else {
        h->write_map(w, 5);
        h->write_key(w, "id"), h->write_uint(w, light->actor_id);
        h->write_key(w, "state"), h->write_str(w, states[light->state < 5 ? light->state : 4]);
        h->write_key(w, "distance"), h->write_double(w, light->distance);
        h->write_key(w, "opendrive_id"), h->write_int(w, light->signal_id);
        h->write_key(w, "stop_line"), h->write_vec3(w, light->line.transform.location);
    }
    h->write_key(w, "speed_limit");
    return limit ? h->write_double(w, limit->limit * 3.6) : h->write_nil(w); /* km/h, as CARLA's */
}

static const sn_sensor_class tla_class = {
    .hdr = SN_ABI_HEADER(sn_sensor_class),
    .blueprint = "sensor.other.traffic_light_ahead",
    .doc = "the first traffic light along the parent's route: state, stop line, distance",
    .phases = SN_PHASE_POST,
    SN_ATTR_TABLE(attrs),
    .create = create, .destroy = destroy, .set = set, .attach = attach, .tick = tick, .serialize = serialize,
};
static const sn_sensor_class *const classes[] = {&tla_class};
SN_PLUGIN_EXPORT(lib, "traffic_light_ahead", "1.0", classes)
