/* headlights.c — vehicles' headlight spots and lamp glow (headlights.h; docs/vehicle-lights.md). */
#include "headlights.h"
#include "lampshadow.h"
#include "lanes.h"
#include "nightlights.h"

#include "../core/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Beams (docs/vehicle-lights.md): intensity at 1 m on the axis per lamp, range, axis dip,
** spreads. A car's two low beams light the road 10 m ahead about as a low sun would. */
#define LOW_I 750.0
#define HIGH_I 1500.0
#define MOTO_I 800.0  /* a motorcycle's one lamp, low beam */
#define BIKE_I 150.0  /* a bicycle's lamp */
#define LOW_RANGE 45.0 /* m */
#define HIGH_RANGE 110.0
#define LAMP_Z 0.30    /* lamp height, of the box's height above its bottom (the models' lamps) */
#define MAX_CELLS 65536
#define LAMP_CELL 8.0 /* m: the largest cell of the spots' grid */
#define DEG (M_PI / 180)

static const double warm[3] = {1.0, 0.96, 0.86}; /* the beams' colour */

double sn_lamp_glow(const sn_actor *a, sn_material mat)
{
    uint32_t s = a->kind == SN_ACTOR_VEHICLE ? a->ph->light_state : 0;
    const uint32_t on = SN_LIGHT_POSITION | SN_LIGHT_LOW_BEAM | SN_LIGHT_HIGH_BEAM;
    if (mat == SN_MAT_HEADLAMP)
        return s & (SN_LIGHT_LOW_BEAM | SN_LIGHT_HIGH_BEAM) ? 2.0 : s & SN_LIGHT_POSITION ? 1.0 : 0;
    if (mat == SN_MAT_TAILLAMP)
        return s & SN_LIGHT_BRAKE ? 2.5 : s & on ? 1.0 : 0;
    if (mat == SN_MAT_BAR_RED || mat == SN_MAT_BAR_BLUE) /* CARLA's Special1: an emergency vehicle's beacons */
        return s & SN_LIGHT_SPECIAL1 ? 2.5 : 0;
    if (mat == SN_MAT_TAXI_SIGN)
        return s & on ? 1.0 : 0;
    return 0;
}

bool sn_lamps_add(sn_lamps *L, const sn_spot *s)
{
    if (!sn_grow((void **)&L->spots, &L->cap, L->n + 1, sizeof *L->spots))
        return false;
    L->spots[L->n++] = *s;
    return true;
}

/* One vehicle's beams: one per headlamp (two for four wheels, one for two-wheelers). */
static bool add_vehicle(sn_lamps *L, const sn_world *w, const sn_actor *a, double alpha, double night, sn_vec3 eye,
                        double far)
{
    bool high = a->ph->light_state & SN_LIGHT_HIGH_BEAM;
    if (!(a->ph->light_state & (SN_LIGHT_LOW_BEAM | SN_LIGHT_HIGH_BEAM)))
        return true;
    double range = high ? HIGH_RANGE : LOW_RANGE;
    sn_vec3 pos;
    sn_quat q;
    sn_actor_pose_at(w, a, alpha, &pos, &q);
    if (sn_v3_len(sn_v3_sub(pos, eye)) > far + range + sn_v3_len(a->ph->bbox.extent))
        return true; /* lights nothing the camera sees */
    sn_mat3 R = sn_mat3_from_quat(q);
    sn_vec3 e = a->ph->bbox.extent, c = sn_v3_add(pos, sn_mat3_apply(&R, a->ph->bbox.location));
    sn_vec3 fwd = sn_mat3_col(&R, 0);
    /* low beams dip 1.5 degrees with a sharp cut-off above; high beams dip 0.5 and spread wider */
    double hl = hypot(fwd.x, fwd.y), el0 = atan2(fwd.z, hl) - (high ? 0.5 : 1.5) * DEG;
    sn_model md = sn_model_of(w, a);
    bool two = md == SN_MODEL_BIKE || md == SN_MODEL_MOTORBIKE;
    double I = night * (md == SN_MODEL_BIKE ? BIKE_I : md == SN_MODEL_MOTORBIKE ? MOTO_I : LOW_I) * (high ? HIGH_I / LOW_I : 1);
    for (int side = two ? 0 : -1; side <= (two ? 0 : 1); side += 2) {
        sn_vec3 l = sn_v3(1.001 * e.x, side * 0.7 * e.y, -e.z + (two ? 0.48 : LAMP_Z) * 2 * e.z);
        sn_spot s = {sn_v3_add(c, sn_mat3_apply(&R, l)), hl > 1e-9 ? fwd.x / hl : 1, hl > 1e-9 ? fwd.y / hl : 0, el0,
                     (high ? 15 : 20) * DEG, (high ? 6 : 4) * DEG, (high ? 2.5 : 1) * DEG, I, range, 0, 0, 0, 0, 0};
        if (!sn_lamps_add(L, &s))
            return false;
    }
    return true;
}

