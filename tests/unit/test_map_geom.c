/* test_map_geom.c — OpenDRIVE evaluation (engine/map/odr_geom.c, odr_lane.c) against closed
** forms and against integrations of this file's own: every plan-view geometry kind, the cubic
** record lists (elevation, superelevation, lane offset, lane widths) at their boundaries,
** sn_odr_section_at's `before` rule, lane borders as sums of widths, widths clamped at 0; a
** road banked 60 degrees (OpenDRIVE's t measured along the superelevated cross-section: lane
** centres, a waypoint, the lane at a point and the road mesh's border vertices in closed form).
** Every input is a small XML string loaded with sn_odr_load_memory, so the parser is read too. */
#include "../../engine/map/lanemap.h"
#include "../../engine/map/odr.h"
#include "../../engine/map/road_mesh.h"
#include "../check.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979323846

static char xml[1 << 16];

/* A document with one road: `geoms` inside <planView>, `extra` after it (profiles, lanes). */
static sn_odr *load_road(double length, const char *geoms, const char *extra)
{
    const char *lanes = "<lanes><laneSection s=\"0\"><center><lane id=\"0\" type=\"none\"/></center><right>"
                        "<lane id=\"-1\" type=\"driving\"><width sOffset=\"0\" a=\"3.5\" b=\"0\" c=\"0\" d=\"0\"/></lane>"
                        "</right></laneSection></lanes>";
    snprintf(xml, sizeof xml,
             "<?xml version=\"1.0\"?>\n<OpenDRIVE><header revMajor=\"1\" revMinor=\"6\" name=\"geom\"/>\n"
             "<road id=\"7\" length=\"%.17g\" junction=\"-1\">\n<planView>\n%s\n</planView>\n%s\n</road>\n</OpenDRIVE>\n",
             length, geoms, extra ? extra : lanes);
    sn_odr *m = NULL;
    sn_error err = {0};
    if (sn_odr_load_memory(xml, strlen(xml), "geom.xodr", &m, &err)) {
        fprintf(stderr, "FAIL: load: %s\n%s\n", err.msg, xml);
        exit(1);
    }
    return m;
}

static sn_odr *load_geom(double x, double y, double hdg, double length, const char *kind)
{
    char g[1024];
    snprintf(g, sizeof g, "<geometry s=\"0\" x=\"%.17g\" y=\"%.17g\" hdg=\"%.17g\" length=\"%.17g\">%s</geometry>", x,
             y, hdg, length, kind);
    return load_road(length, g, NULL);
}

/* Composite Simpson of the clothoid (heading h0 + k0 u + c u^2 / 2) from 0 to L. */
static void simpson_clothoid(double x0, double y0, double h0, double k0, double c, double L, int steps, double *x,
                             double *y)
{
    double h = L / steps, sx = 0, sy = 0;
    for (int i = 0; i <= steps; i++) {
        double u = i * h, th = h0 + k0 * u + 0.5 * c * u * u;
        double w = (i == 0 || i == steps) ? 1 : (i % 2 ? 4 : 2);
        sx += w * cos(th), sy += w * sin(th);
    }
    *x = x0 + sx * h / 3, *y = y0 + sy * h / 3;
}

static void test_line(void)
{
    sn_odr *m = load_geom(12.5, -7.25, 0.7, 150, "<line/>");
    const sn_odr_road *r = &m->roads[0];
    CHECK(r->n_geoms == 1 && r->geoms[0].kind == SN_ODR_LINE, "a line");
    for (double s = 0; s <= 150; s += 12.5) {
        sn_odr_pose p = sn_odr_ref_line(r, s);
        CHECK_NEAR(p.x, 12.5 + s * cos(0.7), 1e-9, "line x");
        CHECK_NEAR(p.y, -7.25 + s * sin(0.7), 1e-9, "line y");
        CHECK_NEAR(p.hdg, 0.7, 1e-12, "line heading");
        CHECK_NEAR(sn_odr_ref_curvature(r, s), 0, 1e-12, "line curvature");
    }
    /* s is clamped to [0, length] */
    sn_odr_pose e = sn_odr_ref_line(r, 500);
    CHECK_NEAR(e.x, 12.5 + 150 * cos(0.7), 1e-9, "line clamped past its end");
    sn_odr_free(m);
}

