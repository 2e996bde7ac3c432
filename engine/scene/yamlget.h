/* yamlget.h — typed getters on a YAML node, one set for scenes and batch specs: the same text
** is the same number, whole number, boolean or point in both (numtext.h's rules), and a refusal
** reads "WHERE: expected ... for WHAT, found '...'" in both. */
#ifndef SN_SCENE_YAMLGET_H
#define SN_SCENE_YAMLGET_H

#include "yamldoc.h"

/* Who asks, and how a node's place is written into a message ("file:line:col", or a scene's
** "file: --set PATH=VALUE"). where() writes a terminated text into buf[cap]. */
typedef struct sn_yget {
    sn_error *err;
    void (*where)(const void *user, const sn_ynode *n, char *buf, size_t cap);
    const void *user;
} sn_yget;

/* "WHERE: " then fmt with up to two %s (a, b; NULL as ""), as SN_E_INVALID. n may be NULL
** (the document's start). Always returns SN_E_INVALID. */
sn_status sn_yget_fail(const sn_yget *g, const sn_ynode *n, const char *fmt, const char *a, const char *b);
/* Refuses a node that is not of kind k: "expected a map for WHAT, found a list". */
sn_status sn_yget_expect(const sn_yget *g, const sn_ynode *n, sn_ynode_kind k, const char *what);
/* Refuses keys of `map` not in `allowed` (NULL-terminated), listing what is allowed; `in` names
** the map ("settings"). */
sn_status sn_yget_keys(const sn_yget *g, const sn_ynode *map, const char *const *allowed, const char *in);
/* A finite number (sn_text_number). */
sn_status sn_yget_number(const sn_yget *g, const sn_ynode *n, const char *what, double *out);
/* A whole number 0 ... max written in digits only (sn_text_uint: no '+3', ' 5' or '-1'). */
sn_status sn_yget_uint(const sn_yget *g, const sn_ynode *n, const char *what, uint64_t max, uint64_t *out);
/* true or false, any case. */
sn_status sn_yget_bool(const sn_yget *g, const sn_ynode *n, const char *what, bool *out);
/* [x, y, z] of numbers. */
sn_status sn_yget_vec3(const sn_yget *g, const sn_ynode *n, const char *what, sn_vec3 *out);
/* A location: [x, y, z] each within SN_LIMIT_COORD of the origin. */
sn_status sn_yget_point(const sn_yget *g, const sn_ynode *n, const char *what, sn_vec3 *out);
/* A scalar copied into *out (the caller's, free(); an old *out is freed first). */
sn_status sn_yget_string(const sn_yget *g, const sn_ynode *n, const char *what, char **out);

#endif
