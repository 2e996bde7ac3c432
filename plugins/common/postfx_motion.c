/* postfx_motion.c — motion blur's blur vectors (postfx_motion.h), the optical flow camera's
** projection (plugins/optical_flow) in pixels. */
#include "postfx_motion.h"

#include <sensim/math.h>

#include <math.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#include <immintrin.h>
#define PFX_VEL_AVX2 1 /* vel_rows's pixels four at a time in AVX2 lanes where the CPU has them (vel_four) */
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
    bool lanes; /* the AVX2 row kernel (vel_four) where the CPU has it */
    const float *depth, *motion;
    const uint32_t *inst;
    float *vel;
} vel_job;

#define VEL_ROWS 16 /* rows per task */

/* The instance-size answer neighbours share (an instance's lookup kept while the pixels go on
** seeing it): per task, so it changes no pixel's answer, only how often the table is read. */
typedef struct vel_cache {
    uint32_t id; /* 0: no instance asked yet */
    bool small;
} vel_cache;

/* Whether pixel i has a velocity of its own: a motion, not on an instance narrower on screen than
** min_w. */
static inline bool pixel_moves(const vel_job *J, size_t i, vel_cache *k)
{
    static const float none[3] = {0, 0, 0};
    const float *mv = J->motion ? J->motion + 3 * i : none; /* NULL: the camera's motion alone */
    bool moves = mv[0] != 0 || mv[1] != 0 || mv[2] != 0;
    if (moves && J->inst && J->min_w > 1 && J->inst[i]) { /* min_w <= 1: none is narrower (velocity) */
        const uint32_t id = J->inst[i];
        if (id != k->id) {
            bool found;
            uint32_t s = slot(J->m, id, &found);
            k->id = id, k->small = found && J->m->hi[s] + 1 - J->m->lo[s] < J->min_w;
        }
        if (k->small)
            moves = false; /* too small on screen: no velocity of its own */
    }
    return moves;
}

/* Pixel (x, y)'s blur vector, one pixel (len2_lo: where the clamp can act, vel_rows); with
** a = (x + 1/2 - cx) / f, ra = right a (made once a column), ub = up (y + 1/2 - cy) / f (once a row). */
static void vel_one(const vel_job *J, uint32_t x, uint32_t y, sn_vec3 ra, sn_vec3 ub, double len2_lo, vel_cache *k)
{
    const size_t i = (size_t)y * J->w + x;
    float *o = J->vel + 2 * i;
    o[0] = o[1] = 0;
    const bool moves = pixel_moves(J, i, k);
    if (J->still && !moves)
        return;
    const double f = J->f, cx = J->cx, cy = J->cy, max_len = J->max_len, u = x + 0.5, v = y + 0.5;
    const sn_transform *now = J->now, *prev = J->prev;
    sn_vec3 ray = sn_v3_add(J->fwd, sn_v3_sub(ra, ub));
    sn_vec3 pt = sn_v3_add(now->location, sn_v3_scale(ray, J->depth[i]));
    if (moves) {
        const float *mv = J->motion + 3 * i;
        pt = sn_v3_add(pt, sn_v3((double)mv[0], (double)mv[1], (double)mv[2]));
    }
    sn_vec3 q = sn_mat3_apply_t(&J->rp, sn_v3_sub(pt, prev->location));
    if (!(q.x > 1e-9))
        return; /* behind the previous camera */
#ifdef __SSE2__
    /* f q.y / q.x and f q.z / q.x in one divpd (each lane the same division) */
    double qq[2];
    _mm_storeu_pd(qq, _mm_div_pd(_mm_mul_pd(_mm_set1_pd(f), _mm_set_pd(q.z, q.y)), _mm_set1_pd(q.x)));
    double du = (u - (cx + qq[0])) * J->p->mb_intensity, dv = (v - (cy - qq[1])) * J->p->mb_intensity;
#else
    double du = (u - (cx + f * q.y / q.x)) * J->p->mb_intensity, dv = (v - (cy - f * q.z / q.x)) * J->p->mb_intensity;
#endif
    const double len2 = du * du + dv * dv;
    if (len2 >= len2_lo) {
        double len = sqrt(len2);
        if (len > max_len)
            du *= max_len / len, dv *= max_len / len;
    }
    o[0] = (float)du, o[1] = (float)dv;
}

#ifdef PFX_VEL_AVX2
typedef double v4d __attribute__((vector_size(32)));
typedef long long v4l __attribute__((vector_size(32)));
typedef float v4f __attribute__((vector_size(16)));

