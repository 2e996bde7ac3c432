/* lampshadow.c — street lights' shadows from actors' boxes (lampshadow.h). */
#include "lampshadow.h"

#include "../core/util.h"
#include "../scenery/scenery.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Up to SC_GROUP consecutive triangles of one scenery chunk as seen from one lamp: a cone around
** their bounding sphere for the first test, their box for the second, then the triangles. Groups,
** not whole chunks: a lamp's light hangs beside its own pole and under its arm (one chunk, whose
** box holds the light), and a group's box (the pole's sides, the arm) does not. */
#define SC_GROUP 8
typedef struct sc_occ {
    double ux, uy, uz, cosc; /* unit direction lamp -> sphere centre; cos of the cone holding the sphere */
    double near;             /* distance from the lamp to the sphere's near side */
    double lo[3], hi[3];     /* the group's box */
    uint32_t chunk, first, n; /* its triangles: the chunk's [first, first + n) */
} sc_occ;

struct sn_lamp_scenery {
    const sn_road_mesh *mesh; /* what it was built from */
    uint32_t n_chunks, n_t;
    uint32_t *start;          /* per chunk c: its lamp's occluders occ[start[c] .. start[c + 1]) */
    sc_occ *occ;
};

uint32_t sn_lamp_scenery_pieces(const sn_lamps *L, const sn_spot *s)
{
    uint32_t n = 0;
    for (uint32_t k = 0; k < s->sc_n; k++)
        n += k == 0 || L->sc->occ[s->sc_first + k].chunk != L->sc->occ[s->sc_first + k - 1].chunk;
    return n;
}

void sn_lamp_scenery_free(struct sn_lamp_scenery *sc)
{
    if (sc)
        free(sc->start), free(sc->occ), free(sc);
}

/* Scenery that can stand between a lamp and what it lights: not flat paint, ground patches, the
** window bands on a building's faces (inside its box) or the lamp heads. */
static bool solid(uint32_t category)
{
    if (category < SN_ROAD_N_CATEGORIES)
        return false;
    switch (category - SN_ROAD_N_CATEGORIES) {
    case SN_SC_WINDOWS: case SN_SC_LAMP: case SN_SC_STOP_LINE: case SN_SC_ZEBRA: case SN_SC_GRASS: case SN_SC_DIRT:
        return false;
    default:
        return true;
    }
}

/* The light's position for lamp head chunk k (nightlights.c sn_street_lamps_add). */
static sn_vec3 lamp_pos(const sn_road_chunk *k)
{
    return sn_v3(0.5 * (k->lo[0] + k->hi[0]), 0.5 * (k->lo[1] + k->hi[1]), k->lo[2] - 0.02);
}

static double box_dist(const double lo[3], const double hi[3], sn_vec3 p)
{
    double q[3] = {p.x, p.y, p.z}, s = 0;
    for (int a = 0; a < 3; a++) {
        double e = q[a] < lo[a] ? lo[a] - q[a] : q[a] > hi[a] ? q[a] - hi[a] : 0;
        s += e * e;
    }
    return sqrt(s);
}

typedef struct cand_sc {
    double dist;
    uint32_t chunk;
} cand_sc;

static int by_dist(const void *a, const void *b)
{
    const cand_sc *x = a, *y = b;
    if (x->dist != y->dist)
        return x->dist < y->dist ? -1 : 1;
    return x->chunk < y->chunk ? -1 : x->chunk > y->chunk; /* ties in chunk order: deterministic */
}

