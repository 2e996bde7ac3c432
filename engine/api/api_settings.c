/* api_settings.c — CARLA's world.apply_settings between frames: a new step, its substeps. */
#include "../sim/engine.h"

#include "../core/error.h"

#include <math.h>
#include <stdio.h>

sn_status sn_engine_set_step(sn_engine *e, double dt, double max_sub_dt, uint32_t max_substeps, sn_error *err)
{
    SN_ERR_LOCAL(err);
    if (!e || !e->loaded)
        return sn_fail(err, SN_E_STATE, "apply_settings: no scene is loaded");
    if (e->in_step)
        return sn_fail(err, SN_E_STATE, "apply_settings: frame %llu is being stepped; change the step between frames",
                       (unsigned long long)e->clock.frame);
    if (e->replay)
        return sn_fail(err, SN_E_STATE, "apply_settings: a replay runs at its recording's step");
    if (!(dt >= SN_LIMIT_DT_MIN && dt <= SN_LIMIT_STEP))
        return sn_fail(err, SN_E_RANGE, "apply_settings: fixed_delta_seconds %g must be within [1e-06, %g] seconds "
                       "(SN_LIMIT_STEP)", dt, SN_LIMIT_STEP);
    sn_scene_settings *s = &e->scene.settings;
    if (max_sub_dt == 0)
        max_sub_dt = s->max_substep_delta_time;
    if (!(max_sub_dt >= SN_LIMIT_DT_MIN && max_sub_dt <= 1))
        return sn_fail(err, SN_E_RANGE, "apply_settings: max_substep_delta_time %g must be within [1e-06, 1] seconds",
                       max_sub_dt);
    if (max_substeps > 16)
        return sn_fail(err, SN_E_RANGE, "apply_settings: max_substeps %u must be within [1, 16] (CARLA's range)",
                       max_substeps);
    int64_t dt_ns = llround(dt * 1e9);
    if (dt_ns < 1)
        return sn_fail(err, SN_E_RANGE, "apply_settings: fixed_delta_seconds %g is under a nanosecond", dt);
    /* The clock keeps its time: the frames after this one count from here at the new step. */
    sn_clock *c = &e->clock;
    e->clock_base_frame = c->frame, e->clock_base_ns = c->time_ns, e->clock_base_ts = c->timestamp;
    c->dt = dt, c->dt_ns = dt_ns;
    s->fixed_delta_seconds = dt;
    s->max_substep_delta_time = max_sub_dt;
    if (max_substeps)
        s->max_substeps = (int)max_substeps;
    double need = ceil(dt / max_sub_dt - 1e-9);
    e->n_sub = need < 1 ? 1 : need > SN_LIMIT_SUBSTEPS ? SN_LIMIT_SUBSTEPS : (int)need;
    if (e->n_sub > s->max_substeps && !e->step_warned) {
        /* CARLA runs such a step too (its examples use 0.2 s and 3 s); say once what it costs */
        char line[300];
        snprintf(line, sizeof line, "apply_settings: fixed_delta_seconds %g exceeds max_substep_delta_time * max_substeps "
                 "= %g * %d: running %d substeps of %g s (at most SN_LIMIT_SUBSTEPS = %d)", dt, max_sub_dt,
                 s->max_substeps, e->n_sub, dt / e->n_sub, SN_LIMIT_SUBSTEPS);
        if (e->opts.log)
            e->opts.log(SN_LOG_WARN, line, e->opts.log_user);
        else
            fprintf(stderr, "sensim: warning: %s\n", line);
        e->step_warned = true;
    }
    return SN_OK;
}
