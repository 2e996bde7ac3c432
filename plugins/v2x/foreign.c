/*
** foreign.c — other plugins' stations on the custom medium (host->v2x_join, sensim/v2x.h).
**
** A foreign station is a station like a sensor.other.v2x_custom one (its antenna where its
** sensor is, its radio, its own fading generator), on a channel of its own namespace, so the
** text sensors' reports never carry another plugin's bytes. Its payloads wait in the outbox
** until the frame's propagation, become messages of the frame there (after every sensor's, in
** registration order), and what reached it is copied to its inbox, which its plugin reads in
** the next frame's ticks.
*/
#include "foreign.h"

#include <stdio.h>
#include <string.h>

void sn_v2x_foreign_free(sn_v2x_station *s)
{
    sn_pack_free(&s->out_bytes), sn_pack_free(&s->in_bytes);
    free(s->out_len), free(s->in), free(s->in_at);
}

/* "\x1f" + channel: no attribute value holds a control character, so no v2x_custom sensor shares it. */
static uint32_t channel_of(sn_v2x_medium *m, const char *channel)
{
    char buf[256];
    int n = snprintf(buf, sizeof buf, "\x1f%s", channel ? channel : "Default");
    if (n < 0 || (size_t)n >= sizeof buf)
        return UINT32_MAX - 1;
    return sn_v2x_medium_name(m, buf, true);
}

sn_status sn_v2x_foreign_join(sn_v2x_medium *m, const sn_attr_def *range, uint32_t sensor_id, uint32_t parent_id,
                              const char *name, uint64_t seed, const sn_v2x_params *p, void **station, char *err,
                              size_t err_cap)
{
    const double v[] = {p->transmit_power, p->receiver_sensitivity, p->frequency_ghz, p->combined_antenna_gain,
                        p->d_ref, p->path_loss_exponent, p->filter_distance};
    for (uint32_t i = 0; i < sizeof v / sizeof v[0]; i++)
        if (!(v[i] >= range[i].min && v[i] <= range[i].max)) {
            snprintf(err, err_cap, "v2x_join: %s %g is outside [%g, %g]", range[i].name, v[i], range[i].min,
                     range[i].max);
            return SN_E_RANGE;
        }
    if (p->scenario > SN_V2X_URBAN || p->path_loss_model > SN_V2X_GEOMETRIC ||
        !(p->custom_fading_stddev >= 0 && p->custom_fading_stddev <= 100)) {
        snprintf(err, err_cap, "v2x_join: scenario %u (0..2), path_loss_model %u (0..1) or custom_fading_stddev %g "
                 "(0..100) out of range", p->scenario, p->path_loss_model, p->custom_fading_stddev);
        return SN_E_RANGE;
    }
    sn_v2x_station *s = sn_v2x_medium_add(m);
    if (!s) {
        snprintf(err, err_cap, "v2x_join: out of memory");
        return SN_E_NOMEM;
    }
    s->foreign = true;
    s->sensor_id = sensor_id;
    sn_v2x_station_attach(m, s, parent_id);
    /* as set() in v2x.c: the same settings make the same radio */
    sn_v2x_radio *r = &s->radio;
    r->tx_power = p->transmit_power, r->sensitivity = p->receiver_sensitivity;
    r->f_ghz = (double)(float)p->frequency_ghz, r->gain = p->combined_antenna_gain;
    r->d_ref = p->d_ref, r->exponent = p->path_loss_exponent, r->filter = p->filter_distance;
    r->scenario = (sn_v2x_scenario)p->scenario, r->model = (sn_v2x_model)p->path_loss_model;
    r->etsi_fading = p->use_etsi_fading, r->custom_sigma = p->custom_fading_stddev;
    sn_v2x_radio_init(r);
    sn_v2x_rng_seed(&s->rng, seed);
    s->name = sn_v2x_medium_name(m, name, false);
    s->channel = channel_of(m, p->channel_id);
    if (s->name == UINT32_MAX || s->channel >= UINT32_MAX - 1) {
        bool long_id = s->channel == UINT32_MAX - 1;
        sn_v2x_medium_remove(m, s);
        snprintf(err, err_cap, long_id ? "v2x_join: channel_id longer than 250 bytes" : "v2x_join: out of memory");
        return long_id ? SN_E_RANGE : SN_E_NOMEM;
    }
    m->n_foreign++;
    *station = s;
    return SN_OK;
}

void sn_v2x_foreign_leave(sn_v2x_medium *m, sn_v2x_station *s)
{
    m->n_foreign--;
    sn_v2x_medium_remove(m, s);
}

