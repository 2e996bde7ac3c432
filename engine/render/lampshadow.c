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
#define SC_GROUP 4
typedef struct sc_occ {
    double near;             /* distance from the lamp to the group's bounding sphere */
    double lo[3], hi[3];     /* the group's box */
    uint32_t chunk, first, n; /* its triangles: tri[first .. first + n), the chunk's numbers */
} sc_occ;

/* Each lamp's directions (lamp -> point) in NA x NE cells of pseudo-angles, monotonic in the
** azimuth and the elevation but found without atan2: the azimuth's y / (|x| + |y|) unfolded to
** [-2, 2], the elevation's z / (|z| + h), h = |(x, y)|, in [-1, 1], each in equal bins (lampcull58;
** before, cells of equal angles, found by comparisons with their edges: a third of the cost in
** mispredicted steps). A cell lists the groups whose box, seen from the light, may cover it: a lit
** point tests only the groups of its direction's cell (most cells: none). */
#define NA SN_LAMP_CELLS_A
#define NE SN_LAMP_CELLS_E
struct sn_lamp_scenery {
    const sn_road_mesh *mesh; /* what it was built from */
    uint32_t n_chunks, n_t;
    uint32_t *start;          /* per chunk c: its lamp's occluders occ[start[c] .. start[c + 1]) */
    sc_occ *occ;
    uint32_t *cbase;          /* per lamp chunk c: its cells' starts cstart[cbase[c] .. + NA NE] */
    uint32_t *cstart;         /* a cell's groups: citem[cstart[k] .. cstart[k + 1]), offsets from start[c] */
    uint16_t *citem;
    size_t n_cstart, cap_cstart, n_citem, cap_citem;
    uint32_t *tri;            /* the groups' triangles */
    size_t n_tri, cap_tri;
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
        free(sc->start), free(sc->occ), free(sc->cbase), free(sc->cstart), free(sc->citem), free(sc->tri), free(sc);
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

/* The directions from L to box lo..hi, conservatively: azimuth a0..a1 (a1 - a0 may pass pi: it
** wraps), elevation e0..e1. The footprint's corners span the azimuths unless it holds L's
** vertical (then all); the elevations' extremes lie at the nearest and farthest horizontal
** distance. */
static void ang_box(const double lo[3], const double hi[3], sn_vec3 L, double *a0, double *a1, double *e0, double *e1)
{
    double dx0 = lo[0] - L.x, dx1 = hi[0] - L.x, dy0 = lo[1] - L.y, dy1 = hi[1] - L.y;
    double hx = dx0 > 0 ? dx0 : dx1 < 0 ? -dx1 : 0, hy = dy0 > 0 ? dy0 : dy1 < 0 ? -dy1 : 0;
    double hmin = hypot(hx, hy), hmax = hypot(fmax(fabs(dx0), fabs(dx1)), fmax(fabs(dy0), fabs(dy1)));
    double z0 = lo[2] - L.z, z1 = hi[2] - L.z;
    *e1 = atan2(z1, z1 > 0 ? hmin : hmax) + 1e-9;
    *e0 = atan2(z0, z0 < 0 ? hmin : hmax) - 1e-9;
    if (!(hmin > 0)) {
        *a0 = -M_PI, *a1 = M_PI;
        return;
    }
    double ac = atan2(0.5 * (dy0 + dy1), 0.5 * (dx0 + dx1)), mn = 0, mx = 0;
    const double cx[2] = {dx0, dx1}, cy[2] = {dy0, dy1};
    for (int i = 0; i < 4; i++) {
        double d = atan2(cy[i >> 1], cx[i & 1]) - ac;
        d = d > M_PI ? d - 2 * M_PI : d < -M_PI ? d + 2 * M_PI : d;
        mn = d < mn ? d : mn, mx = d > mx ? d : mx;
    }
    *a0 = ac + mn - 1e-9, *a1 = ac + mx + 1e-9;
}

static double pseudo_az(double x, double y)
{
    double a = y / (fabs(x) + fabs(y));
    return x >= 0 ? a : y >= 0 ? 2 - a : -2 - a;
}

/* A pseudo-angle's bin, clamped (a NaN: 0); the same function lists and looks up, so a direction
** in a listed range of pseudo-angles falls in a listed bin */
static inline int bin_a(double pa)
{
    double g = (pa + 2) * (NA / 4.0);
    return g > 0 ? (g < NA ? (int)g : NA - 1) : 0;
}

static inline int bin_e(double pe)
{
    double g = (pe + 1) * (NE / 2.0);
    return g > 0 ? (g < NE ? (int)g : NE - 1) : 0;
}

/* The bins of angles a (radians, any turn) and e (clamped to the poles) */
static int bin_of_az(double a)
{
    a = a < -M_PI ? a + 2 * M_PI : a > M_PI ? a - 2 * M_PI : a;
    return bin_a(pseudo_az(cos(a), sin(a)));
}

static int bin_of_el(double e)
{
    e = e < -M_PI / 2 ? -M_PI / 2 : e > M_PI / 2 ? M_PI / 2 : e;
    return bin_e(sin(e) / (fabs(sin(e)) + cos(e)));
}

/* Lamp chunk c's direction cells over its groups occ[first .. first + n). */
static bool lamp_cells(struct sn_lamp_scenery *sc, uint32_t c, sn_vec3 L, uint32_t first, uint32_t n)
{
    if (!sn_grow((void **)&sc->cstart, &sc->cap_cstart, sc->n_cstart + NA * NE + 1, sizeof *sc->cstart))
        return false;
    sc->cbase[c] = (uint32_t)sc->n_cstart;
    uint32_t *cs = sc->cstart + sc->n_cstart;
    const uint32_t base = (uint32_t)sc->n_citem;
    sc->n_cstart += NA * NE + 1;
    memset(cs, 0, (NA * NE + 1) * sizeof *cs);
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1) { /* counts to starts; the fill moves each start to the next cell's */
            uint32_t sum = (uint32_t)sc->n_citem;
            for (int k = 0; k <= NA * NE; k++) {
                uint32_t x = cs[k];
                cs[k] = sum, sum += x;
            }
            if (!sn_grow((void **)&sc->citem, &sc->cap_citem, sum + 1, sizeof *sc->citem))
                return false;
            sc->n_citem = sum;
        }
        for (uint32_t g = 0; g < n; g++) {
            const sc_occ *o = &sc->occ[first + g];
            double a0, a1, e0, e1;
            ang_box(o->lo, o->hi, L, &a0, &a1, &e0, &e1);
            /* the angles' range (1e-9 rad to spare, far over the pseudo-angles' rounding) to bins; a
            ** range over the turn at +-pi runs past the last bin to the first */
            long ia0 = 0, ia1 = NA - 1, ie0 = bin_of_el(e0), ie1 = bin_of_el(e1);
            if (a1 - a0 < 2 * M_PI - 1e-6) {
                ia0 = bin_of_az(a0), ia1 = bin_of_az(a1);
                ia1 = a0 < -M_PI || a1 > M_PI ? ia1 + NA : ia1 < ia0 ? ia0 : ia1;
            }
            ia1 = ia1 - ia0 >= NA ? ia0 + NA - 1 : ia1;
            for (long ie = ie0; ie <= ie1; ie++)
                for (long ia = ia0; ia <= ia1; ia++) {
                    uint32_t k = (uint32_t)(ie * NA + ((ia % NA) + NA) % NA);
                    if (pass == 0)
                        cs[k]++;
                    else
                        sc->citem[cs[k]++] = (uint16_t)g;
                }
        }
    }
    memmove(cs + 1, cs, NA * NE * sizeof *cs);
    cs[0] = base;
    return true;
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

