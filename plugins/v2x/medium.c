/* medium.c — stations, transmissions and propagation of one V2X class in one engine. */
#include "medium.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

sn_status sn_v2x_medium_create(const sn_host *host, sn_ctx *ctx, bool custom, sn_v2x_medium **out)
{
    sn_v2x_medium *m = calloc(1, sizeof *m);
    if (!m) {
        host->set_error(ctx, "out of memory for the V2X medium");
        return SN_E_NOMEM;
    }
    m->host = host, m->ctx = ctx, m->custom = custom;
    /* Name 0 is "": the channel of CAM stations. */
    if (sn_v2x_medium_name(m, "", false) == UINT32_MAX) {
        sn_v2x_medium_destroy(m);
        host->set_error(ctx, "out of memory for the V2X medium");
        return SN_E_NOMEM;
    }
    *out = m;
    return SN_OK;
}

static void station_free(sn_v2x_station *s)
{
    if (s)
        free(s->carried), free(s->carried_msgs), sn_v2x_foreign_free(s);
    free(s);
}

void sn_v2x_medium_destroy(sn_v2x_medium *m)
{
    if (!m)
        return;
    for (uint32_t i = 0; i < m->n_st; i++)
        station_free(m->st[i]);
    for (uint32_t i = 0; i < m->n_names; i++)
        free(m->names[i]);
    free(m->st), free(m->order), free(m->names), free(m->msgs), free(m->rx), free(m->tx);
    free(m->rays), free(m->res), free(m->ray_pair), free(m->ray_recv), free(m->hits), free(m->xy), free(m->slots);
    free(m->mirror), free(m->senders), free(m->dist), free(m->los), free(m->ke), free(m->r_start);
    sn_v2x_loscache_free(&m->los_cache);
    for (int i = 0; i < SN_V2X_PAIR_TASKS; i++) {
        sn_v2x_pair_task *t = &m->pt[i];
        free(t->cand), free(t->cand_d), free(t->senders), free(t->dist), free(t->cursor);
    }
    sn_pack_free(&m->packed), sn_pack_free(&m->scratch), sn_pack_free(&m->columns);
    sn_pack_free(&m->cam_records), sn_pack_free(&m->payloads);
    sn_v2x_grid_free(&m->grid);
    free(m);
}

sn_v2x_station *sn_v2x_medium_add(sn_v2x_medium *m)
{
    sn_v2x_station *s = calloc(1, sizeof *s);
    if (!s || !sn_grow_array32((void **)&m->st, &m->cap_st, m->n_st + 1, sizeof *m->st)) {
        free(s);
        return NULL;
    }
    m->st[m->n_st++] = s;
    m->dirty = true;
    return s;
}

void sn_v2x_medium_remove(sn_v2x_medium *m, sn_v2x_station *s)
{
    for (uint32_t i = 0; i < m->n_st; i++)
        if (m->st[i] == s) {
            memmove(&m->st[i], &m->st[i + 1], (m->n_st - i - 1) * sizeof *m->st);
            m->n_st--;
            break;
        }
    m->dirty = true;
    station_free(s);
}

void sn_v2x_station_attach(sn_v2x_medium *m, sn_v2x_station *s, uint32_t parent)
{
    s->parent_id = parent;
    s->station_id = parent ? parent : s->sensor_id; /* the ITS station: the car, or the free unit itself */
    s->parent_kind = SN_ACTOR_SENSOR;
    sn_actor_info a;
    memset(&a, 0, sizeof a);
    a.struct_size = sizeof a;
    if (parent && m->host->actor_get(m->ctx, parent, &a) == SN_OK)
        s->parent_kind = (uint8_t)a.kind;
    m->dirty = true;
}

uint32_t sn_v2x_medium_name(sn_v2x_medium *m, const char *s, bool intern)
{
    if (intern)
        for (uint32_t i = 0; i < m->n_names; i++)
            if (strcmp(m->names[i], s) == 0)
                return i;
    size_t n = strlen(s) + 1;
    char *c = malloc(n);
    if (!c || !sn_grow_array32((void **)&m->names, &m->cap_names, m->n_names + 1, sizeof *m->names)) {
        free(c);
        return UINT32_MAX;
    }
    memcpy(c, s, n);
    m->names[m->n_names] = c;
    return m->n_names++;
}

sn_v2x_msg *sn_v2x_medium_transmit(sn_v2x_medium *m, sn_v2x_station *s)
{
    if (!sn_grow_array32((void **)&m->msgs, &m->cap_msgs, m->n_msgs + 1, sizeof *m->msgs))
        return NULL;
    if (!s->tx_count)
        s->tx_first = m->n_msgs;
    s->tx_count++;
    sn_v2x_msg *msg = &m->msgs[m->n_msgs++];
    memset(msg, 0, sizeof *msg);
    return msg;
}

