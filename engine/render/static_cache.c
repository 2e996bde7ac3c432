/* static_cache.c — world-frame geometry of what does not move (static_cache.h). */
#include "static_cache.h"

#include "../core/util.h"
#include "../map/road_mesh.h"

#include <math.h>
#include <stdlib.h>

bool sn_static_is(const sn_actor *a)
{
    return a->kind == SN_ACTOR_STATIC && !a->parent && !a->ph->body &&
           (a->shape == SN_SHAPE_BOX || a->shape == SN_SHAPE_SPHERE || a->shape == SN_SHAPE_CYLINDER);
}

/* The unit normal of triangle (a, b, c) by its winding ((b - a) x (c - a)); 0 when degenerate. */
static void normal(const double *a, const double *b, const double *c, float out[3])
{
    sn_vec3 n = sn_v3_cross(sn_v3(b[0] - a[0], b[1] - a[1], b[2] - a[2]), sn_v3(c[0] - a[0], c[1] - a[1], c[2] - a[2]));
    double len = sn_v3_len(n);
    if (!(len > 0))
        len = 1;
    out[0] = (float)(n.x / len), out[1] = (float)(n.y / len), out[2] = (float)(n.z / len);
}

static bool add_actor(sn_static_cache *c, const sn_world *w, const sn_actor *a)
{
    const sn_mesh *m = sn_mesh_get(a->shape);
    if (!sn_grow((void **)&c->objs, &c->cap_objs, c->n_objs + 1, sizeof *c->objs) ||
        !sn_grow((void **)&c->wv, &c->cap_wv, c->n_wv + m->n_v, sizeof *c->wv) ||
        !sn_grow((void **)&c->wn, &c->cap_wn, c->n_wn + m->n_t, sizeof *c->wn))
        return false;
    sn_vec3 pos;
    sn_quat q;
    sn_actor_pose_at(w, a, 1.0, &pos, &q);
    sn_mat3 R = sn_mat3_from_quat(q);
    sn_vec3 centre = sn_v3_add(pos, sn_mat3_apply(&R, a->ph->bbox.location)), x = a->ph->bbox.extent;
    sn_static_obj *o = &c->objs[c->n_objs++];
    *o = (sn_static_obj){a, m, c->n_wv, c->n_wn, centre, sn_v3_len(x)};
    for (uint32_t k = 0; k < m->n_v; k++) {
        const float *v = m->v[k];
        sn_vec3 p = sn_v3_add(centre, sn_mat3_apply(&R, sn_v3(x.x * v[0], x.y * v[1], x.z * v[2])));
        double *out = c->wv[c->n_wv + k];
        out[0] = p.x, out[1] = p.y, out[2] = p.z;
    }
    const double(*wv)[3] = (const double(*)[3])c->wv + c->n_wv;
    for (uint32_t k = 0; k < m->n_t; k++)
        normal(wv[m->t[k][0]], wv[m->t[k][1]], wv[m->t[k][2]], c->wn[c->n_wn + k]);
    c->n_wv += m->n_v;
    c->n_wn += m->n_t;
    return true;
}

bool sn_static_cache_update(sn_static_cache *c, const sn_world *w)
{
    if (c->world == w && c->static_gen == w->static_gen && c->roads == (const void *)w->roads)
        return true;
    c->world = NULL;
    c->n_objs = c->n_wv = c->n_wn = 0;
    for (size_t i = 0; i < w->n_actors; i++)
        if (sn_static_is(w->actors[i]) && !add_actor(c, w, w->actors[i])) {
            c->n_objs = 0;
            return false;
        }
    const sn_road_mesh *m = w->roads;
    if (m) {
        if (!sn_grow((void **)&c->road_n, &c->cap_road_n, m->n_t, sizeof *c->road_n)) {
            c->n_objs = 0;
            return false;
        }
        for (uint32_t i = 0; i < m->n_chunks; i++) {
            const sn_road_chunk *k = &m->chunks[i];
            const double(*v)[3] = (const double(*)[3])m->v + k->v_first;
            for (uint32_t t = k->first; t < k->first + k->count; t++)
                normal(v[m->t[t][0]], v[m->t[t][1]], v[m->t[t][2]], c->road_n[t]);
        }
    }
    c->world = w, c->static_gen = w->static_gen, c->roads = w->roads;
    return true;
}

void sn_static_cache_free(sn_static_cache *c)
{
    free(c->objs), free(c->wv), free(c->wn), free(c->road_n);
    *c = (sn_static_cache){0};
}
