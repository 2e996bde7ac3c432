/* The map's roads as triangles (engine/map/road_mesh.c) against the map's own geometry:
** every lane border within 2 cm of the mesh edge that stands for it (lines, a spiral, an arc,
** a hill and a widening lane), normals up, kerb faces toward the road, tags per lane type,
** dashes where CARLA paints them, the same bytes twice, an empty map; then the mesh in a world:
** rays (the Embree index and ODE's ray) hit it with actor 0 and the tag of what lies there. */
#include "../../engine/map/road_mesh.h"
#include "../../engine/query/rayscene.h"
#include "../check.h"
#include "../roads_map.h"

#include <stdlib.h>

static sn_map *open_map(const char *xml)
{
    sn_error err = {0};
    sn_map *m = sn_map_open_memory(xml, strlen(xml), "roads_test.xodr", &err);
    CHECK(m != NULL, "map: %s", err.msg);
    return m;
}

static sn_road_mesh *build(const sn_map *m)
{
    sn_error err = {0};
    sn_road_mesh *rm = NULL;
    CHECK(sn_road_mesh_build(m, &rm, &err) == SN_OK, "build: %s", err.msg);
    return rm;
}

static void world_point(const sn_odr_road *r, double s, double t, double h, double out[3])
{
    double p[3];
    sn_odr_point(r, s, t, h, p);
    sn_vec3 w = sn_map_world(p);
    out[0] = w.x, out[1] = w.y, out[2] = w.z;
}

static double seg_dist(const double p[3], const double a[3], const double b[3])
{
    double ab[3], ap[3], l2 = 0, d = 0;
    for (int i = 0; i < 3; i++)
        ab[i] = b[i] - a[i], ap[i] = p[i] - a[i], l2 += ab[i] * ab[i], d += ab[i] * ap[i];
    double f = l2 > 0 ? fmin(1, fmax(0, d / l2)) : 0, e = 0;
    for (int i = 0; i < 3; i++)
        e += (a[i] + f * ab[i] - p[i]) * (a[i] + f * ab[i] - p[i]);
    return sqrt(e);
}

typedef struct bv {
    double s, p[3];
} bv;

static int bv_cmp(const void *a, const void *b)
{
    const bv *x = a, *y = b;
    return (x->s > y->s) - (x->s < y->s);
}

/* The chord rule, checked from outside: the mesh's vertices on each lane border (found by
** projecting every surface vertex on the map) form a polyline; the true border, sampled every
** 5 cm, must stay within SN_ROAD_TOL of it. */
static void chord_tolerance(const sn_map *m, const sn_road_mesh *rm)
{
    const sn_odr *odr = m->odr;
    bv *on = malloc(rm->n_v * sizeof *on);
    double worst_all = 0;
    for (uint32_t ri = 0; ri < odr->n_roads; ri++) {
        const sn_odr_road *r = &odr->roads[ri];
        for (uint32_t si = 0; si < r->n_sections; si++) {
            const sn_odr_section *sec = &r->sections[si];
            for (int id = -(int)sec->n_right; id <= (int)sec->n_left; id++) {
                /* the outermost borders are the sidewalks' outer edges, raised */
                bool outer = id == -(int)sec->n_right || id == (int)sec->n_left;
                double h = outer ? SN_ROAD_KERB : 0;
                size_t n = 0;
                for (uint32_t c = 0; c < rm->n_chunks; c++) {
                    const sn_road_chunk *k = &rm->chunks[c];
                    if (k->road != (int32_t)ri || k->part != SN_ROAD_SURFACE)
                        continue;
                    for (uint32_t j = 0; j < k->v_count; j++) {
                        const double *v = rm->v[k->v_first + j];
                        sn_map_place pl;
                        if (!sn_map_locate(m, sn_v3(v[0], v[1], v[2]), 1.0, 0, &pl) || pl.road != (int32_t)ri)
                            continue;
                        if (pl.s < sec->s - 1e-6 || pl.s > sec->s_end + 1e-6 || fabs(pl.dz - h) > 1e-5 ||
                            fabs(sn_odr_lane_border(r, sec, id, pl.s) - pl.t) > 1e-5)
                            continue;
                        on[n].s = pl.s;
                        memcpy(on[n].p, v, sizeof on[n].p);
                        n++;
                    }
                }
                qsort(on, n, sizeof *on, bv_cmp);
                CHECK(n >= 2 && fabs(on[0].s - sec->s) < 1e-5 && fabs(on[n - 1].s - sec->s_end) < 1e-5,
                      "road %d section %u border %d: mesh vertices from s %.4f to %.4f (%zu of them), section %g..%g",
                      r->id, si, id, n ? on[0].s : NAN, n ? on[n - 1].s : NAN, n, sec->s, sec->s_end);
                if (n < 2)
                    continue;
                double worst = 0, worst_s = 0;
                size_t k = 0;
                for (double s = sec->s; s <= sec->s_end; s += 0.05) {
                    while (k + 2 < n && on[k + 1].s < s)
                        k++;
                    double p[3];
                    world_point(r, s, sn_odr_lane_border(r, sec, id, s), h, p);
                    double d = seg_dist(p, on[k].p, on[k + 1].p);
                    if (k + 2 < n)
                        d = fmin(d, seg_dist(p, on[k + 1].p, on[k + 2].p)); /* s on a vertex */
                    if (d > worst)
                        worst = d, worst_s = s;
                }
                CHECK(worst <= SN_ROAD_TOL, "road %d section %u border %d: %.4f m from the mesh at s %.2f", r->id, si,
                      id, worst, worst_s);
                worst_all = fmax(worst_all, worst);
            }
        }
    }
    fprintf(stderr, "chord: largest distance of a true border from the mesh %.4f m (limit %.2f)\n", worst_all,
            SN_ROAD_TOL);
    free(on);
}

