/* xosc.h — an ASAM OpenSCENARIO XML 1.0-1.2 scenario: the parsed model (xosc_parse.c), its
** parameters and expressions (xosc_expr.c), and the storyboard played as a controller
** (xosc_play.c: element states and triggers; xosc_move.c: actions and the kinematic motion of
** entities along the map's lanes). docs/openscenario.md says what is supported.
**
** Coordinates in the model are OpenSCENARIO's (the OpenDRIVE inertial frame: y left, heading
** counter-clockwise, radians); they become the world's (CARLA's: y right, yaw clockwise,
** degrees) only where an entity is placed. */
#ifndef SN_SCENARIO_XOSC_H
#define SN_SCENARIO_XOSC_H

#include <sensim/sensim.h>
#include <sensim/map.h>

#include <stdbool.h>
#include <stdint.h>

/* ---- parameters ---- */

typedef struct sn_xparam {
    char *name;
    char *value;    /* as declared (may hold $ref or ${expr}); resolved on first use */
    char *resolved; /* NULL until resolved */
    int line;
    bool resolving; /* on the stack of the resolution in progress: a loop when met again */
} sn_xparam;

typedef struct sn_xparams {
    sn_xparam *v;
    uint32_t n;
    size_t cap;
} sn_xparams;

/* ---- positions ---- */

typedef enum sn_xpos_kind {
    SN_XP_NONE, SN_XP_WORLD, SN_XP_REL_WORLD, SN_XP_REL_OBJECT, SN_XP_ROAD, SN_XP_REL_ROAD, SN_XP_LANE,
    SN_XP_REL_LANE, SN_XP_ROUTE
} sn_xpos_kind;

typedef struct sn_xpos {
    sn_xpos_kind kind;
    int line;
    double x, y, z, h;       /* World; the d-values of RelativeWorld/Object (dx, dy, dz) */
    int entity;              /* Relative*: the entity index */
    int32_t road;            /* OpenDRIVE road id (Road, Lane) */
    int lane;                /* OpenDRIVE lane id (Lane); dLane (RelativeLane) */
    double s, t, offset;     /* Road: s, t; Lane: s, offset; RelativeLane: ds (in s), offset; RelativeRoad: ds, dt */
    bool has_h;              /* Orientation given (World: h given) */
    bool h_relative;         /* Orientation type="relative" */
    bool ds_lane;            /* RelativeLanePosition: dsLane given (s, dLane and offset in the lane's direction of travel) */
    /* RoutePosition: route (index into sn_xosc.routes) and how the place is given: 0
    ** FromCurrentEntity (entity), 1 FromRoadCoordinates (s = pathS, t), 2 FromLaneCoordinates
    ** (s = pathS, lane = laneId, offset = laneOffset) */
    int route, in_route;
} sn_xpos;

/* A Route of a RoutePosition: its waypoints and, planned at its first use (xosc_route.c), the
** lanes it follows from the first waypoint (road index, section, lane id per lane). */
typedef struct sn_xroute {
    sn_xpos *wps;
    uint32_t n;
    int line;
    bool planned;
    int32_t *keys;           /* 3 per lane: road index, section, lane id; owned */
    uint32_t n_keys;
    double s0;               /* the first waypoint's s on its road */
} sn_xroute;

/* ---- dynamics ---- */

typedef enum sn_xshape { SN_XS_STEP, SN_XS_LINEAR, SN_XS_CUBIC, SN_XS_SINUSOIDAL } sn_xshape;
typedef enum sn_xdim { SN_XD_TIME, SN_XD_DISTANCE, SN_XD_RATE } sn_xdim;

typedef struct sn_xdyn {
    sn_xshape shape;
    sn_xdim dim;
    double value; /* s, m or unit/s */
} sn_xdyn;

/* The shape's normalised value f(tau) (0 -> 0, 1 -> 1) and its integral from 0 to tau. */
double sn_xshape_f(sn_xshape s, double tau);
double sn_xshape_int(sn_xshape s, double tau);

/* ---- rules ---- */

typedef enum sn_xrule { SN_XR_GT, SN_XR_LT, SN_XR_EQ, SN_XR_GE, SN_XR_LE, SN_XR_NE } sn_xrule;
bool sn_xrule_eval(sn_xrule r, double a, double b);
const char *sn_xrule_name(sn_xrule r);

/* ---- actions ---- */

