/*
** sensim/records.h — the standard record layouts of bulk data (ABI 1.4).
**
** A sensor's bulk output is one msgpack bin of back-to-back records, little-endian, no padding
** between records, so a reader maps it without decoding record by record (numpy frombuffer).
** These are the layouts sensim's own sensors write and `sensim dump` and the Python reader
** (python/sensim/arrays.py) know by name; a third-party sensor writing the same kind of data
** should use them too. Every field is 4 bytes and every record a multiple of 4: the structs
** below have no padding on any platform sensim builds for (the asserts say so).
*/
#ifndef SENSIM_RECORDS_H
#define SENSIM_RECORDS_H

#include <stdint.h>

/*
** One lidar point (sensor.lidar.ray_cast, CARLA's LidarDetection): the position in the
** sensor's frame at the measurement (CARLA's axes: x forward, y right, z up; metres) and the
** intensity, exp(-atmosphere_attenuation_rate * distance). 16 bytes; numpy: (N, 4) float32.
*/
typedef struct sn_point_xyzi {
    float x, y, z;
    float intensity;
} sn_point_xyzi;

/*
** One semantic lidar point (sensor.lidar.ray_cast_semantic, CARLA's SemanticLidarDetection):
** position as above, the cosine of the angle between the ray (reversed) and the surface
** normal, the id of the actor hit and its semantic tag (sn_tag). 24 bytes; numpy: a structured
** array of x, y, z, cos_inc_angle (<f4), object_idx, object_tag (<u4).
*/
typedef struct sn_semantic_point {
    float x, y, z;
    float cos_inc_angle;
    uint32_t object_idx;
    uint32_t object_tag;
} sn_semantic_point;

/*
** One radar detection (sensor.other.radar, CARLA's RadarDetection): radial velocity toward
** the sensor negative (m/s), azimuth and altitude of the detection in the sensor's frame
** (radians), and its depth (m). 16 bytes; numpy: a structured array of four <f4.
*/
typedef struct sn_radar_detection {
    float velocity;
    float azimuth;
    float altitude;
    float depth;
} sn_radar_detection;

/*
** One actor of the world at the end of a frame (sensor.other.actors, the stream MCAP exports
** read actors' boxes and the transform tree from): its id, its parent's (0 when free-standing),
** sn_actor_kind, semantic tag (sn_tag), world pose in CARLA's axes and units (metres; pitch, yaw,
** roll in degrees) and bounding box (centre in the actor's frame, half extents). The one layout
** with doubles, so poses keep every bit the engine has: 112 bytes, 8-aligned; numpy: id, parent
** <u4, kind, tag u1, 6 pad bytes, then 12 <f8.
*/
typedef struct sn_actor_record {
    uint32_t id, parent_id;
    uint8_t kind, semantic_tag;
    uint8_t reserved[6];
    double location[3], rotation[3]; /* x y z; pitch yaw roll */
    double box_location[3], box_extent[3];
} sn_actor_record;

/*
** ---- Declared record layouts (ABI 1.6) ----
** A sensor of your own declares the records of its bins in its class (sn_sensor_class.records,
** SN_RECORD_TABLE), and every reader decodes them with no code of the user's: `sensim dump
** --decode` (a JSON object per record), `sensim blueprints --json` ("records"), run.json and
** Python's listen()/arrays (a numpy structured dtype). The host checks the table when it loads
** the plugin (names [a-z0-9_]+ and unique, known types, every field inside the record).
**
**   typedef struct echo { float distance, amplitude; uint32_t actor; } echo;   // 12 bytes
**   static const sn_rec_field echo_fields[] = {
**       {"distance", SN_REC_F32, offsetof(echo, distance), "m"},
**       {"amplitude", SN_REC_F32, offsetof(echo, amplitude), NULL},
**       {"actor", SN_REC_U32, offsetof(echo, actor), NULL},
**   };
**   static const sn_rec_layout records[] = {
**       {.key = "echoes", .name = "echo", .size = sizeof(echo), SN_REC_FIELDS(echo_fields), .doc = "one per beam"},
**   };
**   ... SN_RECORD_TABLE(records), ... in the class
**
** Values are little-endian at their offsets (no alignment needed); the record size is the
** stride, so padding and reserved bytes are simply not declared.
*/
typedef enum sn_rec_type {
    SN_REC_U8 = 1,
    SN_REC_I8 = 2,
    SN_REC_U16 = 3,
    SN_REC_I16 = 4,
    SN_REC_U32 = 5,
    SN_REC_I32 = 6,
    SN_REC_U64 = 7,
    SN_REC_I64 = 8,
    SN_REC_F32 = 9,
    SN_REC_F64 = 10
} sn_rec_type;

/* One field of a record. Read with the stride sn_rec_layout.field_size (it may grow). */
typedef struct sn_rec_field {
    const char *name;  /* [a-z0-9_]+, unique within the record */
    sn_rec_type type;
    uint32_t offset;   /* bytes from the record's start */
    const char *unit;  /* "m", "m/s", "rad", "s", ... or NULL */
} sn_rec_field;

/* The records of one bin key. Read with the stride sn_sensor_class.rec_layout_size. */
typedef struct sn_rec_layout {
    const char *key;   /* the message key whose bin holds the records, e.g. "raw_data" */
    const char *name;  /* the record's name, e.g. "ultrasonic_echo" ([a-z0-9_]+) */
    uint32_t size;     /* bytes per record, 1 .. 65536 */
    const sn_rec_field *fields;
    uint32_t n_fields; /* 1 .. 256 */
    uint32_t field_size; /* sizeof(sn_rec_field) at build time */
    const char *doc;   /* one line, or NULL */
} sn_rec_layout;

/* .fields, .n_fields and .field_size of an sn_rec_layout from a static array of fields. */
#define SN_REC_FIELDS(f) .fields = (f), .n_fields = (uint32_t)(sizeof(f) / sizeof((f)[0])), \
                         .field_size = (uint32_t)sizeof(sn_rec_field)

/* Bytes of a value of type t (0 for an unknown type). */
static inline uint32_t sn_rec_type_size(sn_rec_type t)
{
    return t == SN_REC_U8 || t == SN_REC_I8 ? 1 : t == SN_REC_U16 || t == SN_REC_I16 ? 2
         : t == SN_REC_U32 || t == SN_REC_I32 || t == SN_REC_F32 ? 4
         : t == SN_REC_U64 || t == SN_REC_I64 || t == SN_REC_F64 ? 8 : 0;
}

_Static_assert(sizeof(sn_actor_record) == 112, "sn_actor_record is 112 bytes");
_Static_assert(sizeof(sn_point_xyzi) == 16, "sn_point_xyzi is 16 bytes");
_Static_assert(sizeof(sn_semantic_point) == 24, "sn_semantic_point is 24 bytes");
_Static_assert(sizeof(sn_radar_detection) == 16, "sn_radar_detection is 16 bytes");

#endif