/* The solid chunks binned in a grid of square cells: cell c holds items[start[c] .. start[c+1]). */
typedef struct chunk_grid {
    double x0, y0, cell;
    uint32_t nx, ny;
    uint32_t *start, *items; /* owned: grid_free */
} chunk_grid;

static void grid_free(chunk_grid *g) { free(g->start), free(g->items); }

/* Cells of at least the reach (a lamp then looks at 3 x 3), larger on a vast map: at most about
** 2^20 of them. False when out of memory (g is then freed). */
static bool grid_build(chunk_grid *g, const sn_road_mesh *m)
{
    *g = (chunk_grid){.x0 = m->lo[0], .y0 = m->lo[1], .cell = SN_LAMP_SHADOW_REACH, .nx = 1, .ny = 1};
    const bool sized = m->n_chunks && m->hi[0] >= m->lo[0];
    if (sized) {
        double area = (m->hi[0] - m->lo[0] + g->cell) * (m->hi[1] - m->lo[1] + g->cell);
        g->cell = fmax(g->cell, sqrt(area / (1 << 20)));
        g->nx = (uint32_t)((m->hi[0] - g->x0) / g->cell + 1), g->ny = (uint32_t)((m->hi[1] - g->y0) / g->cell + 1);
    }
    const size_t nc = (size_t)g->nx * g->ny;
    size_t cap_items = 0;
    bool ok = (g->start = calloc(nc + 1, sizeof *g->start)) != NULL;
    /* two passes over the solid chunks: count per cell, then fill */
    for (int pass = 0; ok && pass < 2; pass++) {
        if (pass == 1) {
            for (size_t c = 0; c < nc; c++)
                g->start[c + 1] += g->start[c];
            size_t n_items = g->start[nc];
            ok = sn_grow((void **)&g->items, &cap_items, n_items ? n_items : 1, sizeof *g->items);
            if (!ok)
                break;
            memmove(g->start + 1, g->start, nc * sizeof *g->start); /* fill moves them back */
            g->start[0] = 0;
        }
        for (uint32_t i = 0; i < m->n_chunks; i++) {
            const sn_road_chunk *k = &m->chunks[i];
            if (!solid(k->category) || !k->count)
                continue;
            long i0 = (long)floor((k->lo[0] - g->x0) / g->cell), i1 = (long)floor((k->hi[0] - g->x0) / g->cell);
            long j0 = (long)floor((k->lo[1] - g->y0) / g->cell), j1 = (long)floor((k->hi[1] - g->y0) / g->cell);
            i0 = i0 < 0 ? 0 : i0, j0 = j0 < 0 ? 0 : j0;
            i1 = i1 >= (long)g->nx ? (long)g->nx - 1 : i1, j1 = j1 >= (long)g->ny ? (long)g->ny - 1 : j1;
            for (long j = j0; j <= j1; j++)
                for (long ii = i0; ii <= i1; ii++) {
                    size_t c = (size_t)j * g->nx + (size_t)ii;
                    if (pass == 0)
                        g->start[c + 1]++;
                    else
                        g->items[g->start[c + 1]++] = i;
                }
        }
    }
    if (!ok)
        grid_free(g);
    return ok;
}