typedef enum sn_xtraj_shape { SN_XT_POLYLINE, SN_XT_CLOTHOID, SN_XT_NURBS, SN_XT_CLOTHOID_SPLINE } sn_xtraj_shape;

typedef enum sn_xact_kind {
    SN_XA_SPEED, SN_XA_LANE_CHANGE, SN_XA_LANE_OFFSET, SN_XA_TELEPORT, SN_XA_TRAJECTORY, SN_XA_CONTROLLER,
    SN_XA_ENVIRONMENT, SN_XA_PARAM_SET, SN_XA_PARAM_MODIFY, SN_XA_NOOP, SN_XA_ROUTE, SN_XA_ACQUIRE, SN_XA_LONG_DIST,
    SN_XA_SYNC, SN_XA_SIGNAL_STATE, SN_XA_SIGNAL_CONTROLLER, SN_XA_ASSIGN_CONTROLLER,
    SN_XA_SPEED_PROFILE, SN_XA_LAT_DIST, SN_XA_TRAFFIC, SN_XA_LIGHT, SN_XA_ADD_ENTITY, SN_XA_DELETE_ENTITY
} sn_xact_kind;

typedef struct sn_xaction {
    sn_xact_kind kind;
    int line;
    sn_xdyn dyn;
    bool relative;       /* target relative to an entity (or, lane offset/change: to `ref`) */
    int ref;             /* entity of a relative target, -1 none */
    bool factor;         /* RelativeTargetSpeed speedTargetValueType="factor" (else delta) */
    bool continuous;
    double value;        /* target speed / lane offset; lane change: the lane id or the relative value */
    bool has_lane_offset;
    double lane_offset;  /* LaneChange targetLaneOffset */
    double max_lat_acc;  /* LaneOffsetActionDynamics maxLateralAcc, 0 none */
    sn_xpos pos;         /* Teleport, AcquirePosition */
    /* FollowTrajectory (polyline); AssignRoute: the waypoints in verts */
    sn_xpos *verts;
    double *times;       /* per vertex, when timed */
    uint32_t n_verts;
    bool timed;
    double t_scale, t_offset;
    bool t_absolute;     /* domainAbsoluteRelative="absolute" */
    bool traj_follow;    /* TrajectoryFollowingMode followingMode="follow" */
    double traj_d0;      /* FollowTrajectoryAction initialDistanceOffset (1.2): where along the path it starts */
    bool lon, lat;       /* ActivateController */
    /* Environment */
    sn_weather weather;
    bool has_weather;
    /* Parameter */
    char *param;
    char *svalue;
    bool multiply;       /* ModifyAction: MultiplyByValue (else AddValue) */
    const char *noop_what; /* NOOP: the element it stands for, named in a warning */
    /* LongitudinalDistanceAction: value is the distance or (time_gap) the time gap */
    bool time_gap, freespace, leading, has_limits;
    double lim_acc, lim_dec, lim_speed;
    /* FollowTrajectory shapes other than a Polyline: the path is sampled when the action starts
    ** (xosc_shape.c). Clothoid: pos is its start (kind SN_XP_NONE: the entity's pose then). */
    sn_xtraj_shape traj_shape;
    double cl_curv, cl_curv_dot, cl_len, cl_t0, cl_t1;
    double *weights, *knots; /* Nurbs: per control point (verts), and the knot vector, owned */
                             /* ClothoidSpline: weights holds 5 per segment (curvatureStart,
                             ** curvatureEnd, length, hOffset, timeStart or NAN), verts its
                             ** PositionStart (kind SN_XP_NONE: where the last one ended), n_verts
                             ** segments; cl_t1 timeEnd */
    uint32_t n_knots;
    int order;
    /* SynchronizeAction (xosc_sync.c): ref is the master; pos the master's target, verts[0] the entity's */
    double sync_speed;       /* final speed (absolute), or the master's speed times it (relative, sync_rel) */
    bool has_sync_speed, sync_rel;
    double sync_tol, sync_tol_master;
    /* TrafficSignalStateAction / TrafficSignalControllerAction (xosc_signal.c) */
    char *signal;            /* the signal's id (state action) or the controller's name */
    char *sstate;            /* the state text, or the phase's name */
    /* SpeedProfileAction (xosc_move.c): per entry its speed (m/s; relative to ref's when ref >= 0)
    ** and the time to reach it from the previous entry (-1: as fast as the limits allow); the
    ** limits (has_limits: lim_acc, lim_dec, lim_speed) from DynamicConstraints */
    double *prof_v, *prof_t; /* owned */
    uint32_t n_prof;
    /* LateralDistanceAction: ref, value (the distance; has_lane_offset false: the one at its
    ** start), freespace, continuous, the limits; side +1 left of the reference, -1 right, 0 any */
    int side;
    /* SynchronizeAction's FinalSpeed/SteadyState: 0 none, 1 TargetDistanceSteadyState (ss_value
    ** m before the target), 2 TargetTimeSteadyState (ss_value s before the master arrives) */
    int ss_kind;
    double ss_value;
    /* TrafficAction (xosc_traffic.c): tr_kind SN_XTF_* below; signal is its trafficName (1.2) or
    ** NULL; ref the swarm's central entity; pos the source's or sink's position; tr_v0..tr_v1 the
    ** spawned vehicles' speed range (NAN: the lane's limit, as sensim's autopilot drives);
    ** weights: SN_XCAT_N vehicle category weights (TrafficDefinition), NULL: the central entity's
    ** blueprint (swarm) or vehicle.sedan; tr_rate INFINITY for a sink without a rate */
    int tr_kind;
    uint32_t tr_n;
    double tr_inner, tr_major, tr_minor, tr_offset, tr_radius, tr_rate, tr_v0, tr_v1;
    /* LightStateAction (1.2): light is the SN_LIGHT_* bits (sensim/types.h) of its VehicleLight type (0: a
    ** light CARLA's vehicles do not have, warned at load), value 1 on, 0 off, 2 flashing */
    uint32_t light;
    /* SpeedProfileAction followingMode follow: DynamicConstraints' maxAccelerationRate and
    ** maxDecelerationRate (m/s^3, 0 not given: no limit); prof_follow set when either is */
    double jerk_acc, jerk_dec;
    bool prof_follow;
} sn_xaction;

