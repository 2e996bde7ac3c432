/* Street lights' shadows (engine/render/lampshadow.c, docs/rendering.md "Night"): a lamp 8 m up
** at the origin, a car-sized box (4.6 x 2 x 1.5 m) from x = 0.7 to 5.3 m on the ground. The
** segment from a ground point to the lamp is cut by the box exactly when the point lies in the
** box's shadow: behind it (x > 5.3) up to the tip, where the line from the lamp over the box's
** far top edge (5.3, 1.5) meets the ground, x = 5.3 * 8 / (8 - 1.5) = 6.523 m. Beside the box,
** on its top (its own surface) and beyond the tip the lamp is seen. A rotated box shades where its
** rotated footprint says.
**
** Scenery (the second part): a lamp head over the origin with its light at z = 8, a building
** 4 m tall from x = 2 to 6, a pole 3 m away on the other side; their triangles shade the ground
** exactly where the lines from the light over their edges say. */
#include "../../engine/render/lampshadow.h"
#include "../../engine/scenery/geom.h"
#include "../check.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static bool occluded(const sn_lamps *L, sn_vec3 p)
{
    sn_vec3 v = sn_v3_sub(L->spots[0].pos, p);
    return sn_lamp_occluded(L, &L->spots[0], p, v, sn_v3_len(v));
}

/* The scenery's meshes: a street lamp's head (light at z = 8 over the origin), a building, a pole,
** a building out of reach, a window band and a grass patch in the way (neither casts). */
static void scenery(void)
{
    sn_road_mesh *m = calloc(1, sizeof *m);
    for (int k = 0; k < 3; k++)
        m->lo[k] = INFINITY, m->hi[k] = -INFINITY;
    sn_sgeom g;
    sn_sgeom_init(&g, m);
    sn_sgeom_begin(&g, SN_SC_BUILDING, SN_SCENERY_ID0 + 1, NULL);
    sn_sgeom_box(&g, 4, 0, 0, 2, 3, 0, 4);
    sn_sgeom_end(&g);
    sn_sgeom_begin(&g, SN_SC_POLE, SN_SCENERY_ID0 + 2, NULL);
    sn_sgeom_prism(&g, -3, 0, 0.11, 0, 10, 8);
    sn_sgeom_end(&g);
    sn_sgeom_begin(&g, SN_SC_BUILDING, SN_SCENERY_ID0 + 3, NULL);
    sn_sgeom_box(&g, -20, 10, 0, 1, 1, 0, 20); /* 16.4 m from the light at its nearest: beyond reach */
    sn_sgeom_end(&g);
    sn_sgeom_begin(&g, SN_SC_WINDOWS, SN_SCENERY_ID0 + 4, NULL);
    sn_sgeom_box(&g, 0, 4, 0, 2, 0.05, 2, 6); /* across the light's way to y = 8: not a caster */
    sn_sgeom_end(&g);
    sn_sgeom_begin(&g, SN_SC_GRASS, SN_SCENERY_ID0 + 5, NULL);
    sn_sgeom_box(&g, 0, -4, 0, 2, 0.05, 2, 6);
    sn_sgeom_end(&g);
    sn_sgeom_begin(&g, SN_SC_LAMP, SN_SCENERY_ID0 + 6, NULL);
    sn_sgeom_box(&g, 0, 0, 0, 0.3, 0.14, 8.02, 8.22);
    sn_sgeom_end(&g);
    CHECK(sn_sgeom_finish(&g) && m->n_chunks == 6, "the test mesh: 6 chunks (%u)", m->n_chunks);
    sn_spot s = {{0, 0, 8}, 1, 0, -M_PI / 2, 1e3, 1, 1, 25, 35, 0, 0, m->n_chunks, 0, 0};
    sn_world w;
    memset(&w, 0, sizeof w);
    w.roads = m;
    sn_lamps L = {.spots = &s, .n = 1, .cap = 1};
    CHECK(sn_lamp_occluders_build(&L, &w, 1, 0), "occluders built");
    CHECK(sn_lamp_scenery_pieces(&L, &s) == 2, "two casters within 15 m (the building, the pole; not the far "
                       "building, the window band, the grass, the head): %u", sn_lamp_scenery_pieces(&L, &s));
    CHECK(fabs(L.spots[0].pos.z - 8) < 1e-12, "the light");
    /* the building: the shadow's tip where the line from the light over its far top edge (6, 4)
    ** meets the ground, x = 6 * 8 / (8 - 4) = 12; it starts at its far face x = 6 */
    CHECK(occluded(&L, sn_v3(6.5, 0, 0)), "behind the building: shadow");
    CHECK(occluded(&L, sn_v3(12 - 0.02, 2.5, 0)), "2 cm before the tip (x = 12): shadow");
    CHECK(!occluded(&L, sn_v3(12 + 0.02, 2.5, 0)), "2 cm past it: lit");
    /* its side: the roof's edge at y = 3 throws the shadow's edge to y = 3 * 8 / (8 - 4) = 6 */
    CHECK(occluded(&L, sn_v3(10, 5.9, 0)) && !occluded(&L, sn_v3(10, 6.1, 0)),
          "its side: the shadow's edge at y = 6 (3 * 8 / 4)");
    CHECK(!occluded(&L, sn_v3(2, 0, 2)) && !occluded(&L, sn_v3(2.005, 0, 2)) && !occluded(&L, sn_v3(1.995, 0, 2)),
          "on its near face (and 5 mm inside or outside it): lit, not self-shaded");
    CHECK(!occluded(&L, sn_v3(4, 0, 4)), "on its roof: lit");
    CHECK(!occluded(&L, sn_v3(1, 0, 0)), "before it: lit");
    /* the pole (r 0.11 at x = -3): the segment from (-6, y, 0) to the light passes x = -3 at y / 2 */
    CHECK(occluded(&L, sn_v3(-6, 0, 0)) && occluded(&L, sn_v3(-6, 0.18, 0)), "behind the pole: shadow");
    CHECK(!occluded(&L, sn_v3(-6, 0.3, 0)), "0.15 m beside its shadow's axis line: lit");
    /* what does not cast */
    CHECK(!occluded(&L, sn_v3(0, 9, 0)), "behind the window band: lit (window bands cast nothing)");
    CHECK(!occluded(&L, sn_v3(0, -9, 0)), "behind the grass chunk: lit");
    CHECK(!occluded(&L, sn_v3(-21, 11, -2)) && !occluded(&L, sn_v3(-25, 12.5, 0)),
          "behind the building out of reach (16.4 m): lit, the cost bound");
    /* the table is kept while the mesh is the same, rebuilt for another */
    struct sn_lamp_scenery *kept = L.sc;
    CHECK(sn_lamp_occluders_build(&L, &w, 1, 0) && L.sc == kept && sn_lamp_scenery_pieces(&L, &s) == 2,
          "the same mesh: the same table");
    /* the bound: 40 bins around the lamp, the nearest SN_LAMP_SHADOW_SCENERY kept */
    sn_sgeom_init(&g, m);
    for (int i = 0; i < 40; i++) {
        sn_sgeom_begin(&g, SN_SC_BIN, SN_SCENERY_ID0 + 10 + i, NULL);
        sn_sgeom_box(&g, 1.5 * cos(i * 0.157), 1.5 * sin(i * 0.157) + 0.01 * i, 0, 0.2, 0.2, 0, 1);
        sn_sgeom_end(&g);
    }
    CHECK(sn_sgeom_finish(&g), "bins added");
    CHECK(sn_lamp_occluders_build(&L, &w, 1, 0) && sn_lamp_scenery_pieces(&L, &s) == SN_LAMP_SHADOW_SCENERY,
          "a new mesh: rebuilt, %u casters kept of 42 (%u)", SN_LAMP_SHADOW_SCENERY, sn_lamp_scenery_pieces(&L, &s));
    CHECK(occluded(&L, sn_v3(6.5, 0, 0)), "the building still shades (it is among the nearest)");
    sn_lamp_scenery_free(L.sc);
    free(m->v), free(m->vf), free(m->t), free(m->chunks), free(m);
}

