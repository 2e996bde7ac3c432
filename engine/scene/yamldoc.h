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

/* Map lookup: the value node for `key`, or NULL. */
const sn_ynode *sn_ynode_get(const sn_ynode *map, const char *key);
const char *sn_ynode_kind_name(sn_ynode_kind k);

#endif
