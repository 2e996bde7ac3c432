/* palette.c — see palette.h. */
#include "palette.h"

#include <stdlib.h>
#include <string.h>
#include <sensim/search.h>

static uint32_t cell(const uint8_t *c) { return (uint32_t)(c[0] >> 3) << 10 | (uint32_t)(c[1] >> 3) << 5 | c[2] >> 3; }
static uint32_t rgb24(const uint8_t *c) { return (uint32_t)c[0] << 16 | (uint32_t)c[1] << 8 | c[2]; }

void sn_palette_init(sn_palette *p) { memset(p, 0, sizeof *p); }

/* The slot of colour c (24-bit) in the exact table: where it is, or the empty slot it goes in. */
static uint32_t slot(const sn_palette *p, uint32_t c)
{
    uint32_t h = (c * 2654435761u) >> 23; /* 9 bits */
    while (p->exact[h] && p->exact[h] != c + 1)
        h = (h + 1) & 511;
    return h;
}

void sn_palette_add(sn_palette *p, const uint8_t *rgb, size_t px)
{
    for (size_t i = 0; i < px; i++, rgb += 3) {
        p->counts[cell(rgb)]++;
        if (p->too_many)
            continue;
        uint32_t c = rgb24(rgb), s = slot(p, c);
        if (p->exact[s])
            continue;
        if (p->n_exact == 256) {
            p->too_many = true;
            continue;
        }
        p->exact[s] = c + 1;
        p->n_exact++;
    }
}

/* ---- median cut ---- */

static int comp(uint32_t cell_id, int axis) { return (int)(cell_id >> (10 - 5 * axis)) & 31; }

static int by_value(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Sorts cells by one component, ties by cell (so the order is the same on every libc): the
** component goes above the cell's 15 bits as the sort key, and comes off after. */
static void sort_by(uint32_t *cells, uint32_t n, int axis)
{
    for (uint32_t i = 0; i < n; i++)
        cells[i] |= (uint32_t)comp(cells[i], axis) << 15;
    qsort(cells, n, sizeof cells[0], by_value);
    for (uint32_t i = 0; i < n; i++)
        cells[i] &= SN_PAL_CELLS - 1;
}

typedef struct { uint32_t lo, hi; uint64_t weight; int axis, range; } box;

static void measure(box *b, const uint32_t *cells, const uint32_t *counts)
{
    int mn[3] = {31, 31, 31}, mx[3] = {0, 0, 0};
    b->weight = 0;
    for (uint32_t i = b->lo; i < b->hi; i++) {
        b->weight += counts[cells[i]];
        for (int a = 0; a < 3; a++) {
            int v = comp(cells[i], a);
            mn[a] = v < mn[a] ? v : mn[a];
            mx[a] = v > mx[a] ? v : mx[a];
        }
    }
    b->axis = 0;
    for (int a = 1; a < 3; a++)
        if (mx[a] - mn[a] > mx[b->axis] - mn[b->axis])
            b->axis = a;
    b->range = mx[b->axis] - mn[b->axis];
}

static void median_cut(sn_palette *p)
{
    static _Thread_local uint32_t cells[SN_PAL_CELLS];
    uint32_t n = 0;
    for (uint32_t c = 0; c < SN_PAL_CELLS; c++)
        if (p->counts[c])
            cells[n++] = c;
    box boxes[256];
    int nb = 1;
    boxes[0] = (box){0, n, 0, 0, 0};
    measure(&boxes[0], cells, p->counts);
    while (nb < 256) {
        int pick = -1; /* the heaviest box that can still be split */
        for (int i = 0; i < nb; i++)
            if (boxes[i].hi - boxes[i].lo > 1 && boxes[i].range > 0 && (pick < 0 || boxes[i].weight > boxes[pick].weight))
                pick = i;
        if (pick < 0)
            break;
        box *b = &boxes[pick];
        sort_by(cells + b->lo, b->hi - b->lo, b->axis);
        uint64_t half = b->weight / 2, acc = 0;
        uint32_t cut = b->lo + 1;
        for (uint32_t i = b->lo; i < b->hi - 1; i++) {
            acc += p->counts[cells[i]];
            cut = i + 1;
            if (acc >= half)
                break;
        }
        boxes[nb] = (box){cut, b->hi, 0, 0, 0};
        b->hi = cut;
        measure(b, cells, p->counts);
        measure(&boxes[nb], cells, p->counts);
        nb++;
    }
    for (int i = 0; i < nb; i++) {
        uint64_t s[3] = {0, 0, 0}, w = 0;
        for (uint32_t k = boxes[i].lo; k < boxes[i].hi; k++) {
            uint64_t c = p->counts[cells[k]];
            w += c;
            for (int a = 0; a < 3; a++)
                s[a] += c * (uint64_t)(comp(cells[k], a) * 8 + 4);
        }
        uint32_t rgb = 0;
        for (int a = 0; a < 3; a++)
            rgb = rgb << 8 | (uint32_t)(w ? s[a] / w : 0);
        p->argb[i] = 0xFF000000u | rgb;
    }
    p->n = (uint32_t)nb;
}

void sn_palette_build(sn_palette *p)
{
    memset(p->argb, 0, sizeof p->argb);
    if (!p->too_many) {
        /* exact: the colours in a fixed order (by value), their slots remember the index */
        uint32_t cols[256], n = 0;
        for (uint32_t s = 0; s < 512; s++)
            if (p->exact[s])
                cols[n++] = p->exact[s] - 1;
        for (uint32_t i = 1; i < n; i++) /* insertion sort: at most 256 */
            for (uint32_t j = i; j > 0 && cols[j - 1] > cols[j]; j--) {
                uint32_t t = cols[j];
                cols[j] = cols[j - 1];
                cols[j - 1] = t;
            }
        for (uint32_t i = 0; i < n; i++)
            p->argb[i] = 0xFF000000u | cols[i];
        p->n = n;
    } else {
        median_cut(p);
    }
    /* every cell to its nearest colour: also the exact case's answer for colours never counted */
    for (uint32_t c = 0; c < SN_PAL_CELLS; c++) {
        int r = comp(c, 0) * 8 + 4, g = comp(c, 1) * 8 + 4, b = comp(c, 2) * 8 + 4;
        uint32_t best = 0, best_d = UINT32_MAX;
        for (uint32_t i = 0; i < p->n; i++) {
            int dr = r - (int)(p->argb[i] >> 16 & 255), dg = g - (int)(p->argb[i] >> 8 & 255), db = b - (int)(p->argb[i] & 255);
            uint32_t d = (uint32_t)(dr * dr + dg * dg + db * db);
            if (d < best_d)
                best_d = d, best = i;
        }
        p->lut[c] = (uint8_t)best;
    }
}

void sn_palette_map(const sn_palette *p, const uint8_t *rgb, size_t px, uint8_t *idx)
{
    for (size_t i = 0; i < px; i++, rgb += 3) {
        if (!p->too_many) {
            uint32_t s = slot(p, rgb24(rgb));
            if (p->exact[s]) { /* binary search of the sorted palette */
                uint32_t c = 0xFF000000u | rgb24(rgb);
                uint32_t lo = (uint32_t)sn_search_u32(p->argb, p->n, sizeof *p->argb, 0, c);
                idx[i] = (uint8_t)lo;
                continue;
            }
        }
        idx[i] = p->lut[cell(rgb)];
    }
}
