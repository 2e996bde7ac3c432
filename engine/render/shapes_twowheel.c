/* shapes_twowheel.c — bicycles and motorcycles with their riders, from the half extents.
**
** Heights are fractions of the box's height 2H above its bottom, lengths fractions of L from the
** centre, widths of W (docs/shapes.md has the table). The front wheel, fork, handlebar (and a
** motorcycle's headlamp) turn together about the vertical through the front axle; both wheels
** roll by travel / radius; a cyclist's pedals turn with the rear wheel and the legs follow them
** (hip, knee and foot solved in the bike's plane). Rider parts are of the rider materials, which
** CARLA tags Rider; the rest keeps the actor's tag (Bicycle, Motorcycle). Every point is clamped
** into 0.95 of the box and bars are thinner than the margin left, so every vertex stays inside. */
#include "shapes_build.h"

#include <math.h>

#define SLICES 16 /* sides of a tyre */
#define IN 0.95   /* points stay within this fraction of the half extents */

static double clampd(double v, double lo, double hi) { return v < lo ? lo : v > hi ? hi : v; }

typedef struct tw {
    double L, W, H;
    double r, hw, hwr;   /* wheel radius, tyre half width, with the spoke bar */
    double xf, xr;       /* front and rear axle x */
    double steer, spin;  /* drawn steer (clamped so the turned wheel fits), roll angle */
    double t, ty;        /* bar half thickness in the x-z plane, and across y */
} tw;

/* A point of the x-z plane from fractions (x of L, h of the height 2H), clamped into the box. */
static sn_vec3 P(const tw *g, double x, double h)
{
    return sn_v3(clampd(x * g->L, -IN * g->L, IN * g->L), 0, clampd(-g->H + h * 2 * g->H, -IN * g->H, IN * g->H));
}

/* A bar of material m from a to b (x-z plane, y ignored) at y0, half thickness t in the plane
** and ty across it: a box turned about y. */
static void bar(sn_mb *b, sn_material m, const tw *g, sn_vec3 a, sn_vec3 c, double y0, double ty)
{
    double dx = c.x - a.x, dz = c.z - a.z, len = hypot(dx, dz);
    sn_mb_frame f = sn_mb_frame_zy(sn_v3((a.x + c.x) / 2, y0, (a.z + c.z) / 2), 0, -atan2(dz, dx));
    sn_mb_part(b, m);
    sn_mb_box(b, &f, sn_v3(-len / 2, -ty, -g->t), sn_v3(len / 2, ty, g->t));
}

static tw layout(const sn_model_state *s, bool motor)
{
    tw g;
    g.L = s->ext.x, g.W = s->ext.y, g.H = s->ext.z;
    g.r = fmin(fmin((motor ? 0.2 : 0.21) * 2 * g.H, 0.9 * g.H), 0.45 * g.L);
    g.hw = fmin((motor ? 0.14 : 0.05) * g.W, 0.35 * g.r);
    g.hwr = 1.1 * g.hw;
    double reach = hypot(g.r, g.hwr);
    g.xf = g.L - 1.001 * reach;
    g.xr = -(g.L - 1.001 * g.r);
    /* the turned front wheel reaches r sin d + hwr cos d across y: at most 0.9 W */
    double lim = reach <= 0.9 * g.W ? M_PI / 2 : fmax(asin(0.9 * g.W / reach) - atan2(g.hwr, g.r), 0);
    double ms = fmin(clampd(fabs(s->max_steer), 0, M_PI / 2), lim);
    g.steer = clampd(s->steer, -ms, ms);
    g.spin = fmod(s->travel / g.r, 2 * M_PI);
    g.t = 0.04 * fmin(g.L, g.H);
    g.ty = fmin(0.04 * 2 * g.H, 0.15 * g.W);
    return g;
}