enum { SN_XTF_SWARM, SN_XTF_SOURCE, SN_XTF_SINK, SN_XTF_STOP };
/* The vehicle categories of a TrafficDefinition, in the order of sn_xosc_vehicle_blueprint's table. */
#define SN_XCAT_N 10
extern const char *const sn_xosc_vehicle_cats[SN_XCAT_N + 1];
/* The blueprint of a vehicle category (docs/openscenario.md, "Entities and blueprints"). */
const char *sn_xosc_vehicle_blueprint(const char *cat, double len);

/* ---- conditions and triggers ---- */

typedef enum sn_xcond_kind {
    SN_XC_SIM_TIME, SN_XC_STATE, SN_XC_PARAM, SN_XC_SPEED, SN_XC_REL_SPEED, SN_XC_ACCEL, SN_XC_REACH, SN_XC_DISTANCE,
    SN_XC_REL_DISTANCE, SN_XC_HEADWAY, SN_XC_TTC, SN_XC_TRAVELED, SN_XC_STANDSTILL, SN_XC_COLLISION,
    SN_XC_END_OF_ROAD, SN_XC_OFFROAD, SN_XC_SIGNAL, SN_XC_SIGNAL_CTL, SN_XC_ANGLE, SN_XC_REL_ANGLE
} sn_xcond_kind;

typedef enum sn_xedge { SN_XE_NONE, SN_XE_RISING, SN_XE_FALLING, SN_XE_BOTH } sn_xedge;
typedef enum sn_xrdt { SN_XRD_EUCLIDEAN, SN_XRD_LONGITUDINAL, SN_XRD_LATERAL } sn_xrdt;

/* StoryboardElementStateCondition's states and transitions. */
typedef enum sn_xstate_ref {
    SN_XSR_STANDBY, SN_XSR_RUNNING, SN_XSR_COMPLETE, SN_XSR_START, SN_XSR_END, SN_XSR_STOP, SN_XSR_SKIP
} sn_xstate_ref;

