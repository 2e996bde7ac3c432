/* junction_map.h — a small hand-made OpenDRIVE map for the map tests (test_map_query,
** test_map_bad, the fuzz corpus): four straight arms of 100 m (ids 1 east, 2 north, 3 west,
** 4 south) around a 4-way junction (id 100) whose square is [-10, 10]^2, and 12 connecting
** roads (ids 101..112: straight lines of 20 m, right and left quarter arcs of radius 10).
**
** Arms 1 and 2 start at the junction and run outward (predecessor = junction, contact start);
** arms 3 and 4 run inward and end at it (successor = junction, contact end), so both contact
** points are exercised. Every arm has lanes 2 sidewalk (2 m), 1 driving (3.5 m), 0, -1 driving,
** -2 sidewalk; road marks: lane +-1 "solid" white, centre "solid solid" yellow, sidewalks none.
** Arm 3 has a second lane section from s = 50 whose centre mark is "broken" (explicit lane
** links across it). Arm 2 climbs at 3 % (elevation 0 at the junction). Connecting roads carry
** one driving lane, -1, whose centre follows the lanes of the arms.
**
** Ground truth the tests use: lane -1 of an outward arm at s has its centre at
** 10 u + s u + 1.75 r (u the arm's outward unit, r = its right normal), and so on. */
#ifndef SN_TEST_JUNCTION_MAP_H
#define SN_TEST_JUNCTION_MAP_H

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct jm_buf {
    char *p;
    size_t n, cap;
} jm_buf;

static void jm_put(jm_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void jm_put(jm_buf *b, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int k = vsnprintf(b->p ? b->p + b->n : NULL, b->p ? b->cap - b->n : 0, fmt, ap);
        va_end(ap);
        if (k >= 0 && b->p && b->n + (size_t)k < b->cap) {
            b->n += (size_t)k;
            return;
        }
        size_t nc = (b->cap ? b->cap * 2 : 4096) + (size_t)(k > 0 ? k : 0);
        char *np = realloc(b->p, nc);
        if (!np) {
            fprintf(stderr, "junction_map.h: out of memory\n");
            exit(1);
        }
        b->p = np, b->cap = nc;
    }
}

#define JM_PI 3.14159265358979323846
#define JM_HALF 10.0  /* m, half the junction's side */
#define JM_ARM 100.0  /* m, length of an arm */
#define JM_LANE 3.5
#define JM_WALK 2.0

static bool jm_outward(int arm) { return arm < 2; }
static double jm_phi(int arm) { return arm * JM_PI / 2; } /* outward direction of an arm */
static int jm_arm_id(int arm) { return arm + 1; }
/* The arm's lane that travels into the junction, and the one that leaves it. */
static int jm_in_lane(int arm) { return jm_outward(arm) ? 1 : -1; }
static int jm_out_lane(int arm) { return jm_outward(arm) ? -1 : 1; }
static int jm_conn_id(int a, int b) { return 101 + a * 3 + ((b - a + 4) % 4 - 1); }

static void jm_lane(jm_buf *b, int id, const char *type, double w, const char *mark, const char *color,
                    const char *link)
{
    jm_put(b, "        <lane id=\"%d\" type=\"%s\" level=\"false\">%s\n"
              "          <width sOffset=\"0\" a=\"%g\" b=\"0\" c=\"0\" d=\"0\"/>\n"
              "          <roadMark sOffset=\"0\" type=\"%s\" color=\"%s\" width=\"0.15\"/>\n"
              "        </lane>\n", id, type, link, w, mark, color);
}

static void jm_section(jm_buf *b, double s, const char *centre_mark, const char *centre_color, int links)
{
    /* links: 0 none, 1 successors (same ids), 2 predecessors (same ids) */
    char l[4][96];
    const int ids[4] = {2, 1, -1, -2};
    for (int i = 0; i < 4; i++)
        snprintf(l[i], sizeof l[i], links ? "<link><%s id=\"%d\"/></link>" : "%s",
                 links == 1 ? "successor" : links == 2 ? "predecessor" : "", ids[i]);
    jm_put(b, "      <laneSection s=\"%g\">\n        <left>\n", s);
    jm_lane(b, 2, "sidewalk", JM_WALK, "none", "standard", l[0]);
    jm_lane(b, 1, "driving", JM_LANE, "solid", "standard", l[1]);
    jm_put(b, "        </left>\n        <center>\n        <lane id=\"0\" type=\"none\" level=\"false\">\n"
              "          <roadMark sOffset=\"0\" type=\"%s\" color=\"%s\" width=\"0.125\"/>\n        </lane>\n"
              "        </center>\n        <right>\n", centre_mark, centre_color);
    jm_lane(b, -1, "driving", JM_LANE, "solid", "standard", l[2]);
    jm_lane(b, -2, "sidewalk", JM_WALK, "none", "standard", l[3]);
    jm_put(b, "        </right>\n      </laneSection>\n");
}