static void wheel(sn_mb *b, const tw *g, double x, double steer)
{
    sn_mb_frame f = sn_mb_frame_zy(sn_v3(x, 0, -g->H + g->r), steer, g->spin);
    sn_mb_part(b, SN_MAT_TYRE);
    sn_mb_cylinder(b, &f, g->r, -g->hw, g->hw, SLICES);
    sn_mb_part(b, SN_MAT_RIM); /* a bar across the wheel: you see it roll */
    sn_mb_box(b, &f, sn_v3(-0.9 * g->r, -g->hwr, -0.08 * g->r), sn_v3(0.9 * g->r, g->hwr, 0.08 * g->r));
}

/* The steered parts: fork from the axle up to the handlebar at height h_bar, the bar across y
** (short enough that, turned, it stays inside), and for a motorcycle a headlamp on the fork. */
static void steered(sn_mb *b, const tw *g, double h_bar, bool motor, double *grip_hw)
{
    const double zb = clampd(-g->H + h_bar * 2 * g->H, -g->H + g->r, IN * g->H), s = fabs(g->steer);
    sn_mb_frame f = sn_mb_frame_zy(sn_v3(g->xf, 0, 0), g->steer, 0);
    const double ft = fmin(g->t, 0.3 * g->r), fy = fmin(g->ty, 0.3 * g->r);
    sn_mb_part(b, SN_MAT_TRIM); /* fork */
    sn_mb_box(b, &f, sn_v3(-ft, -fy, -g->H + g->r), sn_v3(ft, fy, zb));
    /* turned by s the bar's end reaches hb sin s + ft cos s along x, within r of the axle */
    double hb = fmin(0.85 * g->W - ft, s > 1e-9 ? (0.9 * g->r - ft) / sin(s) : 1e9);
    hb = fmax(hb, fy);
    sn_mb_part(b, SN_MAT_TRIM);
    sn_mb_box(b, &f, sn_v3(-ft, -hb, zb - ft), sn_v3(ft, hb, fmin(zb + ft, g->H)));
    *grip_hw = 0.8 * hb;
    /* within 0.75 r of the axle's vertical: inside wherever the turned wheel is */
    double ly = fmin(0.15 * g->W, 0.25 * g->r), lz = -g->H + (motor ? 0.50 : 0.45) * 2 * g->H;
    lz = clampd(lz, -g->H + 1.8 * g->r, zb);
    sn_mb_part(b, SN_MAT_HEADLAMP);
    sn_mb_box(b, &f, sn_v3(ft, -ly, lz - 0.3 * ly), sn_v3(ft + 0.2 * g->r, ly, lz + 0.3 * ly));
}

/* A leg or arm from a (hip, shoulder) to c (foot, hand) bending at a joint on the forward (+x)
** side when `fwd`, else backward, limbs of length `seg` each (no bend when they cannot reach). */
static void limb2(sn_mb *b, sn_material m, const tw *g, sn_vec3 a, sn_vec3 c, double seg, bool fwd, double y,
                  double ty)
{
    double dx = c.x - a.x, dz = c.z - a.z, d = hypot(dx, dz), k = d < 2 * seg ? sqrt(seg * seg - d * d / 4) : 0;
    double px = d > 0 ? -dz / d : 0, pz = d > 0 ? dx / d : 0; /* the perpendicular, turned +90 degrees */
    if ((px > 0) != fwd)
        px = -px, pz = -pz;
    sn_vec3 j = sn_v3(clampd((a.x + c.x) / 2 + k * px, -IN * g->L, IN * g->L), 0,
                      clampd((a.z + c.z) / 2 + k * pz, -IN * g->H, IN * g->H));
    bar(b, m, g, a, j, y, ty);
    bar(b, m, g, j, c, y, ty);
}