/* The table of every street lamp's scenery occluders: solid chunks binned in a grid of cells
** no smaller than SN_LAMP_SHADOW_REACH, each lamp looking at the 3 x 3 cells around it. */
static struct sn_lamp_scenery *scenery_build(const sn_road_mesh *m)
{
    struct sn_lamp_scenery *sc = calloc(1, sizeof *sc);
    if (!sc)
        return NULL;
    sc->mesh = m, sc->n_chunks = m->n_chunks, sc->n_t = m->n_t;
    const uint32_t lamp = SN_ROAD_N_CATEGORIES + SN_SC_LAMP;
    /* cells of at least the reach (a lamp then looks at 3 x 3), larger on a vast map: at most
    ** about 2^20 of them */
    double cell = SN_LAMP_SHADOW_REACH;
    if (m->n_chunks && m->hi[0] >= m->lo[0]) {
        double area = (m->hi[0] - m->lo[0] + cell) * (m->hi[1] - m->lo[1] + cell);
        cell = fmax(cell, sqrt(area / (1 << 20)));
    }
    uint32_t *cell_start = NULL, *items = NULL, *stamp = NULL;
    cand_sc *cand = NULL;
    size_t n_items = 0, cap_items = 0, n_occ = 0, cap_occ = 0, cap_cand = 0;
    bool ok = (sc->start = calloc((size_t)m->n_chunks + 1, sizeof *sc->start)) != NULL;
    double x0 = m->lo[0], y0 = m->lo[1];
    uint32_t nx = 1, ny = 1;
    if (ok && m->n_chunks && m->hi[0] >= m->lo[0]) {
        nx = (uint32_t)((m->hi[0] - x0) / cell + 1), ny = (uint32_t)((m->hi[1] - y0) / cell + 1);
    }
    size_t nc = (size_t)nx * ny;
    ok = ok && (cell_start = calloc(nc + 1, sizeof *cell_start)) && (stamp = calloc((size_t)m->n_chunks + 1, sizeof *stamp));
    /* two passes over the solid chunks: count per cell, then fill */
    for (int pass = 0; ok && pass < 2; pass++) {
        if (pass == 1) {
            for (size_t c = 0; c < nc; c++)
                cell_start[c + 1] += cell_start[c];
            n_items = cell_start[nc];
            ok = sn_grow((void **)&items, &cap_items, n_items ? n_items : 1, sizeof *items);
            if (!ok)
                break;
            memmove(cell_start + 1, cell_start, nc * sizeof *cell_start); /* fill moves them back */
            cell_start[0] = 0;
        }
        for (uint32_t i = 0; ok && i < m->n_chunks; i++) {
            const sn_road_chunk *k = &m->chunks[i];
            if (!solid(k->category) || !k->count)
                continue;
            long i0 = (long)floor((k->lo[0] - x0) / cell), i1 = (long)floor((k->hi[0] - x0) / cell);
            long j0 = (long)floor((k->lo[1] - y0) / cell), j1 = (long)floor((k->hi[1] - y0) / cell);
            i0 = i0 < 0 ? 0 : i0, j0 = j0 < 0 ? 0 : j0;
            i1 = i1 >= (long)nx ? (long)nx - 1 : i1, j1 = j1 >= (long)ny ? (long)ny - 1 : j1;
            for (long j = j0; j <= j1; j++)
                for (long ii = i0; ii <= i1; ii++) {
                    size_t c = (size_t)j * nx + (size_t)ii;
                    if (pass == 0)
                        cell_start[c + 1]++;
                    else
                        items[cell_start[c + 1]++] = i;
                }
        }
    }
    /* each lamp: the solid chunks whose box comes within reach of its light, nearest first */
    for (uint32_t i = 0; ok && i < m->n_chunks; i++) {
        sc->start[i] = (uint32_t)n_occ;
        const sn_road_chunk *k = &m->chunks[i];
        if (k->category != lamp)
            continue;
        sn_vec3 L = lamp_pos(k);
        long ci = (long)floor((L.x - x0) / cell), cj = (long)floor((L.y - y0) / cell);
        size_t n_cand = 0;
        for (long j = cj - 1; ok && j <= cj + 1; j++)
            for (long ii = ci - 1; ok && ii <= ci + 1; ii++) {
                if (j < 0 || ii < 0 || j >= (long)ny || ii >= (long)nx)
                    continue;
                size_t c = (size_t)j * nx + (size_t)ii;
                for (uint32_t t = cell_start[c]; t < cell_start[c + 1]; t++) {
                    uint32_t o = items[t];
                    if (stamp[o] == i + 1)
                        continue; /* met in another cell */
                    stamp[o] = i + 1;
                    double dist = box_dist(m->chunks[o].lo, m->chunks[o].hi, L);
                    if (dist > SN_LAMP_SHADOW_REACH)
                        continue;
                    if (!(ok = sn_grow((void **)&cand, &cap_cand, n_cand + 1, sizeof *cand)))
                        break;
                    cand[n_cand++] = (cand_sc){dist, o};
                }
            }
        if (!ok)
            break;
        if (n_cand > 1)
            qsort(cand, n_cand, sizeof *cand, by_dist);
        if (n_cand > SN_LAMP_SHADOW_SCENERY)
            n_cand = SN_LAMP_SHADOW_SCENERY;
        for (size_t q = 0; ok && q < n_cand; q++) {
            const sn_road_chunk *o = &m->chunks[cand[q].chunk];
            for (uint32_t g = 0; g < o->count; g += SC_GROUP) {
                if (!(ok = sn_grow((void **)&sc->occ, &cap_occ, n_occ + 2, sizeof *sc->occ)))
                    break;
                sc_occ *s = &sc->occ[n_occ++];
                s->chunk = cand[q].chunk, s->first = g, s->n = o->count - g < SC_GROUP ? o->count - g : SC_GROUP;
                for (int a = 0; a < 3; a++)
                    s->lo[a] = INFINITY, s->hi[a] = -INFINITY;
                for (uint32_t t = g; t < g + s->n; t++)
                    for (int j = 0; j < 3; j++) {
                        const double *vx = m->v[o->v_first + m->t[o->first + t][j]];
                        for (int a = 0; a < 3; a++)
                            s->lo[a] = fmin(s->lo[a], vx[a]), s->hi[a] = fmax(s->hi[a], vx[a]);
                    }
                sn_vec3 c = sn_v3(0.5 * (s->lo[0] + s->hi[0]), 0.5 * (s->lo[1] + s->hi[1]), 0.5 * (s->lo[2] + s->hi[2]));
                double r = 0.5 * sqrt((s->hi[0] - s->lo[0]) * (s->hi[0] - s->lo[0]) +
                                      (s->hi[1] - s->lo[1]) * (s->hi[1] - s->lo[1]) +
                                      (s->hi[2] - s->lo[2]) * (s->hi[2] - s->lo[2])) + 0.01;
                sn_vec3 u = sn_v3_sub(c, L);
                double D = sn_v3_len(u);
                if (D > r) { /* the cone from the light that holds the sphere */
                    s->ux = u.x / D, s->uy = u.y / D, s->uz = u.z / D, s->cosc = sqrt(1 - (r / D) * (r / D)) - 1e-9;
                    s->near = D - r;
                } else { /* the light inside the sphere: every direction */
                    s->ux = 1, s->uy = s->uz = 0, s->cosc = -2, s->near = 0;
                }
                /* 1 mm of margin on the box: a face lying in its plane still meets the segment */
                for (int a = 0; a < 3; a++)
                    s->lo[a] -= 1e-3, s->hi[a] += 1e-3;
            }
        }
        if (!ok)
            break;
    }
    if (ok)
        sc->start[m->n_chunks] = (uint32_t)n_occ;
    free(cell_start), free(items), free(stamp), free(cand);
    if (!ok) {
        sn_lamp_scenery_free(sc);
        return NULL;
    }
    return sc;
}

