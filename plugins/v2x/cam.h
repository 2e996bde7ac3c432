/*
** cam.h — ETSI Cooperative Awareness Messages as CARLA's CaService makes them
** (carla-sensors.md §4.4): the generation triggers, the station type, and the content.
*/
#ifndef SN_V2X_CAM_H
#define SN_V2X_CAM_H

#include "msg.h"
#include "rng.h"

#include <sensim/plugin.h>

/* ETSI EN 302 637-2's N_GenCam: time-triggered CAMs after a dynamics-triggered one before
** T_GenCam returns to gen_cam_max. CARLA never initialises it (mGenCamLowDynamicsLimit). */
#define SN_V2X_GEN_CAM_LOW_DYNAMICS 3

typedef struct sn_v2x_cam_params {
    int64_t gen_min_ns, gen_max_ns;
    bool fixed_rate;
    double lat_sd, lat_bias, lon_sd, lon_bias, alt_sd, alt_bias; /* degrees, degrees, m */
    double head_sd, head_bias;                                    /* degrees */
    double vel_sd;                                                /* m/s */
    double acc_sd[3];                                             /* m/s^2 */
    double yaw_sd, yaw_bias;                                      /* rad/s, as CARLA's gyroscope */
} sn_v2x_cam_params;

typedef struct sn_v2x_cam_state {
    uint8_t station_type;
    uint8_t vehicle_role;
    bool started;            /* the first tick since attach has set the clocks */
    bool has_last;           /* a CAM was generated: last_* hold its values */
    int64_t last_cam_ns, last_lf_ns, t_gencam_ns;
    uint32_t low_dynamics;
    sn_vec3 last_pos, last_fwd;
    double last_speed;
} sn_v2x_cam_state;

/* The station type from the parent (0 = free-standing: a roadside unit). */
void sn_v2x_cam_attach(sn_v2x_cam_state *c, const sn_host *h, sn_ctx *ctx, uint32_t parent_id);

/* At the sensor's tick: *out filled and true when a CAM is due now. Draws noise from rng. */
sn_status sn_v2x_cam_tick(sn_v2x_cam_state *c, const sn_v2x_cam_params *p, const sn_host *h, sn_ctx *ctx,
                          uint32_t parent_id, sn_v2x_rng *rng, sn_v2x_cam *out, bool *generated);

#endif
