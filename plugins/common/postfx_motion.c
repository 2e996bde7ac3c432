/* postfx_motion.c — motion blur's blur vectors (postfx_motion.h), the optical flow camera's
** projection (plugins/optical_flow) in pixels. */
#include "postfx_motion.h"

#include <sensim/math.h>

#include <math.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

static uint32_t slot(pfx_motion *m, uint32_t id, bool *found)
{
    uint32_t k = (id * 2654435761u) & (PFX_IDS - 1);
    for (uint32_t n = 0; n < PFX_IDS; n++, k = (k + 1) & (PFX_IDS - 1)) {
        if (m->key[k] == id + 1) {
            *found = true;
            return k;
        }
        if (!m->key[k]) {
            *found = false;
            return k;
        }
    }
    *found = false;
    return UINT32_MAX; /* full */
}

/* What every row of the blur vectors needs (vel_rows). */
typedef struct vel_job {
    pfx_motion *m;
    const pfx_params *p;
    uint32_t w, h;
    double f, cx, cy, min_w, max_len;
    sn_mat3 rp;
    sn_vec3 fwd, right, up;
    const sn_transform *now, *prev;
    bool still;
    const float *depth, *motion;
    const uint32_t *inst;
    float *vel;
} vel_job;

#define VEL_ROWS 16 /* rows per task */

/* Rows [b VEL_ROWS, b VEL_ROWS + VEL_ROWS) of the blur vectors: each pixel depends on its own
** inputs alone (the instance cache is per task), so any split gives the same vectors. */
static void vel_rows(void *arg, uint32_t b)
{
    const vel_job *J = arg;
    pfx_motion *m = J->m;
    const pfx_params *p = J->p;
    const uint32_t w = J->w, y1 = (b + 1) * VEL_ROWS < J->h ? (b + 1) * VEL_ROWS : J->h;
    const double f = J->f, cx = J->cx, cy = J->cy, min_w = J->min_w, max_len = J->max_len;
    const sn_vec3 fwd = J->fwd, right = J->right, up = J->up;
    const sn_transform *now = J->now, *prev = J->prev;
    const float *depth = J->depth, *motion = J->motion;
    const uint32_t *inst = J->inst;
    float *vel = J->vel;
    uint32_t last_id = 0; /* 0: no instance asked yet */
    bool last_small = false;
    /* len > max_len is only possible from du^2 + dv^2 >= this: below it the correctly rounded root
    ** is at least max_len (1 - 5e-13) below max_len, far more than its rounding; the root is taken
    ** only above it (the same len and the same comparison as always taking it) */
    const double len2_lo = max_len * max_len * (1 - 1e-12);
    /* each column's (u - cx) / f, made once a chunk of columns for the task's rows (the same
    ** division as per pixel); the order of pixels changes nothing (each depends on its own inputs,
    ** last_id only spares lookups) */
    enum { CHUNK = 256 };
    double acol[CHUNK];
    for (uint32_t x0 = 0; x0 < w; x0 += CHUNK) {
        const uint32_t x1 = x0 + CHUNK < w ? x0 + CHUNK : w;
        for (uint32_t x = x0; x < x1; x++)
            acol[x - x0] = (x + 0.5 - cx) / f;
        for (uint32_t y = b * VEL_ROWS; y < y1; y++) {
            const double v = y + 0.5, bb = (v - cy) / f;
            for (uint32_t x = x0; x < x1; x++) {
                size_t i = (size_t)y * w + x;
                float *o = vel + 2 * i;
                o[0] = o[1] = 0;
                static const float none[3] = {0, 0, 0};
                const float *mv = motion ? motion + 3 * i : none; /* NULL: the camera's motion alone */
                bool moves = mv[0] != 0 || mv[1] != 0 || mv[2] != 0;
                if (moves && inst && min_w > 0 && inst[i]) {
                    if (inst[i] != last_id) { /* neighbours mostly share an instance: its answer kept */
                        bool found;
                        uint32_t k = slot(m, inst[i], &found);
                        last_id = inst[i], last_small = found && m->hi[k] + 1 - m->lo[k] < min_w;
                    }
                    if (last_small)
                        moves = false; /* too small on screen: no velocity of its own */
                }
                if (J->still && !moves)
                    continue;
                const double u = x + 0.5, a = acol[x - x0];
                sn_vec3 ray = sn_v3_add(fwd, sn_v3_sub(sn_v3_scale(right, a), sn_v3_scale(up, bb)));
                sn_vec3 pt = sn_v3_add(now->location, sn_v3_scale(ray, depth[i]));
                if (moves)
                    pt = sn_v3_add(pt, sn_v3((double)mv[0], (double)mv[1], (double)mv[2]));
                sn_vec3 q = sn_mat3_apply_t(&J->rp, sn_v3_sub(pt, prev->location));
                if (!(q.x > 1e-9))
                    continue; /* behind the previous camera */
#ifdef __SSE2__
                /* f q.y / q.x and f q.z / q.x in one divpd (each lane the same division) */
                double qq[2];
                _mm_storeu_pd(qq, _mm_div_pd(_mm_mul_pd(_mm_set1_pd(f), _mm_set_pd(q.z, q.y)), _mm_set1_pd(q.x)));
                double du = (u - (cx + qq[0])) * p->mb_intensity, dv = (v - (cy - qq[1])) * p->mb_intensity;
#else
                double du = (u - (cx + f * q.y / q.x)) * p->mb_intensity, dv = (v - (cy - f * q.z / q.x)) * p->mb_intensity;
#endif
                const double len2 = du * du + dv * dv;
                if (len2 >= len2_lo) {
                    double len = sqrt(len2);
                    if (len > max_len)
                        du *= max_len / len, dv *= max_len / len;
                }
                o[0] = (float)du, o[1] = (float)dv;
            }
        }
    }
}