static void bicycle(sn_mb *b, const sn_model_state *s)
{
    const tw g = layout(s, false);
    const double W = g.W;
    wheel(b, &g, g.xf, g.steer);
    wheel(b, &g, g.xr, 0);
    const sn_vec3 bb = sn_v3(0, 0, -g.H + 0.95 * g.r), seat = P(&g, -0.28, 0.50), head = P(&g, g.xf / g.L - 0.06, 0.52);
    const sn_vec3 rear = sn_v3(g.xr, 0, -g.H + g.r), front_low = P(&g, g.xf / g.L - 0.04, 0.40);
    /* the frame: seat tube, top tube, down tube, chain and seat stays */
    bar(b, SN_MAT_BODY, &g, bb, seat, 0, g.ty);
    bar(b, SN_MAT_BODY, &g, seat, head, 0, g.ty);
    bar(b, SN_MAT_BODY, &g, bb, front_low, 0, g.ty);
    bar(b, SN_MAT_BODY, &g, bb, rear, 0.25 * W, 0.5 * g.ty);
    bar(b, SN_MAT_BODY, &g, seat, rear, -0.25 * W, 0.5 * g.ty);
    sn_mb_part(b, SN_MAT_TRIM); /* saddle */
    sn_mb_box(b, NULL, sn_v3(seat.x - 0.1 * g.L, -0.2 * W, seat.z), sn_v3(fmin(seat.x + 0.06 * g.L, IN * g.L), 0.2 * W,
                                                                       fmin(seat.z + 0.03 * 2 * g.H, IN * g.H)));
    double grip;
    steered(b, &g, 0.58, false, &grip);
    sn_mb_part(b, SN_MAT_TAILLAMP); /* a rear lamp under the saddle */
    sn_mb_box(b, NULL, sn_v3(fmax(seat.x - 0.16 * g.L, -IN * g.L), -0.1 * W, seat.z - 0.06 * 2 * g.H),
              sn_v3(seat.x - 0.1 * g.L, 0.1 * W, seat.z - 0.03 * 2 * g.H));

    /* the rider: hips over the saddle, the torso leaning to the bars, legs on the pedals */
    const sn_vec3 hip = P(&g, -0.24, 0.55), shoulder = P(&g, 0.12, 0.80), hand = P(&g, g.xf / g.L - 0.1, 0.58);
    bar(b, SN_MAT_RIDER, &g, hip, shoulder, 0, 0.45 * W);
    const double hs = fmin(fmin(0.06 * 2 * g.H, 0.15 * g.L), 0.35 * W);
    const sn_vec3 hc = P(&g, 0.2, 0.89);
    sn_mb_part(b, SN_MAT_RIDER_SKIN);
    sn_mb_box(b, NULL, sn_v3(fmax(hc.x - hs, -IN * g.L), -hs, fmax(hc.z - hs, -g.H)),
              sn_v3(fmin(hc.x + hs, IN * g.L), hs, fmin(hc.z + hs, IN * g.H)));
    const double crank = fmin(0.45 * g.r, 0.45 * (bb.z + g.H));
    const double arm = 0.55 * hypot(hand.x - shoulder.x, hand.z - shoulder.z) + 1e-9;
    /* thigh and shin each a little over half the farthest pedal's reach: the legs always bend */
    const double leg = 0.53 * (hypot(bb.x - hip.x, bb.z - hip.z) + crank);
    for (int side = -1; side <= 1; side += 2) {
        double y = side * 0.3 * W, ph = g.spin + (side > 0 ? M_PI : 0);
        sn_vec3 pedal = sn_v3(bb.x + crank * cos(ph), 0, bb.z - crank * sin(ph));
        limb2(b, SN_MAT_RIDER_LEGS, &g, hip, pedal, leg, true, y, 0.12 * W);
        limb2(b, SN_MAT_RIDER, &g, shoulder, hand, arm, false, side * fmin(0.4 * W, grip), 0.08 * W);
    }
}

