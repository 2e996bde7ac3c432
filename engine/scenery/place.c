/* place.c — where scenery goes (docs/scenery.md has the rules and their numbers).
**
** Passes in a fixed order, each over the roads in file order: the map's own objects, signs from
** signals, pillars under elevated roads, guard rails on motorways, street lights, buildings,
** buildings filling the blocks, then trees and bushes in what is left. A solid is placed only where its whole footprint,
** widened by SN_SCENERY_MARGIN, lies off every blocked lane (sn_scenery_blocked_types) and
** off every footprint placed before it (and the scene's static boxes). Paint (stop lines,
** zebras) lies on the lanes by definition. Random draws come from one stream per road and
** pass (seed, pass, road index), so one road's draws never shift another's. */
#include "geom.h"

#include "../core/rng.h"
#include "../core/util.h"
#include "../map/lanemap.h"

#include <sensim/math.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const sn_road_category sn_scenery_categories[SN_SC_N] = {
    [SN_SC_BUILDING] = {SN_TAG_BUILDING, SN_ROAD_KERB_FACE, {170, 160, 145}},
    [SN_SC_WINDOWS] = {SN_TAG_BUILDING, SN_ROAD_MARK, {46, 58, 74}},
    [SN_SC_TRUNK] = {SN_TAG_VEGETATION, SN_ROAD_KERB_FACE, {92, 66, 44}},
    [SN_SC_CROWN] = {SN_TAG_VEGETATION, SN_ROAD_MARK, {58, 104, 48}},
    [SN_SC_BUSH] = {SN_TAG_VEGETATION, SN_ROAD_MARK, {66, 112, 52}},
    [SN_SC_POLE] = {SN_TAG_POLE, SN_ROAD_KERB_FACE, {120, 122, 126}},
    [SN_SC_LAMP] = {SN_TAG_POLE, SN_ROAD_MARK, {210, 210, 190}},
    [SN_SC_SIGN_POLE] = {SN_TAG_POLE, SN_ROAD_KERB_FACE, {150, 150, 150}},
    [SN_SC_SIGN_STOP] = {SN_TAG_TRAFFIC_SIGN, SN_ROAD_MARK, {196, 30, 36}},
    [SN_SC_SIGN_YIELD] = {SN_TAG_TRAFFIC_SIGN, SN_ROAD_MARK, {236, 236, 236}},
    [SN_SC_SIGN_SPEED] = {SN_TAG_TRAFFIC_SIGN, SN_ROAD_MARK, {240, 240, 240}},
    [SN_SC_STOP_LINE] = {SN_TAG_ROAD_LINE, SN_ROAD_MARK, {236, 236, 236}},
    [SN_SC_ZEBRA] = {SN_TAG_ROAD_LINE, SN_ROAD_MARK, {236, 236, 236}},
    [SN_SC_GUARD_RAIL] = {SN_TAG_GUARD_RAIL, SN_ROAD_KERB_FACE, {186, 188, 190}},
    [SN_SC_PILLAR] = {SN_TAG_BRIDGE, SN_ROAD_KERB_FACE, {150, 146, 140}},
    [SN_SC_FENCE] = {SN_TAG_FENCE, SN_ROAD_KERB_FACE, {140, 120, 100}},
    [SN_SC_WALL] = {SN_TAG_WALL, SN_ROAD_KERB_FACE, {168, 150, 128}},
    [SN_SC_FENCE_POST] = {SN_TAG_FENCE, SN_ROAD_KERB_FACE, {96, 98, 100}},
    [SN_SC_SHELTER] = {SN_TAG_STATIC, SN_ROAD_KERB_FACE, {96, 104, 112}},
    [SN_SC_SHELTER_PANEL] = {SN_TAG_STATIC, SN_ROAD_KERB_FACE, {150, 172, 186}},
    [SN_SC_BENCH] = {SN_TAG_STATIC, SN_ROAD_KERB_FACE, {132, 96, 62}},
    [SN_SC_BIN] = {SN_TAG_DYNAMIC, SN_ROAD_KERB_FACE, {44, 72, 54}},
    [SN_SC_GRASS] = {SN_TAG_TERRAIN, SN_ROAD_MARK, {88, 124, 60}},
    [SN_SC_DIRT] = {SN_TAG_GROUND, SN_ROAD_MARK, {122, 104, 84}},
};
const char *const sn_scenery_type[SN_SC_N] = {
    "scenery.building", "scenery.building", "scenery.tree",       "scenery.tree",       "scenery.bush",
    "scenery.street_light", "scenery.street_light", "scenery.sign", "scenery.sign",     "scenery.sign",
    "scenery.sign", "scenery.stop_line", "scenery.crosswalk", "scenery.guard_rail", "scenery.pillar",
    "scenery.fence", "scenery.wall", "scenery.fence", "scenery.bus_stop", "scenery.bus_stop", "scenery.bench",
    "scenery.bin", "scenery.grass", "scenery.ground",
};

const sn_road_category *sn_chunk_category(uint32_t c)
{
    if (c < SN_ROAD_N_CATEGORIES)
        return &sn_road_categories[c];
    return c < SN_CHUNK_N_CATEGORIES ? &sn_scenery_categories[c - SN_ROAD_N_CATEGORIES] : NULL;
}

/* ---- the rules' numbers (docs/scenery.md) ---- */
#define LIGHT_STEP 30.0      /* m between street lights along one side */
#define LIGHT_OFFSET 0.6     /* m beyond the road's outer edge */
#define LIGHT_HEIGHT 7.5
#define TREE_STEP 11.0       /* m between tree slots */
#define TREE_OFFSET 2.6      /* m beyond the edge, plus up to 1.5 */
#define BUILD_SETBACK 4.5    /* m beyond the edge, plus up to 4 */
#define PILLAR_STEP 30.0     /* m between pillars under an elevated road */
#define PILLAR_MIN_Z 4.5     /* m: a road this high above the ground gets pillars */
#define RAIL_PIECE 40.0      /* m of guard rail per piece */
#define CLEAR_Z 2.5          /* m: a lane farther below a piece's base than this does not block */
#define DECK_CLEAR 1.0       /* m: a lane must pass this far above a piece's top (the deck's depth) */
#define Z_STEP 4.0           /* m between the heights a tall footprint is checked at (< 2 CLEAR_Z) */

static const uint8_t facade[][3] = {
    {178, 164, 140}, {150, 96, 78}, {128, 130, 136}, {200, 196, 186}, {160, 140, 110}, {104, 110, 120}, {186, 150, 120},
};

uint32_t sn_scenery_blocked_types(void)
{
    uint32_t mask = 0;
    for (int b = 0; b <= 20; b++) {
        uint8_t t = sn_road_lane_tag(1u << b);
        if (t == SN_TAG_ROADS || t == SN_TAG_SIDEWALK || t == SN_TAG_RAIL_TRACK)
            mask |= 1u << b;
    }
    return mask;
}

bool sn_scenery_on_lane(const sn_map *m, double x, double y, double z, double margin)
{
    sn_map_place p;
    if (!sn_map_locate(m, sn_v3(x, y, z), margin + 0.5, sn_scenery_blocked_types(), &p))
        return false;
    return p.outside < margin && fabs(p.dz) < CLEAR_Z;
}

/* ---- the placer ---- */

typedef struct obb {
    double cx, cy, c, s, hx, hy; /* centre, cos/sin of yaw, half extents */
    double r;                    /* radius of its bounding circle */
} obb;

/* The placed footprints in a hashed grid of GRID_CELL m cells (chained entries; a box is in
** every cell its bounding circle touches), so a candidate meets only its neighbours. */
#define GRID_CELL 32.0
#define GRID_BUCKETS 8192u
typedef struct gent {
    uint32_t box, next; /* next entry of the bucket, UINT32_MAX at the end */
} gent;

