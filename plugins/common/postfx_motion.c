/* postfx_motion.c — motion blur's blur vectors (postfx_motion.h), the optical flow camera's
** projection (plugins/optical_flow) in pixels. */
#include "postfx_motion.h"

#include <sensim/math.h>

#include <math.h>
#include <string.h>

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

void pfx_velocity(pfx_motion *m, const pfx_params *p, uint32_t w, uint32_t h, double fov, const sn_transform *now,
                  const sn_transform *prev, const float *depth, const uint32_t *inst, const float *motion, float *vel)
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
    const sn_mat3 rn = sn_mat3_from_rotation(now->rotation), rp = sn_mat3_from_rotation(prev->rotation);
    const sn_vec3 fwd = sn_mat3_col(&rn, 0), right = sn_mat3_col(&rn, 1), up = sn_mat3_col(&rn, 2);
    const bool still = memcmp(&now->location, &prev->location, sizeof now->location) == 0 &&
                       now->rotation.pitch == prev->rotation.pitch && now->rotation.yaw == prev->rotation.yaw &&
                       now->rotation.roll == prev->rotation.roll;
    uint32_t last_id = 0; /* 0: no instance asked yet */
    bool last_small = false;
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            size_t i = (size_t)y * w + x;
            float *o = vel + 2 * i;
            o[0] = o[1] = 0;
            const float *mv = motion + 3 * i;
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
            if (still && !moves)
                continue;
            double u = x + 0.5, v = y + 0.5, a = (u - cx) / f, b = (v - cy) / f;
            sn_vec3 ray = sn_v3_add(fwd, sn_v3_sub(sn_v3_scale(right, a), sn_v3_scale(up, b)));
            sn_vec3 pt = sn_v3_add(now->location, sn_v3_scale(ray, depth[i]));
            if (moves)
                pt = sn_v3_add(pt, sn_v3((double)mv[0], (double)mv[1], (double)mv[2]));
            sn_vec3 q = sn_mat3_apply_t(&rp, sn_v3_sub(pt, prev->location));
            if (!(q.x > 1e-9))
                continue; /* behind the previous camera */
            double du = (u - (cx + f * q.y / q.x)) * p->mb_intensity, dv = (v - (cy - f * q.z / q.x)) * p->mb_intensity;
            double len = sqrt(du * du + dv * dv);
            if (len > max_len)
                du *= max_len / len, dv *= max_len / len;
            o[0] = (float)du, o[1] = (float)dv;
        }
}
