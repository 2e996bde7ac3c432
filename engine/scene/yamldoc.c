#include "yamldoc.h"

#include "../core/error.h"
#include "../core/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#define MAX_DEPTH 64 /* deeper documents are refused rather than risk the C stack */

static void node_free(sn_ynode *n)
{
    if (!n)
        return;
    for (size_t i = 0; i < n->n; i++)
        node_free(n->items[i]);
    free(n->items);
    free(n->text);
    free(n);
}

void sn_ydoc_free(sn_ydoc *doc)
{
    node_free(doc->root);
    free(doc->path);
    doc->root = NULL;
    doc->path = NULL;
}

static sn_ynode *node_new(sn_ynode_kind k, const yaml_mark_t *m)
{
    sn_ynode *n = calloc(1, sizeof *n);
    if (n) {
        n->kind = k;
        n->line = (int)m->line + 1;
        n->col = (int)m->column + 1;
    }
    return n;
}

static bool node_push(sn_ynode *parent, sn_ynode *child, size_t *cap)
{
    if (!sn_grow((void **)&parent->items, cap, parent->n + 1, sizeof(sn_ynode *)))
        return false;
    parent->items[parent->n++] = child;
    return true;
}

typedef struct builder {
    yaml_parser_t parser;
    const char *path;
    sn_error *err;
} builder;

static sn_status parse_error(builder *b)
{
    const yaml_parser_t *p = &b->parser;
    const yaml_mark_t *m = p->problem ? &p->problem_mark : &p->context_mark;
    return sn_fail(b->err, SN_E_INVALID, "%s:%d:%d: malformed YAML: %s%s%s", b->path,
                   (int)m->line + 1, (int)m->column + 1, p->problem ? p->problem : "syntax error",
                   p->context ? " " : "", p->context ? p->context : "");
}

/* Parses one node whose first event is *ev (consumed). Recursive up to MAX_DEPTH. */
static sn_status build_node(builder *b, yaml_event_t *ev, int depth, sn_ynode **out)
{
    *out = NULL;
    if (depth > MAX_DEPTH) {
        return sn_fail(b->err, SN_E_INVALID, "%s:%d:%d: document nested deeper than %d levels",
                       b->path, (int)ev->start_mark.line + 1, (int)ev->start_mark.column + 1,
                       MAX_DEPTH);
    }
    switch (ev->type) {
    case YAML_SCALAR_EVENT: {
        sn_ynode *n = node_new(SN_Y_SCALAR, &ev->start_mark);
        if (!n)
            return sn_fail(b->err, SN_E_NOMEM, "%s: out of memory", b->path);
        n->text = malloc(ev->data.scalar.length + 1);
        if (!n->text) {
            free(n);
            return sn_fail(b->err, SN_E_NOMEM, "%s: out of memory", b->path);
        }
        memcpy(n->text, ev->data.scalar.value, ev->data.scalar.length);
        n->text[ev->data.scalar.length] = 0;
        n->quoted = ev->data.scalar.style == YAML_SINGLE_QUOTED_SCALAR_STYLE ||
                    ev->data.scalar.style == YAML_DOUBLE_QUOTED_SCALAR_STYLE;
        *out = n;
        return SN_OK;
    }
    case YAML_ALIAS_EVENT:
        return sn_fail(b->err, SN_E_INVALID,
                       "%s:%d:%d: YAML aliases (*name) are not supported in scenes; repeat the "
                       "value instead",
                       b->path, (int)ev->start_mark.line + 1, (int)ev->start_mark.column + 1);
    case YAML_SEQUENCE_START_EVENT:
    case YAML_MAPPING_START_EVENT: {
        bool is_map = ev->type == YAML_MAPPING_START_EVENT;
        yaml_event_type_t end = is_map ? YAML_MAPPING_END_EVENT : YAML_SEQUENCE_END_EVENT;
        sn_ynode *n = node_new(is_map ? SN_Y_MAP : SN_Y_SEQ, &ev->start_mark);
        if (!n)
            return sn_fail(b->err, SN_E_NOMEM, "%s: out of memory", b->path);
        size_t cap = 0;
        for (;;) {
            yaml_event_t child;
            if (!yaml_parser_parse(&b->parser, &child)) {
                node_free(n);
                return parse_error(b);
            }
            if (child.type == end) {
                yaml_event_delete(&child);
                break;
            }
            if (is_map && (n->n % 2 == 0) && child.type != YAML_SCALAR_EVENT) {
                sn_status st = sn_fail(b->err, SN_E_INVALID, "%s:%d:%d: a mapping key must be a plain name",
                                       b->path, (int)child.start_mark.line + 1,
                                       (int)child.start_mark.column + 1);
                yaml_event_delete(&child);
                node_free(n);
                return st;
            }
            sn_ynode *c;
            sn_status st = build_node(b, &child, depth + 1, &c);
            yaml_event_delete(&child);
            if (st != SN_OK) {
                node_free(n);
                return st;
            }
            if (is_map && n->n % 2 == 0) {
                for (size_t k = 0; k < n->n; k += 2) {
                    if (strcmp(n->items[k]->text, c->text) == 0) {
                        st = sn_fail(b->err, SN_E_INVALID,
                                     "%s:%d:%d: key '%s' appears twice in this mapping (first at line %d)",
                                     b->path, c->line, c->col, c->text, n->items[k]->line);
                        node_free(c);
                        node_free(n);
                        return st;
                    }
                }
            }
            if (!node_push(n, c, &cap)) {
                node_free(c);
                node_free(n);
                return sn_fail(b->err, SN_E_NOMEM, "%s: out of memory", b->path);
            }
        }
        *out = n;
        return SN_OK;
    }
    default:
        return sn_fail(b->err, SN_E_INVALID, "%s:%d:%d: unexpected YAML event", b->path,
                       (int)ev->start_mark.line + 1, (int)ev->start_mark.column + 1);
    }
}