typedef struct placer {
    const sn_map *m;
    const sn_scenery_opts *o;
    sn_sgeom g;
    sn_scenery out;
    size_t cap_objs;
    obb *boxes; /* every solid footprint placed, and the boxes to avoid */
    size_t n_boxes, cap_boxes;
    uint32_t head[GRID_BUCKETS];
    gent *ents;
    size_t n_ents, cap_ents;
    uint32_t blocked;
    bool oom;
    sn_rng rng;
    size_t cap_skipped;
} placer;

static obb obb_of(double cx, double cy, double yaw, double hx, double hy)
{
    return (obb){cx, cy, cos(yaw), sin(yaw), hx, hy, hypot(hx, hy)};
}

static uint32_t bucket(int64_t i, int64_t j)
{
    return (uint32_t)(((uint64_t)i * 0x9E3779B97F4A7C15ull ^ (uint64_t)j * 0xC2B2AE3D27D4EB4Full) >> 51) & (GRID_BUCKETS - 1);
}

/* Records box b (a placed footprint or one to avoid); false without memory. */
static bool add_box(placer *P, obb b)
{
    if (!sn_grow((void **)&P->boxes, &P->cap_boxes, P->n_boxes + 1, sizeof *P->boxes)) {
        P->oom = true;
        return false;
    }
    uint32_t id = (uint32_t)P->n_boxes;
    P->boxes[P->n_boxes++] = b;
    int64_t i0 = (int64_t)floor((b.cx - b.r) / GRID_CELL), i1 = (int64_t)floor((b.cx + b.r) / GRID_CELL);
    int64_t j0 = (int64_t)floor((b.cy - b.r) / GRID_CELL), j1 = (int64_t)floor((b.cy + b.r) / GRID_CELL);
    for (int64_t i = i0; i <= i1; i++)
        for (int64_t j = j0; j <= j1; j++) {
            if (!sn_grow((void **)&P->ents, &P->cap_ents, P->n_ents + 1, sizeof *P->ents)) {
                P->oom = true;
                return false;
            }
            uint32_t k = bucket(i, j);
            P->ents[P->n_ents] = (gent){id, P->head[k]};
            P->head[k] = (uint32_t)P->n_ents++;
        }
    return true;
}

/* Separating axes of two boxes in the plane: do they overlap with `gap` between them? */
static bool obb_overlap(const obb *a, const obb *b, double gap)
{
    const double dx = b->cx - a->cx, dy = b->cy - a->cy;
    const obb *bx[2] = {a, b};
    for (int i = 0; i < 2; i++)
        for (int k = 0; k < 2; k++) {
            double ax = k ? -bx[i]->s : bx[i]->c, ay = k ? bx[i]->c : bx[i]->s; /* axis */
            double ra = fabs(a->hx * (a->c * ax + a->s * ay)) + fabs(a->hy * (-a->s * ax + a->c * ay));
            double rb = fabs(b->hx * (b->c * ax + b->s * ay)) + fabs(b->hy * (-b->s * ax + b->c * ay));
            if (fabs(dx * ax + dy * ay) >= ra + rb + gap)
                return false;
        }
    return true;
}

static bool hits_placed(const placer *P, const obb *b, double gap)
{
    const double reach = b->r + gap;
    int64_t i0 = (int64_t)floor((b->cx - reach) / GRID_CELL), i1 = (int64_t)floor((b->cx + reach) / GRID_CELL);
    int64_t j0 = (int64_t)floor((b->cy - reach) / GRID_CELL), j1 = (int64_t)floor((b->cy + reach) / GRID_CELL);
    for (int64_t i = i0; i <= i1; i++)
        for (int64_t j = j0; j <= j1; j++)
            for (uint32_t e = P->head[bucket(i, j)]; e != UINT32_MAX; e = P->ents[e].next) {
                const obb *q = &P->boxes[P->ents[e].box];
                double r = q->r + reach;
                if (fabs(q->cx - b->cx) < r && fabs(q->cy - b->cy) < r && obb_overlap(q, b, gap))
                    return true;
            }
    return false;
}

/* Whether a footprint (widened by the margin) stays off every blocked lane whose surface lies
** between CLEAR_Z below its base z and DECK_CLEAR above its top: its centre and its outline
** sampled at most 1 m apart. A lane is a strip at least 1 m wide (narrower ones are not
** blocked: sn_map_locate finds no lane there either), so one that reaches into the box crosses
** the sampled outline (or holds the centre). sn_map_locate answers the lane nearest in 3-D, so
** a tall piece is asked at heights Z_STEP apart up to its top: a building beside a road on the
** ground must not rise through a deck above it (CARLA's Town04: road 39 over road 2's frontage). */
static bool footprint_free_mg(const placer *P, const obb *b, double z, double top, double mg)
{
    const double hx = b->hx + mg, hy = b->hy + mg;
    /* lanes up to DECK_CLEAR above the top block, none lies above the map's highest: flat maps
    ** ask once (the last height asked may block a deck up to Z_STEP higher: on the safe side) */
    double reach = fmin(top + DECK_CLEAR, P->m->hi.z);
    int nx = (int)ceil(2 * hx / 1.0), ny = (int)ceil(2 * hy / 1.0);
    for (double zq = z;; zq += Z_STEP) {
        if (sn_scenery_on_lane(P->m, b->cx, b->cy, zq, 0.05))
            return false;
        for (int i = 0; i <= nx; i++)
            for (int j = 0; j <= ny; j++) {
                if (i != 0 && i != nx && j != 0 && j != ny)
                    continue; /* inside: the outline decides */
                double lx = -hx + 2 * hx * i / nx, ly = -hy + 2 * hy * j / ny;
                double x = b->cx + lx * b->c - ly * b->s, y = b->cy + lx * b->s + ly * b->c;
                if (sn_scenery_on_lane(P->m, x, y, zq, 0.05))
                    return false;
            }
        if (zq + CLEAR_Z >= reach)
            return true;
    }
}

static bool footprint_free(const placer *P, const obb *b, double z, double top)
{
    return footprint_free_mg(P, b, z, top, SN_SCENERY_MARGIN);
}

/* Checks a solid footprint from height z to top against lanes and what was placed; on
** success records it. */
static bool claim(placer *P, double cx, double cy, double yaw, double hx, double hy, double z, double top, double gap)
{
    obb b = obb_of(cx, cy, yaw, hx, hy);
    if (hits_placed(P, &b, gap) || !footprint_free(P, &b, z, top))
        return false;
    return add_box(P, b);
}

/* A new object record; its instance id is the next one. NULL when out of memory. */
static sn_scenery_obj *new_obj(placer *P, int kind, uint8_t tag, double cx, double cy, double yaw, double hx,
                               double hy, double z0, double z1)
{
    if (P->oom || !sn_grow((void **)&P->out.objs, &P->cap_objs, (size_t)P->out.n_objs + 1, sizeof *P->out.objs)) {
        P->oom = true;
        return NULL;
    }
    sn_scenery_obj *o = &P->out.objs[P->out.n_objs];
    *o = (sn_scenery_obj){SN_SCENERY_ID0 + P->out.n_objs, (uint8_t)kind, tag, false, false, false,
                          cx, cy, yaw, hx, hy, z0, z1};
    P->out.n_objs++;
    P->out.counts[kind]++;
    return o;
}

static void seed_stream(placer *P, uint64_t pass, uint32_t road)
{
    sn_rng_seed(&P->rng, P->o->seed * 0x9E3779B97F4A7C15ull ^ (pass << 48) ^ ((uint64_t)road * 0xD1B54A32D192ED03ull));
}

static double uni(placer *P, double lo, double hi) { return lo + (hi - lo) * sn_rng_uniform(&P->rng); }

/* World point and yaw at (s, t) of road r, h up. */
static void at(const sn_odr_road *r, double s, double t, double h, double w[3], double *yaw)
{
    double p[3];
    sn_odr_point(r, s, t, h, p);
    w[0] = p[0], w[1] = -p[1], w[2] = p[2];
    if (yaw)
        *yaw = -sn_odr_ref_line(r, s).hdg;
}