static void tri_normal(const sn_road_mesh *rm, const sn_road_chunk *k, uint32_t j, double n[3], double c[3])
{
    const double *a = rm->v[k->v_first + rm->t[k->first + j][0]], *b = rm->v[k->v_first + rm->t[k->first + j][1]],
                 *d = rm->v[k->v_first + rm->t[k->first + j][2]];
    double e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, e2[3] = {d[0] - a[0], d[1] - a[1], d[2] - a[2]};
    n[0] = e1[1] * e2[2] - e1[2] * e2[1], n[1] = e1[2] * e2[0] - e1[0] * e2[2], n[2] = e1[0] * e2[1] - e1[1] * e2[0];
    double l = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    for (int i = 0; i < 3; i++)
        n[i] /= l, c[i] = (a[i] + b[i] + d[i]) / 3;
}

static void normals_and_tags(const sn_map *m, const sn_road_mesh *rm, bool test_map)
{
    size_t bad_up = 0, bad_kerb = 0, kerbs = 0, per_tag[SN_TAG_COUNT] = {0};
    double min_nz = 1;
    for (uint32_t c = 0; c < rm->n_chunks; c++) {
        const sn_road_chunk *k = &rm->chunks[c];
        CHECK(k->tag == sn_road_categories[k->category].tag && k->part == sn_road_categories[k->category].part,
              "chunk %u carries its category", c);
        for (uint32_t j = 0; j < k->count; j++) {
            double n[3], ct[3];
            tri_normal(rm, k, j, n, ct);
            per_tag[k->tag]++;
            if (k->part != SN_ROAD_KERB_FACE) {
                bad_up += !(n[2] > (test_map ? 0.99 : 0)); /* this map: a 5% hill at most, 0.9988 */
                min_nz = fmin(min_nz, n[2]);
                continue;
            }
            kerbs++;
            if (!test_map) { /* other maps: vertical is all we know */
                bad_kerb += !(fabs(n[2]) < 1e-6);
                continue;
            }
            /* a kerb face is vertical and looks at a lane that is not a sidewalk */
            sn_map_place pl;
            sn_vec3 out = sn_v3(ct[0] + 0.3 * n[0], ct[1] + 0.3 * n[1], ct[2]);
            bool ok = fabs(n[2]) < 1e-6 && sn_map_locate(m, out, 1.0, 0, &pl);
            if (ok) {
                const sn_odr_road *r = &m->odr->roads[pl.road];
                const sn_odr_lane *l = sn_odr_lane_of(&r->sections[pl.section], pl.lane);
                ok = l && l->type == SN_LANE_DRIVING;
            }
            bad_kerb += !ok;
        }
    }
    CHECK(bad_up == 0, "%zu surface or paint triangles do not face up", bad_up);
    CHECK((kerbs > 0 || !test_map) && bad_kerb == 0, "%zu of %zu kerb triangles are not vertical or do not face a driving lane",
          bad_kerb, kerbs);
    if (!test_map) {
        fprintf(stderr, "%u triangles, %u vertices, %u chunks, %zu kerb triangles, the steepest surface's normal z %.3f\n",
                rm->n_t, rm->n_v, rm->n_chunks, kerbs, min_nz);
        return;
    }
    CHECK(per_tag[SN_TAG_ROADS] && per_tag[SN_TAG_SIDEWALK] && per_tag[SN_TAG_ROAD_LINE],
          "roads %zu, sidewalk %zu, road lines %zu triangles", per_tag[SN_TAG_ROADS], per_tag[SN_TAG_SIDEWALK],
          per_tag[SN_TAG_ROAD_LINE]);
    CHECK(per_tag[SN_TAG_TERRAIN] == 0, "no terrain lanes in this map: %zu", per_tag[SN_TAG_TERRAIN]);
    /* chunk boxes are local: at most one piece of one section */
    for (uint32_t c = 0; c < rm->n_chunks; c++) {
        const sn_road_chunk *k = &rm->chunks[c];
        double dx = k->hi[0] - k->lo[0], dy = k->hi[1] - k->lo[1];
        CHECK(hypot(dx, dy) < SN_ROAD_PIECE + 25, "chunk %u spans %.1f x %.1f m", c, dx, dy);
    }
    fprintf(stderr, "test map: %u triangles, %u vertices, %u chunks\n", rm->n_t, rm->n_v, rm->n_chunks);
}