static void test_arc(void)
{
    const double ks[] = {0.02, -0.02, 0.25, -0.25, 1e-7};
    for (size_t i = 0; i < sizeof ks / sizeof *ks; i++) {
        double k = ks[i], h0 = -2.1, x0 = 100, y0 = 50, len = fmin(200, 5.5 / fabs(k)); /* up to 5.5 rad of turn */
        char kind[64];
        snprintf(kind, sizeof kind, "<arc curvature=\"%.17g\"/>", k);
        sn_odr *m = load_geom(x0, y0, h0, len, kind);
        const sn_odr_road *r = &m->roads[0];
        CHECK(r->geoms[0].kind == SN_ODR_ARC && r->geoms[0].curv == k, "an arc of curvature %g", k);
        /* centre: 1/k to the left of the start */
        double cx = x0 - sin(h0) / k, cy = y0 + cos(h0) / k;
        double worst = 0;
        for (int j = 0; j <= 40; j++) {
            double s = len * j / 40;
            sn_odr_pose p = sn_odr_ref_line(r, s);
            double th = h0 + k * s;
            double ex = cx + sin(th) / k, ey = cy - cos(th) / k;
            if (fabs(k) > 1e-6) {
                worst = fmax(worst, hypot(p.x - ex, p.y - ey));
                CHECK_NEAR(hypot(p.x - cx, p.y - cy), 1 / fabs(k), 1e-7, "arc radius");
            } else { /* a near-straight arc: against the chord formula, no cancellation */
                double lx = s - k * k * s * s * s / 6, ly = k * s * s / 2;
                worst = fmax(worst, hypot(p.x - (x0 + cos(h0) * lx - sin(h0) * ly), p.y - (y0 + sin(h0) * lx + cos(h0) * ly)));
            }
            CHECK_NEAR(p.hdg, th, 1e-12, "arc heading");
            CHECK_NEAR(sn_odr_ref_curvature(r, s), k, 1e-12, "arc curvature");
        }
        CHECK(worst < 1e-8, "arc k=%g: worst point error %.3g m", k, worst);
        sn_odr_free(m);
    }
}

static void test_spiral(void)
{
    static const struct {
        double k0, k1, len;
    } c[] = {
        {0, 0.02, 300},    {0, -0.02, 300},   {0, 0.05, 300},    {0, -0.05, 300},   {0, 0.1, 12.5},
        {0, -0.1, 12.5},   {0.01, 0.05, 300}, {-0.01, -0.05, 300}, {0.03, -0.02, 300}, {-0.03, 0.02, 300},
        {0.2, 0.1, 8},     {-0.2, -0.1, 8},   {0.004, 0.004, 300}, {0, 0.0001, 300}, {0.5, -0.5, 6},
    };
    double worst_p = 0, worst_h = 0;
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        double x0 = -40, y0 = 1234.5, h0 = 0.3 + (double)i;
        char kind[128];
        snprintf(kind, sizeof kind, "<spiral curvStart=\"%.17g\" curvEnd=\"%.17g\"/>", c[i].k0, c[i].k1);
        sn_odr *m = load_geom(x0, y0, h0, c[i].len, kind);
        const sn_odr_road *r = &m->roads[0];
        CHECK(r->geoms[0].kind == SN_ODR_SPIRAL, "a spiral");
        double cc = (c[i].k1 - c[i].k0) / c[i].len;
        const double fr[] = {0.25, 0.5, 1.0};
        for (int j = 0; j < 3; j++) {
            double s = c[i].len * fr[j], ex, ey;
            simpson_clothoid(x0, y0, h0, c[i].k0, cc, s, 200000, &ex, &ey);
            sn_odr_pose p = sn_odr_ref_line(r, s);
            double dp = hypot(p.x - ex, p.y - ey), dh = fabs(p.hdg - (h0 + c[i].k0 * s + 0.5 * cc * s * s));
            worst_p = fmax(worst_p, dp), worst_h = fmax(worst_h, dh);
            CHECK(dp < 1e-6, "spiral %g -> %g over %g m, at s=%g: %.3g m from the integration", c[i].k0, c[i].k1,
                  c[i].len, s, dp);
            CHECK(dh < 1e-9, "spiral %g -> %g, at s=%g: heading off by %.3g rad", c[i].k0, c[i].k1, s, dh);
            CHECK_NEAR(sn_odr_ref_curvature(r, s), c[i].k0 + cc * s, 1e-12, "spiral curvature");
        }
        sn_odr_free(m);
    }
    printf("spiral: worst end point %.3g m, heading %.3g rad vs Simpson (200000 steps)\n", worst_p, worst_h);
    /* the integration itself against the Fresnel-free check: a circle (constant curvature) */
    double ex, ey;
    simpson_clothoid(0, 0, 0, 0.05, 0, 40, 200000, &ex, &ey);
    CHECK_NEAR(ex, sin(2.0) / 0.05, 1e-9, "Simpson on a circle, x");
    CHECK_NEAR(ey, (1 - cos(2.0)) / 0.05, 1e-9, "Simpson on a circle, y");
}

