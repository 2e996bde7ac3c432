/* place_street.c — the passes along roads: dead ends kept clear, street lights, buildings and
** the blocks' fill, trees and bushes, guard rails on motorways, pillars under elevated roads. */
#include "placer.h"

#include <sensim/math.h>

#include "../core/util.h"

#include <math.h>

static const uint8_t facade[][3] = {
    {178, 164, 140}, {150, 96, 78}, {128, 130, 136}, {200, 196, 186}, {160, 140, 110}, {104, 110, 120}, {186, 150, 120},
};
/* ---- passes ---- */

/* Dead ends: a road end that leads nowhere keeps DEAD_END_RUN m in front of it clear, as wide
** as the road and 2 m more: a vehicle at the end of its lane runs on over the ground there. */
#define DEAD_END_RUN 40.0
void sn_pl_keep_dead_ends_clear(placer *P)
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
            double tl = sn_pl_edge_t(r, sec, 1, s, NULL), tr = sn_pl_edge_t(r, sec, -1, s, NULL), w[3], yaw;
            sn_pl_at(r, s, (tl + tr) / 2, 0, w, &yaw);
            double dir = end ? 1 : -1; /* outward along the road */
            double cx = w[0] + dir * cos(yaw) * DEAD_END_RUN / 2, cy = w[1] + dir * sin(yaw) * DEAD_END_RUN / 2;
            if (!sn_pl_add_box(P, sn_pl_obb_of(cx, cy, yaw, DEAD_END_RUN / 2, (tl - tr) / 2 + 1.0)))
                return;
        }
    }
}

/* Street lights along both sides of every road outside junctions, alternating sides. */
void sn_pl_pass_lights(placer *P)
{
    const sn_odr *od = P->m->odr;
    const double step = LIGHT_STEP / P->o->density;
    for (uint32_t ri = 0; ri < od->n_roads && !P->oom; ri++) {
        const sn_odr_road *r = &od->roads[ri];
        if (r->junction >= 0 || r->length < 10)
            continue;
        sn_pl_seed_stream(P, 1, ri);
        for (int side = -1; side <= 1; side += 2)
            for (double s = (side < 0 ? 0.25 : 0.75) * step + sn_pl_uni(P, 0, 3); s < r->length - 2; s += step) {
                const sn_odr_section *sec = &r->sections[sn_odr_section_at(r, s, false)];
                bool sw;
                double t = sn_pl_edge_t(r, sec, side, s, &sw) + side * LIGHT_OFFSET, w[3], yaw;
                sn_pl_at(r, s, t, sw ? SN_ROAD_KERB : 0, w, &yaw);
                if (sn_pl_claim(P, w[0], w[1], 0, 0.15, 0.15, w[2], w[2] + LIGHT_HEIGHT + 0.3, 0.5))
                    sn_pl_street_light(P, w[0], w[1], w[2], yaw + (side > 0 ? M_PI / 2 : -M_PI / 2)); /* the arm over the road */
            }
    }
}

