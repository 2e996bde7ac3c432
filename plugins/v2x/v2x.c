/*
** sensor.other.v2x (ETSI CAM) and sensor.other.v2x_custom (text) — CARLA's V2X sensors over
** CARLA's channel model (carla-sensors.md §4). Each class has one radio medium per engine in
** its class state; a sensor transmits at its POST tick, and the medium propagates the frame's
** transmissions after every sensor has ticked (medium.h). Attributes and their defaults are
** CARLA's blueprint's; docs/sensors/v2x.md says where and why sensim differs.
*/
#include "cam.h"
#include "compact.h"
#include "custom.h"
#include "foreign.h"
#include "medium.h"
#include "output.h"

#include <stdlib.h>
#include <string.h>

static const char *const scenarios[] = {"highway", "rural", "urban", NULL};
static const char *const models[] = {"winner", "geometric", NULL};
static const char *const layouts[] = {"carla", "compact", NULL};

/* The channel attributes of both sensors, in this order (set() reads them by index). */
#define COMMON_ATTRS                                                                                           \
    {"transmit_power", SN_ATTR_FLOAT, "21.5", NULL, NULL, true, -100, 100, "dBm", "the sender's transmit power"}, \
    {"receiver_sensitivity", SN_ATTR_FLOAT, "-99.0", NULL, NULL, true, -300, 100, "dBm",                        \
     "a message is received when its power is at least this"},                                                 \
    {"frequency_ghz", SN_ATTR_FLOAT, "5.9", NULL, NULL, true, 0.1, 100, "GHz",                                   \
     "carrier frequency (this sensor's own; CARLA shares the last one set)"},                                  \
    {"combined_antenna_gain", SN_ATTR_FLOAT, "10.0", NULL, NULL, true, -100, 100, "dBi",                        \
     "transmitter and receiver antenna gain; the receiver's value counts"},                                    \
    {"d_ref", SN_ATTR_FLOAT, "1.0", NULL, NULL, true, 0.001, 10000, "m", "reference distance of the log-distance model"}, \
    {"path_loss_exponent", SN_ATTR_FLOAT, "2.7", NULL, NULL, true, 0.1, 10, NULL,                               \
     "log-distance exponent (geometric model, blocked by a building)"},                                        \
    {"filter_distance", SN_ATTR_FLOAT, "500.0", NULL, NULL, true, 0.001, 100000, "m",                          \
     "senders at or beyond this distance are not heard"},                                                      \
    {"scenario", SN_ATTR_ENUM, "highway", scenarios, scenarios, false, 0, 0, NULL,                              \
     "fading and WINNER+ LOS parameters: highway, rural or urban (CARLA's blueprint default)"},                 \
    {"path_loss_model", SN_ATTR_ENUM, "winner", models, models, false, 0, 0, NULL,                              \
     "winner (WINNER+, ETSI TR 103 257-1) or geometric (two-ray, log-distance; CARLA's blueprint default is winner)"}, \
    {"use_etsi_fading", SN_ATTR_BOOL, "true", NULL, NULL, false, 0, 0, NULL,                                    \
     "shadow fading with ETSI's standard deviations, else custom_fading_stddev"},                               \
    {"custom_fading_stddev", SN_ATTR_FLOAT, "0.0", NULL, NULL, true, 0, 100, "dB",                              \
     "shadow fading standard deviation when use_etsi_fading is false"},                                        \
    {"noise_seed", SN_ATTR_INT, "0", NULL, NULL, true, 0, 4294967295.0, NULL,                                   \
     "seed of fading and noise; 0 keeps the sensor's own stream (scene seed and name)"},                       \
    SN_ATTR_SENSOR_TICK("seconds between ticks (0: every frame)"),                                             \
    {"report_layout", SN_ATTR_ENUM, "carla", layouts, layouts, false, 0, 0, NULL,                               \
     "carla: a map per message (CARLA's); compact: columns, each message's content once per report"},           \
    {"los_cache", SN_ATTR_BOOL, "true", NULL, NULL, false, 0, 0, NULL,                                          \
     "reuse the last tick's line of sight while no actor, antenna or link changed (false: trace every tick)"}
#define N_COMMON 15

#define NOISE(name, doc) {name, SN_ATTR_FLOAT, "0.0", NULL, NULL, true, 0, 1e6, NULL, doc}
#define BIAS(name, doc) {name, SN_ATTR_FLOAT, "0.0", NULL, NULL, true, -1e6, 1e6, NULL, doc}