/* t of a side's outer edge (side +1 left, -1 right) at s, and whether that lane is a sidewalk. */
static double edge_t(const sn_odr_road *r, const sn_odr_section *sec, int side, double s, bool *sidewalk)
{
    int n = side > 0 ? (int)sec->n_left : (int)sec->n_right;
    const sn_odr_lane *l = n ? sn_odr_lane_of(sec, side * n) : NULL;
    if (sidewalk)
        *sidewalk = l && l->type == SN_LANE_SIDEWALK;
    return sn_odr_lane_border(r, sec, side * n, s);
}

/* ---- pieces ---- */

static void street_light(placer *P, double x, double y, double z, double yaw_to_road)
{
    sn_scenery_obj *o = new_obj(P, SN_SK_STREET_LIGHT, SN_TAG_POLE, x, y, 0, 0.15, 0.15, z, z + LIGHT_HEIGHT);
    if (!o)
        return;
    const double ax = cos(yaw_to_road), ay = sin(yaw_to_road), arm = 1.6;
    sn_sgeom_begin(&P->g, SN_SC_POLE, o->instance, NULL);
    sn_sgeom_prism(&P->g, x, y, 0.11, z - 0.3, z + LIGHT_HEIGHT, 8);
    sn_sgeom_box(&P->g, x + ax * arm / 2, y + ay * arm / 2, yaw_to_road, arm / 2, 0.05, z + LIGHT_HEIGHT - 0.12,
                 z + LIGHT_HEIGHT);
    sn_sgeom_end(&P->g);
    sn_sgeom_begin(&P->g, SN_SC_LAMP, o->instance, NULL);
    sn_sgeom_box(&P->g, x + ax * arm, y + ay * arm, yaw_to_road, 0.3, 0.14, z + LIGHT_HEIGHT - 0.25,
                 z + LIGHT_HEIGHT - 0.05);
    sn_sgeom_end(&P->g);
}

static void tree(placer *P, double x, double y, double z, double trunk_h, double crown_r)
{
    sn_scenery_obj *o = new_obj(P, SN_SK_TREE, SN_TAG_VEGETATION, x, y, 0, 0.2, 0.2, z, z + trunk_h + 2.2 * crown_r);
    if (!o)
        return;
    sn_sgeom_begin(&P->g, SN_SC_TRUNK, o->instance, NULL);
    sn_sgeom_prism(&P->g, x, y, 0.18, z - 0.3, z + trunk_h + 0.5, 6);
    sn_sgeom_end(&P->g);
    uint8_t rgb[3];
    memcpy(rgb, sn_scenery_categories[SN_SC_CROWN].rgb, 3);
    double v = uni(P, -1, 1);
    rgb[0] = (uint8_t)(rgb[0] + 14 * v), rgb[1] = (uint8_t)(rgb[1] + 20 * v), rgb[2] = (uint8_t)(rgb[2] + 10 * v);
    sn_sgeom_begin(&P->g, SN_SC_CROWN, o->instance, rgb);
    sn_sgeom_ellipsoid(&P->g, x, y, z + trunk_h + crown_r, crown_r, 1.1 * crown_r);
    sn_sgeom_end(&P->g);
}

static void bush(placer *P, double x, double y, double z, double r)
{
    sn_scenery_obj *o = new_obj(P, SN_SK_BUSH, SN_TAG_VEGETATION, x, y, 0, r, r, z, z + 1.4 * r);
    if (!o)
        return;
    sn_sgeom_begin(&P->g, SN_SC_BUSH, o->instance, NULL);
    sn_sgeom_ellipsoid(&P->g, x, y, z + 0.6 * r, r, 0.8 * r);
    sn_sgeom_end(&P->g);
}

/* A building: a box with bands of windows on its four facades, one per storey. */
static void building(placer *P, double cx, double cy, double yaw, double hx, double hy, double z, double h,
                     const uint8_t rgb[3])
{
    sn_scenery_obj *o = new_obj(P, SN_SK_BUILDING, SN_TAG_BUILDING, cx, cy, yaw, hx, hy, z, z + h);
    if (!o)
        return;
    sn_sgeom_begin(&P->g, SN_SC_BUILDING, o->instance, rgb);
    sn_sgeom_box(&P->g, cx, cy, yaw, hx, hy, z - 1.0, z + h);
    sn_sgeom_end(&P->g);
    sn_sgeom_begin(&P->g, SN_SC_WINDOWS, o->instance, NULL);
    const double c = cos(yaw), s = sin(yaw), off = 0.04, inset = 0.8;
    for (double f = z + 1.2; f + 1.6 < z + h - 0.6; f += 3.2)
        for (int side = 0; side < 4; side++) {
            /* the facade's outward normal (local) and its half length */
            double nx = side == 0 ? 1 : side == 1 ? -1 : 0, ny = side == 2 ? 1 : side == 3 ? -1 : 0;
            double half = (nx != 0 ? hy : hx) - inset, depth = (nx != 0 ? hx : hy) + off;
            if (half < 0.5)
                continue;
            double tx = -ny, ty = nx; /* along the facade, counter-clockwise seen from above */
            double q[4][3];
            for (int k = 0; k < 4; k++) {
                double along = (k == 0 || k == 3) ? -half : half, up = k < 2 ? f : f + 1.5;
                double lx = nx * depth + tx * along, ly = ny * depth + ty * along;
                q[k][0] = cx + lx * c - ly * s, q[k][1] = cy + lx * s + ly * c, q[k][2] = up;
            }
            sn_sgeom_quad(&P->g, q[0], q[1], q[2], q[3]);
        }
    sn_sgeom_end(&P->g);
}

/* ---- passes ---- */

/* Dead ends: a road end that leads nowhere keeps DEAD_END_RUN m in front of it clear, as wide
** as the road and 2 m more: a vehicle at the end of its lane runs on over the ground there. */
#define DEAD_END_RUN 40.0
static void keep_dead_ends_clear(placer *P)
{
    const sn_odr *od = P->m->odr;
    for (uint32_t ri = 0; ri < od->n_roads && !P->oom; ri++) {
        const sn_odr_road *r = &od->roads[ri];
        for (int end = 0; end < 2; end++) {
            const sn_odr_link *l = end ? &r->succ : &r->pred;
            if (l->elem != SN_ODR_ELEM_NONE && l->index >= 0)
                continue;
            double s = end ? r->length : 0;
            const sn_odr_section *sec = &r->sections[sn_odr_section_at(r, s, end == 1)];
            double tl = edge_t(r, sec, 1, s, NULL), tr = edge_t(r, sec, -1, s, NULL), w[3], yaw;
            at(r, s, (tl + tr) / 2, 0, w, &yaw);
            double dir = end ? 1 : -1; /* outward along the road */
            double cx = w[0] + dir * cos(yaw) * DEAD_END_RUN / 2, cy = w[1] + dir * sin(yaw) * DEAD_END_RUN / 2;
            if (!add_box(P, obb_of(cx, cy, yaw, DEAD_END_RUN / 2, (tl - tr) / 2 + 1.0)))
                return;
        }
    }
}

/* Street lights along both sides of every road outside junctions, alternating sides. */
static void pass_lights(placer *P)
{
    const sn_odr *od = P->m->odr;
    const double step = LIGHT_STEP / P->o->density;
    for (uint32_t ri = 0; ri < od->n_roads && !P->oom; ri++) {
        const sn_odr_road *r = &od->roads[ri];
        if (r->junction >= 0 || r->length < 10)
            continue;
        seed_stream(P, 1, ri);
        for (int side = -1; side <= 1; side += 2)
            for (double s = (side < 0 ? 0.25 : 0.75) * step + uni(P, 0, 3); s < r->length - 2; s += step) {
                const sn_odr_section *sec = &r->sections[sn_odr_section_at(r, s, false)];
                bool sw;
                double t = edge_t(r, sec, side, s, &sw) + side * LIGHT_OFFSET, w[3], yaw;
                at(r, s, t, sw ? SN_ROAD_KERB : 0, w, &yaw);
                if (claim(P, w[0], w[1], 0, 0.15, 0.15, w[2], w[2] + LIGHT_HEIGHT + 0.3, 0.5))
                    street_light(P, w[0], w[1], w[2], yaw + (side > 0 ? M_PI / 2 : -M_PI / 2)); /* the arm over the road */
            }
    }
}

