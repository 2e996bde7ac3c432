/*
** sensim/reader.h — the reading side of a log format (ABI 1.2): how a plugin that writes a
** recording lets the engine read it back without the engine knowing the file layout.
**
** A plugin offers one sn_log_reader through sn_plugin_lib.log_reader (plugin.h). The engine's
** `sensim replay` and `sensim recorder info|collisions|blocked` (sn_recording_open in
** sensim.h) try each loaded plugin's reader on a file: the first whose probe() accepts the
** first bytes opens it. So a plugin could later replay another simulator's logs the same way.
**
**   probe(head)           does this look like one of mine? (cheap, no I/O)
**   open(path)            read the header and the frame index (or rebuild it by a scan)
**   describe()            scene, seed, date, frame count, duration, where and why the file ends
**   seek(time)            the next frame yielded is the one that contains `time`
**   next()                one frame: events, then the state of every moving actor
**
** Frames are state, not deltas: every sn_log_frame lists the pose of every moving actor and the
** current control of every vehicle, whatever the file stores. After open() or seek(), the first
** frame yielded has `snapshot` set and its `added` list holds every actor alive in that frame
** (those spawned earlier with their current parent), so a consumer starting mid-file needs no
** history. Everything a frame points to belongs to the reader and stays valid until the next
** call on it.
**
** Versioning: sn_log_reader starts with sn_abi_header and grows only at its end; the records
** below start with struct_size where they may grow. Each callback that can fail returns a
** status and leaves a sentence for error().
*/
#ifndef SENSIM_READER_H
#define SENSIM_READER_H

#include <sensim/abi.h>
#include <sensim/types.h>

/* How a file ends, as found by open(). */
typedef enum sn_log_end {
    SN_LOG_END_COMPLETE = 0,  /* closed properly: every frame and the index are there */
    SN_LOG_END_TRUNCATED = 1, /* cut off (killed process, full disk): every complete frame is usable */
    SN_LOG_END_DAMAGED = 2    /* a frame failed its checksum: the frames before it are usable */
} sn_log_end;

/* What describe() tells about an open file. */
typedef struct sn_log_info {
    uint32_t struct_size;
    const char *format;     /* e.g. "sensim recording" */
    uint32_t version_major, version_minor;
    const char *scene;      /* scene name or path as recorded ("" if none) */
    int64_t date;           /* Unix seconds; 0 when not recorded (the default, see FORMAT.md) */
    uint64_t seed;
    double fixed_delta_seconds;
    bool additional_data;   /* velocities and bounding boxes recorded */
    uint64_t frames;        /* usable (complete, checked) frames */
    uint64_t first_frame, last_frame; /* frame ids */
    double duration;        /* seconds: elapsed + duration of the last usable frame */
    double last_elapsed;    /* elapsed of the last usable frame */
    uint64_t file_bytes;
    bool index_rebuilt;     /* the index was missing or damaged and was rebuilt by a scan */
    sn_log_end end;
    uint64_t end_offset;    /* byte where usable data ends */
    const char *end_reason; /* one sentence; "" when complete */
} sn_log_info;

/* CARLA's actor types (FCarlaActor::ActorType), used by the collision query's letters. */
typedef enum sn_log_actor_type {
    SN_LOG_OTHER = 0, SN_LOG_VEHICLE = 1, SN_LOG_WALKER = 2, SN_LOG_TRAFFIC_LIGHT = 3,
    SN_LOG_TRAFFIC_SIGN = 4, SN_LOG_SENSOR = 5
} sn_log_actor_type;

typedef struct sn_log_attr {
    const char *id;
    const char *value; /* as CARLA writes it: "90", "true", "255,0,0" */
    uint8_t type;      /* sn_attr_type */
} sn_log_attr;

/* An actor added: enough to spawn it again through sn_engine_spawn. */
typedef struct sn_log_add {
    uint32_t id;
    uint8_t type;            /* sn_log_actor_type */
    const char *blueprint;
    const char *name;        /* "" if none */
    uint32_t parent_id;      /* 0 = free-standing */
    sn_transform transform;  /* world pose when added */
    sn_transform relative;   /* pose relative to the parent when attached (else = transform) */
    const sn_log_attr *attrs;
    uint32_t n_attrs;
    bool hero;               /* role_name == "hero" */
} sn_log_add;

typedef struct sn_log_parent {
    uint32_t child, parent;
} sn_log_parent;

typedef struct sn_log_collision {
    uint32_t id;          /* sequential in the recording */
    uint32_t actor1, actor2;
    bool hero1, hero2;
    sn_vec3 impulse;      /* N*s, what actor2 applied to actor1 over the frame */
} sn_log_collision;

typedef struct sn_log_pose {
    uint32_t id;
    sn_transform transform; /* world */
} sn_log_pose;

typedef struct sn_log_control {
    uint32_t id;
    sn_vehicle_control control;
} sn_log_control;

typedef struct sn_log_walker {
    uint32_t id;
    double speed; /* m/s */
} sn_log_walker;

typedef struct sn_log_kinematics {
    uint32_t id;
    sn_vec3 velocity;         /* m/s, world */
    sn_vec3 angular_velocity; /* deg/s, world */
} sn_log_kinematics;

typedef struct sn_log_bbox {
    uint32_t id;
    sn_bbox box;
} sn_log_bbox;

/* One frame. Lists of state are sorted by id. */
typedef struct sn_log_frame {
    uint32_t struct_size;
    uint64_t frame;      /* id in the recording */
    double elapsed;      /* seconds at the start of the frame's interval (frame 1: 0) */
    double duration;     /* seconds until the next frame */
    bool snapshot;       /* first frame after open/seek: `added` lists every live actor */
    const sn_log_add *added;            uint32_t n_added;
    const uint32_t *destroyed;          uint32_t n_destroyed;
    const sn_log_parent *reparented;    uint32_t n_reparented;
    const sn_log_collision *collisions; uint32_t n_collisions;
    const sn_log_pose *poses;           uint32_t n_poses;         /* vehicles and walkers */
    const sn_log_pose *sensor_poses;    uint32_t n_sensor_poses;  /* attached sensors, world */
    const sn_log_control *controls;     uint32_t n_controls;
    const sn_log_walker *walkers;       uint32_t n_walkers;
    const sn_log_kinematics *kinematics; uint32_t n_kinematics;   /* with additional_data */
    const sn_log_bbox *bboxes;          uint32_t n_bboxes;        /* with additional_data */
} sn_log_frame;

typedef struct sn_log_reader {
    sn_abi_header hdr;
    const char *format; /* human name of the format, e.g. "sensim recording" */
    /* True when the first `n` bytes of a file (n may be small) look like this format. */
    bool (*probe)(const void *head, size_t n);
    /* Opens a file; on failure *out_self is NULL and `why` holds a sentence. */
    sn_status (*open)(const char *path, void **out_self, char *why, size_t why_size);
    void (*close)(void *self); /* NULL-safe */
    sn_status (*describe)(void *self, sn_log_info *out);
    /* Positions at the frame containing `time` (seconds; clamped into the recording). */
    sn_status (*seek)(void *self, double time);
    /* The next frame into *out (reader-owned); SN_E_NOT_FOUND after the last usable one. */
    sn_status (*next)(void *self, const sn_log_frame **out);
    /* The sentence that goes with the last failing status. */
    const char *(*error)(void *self);
} sn_log_reader;

#endif