/* The map's text (malloc'd, NUL-terminated); *len its length. */
static char *jm_xml(size_t *len)
{
    jm_buf b = {0};
    jm_put(&b, "<?xml version=\"1.0\" standalone=\"yes\"?>\n<OpenDRIVE>\n"
               "  <header revMajor=\"1\" revMinor=\"4\" name=\"junction4\" version=\"1\" north=\"110\" south=\"-110\""
               " east=\"110\" west=\"-110\">\n"
               "    <geoReference><![CDATA[+proj=tmerc +lat_0=49 +lon_0=8 +k=1 +x_0=0 +y_0=0 +datum=WGS84 +units=m]]>"
               "</geoReference>\n  </header>\n");
    for (int arm = 0; arm < 4; arm++) {
        double ux = cos(jm_phi(arm)), uy = sin(jm_phi(arm));
        ux = fabs(ux) < 1e-12 ? 0 : ux, uy = fabs(uy) < 1e-12 ? 0 : uy;
        bool out = jm_outward(arm);
        double x0 = out ? JM_HALF * ux : (JM_HALF + JM_ARM) * ux, y0 = out ? JM_HALF * uy : (JM_HALF + JM_ARM) * uy;
        double hdg = out ? jm_phi(arm) : jm_phi(arm) + JM_PI;
        jm_put(&b, "  <road name=\"arm%d\" length=\"%g\" id=\"%d\" junction=\"-1\">\n    <link>\n"
                   "      <%s elementType=\"junction\" elementId=\"100\"/>\n    </link>\n"
                   "    <type s=\"0\" type=\"town\"><speed max=\"50\" unit=\"km/h\"/></type>\n"
                   "    <planView>\n      <geometry s=\"0\" x=\"%.17g\" y=\"%.17g\" hdg=\"%.17g\" length=\"%g\"><line/>"
                   "</geometry>\n    </planView>\n"
                   "    <elevationProfile>\n      <elevation s=\"0\" a=\"0\" b=\"%g\" c=\"0\" d=\"0\"/>\n"
                   "    </elevationProfile>\n    <lateralProfile/>\n    <lanes>\n",
               arm, JM_ARM, jm_arm_id(arm), out ? "predecessor" : "successor", x0, y0, hdg, JM_ARM,
               arm == 1 ? 0.03 : 0.0);
        if (arm == 2) {
            jm_section(&b, 0, "solid solid", "yellow", 1);
            jm_section(&b, 50, "broken", "standard", 2);
        } else
            jm_section(&b, 0, "solid solid", "yellow", 0);
        jm_put(&b, "    </lanes>\n  </road>\n");
    }
    for (int a = 0; a < 4; a++)
        for (int k = 1; k <= 3; k++) {
            int bb = (a + k) % 4;
            double ux = cos(jm_phi(a)), uy = sin(jm_phi(a));
            ux = fabs(ux) < 1e-12 ? 0 : ux, uy = fabs(uy) < 1e-12 ? 0 : uy;
            /* k = 1: the next arm counter-clockwise, a right turn; 2: straight on; 3: a left turn */
            double len = k == 2 ? 2 * JM_HALF : JM_PI / 2 * JM_HALF;
            char kind[64];
            snprintf(kind, sizeof kind, k == 2 ? "<line/>" : "<arc curvature=\"%g\"/>", k == 1 ? -1 / JM_HALF : 1 / JM_HALF);
            jm_put(&b, "  <road name=\"c%d_%d\" length=\"%.17g\" id=\"%d\" junction=\"100\">\n    <link>\n"
                       "      <predecessor elementType=\"road\" elementId=\"%d\" contactPoint=\"%s\"/>\n"
                       "      <successor elementType=\"road\" elementId=\"%d\" contactPoint=\"%s\"/>\n    </link>\n"
                       "    <planView>\n      <geometry s=\"0\" x=\"%.17g\" y=\"%.17g\" hdg=\"%.17g\" length=\"%.17g\">%s"
                       "</geometry>\n    </planView>\n    <lanes>\n      <laneSection s=\"0\">\n"
                       "        <center><lane id=\"0\" type=\"none\" level=\"false\"/></center>\n        <right>\n",
                   a, bb, len, jm_conn_id(a, bb), jm_arm_id(a), jm_outward(a) ? "start" : "end", jm_arm_id(bb),
                   jm_outward(bb) ? "start" : "end", JM_HALF * ux, JM_HALF * uy, jm_phi(a) + JM_PI, len, kind);
            char link[96];
            snprintf(link, sizeof link, "<link><predecessor id=\"%d\"/><successor id=\"%d\"/></link>", jm_in_lane(a),
                     jm_out_lane(bb));
            jm_lane(&b, -1, "driving", JM_LANE, "none", "standard", link);
            jm_put(&b, "        </right>\n      </laneSection>\n    </lanes>\n  </road>\n");
        }
    jm_put(&b, "  <junction id=\"100\" name=\"j\">\n");
    for (int a = 0; a < 4; a++)
        for (int k = 1; k <= 3; k++) {
            int bb = (a + k) % 4;
            jm_put(&b, "    <connection id=\"%d\" incomingRoad=\"%d\" connectingRoad=\"%d\" contactPoint=\"start\">"
                       "<laneLink from=\"%d\" to=\"-1\"/></connection>\n",
                   a * 3 + k - 1, jm_arm_id(a), jm_conn_id(a, bb), jm_in_lane(a));
        }
    jm_put(&b, "  </junction>\n</OpenDRIVE>\n");
    *len = b.n;
    return b.p;
}

#endif
