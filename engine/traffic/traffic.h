/* traffic.h — traffic that drives: the map autopilot (CARLA's Traffic Manager, simplified)
** and the scene's `traffic:` key (CARLA's generate_traffic.py). docs/traffic.md.
**
** A map autopilot keeps a path of lane-centre waypoints SN_MD_STEP apart ahead of its actor,
** choosing among sn_map_next's branches with its own seeded generator; vehicles steer by pure
** pursuit along it and set their speed from the lane's limit, the path's curvature, the
** vehicle or walker ahead in the path and the stop lines of red lights. Controllers run in
** step 3 of the frame, in actor id order, from the world's state at the end of the last frame,
** so the result does not depend on the thread count. */
#ifndef SN_TRAFFIC_TRAFFIC_H
#define SN_TRAFFIC_TRAFFIC_H

#include "../core/rng.h"
#include "../scene/scene.h"
#include "../world/world.h"

#include <sensim/map.h>

#include <stddef.h>

struct sn_engine;
struct sn_traffic;

#define SN_MD_PATH 40   /* waypoints kept ahead: 78 m of lane, or a turn-round loop and more */
#define SN_MD_STEP 2.0  /* m between them */

/* A waypoint of an autopilot's path apart from its location: what the autopilot reads of an
** sn_waypoint (the same field names), in 24 bytes instead of 136, so a vehicle on a map costs at
** most twice one on flat ground (issue 36 item 6; the path was 10 of its 13 KiB). The locations
** lie apart in sn_mapdrive.at (foot64): the frame's hot loops read them alone, 15 cache lines a
** path instead of 30. sn_md_expand gives the sn_waypoint the map calls take: its lane, s, pose and
** flags (no id, width or markings). */
typedef struct sn_pathwp {
    struct {
        struct {
            float yaw; /* degrees */
        } rotation;
    } transform;
    int32_t road_id;
    double s;
    int16_t section_id, lane_id;
    uint8_t lane_change; /* sn_lane_change */
    bool is_junction;
} sn_pathwp;

_Static_assert(sizeof(sn_pathwp) == 24, "sn_pathwp: 24 bytes");

static inline sn_pathwp sn_md_pack(const sn_waypoint *w)
{
    sn_pathwp p = {.road_id = w->road_id, .s = w->s, .section_id = (int16_t)w->section_id, .lane_id = (int16_t)w->lane_id,
                   .lane_change = w->lane_change, .is_junction = w->is_junction};
    p.transform.rotation.yaw = (float)w->transform.rotation.yaw;
    return p;
}

static inline sn_waypoint sn_md_expand(const sn_pathwp *p, sn_vec3 at, bool walker)
{
    sn_waypoint w = {.road_id = p->road_id, .section_id = p->section_id, .lane_id = p->lane_id, .s = p->s,
                     .lane_type = walker ? SN_LANE_SIDEWALK : SN_LANE_DRIVING, .junction_id = -1,
                     .is_junction = p->is_junction, .lane_change = p->lane_change};
    w.transform.location = at;
    w.transform.rotation.yaw = p->transform.rotation.yaw;
    return w;
}

/* CARLA Traffic Manager's defaults (LibCarla/source/carla/trafficmanager: Parameters.h
** distance_margin {2.0}; Constants.h SpeedThreshold::INITIAL_PERCENTAGE_SPEED_DIFFERENCE = 30,
** the global percentage every vehicle drives below its limit unless set; a vehicle runs no
** light unless set). */
#define SN_TM_DISTANCE_TO_LEADING 2.0
#define SN_TM_SPEED_DIFFERENCE 30.0
#define SN_TM_IGNORE_LIGHTS 0.0
#define SN_TM_DEFAULT_LIMIT (30.0 / 3.6) /* m/s where a lane gives no speed (CARLA's town default) */

/* One step of an autopilot's short route (route.h): the connecting lane it takes through its
** next junction, and the lane of the road it must enter that junction from. */
#define SN_ROUTE_N 3
typedef struct sn_route_step {
    int32_t conn_road, conn_lane;
    int32_t from_road, from_lane;
} sn_route_step;

/* What sn_path_nearest_kept (leader.c) keeps of its last search on a path: where the body stood
** (x, y), the answer + 1 (seg; 0 none: set it to 0 for a new path), the path's points then (n;
** both counted on the path as it was `drops` of its drops at the start ago) and how much farther
** the segments beyond a few of the answer were (slack, m). */
typedef struct sn_near_memo {
    double x, y;
    float slack;
    uint8_t seg, n, drops;
} sn_near_memo;

