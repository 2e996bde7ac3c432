/* lanemap.h — the map as the engine holds it: the parsed network (odr.h), its spatial index
** and the lane graph behind sensim/map.h's queries.
**
** World frame: CARLA's. A point (x, y, z) of the OpenDRIVE frame is (x, -y, z) in the world;
** a heading h is a yaw of -h. sn_map_world / sn_map_odr convert; nothing else flips axes. */
#ifndef SN_MAP_LANEMAP_H
#define SN_MAP_LANEMAP_H

#include "odr.h"

#include <sensim/map.h>

/* One lane of one section of one road. */
typedef struct sn_lanekey {
    int32_t road;    /* index into odr->roads */
    uint32_t section;
    int32_t lane;    /* OpenDRIVE lane id, never 0 */
} sn_lanekey;

/* An item of the spatial index: a stretch [s0, s1] of one section of one road. */
typedef struct sn_map_item {
    int32_t road;
    uint32_t section;
    double s0, s1;
    double x0, x1, y0, y1; /* world box of all its lanes, a margin wider: a lower bound on distance */
} sn_map_item;

typedef struct sn_map_cell {
    uint64_t key;  /* packed cell coordinates */
    uint32_t item;
} sn_map_cell;

struct sn_map {
    sn_odr *odr;
    char *xml;              /* the file's text (to_opendrive), NUL-terminated */
    size_t xml_size;
    sn_map_item *items;
    uint32_t n_items;
    sn_map_cell *cells;     /* sorted by key: the items over each cell */
    size_t n_cells;
    double cell;            /* m, side of a cell */
    sn_vec3 lo, hi;         /* bounds of every lane, world frame */
    double driving_m;       /* length of the driving lanes */
    double lane_m;          /* lanes x length of every section (at most SN_ODR_MAX_LANE_M) */
    /* A map shared through the engine's map cache (frame/map_cache.h): sn_map_close hands it
    ** back there instead of freeing it. NULL for a map of one owner. */
    void (*release)(struct sn_map *m);
    void *release_user;
};

/* The bytes of a map file, NUL-terminated (*size without the NUL); the caller frees them. NULL
** with err set ("PATH: cannot read the map") when the file cannot be opened or read. */
char *sn_map_read_file(const char *path, size_t *size, sn_error *err);

/* Builds the index of an opened network; takes `odr` and `xml` (freed with the map on success
** and on failure). */
sn_status sn_map_build(sn_odr *odr, char *xml, size_t xml_size, sn_map **out, sn_error *err);

/* Direction of travel of a lane along s: +1 or -1 (right-hand traffic: negative ids go with s). */
int sn_map_lane_dir(const sn_odr_road *r, int lane_id);
/* OpenDRIVE point -> world, and heading (rad) -> yaw (degrees). */
sn_vec3 sn_map_world(const double p[3]);
double sn_map_yaw(double hdg);

/* Where a world point lies on a road: the road and section whose reference line it projects
** onto nearest (3-D distance to the road's surface), s, t (of the surface point straight above
** or below it: sn_odr_t_of), and the lane holding t (+-(n+1) beyond the outer lanes). With lane_types 0 the lane is whichever holds t, of any
** type; otherwise the nearest lane of those types. false when no road is within `radius` m. */
typedef struct sn_map_place {
    int32_t road;
    uint32_t section;
    double s, t;
    int lane;
    double outside;   /* metres of t outside the lane (0 inside; horizontal on a level road) */
    double dz;        /* height of the point above the road surface there */
} sn_map_place;
bool sn_map_locate(const sn_map *m, sn_vec3 world, double radius, uint32_t lane_types, sn_map_place *out);

/* The waypoint of a lane at s (clamped into the section). */
void sn_map_make_waypoint(const sn_map *m, sn_lanekey k, double s, sn_waypoint *out);
/* The lanes that follow (dir of travel) lane k past its end: up to cap keys and their entry s. */
size_t sn_map_successors(const sn_map *m, sn_lanekey k, bool forward, sn_lanekey *out, double *s_out, size_t cap);

/* A place on a lane: all that next/previous read of a waypoint (its lane and s), for walks that
** need few of the waypoints they pass whole (the autopilot's route and gap searches). */
typedef struct sn_lanepos {
    sn_lanekey k;
    double s; /* within the section */
} sn_lanepos;
/* wp's place as sn_map_next would start from it; false where sn_map_next fails on wp. */
bool sn_map_pos_of(const sn_map *m, const sn_waypoint *wp, sn_lanepos *out);
/* sn_map_next (forward) or sn_map_previous on places, for d in (0, 1e6]: the same walk and the
** same order, so sn_map_make_waypoint(m, out[i].k, out[i].s) is bit for bit that call's out[i].
** Returns its count (0 where it fails), which may exceed cap as there. */
size_t sn_map_walk_pos(const sn_map *m, const sn_lanepos *from, double d, bool forward, sn_lanepos *out, size_t cap);
/* The waypoint's transform.location and is_junction at a place, without the rest of it. */
sn_vec3 sn_map_pos_location(const sn_map *m, const sn_lanepos *p);
bool sn_map_pos_junction(const sn_map *m, const sn_lanepos *p);

#endif