static const sn_attr_def cam_attrs[] = {
    COMMON_ATTRS,
    {"gen_cam_min", SN_ATTR_FLOAT, "0.1", NULL, NULL, true, 0, 3600, "s", "shortest time between two CAMs"},
    {"gen_cam_max", SN_ATTR_FLOAT, "1.0", NULL, NULL, true, 0, 3600, "s", "longest time between two CAMs"},
    {"fixed_rate", SN_ATTR_BOOL, "false", NULL, NULL, false, 0, 0, NULL,
     "a CAM at every tick once gen_cam_min has passed (debugging)"},
    NOISE("noise_lat_stddev", "latitude noise, degrees"), BIAS("noise_lat_bias", "latitude bias, degrees"),
    NOISE("noise_lon_stddev", "longitude noise, degrees"), BIAS("noise_lon_bias", "longitude bias, degrees"),
    NOISE("noise_alt_stddev", "altitude noise, m"), BIAS("noise_alt_bias", "altitude bias, m"),
    NOISE("noise_head_stddev", "heading noise, degrees"), BIAS("noise_head_bias", "heading bias, degrees"),
    NOISE("noise_vel_stddev_x", "forward speed noise, m/s"),
    NOISE("noise_accel_stddev_x", "longitudinal acceleration noise, m/s^2"),
    NOISE("noise_accel_stddev_y", "lateral acceleration noise, m/s^2"),
    NOISE("noise_accel_stddev_z", "vertical acceleration noise, m/s^2"),
    NOISE("noise_yawrate_stddev", "yaw rate noise, rad/s"), BIAS("noise_yawrate_bias", "yaw rate bias, rad/s"),
};

static const sn_attr_def custom_attrs[] = {
    COMMON_ATTRS,
    {"channel_id", SN_ATTR_STRING, "Default", NULL, NULL, false, 0, 0, NULL,
     "only sensors on the same channel hear each other"},
};

static const sn_method_def custom_methods[] = {
    {"send", "send(text): transmit a text of at most 100 bytes once, at the sensor's next tick"},
};
static const sn_method_args custom_method_args[] = {{1, 1, SN_V2X_TEXT_MAX}}; /* found at scene load */

typedef struct v2x {
    const sn_host *h;
    sn_ctx *ctx;
    bool custom;
    sn_v2x_medium *m;
    sn_v2x_station *s;
    sn_v2x_cam_params cp;
    sn_v2x_cam_state cam;
    sn_v2x_outbox out;
} v2x;

/* ---- the class: one medium per engine ---- */

static sn_status class_create_cam(const sn_host *h, sn_ctx *cc, void **out)
{
    return sn_v2x_medium_create(h, cc, false, (sn_v2x_medium **)out);
}

static sn_status class_create_custom(const sn_host *h, sn_ctx *cc, void **out)
{
    return sn_v2x_medium_create(h, cc, true, (sn_v2x_medium **)out);
}

static void class_destroy(void *state) { sn_v2x_medium_destroy(state); }

static sn_status class_tick(void *state, sn_phase phase, bool after)
{
    sn_v2x_medium *m = state;
    if (phase != SN_PHASE_POST)
        return SN_OK;
    if (!after) {
        sn_v2x_medium_begin(m);
        return SN_OK;
    }
    return sn_v2x_medium_propagate(m);
}

/* ---- instances ---- */

static sn_status create(const sn_host *h, sn_ctx *ctx, void **out, bool custom)
{
    if (h->hdr.abi_minor < 3 || !h->class_state || !h->ray_batch || !h->write_packed) {
        h->set_error(ctx, "the V2X sensors need a host of ABI 1.3 (class state, ray batches, write_packed)");
        return SN_E_UNSUPPORTED;
    }
    v2x *v = calloc(1, sizeof *v);
    if (!v) {
        h->set_error(ctx, "out of memory");
        return SN_E_NOMEM;
    }
    v->h = h, v->ctx = ctx, v->custom = custom;
    v->m = h->class_state(ctx);
    v->s = v->m ? sn_v2x_medium_add(v->m) : NULL;
    if (v->s) {
        v->s->sensor_id = v->s->station_id = h->sensor_id(ctx);
        v->s->parent_kind = SN_ACTOR_SENSOR;
        v->s->name = sn_v2x_medium_name(v->m, h->sensor_name(ctx), false);
    }
    if (!v->s || v->s->name == UINT32_MAX) {
        if (v->s)
            sn_v2x_medium_remove(v->m, v->s);
        free(v);
        h->set_error(ctx, "out of memory joining the V2X medium");
        return SN_E_NOMEM;
    }
    *out = v;
    return SN_OK;
}