static void lane_tags(void)
{
    CHECK(sn_road_lane_tag(SN_LANE_DRIVING) == SN_TAG_ROADS, "driving");
    CHECK(sn_road_lane_tag(SN_LANE_PARKING) == SN_TAG_ROADS, "parking");
    CHECK(sn_road_lane_tag(SN_LANE_BIKING) == SN_TAG_ROADS, "biking");
    CHECK(sn_road_lane_tag(SN_LANE_ONRAMP) == SN_TAG_ROADS, "on ramp");
    CHECK(sn_road_lane_tag(SN_LANE_SIDEWALK) == SN_TAG_SIDEWALK, "sidewalk");
    CHECK(sn_road_lane_tag(SN_LANE_SHOULDER) == SN_TAG_TERRAIN, "shoulder");
    CHECK(sn_road_lane_tag(SN_LANE_MEDIAN) == SN_TAG_TERRAIN, "median");
    CHECK(sn_road_lane_tag(SN_LANE_NONE) == SN_TAG_TERRAIN, "none");
    CHECK(sn_road_lane_tag(SN_LANE_RAIL) == SN_TAG_RAIL_TRACK, "rail");
}

static bool same_mesh(const sn_road_mesh *a, const sn_road_mesh *b)
{
    return a->n_v == b->n_v && a->n_t == b->n_t && a->n_chunks == b->n_chunks &&
           !memcmp(a->v, b->v, a->n_v * sizeof *a->v) && !memcmp(a->t, b->t, a->n_t * sizeof *a->t) &&
           !memcmp(a->chunks, b->chunks, a->n_chunks * sizeof *a->chunks);
}

/* One ray straight down from 20 m above (x, y): through the Embree index and through ODE. */
static sn_ray_result down(sn_rayscene *rs, sn_world *w, double x, double y)
{
    sn_ray_query q = SN_RAY_QUERY_INIT;
    sn_ray r = {sn_v3(x, y, 20), sn_v3(0, 0, -1), 100};
    sn_ray_result res;
    sn_error err = {0};
    CHECK(sn_rays_trace(rs, w, &q, &r, 1, &res, &err) == SN_OK, "trace: %s", err.msg);
    return res;
}

