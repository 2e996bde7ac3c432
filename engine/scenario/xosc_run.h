/* xosc_run.h — a scenario being played: entity motion (xosc_move.c) and the storyboard
** (xosc_play.c), independent of the engine (xosc_engine.c joins them to it), so tests drive
** them on a bare map. Time is the simulation time at the end of the frame being computed. */
#ifndef SN_SCENARIO_XOSC_RUN_H
#define SN_SCENARIO_XOSC_RUN_H

#include "xosc.h"

#include <sensim/pack.h>

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

typedef enum sn_xmode { SN_XM_FREE, SN_XM_LANE, SN_XM_TRAJ, SN_XM_EXTERNAL } sn_xmode;

/* One entity's kinematic state, in OpenSCENARIO's frame, of its reference point. */
typedef struct sn_xent {
    sn_xmode mode;
    bool placed;           /* a position was given (Init TeleportAction) */
    bool absent;           /* out of the scenario (esmini's inactive): not yet added by an AddEntityAction,
                           ** or deleted; it neither moves nor collides, and has no actor */
    int32_t ri;            /* lane mode: road index (in the map), section index, OpenDRIVE lane id, */
    uint32_t sec;          /* s, and the offset from the lane's centre toward the left of its */
    int lane;              /* direction of travel */
    double s, off;
    int sdir;              /* lane mode: +1 moving along s, -1 against it (whatever the lane's own direction) */
    double x, y, z, h;     /* position and heading (rad) */
    double pitch, roll;    /* rad, OpenSCENARIO's (ISO 8855): pitch positive nose down, roll right side
                           ** down; the road's surface under it along its heading (sn_xmove_tilt), a
                           ** trajectory's own pitch where it has heights */
    double v, a;           /* speed along the heading (m/s), its rate of change */
    double odo;            /* distance travelled since the start (m) */
    double lat_rate;       /* d(off)/dt: turns the heading during a lane change */
    bool end_of_road;      /* lane mode: stopped at the end of a lane that nothing follows */
    bool eor_stale;        /* placed since: end_of_road holds until the next motion step (esmini updates it
                           ** only when it moves entities), so every condition of the step sees the same */
    bool offroad;
    /* longitudinal: a SpeedAction */
    int lon_elem;          /* its action element (-1 Init, -2 none) */
    const sn_xaction *lon;
    double lon_t0, lon_T, lon_v0, lon_v1;
    bool lon_tracking;     /* transition over; a continuous relative target is tracked */
    uint32_t prof_k;       /* a SpeedProfileAction: the entry being reached, */
    double prof_off;       /* ... and its reference entity's speed when it started (0 without one) */
    double *jseg;          /* ... in followingMode follow with jerk limits: its speed's pieces, 4 doubles
                           ** each (start time, speed, acceleration, jerk), owned (reused) */
    uint32_t n_jseg, cap_jseg;
    double jend;           /* ... and when it reaches its last speed */
    /* lateral: a LaneChangeAction or LaneOffsetAction */
    int lat_elem;
    const sn_xaction *lat;
    double lat_t0, lat_T, lat_o0, lat_o1;
    bool lat_by_dist;      /* dynamicsDimension distance: the profile runs over the distance along the lane */
    double lat_D, lat_prog;
    bool lat_tracking;
    /* a FollowTrajectoryAction */
    int traj_elem;
    const sn_xaction *traj;
    double traj_t0, traj_d;
    double *tv;            /* vertices x, y, z (3 per vertex) and cumulative length, owned */
    double *tcum;
    double *tt;            /* per vertex: its time before scale and offset (timed trajectories), owned */
    double *th;            /* per vertex: its heading (given, else the next segment's direction), owned */
    double *tp;            /* per vertex: the next segment's pitch, -atan(dz / ds), owned */
    bool traj_pitched;     /* the path's heights differ: its pitch is the entity's */
    double traj_p;         /* the path's pitch where the entity is */
    double traj_sh, traj_sp; /* the direction and pitch of the path's segment it is on */
    int traj_hsign;        /* -1: it faces against the path (esmini's initialHeadingSign) */
    bool traj_hgiven;      /* it started on a vertex with a given heading: headings taken as given */
    bool traj_corner;      /* heading along each segment, turned only near corners (esmini's position
                           ** mode on a Polyline); else turned over each whole segment (follow mode) */
    uint32_t tn;
    /* a route (AssignRouteAction, AcquirePositionAction): the roads it passes, owned */
    int32_t *route;
    uint32_t n_route, route_i;
    int acq_elem;          /* an AcquirePositionAction running: its element, the road and s it ends at */
    int32_t acq_ri;
    double acq_s;
    uint32_t lights;       /* LightStateActions: the sn_vehicle_light bits set, */
    bool lights_dirty;     /* ... not yet passed to the actor */
} sn_xent;

