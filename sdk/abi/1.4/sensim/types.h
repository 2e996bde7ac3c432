/*
** sensim/types.h — geometry and world value types shared by the host and plugins.
**
** Units: metres, seconds, kilograms, newton-seconds. Axes are CARLA's: x forward, y right,
** z up; rotations in degrees (pitch, yaw, roll); yaw turns +x toward +y, pitch raises +x
** toward +z, roll lowers +y toward -z.
**
** Growth: structs a caller fills for the host start with struct_size; plain values (sn_vec3,
** sn_rotation, sn_transform, sn_bbox, sn_geo_location, sn_vehicle_control) are frozen, and
** tests/unit/test_layout.c pins every layout.
*/
#ifndef SENSIM_TYPES_H
#define SENSIM_TYPES_H

#include <sensim/abi.h>

typedef struct sn_vec3 {
    double x, y, z;
} sn_vec3;

typedef struct sn_rotation {
    double pitch, yaw, roll; /* degrees */
} sn_rotation;

typedef struct sn_transform {
    sn_vec3 location;
    sn_rotation rotation;
} sn_transform;

/* Oriented box: centre offset from the actor origin (actor frame) and half extents. */
typedef struct sn_bbox {
    sn_vec3 location;
    sn_vec3 extent;
} sn_bbox;

/* Semantic tags: seed 003's table, the same values as CARLA (CityScapes palette). */
typedef enum sn_tag {
    SN_TAG_UNLABELED = 0, SN_TAG_ROADS = 1, SN_TAG_SIDEWALK = 2, SN_TAG_BUILDING = 3,
    SN_TAG_WALL = 4, SN_TAG_FENCE = 5, SN_TAG_POLE = 6, SN_TAG_TRAFFIC_LIGHT = 7,
    SN_TAG_TRAFFIC_SIGN = 8, SN_TAG_VEGETATION = 9, SN_TAG_TERRAIN = 10, SN_TAG_SKY = 11,
    SN_TAG_PEDESTRIAN = 12, SN_TAG_RIDER = 13, SN_TAG_CAR = 14, SN_TAG_TRUCK = 15,
    SN_TAG_BUS = 16, SN_TAG_TRAIN = 17, SN_TAG_MOTORCYCLE = 18, SN_TAG_BICYCLE = 19,
    SN_TAG_STATIC = 20, SN_TAG_DYNAMIC = 21, SN_TAG_OTHER = 22, SN_TAG_WATER = 23,
    SN_TAG_ROAD_LINE = 24, SN_TAG_GROUND = 25, SN_TAG_BRIDGE = 26, SN_TAG_RAIL_TRACK = 27,
    SN_TAG_GUARD_RAIL = 28,
    SN_TAG_COUNT = 29
} sn_tag;

/* CARLA's vehicle control, each value clamped by the host. */
typedef struct sn_vehicle_control {
    double throttle; /* 0..1 */
    double steer;    /* -1..1, positive turns right (+y) */
    double brake;    /* 0..1 */
    bool hand_brake;
    bool reverse;
} sn_vehicle_control;

typedef enum sn_actor_kind {
    SN_ACTOR_STATIC = 0,  /* static.*: geometry without a body, never moves */
    SN_ACTOR_VEHICLE = 1, /* vehicle.* */
    SN_ACTOR_WALKER = 2,  /* walker.* */
    SN_ACTOR_SENSOR = 3   /* sensor.*, from plugins */
} sn_actor_kind;

/*
** A snapshot of one actor, filled by sn_host.actor_get. The caller sets struct_size to
** sizeof(sn_actor_info) before the call; the host fills what both sides know. Strings are
** owned by the host and live as long as the actor.
*/
typedef struct sn_actor_info {
    uint32_t struct_size;
    uint32_t id;
    uint32_t parent_id; /* 0 when not attached */
    sn_actor_kind kind;
    const char *type_id;   /* blueprint id, e.g. "vehicle.sedan" */
    const char *name;      /* name in the scene ("" if none) */
    const char *role_name; /* CARLA's role_name attribute ("" if none) */
    uint8_t semantic_tag;  /* sn_tag */
    sn_bbox bounding_box;  /* in the actor's frame */
    sn_transform transform;     /* world frame */
    sn_vec3 velocity;           /* m/s, world frame */
    sn_vec3 angular_velocity;   /* deg/s, world frame, as CARLA */
    sn_vec3 acceleration;       /* m/s^2, world frame, over the last frame */
    sn_vehicle_control control; /* vehicles only; zero otherwise */
} sn_actor_info;

/*
** Result of a ray cast. Since ABI 1.2 it starts with struct_size, which the caller sets to
** sizeof(sn_ray_hit) before the call (the host fills what both sides know; with 0 it fills
** the 1.2 members). A plugin built for ABI 1.1 keeps its old layout (no struct_size): the
** host knows the plugin's minor and writes the layout it was built with.
**
** `velocity` came later in ABI 1.4 (a 1.4 host built before it writes 72-byte hits): hits the
** host writes into ray_batch results carry struct_size = the host's sizeof(sn_ray_hit), so a
** plugin knows velocity is filled when hit.struct_size >= SN_RAY_HIT_SIZE_VELOCITY.
*/
typedef struct sn_ray_hit {
    uint32_t struct_size;
    double distance; /* metres from the origin */
    sn_vec3 point;   /* world frame */
    sn_vec3 normal;  /* world frame, unit, facing the ray */
    uint32_t actor_id;
    uint8_t semantic_tag;
    /* ---- ABI 1.4, second revision ---- */
    /* World velocity of the hit point, m/s: the hit actor's linear velocity plus its angular
    ** velocity x (point - actor origin), both as at the end of the frame (also for ray_batch_at
    ** at an earlier time); zero on static geometry. */
    sn_vec3 velocity;
} sn_ray_hit;

/* sizeof(sn_ray_hit) before `velocity` (ABI 1.2 to 1.4's first revision), and with it. */
#define SN_RAY_HIT_SIZE_1_2 72u
#define SN_RAY_HIT_SIZE_VELOCITY 96u

/* A geodetic position: degrees north and east (WGS84 numbers, CARLA's projection), metres. */
typedef struct sn_geo_location {
    double latitude, longitude, altitude;
} sn_geo_location;

/* The clock as a plugin sees it during a frame (host-owned: it may grow at its end). */
typedef struct sn_clock {
    uint64_t frame;     /* starts at 1 */
    double timestamp;   /* seconds since the start: frame * dt, never accumulated */
    double dt;          /* fixed_delta_seconds */
    int64_t time_ns;    /* timestamp as integer nanoseconds */
    int64_t dt_ns;      /* dt as integer nanoseconds */
} sn_clock;

#endif
