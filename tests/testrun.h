/* testrun.h — the engine set-up and stepping the integration tests share, failures as CHECKs
** (check.h). */
#ifndef SN_TEST_RUN_H
#define SN_TEST_RUN_H

#include "check.h"
#include "testutil.h"

/* An engine on `plugins` with `threads` workers and quiet plugins; a failure is a failed check
** and gives NULL. Destroy with sn_engine_destroy. */
static inline sn_engine *tu_engine(const char *plugins, int threads)
{
    sn_error err = {0};
    sn_engine_options o = {.plugin_dir = plugins, .quiet_plugins = true, .threads = threads};
    sn_engine *e = sn_engine_create(&o, &err);
    CHECK(e, "engine: %s", err.msg);
    return e;
}

/* Steps `n` frames; the first failed step is a failed check and ends the steps. */
static inline void tu_step(sn_engine *e, int n)
{
    sn_error err;
    for (int i = 0; i < n; i++)
        if (sn_engine_step(e, &err) != SN_OK) {
            CHECK(0, "%s", err.msg);
            return;
        }
}

/* Steps `n` frames, each step a check (the tally counts them) and a failed one no end. */
static inline void tu_step_each(sn_engine *e, int n)
{
    sn_error err = {0};
    for (int i = 0; i < n; i++)
        CHECK(sn_engine_step(e, &err) == SN_OK, "%s", err.msg);
}

#endif
