/* xosc_harness.c — the OpenSCENARIO unit tests' shared helpers (xosc_harness.h). */
#include "xosc_harness.h"

#include <stdio.h>
#include <string.h>

char maps[1024];

const char *const CAR = "<Vehicle name='v' vehicleCategory='car'><BoundingBox><Center x='1.4' y='0' z='0.75'/>"
                        "<Dimensions width='1.9' length='4.6' height='1.5'/></BoundingBox>"
                        "<Performance maxSpeed='70' maxAcceleration='10' maxDeceleration='10'/></Vehicle>";

sn_map *xh_map(const char *file, const char *what)
{
    char p[1200];
    sn_error err = {0};
    snprintf(p, sizeof p, "%s/%s", maps, file);
    sn_map *m = sn_map_open(p, &err);
    if (!m)
        fprintf(stderr, "cannot open %s: %s\n", what, err.msg);
    return m;
}

bool xh_begin(int argc, char **argv, const char *prog, sn_map **highway)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s MAPS_DIR\n", prog);
        return false;
    }
    snprintf(maps, sizeof maps, "%s", argv[1]);
    return (*highway = xh_map("highway.xodr", "the map")) != NULL;
}

void xh_cars(char *out, size_t cap, const char *ents, const char *ctl)
{
    char names[512];
    snprintf(names, sizeof names, "%s", ents);
    for (char *tok = strtok(names, " "); tok; tok = strtok(NULL, " "))
        snprintf(out + strlen(out), cap - strlen(out), "<ScenarioObject name='%s'>%s%s</ScenarioObject>", tok, CAR, ctl);
}

sn_xosc *load(const char *xml, sn_error *err)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/test.xosc", maps);
    sn_xosc *x = NULL;
    sn_xosc_load_memory(xml, strlen(xml), path, NULL, 0, &x, err);
    return x;
}

int find_elem(const sn_xosc *x, const char *name)
{
    for (uint32_t i = 0; i < x->n_elems; i++)
        if (!strcmp(x->elems[i].name, name))
            return (int)i;
    return -1;
}
