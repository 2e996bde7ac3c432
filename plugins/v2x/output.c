/*
** output.c — the layout of a V2X report (docs/sensors/v2x.md):
**   messages: [{power, los, sender, header: {protocol_version, message_id, station_id}, data}]  custom
**   messages: [{power, los, sender, cam: {header, generation_delta_time, basic_container,
**               high_frequency_container, low_frequency_container}}]                          CAM
** in the order received: earlier frames first, within a frame by sender station id.
*/
#include "output.h"

#define KEY(k) h->write_key(w, k)

static void write_header(const sn_host *h, sn_writer *w, const sn_v2x_msg *msg)
{
    KEY("header");
    h->write_map(w, 3);
    KEY("protocol_version"), h->write_uint(w, 2);
    KEY("message_id"), h->write_uint(w, msg->message_id);
    KEY("station_id"), h->write_uint(w, msg->station_id);
}

/* The `cam` value, encoded once per message and frame: a CAM is heard by hundreds of stations,
** and one write_packed call per reception costs a small part of the ~55 writes it replaces. */
static bool pack_cam(sn_pack_buf *b, const sn_v2x_msg *msg)
{
    const sn_v2x_cam *c = &msg->cam;
#define K(k) sn_pack_cstr(b, k)
    bool ok = sn_pack_map(b, 5) && K("header") && sn_pack_map(b, 3) && K("protocol_version") && sn_pack_uint(b, 2) &&
              K("message_id") && sn_pack_uint(b, msg->message_id) && K("station_id") && sn_pack_uint(b, msg->station_id) &&
              K("generation_delta_time") && sn_pack_uint(b, c->generation_delta_time) &&
              K("basic_container") && sn_pack_map(b, 2) && K("station_type") && sn_pack_uint(b, c->station_type) &&
              K("reference_position") && sn_pack_map(b, 7) && K("latitude") && sn_pack_int(b, c->latitude) &&
              K("longitude") && sn_pack_int(b, c->longitude) && K("altitude") && sn_pack_int(b, c->altitude) &&
              K("altitude_confidence") && sn_pack_uint(b, 15) && K("semi_major_confidence") && sn_pack_uint(b, 4095) &&
              K("semi_minor_confidence") && sn_pack_uint(b, 4095) && K("semi_major_orientation") && sn_pack_uint(b, 3601) &&
              K("high_frequency_container");
    if (ok && c->hf == SN_V2X_HF_VEHICLE)
        ok = sn_pack_map(b, 18) && K("type") && K("basic_vehicle") && K("heading") && sn_pack_int(b, c->heading) &&
             K("heading_confidence") && sn_pack_uint(b, 10) && K("speed") && sn_pack_int(b, c->speed) &&
             K("speed_confidence") && sn_pack_uint(b, 3) && K("drive_direction") && sn_pack_uint(b, c->drive_direction) &&
             K("vehicle_length") && sn_pack_int(b, c->length) && K("vehicle_length_confidence") && sn_pack_uint(b, 4) &&
             K("vehicle_width") && sn_pack_int(b, c->width) && K("longitudinal_acceleration") && sn_pack_int(b, c->lon_acc) &&
             K("lateral_acceleration") && sn_pack_int(b, c->lat_acc) && K("vertical_acceleration") &&
             sn_pack_int(b, c->vert_acc) && K("acceleration_confidence") && sn_pack_uint(b, 102) && K("curvature") &&
             sn_pack_uint(b, 30001) && K("curvature_confidence") && sn_pack_uint(b, 7) &&
             K("curvature_calculation_mode") && sn_pack_uint(b, 0) && K("yaw_rate") && sn_pack_int(b, c->yaw_rate) &&
             K("yaw_rate_confidence") && sn_pack_uint(b, 8);
    else if (ok && c->hf == SN_V2X_HF_RSU)
        ok = sn_pack_map(b, 2) && K("type") && K("rsu") && K("protected_zones") && sn_pack_array(b, 0);
    else if (ok)
        ok = sn_pack_nil(b);
    ok = ok && K("low_frequency_container");
    if (ok && c->lf)
        ok = sn_pack_map(b, 3) && K("vehicle_role") && sn_pack_uint(b, c->vehicle_role) && K("exterior_lights") &&
             sn_pack_uint(b, c->exterior_lights) && K("path_history") && sn_pack_array(b, 0);
    else if (ok)
        ok = sn_pack_nil(b);
#undef K
    return ok;
}

/* The CAM's bytes: this frame's are encoded at the first report that needs them and kept for
** the others; a carried one (a copy from an earlier frame) is encoded into the scratch buffer. */
static const unsigned char *cam_bytes(sn_v2x_medium *m, sn_v2x_msg *msg, bool this_frame, size_t *n)
{
    if (this_frame && msg->packed_len) {
        *n = msg->packed_len;
        return m->packed.data + msg->packed_at;
    }
    sn_pack_buf *b = this_frame ? &m->packed : &m->scratch;
    if (!this_frame)
        sn_pack_clear(b);
    size_t at = b->size;
    if (!pack_cam(b, msg) || b->size > UINT32_MAX)
        return NULL;
    if (this_frame)
        msg->packed_at = (uint32_t)at, msg->packed_len = (uint32_t)(b->size - at);
    *n = b->size - at;
    return b->data + at;
}

sn_status sn_v2x_write_report(const sn_host *h, sn_writer *w, sn_v2x_medium *m, const sn_v2x_station *s)
{
    uint32_t n = sn_v2x_station_pending(m, s), total = 0;
    for (uint32_t i = 0; i < n; i++) {
        const sn_v2x_msg *msgs;
        total += sn_v2x_station_rx(m, s, i, &msgs)->count;
    }
    KEY("messages");
    sn_status st = h->write_array(w, total);
    for (uint32_t i = 0; i < n && !st; i++) {
        const sn_v2x_msg *msgs;
        const sn_v2x_rx *rx = sn_v2x_station_rx(m, s, i, &msgs);
        for (uint32_t k = 0; k < rx->count && !st; k++) {
            /* the medium's own messages: const only through the station's view */
            sn_v2x_msg *msg = (sn_v2x_msg *)&msgs[rx->first + k];
            h->write_map(w, msg->message_id == 2 ? 4 : 5);
            KEY("power"), h->write_double(w, rx->power);
            KEY("los"), h->write_str(w, sn_v2x_los_name((sn_v2x_los)rx->los));
            KEY("sender"), h->write_str(w, m->names[msg->sender]);
            if (msg->message_id == 2) {
                size_t len;
                const unsigned char *bytes = cam_bytes(m, msg, msgs == m->msgs, &len);
                if (!bytes)
                    return SN_E_NOMEM; /* the caller says so */
                KEY("cam");
                st = h->write_packed(w, bytes, len);
            } else {
                write_header(h, w, msg);
                KEY("data");
                st = h->write_strn(w, msg->text, msg->len);
            }
        }
    }
    return st;
}
