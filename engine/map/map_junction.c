/* map_junction.c — CARLA's Junction (Waypoint.get_junction): a junction's box and the start and
** end of each lane of its connecting roads. */
#include "lanemap.h"

#include "../core/error.h"

#include <math.h>

/* Grows the box [lo, hi] by a lane's edges at waypoint w (its centre ± half its width, across). */
static void grow(double lo[3], double hi[3], const sn_waypoint *w)
{
    const double yaw = w->transform.rotation.yaw * (M_PI / 180), half = w->lane_width / 2;
    const sn_vec3 c = w->transform.location;
    for (int side = -1; side <= 1; side += 2) {
        const double p[3] = {c.x - side * half * sin(yaw), c.y + side * half * cos(yaw), c.z};
        for (int k = 0; k < 3; k++)
            lo[k] = fmin(lo[k], p[k]), hi[k] = fmax(hi[k], p[k]);
    }
}

sn_status sn_map_junction(const sn_map *m, int32_t id, uint32_t lane_types, sn_bbox *box, sn_waypoint *out, size_t cap,
                          size_t *n, sn_error *err)
{
    SN_ERR_LOCAL(err);
    if (n)
        *n = 0;
    if (!m || !box)
        return sn_fail(err, SN_E_INVALID, "map: NULL argument");
    if (cap && !out)
        return sn_fail(err, SN_E_INVALID, "map: NULL output with a capacity of %zu", cap);
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    size_t count = 0;
    bool found = false;
    for (uint32_t ri = 0; ri < m->odr->n_roads; ri++) {
        const sn_odr_road *r = &m->odr->roads[ri];
        if (r->junction != id)
            continue;
        found = true;
        for (uint32_t si = 0; si < r->n_sections; si++) {
            const sn_odr_section *sec = &r->sections[si];
            for (uint32_t li = 0; li < sec->n_lanes; li++) {
                const sn_odr_lane *l = &sec->lanes[li];
                if (!l->id)
                    continue;
                const sn_lanekey k = {(int32_t)ri, si, l->id};
                /* the box: every lane, its edges every metre (CARLA's box holds the junction's lanes) */
                const double len = sec->s_end - sec->s;
                const int steps = len > 0 ? (int)ceil(len) : 0;
                for (int i = 0; i <= steps; i++) {
                    sn_waypoint w;
                    sn_map_make_waypoint(m, k, steps ? sec->s + len * i / steps : sec->s, &w);
                    grow(lo, hi, &w);
                }
                if (!(l->type & lane_types))
                    continue;
                /* its start and end along its direction of travel */
                const bool along = sn_map_lane_dir(r, l->id) > 0;
                if (count + 1 < cap) {
                    sn_map_make_waypoint(m, k, along ? sec->s : sec->s_end, &out[count]);
                    sn_map_make_waypoint(m, k, along ? sec->s_end : sec->s, &out[count + 1]);
                }
                count += 2;
            }
        }
    }
    if (!found)
        return sn_fail(err, SN_E_NOT_FOUND, "map: no junction %d", (int)id);
    if (!(lo[0] <= hi[0])) /* a junction of roads without lanes: a point at the origin */
        lo[0] = lo[1] = lo[2] = hi[0] = hi[1] = hi[2] = 0;
    *box = (sn_bbox){.location = {(lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2, (lo[2] + hi[2]) / 2},
                     .extent = {(hi[0] - lo[0]) / 2, (hi[1] - lo[1]) / 2, (hi[2] - lo[2]) / 2}};
    if (n)
        *n = count;
    return SN_OK;
}
