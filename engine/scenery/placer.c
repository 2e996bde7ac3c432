/* placer.c — the placer scenery's passes share: footprints in a hashed grid and the claim on
** one (off every blocked lane and every footprint before it), objects, random streams, and the
** pieces (street light, tree, bush, building) several passes place. */
#include "placer.h"

#include <sensim/math.h>

#include "../core/rng.h"
#include "../core/util.h"
#include "../map/lanemap.h"

#include <math.h>
#include <string.h>

obb sn_pl_obb_of(double cx, double cy, double yaw, double hx, double hy)
{
    return (obb){cx, cy, cos(yaw), sin(yaw), hx, hy, hypot(hx, hy)};
}

static uint32_t bucket(int64_t i, int64_t j)
{
    return (uint32_t)(((uint64_t)i * 0x9E3779B97F4A7C15ull ^ (uint64_t)j * 0xC2B2AE3D27D4EB4Full) >> 51) & (GRID_BUCKETS - 1);
}

/* Records box b (a placed footprint or one to avoid); false without memory. */
bool sn_pl_add_box(placer *P, obb b)
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
bool sn_pl_footprint_free_mg(const placer *P, const obb *b, double z, double top, double mg)
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
    return sn_pl_footprint_free_mg(P, b, z, top, SN_SCENERY_MARGIN);
}

/* Checks a solid footprint from height z to top against lanes and what was placed; on
** success records it. */
bool sn_pl_claim(placer *P, double cx, double cy, double yaw, double hx, double hy, double z, double top, double gap)
{
    obb b = sn_pl_obb_of(cx, cy, yaw, hx, hy);
    if (hits_placed(P, &b, gap) || !footprint_free(P, &b, z, top))
        return false;
    return sn_pl_add_box(P, b);
}

/* A new object record; its instance id is the next one. NULL when out of memory. */
sn_scenery_obj *sn_pl_new_obj(placer *P, int kind, uint8_t tag, double cx, double cy, double yaw, double hx,
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

void sn_pl_seed_stream(placer *P, uint64_t pass, uint32_t road)
{
    sn_rng_seed(&P->rng, P->o->seed * 0x9E3779B97F4A7C15ull ^ (pass << 48) ^ ((uint64_t)road * 0xD1B54A32D192ED03ull));
}

/* World point and yaw at (s, t) of road r, h up. */
void sn_pl_at(const sn_odr_road *r, double s, double t, double h, double w[3], double *yaw)
{
    double p[3];
    sn_odr_point(r, s, t, h, p);
    w[0] = p[0], w[1] = -p[1], w[2] = p[2];
    if (yaw)
        *yaw = -sn_odr_ref_line(r, s).hdg;
}

/* t of a side's outer edge (side +1 left, -1 right) at s, and whether that lane is a sidewalk. */
double sn_pl_edge_t(const sn_odr_road *r, const sn_odr_section *sec, int side, double s, bool *sidewalk)
{
    int n = side > 0 ? (int)sec->n_left : (int)sec->n_right;
    const sn_odr_lane *l = n ? sn_odr_lane_of(sec, side * n) : NULL;
    if (sidewalk)
        *sidewalk = l && l->type == SN_LANE_SIDEWALK;
    return sn_odr_lane_border(r, sec, side * n, s);
}

/* ---- the rules: what blocks a footprint, which roads are motorways ---- */

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

/* A road of type motorway (guard rails, no furniture). */
bool sn_pl_is_motorway(const sn_odr_road *r)
{
    for (uint32_t i = 0; i < r->n_types; i++)
        if (sn_streq_nocase(r->types[i].type, "motorway"))
            return true;
    return false;
}

/* ---- pieces ---- */

void sn_pl_street_light(placer *P, double x, double y, double z, double yaw_to_road)
{
    sn_scenery_obj *o = sn_pl_new_obj(P, SN_SK_STREET_LIGHT, SN_TAG_POLE, x, y, 0, 0.15, 0.15, z, z + LIGHT_HEIGHT);
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

void sn_pl_tree(placer *P, double x, double y, double z, double trunk_h, double crown_r)
{
    sn_scenery_obj *o = sn_pl_new_obj(P, SN_SK_TREE, SN_TAG_VEGETATION, x, y, 0, 0.2, 0.2, z, z + trunk_h + 2.2 * crown_r);
    if (!o)
        return;
    sn_sgeom_begin(&P->g, SN_SC_TRUNK, o->instance, NULL);
    sn_sgeom_prism(&P->g, x, y, 0.18, z - 0.3, z + trunk_h + 0.5, 6);
    sn_sgeom_end(&P->g);
    uint8_t rgb[3];
    memcpy(rgb, sn_scenery_categories[SN_SC_CROWN].rgb, 3);
    double v = sn_pl_uni(P, -1, 1);
    rgb[0] = (uint8_t)(rgb[0] + 14 * v), rgb[1] = (uint8_t)(rgb[1] + 20 * v), rgb[2] = (uint8_t)(rgb[2] + 10 * v);
    sn_sgeom_begin(&P->g, SN_SC_CROWN, o->instance, rgb);
    sn_sgeom_ellipsoid(&P->g, x, y, z + trunk_h + crown_r, crown_r, 1.1 * crown_r);
    sn_sgeom_end(&P->g);
}

void sn_pl_bush(placer *P, double x, double y, double z, double r)
{
    sn_scenery_obj *o = sn_pl_new_obj(P, SN_SK_BUSH, SN_TAG_VEGETATION, x, y, 0, r, r, z, z + 1.4 * r);
    if (!o)
        return;
    sn_sgeom_begin(&P->g, SN_SC_BUSH, o->instance, NULL);
    sn_sgeom_ellipsoid(&P->g, x, y, z + 0.6 * r, r, 0.8 * r);
    sn_sgeom_end(&P->g);
}

/* A building: a box with bands of windows on its four facades, one per storey. */
void sn_pl_building(placer *P, double cx, double cy, double yaw, double hx, double hy, double z, double h,
                     const uint8_t rgb[3])
{
    sn_scenery_obj *o = sn_pl_new_obj(P, SN_SK_BUILDING, SN_TAG_BUILDING, cx, cy, yaw, hx, hy, z, z + h);
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