void sn_v2x_medium_begin(sn_v2x_medium *m)
{
    for (uint32_t i = 0; i < m->n_st; i++) {
        sn_v2x_station *s = m->st[i];
        if (s->ticked) /* it reported its carried receptions last frame */
            s->n_carried = s->n_cmsgs = 0;
        s->ticked = false;
        s->tx_count = s->rx_count = 0;
    }
    m->n_msgs = m->n_pairs = m->n_cam_records = 0;
    sn_pack_clear(&m->packed), sn_pack_clear(&m->payloads);
}

static int by_station(const void *a, const void *b)
{
    const sn_v2x_station *x = *(sn_v2x_station *const *)a, *y = *(sn_v2x_station *const *)b;
    if (x->station_id != y->station_id)
        return x->station_id < y->station_id ? -1 : 1;
    return x->sensor_id < y->sensor_id ? -1 : x->sensor_id > y->sensor_id;
}

/* Where every antenna is now, and the ground under it, from the class context. */
static void place(sn_v2x_medium *m)
{
    const sn_host *h = m->host;
    for (uint32_t i = 0; i < m->n_st; i++) {
        sn_v2x_station *s = m->order[i];
        sn_actor_info a;
        memset(&a, 0, sizeof a);
        a.struct_size = sizeof a;
        s->placed = h->actor_get(m->ctx, s->sensor_id, &a) == SN_OK;
        if (!s->placed)
            continue;
        s->pos = a.transform.location;
        s->ground = 0;
        if (s->parent_id) {
            memset(&a, 0, sizeof a);
            a.struct_size = sizeof a;
            if (h->actor_get(m->ctx, s->parent_id, &a) == SN_OK) /* the bottom of the parent's box */
                s->ground = a.transform.location.z + a.bounding_box.location.z - a.bounding_box.extent.z;
        }
    }
}

/* Every (sender, receiver) with the sender within the receiver's filter distance, grouped by
** receiver (station order), each group in sender order: the order in which a receiver draws its
** fading, and in which every later pass walks the pairs front to back. The grid holds the
** transmitters; a receiver's candidates are marked in a bitmap over them (one bit per
** transmitter, so reading it back gives them in sender order) with their distances. Receivers
** are split in ranges over the host's workers, each task gathering its pairs apart; they are
** then copied into place, so the arrays are the same at any thread count. */
typedef struct pairs_job {
    sn_v2x_medium *m;
    uint32_t n_tx, per;
} pairs_job;

static void pairs_task(void *arg, uint32_t task)
{
    const pairs_job *j = arg;
    sn_v2x_medium *m = j->m;
    sn_v2x_pair_task *pt = &m->pt[task];
    uint32_t words = (j->n_tx + 63) / 64;
    pt->n = 0;
    pt->oom = !sn_grow_array32((void **)&pt->cand, &pt->cap_cand, words, sizeof *pt->cand) ||
              !sn_grow_array32((void **)&pt->cand_d, &pt->cap_cand_d, j->n_tx, sizeof *pt->cand_d);
    if (pt->oom)
        return;
    memset(pt->cand, 0, words * sizeof *pt->cand);
    const sn_v2x_grid *g = &m->grid;
    uint32_t r0 = task * j->per, r1 = r0 + j->per < m->n_st ? r0 + j->per : m->n_st;
    for (uint32_t r = r0; r < r1; r++) {
        const sn_v2x_station *rs = m->order[r];
        m->r_start[r] = pt->n; /* within the task, until the copy */
        if (!rs->placed)
            continue;
        /* Above filter^2 (with room for its rounding) no distance is below filter: no root taken. */
        double filter = rs->radio.filter, f2 = filter * filter * (1 + 1e-9);
        sn_vec3 p = rs->pos;
        uint32_t ix0, ix1, iy0, iy1, marked = 0;
#ifdef SN_V2X_CARLA_METHOD
        sn_v2x_grid_range(g, rs->pos.x, rs->pos.y, INFINITY, &ix0, &ix1, &iy0, &iy1);
#else
        sn_v2x_grid_range(g, rs->pos.x, rs->pos.y, rs->radio.filter, &ix0, &ix1, &iy0, &iy1);
#endif
        for (uint32_t iy = iy0; iy <= iy1; iy++)
            for (uint32_t ix = ix0; ix <= ix1; ix++) {
                uint32_t c = iy * g->nx + ix;
                for (uint32_t q = g->start[c]; q < g->start[c + 1]; q++) {
                    const sn_v2x_slot *ts = &m->slots[q];
                    /* Not to itself, nor to another sensor of the same station (CARLA skips its own
                    ** owner); custom messages only on the same channel; not unplaced (NaN). */
                    if (rs->station_id == ts->station || rs->channel != ts->channel)
                        continue;
                    sn_vec3 dv = {p.x - ts->x, p.y - ts->y, p.z - ts->z};
                    double d2 = dv.x * dv.x + dv.y * dv.y + dv.z * dv.z;
                    if (!(d2 < f2))
                        continue;
                    double d = sqrt(d2);
                    if (!(d < filter))
                        continue;
                    uint32_t k = g->items[q];
                    pt->cand[k >> 6] |= 1ull << (k & 63), pt->cand_d[k] = d, marked++;
                }
            }
        uint32_t cap = pt->cap;
        if (!sn_grow_array32((void **)&pt->senders, &cap, pt->n + marked, sizeof *pt->senders) ||
            !sn_grow_array32((void **)&pt->dist, &pt->cap, pt->n + marked, sizeof *pt->dist)) {
            pt->oom = true;
            return;
        }
        for (uint32_t w = 0; marked && w < words; w++)
            for (uint64_t bits = pt->cand[w]; bits; bits &= bits - 1) {
                uint32_t k = 64 * w + (uint32_t)__builtin_ctzll(bits);
                pt->senders[pt->n] = m->tx[k], pt->dist[pt->n++] = pt->cand_d[k];
                pt->cand[w] = 0, marked--;
            }
    }
}