/* A map autopilot's state. Laid out by how often it is read (issue 36 item 6, tm55): its first
** 128 bytes (the head, up to `route`) hold what every frame reads of every vehicle, also
** one that coasts or sleeps in hybrid mode (the controllers' dispatch, vehicle_coast,
** vehicle_sleep, sn_hybrid_move, sn_route_passed); what only a decision reads follows, the path
** last. Scattered over eight cache lines, the head cost a miss on each for hundreds of vehicles. */
typedef struct sn_mapdrive {
    /* ---- the head: read every frame ---- */
    uint32_t n;          /* waypoints in path */
    bool walker;
    bool hybrid_off;     /* its Traffic Manager's hybrid mode took its physics (traffic.c: hybrid_switch) */
    /* Hybrid mode (traffic.c, vehicle_coast): its last decision lets the frames until the next
    ** one coast on it (coast), at the speed it chose (coast_vt, m/s), short of where a red or
    ** yellow light held it (coast_stop, m from the front bumper then), behind its leader then
    ** (coast_lead, actor id, 0 none), which is followed anew each frame, and keeping its claim on
    ** the junction ahead fresh (coast_jx, odr index, -1 none; and jx_in's). */
    bool coast;
    /* Asleep (traffic.c, vehicle_sleep): its last decision held it standing behind its leader
    ** (coast_lead), a vehicle standing within OBSTACLE_MIN; it decides again once that leader has
    ** moved (from where it stood then, as an offset from this vehicle: sleep_x, sleep_y, m), is
    ** gone or is down. */
    bool asleep;
    int8_t force_lane_change;    /* a pending force_lane_change: -1 left, +1 right, 0 none; the autopilot clears it */
    /* Its short route (route.c): the next SN_ROUTE_N junction choices, drawn ahead (route);
    ** route_at: how many of them the path already takes; route_dir: the lane change the next one
    ** needs (-1 left, +1 right, 0 none). */
    uint8_t n_route, route_at;
    int8_t route_dir;
    union {
        struct {
            float coast_vt, coast_stop;
        };
        struct {
            float sleep_x, sleep_y; /* while asleep (coasting is not) */
        };
    };
    uint32_t coast_lead;
    int32_t coast_jx;
    /* Junctions (junction.c): the junction it is in or leaving (odr index, -1 none), its front's
    ** progress through it (and jx_len, the passage's length, below). */
    int32_t jx_in;
    /* The decelerations its planner counts on (m/s^2; traffic.c, brake_limits): at comfort
    ** (leaders, bends, stop lines); a_yellow and a_hard below. */
    double a_comf;
    double gap;          /* distance_to_leading_vehicle, m */
    double jx_front;
    double stand;        /* s it has stood (deadlocks, junction.c) */
    /* Lane changes (lanechange.c): metres driven (odometer) at the last one (lc_odo, below), and
    ** the odometer now. */
    double odo;
    /* Head-on holds outside junctions (headon.c): steering `offset` m to the right of its path
    ** (negative: left) while it drives past pass_with (below). */
    double offset;
    sn_route_step route[SN_ROUTE_N];
    /* ---- what a decision reads ---- */
    sn_rng rng;
    bool ended;          /* the lane ended with no successor: the vehicle stops there */
    bool backwards;      /* walkers: walking against the lane's direction */
    /* CARLA TM's further per-vehicle knobs (docs/traffic.md): the TM API sets them, the
    ** autopilot reads them. Percentages are 0..100. */
    bool auto_lane_change;       /* auto_lane_change; default true */
    bool far;            /* vehicles: no driving lane within 50 m; it drives to the nearest one */
    bool light_ignored;  /* drawn once per approach (ignore_lights_percentage) */
    bool light_go;       /* decided to pass this light on yellow */
    bool sign_ignored, sign_go; /* (signs, below) */
    double speed_diff;   /* vehicle_percentage_speed_difference, % */
    double ignore_lights; /* ignore_lights_percentage, % */
    /* The percentages that are 0 unless a Traffic Manager sets them (sn_md_pct, SN_MD_PCT_*):
    ** owned, allocated while one is not 0, NULL (all 0) for most vehicles: 40 bytes a vehicle
    ** less (issue 36 item 6, mem55). */
    double *pct;
    double desired;      /* target_speed, m/s; < 0: the lane's limit */
    struct sn_tm_plan *plan; /* set_path / set_route (traffic/tm.h), the Traffic Managers'; NULL: roam */
    double speed_integral;
    double a_yellow, a_hard; /* the most for a yellow light and for a red one (a_comf above) */
    uint32_t light_seen; /* the light last approached, index + 1 */
    /* Signs (signs.c): the stop or yield line approached (index + 1), its ignore draw, whether the
    ** vehicle may pass it (sign_ignored, sign_go above), the limit of the last speed sign passed
    ** (m/s, 0 none) and the time it has stood at it. */
    uint32_t sign_seen;
    double sign_limit;
    double sign_wait;
    double jx_len;
    /* Deadlocks (junction.c): whom it waits for (wait_logical: for a junction's claim or exit,
    ** not for a body in its way), how long it has stood (stand, above), and until when it may
    ** enter a junction regardless of claims and exit (a deadlock it breaks). */
    uint32_t wait_for;
    bool wait_logical;
    bool lc_done;        /* at least one lane change made (the spacing rule applies) */
    bool has_tail;       /* route_tail is set */
    uint8_t drops;       /* waypoints sn_md_advance dropped, mod 256 (sn_path_nearest_kept; in padding) */
    double override_until;
    /* Head-on holds (headon.c): the vehicle it drives past (pass_with, until pass_until), or the
    ** one that drives past it while it keeps still (held_for). 0: none. */
    uint32_t pass_with, held_for;
    double pass_until;
    double lc_odo, lc_co; /* lc_co: the change-over distance of the last change (m) */
    float xw_wait;       /* s standing held by walkers on a crossing (bounded: XW_PATIENCE, traffic.c) */
    /* route_tail: where the route's last step leaves its junction (planning goes on from there);
    ** route_missed: steps given up (the lane could not be reached). */
    uint32_t route_missed;
    sn_pathwp route_tail;
    sn_vec3 route_tail_at;
    double route_retry;  /* odometer (m) before which a route that found no junction is not planned again */
    sn_near_memo nl;     /* hybrid mode: its leader's nearest segment (vehicle_coast, sn_path_nearest_kept) */
    /* Stuck removal (stuck.c): the clock time since which it has been idle (no faster than
    ** 0.8 m/s) while its Traffic Manager drove it; 0: not tracked yet. */
    double idle_since;
    /* The path: its waypoints' locations (at) apart from the rest (path), each indexed alike. */
    sn_vec3 at[SN_MD_PATH];
    sn_pathwp path[SN_MD_PATH];
} sn_mapdrive;