/* vel_one for pixels x0 .. x1 - 1 (a multiple of 4 of them) of row y, four at a time in AVX2's
** double lanes: each lane vel_one's double operations in its order (no FMA: the target adds AVX2
** alone, and C11 mode does not contract), its branches as selects: the same vectors. rx, ry, rz:
** ra's components from column x0 on. */
__attribute__((target("avx2"))) static void vel_four(const vel_job *J, uint32_t x0, uint32_t x1, uint32_t y,
                                                     const double *rx, const double *ry, const double *rz, sn_vec3 ub,
                                                     double len2_lo, vel_cache *k)
{
#define V4(s)        ((v4d){(s), (s), (s), (s)})
#define SEL(m, a, b) ((v4d)_mm256_blendv_pd((__m256d)(b), (__m256d)(a), (__m256d)(m))) /* m ? a : b, a lane each */
    const sn_vec3 loc = J->now->location, pl = J->prev->location, fwd = J->fwd;
    const double *a = J->rp.m;
    const v4d fx = V4(fwd.x), fy = V4(fwd.y), fz = V4(fwd.z), ubx = V4(ub.x), uby = V4(ub.y), ubz = V4(ub.z);
    const v4d lx = V4(loc.x), ly = V4(loc.y), lz = V4(loc.z), plx = V4(pl.x), ply = V4(pl.y), plz = V4(pl.z);
    const v4d a0 = V4(a[0]), a1 = V4(a[1]), a2 = V4(a[2]), a3 = V4(a[3]), a4 = V4(a[4]), a5 = V4(a[5]);
    const v4d a6 = V4(a[6]), a7 = V4(a[7]), a8 = V4(a[8]), F = V4(J->f), CX = V4(J->cx), CY = V4(J->cy);
    const v4d v = V4(y + 0.5), I = V4(J->p->mb_intensity), L2 = V4(len2_lo), ML = V4(J->max_len), EPS = V4(1e-9);
    const bool sizes = J->inst && J->min_w > 1; /* as pixel_moves */
    for (uint32_t x = x0; x < x1; x += 4) {
        const size_t i = (size_t)y * J->w + x;
        float *o = J->vel + 2 * i;
        /* which of the four have a motion (NaN counts, as != 0 does), then the small instances' */
        int mv = 0;
        if (J->motion) {
            const float *m = J->motion + 3 * i;
            const __m128 z = _mm_setzero_ps();
            const int c = _mm_movemask_ps(_mm_cmpneq_ps(_mm_loadu_ps(m), z)) |
                          _mm_movemask_ps(_mm_cmpneq_ps(_mm_loadu_ps(m + 4), z)) << 4 |
                          _mm_movemask_ps(_mm_cmpneq_ps(_mm_loadu_ps(m + 8), z)) << 8;
            for (int l = 0; l < 4; l++)
                if (c >> (3 * l) & 7)
                    mv |= 1 << l;
            if (mv && sizes)
                for (int l = 0; l < 4; l++)
                    if (mv >> l & 1 && !pixel_moves(J, i + l, k))
                        mv &= ~(1 << l);
        }
        if (J->still && !mv) {
            memset(o, 0, 8 * sizeof *o);
            continue;
        }
        v4d ax, ay, az;
        memcpy(&ax, rx + (x - x0), sizeof ax);
        memcpy(&ay, ry + (x - x0), sizeof ay);
        memcpy(&az, rz + (x - x0), sizeof az);
        const v4d rayx = fx + (ax - ubx), rayy = fy + (ay - uby), rayz = fz + (az - ubz);
        v4f df;
        memcpy(&df, J->depth + i, sizeof df);
        const v4d d = __builtin_convertvector(df, v4d);
        v4d px = lx + rayx * d, py = ly + rayy * d, pz = lz + rayz * d;
        const v4l moves = {mv & 1 ? -1 : 0, mv & 2 ? -1 : 0, mv & 4 ? -1 : 0, mv & 8 ? -1 : 0};
        if (mv) { /* the lanes that move add their motion; the others keep their point as it is */
            const float *m = J->motion + 3 * i;
            const v4d mx = {m[0], m[3], m[6], m[9]}, my = {m[1], m[4], m[7], m[10]}, mz = {m[2], m[5], m[8], m[11]};
            px = SEL(moves, px + mx, px), py = SEL(moves, py + my, py), pz = SEL(moves, pz + mz, pz);
        }
        const v4d vx = px - plx, vy = py - ply, vz = pz - plz;
        const v4d qx = a0 * vx + a3 * vy + a6 * vz;
        const v4d qy = a1 * vx + a4 * vy + a7 * vz;
        const v4d qz = a2 * vx + a5 * vy + a8 * vz;
        const v4d u = {x + 0.5, x + 1.5, x + 2.5, x + 3.5};
        v4d du = (u - (CX + F * qy / qx)) * I, dv = (v - (CY - F * qz / qx)) * I;
        const v4d len2 = du * du + dv * dv;
        const v4l big = len2 >= L2;
        if (!_mm256_testz_si256((__m256i)big, (__m256i)big)) {
            const v4d len = (v4d)_mm256_sqrt_pd((__m256d)len2), s = ML / len;
            const v4l cut = big & (len > ML);
            du = SEL(cut, du * s, du), dv = SEL(cut, dv * s, dv);
        }
        /* zero: behind the previous camera (NaN fails too), or nothing moved here over a still camera */
        const v4l keep = J->still ? (qx > EPS) & moves : (qx > EPS);
        du = SEL(keep, du, V4(0.0)), dv = SEL(keep, dv, V4(0.0));
        const v4f fu = __builtin_convertvector(du, v4f), fv = __builtin_convertvector(dv, v4f);
        _mm_storeu_ps(o, _mm_unpacklo_ps((__m128)fu, (__m128)fv));
        _mm_storeu_ps(o + 4, _mm_unpackhi_ps((__m128)fu, (__m128)fv));
    }
#undef SEL
#undef V4
}
#endif

