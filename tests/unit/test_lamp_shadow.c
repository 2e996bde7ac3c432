/* Street lights' shadows (engine/render/lampshadow.c, docs/rendering.md "Night"): a lamp 8 m up
** at the origin, a car-sized box (4.6 x 2 x 1.5 m) from x = 0.7 to 5.3 m on the ground. The
** segment from a ground point to the lamp is cut by the box exactly when the point lies in the
** box's shadow: behind it (x > 5.3) up to the tip, where the line from the lamp over the box's
** far top edge (5.3, 1.5) meets the ground, x = 5.3 * 8 / (8 - 1.5) = 6.523 m. Beside the box,
** on its top (its own surface) and beyond the tip the lamp is seen. A rotated box shades where its
** rotated footprint says. */
#include "../../engine/render/lampshadow.h"
#include "../check.h"

#include <math.h>

static bool occluded(const sn_lamps *L, sn_vec3 p)
{
    sn_vec3 v = sn_v3_sub(L->spots[0].pos, p);
    return sn_lamp_occluded(L, &L->spots[0], p, v, sn_v3_len(v));
}

int main(void)
{
    sn_spot s = {{0, 0, 8}, 1, 0, -M_PI / 2, 1e3, 1, 1, 25, 35, 0, 1};
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
    return CHECK_DONE();
}
