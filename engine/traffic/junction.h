/* junction.h — junctions without deadlock: the conflict areas of every junction's connecting
** lanes (built once per map) and the claims vehicles hold on them (docs/traffic.md, "Junctions").
**
** A connector is one driving lane of one connecting road. Two connectors of a junction conflict
** where their centre lines come nearer than SN_JX_CONFLICT (they cross or merge); connectors that
** leave the same incoming lane do not (their vehicles queue on that lane; the leader rule keeps
** them apart). A vehicle near a junction's entry claims the connectors its path takes; the claim
** is granted first come, first served among the claims that conflict with it (CARLA TM's entry
** ticket, TrafficLightStage.cpp, made per conflict area), and a granted claim holds until the
** vehicle's rear has left every area it shares with the others. Engine-internal. */
#ifndef SN_TRAFFIC_JUNCTION_H
#define SN_TRAFFIC_JUNCTION_H

#include "../map/lanemap.h"

#define SN_JX_CONFLICT 2.6  /* m between centre lines: nearer, two cars' boxes would touch */
#define SN_JX_MAXC 4        /* connectors one passage through a junction takes */

/* A zone of connector `other` within SN_JX_CONFLICT of this one: [a, b] m along `other` from its start. */
typedef struct sn_jconf {
    uint32_t other;
    double a, b;
    int prio;                 /* +1: this connector goes first, -1: `other` does, 0: first come first served */
    bool merge;               /* the priority is a merge's (main and merging stream), not a <priority> record's */
} sn_jconf;

typedef struct sn_jconn {
    int32_t road_id, lane_id; /* OpenDRIVE ids of the connecting road and lane */
    int32_t junction;         /* index into the map's junctions */
    int32_t in_road, in_lane; /* the lane it leaves (OpenDRIVE ids), road -1 when unknown */
    double length;            /* m along its centre */
    int turn;                 /* -1 left, 0 straight, +1 right (heading change beyond 30 degrees) */
    uint32_t first, n;        /* its conflicts: sn_junctions.conf[first .. first + n) */
} sn_jconn;

/* One vehicle's claim on a junction: the connectors of its passage and where it is. */
typedef struct sn_jclaim {
    uint32_t actor;
    uint32_t conn[SN_JX_MAXC];
    double off[SN_JX_MAXC];   /* where each connector starts, m from the passage's entry */
    uint32_t n_conn;
    double front, len;        /* the front bumper's progress from the entry (< 0 before it), the vehicle's length */
    double ticket;            /* s: arrival, plus the turning penalty (docs/traffic.md) */
    double ready_since;       /* s: since when it has been ready to enter (its starvation clock) */
    bool ready, granted;
    uint64_t frame;           /* last refreshed */
} sn_jclaim;

typedef struct sn_jlist {
    sn_jclaim *c;
    uint32_t n, cap;
} sn_jlist;

typedef struct sn_junctions {
    sn_jconn *conn;           /* sorted by road id, lane id */
    uint32_t n_conn;
    sn_jconf *conf;
    uint32_t n_conf;
    sn_jlist *claims;         /* per junction (odr index) */
    uint32_t n_junctions;
    double now;               /* s: the frame's time, set by sn_jx_vehicle */
} sn_junctions;

/* Builds the connectors and their conflicts; NULL when out of memory. */
sn_junctions *sn_junctions_build(const sn_map *m);
void sn_junctions_free(sn_junctions *j); /* NULL-safe */
/* The connector of (road, lane), or -1. */
int32_t sn_jx_conn(const sn_junctions *j, int32_t road_id, int32_t lane_id);
/* The claim of `actor` on junction `jn`; create: a new one (zeroed but for actor) when none. NULL
** when absent (or out of memory). */
sn_jclaim *sn_jx_claim(sn_junctions *j, int32_t jn, uint32_t actor, bool create);
void sn_jx_release(sn_junctions *j, int32_t jn, uint32_t actor);
/* Drops the claims not refreshed since frame `before` (vehicles gone or off their paths). */
void sn_jx_purge(sn_junctions *j, uint64_t before);
/* Whether claim x may enter now: no granted claim still in an area it shares with x, and no ready
** claim with an earlier ticket that conflicts with it. *blocker: the first claim in its way. */
bool sn_jx_may_enter(const sn_junctions *j, int32_t jn, const sn_jclaim *x, uint32_t *blocker);

/* ---- A vehicle at a junction ---- */

#include "traffic.h"

/* The next passage through a junction along a path: its connectors, and where it starts and
** ends (m along the path from the vehicle's centre; entry < 0 once inside). */
typedef struct sn_jpass {
    int32_t junction;         /* odr index, -1 when the path meets none */
    uint32_t conn[SN_JX_MAXC];
    double off[SN_JX_MAXC];
    uint32_t n_conn;
    double entry, exit;
    uint32_t i_exit;          /* the path's first waypoint past it (n when beyond the path) */
    int turn;                 /* of its first connector */
    bool minor;               /* it merges into a main stream it yields to (a roundabout's entry) */
    bool main;                /* it is such a main stream (a roundabout's ring) */
} sn_jpass;

void sn_jx_passage(const sn_junctions *j, const sn_map *m, const sn_pathwp *path, const double *along, uint32_t n,
                   sn_jpass *p);

/* What the vehicle's controller knows this frame. */
typedef struct sn_jctx {
    sn_junctions *j;
    uint32_t actor;
    double now, v, dt;
    uint64_t frame;
    double half_len;          /* half the vehicle's length (its front from its centre) */
    bool queued;              /* another vehicle waits between it and the entry */
    bool held;                /* a red or yellow light holds it before this junction */
    bool exit_free;           /* room for it beyond the exit */
    double stop_margin, a_hard; /* the planner's */
} sn_jctx;

/* Keeps md's claims and decides: INFINITY when the vehicle may go on, else the distance from its
** centre to the entry, where it must stop. *blocker: the claim in its way (0 none). */
double sn_jx_vehicle(const sn_jctx *c, const sn_jpass *p, sn_mapdrive *md, uint32_t *blocker);

#endif