/* Rows [b VEL_ROWS, b VEL_ROWS + VEL_ROWS) of the blur vectors: each pixel depends on its own
** inputs alone (the instance cache is per task), so any split gives the same vectors. */
static void vel_rows(void *arg, uint32_t b)
{
    const vel_job *J = arg;
    const uint32_t w = J->w, y1 = (b + 1) * VEL_ROWS < J->h ? (b + 1) * VEL_ROWS : J->h;
    const double f = J->f, cx = J->cx, cy = J->cy, max_len = J->max_len;
    vel_cache k = {0, false};
    /* len > max_len is only possible from du^2 + dv^2 >= this: below it the correctly rounded root
    ** is at least max_len (1 - 5e-13) below max_len, far more than its rounding; the root is taken
    ** only above it (the same len and the same comparison as always taking it) */
    const double len2_lo = max_len * max_len * (1 - 1e-12);
    /* each column's right (u - cx) / f, made once a chunk of columns for the task's rows (the
    ** same division and products as per pixel); the order of pixels changes nothing (each depends
    ** on its own inputs, the cache only spares lookups) */
    enum { CHUNK = 256 };
    double rx[CHUNK], ry[CHUNK], rz[CHUNK];
    for (uint32_t x0 = 0; x0 < w; x0 += CHUNK) {
        const uint32_t x1 = x0 + CHUNK < w ? x0 + CHUNK : w;
        for (uint32_t x = x0; x < x1; x++) {
            const sn_vec3 ra = sn_v3_scale(J->right, (x + 0.5 - cx) / f);
            rx[x - x0] = ra.x, ry[x - x0] = ra.y, rz[x - x0] = ra.z;
        }
        for (uint32_t y = b * VEL_ROWS; y < y1; y++) {
            const sn_vec3 ub = sn_v3_scale(J->up, (y + 0.5 - cy) / f);
            uint32_t x = x0;
#ifdef PFX_VEL_AVX2
            if (J->lanes) {
                x = x0 + ((x1 - x0) & ~3u);
                vel_four(J, x0, x, y, rx, ry, rz, ub, len2_lo, &k);
            }
#endif
            for (; x < x1; x++)
                vel_one(J, x, y, sn_v3(rx[x - x0], ry[x - x0], rz[x - x0]), ub, len2_lo, &k);
        }
    }
}

static void velocity(pfx_motion *m, const pfx_params *p, uint32_t w, uint32_t h, double fov, const sn_transform *now,
                     const sn_transform *prev, const float *depth, const uint32_t *inst, const float *motion,
                     float *vel, pfx_run_fn run, void *runner, bool lanes)
{
    const double W = w, H = h, f = W / (2 * tan(fov * M_PI / 360)), cx = W / 2, cy = H / 2;
    const double min_w = p->mb_min_size / 100.0 * W, max_len = p->mb_max_distortion / 100.0 * W;
    /* an instance seen is at least a column wide: only min_w > 1 can find one narrower, and CARLA's
    ** default (0.1 % of the width) is under a pixel below 1000 px: no scan, no lookups */
    if (inst && min_w > 1) {
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
                 .vel = vel, .lanes = lanes};
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

void pfx_velocity(pfx_motion *m, const pfx_params *p, uint32_t w, uint32_t h, double fov, const sn_transform *now,
                  const sn_transform *prev, const float *depth, const uint32_t *inst, const float *motion, float *vel,
                  pfx_run_fn run, void *runner)
{
    bool lanes = false;
#ifdef PFX_VEL_AVX2
    __builtin_cpu_init();
    lanes = __builtin_cpu_supports("avx2");
#endif
    velocity(m, p, w, h, fov, now, prev, depth, inst, motion, vel, run, runner, lanes);
}

void pfx_velocity_scalar(pfx_motion *m, const pfx_params *p, uint32_t w, uint32_t h, double fov,
                         const sn_transform *now, const sn_transform *prev, const float *depth, const uint32_t *inst,
                         const float *motion, float *vel)
{
    velocity(m, p, w, h, fov, now, prev, depth, inst, motion, vel, NULL, NULL, false);
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
