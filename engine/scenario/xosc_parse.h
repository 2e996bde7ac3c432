/* xosc_parse.h — what the parts of the OpenSCENARIO parser share (private to engine/scenario):
** the parser's state P, the attribute readers (xosc_attrs.c) and each part's entry points. Each
** part calls only the parts listed above it; xosc_parse.c (the document) calls them all.
** Every function that can fail returns false (or -1) after filling p->err through sn_xp_fail. */
#ifndef SN_XOSC_PARSE_H
#define SN_XOSC_PARSE_H

#include "xosc.h"
#include "xosc_xml.h"

#include "../core/error.h"

#include <libxml/tree.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <stdlib.h>

#define MAX_FILE (64u << 20)  /* bytes of a scenario file */
#define MAX_ITEMS 100000u     /* elements of any one kind */
#define VAL 1024              /* longest attribute value after substitution */

/* A catalog file read for CatalogReferences (kept until the scenario is parsed). */
typedef struct cat_doc {
    xmlDocPtr doc;
    char *path;
} cat_doc;

typedef struct P {
    sn_xosc *x;
    const char *file;
    sn_error *err;
    bool failed;
    char warned[128][64]; /* element names (and element:attribute pairs) warned about, each once */
    int n_warned;
    char **cat_dirs;     /* CatalogLocations' directories, resolved */
    uint32_t n_cat_dirs;
    cat_doc *cats;       /* their .xosc files, read at the first CatalogReference */
    uint32_t n_cats;
    bool cats_read;
    xmlNodePtr declared; /* a catalog entry's ParameterDeclarations, declared already */
} P;

typedef xmlNodePtr N;

/* Grows arr by one zeroed element at index n; returns -1 from the calling parser on failure. */
#define GROW(arr, n, what)                                                                     \
    do {                                                                                       \
        if ((n) >= MAX_ITEMS)                                                                  \
            return sn_xp_fail(p, NULL, "more than %u %s", MAX_ITEMS, what), -1;                \
        void *nw_ = realloc((arr), ((size_t)(n) + 1) * sizeof *(arr));                          \
        if (!nw_)                                                                              \
            return sn_xp_fail(p, NULL, "out of memory"), -1;                                   \
        (arr) = nw_;                                                                           \
        memset(&(arr)[(n)], 0, sizeof *(arr));                                                 \
    } while (0)

/* xosc_attrs.c: attributes, errors, warnings */
bool sn_xp_attr(P *p, N n, const char *a, bool required, char *out);
bool sn_xp_boolean(P *p, N n, const char *a, bool def, bool *out);
N sn_xp_choice(P *p, N n);
char *sn_xp_dup_attr(P *p, N n, const char *a, bool required);
int sn_xp_entity_index(P *p, N n, const char *a);
bool sn_xp_enumer(P *p, N n, const char *a, bool required, int def, const char *const *names, int *out);
bool sn_xp_fail(P *p, N n, const char *fmt, ...) SN_PRINTF(3, 4);
bool sn_xp_has_attr(N n, const char *a);
bool sn_xp_integer(P *p, N n, const char *a, bool required, int def, int *out);
bool sn_xp_num(P *p, N n, const char *a, bool required, double def, double lo, double hi, double *out);
char *sn_xp_param_ref_name(P *p, N a);
void sn_xp_seen(N n, const char *a);
bool sn_xp_unknown(P *p, N n, N parent);
bool sn_xp_unsupported(P *p, N n);
void sn_xp_warn(P *p, N n, const char *fmt, ...) SN_PRINTF(3, 4);

/* xosc_catalog.c: parameters and catalogs */
N sn_xp_catalog_entry(P *p, N ref, uint32_t *mark, const char **file);
void sn_xp_params_truncate(sn_xparams *ps, uint32_t n);
bool sn_xp_parse_params(P *p, N n);

/* xosc_parse_pos.c: positions */
bool sn_xp_parse_position(P *p, N n, sn_xpos *pos);

/* xosc_parse_shape.c: trajectory shapes */
int sn_xp_parse_traj_shape(P *p, N shape, int a_i);

/* xosc_parse_move.c: motion actions */
int sn_xp_new_action(P *p, N n, sn_xact_kind k);
int sn_xp_parse_assign_route(P *p, N n);
int sn_xp_parse_follow_trajectory(P *p, N n);
int sn_xp_parse_lane_change(P *p, N n);
int sn_xp_parse_lane_offset(P *p, N n);
int sn_xp_parse_lat_dist(P *p, N n);
int sn_xp_parse_long_dist(P *p, N n);
int sn_xp_parse_speed(P *p, N n);
int sn_xp_parse_speed_profile(P *p, N n);

/* xosc_parse_signal.c: traffic signals */
int sn_xp_parse_infrastructure(P *p, N n);
int sn_xp_parse_signal_controllers(P *p, N n);
bool sn_xp_parse_signal_cond(P *p, N e, sn_xcond *c);

/* xosc_parse_act.c: the other actions, controllers */
int sn_xp_object_controller(P *p, N oc);
int sn_xp_noop(P *p, N n, const char *what, const char *why);
int sn_xp_parse_action_body(P *p, N n);

/* xosc_parse_cond.c: conditions, triggers */
extern const char *const sn_xp_elem_kinds[];
int sn_xp_parse_trigger(P *p, N n);

/* xosc_parse_story.c: storyboard, entities */
bool sn_xp_parse_entities(P *p, N n);
bool sn_xp_parse_storyboard(P *p, N n);

#endif
