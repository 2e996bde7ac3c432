/* api_engine.c — public calls about a running engine that are not the frame loop: run
** statistics and the opt-in crash reporter. */
#include "../sim/engine.h"
#include "../sim/guard.h"
#include "../output/spool.h"

#include "../core/error.h"

#include <string.h>

sn_status sn_engine_stats(const sn_engine *e, sn_run_stats *out, sn_error *err)
{
    if (!e || !out)
        return sn_fail(err, SN_E_INVALID, "stats: %s is NULL", !e ? "the engine" : "out");
    if (out->struct_size < sizeof out->struct_size)
        return sn_fail(err, SN_E_INVALID, "stats: struct_size is %u; set it to sizeof(sn_run_stats)",
                       out->struct_size);
    sn_run_stats s = {.struct_size = sizeof s, .frames = e->clock.frame - e->frame0,
                      .sim_time = (double)(e->clock.frame - e->frame0) * e->clock.dt,
                      .sensors = e->n_sensors + e->n_gone, .live_actors = (uint32_t)e->world.n_actors,
                      .time_world = e->time_world, .time_sensors = e->time_sensors, .time_output = e->time_output,
                      .frames_planned = e->frames_target, .time_serialize = e->time_serialize,
                      .time_write = sn_spool_busy(e->spool) - e->time_write0};
    for (uint32_t i = 0; i < e->n_sensors + e->n_gone; i++) {
        const sn_sensor *x = i < e->n_sensors ? e->sensors[i] : e->gone[i - e->n_sensors];
        if (x->internal) { /* the recorder of sn_engine_record is no sensor of the scene */
            s.sensors--;
            continue;
        }
        s.messages += x->messages;
        s.live_sensors += x->spawned && !x->destroyed && x->self; /* engine.c's live() */
    }
    /* an older caller's smaller struct gets only what it knows */
    size_t n = out->struct_size < sizeof s ? out->struct_size : sizeof s;
    memcpy((char *)out + sizeof s.struct_size, (const char *)&s + sizeof s.struct_size, n - sizeof s.struct_size);
    return SN_OK;
}

void sn_install_crash_reporter(void) { sn_guard_install(); }
