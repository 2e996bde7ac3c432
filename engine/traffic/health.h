/* health.h — traffic health: a world observer that reads the finished state of every frame and
** counts, per simulated minute, what tells whether traffic flows (docs/traffic.md, "Traffic
** health"): autopilot vehicles that stood (moved less than 1 m) or crawled (less than 50 m),
** red-light crossings (a vehicle's front crossing a red light's stop line, from the lights'
** stop waypoints and the poses alone, whatever the autopilot decided), collisions between
** autopilot vehicles, flipped vehicles (|pitch| or |roll| over 30 degrees), and what the
** autopilot reports of itself: deadlocks it resolved and lane changes.
**
** It lives in the engine by value (sn_engine.health), all zero before the first frame, and
** runs after the world advances (step 4 of the frame), in actor id order: deterministic at
** any thread count. Not during a replay. run.json and `sensim run --stats` write it. */
#ifndef SN_TRAFFIC_HEALTH_H
#define SN_TRAFFIC_HEALTH_H

#include <sensim/sensim.h>

#include <stdint.h>
#include <stdio.h>

struct sn_engine;

#define SN_HEALTH_WINDOW_NS 60000000000LL /* a window: one simulated minute */
#define SN_HEALTH_STANDING 1.0   /* m: less over a window is standing */
#define SN_HEALTH_CRAWLING 50.0  /* m: less over a window is crawling (issue 31's 95 % rule) */
#define SN_HEALTH_FLIPPED 30.0   /* degrees of |pitch| or |roll| beyond which a vehicle is flipped */
#define SN_HEALTH_EVENTS 100     /* events of each kind kept for run.json (the rest are counted) */

/* A vehicle followed across frames (in id order). */
typedef struct sn_health_vehicle {
    uint32_t id;
    uint64_t seen;       /* the frame it was last seen */
    bool autopilot;      /* driving on autopilot when last seen */
    bool from_start;     /* present at the current window's first frame */
    bool flipped;        /* flipped at some frame of the current window */
    bool ever_flipped;
    double travelled;    /* m, horizontal, over the current window */
} sn_health_vehicle;

/* A stop line: across its lane at a light's stop waypoint. */
typedef struct sn_health_stop {
    double x, y, z, dx, dy; /* its centre, and the lane's direction of travel (unit) */
    double half_width;
    uint32_t light;         /* the light's actor id */
} sn_health_stop;

/* Two vehicles that touch again within this long after their last contact (a rebound, a
** push) are still in the same collision. */
#define SN_HEALTH_REBOUND_NS 1000000000LL

typedef struct sn_health_touch {
    uint64_t key;
    int64_t last_ns;
} sn_health_touch;

/* Something that happened, kept for run.json (the first SN_HEALTH_EVENTS of each kind). */
typedef struct sn_health_event {
    uint64_t frame;
    uint32_t a, b;          /* red light: vehicle, light; collision: the pair; flipped: vehicle */
} sn_health_event;

typedef struct sn_health {
    /* What the autopilot notes (sn_health_note_*), counted into the frame's window when the
    ** frame is observed. */
    uint32_t deadlocks_resolved, lane_changes;

    bool started;
    int64_t window;             /* the current window's index (its start: window x 60 s) */
    int64_t window_start_ns, last_ns; /* the current window's first frame's start; the last frame's end */
    uint64_t last_frame;        /* the last frame observed */
    sn_traffic_health cur;      /* the current window so far (struct_size set) */
    sn_traffic_health *done;    /* finished windows, owned */
    uint32_t n_done, cap_done;
    uint32_t flipped_total;     /* distinct vehicles flipped over the run */

    sn_health_vehicle *veh;     /* by id, ascending; owned */
    uint32_t n_veh, cap_veh;

    sn_health_stop *stops;      /* sorted by x; owned */
    uint32_t n_stops, cap_stops, stops_lights; /* stops_lights: the light count they were built for */
    double stops_reach;         /* the largest half width: the x margin of the search */

    /* Autopilot pairs that touched within the last SN_HEALTH_REBOUND_NS, sorted by key
    ** (lo << 32 | hi), with the end of the frame they last touched in; two arrays, swapped. */
    sn_health_touch *touching, *touching_next; /* owned */
    uint32_t n_touching, n_touching_next, cap_touching;

    sn_health_event *events[3]; /* red-light crossings, autopilot collisions, flips; owned */
    uint32_t n_events[3], cap_events[3];
    uint64_t more_events[3];    /* beyond SN_HEALTH_EVENTS */
} sn_health;

enum { SN_HEALTH_EV_RED = 0, SN_HEALTH_EV_COLLISION = 1, SN_HEALTH_EV_FLIP = 2 };

/* The autopilot's notes (traffic/traffic.c): a deadlock it detected and resolved, a lane
** change it made. Counted into the window of the frame being stepped. Never fail. */
void sn_health_note_deadlock(struct sn_engine *e);
void sn_health_note_lane_change(struct sn_engine *e);

/* Reads the frame the world just finished (step 4). SN_E_NOMEM when a record cannot grow. */
sn_status sn_health_observe(struct sn_engine *e, sn_error *err);

/* The totals (every window summed; flipped: distinct vehicles), the number of windows (the
** finished ones and the current one, when a frame was observed) and one of them. */
void sn_health_totals(const sn_health *h, sn_traffic_health *out);
uint32_t sn_health_windows(const sn_health *h);
bool sn_health_window(const sn_health *h, uint32_t index, sn_traffic_health *out);

/* The `traffic_health` object of run.json and --stats (docs/traffic.md), one line. */
void sn_health_json(const sn_health *h, FILE *f);

void sn_health_free(sn_health *h);

#endif
