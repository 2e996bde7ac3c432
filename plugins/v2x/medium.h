/*
** medium.h — the radio medium of one V2X class in one engine: its stations, this frame's
** transmissions, and the propagation that turns them into receptions. It lives in the class
** state (host->class_state), so two engines never share a medium and no static holds any of it.
**
** Per frame: class_tick(POST, before) clears the last frame; each sensor's POST tick places its
** transmissions (sn_v2x_medium_transmit); class_tick(POST, after) propagates them
** (sn_v2x_medium_propagate): stations within each receiver's filter_distance are found through
** a grid, their line of sight is traced in one ray batch, the receiver's loss and fading give
** the received power. A station that ticked this frame reports what it received since its last
** report; one that did not keeps it for its next tick.
*/
#ifndef SN_V2X_MEDIUM_H
#define SN_V2X_MEDIUM_H

#include "channel.h"
#include "grid.h"
#include "loscache.h"
#include "msg.h"
#include "rng.h"

#include <sensim/pack.h>
#include <sensim/plugin.h>
#include <sensim/grow.h>
#include <sensim/v2x.h>

/* One reception: the messages one sender transmitted in one frame, at one received power. */
typedef struct sn_v2x_rx {
    double power;   /* dBm */
    uint8_t los;    /* sn_v2x_los */
    uint32_t first; /* messages [first, first + count) of the frame pool, or of the station's carried pool */
    uint32_t count;
} sn_v2x_rx;

typedef struct sn_v2x_station {
    uint32_t sensor_id, station_id, parent_id;
    uint8_t parent_kind;     /* sn_actor_kind of the parent (SN_ACTOR_SENSOR when free-standing) */
    uint32_t name;           /* index into the medium's names */
    uint32_t channel;        /* interned channel_id (custom messages); 0 for CAM */
    sn_v2x_radio radio;
    sn_v2x_rng rng;          /* fading and CAM noise */
    /* where the antenna is this frame */
    sn_vec3 pos;
    double ground;           /* z of the ground under it: the bottom of its parent's box, 0 when free */
    bool placed;
    bool ticked;             /* its POST tick ran this frame: it reports */
    bool compact;            /* report_layout compact (compact.h), else CARLA's */
    bool no_los_cache;       /* los_cache: false (loscache.h) */
    uint32_t tx_first, tx_count; /* this frame's transmissions in the medium's pool */
    uint32_t rx_first, rx_count; /* this frame's receptions in the medium's list */
    /* receptions of frames in which it did not tick, copied, for its next report */
    sn_v2x_rx *carried;
    uint32_t n_carried, cap_carried;
    sn_v2x_msg *carried_msgs;
    uint32_t n_cmsgs, cap_cmsgs;
    /* Another plugin's station (host->v2x_join; foreign.c): it never ticks here. Its payloads
    ** wait in the outbox until the propagation; what reached it there stays in the inbox (the
    ** payloads' bytes in in_bytes) until the next. */
    bool foreign;
    sn_pack_buf out_bytes;
    uint32_t *out_len, n_out, cap_out;
    sn_v2x_message *in;
    uint32_t *in_at;         /* in[i]'s payload at in_bytes.data + in_at[i] */
    uint32_t n_in, cap_in, cap_in_at;
    sn_pack_buf in_bytes;
} sn_v2x_station;

/* A transmitter as find_pairs reads it, in the grid's slot order: position (NaN when not placed),
** station and channel, side by side instead of behind a station pointer. */
typedef struct sn_v2x_slot {
    double x, y, z;
    uint32_t station, channel;
} sn_v2x_slot;

/* find_pairs' work of one task: its receivers' pairs, before they go to the medium's arrays. */
typedef struct sn_v2x_pair_task {
    uint64_t *cand;          /* one receiver's candidate transmitters, a bit each */
    double *cand_d;          /* ... and their distances */
    uint32_t cap_cand, cap_cand_d;
    uint32_t *senders;       /* its pairs, as the medium's */
    double *dist;
    uint32_t n, cap;
    uint32_t at;             /* where they go in the medium's arrays */
    uint32_t *cursor;        /* los.c find_mirrors: per station, where its group is read */
    uint32_t cap_cursor;
    bool oom;
} sn_v2x_pair_task;

#define SN_V2X_PAIR_TASKS 8

