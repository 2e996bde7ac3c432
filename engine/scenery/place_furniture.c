/* place_furniture.c — street furniture (bus stops, benches, bins), plot walls and fences, ground
** patches. */
#include "placer.h"

#include <sensim/math.h>

#include <math.h>

/* ---- street furniture, plot walls and fences, ground patches ---- */

#define STOP_STEP 150.0   /* m of road side per bus stop (one per side of a road at least 60 m long) */
#define BENCH_STEP 28.0   /* m between benches or bins along a sidewalk */
#define FURN_OFFSET 0.45  /* m beyond the outer edge to a piece's near face (the margin and a little) */
#define PLOT_OFFSET 3.4   /* m beyond the edge to a plot's wall or fence, plus up to 0.8 */

/* Unit vectors of road r at s: along it (world) and outward from side `side` (world). */
static void frame_at(const sn_odr_road *r, double s, double t, int side, double along[2], double out[2])
{
    double a[3], b[3], yaw;
    sn_pl_at(r, s, t, 0, a, &yaw);
    sn_pl_at(r, s, t + side, 0, b, NULL);
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
    sn_scenery_obj *o = sn_pl_new_obj(P, SN_SK_BUS_STOP, SN_TAG_STATIC, c[0], c[1], yaw, 2.0, 0.8, z, z + 2.6);
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
    sn_scenery_obj *o = sn_pl_new_obj(P, SN_SK_BENCH, SN_TAG_STATIC, c[0], c[1], yaw, 0.9, 0.28, z, z + 0.9);
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
    sn_scenery_obj *o = sn_pl_new_obj(P, SN_SK_BIN, SN_TAG_DYNAMIC, c[0], c[1], 0, 0.28, 0.28, z, z + 0.95);
    if (!o)
        return;
    sn_sgeom_begin(&P->g, SN_SC_BIN, o->instance, NULL);
    sn_sgeom_prism(&P->g, c[0], c[1], 0.28, z - 0.1, z + 0.95, 8);
    sn_sgeom_end(&P->g);
}

