/* mcap_view.h — inside the MCAP view: the state one export or --mcap run shares between
** mcap_view.c (frames, channels, commit), mcap_fox.c (sensor messages as Foxglove messages)
** and mcap_scene.c (actors, transform tree, map lines). */
#ifndef SN_VIEWS_MCAP_VIEW_H
#define SN_VIEWS_MCAP_VIEW_H

#include <sensim/mcap.h>

#include "buf.h"
#include <sensim/math.h>
#include "mcap_pool.h"
#include "mcap_write.h"

#include "../data/image.h"
#include "../data/layouts.h"
#include "../data/png_share.h"

#include "../data/mpkey.h"

#include <msgpack.h>
#include <pthread.h>

typedef struct sn_pending {
    bool later;      /* not the actors stream: the actors message of a frame goes first (the tree) */
    uint32_t sensor_id, seq;
    size_t off, len; /* in sn_mcap.frame_bytes */
    uint64_t ticket; /* the PNG `save:` makes of it (png_share.h), through ticket_conv; 0: none */
    sn_converter ticket_conv;
} sn_pending;

/* A message handed over by sn_mcap_listen (a copy: the engine's buffer is reused). */
typedef struct sn_inbox_entry {
    sn_buf bytes;
    uint64_t frame;
    uint32_t sensor_id;
    bool actors;
    uint64_t ticket; /* as in sn_pending */
    sn_converter ticket_conv;
} sn_inbox_entry;
#define SN_MCAP_INBOX 16

/* An actor's rotation (its record's, bit for bit), its matrix and its Foxglove quaternion. */
typedef struct sn_rot_memo {
    uint32_t id;
    double rot[3];
    sn_mat3 R;
    double q[4];
} sn_rot_memo;

typedef struct sn_id_set {
    uint32_t *ids; /* ascending */
    size_t n, cap;
} sn_id_set;

/* A camera whose run saved its pictures as PNG: dir/pattern(frame), through conv. */
typedef struct sn_mcap_saved {
    char *sensor, *pattern;
    sn_converter conv;
} sn_mcap_saved;

struct sn_mcap {
    char *path, *part;
    sn_bin_layout *extra; /* record layouts plugins declare (sn_mcap_add_layouts), one block; owned */
    size_t n_extra;
    bool layouts_lazy;    /* an export: the search path's plugins are opened for their layouts at the
                          ** first message that could use one (cameras, lidar, actors never do) */
    FILE *f;
    sn_mcapw *w;
    sn_mcap_pool *pool;   /* every message goes out through it, in order */
    const void *cur;      /* the message being converted, its bytes (images are made from them) */
    size_t cur_len;
    bool cur_stays;       /* cur stays valid until the file is closed (an export's mapped stream) */
    uint64_t ticket;      /* its shared PNG's ticket, until an image job takes it (png_share.h) */
    sn_converter ticket_conv;
    int zstd_level;
    bool raw_images;
    bool overwrite;       /* rename over an existing file at close; else link(2), which refuses one */
    sn_converter depth;
    sn_status failed;     /* the listener's first failure (under mu once the thread runs) */
    sn_error fail_err;
    /* sn_mcap_listen's own thread: the engine's thread only copies each message into the inbox,
    ** the file's thread orders, converts and writes (started at the first message) */
    bool threaded, stop;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t more, room;
    sn_inbox_entry inbox[SN_MCAP_INBOX];
    size_t in_head, in_tail;
    /* the frame being gathered (live runs) */
    uint64_t frame;
    bool have_frame;
    sn_pending *pend;
    size_t n_pend, cap_pend;
    sn_buf frame_bytes;
    /* per message */
    msgpack_unpacked unp;
    sn_buf out;           /* the protobuf or JSON message being built */
    uint8_t *points;      /* converted point records */
    size_t points_cap;
    /* scene */
    bool seen_actors;     /* an actors stream gives the transform tree; else each sensor's message */
    sn_id_set boxes[2];   /* entities of the previous scene update: moving [0], static [1] */
    sn_buf statics;       /* the static actors' records last written (written again when they change) */
    sn_id_set spare_ids;  /* kept for the next update's ids (no allocation per frame) */
    sn_buf statics_now;   /* the current message's static records, swapped with statics */
    bool have_statics;
    /* per record of the current actors message: its rotation's matrix and Foxglove quaternion,
    ** taken from the previous message's (prev_rot) when the actor has not turned */
    sn_rot_memo *rot, *prev_rot;
    size_t n_rot, cap_rot, n_prev_rot, cap_prev_rot;
    uint8_t *is_static;   /* per record of the current actors message */
    size_t static_cap;
    sn_buf map_update;    /* the map's SceneUpdate, written with the first frame */
    bool map_written;
    /* an export: the PNG files the run's `save:` wrote (run.json "saved"), taken instead of
    ** encoding the pictures again (issue 36 item 5) */
    char *run_dir;
    sn_mcap_saved *saved;
    size_t n_saved;
};

