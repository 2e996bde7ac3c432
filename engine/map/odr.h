/* odr.h — an ASAM OpenDRIVE road network as plain data, and the pure functions that evaluate it.
**
** Parsed once (odr_parse.c, libxml2) into arrays owned by one sn_odr; read-only afterwards, so
** any number of threads may evaluate it. Everything here is in OpenDRIVE's own right-handed
** frame (x east, y north, heading counter-clockwise from +x); the conversion to CARLA's axes
** (world y = -y, yaw = -heading) happens in the map layer above (map.c), nowhere else.
**
** Ownership: sn_odr_load* allocate the whole network; sn_odr_free releases it. Strings and
** arrays inside belong to the network. */
#ifndef SN_MAP_ODR_H
#define SN_MAP_ODR_H

#include <sensim/sensim.h>
#include <sensim/map.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* a + b*ds + c*ds^2 + d*ds^3 with ds = s - s (a record of width, elevation, offset, ...). */
typedef struct sn_odr_poly {
    double s, a, b, c, d;
} sn_odr_poly;

typedef enum sn_odr_geom_kind {
    SN_ODR_LINE,
    SN_ODR_ARC,
    SN_ODR_SPIRAL,
    SN_ODR_POLY3,
    SN_ODR_PARAMPOLY3
} sn_odr_geom_kind;

/* One piece of a road's reference line (planView/geometry). */
typedef struct sn_odr_geom {
    double s, x, y, hdg, length;
    sn_odr_geom_kind kind;
    double curv, curv_end;            /* arc: curv; spiral: curvStart, curvEnd */
    double a, b, c, d;                /* poly3: v(u) in the local frame */
    double au, bu, cu, du, av, bv, cv, dv; /* paramPoly3 */
    bool normalized;                  /* paramPoly3 pRange="normalized": p in [0, 1] */
    int line;                         /* XML line, for messages */
    /* Tabulated at load (sn_odr_geom_tabulate) so an evaluation costs one piece, not an
    ** integral from 0: poly3, the arc length at u = i*tab_h; spiral, the local (x, y) at
    ** s = i*tab_h (pairs). NULL for the other kinds (closed forms). In the network's arena. */
    double *tab, tab_h;
    uint32_t n_tab;
} sn_odr_geom;

typedef struct sn_odr_mark {
    double s_offset;                  /* from the section's start */
    uint8_t type;                     /* sn_lane_marking_type */
    uint8_t color;                    /* sn_lane_marking_color */
    uint8_t lane_change;              /* sn_lane_change */
    uint8_t weight;                   /* 0 standard, 1 bold */
    double width;                     /* m (0.15 when not given, as CARLA) */
} sn_odr_mark;

typedef struct sn_odr_speed {
    double s_offset;
    double max;                       /* m/s; 0 = none given */
} sn_odr_speed;

typedef struct sn_odr_lane {
    int id;
    uint32_t type;                    /* one sn_lane_type flag */
    bool level;
    bool use_border;                  /* widths are <border> records (outer edge's t from the centre lane) */
    sn_odr_poly *widths;              /* s is the sOffset from the section's start */
    uint32_t n_widths;
    sn_odr_mark *marks;
    uint32_t n_marks;
    sn_odr_speed *speeds;
    uint32_t n_speeds;
    bool has_pred, has_succ;
    int pred, succ;                   /* lane ids in the neighbouring section or road */
} sn_odr_lane;

/* Lanes sorted by id, from the rightmost (most negative) to the leftmost; the centre lane 0
** is lanes[n_right]. Ids run -n_right..-1, 0, 1..n_left without holes (checked at load). */
typedef struct sn_odr_section {
    double s, s_end;
    sn_odr_lane *lanes;
    uint32_t n_lanes, n_left, n_right;
} sn_odr_section;

typedef enum sn_odr_elem { SN_ODR_ELEM_NONE, SN_ODR_ELEM_ROAD, SN_ODR_ELEM_JUNCTION } sn_odr_elem;
typedef enum sn_odr_contact { SN_ODR_CONTACT_NONE, SN_ODR_CONTACT_START, SN_ODR_CONTACT_END } sn_odr_contact;

typedef struct sn_odr_link {
    sn_odr_elem elem;
    int32_t id;                       /* road or junction id */
    int32_t index;                    /* its index in the network's roads/junctions; -1 if dangling */
    sn_odr_contact contact;           /* roads only */
} sn_odr_link;

typedef struct sn_odr_roadtype {
    double s;
    char type[24];                    /* "town", "motorway", ... */
    double speed;                     /* m/s; 0 = none given */
} sn_odr_roadtype;

typedef struct sn_odr_validity {
    int from, to;
} sn_odr_validity;