/* Task `task`'s pairs into place. */
static void pairs_copy(void *arg, uint32_t task)
{
    const pairs_job *j = arg;
    sn_v2x_medium *m = j->m;
    const sn_v2x_pair_task *pt = &m->pt[task];
    uint32_t r0 = task * j->per, r1 = r0 + j->per < m->n_st ? r0 + j->per : m->n_st;
    for (uint32_t r = r0; r < r1; r++)
        m->r_start[r] += pt->at;
    if (pt->n) { /* a task with no pairs may have no buffers yet */
        memcpy(m->senders + pt->at, pt->senders, pt->n * sizeof *pt->senders);
        memcpy(m->dist + pt->at, pt->dist, pt->n * sizeof *pt->dist);
    }
}

sn_status sn_v2x_run_tasks(sn_v2x_medium *m, void (*fn)(void *, uint32_t), void *arg, uint32_t tasks)
{
    if (tasks > 1 && SN_HOST_HAS(m->host, parallel_for))
        return m->host->parallel_for(m->ctx, fn, arg, tasks);
    for (uint32_t t = 0; t < tasks; t++)
        fn(arg, t);
    return SN_OK;
}

/* The pair arrays grown to n pairs: false out of memory. */
static bool grow_pairs(sn_v2x_medium *m, uint32_t n)
{
    uint32_t c1 = m->cap_pairs, c2 = c1, c3 = c1;
    bool ok = sn_grow_array32((void **)&m->senders, &c1, n, sizeof *m->senders) &&
              sn_grow_array32((void **)&m->dist, &c2, n, sizeof *m->dist) &&
              sn_grow_array32((void **)&m->los, &c3, n, sizeof *m->los);
    if (ok)
        ok = sn_grow_array32((void **)&m->ke, &m->cap_pairs, n, sizeof *m->ke);
    return ok;
}