static void expect(sn_rayscene *rs, sn_world *w, double x, double y, uint8_t tag, double z, const char *what)
{
    sn_ray_result r = down(rs, w, x, y);
    CHECK(r.n_hits == 1 && r.hit.semantic_tag == tag && r.hit.actor_id == 0 && fabs(r.hit.point.z - z) <= 0.01 &&
              r.hit.normal.z > 0.99,
          "%s at (%g, %g): %u hits, tag %u (want %u), actor %u, z %.4f (want %.4f)", what, x, y, r.n_hits,
          r.hit.semantic_tag, tag, r.hit.actor_id, r.hit.point.z, z);
}

static void rays(const sn_map *m)
{
    sn_error err = {0};
    sn_world w;
    CHECK(sn_world_init(&w, 1, &err) == SN_OK, "world: %s", err.msg);
    CHECK(sn_world_set_roads(&w, build(m), &err) == SN_OK, "roads: %s", err.msg);
    sn_rayscene *rs = sn_rayscene_create(2, &err);
    CHECK(rs != NULL, "rayscene: %s", err.msg);
    /* road 1: right lanes at world y > 0 */
    expect(rs, &w, 30, 1.75, SN_TAG_ROADS, 0, "lane -1");
    expect(rs, &w, 30, -5.25, SN_TAG_ROADS, 0, "lane 2");
    expect(rs, &w, 30, 8, SN_TAG_SIDEWALK, SN_ROAD_KERB, "sidewalk -3");
    expect(rs, &w, 30, -8, SN_TAG_SIDEWALK, SN_ROAD_KERB, "sidewalk 3");
    expect(rs, &w, 30, -0.12, SN_TAG_ROAD_LINE, SN_ROAD_MARK_LIFT, "double yellow, left line");
    expect(rs, &w, 30, 0.12, SN_TAG_ROAD_LINE, SN_ROAD_MARK_LIFT, "double yellow, right line");
    expect(rs, &w, 30, 0, SN_TAG_ROADS, 0, "between the yellow lines");
    /* lane -1's broken line at t = -3.5: paint on [9k, 9k + 3) */
    expect(rs, &w, 37, 3.5, SN_TAG_ROAD_LINE, SN_ROAD_MARK_LIFT, "a dash");
    expect(rs, &w, 1.5, 3.5, SN_TAG_ROAD_LINE, SN_ROAD_MARK_LIFT, "the first dash");
    expect(rs, &w, 34, 3.5, SN_TAG_ROADS, 0, "a gap between dashes");
    expect(rs, &w, 120, 1.75, SN_TAG_ROADS, roads_map_z(120), "lane -1 on the hill");
    expect(rs, &w, 120, 8.5, SN_TAG_SIDEWALK, roads_map_z(120) + SN_ROAD_KERB, "sidewalk on the hill");
    expect(rs, &w, 70, 1.75, SN_TAG_ROADS, roads_map_z(70), "lane -1 in the hill's foot");
    /* the widened lane -2 (5 m from s = 130): its sidewalk starts at t = -8.5 */
    expect(rs, &w, 150, 8.0, SN_TAG_ROADS, roads_map_z(150), "widened lane -2");
    expect(rs, &w, 150, 9.5, SN_TAG_SIDEWALK, roads_map_z(150) + SN_ROAD_KERB, "sidewalk past the widened lane");
    sn_ray_result off = down(rs, &w, 30, 9.5);
    CHECK(off.n_hits == 0, "beyond the sidewalk: nothing (%u hits, tag %u)", off.n_hits, off.hit.semantic_tag);
    /* road 2: lane -1 in the arc. Its centre at s = 70: world point of (70, -1.75) */
    double p[3];
    world_point(&m->odr->roads[1], 70, -1.75, 0, p);
    expect(rs, &w, p[0], p[1], SN_TAG_ROADS, 0, "road 2 in the arc");
    /* physics: ODE's ray meets the trimeshes: road and kerb, never paint */
    sn_ray_hit h;
    CHECK(sn_world_ray_cast(&w, sn_v3(30, 1.75, 5), sn_v3(0, 0, -1), 50, 0, &h) && h.semantic_tag == SN_TAG_ROADS &&
              fabs(h.point.z) < 1e-6 && h.actor_id == 0,
          "ODE ray on lane -1: tag %u z %.6f", h.semantic_tag, h.point.z);
    CHECK(sn_world_ray_cast(&w, sn_v3(37, 3.5, 5), sn_v3(0, 0, -1), 50, 0, &h) && h.semantic_tag == SN_TAG_ROADS &&
              fabs(h.point.z) < 1e-6,
          "ODE ray on a dash meets the road under it: tag %u z %.6f", h.semantic_tag, h.point.z);
    CHECK(sn_world_ray_cast(&w, sn_v3(30, 8, 5), sn_v3(0, 0, -1), 50, 0, &h) && h.semantic_tag == SN_TAG_SIDEWALK &&
              fabs(h.point.z - SN_ROAD_KERB) < 1e-6,
          "ODE ray on the sidewalk: tag %u z %.6f", h.semantic_tag, h.point.z);
    CHECK(sn_world_ray_cast(&w, sn_v3(30, 4, 0.1), sn_v3(0, 1, 0), 50, 0, &h) && fabs(h.point.y - 7) < 1e-6 &&
              h.normal.y < -0.99,
          "ODE ray across lane -2 meets the kerb face at y = 7: y %.6f normal y %.3f", h.point.y, h.normal.y);
    /* overlaps list the map once */
    uint32_t ids[8], n = 0;
    CHECK(sn_overlap_sphere(rs, &w, NULL, sn_v3(30, 3.5, 0), 30, ids, 8, &n, &err) == SN_OK && n == 1 && ids[0] == 0,
          "overlap over many chunks: %u ids", n);
    sn_rayscene_destroy(rs);
    sn_world_free(&w);
}

