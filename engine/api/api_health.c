/* api_health.c — the traffic-health calls of sensim.h (traffic/health.h). */
#include "../sim/engine.h"
#include "../traffic/health.h"

#include "../core/error.h"

#include <string.h>

static sn_status check(const sn_engine *e, const void *out, const char *what, sn_error *err)
{
    if (!e || !out)
        return sn_fail(err, SN_E_INVALID, "%s: %s is NULL", what, !e ? "the engine" : "out");
    return SN_OK;
}

/* An older caller's smaller struct gets only what it knows. */
static sn_status give(const sn_traffic_health *s, sn_traffic_health *out, const char *what, sn_error *err)
{
    if (out->struct_size < sizeof out->struct_size)
        return sn_fail(err, SN_E_INVALID, "%s: struct_size is %u; set it to sizeof(sn_traffic_health)", what,
                       out->struct_size);
    size_t n = out->struct_size < sizeof *s ? out->struct_size : sizeof *s;
    memcpy((char *)out + sizeof s->struct_size, (const char *)s + sizeof s->struct_size, n - sizeof s->struct_size);
    return SN_OK;
}

sn_status sn_engine_traffic_health(const sn_engine *e, sn_traffic_health *out, sn_error *err)
{
    sn_status st = check(e, out, "traffic health", err);
    if (st)
        return st;
    sn_traffic_health t;
    sn_health_totals(e->health, &t);
    return give(&t, out, "traffic health", err);
}

uint32_t sn_engine_traffic_health_windows(const sn_engine *e) { return e ? sn_health_windows(e->health) : 0; }

sn_status sn_engine_traffic_health_window(const sn_engine *e, uint32_t index, sn_traffic_health *out, sn_error *err)
{
    sn_status st = check(e, out, "traffic health window", err);
    if (st)
        return st;
    sn_traffic_health w = {.struct_size = sizeof w};
    if (!sn_health_window(e->health, index, &w))
        return sn_fail(err, SN_E_RANGE, "traffic health window: %u is not below the %u windows observed", index,
                       sn_health_windows(e->health));
    return give(&w, out, "traffic health window", err);
}

sn_status sn_engine_traffic_health_json(const sn_engine *e, FILE *out, sn_error *err)
{
    sn_status st = check(e, out, "traffic health json", err);
    if (st)
        return st;
    sn_health_json(e->health, out);
    return ferror(out) ? sn_fail(err, SN_E_IO, "traffic health json: cannot write") : SN_OK;
}