typedef struct sn_odr_signal {
    int32_t id;
    char *name;
    double s, t, z_offset, h_offset, height, width;
    bool dynamic;
    char orientation;                 /* '+', '-' or ' ' (both) */
    char *type, *subtype, *country;
    double value;
    char *unit;                       /* of value ("km/h", "mph", "m/s", ...; "" when not given) */
    sn_odr_validity *validity;
    uint32_t n_validity;
    bool is_reference;                /* a <signalReference> to a signal of another road */
    int line;
    int32_t *deps;                    /* <dependency id="..."> signal ids (non-numeric ones dropped) */
    uint32_t n_deps;
} sn_odr_signal;

typedef struct sn_odr_corner {
    double u, v, z, height;           /* cornerLocal, or cornerRoad (s, t, dz, height) */
} sn_odr_corner;

typedef struct sn_odr_object {
    int32_t id;
    char *name, *type;
    double s, t, z_offset, hdg, length, width, radius, height;
    bool road_corners;                /* corners are cornerRoad (s, t) rather than cornerLocal (u, v) */
    sn_odr_corner *corners;
    uint32_t n_corners;
} sn_odr_object;

typedef struct sn_odr_road {
    int32_t id;
    char *name;
    double length;
    int32_t junction;                 /* -1 when not in a junction */
    int32_t junction_index;           /* -1, or the junction's index */
    sn_odr_link pred, succ;
    char rule;                        /* 'R' right-hand traffic (default), 'L' */
    sn_odr_geom *geoms;
    uint32_t n_geoms;
    sn_odr_poly *elevation, *superelevation, *lane_offset; /* s absolute */
    uint32_t n_elevation, n_superelevation, n_lane_offset;
    sn_odr_section *sections;
    uint32_t n_sections;
    sn_odr_roadtype *types;
    uint32_t n_types;
    sn_odr_signal *signals;
    uint32_t n_signals;
    sn_odr_object *objects;
    uint32_t n_objects;
    int line;
} sn_odr_road;

typedef struct sn_odr_lanelink {
    int from, to;
} sn_odr_lanelink;

typedef struct sn_odr_connection {
    int32_t id;
    int32_t incoming, connecting;     /* road ids */
    int32_t incoming_index, connecting_index; /* road indices, -1 if dangling */
    sn_odr_contact contact;           /* of the connecting road */
    sn_odr_lanelink *links;
    uint32_t n_links;
} sn_odr_connection;

typedef struct sn_odr_junction {
    int32_t id;
    char *name;
    sn_odr_connection *connections;
    uint32_t n_connections;
    int32_t *controllers;             /* controller ids */
    uint32_t n_controllers;
    /* <priority high="" low=""/>: pairs of connecting road ids, the first with priority over the
    ** second (records missing either are dropped) */
    int32_t (*priorities)[2];
    uint32_t n_priorities;
} sn_odr_junction;

typedef struct sn_odr_controller {
    int32_t id;
    char *name;
    int32_t *signals;                 /* signal ids */
    uint32_t n_signals;
} sn_odr_controller;

/* An id and the index of the road or junction that carries it (sorted by id: binary search). */
struct sn_odr_id {
    int32_t id, index;
};

typedef struct sn_odr {
    char *path;                       /* as given, for messages */
    int rev_major, rev_minor;
    char *name;
    double north, south, east, west;
    char *geo_reference;              /* the header's PROJ string, "" if none */
    bool has_geo;                     /* lat_0 / lon_0 found in it */
    double lat0, lon0;
    double offset_x, offset_y, offset_z, offset_hdg; /* header <offset> */
    sn_odr_road *roads;
    uint32_t n_roads;
    sn_odr_junction *junctions;
    uint32_t n_junctions;
    sn_odr_controller *controllers;
    uint32_t n_controllers;
    char **warnings;                  /* one line each, "FILE:LINE: <element>: what" (once per kind) */
    uint32_t n_warnings;
    struct sn_odr_id *road_ids, *junction_ids; /* sorted by id */
    struct sn_odr_arena *arena;       /* every allocation of the network (odr_parse.c) */
} sn_odr;

/* Limits on what a file may ask for, refused at load naming the element. */
#define SN_ODR_MAX_ROADS 1000000u
#define SN_ODR_MAX_LENGTH 1e6        /* m, one road */
#define SN_ODR_MAX_COORD 1e7         /* m from the origin */
#define SN_ODR_MAX_LANES 64          /* per side of one section */
#define SN_ODR_MAX_FILE ((size_t)256 << 20) /* bytes of one file */
#define SN_ODR_MAX_ATTRS 256         /* attributes of one element */
#define SN_ODR_MAX_DEPTH 64          /* elements nested (OpenDRIVE itself needs 8; userData more) */
#define SN_ODR_MAX_LANE_M 1e7        /* m: lanes x length of the whole network (10 000 km of lanes) */
/* m: a signal's zOffset. A traffic light stands on a pole of zOffset + 3 m, a cylinder of at
** most 1 000 m: a file must not load what the scene then refuses (issue 33 item 21). */
#define SN_ODR_MAX_SIGNAL_Z 100.0
#define SN_ODR_MIN_PIECE 1e-9        /* m: a geometry shorter than this is a point (its curvature rate 0) */

