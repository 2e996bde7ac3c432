/* lampshadow.c — street lights' shadows from actors' boxes (lampshadow.h). */
#include "lampshadow.h"

#include "../core/util.h"

#include <math.h>

/* The world's boxes that can shade a lamp, posed at alpha. */
static bool candidates(sn_lamps *L, const sn_world *w, double alpha)
{
    L->n_cand = 0;
    for (size_t i = 0; i < w->n_actors; i++) {
        const sn_actor *a = w->actors[i];
        if (a->kind == SN_ACTOR_SENSOR || a->shape == SN_SHAPE_NONE || a->shape == SN_SHAPE_PLANE || !a->ph)
            continue;
        sn_vec3 pos;
        sn_quat q;
        sn_actor_pose_at(w, a, alpha, &pos, &q);
        sn_mat3 R = sn_mat3_from_quat(q);
        sn_vec3 e = a->ph->bbox.extent;
        if (!(e.x > 0 && e.y > 0 && e.z > 0))
            continue;
        if (!sn_grow((void **)&L->cand, &L->cap_cand, L->n_cand + 1, sizeof *L->cand))
            return false;
        sn_occluder *o = &L->cand[L->n_cand++];
        o->c = sn_v3_add(pos, sn_mat3_apply(&R, a->ph->bbox.location));
        for (int k = 0; k < 3; k++)
            o->ax[k] = sn_mat3_col(&R, k);
        o->e[0] = e.x, o->e[1] = e.y, o->e[2] = e.z;
        o->rad = sn_v3_len(e);
    }
    return true;
}

bool sn_lamp_occluders_build(sn_lamps *L, const sn_world *w, double alpha, size_t first)
{
    L->n_occ = 0;
    if (first >= L->n || !candidates(L, w, alpha))
        return first >= L->n;
    for (size_t i = first; i < L->n; i++) {
        sn_spot *s = &L->spots[i];
        s->occ_first = (uint32_t)L->n_occ, s->occ_n = 0;
        for (size_t k = 0; k < L->n_cand; k++) {
            const sn_occluder *o = &L->cand[k];
            if (sn_v3_len(sn_v3_sub(o->c, s->pos)) > SN_LAMP_SHADOW_REACH + o->rad)
                continue;
            if (!sn_grow((void **)&L->occ, &L->cap_occ, L->n_occ + 1, sizeof *L->occ))
                return false;
            L->occ[L->n_occ++] = *o;
            s->occ_n++;
        }
    }
    return true;
}

bool sn_lamp_occluded(const sn_lamps *L, const sn_spot *s, sn_vec3 p, sn_vec3 v, double d)
{
    for (uint32_t k = 0; k < s->occ_n; k++) {
        const sn_occluder *o = &L->occ[s->occ_first + k];
        /* the segment p + t v / d, t in (0, d): first against the box's bounding sphere */
        sn_vec3 rel = sn_v3_sub(p, o->c);
        double tc = -sn_v3_dot(rel, v) / d;
        tc = tc < 0 ? 0 : tc > d ? d : tc;
        sn_vec3 near = sn_v3_add(rel, sn_v3_scale(v, tc / d));
        if (sn_v3_dot(near, near) > o->rad * o->rad)
            continue;
        /* then against its slabs, in its own frame */
        double t0 = -INFINITY, t1 = INFINITY;
        bool inside = true;
        for (int a = 0; a < 3 && t0 <= t1; a++) {
            double org = sn_v3_dot(rel, o->ax[a]), dir = sn_v3_dot(v, o->ax[a]) / d;
            inside = inside && fabs(org) < o->e[a];
            if (fabs(dir) < 1e-12) {
                if (fabs(org) > o->e[a])
                    t1 = -INFINITY; /* parallel and outside this slab: missed */
                continue;
            }
            double ta = (-o->e[a] - org) / dir, tb = (o->e[a] - org) / dir;
            if (ta > tb) {
                double x = ta;
                ta = tb, tb = x;
            }
            t0 = ta > t0 ? ta : t0, t1 = tb < t1 ? tb : t1;
        }
        /* 1 cm of margin: a point on the box's own face is its surface, not behind it */
        if (!inside && t0 <= t1 && t0 > 0.01 && t0 < d)
            return true;
    }
    return false;
}
