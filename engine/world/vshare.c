/* vshare.c — see vshare.h. */
#include "vshare.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static sn_value gone_marker;
#define GONE (&gone_marker)

static uint64_t mix(uint64_t h, uint64_t v) { return (h ^ v) * 0x100000001b3ull; }

static uint64_t hash_block(const sn_value *v, uint32_t n)
{
    uint64_t h = 0xcbf29ce484222325ull ^ n;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t f;
        memcpy(&f, &v[i].f, sizeof f);
        h = mix(mix(mix(mix(h, (uint64_t)v[i].type), (uint64_t)v[i].b), (uint64_t)v[i].i), f);
        h = mix(h, (uint64_t)v[i].rgb[0] | (uint64_t)v[i].rgb[1] << 8 | (uint64_t)v[i].rgb[2] << 16);
        for (const char *s = v[i].s; s && *s; s++)
            h = mix(h, (unsigned char)*s);
        h = mix(h, v[i].s ? 1 : 2);
    }
    return h;
}

static bool same(const sn_value *a, const sn_value *b, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        if (a[i].type != b[i].type || a[i].b != b[i].b || a[i].i != b[i].i || memcmp(&a[i].f, &b[i].f, sizeof a[i].f) ||
            memcmp(a[i].rgb, b[i].rgb, sizeof a[i].rgb) || !a[i].s != !b[i].s || (a[i].s && strcmp(a[i].s, b[i].s)))
            return false;
    }
    return true;
}

typedef struct sn_blob {
    uint64_t hash;
    size_t size;
    _Alignas(max_align_t) unsigned char data[];
} sn_blob;

static uint64_t hash_bytes(const unsigned char *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++)
        h = mix(h, p[i]);
    return h;
}

const void *sn_blobs_intern(sn_blobs *b, const void *data, size_t size)
{
    if ((b->n + 1) * 2 > b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 16;
        sn_blob **slots = calloc(cap, sizeof *slots);
        if (!slots)
            return NULL;
        for (size_t i = 0; i < b->cap; i++) {
            size_t k = b->slots[i] ? (size_t)b->slots[i]->hash & (cap - 1) : 0;
            while (b->slots[i] && slots[k])
                k = (k + 1) & (cap - 1);
            if (b->slots[i])
                slots[k] = b->slots[i];
        }
        free(b->slots);
        b->slots = slots, b->cap = cap;
    }
    const uint64_t h = hash_bytes(data, size);
    size_t k = (size_t)h & (b->cap - 1);
    for (; b->slots[k]; k = (k + 1) & (b->cap - 1))
        if (b->slots[k]->hash == h && b->slots[k]->size == size && !memcmp(b->slots[k]->data, data, size))
            return b->slots[k]->data;
    sn_blob *blob = malloc(sizeof *blob + size);
    if (!blob)
        return NULL;
    blob->hash = h, blob->size = size;
    memcpy(blob->data, data, size);
    b->slots[k] = blob;
    b->n++;
    return blob->data;
}

void sn_blobs_free(sn_blobs *b)
{
    for (size_t i = 0; i < b->cap; i++)
        free(b->slots[i]);
    free(b->slots);
    memset(b, 0, sizeof *b);
}

void sn_vshare_free(sn_vshare *t)
{
    for (size_t i = 0; i < t->cap; i++)
        if (t->slots[i].vals && t->slots[i].vals != GONE)
            free(t->slots[i].vals);
    free(t->slots);
    memset(t, 0, sizeof *t);
}

/* The slot holding a block equal to vals (by content, or by address when `exact`), else the
** slot to insert it at (a deleted one if the probe passed one). */
static size_t find(const sn_vshare *t, const sn_value *vals, uint32_t n, uint64_t h, bool exact, bool *found)
{
    size_t mask = t->cap - 1, i = (size_t)h & mask, tomb = (size_t)-1;
    for (;; i = (i + 1) & mask) {
        const sn_vshare_slot *s = &t->slots[i];
        if (!s->vals) {
            *found = false;
            return tomb != (size_t)-1 ? tomb : i;
        }
        if (s->vals == GONE) {
            if (tomb == (size_t)-1)
                tomb = i;
        } else if (s->hash == h && s->n == n && (exact ? s->vals == vals : same(s->vals, vals, n))) {
            *found = true;
            return i;
        }
    }
}

static bool rehash(sn_vshare *t)
{
    size_t live = 0;
    for (size_t i = 0; i < t->cap; i++)
        live += t->slots[i].vals && t->slots[i].vals != GONE;
    size_t cap = 16;
    while (cap < (live + 1) * 4)
        cap *= 2;
    sn_vshare n = {calloc(cap, sizeof *n.slots), cap, live};
    if (!n.slots)
        return false;
    for (size_t i = 0; i < t->cap; i++) {
        const sn_vshare_slot *s = &t->slots[i];
        if (s->vals && s->vals != GONE) {
            bool found;
            n.slots[find(&n, s->vals, s->n, s->hash, true, &found)] = *s;
        }
    }
    free(t->slots);
    *t = n;
    return true;
}

sn_value *sn_vshare_take(sn_vshare *t, sn_value *vals, uint32_t n, bool *shared)
{
    *shared = false;
    if (!vals)
        return NULL;
    if ((t->used + 1) * 2 > t->cap && !rehash(t))
        return vals;
    const uint64_t h = hash_block(vals, n);
    bool found;
    size_t i = find(t, vals, n, h, false, &found);
    sn_vshare_slot *s = &t->slots[i];
    *shared = true;
    if (found) {
        free(vals);
        s->refs++;
        return s->vals;
    }
    if (!s->vals)
        t->used++;
    *s = (sn_vshare_slot){vals, n, 1, h};
    return vals;
}

void sn_vshare_drop(sn_vshare *t, sn_value *vals, uint32_t n)
{
    if (!vals || !t->cap)
        return;
    bool found;
    size_t i = find(t, vals, n, hash_block(vals, n), true, &found);
    if (found && --t->slots[i].refs == 0) {
        free(vals);
        t->slots[i].vals = GONE;
    }
}
