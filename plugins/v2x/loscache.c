/* loscache.c — last tick's line of sight, reused while nothing moved (loscache.h says when). */
#include "loscache.h"
#include "medium.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A station as its pairs and links see it (zeroed first: compared byte for byte). */
typedef struct sn_v2x_station_key {
    double x, y, z;
    sn_v2x_radio radio;
    uint32_t station_id, channel;
    uint8_t placed, sends;
} sn_v2x_station_key;

static void key_of(const sn_v2x_station *s, sn_v2x_station_key *k)
{
    memset(k, 0, sizeof *k);
    k->x = s->pos.x, k->y = s->pos.y, k->z = s->pos.z;
    k->radio = s->radio;
    k->station_id = s->station_id, k->channel = s->channel;
    k->placed = s->placed, k->sends = s->tx_count > 0;
}

/* memcmp of n bytes, n == 0 (and NULL) allowed. */
static bool same(const void *a, const void *b, size_t n) { return !n || !memcmp(a, b, n); }

/* How far (m) the models may have moved, at the most, while their answers are kept. */
#define MAX_DRIFT 1e-6

/* Every actor but the sensors, into c->now; its count, or UINT32_MAX out of memory. The
** highest speed among them into *speed. */
static uint32_t snapshot(sn_v2x_medium *m, double *speed)
{
    sn_v2x_loscache *c = &m->los_cache;
    const sn_host *h = m->host;
    uint32_t n = h->actor_count(m->ctx), k = 0;
    if (!sn_grow_array32((void **)&c->now, &c->cap_now, n + 1, sizeof *c->now))
        return UINT32_MAX;
    *speed = 0;
    for (uint32_t i = 0; i < n; i++) {
        sn_actor_info a;
        memset(&a, 0, sizeof a);
        a.struct_size = sizeof a;
        if (h->actor_get(m->ctx, h->actor_id_at(m->ctx, i), &a) != SN_OK || a.kind == SN_ACTOR_SENSOR)
            continue;
        sn_v2x_pose *p = &c->now[k++];
        memset(p, 0, sizeof *p);
        p->id = a.id, p->kind = (uint32_t)a.kind;
        const sn_vec3 v[7] = {a.transform.location,
                              {a.transform.rotation.pitch, a.transform.rotation.yaw, a.transform.rotation.roll},
                              a.bounding_box.location, a.bounding_box.extent, a.velocity, a.angular_velocity,
                              {a.wheel_steer_angle, 0, 0}};
        for (int j = 0; j < 7; j++)
            p->v[3 * j] = v[j].x, p->v[3 * j + 1] = v[j].y, p->v[3 * j + 2] = v[j].z;
        double s = sqrt(a.velocity.x * a.velocity.x + a.velocity.y * a.velocity.y + a.velocity.z * a.velocity.z);
        *speed = s > *speed || isnan(s) ? s : *speed;
    }
    return k;
}

/* Whether the stations are those of the cache, each as it was (key_of). */
static bool same_stations(const sn_v2x_medium *m, const sn_v2x_loscache *c)
{
    if (c->n_st != m->n_st || !same(c->st, m->order, m->n_st * sizeof *c->st))
        return false;
    for (uint32_t i = 0; i < m->n_st; i++) {
        sn_v2x_station_key k;
        key_of(m->order[i], &k);
        if (!same(&k, &c->keys[i], sizeof k))
            return false;
    }
    return true;
}

bool sn_v2x_loscache_same_pairs(const sn_v2x_medium *m)
{
    const sn_v2x_loscache *c = &m->los_cache;
    return c->pairs_stored && c->pairs_current && same_stations(m, c);
}

/* Whether the medium's stations and pairs are those stored: the same stations as they were,
** the same senders heard by the same receivers. */
static bool same_links(const sn_v2x_medium *m, const sn_v2x_loscache *c)
{
    if (c->pairs_current)
        return true; /* find_pairs did not run: sn_v2x_loscache_same_pairs said so */
    return c->pairs_stored && c->n_pairs == m->n_pairs && same_stations(m, c) &&
           same(c->r_start, m->r_start, (m->n_st + 1) * sizeof *c->r_start) &&
           same(c->senders, m->senders, m->n_pairs * sizeof *c->senders);
}

