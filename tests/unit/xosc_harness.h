/* xosc_harness.h — what the OpenSCENARIO unit tests (test_xosc.c, test_xosc_ext.c,
** test_xosc_more.c) share: the maps folder, the test car, loading a scenario from memory as if it
** lay in maps/, finding a storyboard element, and the XML snippets they build scenarios from
** (xosc_harness.c). */
#ifndef SN_TESTS_XOSC_HARNESS_H
#define SN_TESTS_XOSC_HARNESS_H

#include "../../engine/map/lanemap.h"
#include "../../engine/scenario/xosc_run.h"

#include <stddef.h>

extern char maps[1024];     /* argv[1]: the shipped maps/ (a scenario's LogicFile resolves there) */
extern const char *const CAR; /* a 4.6 m car, its box centred 1.4 m ahead of the rear axle */

/* maps = argv[1]; opens maps/highway.xodr into *highway. false, with the usage or the error
** printed, when it cannot. */
bool xh_begin(int argc, char **argv, const char *prog, sn_map **highway);
/* Opens maps/file; NULL, with "cannot open <what>: <why>" printed, when it cannot. */
sn_map *xh_map(const char *file, const char *what);
/* Appends to out[cap] a ScenarioObject of CAR, followed by ctl, for each space-separated name. */
void xh_cars(char *out, size_t cap, const char *ents, const char *ctl);
/* Loads a scenario from memory as maps/test.xosc; NULL with err set on failure. */
sn_xosc *load(const char *xml, sn_error *err);
/* The storyboard element named name, or -1. */
int find_elem(const sn_xosc *x, const char *name);

#define PRIV(ent, body) "<Private entityRef='" ent "'><PrivateAction>" body "</PrivateAction></Private>\n"
#define TELEPORT(pos) "<TeleportAction>" pos "</TeleportAction>"
#define SPEED(v) "<LongitudinalAction><SpeedAction><SpeedActionDynamics dynamicsShape='step' value='0' " \
                 "dynamicsDimension='time'/><SpeedActionTarget><AbsoluteTargetSpeed value='" v "'/></SpeedActionTarget>" \
                 "</SpeedAction></LongitudinalAction>"

#endif
