/* The street lamps' fast falloff (engine/render/nightlights.h sn_street_falloff, headlights.c
** sn_lamps_light; docs/rendering.md "Night") against the exact form, on the town of
** scripts/same_renders.sh at ClearNight (its scenery's street lamps with their shadows, cars with
** headlights where the traffic turns them on):
** - the direction cells (lampshadow.h sn_lamp_dir_cell, bins of pseudo-angles) only choose: at
**   500 000 points around the town's street lamps (a fifth on the cells' edges: axis-aligned,
**   diagonal and vertical directions), each lamp's shadow from its direction's cell is the one
**   from every one of its scenery groups (SN_LAMP_CELL_ALL), and many of them are shadowed;
** - sn_lamps_light with the table against the exact form (L.exact) at 200 000 points of the town
**   with random normals: each channel within 1e-5 of the exact value (relative; the bound,
**   docs/rendering.md: the table's 1.5e-6 and the azimuth's dropped 5e-6), and lit or shadowed
**   exactly where the exact form is (no point off by more than that: a shadow decided otherwise
**   would be a whole lamp's light);
** - the lanes (lamps_avx2.c: four street lamps at a time where the CPU has AVX2) give the
**   one-lamp loop's bits at 400 000 points (a third within 15 m of a lamp) and where a normal or
**   a point is NaN, and their shadows' direction cells are sn_lamp_dir_cell's at a million
**   directions;
** - a render at ClearNight on the fast path gives the same bytes at 1, 2 and 3 threads, and
**   with the CPU's AVX2 passes off (SENSIM_NO_AVX2's switch) as on.
** The exact switch (sn_renderer_set_exact_shading, SENSIM_EXACT_SHADING=1) sets L.exact: its
** images are the exact form's, checked against the build before by scripts/same_renders.sh.
** argv[1]: temp folder, argv[2]: maps folder. */
#include "../../engine/render/lampshadow.h"
#include "../../engine/render/lanes.h"
#include "../../engine/render/nightlights.h"
#include "../../engine/render/render.h"
#include "../../engine/sim/engine.h"
#include "../check.h"
#include "../testutil.h"

#include <math.h>

enum { W = 480, H = 270 };

static uint64_t rng = 88172645463325252ull;
static double uni(void) /* xorshift: [0, 1) */
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0;
}

static sn_engine *town(const char *tmp, const char *maps)
{
    char text[4096];
    snprintf(text, sizeof text,
             "map: %s/town.xodr\n"
             "settings: {fixed_delta_seconds: 0.05, seed: 1, weather: ClearNight}\n"
             "traffic: {vehicles: 30, walkers: 20, seed: 1}\n"
             "actors:\n"
             "  - {name: ground, blueprint: static.ground, transform: {location: [0, 0, -0.02]}, attributes: "
             "{semantic_tag: Terrain, color: \"96,110,70\"}}\n",
             maps);
    sn_error err = {0};
    sn_engine_options o = {.plugin_dir = "", .quiet_plugins = true};
    sn_engine *e = sn_engine_create(&o, &err);
    if (!e || sn_engine_load_scene(e, tu_write(tmp, "night_fast.yaml", text), &err) || sn_engine_run(e, 10, &err)) {
        fprintf(stderr, "FAIL: %s\n", err.msg);
        exit(1);
    }
    return e;
}

static void check_cells(sn_engine *e)
{
    sn_lamps L = {.shadows = true};
    CHECK(sn_lamps_build(&L, &e->world, 1.0, 1.0, sn_v3(21.5, 1.75, 2.9), 1000), "the lamps built");
    size_t streets[4096], n_st = 0;
    for (size_t i = 0; i < L.n && n_st < 4096; i++)
        if (L.spots[i].chunk && L.spots[i].sc_n)
            streets[n_st++] = i;
    CHECK(n_st > 10, "street lamps with scenery occluders (%zu)", n_st);
    long bad = 0, shadowed = 0, points = 0, lanes_off = 0, boxes = 0;
    const bool wide = sn_lanes_set_wide(true);
    for (int i = 0; i < 500000 && n_st; i++) {
        const sn_spot *s = &L.spots[streets[(size_t)(uni() * (double)n_st)]];
        sn_vec3 p = sn_v3(s->pos.x - 15 + 30 * uni(), s->pos.y - 15 + 30 * uni(), i % 2 ? 0.0 : 8 * uni());
        if (i % 5 == 0) { /* on the cells' edges: axis-aligned, diagonal and vertical directions */
            double r = floor(uni() * 16), a = floor(uni() * 8) * M_PI / 4;
            p = i % 10 ? sn_v3(s->pos.x + r * cos(a), s->pos.y + r * sin(a), floor(uni() * 8))
                       : sn_v3(s->pos.x, s->pos.y, floor(uni() * 6));
        }
        sn_vec3 v = sn_v3_sub(s->pos, p);
        double d = sn_v3_len(v);
        if (!(d > 1e-6))
            continue;
        bool by_cell = sn_lamp_occluded_cell(&L, s, p, v, d, SN_LAMP_CELL_FROM_V);
        bool by_all = sn_lamp_occluded_cell(&L, s, p, v, d, SN_LAMP_CELL_ALL);
        points++, shadowed += by_all, bad += by_cell != by_all;
        if (wide) { /* the lanes' answer (the boxes' spheres four at a time) */
            bool by_lanes = sn_lamp_occluded_avx2(&L, s, p, v, d, sn_lamp_dir_cell(v));
            boxes += s->occ_n, lanes_off += by_lanes != by_cell;
        }
    }
    if (wide) {
        printf("lanes: %ld of %ld shadows answered otherwise (%ld actor boxes met)\n", lanes_off, points, boxes);
        CHECK(lanes_off == 0 && boxes > points, "the lanes' shadows are the loop's (%ld differ)", lanes_off);
    }
    printf("direction cells: %ld of %ld lamp-point pairs shadowed, %ld decided otherwise than by every group\n", shadowed,
           points, bad);
    CHECK(shadowed > points / 50, "the test meets shadows (%ld of %ld)", shadowed, points);
    CHECK(bad == 0, "the cells never change a shadow (%ld do)", bad);
    sn_lamps_free(&L);
}