/* Blocks of buildings along both sides: frontages of 8-24 m, set back 7-12 m from the edge. */
static void pass_buildings(placer *P)
{
    const sn_odr *od = P->m->odr;
    for (uint32_t ri = 0; ri < od->n_roads && !P->oom; ri++) {
        const sn_odr_road *r = &od->roads[ri];
        if (r->junction >= 0 || r->length < 12)
            continue;
        seed_stream(P, 2, ri);
        for (int side = -1; side <= 1; side += 2) {
            double s = uni(P, 0, 4);
            while (s < r->length - 4 && !P->oom) {
                double len = uni(P, 8, 24), gap = uni(P, 1, 4) / P->o->density, depth = uni(P, 8, 18);
                double setback = BUILD_SETBACK + uni(P, 0, 4);
                double h = uni(P, 0, 1) < 0.12 ? uni(P, 30, 60) : uni(P, 6, 26);
                const uint8_t *rgb = facade[(size_t)uni(P, 0, (double)SN_COUNT(facade))];
                for (int tries = 0; tries < 2; tries++, len *= 0.5) {
                    double sm = s + len / 2;
                    if (sm > r->length)
                        break;
                    const sn_odr_section *sec = &r->sections[sn_odr_section_at(r, sm, false)];
                    double t = edge_t(r, sec, side, sm, NULL) + side * (setback + depth / 2), w[3], yaw;
                    at(r, sm, t, 0, w, &yaw);
                    if (claim(P, w[0], w[1], yaw, len / 2, depth / 2, w[2], w[2] + h, 1.0)) {
                        building(P, w[0], w[1], yaw, len / 2, depth / 2, w[2], h, rgb);
                        break;
                    }
                }
                s += len + gap;
            }
        }
    }
}

/* The blocks' insides: a grid of FILL_STEP m over the map's box, each point (jittered) within
** FILL_REACH m of a lane tries a building turned to that lane's road. */
#define FILL_STEP 22.0
#define FILL_REACH 70.0
static void pass_fill(placer *P)
{
    const sn_map *m = P->m;
    const double step = FILL_STEP / sqrt(P->o->density);
    if (!(m->hi.x >= m->lo.x) || (m->hi.x - m->lo.x) * (m->hi.y - m->lo.y) > 1e8)
        return; /* no lanes, or more than 10 km x 10 km: the roads' own rows are enough */
    seed_stream(P, 4, 0);
    for (double y = m->lo.y - FILL_REACH / 2; y <= m->hi.y + FILL_REACH / 2 && !P->oom; y += step)
        for (double x = m->lo.x - FILL_REACH / 2; x <= m->hi.x + FILL_REACH / 2 && !P->oom; x += step) {
            double px = x + uni(P, -0.3, 0.3) * step, py = y + uni(P, -0.3, 0.3) * step;
            double len = uni(P, 10, 24), depth = uni(P, 10, 20);
            double h = uni(P, 0, 1) < 0.12 ? uni(P, 30, 60) : uni(P, 6, 26);
            const uint8_t *rgb = facade[(size_t)uni(P, 0, (double)SN_COUNT(facade))];
            sn_map_place pl;
            if (!sn_map_locate(m, sn_v3(px, py, 0), FILL_REACH, P->blocked, &pl) || pl.outside < 6)
                continue;
            const sn_odr_road *r = &m->odr->roads[pl.road];
            double w[3], yaw;
            at(r, pl.s, pl.t, 0, w, &yaw);
            for (int tries = 0; tries < 3; tries++, len *= 0.7, depth *= 0.7) /* smaller where it does not fit */
                if (claim(P, px, py, yaw, len / 2, depth / 2, w[2], w[2] + h, 1.5)) { /* at its road's height */
                    building(P, px, py, yaw, len / 2, depth / 2, w[2], h, rgb);
                    break;
                }
        }
}

/* Trees (70 %) and bushes in the verges, where nothing else stands. */
static void pass_trees(placer *P)
{
    const sn_odr *od = P->m->odr;
    const double step = TREE_STEP / P->o->density;
    for (uint32_t ri = 0; ri < od->n_roads && !P->oom; ri++) {
        const sn_odr_road *r = &od->roads[ri];
        if (r->junction >= 0 || r->length < 8)
            continue;
        seed_stream(P, 3, ri);
        for (int side = -1; side <= 1; side += 2)
            for (double s = uni(P, 2, step); s < r->length - 2; s += step * uni(P, 0.7, 1.3)) {
                const sn_odr_section *sec = &r->sections[sn_odr_section_at(r, s, false)];
                bool is_tree = uni(P, 0, 1) < 0.7;
                double off = is_tree ? TREE_OFFSET + uni(P, 0, 1.5) : 1.2 + uni(P, 0, 1);
                double size = is_tree ? uni(P, 1.4, off - 0.3) : uni(P, 0.4, 0.8), trunk = uni(P, 2.3, 3.6);
                double t = edge_t(r, sec, side, s, NULL) + side * off, w[3];
                at(r, s, t, 0, w, NULL);
                if (is_tree && claim(P, w[0], w[1], 0, 0.2, 0.2, w[2], w[2] + trunk + 2 * fmin(size, 2.4), size))
                    tree(P, w[0], w[1], w[2], trunk, fmin(size, 2.4));
                else if (!is_tree && claim(P, w[0], w[1], 0, size, size, w[2], w[2] + size, 0.3))
                    bush(P, w[0], w[1], w[2], size);
            }
    }
}

static bool is_motorway(const sn_odr_road *r)
{
    for (uint32_t i = 0; i < r->n_types; i++)
        if (sn_streq_nocase(r->types[i].type, "motorway"))
            return true;
    return false;
}

/* Guard rails along both outer edges of motorway roads: pieces of RAIL_PIECE m, each a chain
** of 4 m rails on posts, kept off the lanes piece by piece. */
static void pass_rails(placer *P)
{
    const sn_odr *od = P->m->odr;
    for (uint32_t ri = 0; ri < od->n_roads && !P->oom; ri++) {
        const sn_odr_road *r = &od->roads[ri];
        if (!is_motorway(r) || r->junction >= 0)
            continue;
        for (int side = -1; side <= 1; side += 2)
            for (double s0 = 0; s0 < r->length - 1 && !P->oom; s0 += RAIL_PIECE) {
                sn_scenery_obj *o = NULL;
                for (double s = s0; s < fmin(s0 + RAIL_PIECE, r->length - 0.5); s += 4) {
                    const sn_odr_section *sec = &r->sections[sn_odr_section_at(r, s, false)];
                    int n = side > 0 ? (int)sec->n_left : (int)sec->n_right;
                    if (!n)
                        continue; /* no lanes on this side: the other carriageway's median */
                    double s1 = fmin(s + 4, r->length), sm = (s + s1) / 2, len = s1 - s;
                    double t = edge_t(r, sec, side, sm, NULL) + side * 0.5, w[3], yaw;
                    at(r, sm, t, 0, w, &yaw);
                    if (!claim(P, w[0], w[1], yaw, len / 2, 0.08, w[2], w[2] + 0.8, 0.0))
                        continue;
                    if (!o) {
                        if (!(o = new_obj(P, SN_SK_GUARD_RAIL, SN_TAG_GUARD_RAIL, w[0], w[1], yaw, len / 2, 0.08, w[2],
                                          w[2] + 0.8)))
                            return;
                        sn_sgeom_begin(&P->g, SN_SC_GUARD_RAIL, o->instance, NULL);
                    }
                    sn_sgeom_box(&P->g, w[0], w[1], yaw, len / 2, 0.03, w[2] + 0.45, w[2] + 0.8);
                    sn_sgeom_box(&P->g, w[0], w[1], 0, 0.06, 0.06, w[2] - 0.3, w[2] + 0.75);
                }
                if (o)
                    sn_sgeom_end(&P->g);
            }
    }
}