bool sn_v2x_loscache_get(sn_v2x_medium *m)
{
    sn_v2x_loscache *c = &m->los_cache;
    const sn_clock *clk = m->host->clock(m->ctx);
    uint32_t n = snapshot(m, &c->speed_now);
    if (n == UINT32_MAX) { /* out of memory: no cache */
        c->valid = c->still = false, c->n_poses = 0;
        return false;
    }
    c->still = clk->frame == c->frame + 1 && n == c->n_poses && same(c->now, c->poses, n * sizeof *c->poses);
    sn_v2x_pose *p = c->poses; /* this tick's world becomes the last */
    uint32_t cap = c->cap_poses;
    c->poses = c->now, c->cap_poses = c->cap_now, c->n_poses = n;
    c->now = p, c->cap_now = cap;
    c->frame = clk->frame;
    if (!c->still)
        c->valid = false;
    if (!c->valid)
        return false;
    c->speed = c->speed_now > c->speed || isnan(c->speed_now) ? c->speed_now : c->speed;
    if (!(c->speed * (clk->timestamp - c->t0) < MAX_DRIFT)) {
        c->valid = false;
        return false;
    }
    if (!same_links(m, c))
        return false;
    c->pairs_current = true;
    if (m->n_pairs)
        memcpy(m->los, c->los, m->n_pairs), memcpy(m->ke, c->ke, m->n_pairs * sizeof *m->ke);
    c->reused++;
    return true;
}

void sn_v2x_loscache_put(sn_v2x_medium *m)
{
    sn_v2x_loscache *c = &m->los_cache;
    c->valid = c->pairs_stored = false;
    if (!c->still)
        return;
    uint32_t cap = c->cap_pairs, cap_ke = c->cap_pairs;
    if (!sn_grow_array32((void **)&c->keys, &c->cap_keys, m->n_st + 1, sizeof *c->keys) ||
        !sn_grow_array32((void **)&c->st, &c->cap_st, m->n_st + 1, sizeof *c->st) ||
        !sn_grow_array32((void **)&c->r_start, &c->cap_r_start, m->n_st + 1, sizeof *c->r_start) ||
        !sn_grow_array32((void **)&c->senders, &cap, m->n_pairs + 1, sizeof *c->senders) ||
        !sn_grow_array32((void **)&c->los, &c->cap_pairs, m->n_pairs + 1, 1) ||
        !sn_grow_array32((void **)&c->ke, &cap_ke, m->n_pairs + 1, sizeof *c->ke))
        return;
    /* each grew to n_pairs + 1 at least; cap_pairs is the least of them */
    c->cap_pairs = cap < c->cap_pairs ? cap : c->cap_pairs;
    c->cap_pairs = cap_ke < c->cap_pairs ? cap_ke : c->cap_pairs;
    c->speed = c->speed_now;
    c->t0 = m->host->clock(m->ctx)->timestamp;
    c->n_st = m->n_st;
    if (m->n_st)
        memcpy(c->st, m->order, m->n_st * sizeof *c->st);
    for (uint32_t i = 0; i < m->n_st; i++)
        key_of(m->order[i], &c->keys[i]);
    c->n_pairs = m->n_pairs;
    memcpy(c->r_start, m->r_start, (m->n_st + 1) * sizeof *c->r_start);
    if (m->n_pairs) {
        memcpy(c->senders, m->senders, m->n_pairs * sizeof *c->senders);
        memcpy(c->los, m->los, m->n_pairs);
        memcpy(c->ke, m->ke, m->n_pairs * sizeof *c->ke);
    }
    c->valid = c->pairs_stored = c->pairs_current = true;
}

void sn_v2x_loscache_free(sn_v2x_loscache *c)
{
    free(c->poses), free(c->now), free(c->keys), free(c->st), free(c->r_start), free(c->senders), free(c->los);
    free(c->ke);
    memset(c, 0, sizeof *c);
}
