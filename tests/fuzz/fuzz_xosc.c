/*
** fuzz_xosc.c — libFuzzer target for the OpenSCENARIO loader (engine/scenario: libxml2, the
** parameter and expression evaluator, the storyboard's parser) and the player: the bytes are a
** scenario opened with sn_xosc_load_memory; a refusal must be one line starting "fuzz.xosc:"; a
** scenario that loads is played for 300 steps of 0.05 s on the tests' junction map
** (tests/map/junction_map.h: roads 1-4 and 101-112). Any crash, hang, leak or sanitizer report
** is a bug. tests/fuzz/run_fuzz.sh builds it; without clang, -DSN_FUZZ_STANDALONE runs the corpus.
*/
#include "../../engine/scenario/xosc_run.h"
#include "../map/junction_map.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static sn_map *map;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sn_error err = {0};
    if (!map) {
        size_t n;
        char *xml = jm_xml(&n);
        map = sn_map_open_memory(xml, n, "junction.xodr", &err);
        free(xml);
        if (!map)
            abort();
    }
    sn_xosc *x = NULL;
    if (sn_xosc_load_memory((const char *)data, size, "fuzz.xosc", NULL, 0, &x, &err)) {
        if (!err.msg[0] || strchr(err.msg, '\n') || strncmp(err.msg, "fuzz.xosc", 9))
            abort(); /* an error is one line naming the file */
        return 0;
    }
    sn_xrun r;
    if (sn_xrun_init(&r, x, map, 0.05)) {
        for (int i = 0; i < 300 && !r.ended && sn_xrun_step(&r); i++)
            ;
    }
    if (r.failed && (!r.why[0] || strchr(r.why, '\n')))
        abort();
    sn_xrun_free(&r);
    sn_xosc_free(x);
    return 0;
}

#include "standalone.h"