/* Pillars under elevated roads: every PILLAR_STEP m where the road is PILLAR_MIN_Z above the
** ground (z 0, the ground plane's height on a map), at the middle of the road's lanes, with a
** cross beam under the deck; never on a lane below. */
static void pass_pillars(placer *P)
{
    const sn_odr *od = P->m->odr;
    for (uint32_t ri = 0; ri < od->n_roads && !P->oom; ri++) {
        const sn_odr_road *r = &od->roads[ri];
        for (double s = PILLAR_STEP / 2; s < r->length; s += PILLAR_STEP) {
            const sn_odr_section *sec = &r->sections[sn_odr_section_at(r, s, false)];
            double tl = edge_t(r, sec, 1, s, NULL), tr = edge_t(r, sec, -1, s, NULL), w[3], yaw;
            at(r, s, (tl + tr) / 2, 0, w, &yaw);
            if (w[2] < PILLAR_MIN_Z)
                continue;
            double across = fmax((tl - tr) / 2 - 0.3, 0.6);
            if (!claim(P, w[0], w[1], yaw, 0.6, 0.6, 0.0, 0.0, 0.5))
                continue;
            sn_scenery_obj *o = new_obj(P, SN_SK_PILLAR, SN_TAG_BRIDGE, w[0], w[1], yaw, 0.6, 0.6, -0.5, w[2] - 0.3);
            if (!o)
                return;
            o->elevated = true;
            sn_sgeom_begin(&P->g, SN_SC_PILLAR, o->instance, NULL);
            sn_sgeom_box(&P->g, w[0], w[1], yaw, 0.6, 0.6, -0.5, w[2] - 0.9);
            sn_sgeom_box(&P->g, w[0], w[1], yaw, 0.5, across, w[2] - 0.9, w[2] - 0.3);
            sn_sgeom_end(&P->g);
        }
    }
}

/* Signs from the map's signals (stop 206, yield 205, speed limit 274, CARLA's SignalType.cpp):
** a pole at the signal's (s, t), moved outward (up to 12 m) off any lane, and a plate facing the traffic
** its orientation names. */
static void pass_signs(placer *P)
{
    const sn_odr *od = P->m->odr;
    for (uint32_t ri = 0; ri < od->n_roads && !P->oom; ri++) {
        const sn_odr_road *r = &od->roads[ri];
        for (uint32_t k = 0; k < r->n_signals; k++) {
            const sn_odr_signal *sg = &r->signals[k];
            if (sg->is_reference || !sg->type)
                continue;
            int sc = !strcmp(sg->type, "206") ? SN_SC_SIGN_STOP
                     : !strcmp(sg->type, "205") ? SN_SC_SIGN_YIELD
                     : !strcmp(sg->type, "274") ? SN_SC_SIGN_SPEED
                                                : -1;
            if (sc < 0 || !(sg->s >= 0 && sg->s <= r->length + 1e-6) || !isfinite(sg->t) || fabs(sg->t) > 100)
                continue;
            double out = sg->t >= 0 ? 1 : -1, w[3], yaw;
            bool placed = false;
            for (double d = 0; d <= 12.0 && !placed; d += 0.5) {
                at(r, sg->s, sg->t + out * d, 0, w, &yaw);
                /* the pole's own footprint, ignoring other scenery (signs come before it) */
                placed = claim(P, w[0], w[1], 0, 0.06, 0.06, w[2], w[2] + 2.9, 0.0);
            }
            if (!placed)
                continue;
            double top = w[2] + 2.0 + 0.2, plate = sc == SN_SC_SIGN_SPEED ? 0.3 : 0.38;
            sn_scenery_obj *o = new_obj(P, SN_SK_SIGN, SN_TAG_TRAFFIC_SIGN, w[0], w[1], 0, 0.06, 0.06, w[2],
                                        top + plate);
            if (!o)
                return;
            /* The plate faces the traffic that drives toward it: with s for '+', against s for '-'. */
            double face = yaw + (sg->orientation == '-' ? 0 : M_PI);
            sn_sgeom_begin(&P->g, SN_SC_SIGN_POLE, o->instance, NULL);
            sn_sgeom_prism(&P->g, w[0], w[1], 0.04, w[2] - 0.2, top, 6);
            sn_sgeom_end(&P->g);
            sn_sgeom_begin(&P->g, sc, o->instance, NULL);
            double px = w[0] + 0.06 * cos(face), py = w[1] + 0.06 * sin(face);
            sn_sgeom_box(&P->g, px, py, face, 0.02, plate, top - plate, top + plate);
            sn_sgeom_end(&P->g);
        }
    }
}

/* The map's own objects: building, pole, tree/vegetation, barrier — built where the map puts
** them and as large as it says (its outline's box when it has one). */
static void pass_map_objects(placer *P)
{
    const sn_odr *od = P->m->odr;
    for (uint32_t ri = 0; ri < od->n_roads && !P->oom; ri++) {
        const sn_odr_road *r = &od->roads[ri];
        for (uint32_t k = 0; k < r->n_objects; k++) {
            const sn_odr_object *ob = &r->objects[k];
            if (!ob->type)
                continue;
            int sc = sn_streq_nocase(ob->type, "building") ? SN_SC_BUILDING
                     : sn_streq_nocase(ob->type, "pole") ? SN_SC_POLE
                     : sn_streq_nocase(ob->type, "tree") || sn_streq_nocase(ob->type, "vegetation") ? SN_SC_TRUNK
                     : sn_streq_nocase(ob->type, "barrier") ? SN_SC_FENCE
                                                              : -1;
            if (sc < 0 || !isfinite(ob->s) || !isfinite(ob->t) || fabs(ob->t) > 1e4)
                continue;
            double hx = ob->length / 2, hy = ob->width / 2;
            if (ob->n_corners >= 3 && !ob->road_corners) {
                hx = hy = 0;
                for (uint32_t c = 0; c < ob->n_corners; c++)
                    hx = fmax(hx, fabs(ob->corners[c].u)), hy = fmax(hy, fabs(ob->corners[c].v));
            }
            if (ob->radius > 0 && !(hx > 0))
                hx = hy = ob->radius;
            double h = ob->height;
            double w[3], yaw;
            at(r, fmin(fmax(ob->s, 0), r->length), ob->t, 0, w, &yaw);
            w[2] += ob->z_offset; /* zOffset is vertical (esmini's objects: z_road + zOffset) */
            yaw -= ob->hdg; /* hdg turns counter-clockwise in OpenDRIVE: clockwise in the world */
            if (!(hx > 0 && hx < 500) || !(hy > 0 && hy < 500))
                hx = hy = sc == SN_SC_BUILDING ? 5 : sc == SN_SC_TRUNK ? 0.2 : 0.12;
            if (!(h > 0 && h < 1000))
                h = sc == SN_SC_BUILDING ? 10 : sc == SN_SC_TRUNK ? 6 : sc == SN_SC_POLE ? 6 : 1;
            /* a solid the map puts on a lane would stop its traffic: left out, and named */
            obb fb = obb_of(w[0], w[1], yaw, hx, hy);
            if (!footprint_free_mg(P, &fb, w[2], w[2] + h, 0.0)) {
                if (!sn_grow((void **)&P->out.skipped, &P->cap_skipped, (size_t)P->out.n_skipped + 1,
                             sizeof *P->out.skipped)) {
                    P->oom = true;
                    return;
                }
                snprintf(P->out.skipped[P->out.n_skipped++], sizeof *P->out.skipped,
                         "object %d '%s' (type %s) of road %d at s %.1f, t %.1f stands on a lane: not built", ob->id,
                         ob->name ? ob->name : "", ob->type, r->id, ob->s, ob->t);
                continue;
            }
            if (!add_box(P, fb))
                return;
            uint8_t tag = sn_scenery_categories[sc].tag;
            sn_scenery_obj *o = new_obj(P, SN_SK_MAP_OBJECT, tag, w[0], w[1], yaw, hx, hy, w[2], w[2] + h);
            if (!o)
                return;
            o->from_map = true;
            if (sc == SN_SC_TRUNK) {
                double cr = fmax(hx, 1.0);
                sn_sgeom_begin(&P->g, SN_SC_TRUNK, o->instance, NULL);
                sn_sgeom_prism(&P->g, w[0], w[1], fmin(hx, 0.3), w[2], w[2] + h * 0.5 + 0.3, 6);
                sn_sgeom_end(&P->g);
                sn_sgeom_begin(&P->g, SN_SC_CROWN, o->instance, NULL);
                sn_sgeom_ellipsoid(&P->g, w[0], w[1], w[2] + h * 0.5 + cr, cr, fmax(h * 0.5 - 0.2, 0.5));
            } else {
                sn_sgeom_begin(&P->g, sc, o->instance, NULL);
                sn_sgeom_box(&P->g, w[0], w[1], yaw, hx, hy, w[2], w[2] + h);
            }
            sn_sgeom_end(&P->g);
        }
    }
}