typedef struct sn_v2x_medium {
    const sn_host *host;
    sn_ctx *ctx;             /* the class context: actors, rays, clock */
    bool custom;             /* carries custom messages (channels apply) */
    sn_v2x_station **st;     /* registered stations, in registration order */
    uint32_t n_st, cap_st;
    sn_v2x_station **order;  /* the same, sorted by (station id, sensor id) */
    uint32_t cap_order;
    bool dirty;              /* order must be rebuilt */
    char **names;            /* sensor names and channel ids; kept until the class ends */
    uint32_t n_names, cap_names;
    sn_v2x_msg *msgs;        /* this frame's transmissions */
    uint32_t n_msgs, cap_msgs;
    sn_pack_buf packed;      /* this frame's CAMs, encoded (msg.h packed_at) */
    sn_pack_buf scratch;     /* a carried CAM, encoded for one report */
    sn_pack_buf columns;     /* one compact report's columns (compact.c) */
    sn_pack_buf cam_records; /* this frame's CAMs as compact records, msgs' order (compact.c) */
    uint32_t n_cam_records;  /* how many of msgs are encoded there (0 at each frame's start) */
    /* This frame's sender-receiver pairs, the sender within the receiver's filter distance: the
    ** pairs into station i are [r_start[i], r_start[i + 1]), in sender order. One array per
    ** field, so that each pass streams only what it reads. */
    uint32_t *senders;       /* the sender (index into order) */
    double *dist;            /* 3D distance between the antennas, m */
    uint8_t *los;            /* sn_v2x_los */
    double *ke;              /* largest knife-edge loss (dB); written only where los is NLOSv */
    uint32_t n_pairs, cap_pairs; /* cap_pairs: of each */
    uint32_t *r_start, cap_r_start;
    sn_v2x_pair_task pt[SN_V2X_PAIR_TASKS];
    uint32_t pair_tasks, pair_per; /* find_pairs' split: tasks of pair_per receivers (los.c reuses it) */
    sn_v2x_rx *rx;           /* this frame's receptions: station order[i]'s from r_start[i] on */
    uint32_t cap_rx;
    uint32_t *tx;            /* sorted indices of the stations that transmit this frame */
    uint32_t cap_tx;
    sn_v2x_grid grid;        /* over the transmitters (tx) */
    double *xy;              /* the transmitters' horizontal positions, for the grid */
    uint32_t cap_xy;
    sn_v2x_slot *slots;      /* grid.items[q]'s transmitter at slots[q] */
    uint32_t cap_slots;
    /* line-of-sight work buffers (los.c) */
    sn_ray *rays;
    sn_ray_result *res;
    uint32_t *ray_pair, *ray_recv; /* ray k's pair and its receiver */
    uint32_t cap_rays;
    uint32_t *mirror;        /* per pair: the pair of the same two antennas the other way, traced for both */
    uint32_t cap_mirror;
    sn_ray_hit *hits;
    uint32_t cap_hits;
    uint32_t skip_batch0;    /* frames with rays left before los.c's batch 0 runs again */
    sn_v2x_loscache los_cache; /* last tick's line of sight (loscache.h) */
    sn_pack_buf payloads;    /* this frame's foreign payloads (msg payload_at) */
    uint32_t n_foreign;      /* foreign stations joined */
    /* counters, for the benchmark and tests */
    uint64_t rays_cast, pairs_seen;
} sn_v2x_medium;

sn_status sn_v2x_medium_create(const sn_host *host, sn_ctx *ctx, bool custom, sn_v2x_medium **out);
void sn_v2x_medium_destroy(sn_v2x_medium *m);

/* A new station (zeroed, registered), or NULL out of memory. */
sn_v2x_station *sn_v2x_medium_add(sn_v2x_medium *m);
void sn_v2x_medium_remove(sn_v2x_medium *m, sn_v2x_station *s);
/* Station s (sensor_id set) rides on `parent` (0: free-standing): its station id and parent kind. */
void sn_v2x_station_attach(sn_v2x_medium *m, sn_v2x_station *s, uint32_t parent);
/* Keeps a copy of a string for the medium's lifetime; its index, or UINT32_MAX out of memory.
** With `intern`, an equal string kept before is reused (channel ids). */
uint32_t sn_v2x_medium_name(sn_v2x_medium *m, const char *s, bool intern);
/* A message slot for station s this frame (its transmissions are contiguous), or NULL. */
sn_v2x_msg *sn_v2x_medium_transmit(sn_v2x_medium *m, sn_v2x_station *s);

/* class_tick(POST, before): forget the last frame. */
void sn_v2x_medium_begin(sn_v2x_medium *m);
/* class_tick(POST, after): propagate this frame's transmissions. */
sn_status sn_v2x_medium_propagate(sn_v2x_medium *m);

/* What station s reports this frame: its receptions in order; the message of each. */
uint32_t sn_v2x_station_pending(const sn_v2x_medium *m, const sn_v2x_station *s);
const sn_v2x_rx *sn_v2x_station_rx(const sn_v2x_medium *m, const sn_v2x_station *s, uint32_t i,
                                   const sn_v2x_msg **msgs);

/* fn(arg, 0..tasks-1) on the host's workers, or here. */
sn_status sn_v2x_run_tasks(sn_v2x_medium *m, void (*fn)(void *, uint32_t), void *arg, uint32_t tasks);

/* Line of sight of pairs [0, n) (los.c): los and ke of each. */
sn_status sn_v2x_los_classify(sn_v2x_medium *m);

/* Foreign stations (foreign.c): the payloads queued since the last propagation become this
** frame's messages (before it), and what reached each goes to its inbox (after it). */
sn_status sn_v2x_foreign_flush(sn_v2x_medium *m);
sn_status sn_v2x_foreign_deliver(sn_v2x_medium *m);
void sn_v2x_foreign_free(sn_v2x_station *s);

#endif