static sn_status find_pairs(sn_v2x_medium *m, uint32_t n_tx)
{
    if (!sn_grow_array32((void **)&m->r_start, &m->cap_r_start, m->n_st + 1, sizeof *m->r_start))
        return SN_E_NOMEM;
    double rmax = 0;
    for (uint32_t k = 0; k < n_tx; k++) {
        const sn_v2x_station *s = m->order[m->tx[k]];
        m->xy[2 * k] = s->placed ? s->pos.x : 0, m->xy[2 * k + 1] = s->placed ? s->pos.y : 0;
    }
    for (uint32_t i = 0; i < m->n_st; i++)
        rmax = fmax(rmax, m->order[i]->radio.filter);
#ifdef SN_V2X_CARLA_METHOD
    /* The benchmark's baseline: CARLA's loop over every ordered pair (one cell holds all). */
    if (!sn_v2x_grid_build(&m->grid, m->xy, n_tx, INFINITY))
        return SN_E_NOMEM;
#else
    /* Cells of half the largest range: a receiver visits about 5 x 5 of them. */
    if (!sn_v2x_grid_build(&m->grid, m->xy, n_tx, rmax / 2))
        return SN_E_NOMEM;
#endif
    if (!sn_grow_array32((void **)&m->slots, &m->cap_slots, n_tx, sizeof *m->slots))
        return SN_E_NOMEM;
    for (uint32_t q = 0; q < n_tx; q++) {
        const sn_v2x_station *s = m->order[m->tx[m->grid.items[q]]];
        m->slots[q] = (sn_v2x_slot){s->placed ? s->pos.x : NAN, s->pos.y, s->pos.z, s->station_id, s->channel};
    }
    /* tasks of 16 receivers or more, at most SN_V2X_PAIR_TASKS (so small scenes, the tests' too,
    ** split as large ones do) */
    uint32_t tasks = (m->n_st + 15) / 16;
    tasks = tasks > SN_V2X_PAIR_TASKS ? SN_V2X_PAIR_TASKS : tasks ? tasks : 1;
    pairs_job j = {m, n_tx, (m->n_st + tasks - 1) / tasks};
    tasks = m->n_st ? (m->n_st + j.per - 1) / j.per : 0;
    m->pair_tasks = tasks, m->pair_per = j.per;
    sn_status st = sn_v2x_run_tasks(m, pairs_task, &j, tasks);
    uint32_t n = 0;
    for (uint32_t t = 0; t < tasks && !st; t++) {
        if (m->pt[t].oom)
            return SN_E_NOMEM;
        m->pt[t].at = n, n += m->pt[t].n;
    }
    if (st)
        return st;
    if (!grow_pairs(m, n))
        return SN_E_NOMEM;
    if ((st = sn_v2x_run_tasks(m, pairs_copy, &j, tasks)))
        return st;
    m->n_pairs = n;
    m->r_start[m->n_st] = n;
    m->pairs_seen += n;
    return SN_OK;
}

/* Receivers [task * per, (task + 1) * per): the loss with fading, drawn from each receiver's own
** stream in sender order, the power, and the receptions (rx from the receiver's r_start on, in
** sender order). No task touches another's receivers. */
typedef struct powers_job {
    sn_v2x_medium *m;
    uint32_t per;
} powers_job;

static void powers_task(void *arg, uint32_t task)
{
    const powers_job *j = arg;
    sn_v2x_medium *m = j->m;
    uint32_t r0 = task * j->per, r1 = r0 + j->per < m->n_st ? r0 + j->per : m->n_st;
    for (uint32_t r = r0; r < r1; r++) {
        sn_v2x_station *rs = m->order[r];
        uint32_t at = m->r_start[r];
        rs->rx_first = at;
        bool heights = rs->radio.model != SN_V2X_WINNER; /* WINNER+ does not use them */
        for (uint32_t k = m->r_start[r]; k < m->r_start[r + 1]; k++) {
            const sn_v2x_station *ts = m->order[m->senders[k]];
            double ht = 0, hr = 0;
            if (heights) {
                double ref0 = fmin(ts->ground, rs->ground);
                ht = fmax(ts->pos.z - ref0, 0), hr = fmax(rs->pos.z - ref0, 0);
            }
            double d = m->dist[k] < 1e-3 ? 1e-3 : m->dist[k]; /* co-located antennas: a millimetre, not log(0) */
            sn_v2x_los los = (sn_v2x_los)m->los[k];
            double pl = sn_v2x_path_loss(&rs->radio, los, d, ht, hr, los == SN_V2X_NLOSV ? m->ke[k] : 0);
            double loss = pl + sn_v2x_rng_normal(&rs->rng, 0.0, sn_v2x_fading_sigma(&rs->radio, los));
            double power = ts->radio.tx_power + rs->radio.gain - loss;
            if (power >= rs->radio.sensitivity)
                m->rx[at++] = (sn_v2x_rx){power, (uint8_t)los, ts->tx_first, ts->tx_count};
        }
        rs->rx_count = at - rs->rx_first;
    }
}

/* Every pair's power and the receptions, receivers split over the host's workers (the same
** draws at any count). */
static sn_status powers(sn_v2x_medium *m)
{
    if (!sn_grow_array32((void **)&m->rx, &m->cap_rx, m->n_pairs, sizeof *m->rx))
        return SN_E_NOMEM;
    /* tasks of some 4 000 pairs: worth handing out, enough of them to balance two cores */
    uint32_t tasks = m->n_pairs / 4096 + 1;
    tasks = tasks > 64 ? 64 : tasks > m->n_st ? m->n_st : tasks;
    powers_job j = {m, (m->n_st + tasks - 1) / tasks};
    tasks = (m->n_st + j.per - 1) / j.per;
    return sn_v2x_run_tasks(m, powers_task, &j, tasks);
}