/* Stop lines: a 0.4 m band across the lane just before each line, 2 cm above the road. */
static int cmp_line(const void *a, const void *b)
{
    const sn_scenery_line *x = a, *y = b;
    if (x->road_id != y->road_id)
        return x->road_id < y->road_id ? -1 : 1;
    if (x->lane_id != y->lane_id)
        return x->lane_id < y->lane_id ? -1 : 1;
    return x->s < y->s ? -1 : x->s > y->s;
}

static void pass_stop_lines(placer *P, const sn_scenery_line *lines, size_t n)
{
    if (!n)
        return;
    sn_scenery_line *ls = malloc(n * sizeof *ls);
    if (!ls) {
        P->oom = true;
        return;
    }
    memcpy(ls, lines, n * sizeof *ls);
    qsort(ls, n, sizeof *ls, cmp_line);
    for (size_t i = 0; i < n && !P->oom; i++) {
        if (i && ls[i].road_id == ls[i - 1].road_id && ls[i].lane_id == ls[i - 1].lane_id &&
            fabs(ls[i].s - ls[i - 1].s) < 0.5)
            continue;
        int32_t ri = sn_odr_road_index(P->m->odr, ls[i].road_id);
        if (ri < 0 || !ls[i].lane_id)
            continue;
        const sn_odr_road *r = &P->m->odr->roads[ri];
        int dir = sn_map_lane_dir(r, ls[i].lane_id);
        double s1 = fmin(fmax(ls[i].s - dir * 0.05, 0), r->length), s0 = fmin(fmax(s1 - dir * 0.4, 0), r->length);
        const sn_odr_section *sec = &r->sections[sn_odr_section_at(r, (s0 + s1) / 2, false)];
        if (!sn_odr_lane_of(sec, ls[i].lane_id))
            continue;
        double ti, to, q[4][3];
        sn_odr_lane_span(r, sec, ls[i].lane_id, (s0 + s1) / 2, &ti, &to);
        if (!(fabs(to - ti) > 0.5))
            continue;
        double a = ti + (to > ti ? 0.1 : -0.1), b = to - (to > ti ? 0.1 : -0.1);
        /* counter-clockwise from above: in OpenDRIVE's frame (s, t) is right-handed; the world
        ** flips y, so order the corners clockwise there */
        double ss[4] = {s0, s1, s1, s0}, tt[4] = {a, a, b, b};
        bool flip = (s1 - s0) * (b - a) > 0;
        for (int k = 0; k < 4; k++)
            at(r, ss[flip ? 3 - k : k], tt[flip ? 3 - k : k], 0.02, q[k], NULL);
        sn_scenery_obj *o = new_obj(P, SN_SK_STOP_LINE, SN_TAG_ROAD_LINE, (q[0][0] + q[2][0]) / 2,
                                    (q[0][1] + q[2][1]) / 2, 0, 0.2, fabs(to - ti) / 2, q[0][2], q[0][2]);
        if (!o)
            break;
        o->paint = true;
        sn_sgeom_begin(&P->g, SN_SC_STOP_LINE, o->instance, NULL);
        sn_sgeom_quad(&P->g, q[0], q[1], q[2], q[3]);
        sn_sgeom_end(&P->g);
    }
    free(ls);
}

/* Zebra paint on crosswalk objects: stripes 0.5 m wide, 0.5 m apart, along the crossing,
** painted in 0.5 m pieces only where a driving-type lane is under them (not on the sidewalks). */
static void pass_zebras(placer *P)
{
    const sn_odr *od = P->m->odr;
    const uint32_t road_types = P->blocked & ~(uint32_t)SN_LANE_SIDEWALK;
    for (uint32_t ri = 0; ri < od->n_roads && !P->oom; ri++) {
        const sn_odr_road *r = &od->roads[ri];
        for (uint32_t k = 0; k < r->n_objects; k++) {
            const sn_odr_object *ob = &r->objects[k];
            if (!ob->type || !sn_streq_nocase(ob->type, "crosswalk"))
                continue;
            double hu = ob->length / 2, hv = ob->width / 2;
            if (ob->n_corners >= 3 && !ob->road_corners) {
                hu = hv = 0;
                for (uint32_t c = 0; c < ob->n_corners; c++)
                    hu = fmax(hu, fabs(ob->corners[c].u)), hv = fmax(hv, fabs(ob->corners[c].v));
            }
            if (!(hu > 0.5 || hv > 0.5) || !isfinite(hu) || !isfinite(hv) || hu > 100 || hv > 100)
                continue;
            double p[3];
            sn_odr_point(r, ob->s, ob->t, 0, p);
            p[2] += ob->z_offset; /* vertical, as every object's */
            double h = sn_odr_ref_line(r, ob->s).hdg + ob->hdg;
            bool across_v = hv >= hu;
            double L = across_v ? hv : hu, Wd = across_v ? hu : hv; /* half length across the road, half width */
            /* crossing direction c and the stripes' spacing direction e, OpenDRIVE frame */
            double cx = across_v ? -sin(h) : cos(h), cy = across_v ? cos(h) : sin(h), ex = cy, ey = -cx;
            sn_scenery_obj *o = NULL;
            for (double e = -Wd + 0.25; e + 0.25 <= Wd + 1e-9; e += 1.0)
                for (double c = -L; c + 0.5 <= L + 1e-9; c += 0.5) {
                    double mx = p[0] + (c + 0.25) * cx + e * ex, my = p[1] + (c + 0.25) * cy + e * ey;
                    sn_map_place pl;
                    if (!sn_map_locate(P->m, sn_v3(mx, -my, p[2]), 0.01, road_types, &pl) || pl.outside > 0 ||
                        fabs(pl.dz) > 1.0)
                        continue;
                    double z = p[2] - pl.dz + 0.02, q[4][3];
                    const double cc[4] = {c, c + 0.5, c + 0.5, c}, ee[4] = {e - 0.25, e - 0.25, e + 0.25, e + 0.25};
                    for (int j = 0; j < 4; j++) {
                        /* (c, e) is left-handed in OpenDRIVE's frame (e = c turned right): the world's
                        ** y flip makes it right-handed, counter-clockwise from above */
                        q[j][0] = p[0] + cc[j] * cx + ee[j] * ex, q[j][1] = -(p[1] + cc[j] * cy + ee[j] * ey), q[j][2] = z;
                    }
                    if (!o) {
                        if (!(o = new_obj(P, SN_SK_CROSSWALK, SN_TAG_ROAD_LINE, p[0], -p[1], -h, across_v ? hu : hv,
                                          across_v ? hv : hu, z, z)))
                            return;
                        o->paint = true;
                        sn_sgeom_begin(&P->g, SN_SC_ZEBRA, o->instance, NULL);
                    }
                    sn_sgeom_quad(&P->g, q[0], q[1], q[2], q[3]);
                }
            if (o)
                sn_sgeom_end(&P->g);
        }
    }
}

/* ---- street furniture, plot walls and fences, ground patches ---- */