sn_status sn_ydoc_load(sn_ydoc *doc, const char *path, sn_error *err)
{
    memset(doc, 0, sizeof *doc);
    FILE *f = fopen(path, "rb");
    if (!f)
        return sn_fail(err, SN_E_IO, "%s: cannot open scene file", path);
    doc->path = sn_strdup(path);
    builder b = {.path = path, .err = err};
    if (!yaml_parser_initialize(&b.parser)) {
        fclose(f);
        return sn_fail(err, SN_E_NOMEM, "%s: cannot initialise the YAML parser", path);
    }
    yaml_parser_set_input_file(&b.parser, f);
    sn_status st = SN_OK;
    int docs = 0;
    for (bool done = false; !done && st == SN_OK;) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&b.parser, &ev)) {
            st = parse_error(&b);
            break;
        }
        switch (ev.type) {
        case YAML_STREAM_END_EVENT:
            done = true;
            break;
        case YAML_DOCUMENT_START_EVENT:
            if (++docs > 1)
                st = sn_fail(err, SN_E_INVALID, "%s:%d:%d: a scene file holds one YAML document",
                             path, (int)ev.start_mark.line + 1, (int)ev.start_mark.column + 1);
            break;
        case YAML_SCALAR_EVENT:
        case YAML_SEQUENCE_START_EVENT:
        case YAML_MAPPING_START_EVENT:
        case YAML_ALIAS_EVENT:
            st = build_node(&b, &ev, 0, &doc->root);
            break;
        default:
            break;
        }
        yaml_event_delete(&ev);
    }
    yaml_parser_delete(&b.parser);
    fclose(f);
    if (st != SN_OK)
        sn_ydoc_free(doc);
    return st;
}

const sn_ynode *sn_ynode_get(const sn_ynode *map, const char *key)
{
    if (!map || map->kind != SN_Y_MAP)
        return NULL;
    for (size_t i = 0; i + 1 < map->n; i += 2)
        if (strcmp(map->items[i]->text, key) == 0)
            return map->items[i + 1];
    return NULL;
}

const char *sn_ynode_kind_name(sn_ynode_kind k)
{
    return k == SN_Y_SCALAR ? "a scalar" : k == SN_Y_SEQ ? "a list" : "a mapping";
}
