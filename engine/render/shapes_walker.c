/* shapes_walker.c — a walker as torso, head, arms and legs from its half extents.
**
** Legs hang from the hips and arms from the shoulders, each a box turned about the y axis
** through its joint by a swing angle: A sin(2 pi travel / stride), the legs in opposition and
** each arm against its leg. A grows with speed up to a full stride at 1.4 m/s and is capped so
** that a swung limb stays inside the box; standing still, the limbs hang straight. */
#include "shapes_build.h"

#include <math.h>

#define LEG 0.47      /* hip height, of the height 2H */
#define SHOULDER 0.80 /* shoulder joint height, of 2H */
#define ARM 0.35      /* arm length, of 2H */
#define FULL_SPEED 1.4 /* m/s: the stride is full from here */

/* The largest swing of a limb of length len and half thickness t about a joint on the box's
** centre plane: its far corner reaches len sin a + t cos a = hypot(len, t) sin(a + atan(t/len)). */
static double max_swing(double len, double t, double ex, double cap)
{
    double h = hypot(len, t);
    if (!(h > 0))
        return 0;
    double a = (ex >= h ? M_PI / 2 : asin(ex / h)) - atan2(t, len);
    return a < 0 ? 0 : a < cap ? a : cap;
}

/* A limb: a box of half thickness (tx, ty) hanging `len` below the joint, turned by `swing`. */
static void limb(sn_mb *b, sn_material m, sn_vec3 joint, double swing, double tx, double ty, double len)
{
    sn_mb_frame f = sn_mb_frame_zy(joint, 0, swing);
    sn_mb_part(b, m);
    sn_mb_box(b, &f, sn_v3(-tx, -ty, -len), sn_v3(tx, ty, 0));
}

void sn_build_walker(sn_mb *b, const sn_model_state *s)
{
    /* the look (sn_model_look): the figure's height within its box (0.90-1.0 of it) and its
    ** build (0.80-1.0 of the widths); a child's box (under 1.4 m) gets a larger head */
    const double fh = 0.90 + 0.10 * ((s->look & 0xff) / 255.0), bw = 0.80 + 0.20 * (((s->look >> 20) & 0xff) / 255.0);
    const bool child = s->ext.z < 0.7;
    const double ex = s->ext.x, ey = s->ext.y, H = s->ext.z, H2 = 2 * H * fh, top = -H + H2;
    const double zh = -H + LEG * H2, zs = -H + SHOULDER * H2, zhead = -H + (child ? 0.82 : 0.86) * H2;
    /* legs: a foot's far corner, hypot(leg, t) from the hip, reaches the ground at most */
    const double ltx = fmin(0.28 * ex, 0.3 * LEG * H2), lty = 0.28 * ey * bw;
    const double leg = sqrt(fmax(LEG * H2 * LEG * H2 - ltx * ltx, 0));
    const double atx = fmin(0.2 * ex, 0.3 * ARM * H2), aty = 0.17 * ey * bw, arm = ARM * H2;
    const double pace = fmin(fmax(s->speed / FULL_SPEED, 0), 1);
    const double phase = sin(fmod(2 * M_PI * s->travel / (1.8 * LEG * H2), 2 * M_PI));
    const double swing_leg = pace * max_swing(leg, ltx, ex, 0.45) * phase;
    const double swing_arm = pace * max_swing(arm, atx, ex, 0.35) * phase;
    const double hair = 0.03 * H2, shoe = fmin(0.05 * H2, 0.5 * leg);

    sn_mb_part(b, SN_MAT_BODY); /* torso, from the hips to the shoulders */
    sn_mb_box(b, NULL, sn_v3(-0.48 * ex * bw, -0.6 * ey * bw, zh - 0.03 * H2), sn_v3(0.48 * ex * bw, 0.6 * ey * bw, zs + 0.03 * H2));
    sn_mb_part(b, SN_MAT_SKIN); /* neck */
    sn_mb_box(b, NULL, sn_v3(-0.2 * ex, -0.2 * ey, zs), sn_v3(0.2 * ex, 0.2 * ey, zhead + 0.01 * H2));
    sn_mb_part(b, SN_MAT_SKIN); /* head, under its hair */
    sn_mb_box(b, NULL, sn_v3(-0.42 * ex, -0.36 * ey, zhead), sn_v3(0.42 * ex, 0.36 * ey, top - hair));
    sn_mb_part(b, SN_MAT_HAIR);
    sn_mb_box(b, NULL, sn_v3(-0.44 * ex, -0.38 * ey, top - hair), sn_v3(0.44 * ex, 0.38 * ey, top));
    for (int side = -1; side <= 1; side += 2) /* left (-y) first; an arm swings against its leg */
        limb(b, SN_MAT_BODY, sn_v3(0, side * (0.6 * bw + 0.2) * ey, zs), -side * swing_arm, atx, aty, arm);
    for (int side = -1; side <= 1; side += 2) {
        sn_vec3 hip = sn_v3(0, side * 0.36 * ey, zh);
        limb(b, SN_MAT_TROUSERS, hip, side * swing_leg, ltx, lty, leg - shoe);
        /* the shoe: the leg's last stretch, turned with it */
        sn_mb_frame f = sn_mb_frame_zy(hip, 0, side * swing_leg);
        sn_mb_part(b, SN_MAT_SHOES);
        sn_mb_box(b, &f, sn_v3(-ltx, -lty, -leg), sn_v3(ltx, lty, -(leg - shoe)));
    }
}