#define STOP_STEP 150.0   /* m of road side per bus stop (one per side of a road at least 60 m long) */
#define BENCH_STEP 28.0   /* m between benches or bins along a sidewalk */
#define FURN_OFFSET 0.45  /* m beyond the outer edge to a piece's near face (the margin and a little) */
#define PLOT_OFFSET 3.4   /* m beyond the edge to a plot's wall or fence, plus up to 0.8 */

/* Unit vectors of road r at s: along it (world) and outward from side `side` (world). */
static void frame_at(const sn_odr_road *r, double s, double t, int side, double along[2], double out[2])
{
    double a[3], b[3], yaw;
    at(r, s, t, 0, a, &yaw);
    at(r, s, t + side, 0, b, NULL);
    along[0] = cos(yaw), along[1] = sin(yaw);
    double l = hypot(b[0] - a[0], b[1] - a[1]);
    out[0] = l > 0 ? (b[0] - a[0]) / l : -along[1], out[1] = l > 0 ? (b[1] - a[1]) / l : along[0];
}

/* A box part of a piece: centre c + along * u + out * v, half extents hx along, hy across. */
static void part_box(placer *P, const double c[2], const double al[2], const double ou[2], double u, double v, double yaw,
                     double hx, double hy, double z0, double z1)
{
    sn_sgeom_box(&P->g, c[0] + al[0] * u + ou[0] * v, c[1] + al[1] * u + ou[1] * v, yaw, hx, hy, z0, z1);
}

static void bus_stop(placer *P, const double c[2], double z, double yaw, const double al[2], const double ou[2])
{
    sn_scenery_obj *o = new_obj(P, SN_SK_BUS_STOP, SN_TAG_STATIC, c[0], c[1], yaw, 2.0, 0.8, z, z + 2.6);
    if (!o)
        return;
    sn_sgeom_begin(&P->g, SN_SC_SHELTER, o->instance, NULL);
    part_box(P, c, al, ou, 0, 0, yaw, 2.0, 0.8, z + 2.45, z + 2.6);             /* roof */
    for (int k = -1; k <= 1; k += 2) {
        part_box(P, c, al, ou, k * 1.94, -0.72, yaw, 0.05, 0.05, z - 0.2, z + 2.45); /* front posts */
        part_box(P, c, al, ou, k * 1.94, 0.72, yaw, 0.05, 0.05, z - 0.2, z + 2.45);  /* back posts */
    }
    part_box(P, c, al, ou, 0, 0.45, yaw, 1.4, 0.2, z + 0.42, z + 0.5); /* the bench inside */
    sn_sgeom_end(&P->g);
    sn_sgeom_begin(&P->g, SN_SC_SHELTER_PANEL, o->instance, NULL);
    part_box(P, c, al, ou, 0, 0.74, yaw, 1.88, 0.03, z + 0.1, z + 2.45);     /* back panel */
    part_box(P, c, al, ou, -1.94, 0.15, yaw, 0.03, 0.5, z + 0.1, z + 2.45); /* a side panel */
    sn_sgeom_end(&P->g);
}

static void bench(placer *P, const double c[2], double z, double yaw, const double al[2], const double ou[2])
{
    sn_scenery_obj *o = new_obj(P, SN_SK_BENCH, SN_TAG_STATIC, c[0], c[1], yaw, 0.9, 0.28, z, z + 0.9);
    if (!o)
        return;
    sn_sgeom_begin(&P->g, SN_SC_BENCH, o->instance, NULL);
    part_box(P, c, al, ou, 0, -0.03, yaw, 0.9, 0.24, z + 0.42, z + 0.5); /* seat */
    part_box(P, c, al, ou, 0, 0.24, yaw, 0.9, 0.03, z + 0.5, z + 0.9);   /* back rest, away from the road */
    for (int k = -1; k <= 1; k += 2)
        part_box(P, c, al, ou, k * 0.75, 0, yaw, 0.04, 0.24, z - 0.1, z + 0.42);
    sn_sgeom_end(&P->g);
}

static void bin(placer *P, const double c[2], double z)
{
    sn_scenery_obj *o = new_obj(P, SN_SK_BIN, SN_TAG_DYNAMIC, c[0], c[1], 0, 0.28, 0.28, z, z + 0.95);
    if (!o)
        return;
    sn_sgeom_begin(&P->g, SN_SC_BIN, o->instance, NULL);
    sn_sgeom_prism(&P->g, c[0], c[1], 0.28, z - 0.1, z + 0.95, 8);
    sn_sgeom_end(&P->g);
}

/* Bus stops, benches and bins just beyond the sidewalks (sides whose outermost lane is a
** sidewalk), never on it: a shelter per STOP_STEP m of road side, benches and bins (Dynamic:
** CARLA's movable props) alternating about every BENCH_STEP m. */
static void pass_furniture(placer *P)
{
    const sn_odr *od = P->m->odr;
    for (uint32_t ri = 0; ri < od->n_roads && !P->oom; ri++) {
        const sn_odr_road *r = &od->roads[ri];
        if (r->junction >= 0 || r->length < 20 || is_motorway(r))
            continue;
        seed_stream(P, 5, ri);
        for (int side = -1; side <= 1 && !P->oom; side += 2) {
            double stop_s = r->length >= 60 && uni(P, 0, 1) < fmin(1.0, r->length * P->o->density / STOP_STEP)
                                ? uni(P, 0.3, 0.7) * r->length : -1;
            for (double s = uni(P, 4, BENCH_STEP); s < r->length - 3 && !P->oom;
                 s += BENCH_STEP / P->o->density * uni(P, 0.7, 1.3)) {
                bool stop = stop_s >= 0 && s >= stop_s;
                if (stop)
                    s = stop_s, stop_s = -1;
                const sn_odr_section *sec = &r->sections[sn_odr_section_at(r, s, false)];
                bool sw;
                double te = edge_t(r, sec, side, s, &sw);
                if (!sw)
                    continue;
                int what = stop ? 0 : uni(P, 0, 1) < 0.5 ? 1 : 2; /* bus stop, bench, bin */
                double hx = what == 0 ? 2.0 : what == 1 ? 0.9 : 0.28, hy = what == 0 ? 0.8 : what == 1 ? 0.28 : 0.28;
                double top = what == 0 ? 2.6 : what == 1 ? 0.9 : 0.95;
                double t = te + side * (FURN_OFFSET + hy), w[3], yaw, al[2], ou[2];
                at(r, s, t, SN_ROAD_KERB, w, &yaw);
                frame_at(r, s, t, side, al, ou);
                if (!claim(P, w[0], w[1], yaw, hx, hy, w[2], w[2] + top, 0.5))
                    continue;
                const double c[2] = {w[0], w[1]};
                if (what == 0)
                    bus_stop(P, c, w[2], yaw, al, ou);
                else if (what == 1)
                    bench(P, c, w[2], yaw, al, ou);
                else
                    bin(P, c, w[2]);
            }
        }
    }
}