/* Blocks of buildings along both sides: frontages of 8-24 m, set back 7-12 m from the edge. */
void sn_pl_pass_buildings(placer *P)
{
    const sn_odr *od = P->m->odr;
    for (uint32_t ri = 0; ri < od->n_roads && !P->oom; ri++) {
        const sn_odr_road *r = &od->roads[ri];
        if (r->junction >= 0 || r->length < 12)
            continue;
        sn_pl_seed_stream(P, 2, ri);
        for (int side = -1; side <= 1; side += 2) {
            double s = sn_pl_uni(P, 0, 4);
            while (s < r->length - 4 && !P->oom) {
                double len = sn_pl_uni(P, 8, 24), gap = sn_pl_uni(P, 1, 4) / P->o->density, depth = sn_pl_uni(P, 8, 18);
                double setback = BUILD_SETBACK + sn_pl_uni(P, 0, 4);
                double h = sn_pl_uni(P, 0, 1) < 0.12 ? sn_pl_uni(P, 30, 60) : sn_pl_uni(P, 6, 26);
                const uint8_t *rgb = facade[(size_t)sn_pl_uni(P, 0, (double)SN_COUNT(facade))];
                for (int tries = 0; tries < 2; tries++, len *= 0.5) {
                    double sm = s + len / 2;
                    if (sm > r->length)
                        break;
                    const sn_odr_section *sec = &r->sections[sn_odr_section_at(r, sm, false)];
                    double t = sn_pl_edge_t(r, sec, side, sm, NULL) + side * (setback + depth / 2), w[3], yaw;
                    sn_pl_at(r, sm, t, 0, w, &yaw);
                    if (sn_pl_claim(P, w[0], w[1], yaw, len / 2, depth / 2, w[2], w[2] + h, 1.0)) {
                        sn_pl_building(P, w[0], w[1], yaw, len / 2, depth / 2, w[2], h, rgb);
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
void sn_pl_pass_fill(placer *P)
{
    const sn_map *m = P->m;
    const double step = FILL_STEP / sqrt(P->o->density);
    if (!(m->hi.x >= m->lo.x) || (m->hi.x - m->lo.x) * (m->hi.y - m->lo.y) > 1e8)
        return; /* no lanes, or more than 10 km x 10 km: the roads' own rows are enough */
    sn_pl_seed_stream(P, 4, 0);
    for (double y = m->lo.y - FILL_REACH / 2; y <= m->hi.y + FILL_REACH / 2 && !P->oom; y += step)
        for (double x = m->lo.x - FILL_REACH / 2; x <= m->hi.x + FILL_REACH / 2 && !P->oom; x += step) {
            double px = x + sn_pl_uni(P, -0.3, 0.3) * step, py = y + sn_pl_uni(P, -0.3, 0.3) * step;
            double len = sn_pl_uni(P, 10, 24), depth = sn_pl_uni(P, 10, 20);
            double h = sn_pl_uni(P, 0, 1) < 0.12 ? sn_pl_uni(P, 30, 60) : sn_pl_uni(P, 6, 26);
            const uint8_t *rgb = facade[(size_t)sn_pl_uni(P, 0, (double)SN_COUNT(facade))];
            sn_map_place pl;
            if (!sn_map_locate(m, sn_v3(px, py, 0), FILL_REACH, P->blocked, &pl) || pl.outside < 6)
                continue;
            const sn_odr_road *r = &m->odr->roads[pl.road];
            double w[3], yaw;
            sn_pl_at(r, pl.s, pl.t, 0, w, &yaw);
            for (int tries = 0; tries < 3; tries++, len *= 0.7, depth *= 0.7) /* smaller where it does not fit */
                if (sn_pl_claim(P, px, py, yaw, len / 2, depth / 2, w[2], w[2] + h, 1.5)) { /* at its road's height */
                    sn_pl_building(P, px, py, yaw, len / 2, depth / 2, w[2], h, rgb);
                    break;
                }
        }
}

/* Trees (70 %) and bushes in the verges, where nothing else stands. */
void sn_pl_pass_trees(placer *P)
{
    const sn_odr *od = P->m->odr;
    const double step = TREE_STEP / P->o->density;
    for (uint32_t ri = 0; ri < od->n_roads && !P->oom; ri++) {
        const sn_odr_road *r = &od->roads[ri];
        if (r->junction >= 0 || r->length < 8)
            continue;
        sn_pl_seed_stream(P, 3, ri);
        for (int side = -1; side <= 1; side += 2)
            for (double s = sn_pl_uni(P, 2, step); s < r->length - 2; s += step * sn_pl_uni(P, 0.7, 1.3)) {
                const sn_odr_section *sec = &r->sections[sn_odr_section_at(r, s, false)];
                bool is_tree = sn_pl_uni(P, 0, 1) < 0.7;
                double off = is_tree ? TREE_OFFSET + sn_pl_uni(P, 0, 1.5) : 1.2 + sn_pl_uni(P, 0, 1);
                double size = is_tree ? sn_pl_uni(P, 1.4, off - 0.3) : sn_pl_uni(P, 0.4, 0.8), trunk = sn_pl_uni(P, 2.3, 3.6);
                double t = sn_pl_edge_t(r, sec, side, s, NULL) + side * off, w[3];
                sn_pl_at(r, s, t, 0, w, NULL);
                if (is_tree && sn_pl_claim(P, w[0], w[1], 0, 0.2, 0.2, w[2], w[2] + trunk + 2 * fmin(size, 2.4), size))
                    sn_pl_tree(P, w[0], w[1], w[2], trunk, fmin(size, 2.4));
                else if (!is_tree && sn_pl_claim(P, w[0], w[1], 0, size, size, w[2], w[2] + size, 0.3))
                    sn_pl_bush(P, w[0], w[1], w[2], size);
            }
    }
}

/* Guard rails along both outer edges of motorway roads: pieces of RAIL_PIECE m, each a chain
** of 4 m rails on posts, kept off the lanes piece by piece. */
void sn_pl_pass_rails(placer *P)
{
    const sn_odr *od = P->m->odr;
    for (uint32_t ri = 0; ri < od->n_roads && !P->oom; ri++) {
        const sn_odr_road *r = &od->roads[ri];
        if (!sn_pl_is_motorway(r) || r->junction >= 0)
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
                    double t = sn_pl_edge_t(r, sec, side, sm, NULL) + side * 0.5, w[3], yaw;
                    sn_pl_at(r, sm, t, 0, w, &yaw);
                    if (!sn_pl_claim(P, w[0], w[1], yaw, len / 2, 0.08, w[2], w[2] + 0.8, 0.0))
                        continue;
                    if (!o) {
                        if (!(o = sn_pl_new_obj(P, SN_SK_GUARD_RAIL, SN_TAG_GUARD_RAIL, w[0], w[1], yaw, len / 2, 0.08, w[2],
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
void sn_pl_pass_pillars(placer *P)
{
    const sn_odr *od = P->m->odr;
    for (uint32_t ri = 0; ri < od->n_roads && !P->oom; ri++) {
        const sn_odr_road *r = &od->roads[ri];
        for (double s = PILLAR_STEP / 2; s < r->length; s += PILLAR_STEP) {
            const sn_odr_section *sec = &r->sections[sn_odr_section_at(r, s, false)];
            double tl = sn_pl_edge_t(r, sec, 1, s, NULL), tr = sn_pl_edge_t(r, sec, -1, s, NULL), w[3], yaw;
            sn_pl_at(r, s, (tl + tr) / 2, 0, w, &yaw);
            if (w[2] < PILLAR_MIN_Z)
                continue;
            double across = fmax((tl - tr) / 2 - 0.3, 0.6);
            if (!sn_pl_claim(P, w[0], w[1], yaw, 0.6, 0.6, 0.0, 0.0, 0.5))
                continue;
            sn_scenery_obj *o = sn_pl_new_obj(P, SN_SK_PILLAR, SN_TAG_BRIDGE, w[0], w[1], yaw, 0.6, 0.6, -0.5, w[2] - 0.3);
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