/* Lamp i's candidates (*cand, n of them; the array grows, the caller frees it): the solid chunks
** whose box comes within reach of its light L, nearest first, at most SN_LAMP_SHADOW_SCENERY.
** stamp marks the chunks met (by i + 1). False when out of memory. */
static bool lamp_candidates(const chunk_grid *g, const sn_road_mesh *m, uint32_t i, sn_vec3 L, uint32_t *stamp,
                            cand_sc **cand, size_t *cap, size_t *n)
{
    long ci = (long)floor((L.x - g->x0) / g->cell), cj = (long)floor((L.y - g->y0) / g->cell);
    size_t n_cand = 0;
    for (long j = cj - 1; j <= cj + 1; j++)
        for (long ii = ci - 1; ii <= ci + 1; ii++) {
            if (j < 0 || ii < 0 || j >= (long)g->ny || ii >= (long)g->nx)
                continue;
            size_t c = (size_t)j * g->nx + (size_t)ii;
            for (uint32_t t = g->start[c]; t < g->start[c + 1]; t++) {
                uint32_t o = g->items[t];
                if (stamp[o] == i + 1)
                    continue; /* met in another cell */
                stamp[o] = i + 1;
                double dist = box_dist(m->chunks[o].lo, m->chunks[o].hi, L);
                if (dist > SN_LAMP_SHADOW_REACH)
                    continue;
                if (!sn_grow((void **)cand, cap, n_cand + 1, sizeof **cand))
                    return false;
                (*cand)[n_cand++] = (cand_sc){dist, o};
            }
        }
    if (n_cand > 1)
        qsort(*cand, n_cand, sizeof **cand, by_dist);
    *n = n_cand > SN_LAMP_SHADOW_SCENERY ? SN_LAMP_SHADOW_SCENERY : n_cand;
    return true;
}