sn_status sn_v2x_foreign_send(sn_v2x_station *s, const void *payload, uint32_t size, char *err, size_t err_cap)
{
    if (!payload || size == 0 || size > SN_V2X_PAYLOAD_MAX) {
        snprintf(err, err_cap, "v2x_send: a payload of %u bytes%s (1..%u)", size, payload ? "" : " at NULL",
                 SN_V2X_PAYLOAD_MAX);
        return SN_E_RANGE;
    }
    if (!SN_GROW32(s->out_len, s->cap_out, s->n_out + 1) || !sn_pack_raw(&s->out_bytes, payload, size)) {
        snprintf(err, err_cap, "v2x_send: out of memory");
        return SN_E_NOMEM;
    }
    s->out_len[s->n_out++] = size;
    return SN_OK;
}

sn_status sn_v2x_foreign_flush(sn_v2x_medium *m)
{
    for (uint32_t i = 0; i < m->n_st; i++) {
        sn_v2x_station *s = m->st[i];
        if (!s->foreign || !s->n_out)
            continue;
        size_t at = 0;
        for (uint32_t k = 0; k < s->n_out; k++) {
            size_t base = m->payloads.size;
            sn_v2x_msg *msg = sn_v2x_medium_transmit(m, s);
            if (!msg || !sn_pack_raw(&m->payloads, s->out_bytes.data + at, s->out_len[k]) || base > UINT32_MAX)
                return SN_E_NOMEM;
            msg->station_id = s->station_id, msg->sender = s->name, msg->sender_id = s->sensor_id;
            msg->payload_at = (uint32_t)base, msg->payload_len = s->out_len[k];
            at += s->out_len[k];
        }
        s->n_out = 0;
        sn_pack_clear(&s->out_bytes);
    }
    return SN_OK;
}

/* Station s's receptions of this propagation into its inbox, payloads copied. */
static sn_status deliver(sn_v2x_medium *m, sn_v2x_station *s, const sn_clock *clk)
{
    s->n_in = 0;
    sn_pack_clear(&s->in_bytes);
    for (uint32_t i = 0; i < s->rx_count; i++) { /* never carried: it does not tick here */
        const sn_v2x_rx *e = &m->rx[s->rx_first + i];
        for (uint32_t k = 0; k < e->count; k++) {
            const sn_v2x_msg *g = &m->msgs[e->first + k];
            size_t at = s->in_bytes.size;
            if (!SN_GROW32(s->in, s->cap_in, s->n_in + 1) || !SN_GROW32(s->in_at, s->cap_in_at, s->n_in + 1) ||
                !sn_pack_raw(&s->in_bytes, m->payloads.data + g->payload_at, g->payload_len) || at > UINT32_MAX)
                return SN_E_NOMEM;
            s->in[s->n_in] = (sn_v2x_message){.struct_size = sizeof(sn_v2x_message), .sender_id = g->sender_id,
                                              .station_id = g->station_id, .los = e->los, .power = e->power,
                                              .frame = clk ? clk->frame : 0, .time_ns = clk ? clk->time_ns : 0,
                                              .size = g->payload_len};
            s->in_at[s->n_in++] = (uint32_t)at;
        }
    }
    return SN_OK;
}

sn_status sn_v2x_foreign_deliver(sn_v2x_medium *m)
{
    const sn_clock *clk = m->host->clock(m->ctx);
    for (uint32_t i = 0; i < m->n_st; i++)
        if (m->st[i]->foreign) {
            sn_status st = deliver(m, m->st[i], clk);
            if (st)
                return st;
        }
    return SN_OK;
}

sn_status sn_v2x_foreign_received(const sn_v2x_station *s, sn_v2x_message *out, uint32_t cap, uint32_t *n_found)
{
    *n_found = s->n_in;
    size_t stride = out && cap ? out[0].struct_size : 0;
    if (cap && (!out || stride < offsetof(sn_v2x_message, size) + sizeof(uint32_t)))
        return SN_E_INVALID;
    size_t n = stride < sizeof(sn_v2x_message) ? stride : sizeof(sn_v2x_message);
    for (uint32_t i = 0; i < s->n_in && i < cap; i++) {
        sn_v2x_message msg = s->in[i];
        msg.struct_size = (uint32_t)stride;
        msg.payload = s->in_bytes.data + s->in_at[i];
        memcpy((char *)out + i * stride, &msg, n);
    }
    return SN_OK;
}
