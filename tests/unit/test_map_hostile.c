/* test_map_hostile.c — maps built to hang or exhaust the loader (issue 33 items 13, 13b, 14,
** 21), each of which kept it busy for minutes to hours or asked for gigabytes on the main of
** 2026-11-28. Each must load (and then be right) or be refused with one "FILE:LINE: ..." line,
** within a SIGALRM of 120 s per case: a test of termination, not of speed (a case takes well
** under a second in a plain build).
**  - a 300 km poly3 road (arc length was integrated from 0 at every evaluation: quadratic):
**    loads, its points match the closed form of a straight poly3;
**  - a spiral of 1 m on a road of 100 km (evaluated 100 km past its end): loads, and past its
**    end the reference line goes straight along its end tangent;
**  - a spiral of length 1e-320 (its curvature rate overflowed: NaN everywhere, "-nan km", and
**    the road mesh's chord rule halved for ever): loads, finite, and the road mesh builds;
**  - 100 000 attributes on one element (libxml2's duplicate check is quadratic), elements
**    nested 100 deep: refused before libxml2 reads them; comments and CDATA are not counted;
**  - 1 000 km of road with 64 lanes a side (loaded in 17 s, then export built 8 GB of lines):
**    refused at load, naming lanes x length;
**  - a road at (1e7, -1e7) (loaded, then traffic refused its lanes), a signal 10 km above its
**    road (loaded, then the scene refused the light's pole): refused at load;
**  - next_until_lane_end(1e-300) (10 million waypoints at one place, item 18): refused. */
#include "../../engine/map/lanemap.h"
#include "../../engine/map/road_mesh.h"
#include "../check.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *current = "";
static void on_alarm(int sig)
{
    (void)sig;
    static const char msg[] = "test_map_hostile: over 120 s (a hang): ";
    ssize_t r = write(2, msg, sizeof msg - 1);
    r = write(2, current, strlen(current));
    r = write(2, "\n", 1);
    (void)r;
    _exit(1);
}

/* One road of `len` m: its plan view, `lanes` driving lanes a side, and `extra` inside <road>. */
static char *road_xml(double len, const char *plan, int lanes, const char *extra)
{
    size_t cap = 4096 + 256 * (size_t)lanes * 2 + strlen(plan) + strlen(extra);
    char *x = malloc(cap), *p = x;
    p += sprintf(p, "<?xml version=\"1.0\"?>\n<OpenDRIVE><header revMajor=\"1\" revMinor=\"4\"/>\n"
                    "<road id=\"1\" length=\"%.17g\" junction=\"-1\"><planView>\n%s</planView>%s\n"
                    "<lanes><laneSection s=\"0\"><left>",
                 len, plan, extra);
    for (int i = lanes; i >= 1; i--)
        p += sprintf(p, "<lane id=\"%d\" type=\"driving\"><width sOffset=\"0\" a=\"3.5\" b=\"0\" c=\"0\" d=\"0\"/></lane>", i);
    p += sprintf(p, "</left><center><lane id=\"0\" type=\"none\"/></center><right>");
    for (int i = 1; i <= lanes; i++)
        p += sprintf(p, "<lane id=\"%d\" type=\"driving\"><width sOffset=\"0\" a=\"3.5\" b=\"0\" c=\"0\" d=\"0\"/></lane>", -i);
    sprintf(p, "</right></laneSection></lanes></road>\n</OpenDRIVE>\n");
    return x;
}

static sn_map *open_case(const char *label, const char *xml, sn_error *err)
{
    current = label;
    alarm(120);
    memset(err, 0, sizeof *err);
    sn_map *m = sn_map_open_memory(xml, strlen(xml), "h.xodr", err);
    alarm(0);
    return m;
}

static void refused(const char *label, const char *xml, const char *want)
{
    sn_error err;
    sn_map *m = open_case(label, xml, &err);
    CHECK(!m, "%s: loaded", label);
    CHECK(!strncmp(err.msg, "h.xodr:", 7) && !strchr(err.msg, '\n') && strstr(err.msg, want),
          "%s: error \"%s\" (wanted one line with \"%s\")", label, err.msg, want);
    sn_map_close(m);
}