/* poly3: v(u) = a + b u + c u^2 + d u^3 in the local frame; the point at ds lies on the cubic
** and the arc length from u = 0 to it is ds. */
static void test_poly3(void)
{
    static const double co[][5] = {{0.5, 0.1, 0.01, -0.0002, 80}, {0, 0, -0.004, 0.00005, 120}, {-1, 0.3, 0, 0, 40},
                                   {0, -0.2, 0.03, -0.0004, 60}};
    for (size_t i = 0; i < sizeof co / sizeof *co; i++) {
        double a = co[i][0], b = co[i][1], c = co[i][2], d = co[i][3], len = co[i][4];
        double x0 = 7, y0 = -3, h0 = 2.5;
        char kind[200];
        snprintf(kind, sizeof kind, "<poly3 a=\"%.17g\" b=\"%.17g\" c=\"%.17g\" d=\"%.17g\"/>", a, b, c, d);
        sn_odr *m = load_geom(x0, y0, h0, len, kind);
        const sn_odr_road *r = &m->roads[0];
        CHECK(r->geoms[0].kind == SN_ODR_POLY3, "a poly3");
        for (int j = 0; j <= 8; j++) {
            double ds = len * j / 8;
            sn_odr_pose p = sn_odr_ref_line(r, ds);
            double dx = p.x - x0, dy = p.y - y0;
            double u = dx * cos(h0) + dy * sin(h0), v = -dx * sin(h0) + dy * cos(h0);
            CHECK_NEAR(v, a + u * (b + u * (c + u * d)), 1e-9, "poly3 point on the cubic");
            /* arc length from 0 to u, Simpson, 200000 steps */
            int n = 200000;
            double h = u / n, sum = 0;
            for (int k = 0; k <= n; k++) {
                double t = k * h, dv = b + t * (2 * c + 3 * d * t);
                sum += ((k == 0 || k == n) ? 1 : (k % 2 ? 4 : 2)) * sqrt(1 + dv * dv);
            }
            CHECK_NEAR(sum * h / 3, ds, 1e-6, "poly3 arc length to the point at ds");
            CHECK_NEAR(p.hdg, h0 + atan(b + u * (2 * c + 3 * d * u)), 1e-9, "poly3 heading");
        }
        sn_odr_free(m);
    }
}

static void test_parampoly3(void)
{
    for (int norm = 0; norm < 2; norm++) {
        double len = 50, x0 = -300, y0 = 20, h0 = -0.8;
        /* the same curve written both ways: normalized coefficients are arcLength ones times len^k */
        double U[4] = {0.5, 1.0, -0.004, 0.00003}, V[4] = {-0.2, 0.05, 0.006, -0.00004};
        double cu[4], cv[4];
        for (int k = 0; k < 4; k++)
            cu[k] = norm ? U[k] * pow(len, k) : U[k], cv[k] = norm ? V[k] * pow(len, k) : V[k];
        char kind[512];
        snprintf(kind, sizeof kind,
                 "<paramPoly3 aU=\"%.17g\" bU=\"%.17g\" cU=\"%.17g\" dU=\"%.17g\" aV=\"%.17g\" bV=\"%.17g\" "
                 "cV=\"%.17g\" dV=\"%.17g\" pRange=\"%s\"/>",
                 cu[0], cu[1], cu[2], cu[3], cv[0], cv[1], cv[2], cv[3], norm ? "normalized" : "arcLength");
        sn_odr *m = load_geom(x0, y0, h0, len, kind);
        const sn_odr_road *r = &m->roads[0];
        CHECK(r->geoms[0].kind == SN_ODR_PARAMPOLY3 && r->geoms[0].normalized == (norm == 1), "paramPoly3 pRange");
        for (int j = 0; j <= 10; j++) {
            double ds = len * j / 10, p = norm ? ds / len : ds;
            double u = cu[0] + p * (cu[1] + p * (cu[2] + p * cu[3])), v = cv[0] + p * (cv[1] + p * (cv[2] + p * cv[3]));
            double du = cu[1] + p * (2 * cu[2] + 3 * cu[3] * p), dv = cv[1] + p * (2 * cv[2] + 3 * cv[3] * p);
            sn_odr_pose q = sn_odr_ref_line(r, ds);
            CHECK_NEAR(q.x, x0 + cos(h0) * u - sin(h0) * v, 1e-9, norm ? "normalized x" : "arcLength x");
            CHECK_NEAR(q.y, y0 + sin(h0) * u + cos(h0) * v, 1e-9, norm ? "normalized y" : "arcLength y");
            CHECK_NEAR(q.hdg, h0 + atan2(dv, du), 1e-12, "paramPoly3 heading");
            /* both spellings describe the same curve */
            double pa = ds, ua = U[0] + pa * (U[1] + pa * (U[2] + pa * U[3]));
            CHECK_NEAR(u, ua, 1e-9, "the normalized and arcLength spellings agree");
        }
        sn_odr_free(m);
    }
    /* No pRange (OpenDRIVE 1.4): arcLength. */
    sn_odr *m = load_geom(0, 0, 0, 10, "<paramPoly3 aU=\"0\" bU=\"1\" cU=\"0\" dU=\"0\" aV=\"0\" bV=\"0\" cV=\"0.01\" dV=\"0\"/>");
    CHECK(!m->roads[0].geoms[0].normalized, "no pRange reads as arcLength");
    CHECK_NEAR(sn_odr_ref_line(&m->roads[0], 10).y, 1.0, 1e-12, "paramPoly3 without pRange at p = ds");
    sn_odr_free(m);
}