/* A TrafficSwarm/Source/SinkAction started (the engine spawns and despawns for it each step,
** xosc_traffic.c): its action, whether a TrafficStopAction has stopped it, and the source's or
** sink's position resolved when it started. */
typedef struct sn_xtraffic {
    int action;
    bool active;
    double x, y, z, h;
} sn_xtraffic;

/* A LightStateAction with a transitionTime: the light switches when it ends. */
typedef struct sn_xlightq {
    int entity, elem;      /* elem -1: the Init's */
    double t_end;
    const sn_xaction *a;
} sn_xlightq;

/* A traffic signal's state as the storyboard set it (xosc_signal.c); dirty until the engine has
** passed it to the map's light. */
typedef struct sn_xsig {
    char *id;
    char state[64];
    bool dirty;
} sn_xsig;

/* A TrafficSignalController playing: its phase (-1 before its start) and when the next begins. */
typedef struct sn_xctlrun {
    int phase;
    double t_next;
} sn_xctlrun;

typedef struct sn_xrun {
    sn_xosc *x;
    const sn_map *map;     /* NULL: entities move in free mode only */
    double t, dt;
    uint64_t frame;
    sn_xent *ents;
    uint64_t seq;          /* transitions so far */
    sn_pack_buf log;       /* storyboard.msgpack: messages back to back */
    uint64_t n_log;
    bool ended, completed;
    double end_time;
    char ended_by[256];    /* "StopTrigger", "all stories complete" */
    char stop_condition[256]; /* the condition that fired the storyboard's StopTrigger */
    bool weather_set;      /* an EnvironmentAction ran: weather holds it */
    sn_weather weather;
    bool *collide;         /* n_ents * n_ents: boxes overlapping at t (symmetric), owned */
    bool need_collide, need_offroad; /* a CollisionCondition, an OffroadCondition exists: measured each step */
    char why[512];         /* a runtime failure's message (sn_xrun_step false) */
    bool failed;
    void (*warn)(void *user, const char *line);
    void *warn_user;
    /* the entity an ActivateControllerAction hands to the engine's autopilot: the engine starts it */
    void (*activate)(void *user, int entity);
    void *user;
    /* traffic signals: the states the storyboard set, its controllers; the engine's state of a
    ** signal the storyboard has not set (NULL: none known), into out[cap] */
    sn_xsig *sig;
    uint32_t n_sig;
    sn_xctlrun *ctl;
    bool (*signal_state)(void *user, const char *id, char *out, size_t cap);
    sn_xtraffic *traffic;  /* traffic actions started, owned */
    uint32_t n_traffic;
    sn_xlightq *lightq;    /* light transitions running, owned */
    uint32_t n_lightq;
} sn_xrun;

/* Prepares a run of x on map (may be NULL). Init actions are applied at t = 0. false: r->why. */
bool sn_xrun_init(sn_xrun *r, sn_xosc *x, const sn_map *map, double dt);
/* One step: motion to t + dt, then the storyboard at the new time. false: r->why says what failed. */
bool sn_xrun_step(sn_xrun *r);
void sn_xrun_free(sn_xrun *r);
/* A failure at the scenario's line `line`: r->why = "PATH:LINE: " and fmt's text, r->failed
** set; returns false, so callers can `return sn_xrun_fail(...)`. Inline: every xosc_*.c fails
** this way, and a function of one of them would tie them all into one call cycle. */
static inline SN_PRINTF(3, 4) bool sn_xrun_fail(sn_xrun *r, int line, const char *fmt, ...)
{
    snprintf(r->why, sizeof r->why, "%s:%d: ", r->x->path, line);
    size_t n = strlen(r->why);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->why + n, sizeof r->why - n, fmt, ap);
    va_end(ap);
    r->failed = true;
    return false;
}

/* ---- xosc_move.c (positions: xosc_pos.h) ---- */