static sn_status create_cam(const sn_host *h, sn_ctx *ctx, void **out) { return create(h, ctx, out, false); }
static sn_status create_custom(const sn_host *h, sn_ctx *ctx, void **out) { return create(h, ctx, out, true); }

static void destroy(void *self)
{
    v2x *v = self;
    if (!v)
        return;
    sn_v2x_medium_remove(v->m, v->s);
    sn_v2x_outbox_free(&v->out);
    free(v);
}

static sn_status set(void *self, const sn_value *a, uint32_t n)
{
    v2x *v = self;
    sn_v2x_station *s = v->s;
    (void)n;
    sn_v2x_radio *r = &s->radio;
    r->tx_power = a[0].f;
    r->sensitivity = a[1].f;
    r->f_ghz = (double)(float)a[2].f; /* CARLA reads it into a float */
    r->gain = a[3].f;
    r->d_ref = a[4].f;
    r->exponent = a[5].f;
    r->filter = a[6].f;
    r->scenario = (sn_v2x_scenario)a[7].i;
    r->model = (sn_v2x_model)a[8].i;
    r->etsi_fading = a[9].b;
    r->custom_sigma = a[10].f;
    sn_v2x_radio_init(r);
    if (a[11].i)
        v->h->random_seed(v->ctx, (uint64_t)a[11].i);
    sn_v2x_rng_seed(&s->rng, v->h->random_u64(v->ctx));
    s->compact = a[13].i == 1;
    s->no_los_cache = !a[14].b;
    if (v->custom) {
        s->channel = sn_v2x_medium_name(v->m, a[N_COMMON].s ? a[N_COMMON].s : "", true);
        if (s->channel == UINT32_MAX) {
            v->h->set_error(v->ctx, "out of memory");
            return SN_E_NOMEM;
        }
        return SN_OK;
    }
    const sn_value *c = a + N_COMMON;
    if (c[0].f > c[1].f) {
        v->h->set_error(v->ctx, "gen_cam_min (%g s) must not exceed gen_cam_max (%g s)", c[0].f, c[1].f);
        return SN_E_RANGE;
    }
    sn_v2x_cam_params *p = &v->cp;
    p->gen_min_ns = llround(c[0].f * 1e9), p->gen_max_ns = llround(c[1].f * 1e9);
    p->fixed_rate = c[2].b;
    p->lat_sd = c[3].f, p->lat_bias = c[4].f, p->lon_sd = c[5].f, p->lon_bias = c[6].f;
    p->alt_sd = c[7].f, p->alt_bias = c[8].f, p->head_sd = c[9].f, p->head_bias = c[10].f;
    p->vel_sd = c[11].f;
    p->acc_sd[0] = c[12].f, p->acc_sd[1] = c[13].f, p->acc_sd[2] = c[14].f;
    p->yaw_sd = c[15].f, p->yaw_bias = c[16].f;
    return SN_OK;
}

static sn_status attach(void *self, uint32_t parent)
{
    v2x *v = self;
    sn_v2x_station_attach(v->m, v->s, parent);
    if (!v->custom)
        sn_v2x_cam_attach(&v->cam, v->h, v->ctx, parent);
    return SN_OK;
}

static sn_status tick(void *self, sn_phase phase)
{
    v2x *v = self;
    sn_v2x_station *s = v->s;
    if (phase != SN_PHASE_POST)
        return SN_OK;
    s->ticked = true;
    if (v->custom) {
        for (uint32_t i = 0; i < v->out.n; i++) {
            sn_v2x_msg *msg = sn_v2x_medium_transmit(v->m, s);
            if (!msg) {
                v->h->set_error(v->ctx, "out of memory transmitting");
                return SN_E_NOMEM;
            }
            msg->station_id = s->station_id, msg->sender = s->name, msg->sender_id = s->sensor_id, msg->message_id = 0;
            msg->len = v->out.q[i].len;
            memcpy(msg->text, v->out.q[i].data, msg->len);
        }
        v->out.n = 0;
        return SN_OK;
    }
    sn_v2x_cam cam;
    bool generated;
    sn_status st = sn_v2x_cam_tick(&v->cam, &v->cp, v->h, v->ctx, s->parent_id, &s->rng, &cam, &generated);
    if (st || !generated)
        return st;
    sn_v2x_msg *msg = sn_v2x_medium_transmit(v->m, s);
    if (!msg) {
        v->h->set_error(v->ctx, "out of memory transmitting");
        return SN_E_NOMEM;
    }
    msg->station_id = s->station_id, msg->sender = s->name, msg->sender_id = s->sensor_id, msg->message_id = 2;
    msg->cam = cam;
    return SN_OK;
}