/* Bus stops, benches and bins just beyond the sidewalks (sides whose outermost lane is a
** sidewalk), never on it: a shelter per STOP_STEP m of road side, benches and bins (Dynamic:
** CARLA's movable props) alternating about every BENCH_STEP m. */
void sn_pl_pass_furniture(placer *P)
{
    const sn_odr *od = P->m->odr;
    for (uint32_t ri = 0; ri < od->n_roads && !P->oom; ri++) {
        const sn_odr_road *r = &od->roads[ri];
        if (r->junction >= 0 || r->length < 20 || sn_pl_is_motorway(r))
            continue;
        sn_pl_seed_stream(P, 5, ri);
        for (int side = -1; side <= 1 && !P->oom; side += 2) {
            double stop_s = r->length >= 60 && sn_pl_uni(P, 0, 1) < fmin(1.0, r->length * P->o->density / STOP_STEP)
                                ? sn_pl_uni(P, 0.3, 0.7) * r->length : -1;
            for (double s = sn_pl_uni(P, 4, BENCH_STEP); s < r->length - 3 && !P->oom;
                 s += BENCH_STEP / P->o->density * sn_pl_uni(P, 0.7, 1.3)) {
                bool stop = stop_s >= 0 && s >= stop_s;
                if (stop)
                    s = stop_s, stop_s = -1;
                const sn_odr_section *sec = &r->sections[sn_odr_section_at(r, s, false)];
                bool sw;
                double te = sn_pl_edge_t(r, sec, side, s, &sw);
                if (!sw)
                    continue;
                int what = stop ? 0 : sn_pl_uni(P, 0, 1) < 0.5 ? 1 : 2; /* bus stop, bench, bin */
                double hx = what == 0 ? 2.0 : what == 1 ? 0.9 : 0.28, hy = what == 0 ? 0.8 : what == 1 ? 0.28 : 0.28;
                double top = what == 0 ? 2.6 : what == 1 ? 0.9 : 0.95;
                double t = te + side * (FURN_OFFSET + hy), w[3], yaw, al[2], ou[2];
                sn_pl_at(r, s, t, SN_ROAD_KERB, w, &yaw);
                frame_at(r, s, t, side, al, ou);
                if (!sn_pl_claim(P, w[0], w[1], yaw, hx, hy, w[2], w[2] + top, 0.5))
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
void sn_pl_pass_plots(placer *P)
{
    const sn_odr *od = P->m->odr;
    for (uint32_t ri = 0; ri < od->n_roads && !P->oom; ri++) {
        const sn_odr_road *r = &od->roads[ri];
        if (r->junction >= 0 || r->length < 15 || sn_pl_is_motorway(r))
            continue;
        sn_pl_seed_stream(P, 6, ri);
        for (int side = -1; side <= 1 && !P->oom; side += 2)
            for (double s = sn_pl_uni(P, 1, 6); s < r->length - 4 && !P->oom;) {
                double len = sn_pl_uni(P, 8, 20), gap = sn_pl_uni(P, 2, 8) / P->o->density, off = PLOT_OFFSET + sn_pl_uni(P, 0, 0.8);
                bool fenced = sn_pl_uni(P, 0, 1) < 0.5, wall = sn_pl_uni(P, 0, 1) < 0.45;
                double h = wall ? sn_pl_uni(P, 1.0, 1.8) : sn_pl_uni(P, 1.2, 1.6), hy = wall ? 0.12 : 0.05;
                double sm = s + len / 2;
                s += len + gap;
                if (!fenced || sm + len / 2 > r->length)
                    continue;
                const sn_odr_section *sec = &r->sections[sn_odr_section_at(r, sm, false)];
                double t = sn_pl_edge_t(r, sec, side, sm, NULL) + side * (off + hy), w[3], yaw;
                sn_pl_at(r, sm, t, 0, w, &yaw);
                if (!sn_pl_claim(P, w[0], w[1], yaw, len / 2, hy, w[2], w[2] + h, 0.3))
                    continue;
                sn_scenery_obj *o = sn_pl_new_obj(P, wall ? SN_SK_WALL : SN_SK_FENCE, wall ? SN_TAG_WALL : SN_TAG_FENCE, w[0], w[1],
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
void sn_pl_pass_patches(placer *P)
{
    static const uint8_t grass[4][3] = {{88, 124, 60}, {104, 136, 66}, {76, 110, 56}, {118, 130, 72}};
    static const uint8_t dirt[3][3] = {{122, 104, 84}, {140, 128, 110}, {106, 92, 76}};
    const sn_map *m = P->m;
    const double step = PATCH_STEP / sqrt(P->o->density);
    if (!(m->hi.x >= m->lo.x) || (m->hi.x - m->lo.x) * (m->hi.y - m->lo.y) > 1e8)
        return;
    sn_pl_seed_stream(P, 7, 0);
    for (double y = m->lo.y - 25; y <= m->hi.y + 25 && !P->oom; y += step)
        for (double x = m->lo.x - 25; x <= m->hi.x + 25 && !P->oom; x += step) {
            double px = x + sn_pl_uni(P, -0.3, 0.3) * step, py = y + sn_pl_uni(P, -0.3, 0.3) * step;
            double hx = sn_pl_uni(P, 1.5, 4.5), hy = sn_pl_uni(P, 1.5, 4.5), yaw0 = sn_pl_uni(P, 0, M_PI);
            bool is_grass = sn_pl_uni(P, 0, 1) < 0.7;
            const uint8_t *rgb = is_grass ? grass[(size_t)sn_pl_uni(P, 0, 4)] : dirt[(size_t)sn_pl_uni(P, 0, 3)];
            sn_map_place pl;
            if (!sn_map_locate(m, sn_v3(px, py, 0), 50, P->blocked, &pl) || pl.outside < 2)
                continue;
            double w[3];
            sn_pl_at(&m->odr->roads[pl.road], pl.s, pl.t, 0, w, NULL);
            if (fabs(w[2]) > 0.5)
                continue;
            const double z = 0.03;
            if (!sn_pl_claim(P, px, py, yaw0, hx, hy, z, z + 0.1, 0.1))
                continue;
            sn_scenery_obj *o = sn_pl_new_obj(P, is_grass ? SN_SK_GRASS : SN_SK_GROUND, is_grass ? SN_TAG_TERRAIN : SN_TAG_GROUND,
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