/* The topic's channel, registering schema and channel on first use ("json" encodings carry a
** JSON schema named `schema`). UINT16_MAX when out of memory. */
uint16_t sn_mcap_channel_for(sn_mcap *m, const char *topic, const char *schema, bool json);
/* Writes m->out on `topic` at log_time. */
sn_status sn_mcap_emit(sn_mcap *m, const char *topic, const char *schema, bool json, uint64_t log_time, sn_error *err);

/* Whether a blueprint is the actors stream's, whose message goes first in its frame. */
bool sn_mcap_is_actors(const char *type_id);
/* One stream message as Foxglove messages: its bytes, and parsed. */
sn_status sn_mcap_convert(sn_mcap *m, const void *raw, size_t len, const msgpack_object *msg, sn_error *err);
/* The actors stream's message: SceneUpdate on /<name> and FrameTransforms on /tf. */
sn_status sn_mcap_actors(sn_mcap *m, const msgpack_object *msg, const char *sensor, uint64_t t, sn_error *err);
/* Whether a blueprint is CARLA's world.debug shapes (sensor.other.debug), and its message as a
** SceneUpdate on /<name> (mcap_debug.c). */
bool sn_mcap_is_debug(const char *type_id);
sn_status sn_mcap_debug(sn_mcap *m, const msgpack_object *msg, const char *sensor, uint64_t t, sn_error *err);
/* A sensor's own pose as a FrameTransform world -> sensor (runs without an actors stream). */
sn_status sn_mcap_sensor_tf(sn_mcap *m, const char *sensor, const sn_transform *t, uint64_t log_time, sn_error *err);
/* The map's lines into m->map_update. */
sn_status sn_mcap_map_lines(sn_mcap *m, const sn_map *map, sn_error *err);

/* msgpack helpers (the key lookup is data/mpkey.h's sn_mp_get) */
bool sn_mp_str(const msgpack_object *o, char *buf, size_t n);
bool sn_mp_num(const msgpack_object *o, double *v);
bool sn_mp_transform(const msgpack_object *o, sn_transform *t);

/* CARLA (left-handed: x forward, y right, z up) to Foxglove (right-handed: y left): positions
** (x, -y, z); a rotation R becomes S R S with S = diag(1, -1, 1), as a unit quaternion. */
void sn_fox_pose(sn_buf *b, uint32_t field, const sn_transform *t);
/* A rotation as Foxglove's quaternion (x, y, z, w), from its matrix sn_mat3_from_rotation(r):
** what sn_fox_pose writes, the same bits. */
void sn_fox_quat_of(const sn_mat3 *r, double q[4]);
/* sn_fox_pose and sn_fox_frame_transform of a location (CARLA's axes) and a quaternion from
** sn_fox_quat_of. */
void sn_fox_pose_q(sn_buf *b, uint32_t field, sn_vec3 loc, const double q[4]);
void sn_fox_frame_transform_q(sn_buf *b, uint64_t t, const char *parent, const char *child, sn_vec3 loc,
                              const double q[4]);
void sn_fox_vec3(sn_buf *b, uint32_t field, double x, double y, double z); /* already converted */
/* One FrameTransforms.transforms entry: child's pose `rel` in parent's frame (CARLA's axes). */
void sn_fox_frame_transform(sn_buf *b, uint64_t t, const char *parent, const char *child, const sn_transform *rel);

/* The layouts of the search path's plugins (sn_mcap_add_layouts), loaded once, when
** layouts_lazy is set: opening 15 plugins was about a quarter of an empty export's CPU. */
sn_status sn_mcap_lazy_layouts(sn_mcap *m, sn_error *err);

#endif
