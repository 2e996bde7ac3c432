/* scan.h — one tick of CARLA's spinning lidar: the rays of the partial rotation, traced in one
** batch, turned into points (docs/sensors/lidar.md has the algorithm and where CARLA's source was
** followed). */
#ifndef SN_LIDAR_SCAN_H
#define SN_LIDAR_SCAN_H

#include <sensim/plugin.h>
#include <sensim/records.h>

typedef struct lidar_cfg {
    bool semantic;
    uint32_t channels;
    double range;              /* m */
    double points_per_second;
    double rotation_frequency; /* Hz */
    double upper_fov, lower_fov, horizontal_fov; /* degrees */
    double atmosphere_attenuation_rate;          /* 1/m */
    double dropoff_general_rate, dropoff_intensity_limit, dropoff_zero_intensity;
    double noise_stddev;       /* m */
    bool reflectivity;         /* intensity_model reflectivity: the surface's reflectivity x cos(incidence) */
    bool motion_distortion;
} lidar_cfg;

typedef struct lidar_scan {
    const sn_host *h;
    sn_ctx *ctx;
    lidar_cfg cfg;
    double *laser_deg;         /* channel i's elevation: upper_fov - i * step, CARLA's order */
    double angle_deg;          /* the horizontal angle the next tick starts from, in [0, horizontal_fov) */
    /* per tick, grown as needed */
    sn_ray *rays;              /* one chunk's (scan.c CHUNK) */
    sn_ray_result *res;
    int64_t *ray_time;         /* motion distortion: each ray's time */
    uint32_t *ray_slot;        /* ray k is channel-major slot ray_slot[k] = ch * per_channel + j */
    sn_transform *pose;        /* motion distortion: the sensor's pose at column j */
    sn_vec3 *col;              /* column j's azimuth: cos, sin */
    sn_vec3 *elev;             /* channel i's elevation: cos, sin */
    size_t cap_col, cap_elev;
    size_t cap_rays, cap_res, cap_slot, cap_time, cap_pose;
    /* the measurement */
    uint8_t *points;           /* records of sn_point_xyzi or sn_semantic_point */
    int64_t *point_time;       /* motion distortion: each point's time, ns */
    size_t n_points, cap_points, cap_point_time;
    uint32_t *counts;          /* points per channel */
    float horizontal_angle;    /* radians, after this tick (CARLA's measurement field) */
    bool warned_empty;
} lidar_scan;

/* Checks cfg and allocates the laser table; SN_E_RANGE / SN_E_NOMEM with the ctx's error set. */
sn_status lidar_scan_init(lidar_scan *s, const sn_host *h, sn_ctx *ctx, const lidar_cfg *cfg);
void lidar_scan_free(lidar_scan *s);
/* One tick: the rays of the interval since the last tick, traced, and the points. */
sn_status lidar_scan_tick(lidar_scan *s);

#endif