/* A road of several pieces: sn_odr_ref_line picks the piece whose start is <= s. */
static void test_pieces(void)
{
    sn_odr *m = load_road(60,
                          "<geometry s=\"0\" x=\"0\" y=\"0\" hdg=\"0\" length=\"20\"><line/></geometry>"
                          "<geometry s=\"20\" x=\"20\" y=\"0\" hdg=\"0\" length=\"20\"><arc curvature=\"0.05\"/></geometry>"
                          "<geometry s=\"40\" x=\"500\" y=\"500\" hdg=\"1\" length=\"20\"><line/></geometry>",
                          NULL);
    const sn_odr_road *r = &m->roads[0];
    CHECK(r->n_geoms == 3, "three pieces");
    CHECK(sn_odr_geom_at(r, 19.999) == 0 && sn_odr_geom_at(r, 20) == 1 && sn_odr_geom_at(r, 40) == 2 &&
              sn_odr_geom_at(r, 39.9999) == 1 && sn_odr_geom_at(r, 60) == 2, "the piece at s");
    sn_odr_pose p = sn_odr_ref_line(r, 40);
    CHECK(p.x == 500 && p.y == 500 && p.hdg == 1, "s=40 starts the third piece (%g, %g)", p.x, p.y);
    p = sn_odr_ref_line(r, 40 - 1e-6);
    CHECK_NEAR(p.x, 20 + sin(1.0) / 0.05, 1e-5, "just before 40: the end of the arc");
    sn_odr_free(m);
}

static double cubic(double a, double b, double c, double d, double ds) { return a + ds * (b + ds * (c + ds * d)); }