typedef struct sn_xcond {
    char *name;
    int line;
    sn_xcond_kind kind;
    double delay;
    sn_xedge edge;
    sn_xrule rule;
    double value;
    int *trig;           /* TriggeringEntities, entity indices */
    uint32_t n_trig;
    bool trig_all;       /* triggeringEntitiesRule="all" */
    int ref;             /* entityRef of the condition, -1 none */
    sn_xpos pos;         /* Reach/Distance/TTC to a position */
    bool freespace;
    sn_xrdt rdt;
    bool road_cs;        /* coordinateSystem road or lane: longitudinal is along the road (s) */
    char *elem_name;     /* StoryboardElementState */
    int elem_kind;       /* sn_xelem_kind wanted */
    int elem;            /* resolved element index */
    sn_xstate_ref state;
    char *param;         /* ParameterCondition */
    char *svalue;
    /* runtime */
    bool prev, fired_once;
    bool evaluated;      /* evaluated before: an edge needs a previous value */
    uint64_t seen_seq;   /* transitions newer than this are seen by a StoryboardElementStateCondition */
    double *pend;        /* delayed edges: the times at which they fire (oldest first), owned */
    double *pend_m;      /* ... and the value measured at each edge, owned */
    uint32_t n_pend, cap_pend;
    double measured;     /* last measured value (for the log) */
    double *since;       /* StandStill/EndOfRoad/Offroad: per triggering entity, the time the state began (-1 not) */
    bool *held;          /* per triggering entity: its rule held at the last evaluation */
    uint32_t hits;       /* CollisionCondition: the collisions of its triggering entities at the last evaluation */
    /* TrafficSignalCondition: param is the signal's id, svalue the state; TrafficSignalControllerCondition:
    ** sigctl the controller (index into sigctl), svalue the phase's name */
    int sigctl;
    /* AngleCondition, RelativeAngleCondition (1.3): value is the angle, angle_tol its tolerance,
    ** angle_type 0 heading, 1 pitch, 2 roll; angle_cs 0 entity, 1 lane, 2 road, 3 trajectory, 4 world */
    double angle_tol;
    int angle_type, angle_cs;
    /* `direction` (1.2) of RelativeSpeedCondition: 0 none (the speeds' difference), 1 longitudinal,
    ** 2 lateral (the triggering entity's velocity along the reference's x or y axis, less the
    ** reference's own); of SpeedCondition and AccelerationCondition: 0 or 1 (along the heading) */
    int direction;
} sn_xcond;

typedef struct sn_xgroup {
    int *conds;
    uint32_t n;
} sn_xgroup;

typedef struct sn_xtrigger {
    sn_xgroup *groups;
    uint32_t n;
} sn_xtrigger;

/* ---- storyboard elements ---- */

typedef enum sn_xelem_kind { SN_XK_STORYBOARD, SN_XK_STORY, SN_XK_ACT, SN_XK_MGROUP, SN_XK_MANEUVER, SN_XK_EVENT, SN_XK_ACTION } sn_xelem_kind;
typedef enum sn_xstate { SN_XST_STANDBY, SN_XST_RUNNING, SN_XST_COMPLETE } sn_xstate;
typedef enum sn_xprio { SN_XPR_OVERRIDE, SN_XPR_SKIP, SN_XPR_PARALLEL } sn_xprio;
enum { SN_XTR_START, SN_XTR_END, SN_XTR_STOP, SN_XTR_SKIP, SN_XTR_RESET };

typedef struct sn_xelem {
    sn_xelem_kind kind;
    char *name;
    int line;
    int parent;
    int *children;
    uint32_t n_children;
    int start, stop;       /* trigger indices, -1 none (Act start/stop, Event start, Storyboard stop) */
    uint32_t max_exec;     /* ManeuverGroup, Event: maximumExecutionCount */
    uint32_t exec;         /* executions begun */
    sn_xprio prio;
    int *actors;           /* ManeuverGroup: entity indices (selectTriggeringEntities: set when its Act starts) */
    uint32_t n_actors;
    bool select_trig;      /* ManeuverGroup: actors are the entities that triggered its Act's StartTrigger */
    int action;            /* Action: index into actions; -1 */
    bool global;           /* Action: a GlobalAction (no actors) */
    /* runtime */
    sn_xstate state;
    uint64_t trans_seq[5]; /* sequence number of the last transition of each kind, 0 never */
    uint32_t running;      /* Action: instances (per actor) still running */
} sn_xelem;

/* ---- entities ---- */

typedef enum sn_xent_kind { SN_XEN_VEHICLE, SN_XEN_PEDESTRIAN, SN_XEN_MISC } sn_xent_kind;

