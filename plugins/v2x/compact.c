/* compact.c — a V2X report as columns (compact.h):
**   receptions: n
**   power: bin, n float64 (dBm)     los: bin, n uint8 (0 LOS, 1 NLOSb, 2 NLOSv)
**   sender: bin, n uint32 (the sending sensor's id)
**   CAM:    cam: bin, n records of SN_V2X_CAM_RECORD bytes
**   custom: station_id: bin, n uint32; data: [n strings]
** every number little-endian, in the order received (as CARLA's layout). */
#include "compact.h"

#include <string.h>

static unsigned char *put_u32(unsigned char *d, uint32_t v)
{
    d[0] = (unsigned char)v, d[1] = (unsigned char)(v >> 8), d[2] = (unsigned char)(v >> 16), d[3] = (unsigned char)(v >> 24);
    return d + 4;
}

/* An int64 field saturated to int32 (only a bias of absurd size leaves the standard's ranges). */
static unsigned char *put_i32(unsigned char *d, int64_t v)
{
    v = v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : v;
    return put_u32(d, (uint32_t)(int32_t)v);
}

static void put_f64(unsigned char *d, double v)
{
    uint64_t u;
    memcpy(&u, &v, 8);
    put_u32(put_u32(d, (uint32_t)u), (uint32_t)(u >> 32));
}

static void cam_record(unsigned char *d, const sn_v2x_msg *msg)
{
    const sn_v2x_cam *c = &msg->cam;
    d = put_u32(d, msg->station_id);
    d = put_u32(d, c->generation_delta_time);
    const int64_t v[11] = {c->latitude, c->longitude, c->altitude, c->heading, c->speed, c->length, c->width,
                           c->lon_acc, c->lat_acc, c->vert_acc, c->yaw_rate};
    for (int i = 0; i < 11; i++)
        d = put_i32(d, v[i]);
    const unsigned char b[8] = {msg->message_id, c->station_type, c->hf, c->drive_direction, c->lf, c->vehicle_role,
                                c->exterior_lights, 0};
    memcpy(d, b, 8);
}

/* This frame's CAMs as records, each encoded once for its hundreds of receivers (NULL: no
** memory, then each reception encodes its own). */
static const unsigned char *frame_records(sn_v2x_medium *m)
{
    if (m->n_cam_records < m->n_msgs) {
        sn_pack_clear(&m->cam_records);
        unsigned char *d = sn_pack_room(&m->cam_records, (size_t)m->n_msgs * SN_V2X_CAM_RECORD);
        if (!d)
            return NULL;
        for (uint32_t k = 0; k < m->n_msgs; k++)
            cam_record(d + (size_t)k * SN_V2X_CAM_RECORD, &m->msgs[k]);
        m->n_cam_records = m->n_msgs;
    }
    return m->cam_records.data;
}

/* Reception i's message k, across the station's carried and this frame's receptions. */
#define EACH_MESSAGE(body)                                                                                \
    for (uint32_t i = 0; i < n_rx; i++) {                                                                 \
        const sn_v2x_msg *msgs;                                                                           \
        const sn_v2x_rx *rx = sn_v2x_station_rx(m, s, i, &msgs);                                          \
        for (uint32_t k = 0; k < rx->count; k++, at++) {                                                  \
            const sn_v2x_msg *msg = &msgs[rx->first + k];                                                 \
            (void)msg;                                                                                    \
            body;                                                                                         \
        }                                                                                                 \
    }

sn_status sn_v2x_write_compact(const sn_host *h, sn_writer *w, sn_v2x_medium *m, const sn_v2x_station *s,
                               sn_pack_buf *buf)
{
    uint32_t n_rx = sn_v2x_station_pending(m, s), n = 0, at = 0;
    for (uint32_t i = 0; i < n_rx; i++) {
        const sn_v2x_msg *msgs;
        n += sn_v2x_station_rx(m, s, i, &msgs)->count;
    }
    size_t rec = m->custom ? 4 : SN_V2X_CAM_RECORD; /* station ids, or CAM records */
    const unsigned char *records = m->custom || !n ? NULL : frame_records(m);
    sn_pack_clear(buf);
    unsigned char *d = sn_pack_room(buf, (size_t)n * (8 + 1 + 4 + rec));
    if (!d && n)
        return SN_E_NOMEM;
    unsigned char *power = d, *los = power + 8 * (size_t)n, *sender = los + n, *body = sender + 4 * (size_t)n;
    EACH_MESSAGE({
        put_f64(power + 8 * (size_t)at, rx->power);
        los[at] = rx->los;
        put_u32(sender + 4 * (size_t)at, msg->sender_id);
        if (m->custom)
            put_u32(body + 4 * (size_t)at, msg->station_id);
        else if (records && msgs == m->msgs)
            memcpy(body + rec * at, records + rec * (size_t)(msg - msgs), rec);
        else /* carried from an earlier frame */
            cam_record(body + rec * at, msg);
    });
    sn_status st = h->write_key(w, "receptions");
    st = st ? st : h->write_uint(w, n);
    st = st ? st : h->write_key(w, "power");
    st = st ? st : h->write_bin(w, power, 8 * (size_t)n);
    st = st ? st : h->write_key(w, "los");
    st = st ? st : h->write_bin(w, los, n);
    st = st ? st : h->write_key(w, "sender");
    st = st ? st : h->write_bin(w, sender, 4 * (size_t)n);
    st = st ? st : h->write_key(w, m->custom ? "station_id" : "cam");
    st = st ? st : h->write_bin(w, body, rec * n);
    if (st || !m->custom)
        return st;
    st = h->write_key(w, "data");
    st = st ? st : h->write_array(w, n);
    at = 0;
    EACH_MESSAGE(if (!st) st = h->write_strn(w, msg->text, msg->len));
    return st;
}
