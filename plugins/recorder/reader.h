/* reader.h — the recording's reading side (sn_log_reader): file, index, seek and decode. */
#ifndef SN_RECORDER_READER_H
#define SN_RECORDER_READER_H

#include "codec.h"

#include <sensim/reader.h>
#include <sensim/grow.h>
#include <stdio.h>

extern const sn_log_reader rec_log_reader;

/* An actor alive in the decoded state; its add record's strings live in `block`. */
typedef struct rd_actor {
    sn_log_add add;
    char *block;
    bool has_ctl, has_walk, has_box, has_light, has_veh;
    uint8_t light; /* a traffic light's state */
    sn_log_vehicle veh; /* a vehicle's wheel angle and lights (version 1.3) */
    sn_vehicle_control ctl;
    double walk;
    sn_bbox box;
} rd_actor;

typedef struct rd_entry {
    uint64_t frame, offset;
    double elapsed, duration;
    uint8_t flags;
} rd_entry;

#define RD_ARRAY(T, name) T *name; uint32_t n_##name; size_t cap_##name

typedef struct rd_reader {
    FILE *f;
    uint64_t size, data_start;
    uint32_t vmajor, vminor;
    char *scene;
    char *map, *map_sha; /* 1.4 header fields; "" before */
    int64_t date;
    uint64_t seed;
    double dt;
    uint8_t hflags;
    rd_entry *idx;
    size_t n_idx, cap_idx;
    sn_log_end end;
    uint64_t end_offset;
    char end_reason[256];
    bool rebuilt;

    size_t cursor;        /* index entry next() yields */
    size_t decoded;       /* entries decoded into the channels so far (cursor when in step) */
    bool snapshot;        /* the next frame yielded is a snapshot */
    uint8_t *payload;
    size_t cap_payload;
    uint32_t payload_len;

    rd_actor **live;      /* sorted by id */
    size_t n_live, cap_live;
    rd_actor **dead;      /* removed since the last call; freed at the next */
    size_t n_dead, cap_dead;
    rec_channel pos, spos, kin;

    sn_log_frame fr;
    RD_ARRAY(sn_log_add, added);
    RD_ARRAY(uint32_t, destroyed);
    RD_ARRAY(sn_log_parent, reparented);
    RD_ARRAY(sn_log_collision, collisions);
    RD_ARRAY(sn_log_pose, poses);
    RD_ARRAY(sn_log_pose, sensor_poses);
    RD_ARRAY(sn_log_control, controls);
    RD_ARRAY(sn_log_walker, walkers);
    RD_ARRAY(sn_log_kinematics, kinematics);
    RD_ARRAY(sn_log_bbox, bboxes);
    RD_ARRAY(sn_log_light, lights);
    RD_ARRAY(sn_log_vehicle, vehicles);
    bool has_weather;     /* a Weather packet was decoded (version 1.2 files) */
    sn_weather weather;
    char err[512];
} rd_reader;

/* decode.c: one frame's payload (already checked) into the state and r->fr.
** events_only: apply adds, destroys and re-parents only (seek's fast path). */
sn_status rd_decode(rd_reader *r, const rd_entry *e, bool events_only);
void rd_state_clear(rd_reader *r);
void rd_free_dead(rd_reader *r);

#endif