typedef struct sn_xentity {
    char *name;
    int line;
    sn_xent_kind kind;
    char *category;
    double cx, cy, cz, len, wid, hgt; /* BoundingBox Center and Dimensions */
    double max_speed, max_acc, max_dec; /* Performance, 0 = not given */
    const char *blueprint;              /* chosen (docs/openscenario.md, "Entities") */
    bool external;                      /* its ObjectController is an external one: the user drives it once activated */
    bool unplayed_controller;           /* it has an ObjectController sensim does not play: activation changes nothing */
    bool added;                         /* an AddEntityAction names it (EntityAction: ref, pos) */
} sn_xentity;

/* ---- traffic signals: RoadNetwork/TrafficSignals controllers (xosc_signal.c plays them) ---- */

typedef struct sn_xsigstate {
    char *id;      /* trafficSignalId: the OpenDRIVE signal's id */
    char *state;   /* as written ("red", "off;off;on", ...) */
} sn_xsigstate;

typedef struct sn_xphase {
    char *name;
    double duration;  /* s */
    sn_xsigstate *states;
    uint32_t n;
} sn_xphase;

typedef struct sn_xsigctl {
    char *name;
    int line;
    double delay;     /* s after its reference's start (or the scenario's) */
    int reference;    /* controller index, -1 none */
    sn_xphase *phases;
    uint32_t n_phases;
} sn_xsigctl;

/* An Init private action of one entity. */
typedef struct sn_xinit {
    int entity;
    int action;
} sn_xinit;

typedef struct sn_xosc {
    char *path;
    char *dir;             /* the file's folder: LogicFile and relative paths resolve against it */
    char *description, *author, *date;
    int rev_major, rev_minor;
    char *logic_file;      /* resolved path of RoadNetwork/LogicFile, NULL without one */
    int logic_line;
    sn_xparams params;
    sn_xentity *ents;
    uint32_t n_ents;
    sn_xaction *actions;
    uint32_t n_actions;
    sn_xinit *inits;
    uint32_t n_inits;
    int *init_globals;     /* Init GlobalActions (actions indices) */
    uint32_t n_init_globals;
    sn_xelem *elems;       /* elems[0] is the Storyboard */
    uint32_t n_elems;
    sn_xcond *conds;
    uint32_t n_conds;
    sn_xtrigger *trigs;
    uint32_t n_trigs;
    char **warnings;       /* "FILE:LINE: <element>: what", one per kind */
    uint32_t n_warnings;
    sn_xsigctl *sigctl;    /* RoadNetwork/TrafficSignals/TrafficSignalController */
    uint32_t n_sigctl;
    sn_xroute *routes;     /* the Routes of RoutePositions */
    uint32_t n_routes;
} sn_xosc;

/* Parses a scenario file. `sets` are "NAME=VALUE" parameter overrides (--set parameters.NAME=VALUE),
** applied to the file's top-level ParameterDeclarations (an unknown name is an error). Errors
** name "FILE:LINE: <Element>: what". The caller frees *out with sn_xosc_free (NULL on failure). */
sn_status sn_xosc_load(const char *path, const char *const *sets, size_t n_sets, sn_xosc **out, sn_error *err);
/* The same from memory (the fuzzer's entry); `path` names the file in messages and is the base of
** relative paths. */
sn_status sn_xosc_load_memory(const char *xml, size_t size, const char *path, const char *const *sets, size_t n_sets,
                              sn_xosc **out, sn_error *err);
void sn_xosc_free(sn_xosc *x); /* NULL-safe */

/* xosc_expr.c: the value of an attribute: "$name" is the parameter's value, "${expr}" the
** expression's (numbers, + - * / %, unary -, comparisons == != < <= > >=, and/or/not, parentheses,
** round floor ceil sqrt pow abs sin cos tan min max), else the text itself. out[cap] receives it.
** Errors ("undefined parameter", "parameter loop", "bad expression") say what in why[]. */
bool sn_xparam_subst(sn_xparams *p, const char *text, char *out, size_t cap, char *why, size_t why_cap);
/* Declares (or, with replace, sets) a parameter. */
bool sn_xparam_set(sn_xparams *p, const char *name, const char *value, int line, bool replace);
sn_xparam *sn_xparam_find(sn_xparams *p, const char *name);
void sn_xparams_free(sn_xparams *p);
/* Evaluates an expression (the text inside ${ }) to a number. */
bool sn_xexpr_eval(sn_xparams *p, const char *expr, double *out, char *why, size_t why_cap);

const char *sn_xelem_kind_name(sn_xelem_kind k);
const char *sn_xstate_name(sn_xstate s);
const char *sn_xcond_kind_name(sn_xcond_kind k);

#endif
