/* yamldoc.h — a YAML (or JSON) document as a small tree whose every node knows its
** line and column, so scene errors can point at file:line:col. Built with libyaml. */
#ifndef SN_SCENE_YAMLDOC_H
#define SN_SCENE_YAMLDOC_H

#include <sensim/sensim.h>

typedef enum sn_ynode_kind { SN_Y_SCALAR, SN_Y_SEQ, SN_Y_MAP } sn_ynode_kind;

typedef struct sn_ynode sn_ynode;
struct sn_ynode {
    sn_ynode_kind kind;
    int line, col;      /* 1-based */
    char *text;         /* SN_Y_SCALAR: the scalar as written (owned) */
    bool quoted;        /* the scalar was quoted: a string, never a number/bool */
    const char *set;    /* NULL from the file; else the "--set PATH=VALUE" it came from (not owned) */
    sn_ynode **items;   /* SEQ: n items; MAP: 2n nodes, key then value */
    size_t n;
};

typedef struct sn_ydoc {
    char *path; /* owned copy, for messages */
    sn_ynode *root; /* NULL for an empty document */
} sn_ydoc;

/* Parses a file. On failure err says "path:line:col: what". Free with sn_ydoc_free. */
sn_status sn_ydoc_load(sn_ydoc *doc, const char *path, sn_error *err);
void sn_ydoc_free(sn_ydoc *doc);

/* Parses one YAML value from `text` (a --set VALUE): every node's `set` is `set`. An empty text
** is the empty string. On failure err says "SCENE: --set SET: at column C of the value: what". */
sn_status sn_ydoc_parse_value(const char *text, const char *set, const char *scene, sn_ynode **out,
                              sn_error *err);
/* A new empty node of kind k (line/col 0, from `set`); NULL without memory. */
sn_ynode *sn_ynode_new(sn_ynode_kind k, const char *set);
/* Appends a child (a map takes key and value as two calls); false without memory. */
bool sn_ynode_append(sn_ynode *parent, sn_ynode *child);
void sn_ynode_free(sn_ynode *n);

/* Map lookup: the value node for `key`, or NULL. */
const sn_ynode *sn_ynode_get(const sn_ynode *map, const char *key);
const char *sn_ynode_kind_name(sn_ynode_kind k);

#endif
