/* The traffic grid across frames (engine/traffic/leader.c, grow58): each frame's grid is sorted
** from the order the last frame left, so it must still be the one order by cell then id whatever
** happened between frames. Over 400 frames of one grid: bodies drifting across cells, teleported
** far, removed and added at the same count (the kept order then indexes other actors) and at a
** new count, all at once in one cell, spread wider than the column index takes, and none. Each
** frame: the grid's bodies, keys and compact copies against a sort from scratch, and
** sn_traffic_first against a binary search of the whole grid for keys in, between and beyond
** the bodies' cells. argv: none. */
#include "../../engine/sim/engine.h"
#include "../../engine/traffic/traffic_int.h"
#include "../check.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rs = 0xD1B54A32D192ED03ull;
static double rnd(void) /* xorshift64*, uniform in [0, 1) */
{
    rs ^= rs >> 12, rs ^= rs << 25, rs ^= rs >> 27;
    return (double)((rs * 2685821657736338717ull) >> 11) * 0x1.0p-53;
}
static double uni(double a, double b) { return a + (b - a) * rnd(); }

#define NMAX 300

typedef struct ref {
    uint64_t key;
    uint32_t id;
} ref;

static int ref_cmp(const void *x, const void *y)
{
    const ref *a = x, *b = y;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    return a->id < b->id ? -1 : a->id > b->id;
}

static sn_actor act[NMAX];
static sn_actor_phys ph[NMAX];
static sn_actor *bodies[NMAX];
static uint32_t next_id = 100;

/* A fresh body in a free actor slot, appended as the world appends (ids only grow). */
static void add(sn_world *w, double spread)
{
    for (size_t s = 0; s < NMAX; s++) {
        bool used = false;
        for (size_t i = 0; i < w->n_bodies && !used; i++)
            used = bodies[i] == &act[s];
        if (used)
            continue;
        sn_actor *a = &act[s];
        memset(a, 0, sizeof *a), memset(&ph[s], 0, sizeof ph[s]);
        a->ph = &ph[s];
        a->id = next_id++;
        a->kind = rnd() < 0.8 ? SN_ACTOR_VEHICLE : SN_ACTOR_WALKER;
        a->down = rnd() < 0.05;
        ph[s].bbox.extent = sn_v3(uni(0.3, 2.5), uni(0.3, 1.2), 0.8);
        a->st.pos = sn_v3(uni(-spread, spread), uni(-spread, spread), 0);
        a->st.rot = sn_quat_identity();
        bodies[w->n_bodies++] = a;
        return;
    }
}

/* Removes the body at list place i as the world does (the rest keep their order). */
static void drop(sn_world *w, size_t i)
{
    memmove(&bodies[i], &bodies[i + 1], (w->n_bodies - i - 1) * sizeof *bodies);
    w->n_bodies--;
}

