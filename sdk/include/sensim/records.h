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

_Static_assert(sizeof(sn_actor_record) == 112, "sn_actor_record is 112 bytes");
_Static_assert(sizeof(sn_point_xyzi) == 16, "sn_point_xyzi is 16 bytes");
_Static_assert(sizeof(sn_semantic_point) == 24, "sn_semantic_point is 24 bytes");
_Static_assert(sizeof(sn_radar_detection) == 16, "sn_radar_detection is 16 bytes");

#endif
