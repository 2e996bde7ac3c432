/* shapes_vehicle.c — cars, vans, buses and trucks from their half extents.
**
** Heights are fractions of the box's height 2H above its bottom (the ground), lengths fractions
** of the half length L, widths of the half width W (docs/shapes.md has the table and a
** picture). Wheels sit where physics puts them when they fit (axles at +-0.6 L, vehicle.c's
** wheelbase), inset so that a front wheel turned to the vehicle's max_steer_angle still stays
** inside the box; a wheel arch is cut into the body around each. */
#include "shapes_build.h"

#include <math.h>

typedef struct profile {
    double wheel_r;   /* of 2H */
    double wheel_hw;  /* tyre half width, of W */
    double floor;     /* the body's bottom */
    double nose;      /* top of the front face (the hood rises from it to the belt) */
    double belt;      /* the window line */
    double tail;      /* top of the rear face */
    double roof;      /* the roof's thickness */
    double cab[4];    /* glass, of L: bottom front, top front, top rear, bottom rear */
    double cab_hw[2]; /* glass half width at the belt and under the roof, of W */
    double box_front; /* a van's body-coloured box behind the glass reaches this far forward; < -1: none */
    double top;       /* of 2H left above the roof for a light bar or a taxi sign (police, taxi) */
} profile;

static const profile profiles[SN_MODEL_COUNT] = {
    [SN_MODEL_SEDAN] = {0.21, 0.12, 0.13, 0.42, 0.56, 0.52, 0.05, {0.42, 0.08, -0.50, -0.80}, {0.90, 0.74}, -2},
    [SN_MODEL_VAN] = {0.16, 0.11, 0.10, 0.36, 0.50, 0.50, 0.04, {0.80, 0.58, 0.20, 0.26}, {0.94, 0.86}, 0.24},
    [SN_MODEL_BUS] = {0.16, 0.10, 0.10, 0.40, 0.42, 0.42, 0.08, {0.975, 0.955, -0.975, -0.975}, {0.97, 0.95}, -2},
    /* the truck's cab (x from TRUCK_CAB to the nose) */
    [SN_MODEL_TRUCK] = {0.16, 0.10, 0.10, 0.50, 0.55, 0.55, 0.06, {0.95, 0.90, 0.54, 0.54}, {0.95, 0.90}, -2},
    /* a hatchback: the tail as high as the belt, the rear glass nearly upright */
    [SN_MODEL_COMPACT] = {0.22, 0.12, 0.13, 0.44, 0.58, 0.58, 0.05, {0.40, 0.04, -0.74, -0.90}, {0.90, 0.78}, -2},
    /* an SUV: a high floor, a tall flat hood and an upright cabin to the back */
    [SN_MODEL_SUV] = {0.23, 0.12, 0.17, 0.50, 0.60, 0.60, 0.04, {0.52, 0.30, -0.84, -0.92}, {0.93, 0.86}, -2},
    [SN_MODEL_POLICE] = {0.21, 0.12, 0.13, 0.42, 0.56, 0.52, 0.05, {0.42, 0.08, -0.50, -0.80}, {0.90, 0.74}, -2, 0.07},
    [SN_MODEL_TAXI] = {0.21, 0.12, 0.13, 0.42, 0.56, 0.52, 0.05, {0.42, 0.08, -0.50, -0.80}, {0.90, 0.74}, -2, 0.09},
};
#define TRUCK_CAB 0.52 /* of L: the cab's back; the cargo box ends just behind it */
#define NOSE 0.985     /* of L and W: the body's faces, just inside the box for lamps and tyres */
#define SLICES 12      /* sides of a tyre */

static double clampd(double v, double lo, double hi) { return v < lo ? lo : v > hi ? hi : v; }

typedef struct wheels {
    double r, hw, hw_rim;  /* radius, tyre half width, half width with the rim */
    double reach_f;        /* a front wheel's reach from its centre across y at any allowed steer */
    double reach;          /* any wheel's reach in x at any angle */
    double xf, xr, yf, yr; /* centres: front and rear axle x (rear is -xr), half tracks */
    double max_steer;
} wheels;

static wheels wheel_layout(const profile *p, const sn_model_state *s)
{
    const double L = s->ext.x, W = s->ext.y, H = s->ext.z;
    wheels w;
    w.r = fmin(fmin(p->wheel_r * 2 * H, H), 0.8 * fmin(L, W));
    w.hw = fmin(p->wheel_hw * W, 0.4 * w.r);
    w.hw_rim = 1.1 * w.hw;
    w.reach = hypot(w.r, w.hw_rim); /* <= 0.88 min(L, W): every wheel fits */
    w.max_steer = clampd(fabs(s->max_steer), 0, M_PI / 2);
    /* across y a wheel turned by d reaches r sin d + hw cos d, largest at atan(r / hw) */
    w.reach_f = w.max_steer >= atan2(w.r, w.hw_rim) ? w.reach
                                                   : w.r * sin(w.max_steer) + w.hw_rim * cos(w.max_steer);
    w.xf = fmin(0.6 * L, L - w.reach);
    w.xr = fmin(0.6 * L, L - w.r);
    w.yf = W - w.reach_f;
    w.yr = W - w.hw_rim;
    return w;
}