int main(void)
{
    sn_world w = {0};
    w.bodies = bodies;
    struct sn_traffic t = {0};
    for (int i = 0; i < 200; i++)
        add(&w, 150);
    size_t checked = 0, crossed = 0, same_count = 0, with_index = 0, without_index = 0;
    static ref want[NMAX];
    for (int frame = 0; frame < 400; frame++) {
        const int kind = frame % 8;
        if (frame == 203) { /* all in one cell */
            for (size_t i = 0; i < w.n_bodies; i++)
                w.bodies[i]->st.pos = sn_v3(uni(1, 15), uni(1, 15), 0);
        } else if (frame == 250) { /* wider than the column index takes: a search of the whole grid */
            for (size_t i = 0; i < w.n_bodies; i++)
                w.bodies[i]->st.pos = sn_v3(uni(-1e5, 1e5), uni(-1e5, 1e5), 0);
        } else if (frame == 300) { /* none, then back */
            w.n_bodies = 0;
        } else if (frame == 301) {
            for (int i = 0; i < 150; i++)
                add(&w, 150);
        } else if (kind == 1) { /* removed and added at the same count */
            for (int k = 0; k < 3 && w.n_bodies; k++)
                drop(&w, (size_t)(rnd() * (double)w.n_bodies)), add(&w, 150);
            same_count++;
        } else if (kind == 3 && w.n_bodies > 20) { /* fewer */
            drop(&w, (size_t)(rnd() * (double)w.n_bodies));
        } else if (kind == 5 && w.n_bodies < NMAX - 5) { /* more */
            add(&w, 150), add(&w, 150);
        }
        for (size_t i = 0; i < w.n_bodies && frame != 203; i++) { /* drift, some across cells; a few teleported */
            sn_actor *a = w.bodies[i];
            const int64_t cx = sn_traffic_cell(a->st.pos.x), cy = sn_traffic_cell(a->st.pos.y);
            if (rnd() < 0.02)
                a->st.pos = sn_v3(uni(-150, 150), uni(-150, 150), 0);
            else
                a->st.pos.x += uni(-3, 3), a->st.pos.y += uni(-3, 3);
            crossed += cx != sn_traffic_cell(a->st.pos.x) || cy != sn_traffic_cell(a->st.pos.y);
        }
        CHECK(sn_traffic_grid_build(&t, &w), "frame %d: the grid", frame);
        const size_t n = w.n_bodies;
        for (size_t i = 0; i < n; i++) {
            const sn_actor *a = w.bodies[i];
            want[i] = (ref){sn_traffic_key(sn_traffic_cell(a->st.pos.x), sn_traffic_cell(a->st.pos.y)), a->id};
        }
        qsort(want, n, sizeof *want, ref_cmp);
        CHECK(t.n == n, "frame %d: %zu bodies in the grid, %zu in the world", frame, t.n, n);
        size_t bad = 0;
        for (size_t i = 0; i < n && i < t.n; i++) {
            const body *b = &t.b[i];
            const bodyq *q = &t.q[i];
            bad += b->id != want[i].id || b->key != want[i].key || b->a->id != b->id || q->key != b->key ||
                   q->id != b->id || q->x != b->pos.x || q->y != b->pos.y || q->ex != b->ext.x || q->ey != b->ext.y ||
                   q->kind != b->kind || q->down != b->down || memcmp(&b->pos, &b->a->st.pos, sizeof b->pos) != 0;
        }
        CHECK(bad == 0, "frame %d: %zu of %zu grid slots differ from a sort from scratch", frame, bad, n);
        with_index += t.n_col != 0, without_index += n && !t.n_col;
        /* sn_traffic_first: keys of every cell column the bodies use, one beyond each end, and random ones */
        for (int k = 0; k < 64 && n; k++) {
            uint64_t k0;
            const size_t j = (size_t)(rnd() * (double)n);
            if (k % 4 == 0)
                k0 = want[j].key;
            else if (k % 4 == 1)
                k0 = want[j].key + (uint64_t)(rnd() * 3) - 1;
            else if (k % 4 == 2)
                k0 = k & 8 ? want[0].key - ((uint64_t)1 << 32) : want[n - 1].key + ((uint64_t)1 << 32);
            else
                k0 = sn_traffic_key(sn_traffic_cell(uni(-200, 200)), sn_traffic_cell(uni(-200, 200)));
            const size_t got = sn_traffic_first(&t, k0), ref_at = sn_search_u64(t.q, t.n, sizeof *t.q, offsetof(bodyq, key), k0);
            CHECK(got == ref_at, "frame %d: sn_traffic_first %zu, a search of the whole grid %zu", frame, got, ref_at);
            checked++;
        }
    }
    printf("grid_frames: 400 frames, %zu cell crossings, %zu frames with bodies replaced at one count, %zu with the "
           "column index and %zu without; %zu first-index searches\n",
           crossed, same_count, with_index, without_index, checked);
    CHECK(crossed > 1000 && same_count > 40 && with_index > 300 && without_index >= 1, "every case exercised");
    free(t.b), free(t.q), free(t.k), free(t.col);
    return CHECK_DONE();
}
