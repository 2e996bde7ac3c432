/* sensor.test.v2x_probe — another plugin on the engine's V2X medium (host->v2x_join, v2x_send,
** v2x_received; ABI 1.6), for test_v2x_host: joins in set() (twice with join_twice), sends
** send_size bytes (byte i = i * 7 + its id) at every tick, and reports what it received. */
#include <sensim/plugin.h>

#include <stdlib.h>
#include <string.h>

static const sn_attr_def attrs[] = {
    {"join", SN_ATTR_BOOL, "true", NULL, NULL, false, 0, 0, NULL, "join the medium in set()"},
    {"join_twice", SN_ATTR_BOOL, "false", NULL, NULL, false, 0, 0, NULL, "join again (refused)"},
    {"channel", SN_ATTR_STRING, "Default", NULL, NULL, false, 0, 0, NULL, "channel_id"},
    {"filter", SN_ATTR_FLOAT, "500", NULL, NULL, true, 0, 1e6, "m", "filter_distance (the medium's range is narrower)"},
    {"sensitivity", SN_ATTR_FLOAT, "-99", NULL, NULL, true, -300, 100, "dBm", "receiver_sensitivity"},
    {"send_size", SN_ATTR_INT, "0", NULL, NULL, true, 0, 100000, "B", "bytes sent at each tick"},
};

#define MAX_RX 16

typedef struct probe {
    const sn_host *h;
    sn_ctx *ctx;
    uint32_t id, send_size, n_rx, n_found;
    sn_v2x_message rx[MAX_RX];
    bool intact[MAX_RX];
    unsigned char *buf;
} probe;

static sn_status create(const sn_host *h, sn_ctx *ctx, void **out)
{
    probe *p = calloc(1, sizeof *p);
    if (!p)
        return SN_E_NOMEM;
    p->h = h, p->ctx = ctx, p->id = h->sensor_id(ctx);
    *out = p;
    return SN_OK;
}

static void destroy(void *self)
{
    probe *p = self;
    if (p)
        free(p->buf);
    free(p);
}

static sn_status set(void *self, const sn_value *v, uint32_t n)
{
    probe *p = self;
    (void)n;
    p->send_size = (uint32_t)v[5].i;
    if (p->send_size && !(p->buf = malloc(p->send_size)))
        return SN_E_NOMEM;
    for (uint32_t i = 0; i < p->send_size; i++)
        p->buf[i] = (unsigned char)(i * 7 + p->id);
    if (!v[0].b)
        return SN_OK;
    sn_v2x_params q = SN_V2X_PARAMS_INIT;
    q.channel_id = v[2].s, q.filter_distance = v[3].f, q.receiver_sensitivity = v[4].f;
    q.use_etsi_fading = false; /* no fading: powers the test derives */
    sn_status st = p->h->v2x_join(p->ctx, &q);
    return st || !v[1].b ? st : p->h->v2x_join(p->ctx, &q);
}

static sn_status tick(void *self, sn_phase phase)
{
    probe *p = self;
    (void)phase;
    sn_status st = p->send_size ? p->h->v2x_send(p->ctx, p->buf, p->send_size) : SN_OK;
    if (st)
        return st;
    p->rx[0].struct_size = sizeof p->rx[0];
    if ((st = p->h->v2x_received(p->ctx, p->rx, MAX_RX, &p->n_found)))
        return st;
    p->n_rx = p->n_found < MAX_RX ? p->n_found : MAX_RX;
    for (uint32_t i = 0; i < p->n_rx; i++) { /* the sender's pattern, byte for byte */
        const unsigned char *b = p->rx[i].payload;
        p->intact[i] = true;
        for (uint32_t k = 0; k < p->rx[i].size; k++)
            p->intact[i] = p->intact[i] && b[k] == (unsigned char)(k * 7 + p->rx[i].sender_id);
    }
    return SN_OK;
}

static sn_status serialize(void *self, uint32_t index, sn_writer *w)
{
    probe *p = self;
    const sn_host *h = p->h;
    (void)index;
    h->write_key(w, "heard");
    h->write_array(w, p->n_rx);
    for (uint32_t i = 0; i < p->n_rx; i++) {
        const sn_v2x_message *m = &p->rx[i];
        h->write_map(w, 8);
        h->write_key(w, "sender"), h->write_uint(w, m->sender_id);
        h->write_key(w, "station"), h->write_uint(w, m->station_id);
        h->write_key(w, "power"), h->write_double(w, m->power);
        h->write_key(w, "los"), h->write_uint(w, m->los);
        h->write_key(w, "frame"), h->write_uint(w, m->frame);
        h->write_key(w, "time_ns"), h->write_int(w, m->time_ns);
        h->write_key(w, "size"), h->write_uint(w, m->size);
        h->write_key(w, "intact"), h->write_bool(w, p->intact[i]);
    }
    return SN_OK;
}

static const sn_sensor_class probe_class = {
    .hdr = SN_ABI_HEADER(sn_sensor_class),
    .blueprint = "sensor.test.v2x_probe",
    .doc = "another plugin on the engine's V2X medium",
    .phases = SN_PHASE_POST,
    SN_ATTR_TABLE(attrs),
    .value_size = sizeof(sn_value),
    .create = create, .destroy = destroy, .set = set, .tick = tick, .serialize = serialize,
};
static const sn_sensor_class *const classes[] = {&probe_class};
SN_PLUGIN_EXPORT(lib, "v2x_probe", "1.0", classes)