int main(void)
{
    sn_spot s = {{0, 0, 8}, 1, 0, -M_PI / 2, 1e3, 1, 1, 25, 35, 0, 1, 0, 0, 0};
    sn_occluder box = {{3, 0, 0.75}, {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, {2.3, 1, 0.75}, 2.8};
    sn_lamps L = {.spots = &s, .n = 1, .occ = &box, .n_occ = 1};
    const double tip = 5.3 * 8 / (8 - 1.5);
    CHECK(occluded(&L, sn_v3(6.0, 0, 0)), "right behind the box: in its shadow");
    CHECK(occluded(&L, sn_v3(tip - 0.02, 0.5, 0)), "2 cm before the shadow's tip (x = %.3f): shadow", tip);
    CHECK(!occluded(&L, sn_v3(tip + 0.02, 0.5, 0)), "2 cm past the tip: lit");
    CHECK(!occluded(&L, sn_v3(3, 2.5, 0)), "beside the box: lit");
    CHECK(!occluded(&L, sn_v3(3, 0, 1.5)), "on the box's top (its own surface): lit");
    CHECK(!occluded(&L, sn_v3(5.3, 0, 0.7)), "on its far face, which the lamp does not see anyway: not counted as shaded");
    CHECK(!occluded(&L, sn_v3(-6, 0, 0)), "on the lamp's other side: lit");
    /* the shadow's width: the box is 2 m wide, the shadow widens by 8 / (8 - 1.5) at the ground */
    CHECK(occluded(&L, sn_v3(6.0, 1.05, 0)) && !occluded(&L, sn_v3(6.0, 1.3, 0)),
          "at x = 6 the shadow ends between y = 1.05 and 1.3 (1 x 6 / 5.3 = 1.13)");
    /* turned 90 degrees about z: now 2 m along x (2 .. 4), 4.6 m across */
    sn_occluder turned = {{3, 0, 0.75}, {{0, 1, 0}, {-1, 0, 0}, {0, 0, 1}}, {2.3, 1, 0.75}, 2.8};
    L.occ = &turned;
    const double tip2 = 4.0 * 8 / 6.5;
    CHECK(occluded(&L, sn_v3(tip2 - 0.02, 2.0, 0)) && !occluded(&L, sn_v3(tip2 + 0.02, 2.0, 0)),
          "turned: the tip at x = %.3f", tip2);
    CHECK(occluded(&L, sn_v3(4.5, -2.2, 0)), "turned: its long side shades y = -2.2 too");
    /* no occluders listed: never shaded */
    s.occ_n = 0;
    CHECK(!occluded(&L, sn_v3(6.0, 0, 0)), "a spot without occluders shades nothing");
    scenery(); /* its checks count in CHECK_DONE */
    return CHECK_DONE();
}