static void check_light(sn_engine *e)
{
    sn_lamps L = {.shadows = true};
    CHECK(sn_lamps_build(&L, &e->world, 1.0, 1.0, sn_v3(21.5, 1.75, 2.9), 1000), "the lamps built");
    size_t streets = 0;
    for (size_t i = 0; i < L.n; i++)
        streets += L.spots[i].chunk != 0;
    CHECK(streets > 10, "street lamps (%zu of %zu spots)", streets, L.n);
    double worst = 0;
    long lit = 0, points = 0;
    for (int i = 0; i < 200000; i++) {
        /* about the town's middle, from the ground to a few metres up, facing anywhere but down */
        sn_vec3 p = sn_v3(-60 + 180 * uni(), -60 + 120 * uni(), i % 2 ? 0.0 : 6 * uni());
        float n[3] = {(float)(uni() * 2 - 1), (float)(uni() * 2 - 1), (float)uni()};
        if (i % 2)
            n[0] = n[1] = 0, n[2] = 1; /* the road */
        double fast[3] = {0, 0, 0}, exact[3] = {0, 0, 0};
        L.exact = false;
        sn_lamps_light(&L, p, n, fast);
        L.exact = true;
        sn_lamps_light(&L, p, n, exact);
        points++;
        lit += exact[1] > 1e-6;
        for (int c = 0; c < 3; c++) {
            double rel = fabs(fast[c] - exact[c]) / (exact[c] > 1e-12 ? exact[c] : 1e-12);
            worst = rel > worst ? rel : worst;
        }
    }
    printf("lamps' light: %ld of %ld points lit, largest relative difference %.3g (bound 1e-5)\n", lit, points, worst);
    CHECK(lit > points / 4, "the points are lit (%ld of %ld)", lit, points);
    CHECK(worst <= 1e-5, "the table's light within 1e-5 of the exact (%.3g)", worst);
    sn_lamps_free(&L);
}