static uint32_t pending(void *self)
{
    v2x *v = self;
    return sn_v2x_station_pending(v->m, v->s) ? 1 : 0;
}

static sn_status serialize(void *self, uint32_t index, sn_writer *w)
{
    v2x *v = self;
    (void)index;
    sn_status st = v->s->compact ? sn_v2x_write_compact(v->h, w, v->m, v->s, &v->m->columns)
                                 : sn_v2x_write_report(v->h, w, v->m, v->s);
    if (st == SN_E_NOMEM)
        v->h->set_error(v->ctx, "out of memory encoding a report");
    return st;
}

static sn_status call(void *self, const char *method, uint32_t argc, const char *const *argv)
{
    v2x *v = self;
    if (strcmp(method, "send") != 0) {
        v->h->set_error(v->ctx, "no method '%s' (sensor.other.v2x_custom has send)", method);
        return SN_E_NOT_FOUND;
    }
    return sn_v2x_custom_send(&v->out, v->h, v->ctx, argc, argv);
}

/* ---- the custom medium lent to other plugins (host->v2x_*, foreign.c) ---- */

static sn_status medium_join(void *state, uint32_t sensor_id, uint32_t parent_id, const char *name, uint64_t seed,
                             const sn_v2x_params *p, void **station, char *err, size_t err_cap)
{
    return sn_v2x_foreign_join(state, custom_attrs, sensor_id, parent_id, name, seed, p, station, err, err_cap);
}

static void medium_leave(void *state, void *station) { sn_v2x_foreign_leave(state, station); }

static sn_status medium_send(void *state, void *station, const void *payload, uint32_t size, char *err,
                             size_t err_cap)
{
    (void)state;
    return sn_v2x_foreign_send(station, payload, size, err, err_cap);
}

static sn_status medium_received(void *state, void *station, sn_v2x_message *out, uint32_t cap, uint32_t *n_found)
{
    (void)state;
    return sn_v2x_foreign_received(station, out, cap, n_found);
}

static const sn_v2x_medium_ops medium_ops = {
    .hdr = SN_ABI_HEADER(sn_v2x_medium_ops),
    .join = medium_join, .leave = medium_leave, .send = medium_send, .received = medium_received,
};

static const sn_sensor_class cam_class = {
    .hdr = SN_ABI_HEADER(sn_sensor_class),
    .blueprint = "sensor.other.v2x",
    .doc = "ETSI cooperative awareness messages (CAM) over CARLA's V2X channel model",
    .phases = SN_PHASE_POST,
    SN_ATTR_TABLE(cam_attrs),
    .value_size = sizeof(sn_value), .method_def_size = sizeof(sn_method_def),
    .create = create_cam, .destroy = destroy, .set = set, .attach = attach, .tick = tick,
    .pending = pending, .serialize = serialize,
    .class_create = class_create_cam, .class_destroy = class_destroy, .class_tick = class_tick,
};

static const sn_sensor_class custom_class = {
    .hdr = SN_ABI_HEADER(sn_sensor_class),
    .blueprint = "sensor.other.v2x_custom",
    .doc = "custom text messages (send) over CARLA's V2X channel model",
    .phases = SN_PHASE_POST,
    SN_ATTR_TABLE(custom_attrs), .value_size = sizeof(sn_value),
    SN_METHOD_TABLE(custom_methods),
    .method_args = custom_method_args,
    .create = create_custom, .destroy = destroy, .set = set, .attach = attach, .tick = tick,
    .pending = pending, .serialize = serialize, .call = call,
    .class_create = class_create_custom, .class_destroy = class_destroy, .class_tick = class_tick,
    .v2x_medium = &medium_ops,
};

static const sn_sensor_class *const classes[] = {&cam_class, &custom_class};
SN_PLUGIN_EXPORT(lib, "v2x", "1.0", classes)