/* Path waypoint i set from w, and given back whole (location and the rest). */
static inline void sn_md_set(sn_mapdrive *md, uint32_t i, const sn_waypoint *w)
{
    md->at[i] = w->transform.location;
    md->path[i] = sn_md_pack(w);
}

static inline sn_waypoint sn_md_wp(const sn_mapdrive *md, uint32_t i)
{
    return sn_md_expand(&md->path[i], md->at[i], md->walker);
}

_Static_assert(offsetof(sn_mapdrive, rng) == 128, "sn_mapdrive: the head (read every frame) in 128 bytes");

/* sn_mapdrive.pct's members: random_left/right_lanechange_percentage, keep_right_rule_percentage,
** ignore_signs/vehicles/walkers_percentage (%). */
enum {
    SN_MD_PCT_LC_LEFT,
    SN_MD_PCT_LC_RIGHT,
    SN_MD_PCT_KEEP_RIGHT,
    SN_MD_PCT_IGNORE_SIGNS,
    SN_MD_PCT_IGNORE_VEHICLES,
    SN_MD_PCT_IGNORE_WALKERS,
    SN_MD_PCT_COUNT
};

static inline double sn_md_pct(const sn_mapdrive *md, int k) { return md->pct ? md->pct[k] : 0.0; }

/* Traffic counters since the scene loaded, for the run's health report and the tests. A lane
** change is logged (the last SN_LC_LOG of them, log[k % SN_LC_LOG] for the k-th) with the lane
** the vehicle moves into at the point beside it when it decided. */
#define SN_LC_LOG 64
typedef struct sn_lc_event {
    uint32_t actor;
    int32_t road_id, lane_id;
    double s;
    uint64_t frame;              /* when it began */
} sn_lc_event;
typedef struct sn_traffic_stats {
    uint64_t lane_changes;       /* lane changes begun by map autopilots */
    uint64_t deadlocks_resolved; /* junction deadlocks detected and broken (docs/traffic.md) */
    uint64_t junction_waits;     /* times a vehicle held at a junction's entry for a conflict */
    uint64_t route_lane_changes; /* of lane_changes, those made to reach the lane the route's next junction needs */
    sn_lc_event log[SN_LC_LOG];
} sn_traffic_stats;
/* The counters, or NULL before the first autopilot ran. */
const sn_traffic_stats *sn_traffic_stats_get(const struct sn_engine *e);
/* Runs the autopilots without the junction and lane-change rules (the rules before issue 31),
** for comparisons in the soak test and the benchmark. */
void sn_traffic_set_legacy(struct sn_engine *e, bool legacy);

/* Gives actor a (a vehicle or walker) a map autopilot, on Traffic Manager 8000 unless it has one
** (traffic/tm.h; the knobs and target_speed become its own settings). SN_E_INVALID without a map,
** or for a walker with no sidewalk within 50 m; a vehicle off the road drives to the nearest
** driving lane at any distance (the first one of a run is named in a warning). */
sn_status sn_mapdrive_start(struct sn_engine *e, sn_actor *a, const sn_tm_knobs *k, double target_speed,
                            uint64_t seed, sn_error *err);
/* Step 3: every autopilot's control for this frame (route followers and map autopilots). */
void sn_traffic_controllers(struct sn_engine *e, double dt);
/* The scene's traffic: vehicles at shuffled spawn points, walkers on sidewalks. */
sn_status sn_traffic_spawn(struct sn_engine *e, sn_error *err);
void sn_traffic_free(struct sn_traffic *t);

#endif
