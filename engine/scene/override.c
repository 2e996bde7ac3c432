/* override.c — `--set PATH=VALUE`: one value of a parsed scene document replaced by its path
** before the schema sees the document, so an override is checked exactly as if it had been
** written in the file (its nodes carry the --set text for messages instead of a line). */
#include "override.h"

#include "../core/error.h"
#include "../core/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The item of a list called `name` (its `name:` key), else the index `name`, else NULL. */
static size_t seq_find(const sn_ynode *seq, const char *name)
{
    for (size_t i = 0; i < seq->n; i++) {
        const sn_ynode *v = sn_ynode_get(seq->items[i], "name");
        if (v && v->kind == SN_Y_SCALAR && strcmp(v->text, name) == 0)
            return i;
    }
    if (name[0] && strspn(name, "0123456789") == strlen(name) && strlen(name) < 9) {
        size_t i = (size_t)atol(name);
        if (i < seq->n)
            return i;
    }
    return (size_t)-1;
}

static sn_status no_entry(const char *scene, const char *set, const sn_ynode *seq, const char *where,
                          const char *name, sn_error *err)
{
    char names[400] = "";
    for (size_t i = 0; i < seq->n; i++) {
        const sn_ynode *v = sn_ynode_get(seq->items[i], "name");
        if (!v || v->kind != SN_Y_SCALAR)
            continue;
        size_t len = strlen(names);
        if (len + strlen(v->text) + 8 >= sizeof names) {
            strncat(names, ", ...", sizeof names - len - 1);
            break;
        }
        snprintf(names + len, sizeof names - len, "%s%s", len ? ", " : "", v->text);
    }
    return sn_fail(err, SN_E_INVALID, "%s: --set %s: no entry named '%s' in %s (expected a name: %s; or an index below %zu)",
                   scene, set, name, where, names[0] ? names : "none has a name", seq->n);
}

static sn_ynode *scalar(const char *text, const char *set)
{
    sn_ynode *k = sn_ynode_new(SN_Y_SCALAR, set);
    if (k && !(k->text = sn_strdup(text))) {
        sn_ynode_free(k);
        return NULL;
    }
    return k;
}

/* Sets map[key] = value (value is consumed); *slot receives where it now lives. */
static bool map_put(sn_ynode *map, const char *key, sn_ynode *value, const char *set, sn_ynode ***slot)
{
    for (size_t i = 0; i + 1 < map->n; i += 2)
        if (strcmp(map->items[i]->text, key) == 0) {
            sn_ynode_free(map->items[i + 1]);
            map->items[i + 1] = value;
            *slot = &map->items[i + 1];
            return true;
        }
    sn_ynode *k = scalar(key, set);
    if (!k || !sn_ynode_append(map, k)) {
        sn_ynode_free(k);
        sn_ynode_free(value);
        return false;
    }
    if (!sn_ynode_append(map, value)) {
        sn_ynode_free(value);
        return false;
    }
    *slot = &map->items[map->n - 1];
    return true;
}

sn_status sn_ydoc_override(sn_ydoc *doc, const char *scene, const char *set, sn_error *err)
{
    const char *eq = strchr(set, '=');
    if (!eq || eq == set)
        return sn_fail(err, SN_E_INVALID,
                       "%s: --set %s: expected PATH=VALUE, e.g. actors.hero.control.throttle=0.7", scene, set);
    size_t plen = (size_t)(eq - set);
    char *path = malloc(plen + 1);
    if (!path)
        return sn_fail(err, SN_E_NOMEM, "out of memory");
    memcpy(path, set, plen);
    path[plen] = 0;
    sn_ynode *value = NULL;
    sn_status st = sn_ydoc_parse_value(eq + 1, set, scene, &value, err);
    if (st) {
        free(path);
        return st;
    }
    if (!doc->root && !(doc->root = sn_ynode_new(SN_Y_MAP, set))) {
        st = sn_fail(err, SN_E_NOMEM, "out of memory");
        goto out;
    }
    sn_ynode *cur = doc->root;
    char where[600] = "the scene";
    for (char *seg = path, *next; seg; seg = next) {
        if ((next = strchr(seg, '.')))
            *next++ = 0;
        if (!*seg) {
            st = sn_fail(err, SN_E_INVALID, "%s: --set %s: empty name in the path (expected names joined by '.')",
                         scene, set);
            goto out;
        }
        sn_ynode **slot = NULL;
        if (cur->kind == SN_Y_MAP) {
            const sn_ynode *have = sn_ynode_get(cur, seg);
            sn_ynode *child = next ? (have ? NULL : sn_ynode_new(SN_Y_MAP, set)) : value;
            if (next && have) {
                for (size_t i = 0; i + 1 < cur->n; i += 2)
                    if (cur->items[i + 1] == have)
                        slot = &cur->items[i + 1];
            } else {
                if (!child || !map_put(cur, seg, child, set, &slot)) {
                    if (child == value)
                        value = NULL; /* map_put consumed it */
                    st = sn_fail(err, SN_E_NOMEM, "out of memory");
                    goto out;
                }
                if (child == value)
                    value = NULL;
            }
        } else if (cur->kind == SN_Y_SEQ) {
            size_t i = seq_find(cur, seg);
            if (i == (size_t)-1) {
                st = no_entry(scene, set, cur, where, seg, err);
                goto out;
            }
            slot = &cur->items[i];
            if (!next) {
                sn_ynode_free(*slot);
                *slot = value;
                value = NULL;
            }
        } else {
            st = sn_fail(err, SN_E_INVALID, "%s: --set %s: %s is a single value ('%s'), it has no '%s'", scene, set,
                         where, cur->text, seg);
            goto out;
        }
        size_t wl = strlen(where);
        if (strcmp(where, "the scene") == 0)
            snprintf(where, sizeof where, "%s", seg);
        else
            snprintf(where + wl, sizeof where - wl, ".%s", seg);
        cur = *slot;
    }
out:
    sn_ynode_free(value);
    free(path);
    return st;
}