static void test_profiles(void)
{
    /* records given out of order are sorted */
    const char *extra =
        "<elevationProfile><elevation s=\"0\" a=\"1\" b=\"0.1\" c=\"0\" d=\"0\"/>"
        "<elevation s=\"50\" a=\"12\" b=\"0\" c=\"0\" d=\"0.0001\"/>"
        "<elevation s=\"20\" a=\"3\" b=\"0\" c=\"0.01\" d=\"0\"/></elevationProfile>"
        "<lateralProfile><superelevation s=\"0\" a=\"0\" b=\"0.001\" c=\"0\" d=\"0\"/>"
        "<superelevation s=\"30\" a=\"0.05\" b=\"0\" c=\"0\" d=\"0\"/>"
        "<superelevation s=\"70\" a=\"-0.02\" b=\"0.0005\" c=\"0\" d=\"0\"/></lateralProfile>"
        "<lanes><laneOffset s=\"0\" a=\"0\" b=\"0\" c=\"0\" d=\"0\"/><laneOffset s=\"25\" a=\"0.5\" b=\"0.02\" c=\"0\" d=\"0\"/>"
        "<laneOffset s=\"60\" a=\"1.2\" b=\"0\" c=\"-0.001\" d=\"0.00001\"/>"
        "<laneSection s=\"0\"><left><lane id=\"1\" type=\"driving\"><width sOffset=\"0\" a=\"3\" b=\"0\" c=\"0\" d=\"0\"/></lane></left>"
        "<center><lane id=\"0\" type=\"none\"/></center>"
        "<right><lane id=\"-1\" type=\"driving\"><width sOffset=\"0\" a=\"3.5\" b=\"0\" c=\"0\" d=\"0\"/></lane></right></laneSection>"
        "<laneSection s=\"30\"><left><lane id=\"2\" type=\"sidewalk\"><border sOffset=\"0\" a=\"9\" b=\"0\" c=\"0\" d=\"0\"/></lane>"
        "<lane id=\"1\" type=\"driving\"><width sOffset=\"0\" a=\"3\" b=\"0\" c=\"0\" d=\"0\"/></lane></left>"
        "<center><lane id=\"0\" type=\"none\"/></center>"
        "<right><lane id=\"-1\" type=\"driving\"><width sOffset=\"0\" a=\"3\" b=\"0\" c=\"0\" d=\"0\"/>"
        "<width sOffset=\"10\" a=\"3\" b=\"0.05\" c=\"0\" d=\"0\"/><width sOffset=\"25\" a=\"3.75\" b=\"0\" c=\"-0.001\" d=\"0\"/></lane>"
        "<lane id=\"-2\" type=\"shoulder\"><width sOffset=\"0\" a=\"1\" b=\"-0.1\" c=\"0\" d=\"0\"/></lane>"
        "<lane id=\"-3\" type=\"sidewalk\"><width sOffset=\"0\" a=\"2\" b=\"0\" c=\"0\" d=\"0\"/></lane></right></laneSection>"
        "<laneSection s=\"60\"><center><lane id=\"0\" type=\"none\"/></center>"
        "<right><lane id=\"-1\" type=\"driving\"><width sOffset=\"0\" a=\"4\" b=\"0\" c=\"0\" d=\"0\"/></lane></right></laneSection>"
        "</lanes>";
    sn_odr *m = load_road(100, "<geometry s=\"0\" x=\"0\" y=\"0\" hdg=\"0\" length=\"100\"><line/></geometry>", extra);
    const sn_odr_road *r = &m->roads[0];
    CHECK(r->n_elevation == 3 && r->n_superelevation == 3 && r->n_lane_offset == 3 && r->n_sections == 3, "records");
    /* elevation: at each record's start, that record; just before, the previous one */
    CHECK_NEAR(sn_odr_elevation(r, 0), 1, 1e-12, "elevation at 0");
    CHECK_NEAR(sn_odr_elevation(r, 20 - 1e-6), cubic(1, 0.1, 0, 0, 20 - 1e-6), 1e-12, "elevation before 20");
    CHECK_NEAR(sn_odr_elevation(r, 20), 3, 1e-12, "elevation at 20 (second record)");
    CHECK_NEAR(sn_odr_elevation(r, 35), cubic(3, 0, 0.01, 0, 15), 1e-12, "elevation at 35");
    CHECK_NEAR(sn_odr_elevation(r, 50), 12, 1e-12, "elevation at 50 (third record, sorted)");
    CHECK_NEAR(sn_odr_elevation(r, 100), cubic(12, 0, 0, 0.0001, 50), 1e-12, "elevation at the end");
    CHECK_NEAR(sn_odr_poly_slope(r->elevation, r->n_elevation, 35), 2 * 0.01 * 15, 1e-12, "elevation slope");
    CHECK_NEAR(sn_odr_superelevation(r, 29.999), cubic(0, 0.001, 0, 0, 29.999), 1e-12, "superelevation before 30");
    CHECK_NEAR(sn_odr_superelevation(r, 30), 0.05, 1e-12, "superelevation at 30");
    CHECK_NEAR(sn_odr_superelevation(r, 70), -0.02, 1e-12, "superelevation at 70");
    CHECK_NEAR(sn_odr_superelevation(r, 90), cubic(-0.02, 0.0005, 0, 0, 20), 1e-12, "superelevation at 90");
    CHECK_NEAR(sn_odr_lane_offset(r, 24.999), 0, 1e-12, "lane offset before 25");
    CHECK_NEAR(sn_odr_lane_offset(r, 25), 0.5, 1e-12, "lane offset at 25");
    CHECK_NEAR(sn_odr_lane_offset(r, 45), cubic(0.5, 0.02, 0, 0, 20), 1e-12, "lane offset at 45");
    CHECK_NEAR(sn_odr_lane_offset(r, 60), 1.2, 1e-12, "lane offset at 60");
    CHECK_NEAR(sn_odr_lane_offset(r, 80), cubic(1.2, 0, -0.001, 0.00001, 20), 1e-12, "lane offset at 80");

    /* sections and the `before` rule */
    CHECK(sn_odr_section_at(r, 0, false) == 0 && sn_odr_section_at(r, 0, true) == 0, "section at 0");
    CHECK(sn_odr_section_at(r, 29.9, true) == 0 && sn_odr_section_at(r, 29.9, false) == 0, "section at 29.9");
    CHECK(sn_odr_section_at(r, 30, false) == 1, "s=30 after: the section that starts there");
    CHECK(sn_odr_section_at(r, 30, true) == 0, "s=30 before: the section that ends there");
    CHECK(sn_odr_section_at(r, 45, true) == 1 && sn_odr_section_at(r, 45, false) == 1, "section at 45");
    CHECK(sn_odr_section_at(r, 60, true) == 1 && sn_odr_section_at(r, 60, false) == 2, "s=60 both ways");
    CHECK(sn_odr_section_at(r, 100, true) == 2 && sn_odr_section_at(r, 100, false) == 2, "section at the end");
    CHECK(r->sections[0].s_end == 30 && r->sections[1].s_end == 60 && r->sections[2].s_end == 100, "section ends");

    /* widths: records at sOffset from the section's start (30) */
    const sn_odr_section *sec = &r->sections[1];
    const sn_odr_lane *l1 = sn_odr_lane_of(sec, -1), *l2 = sn_odr_lane_of(sec, -2), *l3 = sn_odr_lane_of(sec, -3);
    CHECK(l1 && l2 && l3 && l1->n_widths == 3 && !sn_odr_lane_of(sec, -4) && !sn_odr_lane_of(sec, 3), "lanes of section 1");
    CHECK(sec->n_left == 2 && sec->n_right == 3 && sec->n_lanes == 6 && sec->lanes[sec->n_right].id == 0, "lane order");
    CHECK_NEAR(sn_odr_lane_width(sec, l1, 39.999), 3, 1e-12, "width before sOffset 10");
    CHECK_NEAR(sn_odr_lane_width(sec, l1, 40), 3, 1e-12, "width at sOffset 10");
    CHECK_NEAR(sn_odr_lane_width(sec, l1, 50), cubic(3, 0.05, 0, 0, 10), 1e-12, "width at sOffset 20");
    CHECK_NEAR(sn_odr_lane_width(sec, l1, 55), 3.75, 1e-12, "width at sOffset 25");
    CHECK_NEAR(sn_odr_lane_width(sec, l1, 59), cubic(3.75, 0, -0.001, 0, 4), 1e-12, "width at sOffset 29");
    /* lane -2 narrows to 0 at sOffset 10 and would be negative after: clamped */
    CHECK_NEAR(sn_odr_lane_width(sec, l2, 35), 0.5, 1e-12, "shoulder width at sOffset 5");
    CHECK(sn_odr_lane_width(sec, l2, 45) == 0, "shoulder width clamped at 0 (got %g)", sn_odr_lane_width(sec, l2, 45));
    CHECK(sn_odr_lane_width(sec, sn_odr_lane_of(sec, 0), 45) == 0, "the centre lane has no width");
    CHECK(sn_odr_lane_width(sec, sn_odr_lane_of(sec, 2), 45) == 0, "a <border> lane has no width");

    /* borders: the lane offset plus the widths outward; a clamped lane adds nothing */
    for (double s = 30; s <= 60; s += 2.5) {
        double off = sn_odr_lane_offset(r, s);
        double w1 = sn_odr_lane_width(sec, l1, s), w2 = fmax(0, 1 - 0.1 * (s - 30)), w3 = 2;
        CHECK_NEAR(sn_odr_lane_border(r, sec, 0, s), off, 1e-12, "border of the centre lane");
        CHECK_NEAR(sn_odr_lane_border(r, sec, -1, s), off - w1, 1e-12, "border -1");
        CHECK_NEAR(sn_odr_lane_border(r, sec, -2, s), off - w1 - w2, 1e-9, "border -2");
        CHECK_NEAR(sn_odr_lane_border(r, sec, -3, s), off - w1 - w2 - w3, 1e-9, "border -3");
        CHECK_NEAR(sn_odr_lane_border(r, sec, 1, s), off + 3, 1e-12, "border 1");
        CHECK_NEAR(sn_odr_lane_border(r, sec, 2, s), off + 9, 1e-12, "border 2 (a <border> record: t from the centre)");
        double a, b;
        sn_odr_lane_span(r, sec, -2, s, &a, &b);
        CHECK_NEAR(a, off - w1, 1e-12, "span -2 inner");
        CHECK_NEAR(b, off - w1 - w2, 1e-9, "span -2 outer");
        sn_odr_lane_span(r, sec, 0, s, &a, &b);
        CHECK(a == b, "the centre lane spans nothing");
    }

    /* a 3-D point: t along the left normal rolled by the superelevation (0.05 rad at s = 45), h
    ** along the rolled normal, lifted by elevation */
    double p[3], se = 0.05;
    sn_odr_point(r, 45, -2, 0.5, p);
    CHECK_NEAR(p[0], 45, 1e-12, "point x");
    CHECK_NEAR(p[1], -2 * cos(se) - 0.5 * sin(se), 1e-12, "point y");
    CHECK_NEAR(p[2], cubic(3, 0, 0.01, 0, 25) - 2 * sin(se) + 0.5 * cos(se), 1e-12, "point z");
    sn_odr_free(m);
}