/* Whether the segment p + t v, t in (t_min, 1), meets the box lo..hi. */
static bool seg_box(const double lo[3], const double hi[3], sn_vec3 p, sn_vec3 v)
{
    double o[3] = {p.x, p.y, p.z}, dv[3] = {v.x, v.y, v.z}, t0 = 0, t1 = 1;
    for (int a = 0; a < 3; a++) {
        if (fabs(dv[a]) < 1e-15) {
            if (o[a] < lo[a] || o[a] > hi[a])
                return false;
            continue;
        }
        double inv = 1 / dv[a], ta = (lo[a] - o[a]) * inv, tb = (hi[a] - o[a]) * inv;
        if (ta > tb) {
            double x = ta;
            ta = tb, tb = x;
        }
        t0 = ta > t0 ? ta : t0, t1 = tb < t1 ? tb : t1;
        if (t0 > t1)
            return false;
    }
    return true;
}

/* Whether the segment p + t v, t in (t_min, 1), enters group o: crosses one of its triangles
** from the side its outward normal faces (Moller-Trumbore; det > 0 is that side). */
static bool seg_group(const sn_road_mesh *m, const sc_occ *o, sn_vec3 p, sn_vec3 v, double t_min)
{
    const sn_road_chunk *k = &m->chunks[o->chunk];
    const uint32_t(*t)[3] = m->t + k->first;
    const double(*V)[3] = m->v + k->v_first;
    for (uint32_t i = o->first; i < o->first + o->n; i++) {
        const double *a = V[t[i][0]], *b = V[t[i][1]], *c = V[t[i][2]];
        sn_vec3 e1 = sn_v3(b[0] - a[0], b[1] - a[1], b[2] - a[2]), e2 = sn_v3(c[0] - a[0], c[1] - a[1], c[2] - a[2]);
        sn_vec3 pv = sn_v3_cross(v, e2);
        double det = sn_v3_dot(e1, pv);
        if (!(det > 1e-18))
            continue; /* leaving through it, or edge-on */
        sn_vec3 tv = sn_v3(p.x - a[0], p.y - a[1], p.z - a[2]);
        double u = sn_v3_dot(tv, pv);
        if (u < 0 || u > det)
            continue;
        sn_vec3 q = sn_v3_cross(tv, e1);
        double w = sn_v3_dot(v, q);
        if (w < 0 || u + w > det)
            continue;
        double tt = sn_v3_dot(e2, q);
        if (tt > t_min * det && tt < det)
            return true;
    }
    return false;
}

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
    const sn_road_mesh *m = w->roads;
    if (m && (!L->sc || L->sc->mesh != m || L->sc->n_chunks != m->n_chunks || L->sc->n_t != m->n_t)) {
        sn_lamp_scenery_free(L->sc);
        if (!(L->sc = scenery_build(m)))
            return false;
    }
    for (size_t i = first; i < L->n; i++) {
        sn_spot *s = &L->spots[i];
        s->occ_first = (uint32_t)L->n_occ, s->occ_n = 0;
        s->sc_first = s->sc_n = 0;
        if (m && s->chunk && s->chunk <= m->n_chunks)
            s->sc_first = L->sc->start[s->chunk - 1], s->sc_n = L->sc->start[s->chunk] - s->sc_first;
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
    if (!s->sc_n)
        return false;
    /* the scenery: the direction from the light to p against each group's cone, its box, its triangles */
    const double ux = -v.x / d, uy = -v.y / d, uz = -v.z / d, t_min = 0.01 / d;
    const sn_road_mesh *m = L->sc->mesh;
    for (uint32_t k = 0; k < s->sc_n; k++) {
        const sc_occ *o = &L->sc->occ[s->sc_first + k];
        if (d < o->near || ux * o->ux + uy * o->uy + uz * o->uz < o->cosc)
            continue;
        if (seg_box(o->lo, o->hi, p, v) && seg_group(m, o, p, v, t_min))
            return true;
    }
    return false;
}
