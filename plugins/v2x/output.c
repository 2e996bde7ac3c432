/*
** output.c — the layout of a V2X report (README, V2X):
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

static void write_cam(const sn_host *h, sn_writer *w, const sn_v2x_msg *msg)
{
    const sn_v2x_cam *c = &msg->cam;
    h->write_map(w, 5);
    write_header(h, w, msg);
    KEY("generation_delta_time"), h->write_uint(w, c->generation_delta_time);
    KEY("basic_container");
    h->write_map(w, 2);
    KEY("station_type"), h->write_uint(w, c->station_type);
    KEY("reference_position");
    h->write_map(w, 7);
    KEY("latitude"), h->write_int(w, c->latitude);
    KEY("longitude"), h->write_int(w, c->longitude);
    KEY("altitude"), h->write_int(w, c->altitude);
    KEY("altitude_confidence"), h->write_uint(w, 15);
    KEY("semi_major_confidence"), h->write_uint(w, 4095);
    KEY("semi_minor_confidence"), h->write_uint(w, 4095);
    KEY("semi_major_orientation"), h->write_uint(w, 3601);
    KEY("high_frequency_container");
    if (c->hf == SN_V2X_HF_VEHICLE) {
        h->write_map(w, 18);
        KEY("type"), h->write_str(w, "basic_vehicle");
        KEY("heading"), h->write_int(w, c->heading);
        KEY("heading_confidence"), h->write_uint(w, 10);
        KEY("speed"), h->write_int(w, c->speed);
        KEY("speed_confidence"), h->write_uint(w, 3);
        KEY("drive_direction"), h->write_uint(w, c->drive_direction);
        KEY("vehicle_length"), h->write_int(w, c->length);
        KEY("vehicle_length_confidence"), h->write_uint(w, 4);
        KEY("vehicle_width"), h->write_int(w, c->width);
        KEY("longitudinal_acceleration"), h->write_int(w, c->lon_acc);
        KEY("lateral_acceleration"), h->write_int(w, c->lat_acc);
        KEY("vertical_acceleration"), h->write_int(w, c->vert_acc);
        KEY("acceleration_confidence"), h->write_uint(w, 102);
        KEY("curvature"), h->write_uint(w, 30001);
        KEY("curvature_confidence"), h->write_uint(w, 7);
        KEY("curvature_calculation_mode"), h->write_uint(w, 0);
        KEY("yaw_rate"), h->write_int(w, c->yaw_rate);
        KEY("yaw_rate_confidence"), h->write_uint(w, 8);
    } else if (c->hf == SN_V2X_HF_RSU) {
        h->write_map(w, 2);
        KEY("type"), h->write_str(w, "rsu");
        KEY("protected_zones"), h->write_array(w, 0);
    } else {
        h->write_nil(w);
    }
    KEY("low_frequency_container");
    if (c->lf) {
        h->write_map(w, 3);
        KEY("vehicle_role"), h->write_uint(w, c->vehicle_role);
        KEY("exterior_lights"), h->write_uint(w, c->exterior_lights);
        KEY("path_history"), h->write_array(w, 0);
    } else {
        h->write_nil(w);
    }
}

sn_status sn_v2x_write_report(const sn_host *h, sn_writer *w, const sn_v2x_medium *m, const sn_v2x_station *s)
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
            const sn_v2x_msg *msg = &msgs[rx->first + k];
            h->write_map(w, msg->message_id == 2 ? 4 : 5);
            KEY("power"), h->write_double(w, rx->power);
            KEY("los"), h->write_str(w, sn_v2x_los_name((sn_v2x_los)rx->los));
            KEY("sender"), h->write_str(w, m->names[msg->sender]);
            if (msg->message_id == 2) {
                KEY("cam");
                write_cam(h, w, msg);
            } else {
                write_header(h, w, msg);
                KEY("data");
                st = h->write_strn(w, msg->text, msg->len);
            }
        }
    }
    return st;
}