double sn_vehicle_wheel_radius(sn_model m, sn_vec3 ext)
{
    if (m == SN_MODEL_BIKE || m == SN_MODEL_MOTORBIKE)
        return sn_twowheel_wheel_radius(m, ext);
    if (m <= SN_MODEL_NONE || m >= SN_MODEL_COUNT || m == SN_MODEL_WALKER)
        return 0;
    sn_model_state s = {ext, 0, 0, 0, 0, 0};
    return wheel_layout(&profiles[m], &s).r;
}

/* A box part [x0, x1] x [-hw, hw] x [z0, z1], the x and z ranges made non-empty. */
static void slab(sn_mb *b, sn_material m, double x0, double x1, double hw, double z0, double z1)
{
    if (x0 > x1)
        x0 = x1 = (x0 + x1) / 2;
    if (z0 > z1)
        z0 = z1 = (z0 + z1) / 2;
    sn_mb_part(b, m);
    sn_mb_box(b, NULL, sn_v3(x0, -hw, z0), sn_v3(x1, hw, z1));
}

/* A pair of lamps on a face at x in [x0, x1], z in [z0, z1], between 0.55 W and 0.85 W out. */
static void lamps(sn_mb *b, sn_material m, double x0, double x1, double W, double z0, double z1)
{
    for (int side = -1; side <= 1; side += 2) {
        sn_mb_part(b, m);
        double y0 = side * 0.55 * W, y1 = side * 0.85 * W;
        sn_mb_box(b, NULL, sn_v3(x0, fmin(y0, y1), fmin(z0, z1)), sn_v3(x1, fmax(y0, y1), fmax(z0, z1)));
    }
}

/* The wheel arches: body boxes from z0 to z1 over [x0, x1] with gaps around the axles. A
** truck's cab (rear false) stands over its front wheels: only the block ahead of them. Every
** block has volume at the blueprint's extents, where the winding is settled (shapes_build.h). */
static void skirt(sn_mb *b, const wheels *w, double x0, double x1, double W, double z0, double z1, bool rear)
{
    const double gf = 1.05 * w->reach, gr = 1.08 * w->r;
    if (rear) {
        slab(b, SN_MAT_BODY, x0, clampd(-w->xr - gr, x0, x1), NOSE * W, z0, z1);
        slab(b, SN_MAT_BODY, clampd(-w->xr + gr, x0, x1), clampd(w->xf - gf, x0, x1), NOSE * W, z0, z1);
    }
    slab(b, SN_MAT_BODY, clampd(w->xf + gf, x0, x1), x1, NOSE * W, z0, z1);
}

static void wheels_emit(sn_mb *b, const wheels *w, const sn_model_state *s, double H)
{
    const double spin = fmod(s->travel / w->r, 2 * M_PI), steer = clampd(s->steer, -w->max_steer, w->max_steer);
    for (int k = 0; k < 4; k++) {
        bool front = k < 2;
        double side = k % 2 ? 1 : -1;
        sn_vec3 c = sn_v3(front ? w->xf : -w->xr, side * (front ? w->yf : w->yr), -H + w->r);
        sn_mb_frame f = sn_mb_frame_zy(c, front ? steer : 0, spin);
        sn_mb_part(b, SN_MAT_TYRE);
        sn_mb_cylinder(b, &f, w->r, -w->hw, w->hw, SLICES);
        /* the rim: a square on the outer face that turns as the wheel rolls */
        sn_mb_part(b, SN_MAT_RIM);
        double y0 = side * 0.3 * w->hw, y1 = side * w->hw_rim;
        sn_mb_box(b, &f, sn_v3(-0.5 * w->r, fmin(y0, y1), -0.5 * w->r), sn_v3(0.5 * w->r, fmax(y0, y1), 0.5 * w->r));
    }
}

/* The glass over [belt, roof base] and the roof slab on it, from p->cab and p->cab_hw. */
static void cabin(sn_mb *b, const profile *p, double L, double W, double zlo, double zroof, double H)
{
    /* H here is the roof's top: the box's top less what stands on the roof */
    const double *c = p->cab;
    const double g[4][2] = {{c[0] * L, zlo}, {c[1] * L, zroof}, {c[2] * L, zroof}, {c[3] * L, zlo}};
    sn_mb_part(b, SN_MAT_GLASS);
    sn_mb_prism(b, g, 4, p->cab_hw[0] * W, zroof > zlo ? (p->cab_hw[1] - p->cab_hw[0]) * W / (zroof - zlo) : 0);
    /* the roof overhangs the glass a little: no face of one lies in a face of the other */
    const double e = 0.01 * L, zr0 = fmax(zroof - 0.008 * H, zlo);
    const double roof[4][2] = {{clampd(c[1] * L + e, -NOSE * L, NOSE * L), zr0}, {c[1] * L - 2 * e, H},
                               {c[2] * L + 2 * e, H}, {clampd(c[2] * L - e, -NOSE * L, NOSE * L), zr0}};
    sn_mb_part(b, SN_MAT_BODY);
    sn_mb_prism(b, roof, 4, fmin(p->cab_hw[1] + 0.03, NOSE) * W, 0);
}