/* The lanes (lamps_avx2.c, four lamps at a time) against the one-lamp loop: the same bits at
** every point, around the town and close to its lamps (their shadows, the threshold's band,
** points level with or above a head: the lanes' every way out). */
static void check_lanes(sn_engine *e)
{
    if (!sn_lanes_set_wide(true)) {
        printf("lanes: no AVX2 here, one lamp at a time only\n");
        return;
    }
    /* the lanes' direction cells: sn_lamp_dir_cell's, at a million directions (half of them on
    ** the bins' edges: axis-aligned, diagonal, straight down or up, nearly vertical) */
    long cells_off = 0;
    for (int i = 0; i < 1000000; i += 4) {
        double vx[4], vy[4], vz[4];
        uint32_t four[4];
        for (int j = 0; j < 4; j++) {
            int kind = (i / 4 + j) % 8;
            double a = kind < 4 ? 2 * M_PI * uni() : floor(uni() * 16) * M_PI / 8;
            double r = kind == 6 ? 1e-13 * uni() : 1 + 20 * uni();
            vx[j] = kind == 7 ? 0 : r * cos(a), vy[j] = kind == 7 ? 0 : r * sin(a), vz[j] = -10 + 20 * uni();
            if (kind == 5)
                vz[j] = floor(vz[j]);
        }
        sn_lamp_dir_cells_avx2(vx, vy, vz, four);
        for (int j = 0; j < 4; j++)
            cells_off += four[j] != sn_lamp_dir_cell(sn_v3(vx[j], vy[j], vz[j]));
    }
    printf("lanes: %ld of 1000000 direction cells differ from sn_lamp_dir_cell's\n", cells_off);
    CHECK(cells_off == 0, "the lanes' direction cells are sn_lamp_dir_cell's (%ld differ)", cells_off);
    sn_lamps L = {.shadows = true};
    CHECK(sn_lamps_build(&L, &e->world, 1.0, 1.0, sn_v3(21.5, 1.75, 2.9), 1000), "the lamps built");
    size_t streets[4096], n_st = 0;
    for (size_t i = 0; i < L.n && n_st < 4096; i++)
        if (L.spots[i].chunk)
            streets[n_st++] = i;
    long differ = 0, lit = 0, points = 0;
    for (int i = 0; i < 400000 && n_st; i++) {
        sn_vec3 p = sn_v3(-60 + 180 * uni(), -60 + 120 * uni(), i % 2 ? 0.0 : 6 * uni());
        if (i % 3 == 0) { /* within 15 m of a lamp, from the ground to 2 m over its head */
            const sn_spot *s = &L.spots[streets[(size_t)(uni() * (double)n_st)]];
            p = sn_v3(s->pos.x - 15 + 30 * uni(), s->pos.y - 15 + 30 * uni(), i % 2 ? 0.0 : (s->pos.z + 2) * uni());
        }
        float n[3] = {(float)(uni() * 2 - 1), (float)(uni() * 2 - 1), (float)(uni() * 2 - 1)};
        if (i % 4 == 1)
            n[0] = n[1] = 0, n[2] = 1; /* the road */
        double one[3] = {0, 0, 0}, four[3] = {0, 0, 0};
        sn_lanes_set_wide(false);
        sn_lamps_light(&L, p, n, one);
        sn_lanes_set_wide(true);
        sn_lamps_light(&L, p, n, four);
        points++, lit += one[1] > 1e-6, differ += memcmp(one, four, sizeof one) != 0;
    }
    /* a NaN in the normal or the point (a degenerate face): the loop's own answer too, bit for
    ** bit (the loop takes such a lamp by the exact form, which may give NaN) */
    long nan_differ = 0;
    for (size_t i = 0; i < n_st; i++) {
        const sn_spot *s = &L.spots[streets[i]];
        const sn_vec3 ps[2] = {sn_v3(s->pos.x + 3, s->pos.y + 2, 0), sn_v3(s->pos.x + 3, s->pos.y + 2, NAN)};
        const float ns[2][3] = {{NAN, 0, 1}, {0, 0, 1}};
        for (int q = 0; q < 2; q++) {
            double one[3] = {0, 0, 0}, four[3] = {0, 0, 0};
            sn_lanes_set_wide(false);
            sn_lamps_light(&L, ps[q], ns[q], one);
            sn_lanes_set_wide(true);
            sn_lamps_light(&L, ps[q], ns[q], four);
            nan_differ += memcmp(one, four, sizeof one) != 0;
        }
    }
    CHECK(nan_differ == 0, "NaN normals and points: the one-lamp loop's bits (%ld of %zu differ)", nan_differ,
          2 * n_st);
    printf("lanes: %ld of %ld points lit, %ld differ from the one-lamp loop in any bit\n", lit, points, differ);
    CHECK(lit > points / 4, "the points are lit (%ld of %ld)", lit, points);
    CHECK(differ == 0, "four lamps at a time give the one-lamp loop's bits (%ld points differ)", differ);
    sn_lamps_free(&L);
}

static void render(sn_engine *e, bool exact, int threads, uint8_t *bgra)
{
    const sn_camera cam = {sizeof(sn_camera), {{21.5, 1.75, 2.9}, {0, 0, 0}}, W, H, 90, 0.1, 1000};
    sn_renderer *r = sn_renderer_create(threads);
    CHECK(r != NULL, "a renderer");
    sn_renderer_set_exact_shading(r, exact);
    sn_image img = {sizeof img, NULL, bgra, NULL, NULL, 2};
    sn_error err = {0};
    CHECK(!sn_render(r, &e->world, 1.0, &e->lighting, &cam, &img, &err), "render: %s", err.msg);
    sn_renderer_destroy(r);
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return fprintf(stderr, "usage: test_night_fast TMP MAPS\n"), 2;
    sn_engine *e = town(argv[1], argv[2]);
    check_cells(e);
    check_light(e);
    check_lanes(e);
    static uint8_t fast[W * H * 4], other[W * H * 4];
    render(e, false, 2, fast);
    for (int t = 1; t <= 3; t += 2) {
        render(e, false, t, other);
        CHECK(memcmp(other, fast, sizeof fast) == 0, "the fast path: %d threads give 2 threads' bytes", t);
    }
    if (sn_lanes_set_wide(true)) { /* AVX2 here: without it, the same image */
        sn_lanes_set_wide(false);
        render(e, false, 2, other);
        sn_lanes_set_wide(true);
        CHECK(memcmp(other, fast, sizeof fast) == 0, "the fast path: the same bytes with the AVX2 passes off");
    }
    sn_engine_destroy(e);
    return CHECK_DONE();
}