void pfx_velocity(pfx_motion *m, const pfx_params *p, uint32_t w, uint32_t h, double fov, const sn_transform *now,
                  const sn_transform *prev, const float *depth, const uint32_t *inst, const float *motion, float *vel,
                  pfx_run_fn run, void *runner)
{
    const double W = w, H = h, f = W / (2 * tan(fov * M_PI / 360)), cx = W / 2, cy = H / 2;
    const double min_w = p->mb_min_size / 100.0 * W, max_len = p->mb_max_distortion / 100.0 * W;
    if (inst && min_w > 0) {
        memset(m->key, 0, sizeof m->key);
        for (uint32_t y = 0; y < h; y++)
            for (uint32_t x = 0; x < w;) {
                uint32_t id = inst[(size_t)y * w + x], x0 = x;
                while (++x < w && inst[(size_t)y * w + x] == id) /* a run of one instance: one lookup */
                    ;
                if (!id)
                    continue;
                bool found;
                uint32_t k = slot(m, id, &found);
                if (k == UINT32_MAX)
                    continue;
                if (!found)
                    m->key[k] = id + 1, m->lo[k] = x0, m->hi[k] = x - 1;
                else
                    m->lo[k] = x0 < m->lo[k] ? x0 : m->lo[k], m->hi[k] = x - 1 > m->hi[k] ? x - 1 : m->hi[k];
            }
    }
    const sn_mat3 rn = sn_mat3_from_rotation(now->rotation);
    vel_job J = {.m = m, .p = p, .w = w, .h = h, .f = f, .cx = cx, .cy = cy, .min_w = min_w, .max_len = max_len,
                 .rp = sn_mat3_from_rotation(prev->rotation), .fwd = sn_mat3_col(&rn, 0), .right = sn_mat3_col(&rn, 1),
                 .up = sn_mat3_col(&rn, 2), .now = now, .prev = prev, .depth = depth, .motion = motion, .inst = inst,
                 .vel = vel};
    J.still = memcmp(&now->location, &prev->location, sizeof now->location) == 0 &&
              now->rotation.pitch == prev->rotation.pitch && now->rotation.yaw == prev->rotation.yaw &&
              now->rotation.roll == prev->rotation.roll;
    const uint32_t n = (h + VEL_ROWS - 1) / VEL_ROWS;
    if (run)
        run(runner, vel_rows, &J, n);
    else
        for (uint32_t b = 0; b < n; b++)
            vel_rows(&J, b);
}

void pfx_velocity_upsample(const float *src, uint32_t mw, uint32_t mh, uint32_t d, float *dst, uint32_t w, uint32_t h)
{
    for (uint32_t y = 0; y < h; y++) {
        float *o = dst + 2 * (size_t)y * w;
        if (y % d) { /* the row above came from the same source row */
            memcpy(o, o - 2 * (size_t)w, 2 * (size_t)w * sizeof *o);
            continue;
        }
        const uint32_t sy = y / d < mh ? y / d : mh - 1;
        const float *s = src + 2 * (size_t)sy * mw;
        for (uint32_t x = 0, sx = 0, k = 0; x < w; x++) {
            o[2 * x] = s[2 * sx] * (float)d, o[2 * x + 1] = s[2 * sx + 1] * (float)d;
            if (++k == d && sx + 1 < mw) /* sx = min(x / d, mw - 1) for the next x */
                k = 0, sx++;
        }
    }
}