/* Whether spot s can light a point of cell (i, j) (any height): false only where every point
** is out of its range, or for a headlight behind its lamp (past its 3 sig_h cut, under 90
** degrees), with a millimetre to spare over the rounding of sn_lamps_light's tests, so leaving
** it out of the cell drops only spots that light nothing there. */
static bool reaches(const sn_lamps *L, const sn_spot *s, uint32_t i, uint32_t j)
{
    double x0 = L->x0 + i * L->cell, x1 = x0 + L->cell, y0 = L->y0 + j * L->cell, y1 = y0 + L->cell;
    double dx = s->pos.x < x0 ? x0 - s->pos.x : s->pos.x > x1 ? s->pos.x - x1 : 0;
    double dy = s->pos.y < y0 ? y0 - s->pos.y : s->pos.y > y1 ? s->pos.y - y1 : 0;
    if (dx * dx + dy * dy > (s->range + 1e-3) * (s->range + 1e-3))
        return false;
    if (s->chunk || !(3 * s->sig_h < M_PI / 2 - 1e-3))
        return true; /* a street lamp lights all around */
    /* the largest reach of the cell along the beam's horizontal axis */
    double ahead = (s->hx > 0 ? x1 : x0) - s->pos.x, side = (s->hy > 0 ? y1 : y0) - s->pos.y;
    return ahead * s->hx + side * s->hy > -1e-3;
}

/* The items' lamps in columns for the lanes (headlights.h sn_lamps.lane), with three items of
** slack that reach nothing. */
static bool lanes(sn_lamps *L, size_t n_items)
{
    const size_t n = n_items + 3;
    if (!sn_grow((void **)&L->lane, &L->cap_lane, 5 * n, sizeof *L->lane) ||
        !sn_grow((void **)&L->lane_kind, &L->cap_lane_kind, n, sizeof *L->lane_kind))
        return false;
    L->lane_n = n;
    double *X = L->lane, *Y = X + n, *Z = Y + n, *R2 = Z + n, *I = R2 + n;
    for (size_t k = 0; k < n; k++) {
        const sn_spot *s = k < n_items ? &L->spots[L->items[k]] : NULL;
        X[k] = s ? s->pos.x : 0, Y[k] = s ? s->pos.y : 0, Z[k] = s ? s->pos.z : 0;
        R2[k] = s ? s->range * s->range : -1, I[k] = s ? s->intensity : 0; /* the loop's very product */
        L->lane_kind[k] = (uint8_t)(s && s->chunk ? SN_LANE_STREET | (s->occ_n || s->sc_n ? SN_LANE_SHADOW : 0) : 0);
    }
    const size_t m = L->n_occ + 3;
    if (!sn_grow((void **)&L->occ_lane, &L->cap_occ_lane, 4 * m, sizeof *L->occ_lane))
        return false;
    L->occ_lane_n = m;
    double *CX = L->occ_lane, *CY = CX + m, *CZ = CY + m, *RR = CZ + m;
    for (size_t k = 0; k < m; k++) {
        const sn_occluder *o = k < L->n_occ ? &L->occ[k] : NULL;
        CX[k] = o ? o->c.x : 0, CY[k] = o ? o->c.y : 0, CZ[k] = o ? o->c.z : 0;
        RR[k] = o ? o->rad * o->rad : -1; /* the test's very product */
    }
    return true;
}