static void empty_map(void)
{
    sn_map *m = open_map(roads_map_empty_xml);
    if (!m)
        return;
    sn_road_mesh *rm = build(m);
    CHECK(rm && rm->n_t == 0 && rm->n_chunks == 0, "an empty map has no triangles");
    sn_error err = {0};
    sn_world w;
    CHECK(sn_world_init(&w, 1, &err) == SN_OK, "world: %s", err.msg);
    CHECK(sn_world_set_roads(&w, rm, &err) == SN_OK, "empty roads: %s", err.msg);
    sn_rayscene *rs = sn_rayscene_create(1, &err);
    sn_ray_result r = down(rs, &w, 0, 0);
    CHECK(r.n_hits == 0, "nothing to hit");
    sn_rayscene_destroy(rs);
    sn_world_free(&w);
    sn_map_close(m);
}

/* Any other maps named on the command line (CARLA's towns, by hand): normals up, kerbs
** vertical. (The chord check above assumes this test map's layout: every border drawn, the
** outermost lanes raised, no overlapping roads.) */
static void other_map(const char *path)
{
    sn_error err = {0};
    sn_map *m = sn_map_open(path, &err);
    CHECK(m != NULL, "%s: %s", path, err.msg);
    if (!m)
        return;
    fprintf(stderr, "%s: ", path);
    sn_road_mesh *rm = build(m);
    if (rm) {
        normals_and_tags(m, rm, false);
    }
    sn_road_mesh_free(rm);
    sn_map_close(m);
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        other_map(argv[i]);
    lane_tags();
    sn_map *m = open_map(roads_map_xml);
    if (!m)
        return CHECK_DONE();
    sn_road_mesh *a = build(m), *b = build(m);
    if (a && b) {
        CHECK(same_mesh(a, b), "two builds, the same bytes");
        chord_tolerance(m, a);
        normals_and_tags(m, a, true);
    }
    sn_road_mesh_free(a);
    sn_road_mesh_free(b);
    rays(m);
    empty_map();
    sn_map_close(m);
    return CHECK_DONE();
}