static void motorcycle(sn_mb *b, const sn_model_state *s)
{
    const tw g = layout(s, true);
    const double W = g.W, L = g.L, H = g.H;
    wheel(b, &g, g.xf, g.steer);
    wheel(b, &g, g.xr, 0);
#define Z(h) (-H + (h) * 2 * H)
    /* tank and engine between the wheels, above them */
    const double zlo = clampd(Z(0.12), -H, IN * H), zw = -H + 2 * g.r;
    const double body[5][2] = {{-0.35 * L, zlo}, {0.45 * L, zlo}, {0.55 * L, clampd(Z(0.5), zlo, IN * H)},
                               {0.15 * L, clampd(Z(0.56), zlo, IN * H)}, {-0.45 * L, clampd(Z(0.48), zlo, IN * H)}};
    sn_mb_part(b, SN_MAT_BODY);
    sn_mb_prism(b, body, 5, 0.42 * W, 0);
    sn_mb_part(b, SN_MAT_TRIM); /* seat */
    sn_mb_box(b, NULL, sn_v3(-0.62 * L, -0.35 * W, clampd(Z(0.47), zlo, IN * H)),
              sn_v3(-0.05 * L, 0.35 * W, clampd(Z(0.55), zlo, IN * H)));
    sn_mb_part(b, SN_MAT_BODY); /* rear fender over the wheel */
    sn_mb_box(b, NULL, sn_v3(-0.88 * L, -0.2 * W, clampd(fmax(Z(0.42), zw), zlo, IN * H)),
              sn_v3(-0.55 * L, 0.2 * W, clampd(fmax(Z(0.48), zw + 0.04 * H), zlo, IN * H)));
    sn_mb_part(b, SN_MAT_TAILLAMP);
    sn_mb_box(b, NULL, sn_v3(-0.93 * L, -0.12 * W, clampd(fmax(Z(0.43), zw), zlo, IN * H)),
              sn_v3(-0.88 * L, 0.12 * W, clampd(fmax(Z(0.47), zw + 0.02 * H), zlo, IN * H)));
    double grip;
    steered(b, &g, 0.62, true, &grip);
    /* the rider: seated, leaning forward, a helmet, hands on the grips, feet on the pegs */
    const sn_vec3 hip = P(&g, -0.32, 0.60), shoulder = P(&g, -0.02, 0.86), hand = P(&g, g.xf / L - 0.08, 0.62);
    const sn_vec3 knee = P(&g, 0.12, 0.52), peg = P(&g, -0.12, 0.2);
    bar(b, SN_MAT_RIDER, &g, hip, shoulder, 0, 0.42 * W);
    const double hs = fmin(fmin(0.065 * 2 * H, 0.15 * L), 0.35 * W);
    const sn_vec3 hc = P(&g, 0.06, 0.91);
    sn_mb_part(b, SN_MAT_HELMET);
    sn_mb_box(b, NULL, sn_v3(fmax(hc.x - hs, -IN * L), -hs, fmax(hc.z - hs, -H)),
              sn_v3(fmin(hc.x + hs, IN * L), hs, fmin(hc.z + hs, IN * H)));
    const double arm = 0.55 * hypot(hand.x - shoulder.x, hand.z - shoulder.z) + 1e-9;
    for (int side = -1; side <= 1; side += 2) {
        double y = side * 0.3 * W;
        bar(b, SN_MAT_RIDER_LEGS, &g, hip, knee, y, 0.12 * W);
        bar(b, SN_MAT_RIDER_LEGS, &g, knee, peg, y, 0.1 * W);
        limb2(b, SN_MAT_RIDER, &g, shoulder, hand, arm, false, side * fmin(0.4 * W, grip), 0.08 * W);
    }
#undef Z
}

void sn_build_twowheel(sn_mb *b, sn_model m, const sn_model_state *s)
{
    if (m == SN_MODEL_MOTORBIKE)
        motorcycle(b, s);
    else
        bicycle(b, s);
}

double sn_twowheel_wheel_radius(sn_model m, sn_vec3 ext)
{
    sn_model_state s = {ext, 0, 0, 0, 0, 0};
    return layout(&s, m == SN_MODEL_MOTORBIKE).r;
}