/* Bins the spots in a grid over x, y (a spot goes to every cell its range reaches). */
static bool bin(sn_lamps *L)
{
    double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY}, rmax = 0;
    for (size_t i = 0; i < L->n; i++) {
        const sn_spot *s = &L->spots[i];
        lo[0] = fmin(lo[0], s->pos.x - s->range), hi[0] = fmax(hi[0], s->pos.x + s->range);
        lo[1] = fmin(lo[1], s->pos.y - s->range), hi[1] = fmax(hi[1], s->pos.y + s->range);
        rmax = fmax(rmax, s->range);
    }
    /* cells of a few metres: a lamp's circle of light covers many, and a pixel then tests the
    ** few lamps whose circle meets its cell, not all those of a lamp's square of reach */
    double cell = fmin(rmax / 2, LAMP_CELL);
    while ((hi[0] - lo[0]) / cell * ((hi[1] - lo[1]) / cell) > MAX_CELLS)
        cell *= 2;
    L->x0 = lo[0], L->y0 = lo[1], L->cell = cell;
    L->nx = (uint32_t)((hi[0] - lo[0]) / cell) + 1, L->ny = (uint32_t)((hi[1] - lo[1]) / cell) + 1;
    size_t nc = (size_t)L->nx * L->ny;
    if (!sn_grow((void **)&L->start, &L->cap_start, nc + 1, sizeof *L->start))
        return false;
    memset(L->start, 0, (nc + 1) * sizeof *L->start);
    for (int pass = 0; pass < 2; pass++) { /* count, then fill */
        for (size_t i = 0; i < L->n; i++) {
            const sn_spot *s = &L->spots[i];
            uint32_t i0 = (uint32_t)((s->pos.x - s->range - L->x0) / cell), i1 = (uint32_t)((s->pos.x + s->range - L->x0) / cell);
            uint32_t j0 = (uint32_t)((s->pos.y - s->range - L->y0) / cell), j1 = (uint32_t)((s->pos.y + s->range - L->y0) / cell);
            for (uint32_t j = j0; j <= j1 && j < L->ny; j++)
                for (uint32_t k = i0; k <= i1 && k < L->nx; k++) {
                    if (!reaches(L, s, k, j))
                        continue;
                    size_t c = (size_t)j * L->nx + k;
                    if (pass == 0)
                        L->start[c + 1]++;
                    else
                        L->items[L->start[c]++] = (uint32_t)i;
                }
        }
        if (pass == 0) {
            for (size_t c = 0; c < nc; c++)
                L->start[c + 1] += L->start[c];
            if (!sn_grow((void **)&L->items, &L->cap_items, L->start[nc] + 1, sizeof *L->items))
                return false;
        }
    }
    /* the fill moved each start to the next cell's: shift back */
    memmove(L->start + 1, L->start, nc * sizeof *L->start);
    L->start[0] = 0;
    return lanes(L, L->start[nc]);
}

bool sn_lamps_build(sn_lamps *L, const sn_world *w, double alpha, double night, sn_vec3 eye, double far)
{
    L->n = 0;
    L->nx = L->ny = 0;
    if (!(night > 0))
        return true;
    sn_street_falloff_init();
    for (size_t i = 0; i < w->n_actors; i++) {
        const sn_actor *a = w->actors[i];
        if (a->kind == SN_ACTOR_VEHICLE && a->ph->light_state && !add_vehicle(L, w, a, alpha, night, eye, far))
            return false;
    }
    size_t first_street = L->n;
    if (!sn_street_lamps_add(L, w->roads, night, eye, far)) /* the scenery's street lights */
        return false;
    if (L->shadows && !sn_lamp_occluders_build(L, w, alpha, first_street)) /* and their shadows */
        return false;
    return !L->n || bin(L);
}