/* Appends to sc the occluder groups of the light L from its candidates: each piece's triangles
** that the light is behind (the only ones a segment ending at the light can enter through),
** SC_GROUP at a time, each group with its own box and its nearest distance to L. False when out
** of memory. */
static bool lamp_groups(struct sn_lamp_scenery *sc, const sn_road_mesh *m, sn_vec3 L, const cand_sc *cand, size_t n_cand,
                        size_t *n_occ, size_t *cap_occ)
{
    const size_t first = *n_occ;
    for (size_t q = 0; q < n_cand; q++) {
        const sn_road_chunk *o = &m->chunks[cand[q].chunk];
        sc_occ *s = NULL;
        for (uint32_t t = 0; t < o->count; t++) {
            const double *a = m->v[o->v_first + m->t[o->first + t][0]], *b = m->v[o->v_first + m->t[o->first + t][1]],
                         *c = m->v[o->v_first + m->t[o->first + t][2]];
            sn_vec3 e1 = sn_v3(b[0] - a[0], b[1] - a[1], b[2] - a[2]), e2 = sn_v3(c[0] - a[0], c[1] - a[1], c[2] - a[2]);
            if (!(sn_v3_dot(sn_v3_cross(e1, e2), sn_v3(L.x - a[0], L.y - a[1], L.z - a[2])) < 0))
                continue; /* the light in front of it or in its plane: a segment to it only leaves here */
            if (!s || s->n == SC_GROUP) {
                if (!sn_grow((void **)&sc->occ, cap_occ, *n_occ + 2, sizeof *sc->occ))
                    return false;
                s = &sc->occ[(*n_occ)++];
                s->chunk = cand[q].chunk, s->first = (uint32_t)sc->n_tri, s->n = 0;
                for (int k = 0; k < 3; k++)
                    s->lo[k] = INFINITY, s->hi[k] = -INFINITY;
            }
            if (!sn_grow((void **)&sc->tri, &sc->cap_tri, sc->n_tri + 1, sizeof *sc->tri))
                return false;
            sc->tri[sc->n_tri++] = t, s->n++;
            const double *vs[3] = {a, b, c};
            for (int j = 0; j < 3; j++)
                for (int k = 0; k < 3; k++)
                    s->lo[k] = fmin(s->lo[k], vs[j][k]), s->hi[k] = fmax(s->hi[k], vs[j][k]);
        }
    }
    for (size_t g = first; g < *n_occ; g++) {
        sc_occ *s = &sc->occ[g];
        sn_vec3 c = sn_v3(0.5 * (s->lo[0] + s->hi[0]), 0.5 * (s->lo[1] + s->hi[1]), 0.5 * (s->lo[2] + s->hi[2]));
        double r = 0.5 * sqrt((s->hi[0] - s->lo[0]) * (s->hi[0] - s->lo[0]) + (s->hi[1] - s->lo[1]) * (s->hi[1] - s->lo[1]) +
                              (s->hi[2] - s->lo[2]) * (s->hi[2] - s->lo[2])) + 0.01;
        double D = sn_v3_len(sn_v3_sub(c, L));
        s->near = D > r ? D - r : 0;
        /* 1 mm of margin on the box: a face lying in its plane still meets the segment */
        for (int k = 0; k < 3; k++)
            s->lo[k] -= 1e-3, s->hi[k] += 1e-3;
    }
    return true;
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
    chunk_grid grid;
    uint32_t *stamp = NULL;
    cand_sc *cand = NULL;
    size_t n_occ = 0, cap_occ = 0, cap_cand = 0;
    bool ok = (sc->start = calloc((size_t)m->n_chunks + 1, sizeof *sc->start)) != NULL &&
              (sc->cbase = calloc((size_t)m->n_chunks + 1, sizeof *sc->cbase)) != NULL;
    if (!ok || !grid_build(&grid, m)) {
        sn_lamp_scenery_free(sc);
        return NULL;
    }
    ok = (stamp = calloc((size_t)m->n_chunks + 1, sizeof *stamp)) != NULL;
    for (uint32_t i = 0; ok && i < m->n_chunks; i++) {
        sc->start[i] = (uint32_t)n_occ;
        const sn_road_chunk *k = &m->chunks[i];
        if (k->category != lamp)
            continue;
        sn_vec3 L = lamp_pos(k);
        size_t n_cand = 0;
        ok = lamp_candidates(&grid, m, i, L, stamp, &cand, &cap_cand, &n_cand) &&
             lamp_groups(sc, m, L, cand, n_cand, &n_occ, &cap_occ) &&
             lamp_cells(sc, i, L, sc->start[i], (uint32_t)n_occ - sc->start[i]);
    }
    if (ok)
        sc->start[m->n_chunks] = (uint32_t)n_occ;
    grid_free(&grid), free(stamp), free(cand);
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
static bool seg_group(const sn_road_mesh *m, const uint32_t *tri, const sc_occ *o, sn_vec3 p, sn_vec3 v, double t_min)
{
    const sn_road_chunk *k = &m->chunks[o->chunk];
    const uint32_t(*t)[3] = m->t + k->first;
    const double(*V)[3] = m->v + k->v_first;
    for (uint32_t j = o->first; j < o->first + o->n; j++) {
        const uint32_t i = tri[j];
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
    return sn_lamp_occluded_cell(L, s, p, v, d, SN_LAMP_CELL_FROM_V);
}

uint32_t sn_lamp_dir_cell(sn_vec3 v)
{
    /* the direction lamp -> p: (x, y) horizontally, z up, h = |(x, y)|; straight down or up
    ** takes the bin of azimuth pi/2 (sn_lamps_light's exact form's convention) */
    const double x = -v.x, y = -v.y, z = -v.z, h = sqrt(x * x + y * y);
    int ia = bin_a(h > 1e-12 ? pseudo_az(x, y) : 1.0), ie = bin_e(z / (fabs(z) + h));
    return (uint32_t)(ie * NA + ia);
}

/* Whether the segment p + t v / d, t in (0.01, d), meets box o, past its bounding sphere's test
** (rel = p - o->c): its slabs, in its own frame. */
static inline bool box_slabs(const sn_occluder *o, sn_vec3 rel, sn_vec3 v, double d)
{
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
    return !inside && t0 <= t1 && t0 > 0.01 && t0 < d;
}

/* Whether one of spot s's scenery groups listed in the direction's cell cuts the segment. */
static inline bool scenery_cut(const sn_lamps *L, const sn_spot *s, sn_vec3 p, sn_vec3 v, double d, uint32_t cell)
{
    if (!s->sc_n)
        return false;
    /* the scenery: the groups listed in the cell of the direction from the light to p; each
    ** group's box, then its triangles */
    const struct sn_lamp_scenery *sc = L->sc;
    const double t_min = 0.01 / d;
    /* every group for SN_LAMP_CELL_ALL (tests: the cells only choose, never decide); one loop, so
    ** the box and triangle tests stay inlined */
    const uint16_t *item = NULL;
    uint32_t k0 = 0, k1 = s->sc_n;
    if (cell != SN_LAMP_CELL_ALL) {
        const uint32_t *cs = sc->cstart + sc->cbase[s->chunk - 1] + (cell == SN_LAMP_CELL_FROM_V ? sn_lamp_dir_cell(v) : cell);
        item = sc->citem, k0 = cs[0], k1 = cs[1];
    }
    for (uint32_t k = k0; k < k1; k++) {
        const sc_occ *o = &sc->occ[s->sc_first + (item ? item[k] : k)];
        if (d < o->near)
            continue;
        if (seg_box(o->lo, o->hi, p, v) && seg_group(sc->mesh, sc->tri, o, p, v, t_min))
            return true;
    }
    return false;
}

bool sn_lamp_occluded_cell(const sn_lamps *L, const sn_spot *s, sn_vec3 p, sn_vec3 v, double d, uint32_t cell)
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
        if (box_slabs(o, rel, v, d))
            return true;
    }
    return scenery_cut(L, s, p, v, d, cell);
}

bool sn_lamp_box_cut(const sn_occluder *o, sn_vec3 p, sn_vec3 v, double d)
{
    return box_slabs(o, sn_v3_sub(p, o->c), v, d);
}

bool sn_lamp_scenery_cut(const sn_lamps *L, const sn_spot *s, sn_vec3 p, sn_vec3 v, double d, uint32_t cell)
{
    return scenery_cut(L, s, p, v, d, cell);
}