/* A station that does not report this frame keeps copies of its receptions for its next tick. */
static sn_status carry(sn_v2x_medium *m)
{
    for (uint32_t i = 0; i < m->n_st; i++) {
        sn_v2x_station *s = m->order[i];
        if (s->ticked || s->foreign || !s->rx_count) /* a foreign station's go to its inbox */
            continue;
        for (uint32_t k = 0; k < s->rx_count; k++) {
            sn_v2x_rx e = m->rx[s->rx_first + k];
            if (!sn_grow_array32((void **)&s->carried, &s->cap_carried, s->n_carried + 1, sizeof *s->carried) ||
                !sn_grow_array32((void **)&s->carried_msgs, &s->cap_cmsgs, s->n_cmsgs + e.count, sizeof *s->carried_msgs))
                return SN_E_NOMEM;
            memcpy(&s->carried_msgs[s->n_cmsgs], &m->msgs[e.first], e.count * sizeof *m->msgs);
            for (uint32_t k = 0; k < e.count; k++) /* this frame's encoding is gone by the report */
                s->carried_msgs[s->n_cmsgs + k].packed_len = 0;
            e.first = s->n_cmsgs, s->n_cmsgs += e.count;
            s->carried[s->n_carried++] = e;
        }
        s->rx_count = 0;
    }
    return SN_OK;
}

static sn_status propagate(sn_v2x_medium *m);

sn_status sn_v2x_medium_propagate(sn_v2x_medium *m)
{
    if (!m->n_foreign)
        return propagate(m);
    sn_status st = sn_v2x_foreign_flush(m);
    if (!st)
        st = propagate(m);
    if (!st)
        st = sn_v2x_foreign_deliver(m);
    if (st == SN_E_NOMEM)
        m->host->set_error(m->ctx, "out of memory propagating V2X messages");
    return st;
}

static sn_status propagate(sn_v2x_medium *m)
{
    const sn_host *h = m->host;
    if (!sn_grow_array32((void **)&m->order, &m->cap_order, m->n_st, sizeof *m->order) ||
        !sn_grow_array32((void **)&m->tx, &m->cap_tx, m->n_st, sizeof *m->tx) ||
        !sn_grow_array32((void **)&m->xy, &m->cap_xy, 2 * m->n_st, sizeof *m->xy)) {
        h->set_error(m->ctx, "out of memory propagating V2X messages");
        return SN_E_NOMEM;
    }
    if (m->dirty) {
        memcpy(m->order, m->st, m->n_st * sizeof *m->st);
        qsort(m->order, m->n_st, sizeof *m->order, by_station);
        m->dirty = false;
    }
    uint32_t n_tx = 0;
    for (uint32_t i = 0; i < m->n_st; i++)
        if (m->order[i]->tx_count)
            m->tx[n_tx++] = i;
    if (!n_tx)
        return SN_OK;
    place(m);
    bool cache = true; /* every station lets its links be answered from the last tick's */
#ifdef SN_V2X_CARLA_METHOD
    cache = false; /* the benchmark's baseline traces every pair every tick, as CARLA does */
#endif
    for (uint32_t i = 0; i < m->n_st && cache; i++)
        cache = !m->order[i]->no_los_cache;
    sn_status st = SN_OK;
    if (!(cache && sn_v2x_loscache_same_pairs(m))) { /* else last tick's pairs are this tick's */
        m->los_cache.pairs_current = false;
        st = find_pairs(m, n_tx);
    }
    if (!st && !(cache && sn_v2x_loscache_get(m))) {
        st = sn_v2x_los_classify(m);
        if (!st && cache)
            sn_v2x_loscache_put(m);
    }
    if (!st)
        st = powers(m);
    if (!st)
        st = carry(m);
    if (st == SN_E_NOMEM)
        h->set_error(m->ctx, "out of memory propagating V2X messages");
    return st;
}

uint32_t sn_v2x_station_pending(const sn_v2x_medium *m, const sn_v2x_station *s)
{
    (void)m;
    return s->ticked ? s->n_carried + s->rx_count : 0;
}

const sn_v2x_rx *sn_v2x_station_rx(const sn_v2x_medium *m, const sn_v2x_station *s, uint32_t i,
                                   const sn_v2x_msg **msgs)
{
    if (i < s->n_carried) {
        *msgs = s->carried_msgs;
        return &s->carried[i];
    }
    *msgs = m->msgs;
    return &m->rx[s->rx_first + i - s->n_carried];
}