double sn_lamp_exact_light(const sn_lamps *L, const sn_spot *s, sn_vec3 p, sn_vec3 v, double d2, double dot)
{
    double d = sqrt(d2), ndl = dot / d;
    if (ndl <= 0)
        return 0; /* facing away: before the angles, which cost more */
    double h = hypot(v.x, v.y); /* the beam's way is -v: its azimuth from the axis and elevation */
    double az = h > 1e-12 ? atan2(-v.y * s->hx + v.x * s->hy, -v.x * s->hx - v.y * s->hy) : M_PI / 2;
    if (fabs(az) > 3 * s->sig_h)
        return 0;
    double de = atan2(-v.z, h) - s->el0, sv = de > 0 ? s->sig_above : s->sig_below;
    if (fabs(de) > 3 * sv)
        return 0;
    double f = d2 / (s->range * s->range), win = (1 - f * f) * (1 - f * f);
    double e = s->intensity * exp(-0.5 * (az * az / (s->sig_h * s->sig_h) + de * de / (sv * sv))) * ndl * win /
               (d2 > 1 ? d2 : 1);
    /* the shadow's direction cell from v, as on the fast path (the cell never changes the answer) */
    if ((s->occ_n || s->sc_n) && e >= SN_LAMP_SHADOW_MIN && sn_lamp_occluded_cell(L, s, p, v, d, SN_LAMP_CELL_FROM_V))
        return 0; /* a street lamp's shadow */
    return e; /* the sum adds it; a 0 added leaves the sum's bits (it is never below +0) */
}

/* The fast path's sum over items k0 .. k1 of a cell, one lamp at a time (the reference of the lanes,
** lamps_avx2.c; the path where the CPU lacks AVX2, and under L->exact). */
static double sum_one_by_one(const sn_lamps *L, uint32_t k0, uint32_t k1, sn_vec3 p, const float n[3])
{
    double sum = 0;
    for (uint32_t k = k0; k < k1; k++) {
        const sn_spot *s = &L->spots[L->items[k]];
        sn_vec3 v = sn_v3_sub(s->pos, p); /* towards the lamp */
        double d2 = sn_v3_dot(v, v);
        if (d2 >= s->range * s->range || d2 < 1e-12)
            continue;
        const double dot = n[0] * v.x + n[1] * v.y + n[2] * v.z;
        if (s->chunk && !L->exact && dot > 0) {
            /* a street lamp, the point not steeply above its head: the falloff from the table, no
            ** angles (the azimuth's term, at most 5e-6 of the exponent, dropped), the shadow's
            ** direction cell from pseudo-angles, one division (1 / (d max(d2, 1)) gives 1 / d and the
            ** inverse square). Near the shadow's threshold the exact form decides. */
            double d = sqrt(d2), m = d2 > 1 ? d2 : 1, r = 1 / (d * m), c = v.z * (r * m);
            if (c > SN_STREET_FALLOFF_MIN) {
                double f = d2 * (1 / (SN_STREET_LAMP_RANGE * SN_STREET_LAMP_RANGE)), win = (1 - f * f) * (1 - f * f);
                double e = s->intensity * sn_street_falloff(c) * dot * win * r;
                bool look = (s->occ_n || s->sc_n) && e >= SN_LAMP_SHADOW_MIN * (1 - 1e-4);
                if (!look || e >= SN_LAMP_SHADOW_MIN * (1 + 1e-4)) {
                    if (!look || !sn_lamp_occluded_cell(L, s, p, v, d, SN_LAMP_CELL_FROM_V))
                        sum += e;
                    continue;
                }
            }
        }
        sum += sn_lamp_exact_light(L, s, p, v, d2, dot);
    }
    return sum;
}

void sn_lamps_light(const sn_lamps *L, sn_vec3 p, const float n[3], double rgb[3])
{
    if (!L->nx)
        return;
    double fx = (p.x - L->x0) / L->cell, fy = (p.y - L->y0) / L->cell;
    if (!(fx >= 0 && fy >= 0 && fx < L->nx && fy < L->ny))
        return;
    size_t c = (size_t)(uint32_t)fy * L->nx + (uint32_t)fx;
#if defined(__x86_64__) && defined(__GNUC__)
    double sum = !L->exact && sn_lanes_wide() ? sn_lamps_sum_avx2(L, L->start[c], L->start[c + 1], p, n)
                                              : sum_one_by_one(L, L->start[c], L->start[c + 1], p, n);
#else
    double sum = sum_one_by_one(L, L->start[c], L->start[c + 1], p, n);
#endif
    sum = 1.5 * sum / (1.5 + sum);
    for (int k = 0; k < 3; k++)
        rgb[k] += sum * warm[k];
}

void sn_lamps_free(sn_lamps *L)
{
    free(L->spots), free(L->start), free(L->items), free(L->occ), free(L->cand);
    free(L->lane), free(L->lane_kind), free(L->occ_lane);
    sn_lamp_scenery_free(L->sc);
    memset(L, 0, sizeof *L);
}