/* Parses an OpenDRIVE file. On failure *out is NULL and err says "FILE:LINE: <element>: what". */
sn_status sn_odr_load(const char *path, sn_odr **out, sn_error *err);
/* The same from memory; `name` stands for the file in messages. */
sn_status sn_odr_load_memory(const char *xml, size_t size, const char *name, sn_odr **out, sn_error *err);
void sn_odr_free(sn_odr *m); /* NULL-safe */
/* The XML's size, attributes per element and nesting, on the bytes before they are parsed
** (odr_limits.c): "NAME:LINE: XML: what" past SN_ODR_MAX_FILE, _ATTRS or _DEPTH. */
sn_status sn_odr_check_shape(const char *xml, size_t size, const char *name, sn_error *err);

/* ---- Evaluation (odr_geom.c, odr_lane.c): pure functions of the data ---- */

/* A point of the reference line: position and heading (rad) at s, clamped to [0, length]. */
typedef struct sn_odr_pose {
    double x, y, hdg;
} sn_odr_pose;

/* The piece of `r` that holds s (the last one whose start is <= s + 1e-9). */
uint32_t sn_odr_geom_at(const sn_odr_road *r, double s);
sn_odr_pose sn_odr_geom_eval(const sn_odr_geom *g, double ds);
/* The doubles g's table needs (0: none), and its filling; the parser allocates it. */
size_t sn_odr_geom_tab_size(const sn_odr_geom *g);
void sn_odr_geom_tabulate(sn_odr_geom *g, double *tab);
sn_odr_pose sn_odr_ref_line(const sn_odr_road *r, double s);
/* Curvature (1/m) of the reference line at s. */
double sn_odr_ref_curvature(const sn_odr_road *r, double s);
/* A cubic record list at s: the last record whose start is <= s; 0 when there is none. */
double sn_odr_poly_eval(const sn_odr_poly *p, uint32_t n, double s);
double sn_odr_poly_slope(const sn_odr_poly *p, uint32_t n, double s);
double sn_odr_elevation(const sn_odr_road *r, double s);
double sn_odr_superelevation(const sn_odr_road *r, double s); /* rad, roll about the reference line */
double sn_odr_lane_offset(const sn_odr_road *r, double s);

/* The section holding s: the last whose start <= s; at a boundary, `before` picks the one
** that ends there (evaluate a section's end inside it, never in the next one). */
uint32_t sn_odr_section_at(const sn_odr_road *r, double s, bool before);
/* Lane `id` of a section, or NULL. */
const sn_odr_lane *sn_odr_lane_of(const sn_odr_section *sec, int id);
/* Width of a lane at s (absolute), clamped at 0. */
double sn_odr_lane_width(const sn_odr_section *sec, const sn_odr_lane *l, double s);
/* Lateral offset t (from the reference line, lane offset included) of the outer border of
** lane `id` of section sec at road s; of the centre lane (id 0) it is the lane offset. */
double sn_odr_lane_border(const sn_odr_road *r, const sn_odr_section *sec, int id, double s);
/* t of a lane's inner and outer border, and of its centre. */
void sn_odr_lane_span(const sn_odr_road *r, const sn_odr_section *sec, int id, double s, double *t_inner,
                      double *t_outer);
/* The 3-D point at (s, t, h) of a road (OpenDRIVE frame): the reference line lifted by its
** elevation, t along the cross-section rolled by the superelevation phi (t cos phi along the
** horizontal left normal, t sin phi up), h along the rolled up axis (the road's normal: -h sin phi
** along the left normal, h cos phi up). The one place a lateral offset becomes a world point. */
void sn_odr_point(const sn_odr_road *r, double s, double t, double h, double out[3]);
/* Its inverse across the road: the t at s of the point of the cross-section straight above or
** below a point `across` m from the reference line along the horizontal left normal. */
double sn_odr_t_of(const sn_odr_road *r, double s, double across);
/* Road-mark of a lane at s (absolute): the record in force, or NULL. */
const sn_odr_mark *sn_odr_mark_at(const sn_odr_section *sec, const sn_odr_lane *l, double s);
/* Speed limit (m/s) of a lane at s: the lane's <speed>, else the road type's, else 0. */
double sn_odr_speed_limit(const sn_odr_road *r, const sn_odr_section *sec, const sn_odr_lane *l, double s);

/* Index of the road with OpenDRIVE id `id`, or -1. */
int32_t sn_odr_road_index(const sn_odr *m, int32_t id);
int32_t sn_odr_junction_index(const sn_odr *m, int32_t id);

#endif
