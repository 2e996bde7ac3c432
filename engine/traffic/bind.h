/* bind.h — signals bound to lanes as CARLA binds them (docs/traffic.md, "Signals on lanes").
**
** CARLA's rule (LibCarla/source/carla/road/MapBuilder.cpp, opendrive/parser/SignalParser.cpp,
** Unreal/.../Traffic/TrafficLightComponent.cpp, StopSignComponent.cpp, YieldSignComponent.cpp,
** SpeedLimitComponent.cpp): a <signal> is also a reference to itself on its own road; every
** <signalReference id=...> on any road is another. A reference whose validities are all
** fromLane="0" toLane="0" is dropped (RemoveZeroLaneValiditySignalReferences); one without
** validity gets every lane on the side its orientation names (GenerateDefaultValidities...).
** Each remaining lane of each reference is an affected lane (get_affected_lane_waypoints); on
** driving lanes the signal acts: for lights, stop and yield signs a reference on a junction's
** connecting road whose lane has exactly one predecessor outside the junction acts on that
** predecessor's end, and the trigger box stands upstream of the line, clamped into the lane. */
#ifndef SN_TRAFFIC_BIND_H
#define SN_TRAFFIC_BIND_H

#include "../map/lanemap.h"

#include <stddef.h>

typedef enum sn_bind_kind { SN_BIND_LIGHT, SN_BIND_STOP, SN_BIND_YIELD, SN_BIND_SPEED } sn_bind_kind;

/* A lane a signal names (CARLA's get_affected_lane_waypoints): the lane at the reference's s. */
typedef struct sn_bind_lane {
    int32_t road_id, lane_id;
    double s;
} sn_bind_lane;

/* Where a signal acts on one driving lane: its line, and CARLA's trigger box there. */
typedef struct sn_bound {
    int32_t road_id, lane_id;  /* the lane a vehicle is on when it meets the line */
    double s;                  /* the line: the reference's s, or the end of the lane before the junction */
    int32_t via_road, via_lane; /* the connecting lane the reference names when the line was moved back
                                  ** onto the lane before it; -1, 0 when not, or when several do */
    sn_vec3 box_location, box_extent; /* world frame, half extents, m */
    sn_rotation box_rotation;  /* the lane's direction of travel at the box */
} sn_bound;

/* Every signal and reference record of the map by signal id. */
typedef struct sn_sigref {
    int32_t id;
    int32_t road;  /* road index */
    uint32_t k;    /* index in that road's signals */
} sn_sigref;

typedef struct sn_sigindex {
    sn_sigref *r;  /* sorted by id, then road index, then k */
    uint32_t n;
} sn_sigindex;

/* Growable outputs of one binding (the caller owns and frees them; reset n before each call). */
typedef struct sn_bind_out {
    sn_bind_lane *lanes;
    size_t n_lanes, cap_lanes;
    sn_bound *b;
    size_t n_b, cap_b;
} sn_bind_out;

/* What binding met that a map should not have, for one-time warnings (first example kept). */
typedef struct sn_bind_issues {
    uint32_t missing_lane;      /* a validity names a lane its road does not have at s */
    int32_t ml_signal, ml_road, ml_lane;
    uint32_t orphan_refs;       /* <signalReference>s to a signal id no <signal> has */
    int32_t or_signal, or_road;
} sn_bind_issues;

/* false: out of memory. */
bool sn_sigindex_build(const sn_odr *o, sn_sigindex *ix);
void sn_sigindex_free(sn_sigindex *ix);
/* The <signal> record of id (NULL if none; a reference is not one) and its road index. */
const sn_odr_signal *sn_sigindex_signal(const sn_odr *o, const sn_sigindex *ix, int32_t id, int32_t *road);
/* Counts references whose id no <signal> has (into iss). */
void sn_sigindex_orphans(const sn_odr *o, const sn_sigindex *ix, sn_bind_issues *iss);

/* Appends signal `id`'s affected lanes and its lines (one per lane, the first reference's) to
** out. false: out of memory. */
bool sn_bind_signal(const sn_map *m, const sn_sigindex *ix, int32_t id, sn_bind_kind kind, sn_bind_out *out,
                    sn_bind_issues *iss);
void sn_bind_out_free(sn_bind_out *out);

#endif