void sn_build_vehicle(sn_mb *b, sn_model m, const sn_model_state *s)
{
    const profile *p = &profiles[m];
    const double L = s->ext.x, W = s->ext.y, H = s->ext.z;
    const wheels w = wheel_layout(p, s);
#define Z(h) (-H + (h) * 2 * H)
    const double zb = Z(p->floor), zbelt = Z(p->belt);
    const double za = clampd(-H + 2.15 * w.r, zb, zbelt); /* top of the arches */
    const double zu = fmax(za - 0.02 * H, -H);             /* the upper body dips into the skirt */
    const double ztop = Z(1 - p->top), zroof = fmax(Z(1 - p->roof - p->top), zbelt), zglass = fmax(zbelt - 0.02 * H, -H);
    const bool truck = m == SN_MODEL_TRUCK;
    const double x0 = truck ? TRUCK_CAB * L : -NOSE * L, x1 = NOSE * L;

    skirt(b, &w, x0, x1, W, zb, za, !truck);
    /* the body above the arches to the belt: the hood falls to the nose, the deck to the tail */
    const double zn = clampd(Z(p->nose), zu, zbelt), zt = clampd(Z(p->tail), zu, zbelt);
    const double body[6][2] = {{x0, zu}, {x1, zu}, {x1, zn}, {(truck ? 0.95 : 0.86) * L, zbelt}, {truck ? x0 : -0.93 * L, zbelt}, {x0, truck ? zbelt : zt}};
    sn_mb_part(b, SN_MAT_BODY);
    sn_mb_prism(b, body, 6, NOSE * W, 0);
    cabin(b, p, L, W, zglass, zroof, ztop);
    if (m == SN_MODEL_POLICE || m == SN_MODEL_TAXI) {
        /* on the roof's middle: a light bar across it, red on the left (-y), blue on the right,
        ** or a taxi sign */
        const double xm = 0.5 * (p->cab[1] + p->cab[2]) * L, hl = (m == SN_MODEL_POLICE ? 0.07 : 0.10) * L;
        const double z0 = fmax(ztop - 0.01 * H, -H);
        if (m == SN_MODEL_POLICE) {
            sn_mb_part(b, SN_MAT_BAR_RED);
            sn_mb_box(b, NULL, sn_v3(xm - hl, -0.62 * W, z0), sn_v3(xm + hl, -0.01 * W, H));
            sn_mb_part(b, SN_MAT_BAR_BLUE);
            sn_mb_box(b, NULL, sn_v3(xm - hl, 0.01 * W, z0), sn_v3(xm + hl, 0.62 * W, H));
        } else {
            sn_mb_part(b, SN_MAT_TAXI_SIGN);
            sn_mb_box(b, NULL, sn_v3(xm - hl, -0.30 * W, z0), sn_v3(xm + hl, 0.30 * W, H));
        }
    }
    if (p->box_front > -1)
        slab(b, SN_MAT_BODY, -NOSE * L, p->box_front * L, NOSE * W, zglass, H);
    double ztail = zt;
    if (truck) {
        /* chassis under the load, and the load box from above the rear wheels to the top */
        slab(b, SN_MAT_TRIM, -0.97 * L, x0, 0.6 * W, zb, fmin(zb + 0.14 * H, H));
        double zc = fmax(za, fmin(zb + 0.14 * H, H));
        slab(b, SN_MAT_CARGO, -NOSE * L, (TRUCK_CAB - 0.02) * L, NOSE * W, zc, H);
        ztail = fmin(zc + 0.16 * H, H);
    }
    /* bumpers, then lamps standing just proud of the faces */
    const double bump = fmin(zb + 0.18 * H, H);
    slab(b, SN_MAT_TRIM, 0.97 * L, L, 0.95 * W, zb, bump);
    slab(b, SN_MAT_TRIM, -L, -0.97 * L, 0.95 * W, zb, bump);
    lamps(b, SN_MAT_HEADLAMP, 0.975 * L, 0.995 * L, W, fmax(zn - 0.18 * H, zb), fmax(zn - 0.06 * H, zb));
    lamps(b, SN_MAT_TAILLAMP, -0.995 * L, -0.975 * L, W, fmax(ztail - 0.16 * H, -H), fmax(ztail - 0.04 * H, -H));
    wheels_emit(b, &w, s, H);
#undef Z
}
