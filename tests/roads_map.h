/* roads_map.h — the small OpenDRIVE map the road tests share (tests/unit/test_road_mesh.c,
** tests/integration/test_roads.c).
**
** Road 1: a straight 200 m along +x from the origin; lanes (t outward) 1, 2 driving 3.5 m and
** 3 sidewalk 2 m on each side; centre line a double yellow (0.12 m), lanes +-1 broken white,
** +-2 solid white. A hill: flat to s = 60, eased into a 5% climb by s = 80 (z = 0.5), 5% to
** s = 160 (z = 4.5), eased out to flat at s = 180 (z = 5). A second section from s = 100
** widens lane -2 from 3.5 to 5 m over its first 30 m (a smooth cubic).
** Road 2: 20 m of line from (0, 60) heading +x, a 30 m spiral from curvature 0 to 0.02, a 40 m
** arc of 0.02; lanes +-1 driving 3.5 m, +-2 sidewalk 2 m, the centre line solid white.
** World frame (CARLA's): y = -OpenDRIVE y, so road 1's right lanes (t < 0) lie at world y > 0. */
#ifndef SN_TESTS_ROADS_MAP_H
#define SN_TESTS_ROADS_MAP_H

#define RM_SIDE(sign, extra_width)                                                                           \
    "<lane id=\"" sign "1\" type=\"driving\" level=\"false\"><width sOffset=\"0\" a=\"3.5\" b=\"0\" c=\"0\" d=\"0\"/>" \
    "<roadMark sOffset=\"0\" type=\"broken\" weight=\"standard\" color=\"standard\" width=\"0.15\"/></lane>"      \
    "<lane id=\"" sign "2\" type=\"driving\" level=\"false\">" extra_width                                        \
    "<roadMark sOffset=\"0\" type=\"solid\" weight=\"standard\" color=\"standard\" width=\"0.15\"/></lane>"       \
    "<lane id=\"" sign "3\" type=\"sidewalk\" level=\"false\"><width sOffset=\"0\" a=\"2\" b=\"0\" c=\"0\" d=\"0\"/></lane>"

#define RM_W35 "<width sOffset=\"0\" a=\"3.5\" b=\"0\" c=\"0\" d=\"0\"/>"
/* 3.5 -> 5.0 over 30 m: c = 3 dw / L^2, d = -2 dw / L^3 */
#define RM_WIDEN "<width sOffset=\"0\" a=\"3.5\" b=\"0\" c=\"0.005\" d=\"-0.000111111111111111\"/>" \
                 "<width sOffset=\"30\" a=\"5.0\" b=\"0\" c=\"0\" d=\"0\"/>"
#define RM_CENTRE "<center><lane id=\"0\" type=\"none\" level=\"false\">" \
                  "<roadMark sOffset=\"0\" type=\"solid solid\" weight=\"standard\" color=\"yellow\" width=\"0.12\"/></lane></center>"

static const char roads_map_xml[] =
    "<?xml version=\"1.0\" standalone=\"yes\"?>\n"
    "<OpenDRIVE>\n"
    "<header revMajor=\"1\" revMinor=\"4\" name=\"roads_test\" version=\"1\"/>\n"
    "<road name=\"hill\" length=\"200\" id=\"1\" junction=\"-1\">\n"
    "<planView><geometry s=\"0\" x=\"0\" y=\"0\" hdg=\"0\" length=\"200\"><line/></geometry></planView>\n"
    "<elevationProfile>\n"
    "<elevation s=\"0\" a=\"0\" b=\"0\" c=\"0\" d=\"0\"/>\n"
    "<elevation s=\"60\" a=\"0\" b=\"0\" c=\"0.00125\" d=\"0\"/>\n"
    "<elevation s=\"80\" a=\"0.5\" b=\"0.05\" c=\"0\" d=\"0\"/>\n"
    "<elevation s=\"160\" a=\"4.5\" b=\"0.05\" c=\"-0.00125\" d=\"0\"/>\n"
    "<elevation s=\"180\" a=\"5\" b=\"0\" c=\"0\" d=\"0\"/>\n"
    "</elevationProfile>\n"
    "<lanes>\n"
    "<laneSection s=\"0\"><left>" RM_SIDE("", RM_W35) "</left>" RM_CENTRE "<right>" RM_SIDE("-", RM_W35) "</right></laneSection>\n"
    "<laneSection s=\"100\"><left>" RM_SIDE("", RM_W35) "</left>" RM_CENTRE "<right>" RM_SIDE("-", RM_WIDEN) "</right></laneSection>\n"
    "</lanes>\n"
    "</road>\n"
    "<road name=\"curve\" length=\"90\" id=\"2\" junction=\"-1\">\n"
    "<planView>\n"
    "<geometry s=\"0\" x=\"0\" y=\"60\" hdg=\"0\" length=\"20\"><line/></geometry>\n"
    "<geometry s=\"20\" x=\"20\" y=\"60\" hdg=\"0\" length=\"30\"><spiral curvStart=\"0\" curvEnd=\"0.02\"/></geometry>\n"
    "<geometry s=\"50\" x=\"49.73112266635358\" y=\"62.98076942621523\" hdg=\"0.3\" length=\"40\"><arc curvature=\"0.02\"/></geometry>\n"
    "</planView>\n"
    "<lanes><laneSection s=\"0\">"
    "<left><lane id=\"1\" type=\"driving\" level=\"false\">" RM_W35 "</lane>"
    "<lane id=\"2\" type=\"sidewalk\" level=\"false\"><width sOffset=\"0\" a=\"2\" b=\"0\" c=\"0\" d=\"0\"/></lane></left>"
    "<center><lane id=\"0\" type=\"none\" level=\"false\"><roadMark sOffset=\"0\" type=\"solid\" color=\"standard\" width=\"0.15\"/></lane></center>"
    "<right><lane id=\"-1\" type=\"driving\" level=\"false\">" RM_W35 "</lane>"
    "<lane id=\"-2\" type=\"sidewalk\" level=\"false\"><width sOffset=\"0\" a=\"2\" b=\"0\" c=\"0\" d=\"0\"/></lane></right>"
    "</laneSection></lanes>\n"
    "</road>\n"
    "</OpenDRIVE>\n";

/* Height of road 1's surface at s (its elevation profile). */
static inline double roads_map_z(double s)
{
    if (s < 60)
        return 0;
    if (s < 80)
        return 0.00125 * (s - 60) * (s - 60);
    if (s < 160)
        return 0.5 + 0.05 * (s - 80);
    if (s < 180)
        return 4.5 + 0.05 * (s - 160) - 0.00125 * (s - 160) * (s - 160);
    return 5;
}

static const char roads_map_empty_xml[] =
    "<?xml version=\"1.0\" standalone=\"yes\"?>\n<OpenDRIVE><header revMajor=\"1\" revMinor=\"4\" name=\"empty\"/></OpenDRIVE>\n";

#endif
