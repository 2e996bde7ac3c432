/* lanechange.h — the map autopilot's lane changes (CARLA TM's LocalizationStage::AssignLaneChange
** with a gap check on the target lane; docs/traffic.md, "Lane changes"). Engine-internal. */
#ifndef SN_TRAFFIC_LANECHANGE_H
#define SN_TRAFFIC_LANECHANGE_H

#include "traffic.h"

/* The traffic on a stretch of lane around the vehicle: pts[0..np) with their distances along[]
** from the vehicle (negative behind it). Fills the bumper-to-bumper gap to the nearest vehicle
** ahead and behind on that lane (INFINITY when none) and their speeds along it; a vehicle beside
** it gives a gap < 0. gap_behind and v_behind NULL: the one behind is not searched (the scan
** then stops at the one ahead). */
typedef void (*sn_lc_gaps_fn)(void *user, const sn_vec3 *pts, const double *along, size_t np, double half_width,
                              double *gap_ahead, double *v_ahead, double *gap_behind, double *v_behind);

typedef struct sn_lcctx {
    const sn_map *m;
    uint32_t actor;
    uint64_t frame;           /* the clock's: passing is weighed every tenth frame (its cost) */
    double dt;                /* s a frame */
    double v, desired;        /* m/s: its speed, the speed it wants */
    double half_len, half_width;
    bool has_leader;          /* a vehicle ahead in its lane */
    double lead_gap, lead_v;  /* bumper to bumper, and its speed */
    sn_lc_gaps_fn gaps;
    void *user;
    sn_traffic_stats *stats;
} sn_lcctx;

/* Decides a lane change and, when it makes one, puts md's path on the target lane (from the
** change-over point) and logs it in stats. -1 left, +1 right, 0 none. */
int sn_lc_update(const sn_lcctx *c, sn_mapdrive *md);

#endif
