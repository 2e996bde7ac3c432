/* odr_read.h — what the parts of the OpenDRIVE parser share (private to engine/map): the
** network's arena, the parse state, the element readers (odr_read.c) and a road's parser
** (odr_parse_road.c), which odr_parse.c (the document, junctions, links) calls. */
#ifndef SN_ODR_READ_H
#define SN_ODR_READ_H

#include "odr.h"

#include "../core/error.h"

#include <libxml/tree.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- arena: the network's memory, freed at once ---- */

typedef struct sn_odr_chunk {
    struct sn_odr_chunk *next;
    size_t used, cap;
    max_align_t data[];
} sn_odr_chunk;

struct sn_odr_arena {
    sn_odr_chunk *head;
};

/* ---- the parse state ---- */

typedef struct parser {
    sn_odr *m;
    const char *file;
    sn_error *err;
    bool failed;
    unsigned warned; /* bit per warning kind: each kind once */
} parser;

enum { W_LINK, W_LANETYPE, W_MARK, W_GEOM_GAP, W_UNKNOWN_GEOM, W_LANELINK, W_SIGNAL, W_ID, W_WIDTH, W_UNIT,
       W_SECTION, W_KINDS };

/* Each child c of parent named name. */
#define EACH(c, parent, name) \
    for (xmlNodePtr c = (parent) ? (parent)->children : NULL; c; c = c->next) \
        if (sn_odrp_is(c, name))

/* odr_read.c */
void *sn_odrp_children(parser *p, xmlNodePtr parent, const char *name, size_t elem, uint32_t *n);
char *sn_odrp_dup(parser *p, const char *s);
int sn_odrp_line_of(xmlNodePtr n);
bool sn_odrp_fail(parser *p, xmlNodePtr n, const char *fmt, ...) SN_PRINTF(3, 4);
void sn_odrp_warn(parser *p, int kind, xmlNodePtr n, const char *fmt, ...) SN_PRINTF(4, 5);
void *sn_odrp_arena_alloc(struct sn_odr_arena *a, size_t n);
bool sn_odrp_oom(parser *p);
bool sn_odrp_is(xmlNodePtr n, const char *name);
uint32_t sn_odrp_count(xmlNodePtr n, const char *name);
xmlNodePtr sn_odrp_child(xmlNodePtr n, const char *name);
bool sn_odrp_num(parser *p, xmlNodePtr n, const char *name, bool required, double dflt, double limit, double *out);
const char *sn_odrp_attr(xmlNodePtr n, const char *name);
bool sn_odrp_int_id(parser *p, xmlNodePtr n, const char *name, bool required, int32_t fallback, int32_t *out);
bool sn_odrp_lane_id(parser *p, xmlNodePtr n, const char *name, int *out);
bool sn_odrp_polys(parser *p, xmlNodePtr parent, const char *name, const char *s_name, double s_limit, sn_odr_poly **out, uint32_t *n_out);

/* odr_parse_road.c */
bool sn_odrp_parse_road(parser *p, xmlNodePtr n, uint32_t index, sn_odr_road *r);

#endif