/* A straight road banked phi = 60 degrees (esmini's velodrome.xosc), 2 m up, lanes -1..-3 of 3 m
** (centres t = -1.5, -4.5, -7.5) and lane 1 of 3.5 m. OpenDRIVE (and esmini's Track2XYZ) measure
** t along the rolled cross-section: a lane centre lies |t| cos phi out and t sin phi up (the
** rule before laid |t| out and lifted it |t| tan phi: the centres were 0.75, 2.25, 3.75 m too far
** out and 1.30, 3.90, 6.50 m off in height). */
static void test_banked(void)
{
    const double phi = PI / 3, z0 = 2;
    const char *extra =
        "<elevationProfile><elevation s=\"0\" a=\"2\" b=\"0\" c=\"0\" d=\"0\"/></elevationProfile>"
        "<lateralProfile><superelevation s=\"0\" a=\"1.0471975511965976\" b=\"0\" c=\"0\" d=\"0\"/></lateralProfile>"
        "<lanes><laneSection s=\"0\"><left><lane id=\"1\" type=\"driving\"><width sOffset=\"0\" a=\"3.5\" b=\"0\" c=\"0\" d=\"0\"/></lane></left>"
        "<center><lane id=\"0\" type=\"none\"/></center><right>"
        "<lane id=\"-1\" type=\"driving\"><width sOffset=\"0\" a=\"3\" b=\"0\" c=\"0\" d=\"0\"/></lane>"
        "<lane id=\"-2\" type=\"driving\"><width sOffset=\"0\" a=\"3\" b=\"0\" c=\"0\" d=\"0\"/></lane>"
        "<lane id=\"-3\" type=\"driving\"><width sOffset=\"0\" a=\"3\" b=\"0\" c=\"0\" d=\"0\"/></lane>"
        "</right></laneSection></lanes>";
    sn_odr *o = load_road(100, "<geometry s=\"0\" x=\"0\" y=\"0\" hdg=\"0\" length=\"100\"><line/></geometry>", extra);
    const sn_odr_road *r = &o->roads[0];
    const sn_odr_section *sec = &r->sections[0];
    const double centre[4] = {1.75, -1.5, -4.5, -7.5};
    const int ids[4] = {1, -1, -2, -3};
    for (int i = 0; i < 4; i++) {
        double a, b, p[3];
        sn_odr_lane_span(r, sec, ids[i], 40, &a, &b);
        CHECK(fabs((0.5 * (a + b)) - (centre[i])) <= 1e-12, "lane %d's centre t", ids[i]);
        sn_odr_point(r, 40, centre[i], 0, p);
        CHECK(fabs((p[0]) - (40)) <= 1e-3, "lane %d's centre x", ids[i]);
        CHECK(fabs((p[1]) - (centre[i] * cos(phi))) <= 1e-3, "lane %d's centre: t cos phi out (got %g)", ids[i], p[1]);
        CHECK(fabs((p[2]) - (z0 + centre[i] * sin(phi))) <= 1e-3, "lane %d's centre: t sin phi up (got %g)", ids[i], p[2]);
        /* h is along the rolled normal, perpendicular to the cross-section */
        double q[3];
        sn_odr_point(r, 40, centre[i], 1, q);
        CHECK_NEAR(q[1] - p[1], -sin(phi), 1e-9, "h along the rolled normal (out)");
        CHECK_NEAR(q[2] - p[2], cos(phi), 1e-9, "h along the rolled normal (up)");
        CHECK_NEAR(sn_odr_t_of(r, 40, p[1]), centre[i], 1e-9, "sn_odr_t_of inverts the cross-section");
    }
    sn_odr_free(o);

    /* the same road as a lane map: waypoints, the lane at a point, the road mesh */
    sn_error err = {0};
    sn_map *m = sn_map_open_memory(xml, strlen(xml), "banked.xodr", &err);
    CHECK(m != NULL, "banked map: %s", err.msg);
    if (!m)
        return;
    for (int i = 1; i < 4; i++) {
        sn_waypoint w;
        sn_map_make_waypoint(m, (sn_lanekey){0, 0, ids[i]}, 40, &w);
        /* the world frame is CARLA's: y = -OpenDRIVE y */
        sn_vec3 l = w.transform.location;
        CHECK(fabs(l.x - 40) < 1e-3 && fabs(l.y + centre[i] * cos(phi)) < 1e-3 && fabs(l.z - z0 - centre[i] * sin(phi)) < 1e-3,
              "lane %d's waypoint at (40, %.4f, %.4f), got (%g, %g, %g)", ids[i], -centre[i] * cos(phi),
              z0 + centre[i] * sin(phi), l.x, l.y, l.z);
        CHECK(fabs((w.transform.rotation.roll) - (60)) <= 1e-9, "lane %d's waypoint rolls with the road (dir * phi, got %g)", ids[i], w.transform.rotation.roll);
        sn_map_place pl;
        CHECK(sn_map_locate(m, l, 1.0, 0, &pl), "lane %d's centre is on the road", ids[i]);
        CHECK(pl.lane == ids[i] && fabs(pl.t - centre[i]) < 1e-3 && fabs(pl.s - 40) < 1e-3 && fabs(pl.dz) < 1e-3,
              "the lane at lane %d's centre: lane %d, s %g, t %g, dz %g", ids[i], pl.lane, pl.s, pl.t, pl.dz);
        /* a point 1 m outside the lane's border across the bank: outside measured along t */
        double bx[3];
        sn_odr_point(&m->odr->roads[0], 40, -10, 0, bx);
        CHECK(sn_map_locate(m, sn_map_world(bx), 2.0, 0, &pl) && pl.lane == -4 && fabs(pl.outside - 1) < 1e-3,
              "1 m beyond the outer border: lane %d, outside %g", pl.lane, pl.outside);
    }
    sn_road_mesh *rm = NULL;
    CHECK(sn_road_mesh_build(m, &rm, &err) == SN_OK, "banked mesh: %s", err.msg);
    if (rm) {
        /* every vertex on the banked plane z = z0 + tan(phi) y_odr, within |t| <= 9 of it: the
        ** outer border of lane -3 at y_odr = -9 cos phi, that of lane 1 at 3.5 cos phi */
        double lo = INFINITY, hi = -INFINITY, worst = 0;
        for (uint32_t i = 0; i < rm->n_v; i++) {
            double y = -rm->v[i][1], z = rm->v[i][2];
            worst = fmax(worst, fabs((z - z0) * cos(phi) - y * sin(phi))); /* distance from the plane */
            lo = fmin(lo, y), hi = fmax(hi, y);
            if (fabs(y + 9 * cos(phi)) < 1e-3)
                CHECK_NEAR(z, z0 - 9 * sin(phi), 1e-3, "a vertex on lane -3's outer border: t = -9 along the bank");
        }
        CHECK(rm->n_v > 0 && worst < 1e-6, "the mesh lies on the banked plane (%u vertices, worst %g m off)", rm->n_v, worst);
        CHECK_NEAR(lo, -9 * cos(phi), 1e-3, "the mesh's outer right edge: lane -3's border, 9 cos phi out");
        CHECK_NEAR(hi, 3.5 * cos(phi), 1e-3, "the mesh's outer left edge: lane 1's border, 3.5 cos phi out");
        sn_road_mesh_free(rm);
    }
    sn_map_close(m);
}

int main(void)
{
    test_line();
    test_arc();
    test_spiral();
    test_poly3();
    test_parampoly3();
    test_pieces();
    test_profiles();
    test_banked();
    return CHECK_DONE();
}
