/* host_map.c — the map queries of the host table (ABI 1.4): sensim/map.h on the engine's map,
** with failures written to the sensor's error text. */
#include "engine.h"
#include "host_map.h"

#include "../core/util.h"

#include <string.h>

static const sn_map *map_of(sn_ctx *c, const char *what)
{
    if (!c->engine->map)
        sn_format(sn_ctx_error_buf(c), SN_CTX_ERROR_MAX, "%s: the scene has no map (map: FILE.xodr)", what);
    return c->engine->map;
}

/* Copies a failure's sentence into the sensor's error text. */
static sn_status done(sn_ctx *c, sn_status st, const sn_error *err)
{
    if (st)
        sn_format(sn_ctx_error_buf(c), SN_CTX_ERROR_MAX, "%s", err->msg);
    return st;
}

static bool h_has_map(sn_ctx *c) { return c->engine->map != NULL; }

static sn_status h_map_waypoint(sn_ctx *c, sn_vec3 loc, bool project, uint32_t types, sn_waypoint *out)
{
    const sn_map *m = map_of(c, "map_waypoint");
    sn_error err = {0};
    return m ? done(c, sn_map_waypoint(m, loc, project, types, out, &err), &err) : SN_E_NOT_FOUND;
}

static sn_status h_map_next(sn_ctx *c, const sn_waypoint *wp, double d, sn_waypoint *out, size_t cap, size_t *n)
{
    const sn_map *m = map_of(c, "map_next");
    sn_error err = {0};
    return m ? done(c, sn_map_next(m, wp, d, out, cap, n, &err), &err) : SN_E_NOT_FOUND;
}

static sn_status h_map_previous(sn_ctx *c, const sn_waypoint *wp, double d, sn_waypoint *out, size_t cap, size_t *n)
{
    const sn_map *m = map_of(c, "map_previous");
    sn_error err = {0};
    return m ? done(c, sn_map_previous(m, wp, d, out, cap, n, &err), &err) : SN_E_NOT_FOUND;
}

static sn_status h_map_side_lane(sn_ctx *c, const sn_waypoint *wp, bool left, sn_waypoint *out)
{
    const sn_map *m = map_of(c, "map_side_lane");
    sn_error err = {0};
    if (!m)
        return SN_E_NOT_FOUND;
    return done(c, left ? sn_map_left_lane(m, wp, out, &err) : sn_map_right_lane(m, wp, out, &err), &err);
}

static sn_status h_map_marks_crossed(sn_ctx *c, sn_vec3 a, sn_vec3 b, sn_mark_crossing *out, size_t cap, size_t *n)
{
    const sn_map *m = map_of(c, "map_marks_crossed");
    sn_error err = {0};
    return m ? done(c, sn_map_marks_crossed(m, a, b, out, cap, n, &err), &err) : SN_E_NOT_FOUND;
}

void sn_host_map_fill(sn_host *h)
{
    h->has_map = h_has_map;
    h->map_waypoint = h_map_waypoint;
    h->map_next = h_map_next;
    h->map_previous = h_map_previous;
    h->map_side_lane = h_map_side_lane;
    h->map_marks_crossed = h_map_marks_crossed;
}