int main(void)
{
    signal(SIGALRM, on_alarm);
    sn_error err;
    sn_map_info info = {.struct_size = sizeof info};

    /* 13: a long poly3, v = 0.01 u: s = u sqrt(1.0001) exactly */
    {
        char *x = road_xml(3e5, "<geometry s=\"0\" x=\"0\" y=\"0\" hdg=\"0\" length=\"3e5\"><poly3 a=\"0\" b=\"0.01\" c=\"0\" d=\"0\"/></geometry>\n", 1, "");
        sn_map *m = open_case("300 km poly3", x, &err);
        CHECK(m, "300 km poly3: %s", err.msg);
        if (m) {
            const sn_odr_road *r = &m->odr->roads[0];
            for (double s = 0; s <= 3e5; s += 29999.7) {
                sn_odr_pose p = sn_odr_ref_line(r, s);
                double u = s / sqrt(1.0001);
                CHECK_NEAR(p.x, u, 1e-6, "poly3 x");
                CHECK_NEAR(p.y, 0.01 * u, 1e-6, "poly3 y");
                CHECK_NEAR(p.hdg, atan(0.01), 1e-12, "poly3 heading");
            }
            sn_map_info_get(m, &info, &err);
            CHECK_NEAR(info.driving_km, 600, 1e-3, "driving km of 2 lanes");
            /* 18: next_until_lane_end(1e-300) stood still 10 million times; 0.01 on 300 km asks
            ** for 30 million waypoints */
            sn_waypoint w;
            size_t n = 0;
            CHECK(sn_map_waypoint(m, (sn_vec3){10, 1.8, 0}, true, SN_LANE_DRIVING, &w, &err) == SN_OK, "%s", err.msg);
            current = "next_until_lane_end(1e-300)";
            alarm(120);
            CHECK(sn_map_next_until_lane_end(m, &w, 1e-300, NULL, 0, &n, &err) == SN_E_RANGE &&
                      strstr(err.msg, "[0.01, 1e6]"), "next_until_lane_end(1e-300): %s", err.msg);
            CHECK(sn_map_next_until_lane_end(m, &w, 0.01, NULL, 0, &n, &err) == SN_E_RANGE &&
                      strstr(err.msg, "more than 10000000 waypoints"), "next_until_lane_end(0.01) on 300 km: %s", err.msg);
            CHECK(sn_map_next_until_lane_end(m, &w, 1000, NULL, 0, &n, &err) == SN_OK && n == 300, "every km: %zu", n);
            alarm(0);
        }
        sn_map_close(m);
        free(x);
    }
    /* 13: a spiral of 1 m, curvature 0 -> 1, evaluated 100 km past its end */
    {
        char *x = road_xml(1e5, "<geometry s=\"0\" x=\"0\" y=\"0\" hdg=\"0\" length=\"1\"><spiral curvStart=\"0\" curvEnd=\"1\"/></geometry>\n", 1, "");
        sn_map *m = open_case("extrapolated spiral", x, &err);
        CHECK(m, "extrapolated spiral: %s", err.msg);
        if (m) {
            const sn_odr_road *r = &m->odr->roads[0];
            sn_odr_pose e = sn_odr_geom_eval(&r->geoms[0], 1.0), far = sn_odr_ref_line(r, 5e4);
            CHECK_NEAR(e.hdg, 0.5, 1e-12, "heading at the spiral's end (k/2 * L)");
            CHECK_NEAR(far.x, e.x + (5e4 - 1) * cos(0.5), 1e-6, "straight on past the end, x");
            CHECK_NEAR(far.y, e.y + (5e4 - 1) * sin(0.5), 1e-6, "straight on past the end, y");
            CHECK_NEAR(far.hdg, 0.5, 1e-12, "heading past the end");
        }
        sn_map_close(m);
        free(x);
    }
    /* 13b: a subnormal spiral at the road's end */
    {
        char *x = road_xml(100, "<geometry s=\"0\" x=\"0\" y=\"0\" hdg=\"0\" length=\"100\"><line/></geometry>\n"
                                "<geometry s=\"100\" x=\"100\" y=\"0\" hdg=\"0\" length=\"1e-320\"><spiral curvStart=\"0\" curvEnd=\"0.01\"/></geometry>\n",
                           1, "");
        sn_map *m = open_case("subnormal spiral", x, &err);
        CHECK(m, "subnormal spiral: %s", err.msg);
        if (m) {
            sn_map_info_get(m, &info, &err);
            CHECK_NEAR(info.driving_km, 0.2, 1e-6, "driving km (was -nan)");
            current = "subnormal spiral: road mesh";
            alarm(120);
            sn_road_mesh *rm = NULL;
            CHECK(sn_road_mesh_build(m, &rm, &err) == SN_OK, "road mesh: %s", err.msg);
            alarm(0);
            bool finite = rm && rm->n_v > 0;
            for (uint32_t i = 0; rm && i < rm->n_v; i++)
                finite = finite && isfinite(rm->v[i][0]) && isfinite(rm->v[i][1]) && isfinite(rm->v[i][2]);
            CHECK(finite, "road mesh vertices finite (%u)", rm ? rm->n_v : 0);
            CHECK(rm && rm->hi[0] <= 100 + 1e-6, "the mesh ends at the road's end (%g)", rm ? rm->hi[0] : 0);
            sn_road_mesh_free(rm);
        }
        sn_map_close(m);
        free(x);
    }
    /* A superelevation of c = 1 (22 500 rad at 150 m, found by fuzz_map_mesh): the chord rule
    ** halved every step to its 1 mm floor, 16 s for 150 m in a plain build; now refused, naming
    ** the road and where, in well under a second. */
    {
        char *x = road_xml(150, "<geometry s=\"0\" x=\"0\" y=\"0\" hdg=\"0\" length=\"150\"><line/></geometry>\n", 1,
                           "<lateralProfile><superelevation s=\"0\" a=\"0\" b=\"0.001\" c=\"1\" d=\"0\"/></lateralProfile>");
        sn_map *m = open_case("twisted superelevation", x, &err);
        CHECK(m, "twisted superelevation: the map loads (%s)", err.msg);
        if (m) {
            current = "twisted superelevation: road mesh";
            alarm(120);
            sn_road_mesh *rm = NULL;
            CHECK(sn_road_mesh_build(m, &rm, &err) == SN_E_INVALID && !rm, "road mesh built (%u vertices)", rm ? rm->n_v : 0);
            alarm(0);
            CHECK(!strncmp(err.msg, "h.xodr: road 1 near s = ", 24) && strstr(err.msg, "twists") && !strchr(err.msg, '\n'),
                  "error \"%s\"", err.msg);
            sn_road_mesh_free(rm);
        }
        sn_map_close(m);
        free(x);
    }
    /* 14: attributes and depth, checked on the bytes */
    {
        size_t n = 100000;
        char *attrs = malloc(n * 12 + 64), *p = attrs;
        p += sprintf(p, "<userData");
        for (size_t i = 0; i < n; i++)
            p += sprintf(p, " a%zu=\"1\"", i);
        sprintf(p, "/>");
        char *x = road_xml(100, "<geometry s=\"0\" x=\"0\" y=\"0\" hdg=\"0\" length=\"100\"><line/></geometry>\n", 1, attrs);
        refused("100 000 attributes", x, "XML: an element with 100000 attributes");
        free(x);
        free(attrs);
        char deep[100 * 24 + 64] = "", *d = deep;
        for (int i = 0; i < 100; i++)
            d += sprintf(d, "<userData>");
        for (int i = 0; i < 100; i++)
            d += sprintf(d, "</userData>");
        x = road_xml(100, "<geometry s=\"0\" x=\"0\" y=\"0\" hdg=\"0\" length=\"100\"><line/></geometry>\n", 1, deep);
        refused("100 deep", x, "XML: elements nested more than 64 deep");
        free(x);
        /* what is not a start tag is not counted: '=' and '>' in a comment, CDATA, a value */
        char ok[4096];
        snprintf(ok, sizeof ok, "<!-- %0300d = <a b=c> --><userData code=\"x=1 y=2 >\"><![CDATA[ <q r=1 s=2/> ]]></userData>", 0);
        for (char *c = ok + 5; c < ok + 305; c++)
            *c = '=';
        x = road_xml(100, "<geometry s=\"0\" x=\"0\" y=\"0\" hdg=\"0\" length=\"100\"><line/></geometry>\n", 1, ok);
        sn_map *m = open_case("comment and CDATA", x, &err);
        CHECK(m, "a comment full of '=' and a CDATA section: %s", err.msg);
        sn_map_close(m);
        free(x);
    }
    /* 21: lanes x length, coordinates, a signal's height */
    {
        char *x = road_xml(1e6, "<geometry s=\"0\" x=\"0\" y=\"0\" hdg=\"0\" length=\"1e6\"><line/></geometry>\n", 64, "");
        refused("1 000 km x 128 lanes", x, "lanes add up to more than");
        free(x);
        x = road_xml(100, "<geometry s=\"0\" x=\"1e7\" y=\"-1e7\" hdg=\"0\" length=\"100\"><line/></geometry>\n", 1, "");
        refused("a road at (1e7, -1e7)", x, "farther than 10000 km");
        free(x);
        x = road_xml(100, "<geometry s=\"0\" x=\"0\" y=\"0\" hdg=\"0\" length=\"100\"><line/></geometry>\n", 1,
                     "<signals><signal id=\"7\" s=\"50\" t=\"-5\" zOffset=\"1e4\" dynamic=\"yes\" orientation=\"+\" "
                     "type=\"1000001\" country=\"OpenDRIVE\"/></signals>");
        refused("a signal 10 km up", x, "zOffset");
        free(x);
    }
    return CHECK_DONE();
}