/* Puts entity i at a resolved position (placing it on a lane when it stands on one). */
bool sn_xmove_place(sn_xrun *r, int i, const sn_xpos *p);
/* Starts a motion action on entity i at time r->t; *instant when it is over already. */
bool sn_xmove_start(sn_xrun *r, int i, int elem, const sn_xaction *a, bool *instant);
/* Advances every entity by dt to r->t. Sets *ended_elems (action elements whose instance on some
** entity just ended: the storyboard counts them down), up to cap. */
bool sn_xmove_advance(sn_xrun *r, int *ended, uint32_t cap, uint32_t *n_ended);
/* Stops entity i's motion actions of element elem (an event stopped). */
void sn_xmove_stop(sn_xrun *r, int i, int elem);
/* The pitch and roll (OpenSCENARIO's) of a body heading d (rad, relative to the reference line)
** on road rd's surface at s: its slope and superelevation as a plane. */
struct sn_odr_road;
void sn_xroad_tilt(const struct sn_odr_road *rd, double s, double d, double *pitch, double *roll);
/* Bounding box corners (x, y) of entity i in OpenSCENARIO's frame, counter-clockwise. */
void sn_xmove_box(const sn_xrun *r, int i, double c[4][2]);
/* The distance between two boxes (0 when they overlap). */
double sn_xbox_distance(const double a[4][2], const double b[4][2]);
/* xosc_shape.c: the path of a Clothoid or Nurbs trajectory for entity i, sampled: *xyz (3 per
** vertex), *tt (a time per vertex, before scale and offset; NULL unless timed), caller-owned. */
bool sn_xshape_path(sn_xrun *r, int i, const sn_xaction *a, double **xyz, double **tt, uint32_t *n);
/* xosc_signal.c: traffic signals and their controllers. */
bool sn_xsig_init(sn_xrun *r);
void sn_xsig_step(sn_xrun *r);                          /* controllers' phases to r->t */
bool sn_xsig_action(sn_xrun *r, const sn_xaction *a);   /* TrafficSignalStateAction, ...ControllerAction */
bool sn_xsig_cond(sn_xrun *r, sn_xcond *c);             /* TrafficSignalCondition, ...ControllerCondition */
void sn_xsig_free(sn_xrun *r);
/* A state text as a sn_traffic_light_state: "red", "yellow"/"amber", "green", "off" (any case),
** or esmini's lamp list "on;off;off" (red;yellow;green); -1 when it is none of these. */
int sn_xsig_colour(const char *state);
/* xosc_sync.c: a SynchronizeAction's step on entity i: its speed for this step and the distance
** it covers; *done when it has reached its target (or the master its own). */
bool sn_xsync_step(sn_xrun *r, int i, double *dist, bool *done);
/* xosc_route.c: plans entity i's route through the waypoints (lanes only, the shortest by length). */
bool sn_xroute_plan(sn_xrun *r, int i, const sn_xpos *pts, uint32_t n_pts, int line);
/* xosc_route.c: a RoutePosition (its route planned at the first use, then pathS walked along it). */
bool sn_xroutepos_resolve(sn_xrun *r, const sn_xpos *p, double out[4], int32_t *road, int *lane, double *s, double *off,
                          bool *on_lane);
/* Which of n successors (sn_map_successors' with forward) a routed entity takes (0 without a route). */
struct sn_lanekey;
size_t sn_xroute_pick(const sn_xrun *r, sn_xent *e, const struct sn_lanekey *next, size_t n, bool forward);
/* Where entity i lies in the lanes: road, lane, s, t; false when on no road within 2 m. */
bool sn_xmove_locate(const sn_xrun *r, int i, int32_t *road, int *lane, double *s, double *t, double *outside);

/* The player's parts (xosc_play.c: states, actions, the tree; xosc_cond.c: conditions and
** triggers; xosc_log.c: the storyboard log), private to the player. */
bool sn_xpl_trigger_fires(sn_xrun *r, int t, int owner);
bool sn_xpl_select_actors(sn_xrun *r, int act, int t);
void sn_xpl_log_transition(sn_xrun *r, int el, sn_xstate from, sn_xstate to, int trans);
void sn_xpl_log_condition(sn_xrun *r, const sn_xcond *c, int owner);
void sn_xpl_warn_once(sn_xrun *r, const char *line);

#endif