/* Walls and fences at the front of plots: on each side of every road outside junctions (not
** motorways), stretches of 8-20 m, about half of them fenced: a wall (Walls, 0.25 m thick,
** 1.0-1.8 m) or a fence (Fences: a panel 1.2-1.6 m on posts every 2.5 m), PLOT_OFFSET m beyond
** the outer edge, where buildings left room. */
static void pass_plots(placer *P)
{
    const sn_odr *od = P->m->odr;
    for (uint32_t ri = 0; ri < od->n_roads && !P->oom; ri++) {
        const sn_odr_road *r = &od->roads[ri];
        if (r->junction >= 0 || r->length < 15 || is_motorway(r))
            continue;
        seed_stream(P, 6, ri);
        for (int side = -1; side <= 1 && !P->oom; side += 2)
            for (double s = uni(P, 1, 6); s < r->length - 4 && !P->oom;) {
                double len = uni(P, 8, 20), gap = uni(P, 2, 8) / P->o->density, off = PLOT_OFFSET + uni(P, 0, 0.8);
                bool fenced = uni(P, 0, 1) < 0.5, wall = uni(P, 0, 1) < 0.45;
                double h = wall ? uni(P, 1.0, 1.8) : uni(P, 1.2, 1.6), hy = wall ? 0.12 : 0.05;
                double sm = s + len / 2;
                s += len + gap;
                if (!fenced || sm + len / 2 > r->length)
                    continue;
                const sn_odr_section *sec = &r->sections[sn_odr_section_at(r, sm, false)];
                double t = edge_t(r, sec, side, sm, NULL) + side * (off + hy), w[3], yaw;
                at(r, sm, t, 0, w, &yaw);
                if (!claim(P, w[0], w[1], yaw, len / 2, hy, w[2], w[2] + h, 0.3))
                    continue;
                sn_scenery_obj *o = new_obj(P, wall ? SN_SK_WALL : SN_SK_FENCE, wall ? SN_TAG_WALL : SN_TAG_FENCE, w[0], w[1],
                                            yaw, len / 2, hy, w[2], w[2] + h);
                if (!o)
                    return;
                if (wall) {
                    sn_sgeom_begin(&P->g, SN_SC_WALL, o->instance, NULL);
                    sn_sgeom_box(&P->g, w[0], w[1], yaw, len / 2, hy, w[2] - 0.5, w[2] + h);
                    sn_sgeom_end(&P->g);
                    continue;
                }
                sn_sgeom_begin(&P->g, SN_SC_FENCE, o->instance, NULL);
                sn_sgeom_box(&P->g, w[0], w[1], yaw, len / 2, 0.02, w[2] + 0.1, w[2] + h - 0.05);
                sn_sgeom_end(&P->g);
                sn_sgeom_begin(&P->g, SN_SC_FENCE_POST, o->instance, NULL);
                int posts = (int)ceil(len / 2.5);
                for (int k = 0; k <= posts; k++) {
                    double u = -len / 2 + 0.05 + (len - 0.1) * k / posts;
                    sn_sgeom_box(&P->g, w[0] + cos(yaw) * u, w[1] + sin(yaw) * u, yaw, 0.04, 0.04, w[2] - 0.3, w[2] + h);
                }
                sn_sgeom_end(&P->g);
            }
    }
}

/* Ground variation: a grid of PATCH_STEP m over the map's box, each point (jittered) 2-50 m from
** a lane on flat ground (its road within 0.5 m of z 0, the ground plane's height) gets a patch of
** grass (Terrain, 70 %) or bare ground (Ground: earth, gravel) of 3-9 m, 3 cm over the ground,
** where nothing stands. Flat: not in physics, no shadow. */
#define PATCH_STEP 14.0
static void pass_patches(placer *P)
{
    static const uint8_t grass[4][3] = {{88, 124, 60}, {104, 136, 66}, {76, 110, 56}, {118, 130, 72}};
    static const uint8_t dirt[3][3] = {{122, 104, 84}, {140, 128, 110}, {106, 92, 76}};
    const sn_map *m = P->m;
    const double step = PATCH_STEP / sqrt(P->o->density);
    if (!(m->hi.x >= m->lo.x) || (m->hi.x - m->lo.x) * (m->hi.y - m->lo.y) > 1e8)
        return;
    seed_stream(P, 7, 0);
    for (double y = m->lo.y - 25; y <= m->hi.y + 25 && !P->oom; y += step)
        for (double x = m->lo.x - 25; x <= m->hi.x + 25 && !P->oom; x += step) {
            double px = x + uni(P, -0.3, 0.3) * step, py = y + uni(P, -0.3, 0.3) * step;
            double hx = uni(P, 1.5, 4.5), hy = uni(P, 1.5, 4.5), yaw0 = uni(P, 0, M_PI);
            bool is_grass = uni(P, 0, 1) < 0.7;
            const uint8_t *rgb = is_grass ? grass[(size_t)uni(P, 0, 4)] : dirt[(size_t)uni(P, 0, 3)];
            sn_map_place pl;
            if (!sn_map_locate(m, sn_v3(px, py, 0), 50, P->blocked, &pl) || pl.outside < 2)
                continue;
            double w[3];
            at(&m->odr->roads[pl.road], pl.s, pl.t, 0, w, NULL);
            if (fabs(w[2]) > 0.5)
                continue;
            const double z = 0.03;
            if (!claim(P, px, py, yaw0, hx, hy, z, z + 0.1, 0.1))
                continue;
            sn_scenery_obj *o = new_obj(P, is_grass ? SN_SK_GRASS : SN_SK_GROUND, is_grass ? SN_TAG_TERRAIN : SN_TAG_GROUND,
                                        px, py, yaw0, hx, hy, z, z);
            if (!o)
                return;
            const double c = cos(yaw0), s = sin(yaw0), lx[4] = {-hx, hx, hx, -hx}, ly[4] = {-hy, -hy, hy, hy};
            double q[4][3];
            for (int k = 0; k < 4; k++) /* counter-clockwise from above */
                q[k][0] = px + lx[k] * c - ly[k] * s, q[k][1] = py + lx[k] * s + ly[k] * c, q[k][2] = z;
            sn_sgeom_begin(&P->g, is_grass ? SN_SC_GRASS : SN_SC_DIRT, o->instance, rgb);
            sn_sgeom_quad(&P->g, q[0], q[1], q[2], q[3]);
            sn_sgeom_end(&P->g);
        }
}

void sn_scenery_free(sn_scenery *s)
{
    if (!s)
        return;
    free(s->objs);
    free(s->skipped);
    memset(s, 0, sizeof *s);
}

sn_status sn_scenery_build(const sn_map *m, const sn_scenery_opts *o, const sn_scenery_line *lines, size_t n_lines,
                           const sn_scenery_avoid *avoid, size_t n_avoid, sn_road_mesh *mesh, sn_scenery *out,
                           sn_error *err)
{
    if (out)
        memset(out, 0, sizeof *out);
    if (!(o->density > 0 && o->density <= 4))
        return sn_fail(err, SN_E_RANGE, "scenery: density %g is not in (0, 4]", o->density);
    placer P;
    memset(&P, 0, sizeof P);
    P.m = m, P.o = o;
    P.blocked = sn_scenery_blocked_types();
    sn_sgeom_init(&P.g, mesh);
    P.out.first_chunk = mesh->n_chunks;
    memset(P.head, 0xFF, sizeof P.head);
    for (size_t i = 0; i < n_avoid && !P.oom; i++)
        add_box(&P, obb_of(avoid[i].cx, avoid[i].cy, avoid[i].yaw, avoid[i].hx, avoid[i].hy));
    if (!P.oom)
        keep_dead_ends_clear(&P);
    if (!P.oom)
        pass_map_objects(&P);
    if (!P.oom)
        pass_signs(&P);
    if (!P.oom)
        pass_stop_lines(&P, lines, n_lines);
    if (!P.oom)
        pass_zebras(&P);
    if (!P.oom)
        pass_pillars(&P);
    if (!P.oom)
        pass_rails(&P);
    if (!P.oom)
        pass_lights(&P);
    if (!P.oom)
        pass_furniture(&P);
    if (!P.oom)
        pass_buildings(&P);
    if (!P.oom)
        pass_fill(&P);
    if (!P.oom)
        pass_plots(&P);
    if (!P.oom)
        pass_trees(&P);
    if (!P.oom)
        pass_patches(&P);
    free(P.boxes);
    free(P.ents);
    if (P.oom) {
        P.g.oom = true;
        sn_sgeom_finish(&P.g);
        free(P.out.objs);
        free(P.out.skipped);
        return sn_fail(err, SN_E_NOMEM, "scenery: out of memory");
    }
    if (!sn_sgeom_finish(&P.g)) {
        free(P.out.objs);
        free(P.out.skipped);
        return sn_fail(err, SN_E_NOMEM, "scenery: out of memory or more than 2^32 vertices");
    }
    if (out)
        *out = P.out;
    else
        free(P.out.objs), free(P.out.skipped);
    return SN_OK;
}
