/* trace_at.c — rays at times inside the last frame: grouped by time, the moving geometry
** re-posed once per distinct time (host->ray_batch_at). */
#include "internal.h"

#include "../core/util.h"

#include <stdlib.h>
#include <string.h>

/* Whether any shaped, non-static actor is somewhere else at the start of the frame than at its
** end: when none is, every time inside the frame sees the same world. */
static bool world_moved(const sn_world *w)
{
    for (size_t i = 0; i < w->n_actors; i++) {
        const sn_actor *a = w->actors[i];
        if (a->kind == SN_ACTOR_SENSOR || a->shape == SN_SHAPE_NONE || (a->kind == SN_ACTOR_STATIC && !a->parent && !a->ph->body))
            continue;
        sn_vec3 p0, p1;
        sn_quat q0, q1;
        sn_actor_pose_at(w, a, 0.0, &p0, &q0);
        sn_actor_pose_at(w, a, 1.0, &p1, &q1);
        if (memcmp(&p0, &p1, sizeof p0) || memcmp(&q0, &q1, sizeof q0))
            return true;
    }
    return false;
}

static int idx_cmp(const void *x, const void *y, void *user)
{
    const double *al = user;
    uint32_t i = *(const uint32_t *)x, j = *(const uint32_t *)y;
    if (al[i] != al[j])
        return al[i] < al[j] ? -1 : 1;
    return (i > j) - (i < j); /* stable: one order whatever qsort does with ties */
}

/* qsort_r is not C11: a small merge sort of indices by (alpha, index). */
static void sort_idx(uint32_t *v, uint32_t *tmp, uint32_t n, const double *al)
{
    if (n < 2)
        return;
    uint32_t h = n / 2;
    sort_idx(v, tmp, h, al);
    sort_idx(v + h, tmp, n - h, al);
    uint32_t i = 0, j = h, k = 0;
    while (i < h && j < n)
        tmp[k++] = idx_cmp(&v[i], &v[j], (void *)al) <= 0 ? v[i++] : v[j++];
    while (i < h)
        tmp[k++] = v[i++];
    while (j < n)
        tmp[k++] = v[j++];
    memcpy(v, tmp, n * sizeof *v);
}

sn_status sn_rays_trace_times(sn_rayscene *rs, const sn_world *w, const double *alpha, uint32_t n_alpha,
                              const sn_ray_query *q, const sn_ray *rays, uint32_t n, sn_ray_result *out,
                              sn_error *err)
{
    sn_status st = rs_check_query(q, n, true, err);
    if (st)
        return st;
    if (!alpha || (n_alpha != 1 && n_alpha != n))
        return sn_fail(err, SN_E_INVALID, "%u times for %u rays: give 1 (all rays) or one per ray", n_alpha, n);
    for (uint32_t i = 0; i < n_alpha; i++)
        if (!(alpha[i] >= 0 && alpha[i] <= 1))
            return sn_fail(err, SN_E_RANGE, "time %u is outside the last frame", i);
    if (n && (!rays || !out))
        return sn_fail(err, SN_E_INVALID, "NULL rays or results for %u rays", n);
    if (!n)
        return SN_OK;
    bool one = true;
    for (uint32_t i = 1; i < n_alpha && one; i++)
        one = alpha[i] == alpha[0];
    bool moved = world_moved(w);
    if (one || !moved) /* one world for every ray: traced as one batch (as now when nothing moved) */
        return sn_rays_trace_at(rs, w, moved ? alpha[0] : 1.0, q, rays, n, out, err);

    /* Groups of equal time, in time order; each traced as a batch of its own through scratch
    ** arrays laid out with the caller's strides, then scattered back. */
    uint32_t *idx = malloc((size_t)n * sizeof *idx), *tmp = malloc((size_t)n * sizeof *tmp);
    sn_ray *gr = malloc((size_t)n * sizeof *gr);
    char *gout = calloc(n, q->result_size);
    size_t hit_bytes = SN_RAY_MODE_MANY(q->mode) ? (size_t)q->max_hits * q->hit_size : 0;
    char *ghits = hit_bytes ? calloc(n, hit_bytes) : NULL;
    if (!idx || !tmp || !gr || !gout || (hit_bytes && !ghits)) {
        free(idx), free(tmp), free(gr), free(gout), free(ghits);
        return sn_fail(err, SN_E_NOMEM, "ray_batch_at: out of memory for %u rays", n);
    }
    for (uint32_t i = 0; i < n; i++)
        idx[i] = i;
    sort_idx(idx, tmp, n, alpha);
    sn_ray_query gq = *q;
    gq.ray_size = sizeof(sn_ray);
    gq.hits = (sn_ray_hit *)(void *)ghits;
    for (uint32_t a = 0; a < n && !st;) {
        uint32_t b = a;
        while (b < n && alpha[idx[b]] == alpha[idx[a]])
            b++;
        for (uint32_t k = a; k < b; k++)
            memcpy(&gr[k - a], (const char *)rays + (size_t)idx[k] * q->ray_size, sizeof *gr);
        st = sn_rays_trace_at(rs, w, alpha[idx[a]], &gq, gr, b - a, (sn_ray_result *)(void *)gout, err);
        for (uint32_t k = a; k < b && !st; k++) {
            memcpy((char *)out + (size_t)idx[k] * q->result_size, gout + (size_t)(k - a) * q->result_size,
                   rs_min_size(q->result_size, sizeof(sn_ray_result)));
            if (hit_bytes)
                memcpy((char *)q->hits + (size_t)idx[k] * hit_bytes, ghits + (size_t)(k - a) * hit_bytes, hit_bytes);
        }
        a = b;
    }
    free(idx), free(tmp), free(gr), free(gout), free(ghits);
    return st;
}
