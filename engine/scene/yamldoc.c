#include "yamldoc.h"

#include "../core/infile.h"

#include "../core/error.h"
#include "../core/util.h"

#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#define MAX_DEPTH 64 /* deeper documents are refused rather than risk the C stack */

void sn_ynode_free(sn_ynode *n)
{
    if (!n)
        return;
    for (size_t i = 0; i < n->n; i++)
        sn_ynode_free(n->items[i]);
    free(n->items);
    free(n->text);
    free(n);
}

void sn_ydoc_free(sn_ydoc *doc)
{
    sn_ynode_free(doc->root);
    free(doc->path);
    doc->root = NULL;
    doc->path = NULL;
}

sn_ynode *sn_ynode_new(sn_ynode_kind k, const char *set)
{
    sn_ynode *n = calloc(1, sizeof *n);
    if (n) {
        n->kind = k;
        n->set = set;
    }
    return n;
}

bool sn_ynode_append(sn_ynode *parent, sn_ynode *child)
{
    sn_ynode **items = realloc(parent->items, (parent->n + 1) * sizeof *items);
    if (!items)
        return false;
    parent->items = items;
    parent->items[parent->n++] = child;
    return true;
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
    const char *path; /* for messages: the file, or "--set PATH=VALUE" */
    const char *set;  /* given to every node: NULL when parsing a file */
    sn_error *err;
} builder;

static sn_ynode *node_new(builder *b, sn_ynode_kind k, const yaml_mark_t *m)
{
    sn_ynode *n = sn_ynode_new(k, b->set);
    if (n) {
        n->line = (int)m->line + 1;
        n->col = (int)m->column + 1;
    }
    return n;
}

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
        /* Every scene value reaches its reader as a C string: an escaped NUL ("a\0b") would cut
        ** it silently (a V2X text sent half), so it is refused here for all of them. */
        if (memchr(ev->data.scalar.value, 0, ev->data.scalar.length))
            return sn_fail(b->err, SN_E_INVALID, "%s:%d:%d: the value holds a NUL character (\\0); no scene value "
                           "may contain one", b->path, (int)ev->start_mark.line + 1, (int)ev->start_mark.column + 1);
        sn_ynode *n = node_new(b, SN_Y_SCALAR, &ev->start_mark);
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
        sn_ynode *n = node_new(b, is_map ? SN_Y_MAP : SN_Y_SEQ, &ev->start_mark);
        if (!n)
            return sn_fail(b->err, SN_E_NOMEM, "%s: out of memory", b->path);
        size_t cap = 0;
        for (;;) {
            yaml_event_t child;
            if (!yaml_parser_parse(&b->parser, &child)) {
                sn_ynode_free(n);
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
                sn_ynode_free(n);
                return st;
            }
            sn_ynode *c;
            sn_status st = build_node(b, &child, depth + 1, &c);
            yaml_event_delete(&child);
            if (st != SN_OK) {
                sn_ynode_free(n);
                return st;
            }
            if (is_map && n->n % 2 == 0) {
                for (size_t k = 0; k < n->n; k += 2) {
                    if (strcmp(n->items[k]->text, c->text) == 0) {
                        st = sn_fail(b->err, SN_E_INVALID,
                                     "%s:%d:%d: key '%s' appears twice in this mapping (first at line %d)",
                                     b->path, c->line, c->col, c->text, n->items[k]->line);
                        sn_ynode_free(c);
                        sn_ynode_free(n);
                        return st;
                    }
                }
            }
            if (!node_push(n, c, &cap)) {
                sn_ynode_free(c);
                sn_ynode_free(n);
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

/* Reads the one document of an initialised parser into *root (NULL when empty). */
static sn_status parse_document(builder *b, sn_ynode **root)
{
    sn_status st = SN_OK;
    int docs = 0;
    *root = NULL;
    for (bool done = false; !done && st == SN_OK;) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&b->parser, &ev))
            return parse_error(b);
        switch (ev.type) {
        case YAML_STREAM_END_EVENT:
            done = true;
            break;
        case YAML_DOCUMENT_START_EVENT:
            if (++docs > 1)
                st = sn_fail(b->err, SN_E_INVALID, "%s:%d:%d: a scene file holds one YAML document", b->path,
                             (int)ev.start_mark.line + 1, (int)ev.start_mark.column + 1);
            break;
        case YAML_SCALAR_EVENT:
        case YAML_SEQUENCE_START_EVENT:
        case YAML_MAPPING_START_EVENT:
        case YAML_ALIAS_EVENT:
            st = build_node(b, &ev, 0, root);
            break;
        default:
            break;
        }
        yaml_event_delete(&ev);
    }
    if (st != SN_OK) {
        sn_ynode_free(*root);
        *root = NULL;
    }
    return st;
}

sn_status sn_ydoc_load(sn_ydoc *doc, const char *path, sn_error *err)
{
    memset(doc, 0, sizeof *doc);
    FILE *f = sn_open_input(path, "scene file", err); /* a folder read as YAML said "input error"; a FIFO hung */
    if (!f)
        return SN_E_IO;
    doc->path = sn_strdup(path);
    builder b = {.path = path, .err = err};
    if (!yaml_parser_initialize(&b.parser)) {
        fclose(f);
        return sn_fail(err, SN_E_NOMEM, "%s: cannot initialise the YAML parser", path);
    }
    yaml_parser_set_input_file(&b.parser, f);
    sn_status st = parse_document(&b, &doc->root);
    yaml_parser_delete(&b.parser);
    fclose(f);
    if (st != SN_OK)
        sn_ydoc_free(doc);
    return st;
}

sn_status sn_ydoc_parse_value(const char *text, const char *set, const char *scene, sn_ynode **out,
                              sn_error *err)
{
    const char *label = "value";
    builder b = {.path = label, .set = set, .err = err};
    if (!yaml_parser_initialize(&b.parser))
        return sn_fail(err, SN_E_NOMEM, "%s: cannot initialise the YAML parser", label);
    yaml_parser_set_input_string(&b.parser, (const unsigned char *)text, strlen(text));
    sn_status st = parse_document(&b, out);
    yaml_parser_delete(&b.parser);
    if (st != SN_OK && err) { /* "value:L:C: what" -> "SCENE: --set P=V: at column C of the value: what" */
        int line = 0, col = 0, used = 0;
        char what[sizeof err->msg];
        if (sscanf(err->msg, "value:%d:%d: %n", &line, &col, &used) == 2 && used > 0) {
            snprintf(what, sizeof what, "%s", err->msg + used);
            if (set)
                sn_fail(err, st, "%s: --set %s: at column %d of the value: %s", scene, set, col, what);
            else /* a whole file read as one value (a run's run.json): no --set to name */
                sn_fail(err, st, "%s:%d:%d: %s", scene, line, col, what);
        }
    }
    if (st == SN_OK && !*out) { /* "KEY=" sets the empty string */
        if (!(*out = sn_ynode_new(SN_Y_SCALAR, set)) || !((*out)->text = sn_strdup(""))) {
            sn_ynode_free(*out);
            *out = NULL;
            return sn_fail(err, SN_E_NOMEM, "%s: out of memory", scene);
        }
        (*out)->quoted = true;
    }
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
