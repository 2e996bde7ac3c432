/* The path's locations kept apart from the rest of its waypoints (sn_mapdrive.at beside .path,
** engine/traffic/traffic.h, foot64): sn_md_set and sn_md_wp give a waypoint back whole, and
** sn_md_advance drops passed waypoints from both arrays alike — on random paths and positions,
** each waypoint's location still beside its own lane, s and yaw after the drop. */
#include "../check.h"
#include "../../engine/traffic/traffic_int.h"

#include <stdint.h>
#include <string.h>

static uint64_t rs = 0x9E3779B97F4A7C15ull;
static double rnd(void) /* xorshift64*, uniform in [0, 1) */
{
    rs ^= rs >> 12, rs ^= rs << 25, rs ^= rs >> 27;
    return (double)((rs * 2685821657736338717ull) >> 11) * 0x1.0p-53;
}
static double uni(double a, double b) { return a + (b - a) * rnd(); }

int main(void)
{
    static sn_mapdrive md;
    long n_dropped = 0, n_kept = 0;
    for (int trial = 0; trial < 5000; trial++) {
        const uint32_t n = 1 + (uint32_t)(rnd() * SN_MD_PATH);
        sn_waypoint orig[SN_MD_PATH];
        double x = uni(-5e3, 5e3), y = uni(-5e3, 5e3), h = uni(-3, 3);
        md.n = 0;
        for (uint32_t i = 0; i < n; i++) {
            /* each waypoint told apart by its road, lane, s and yaw */
            sn_waypoint w = {.road_id = trial * 64 + (int32_t)i,
                             .section_id = (int32_t)(i % 3),
                             .lane_id = -1 - (int32_t)(i % 4),
                             .s = uni(0, 500),
                             .is_junction = i % 5 == 0,
                             .lane_change = (uint8_t)(i % 4)};
            w.transform.location = sn_v3(x, y, uni(-1, 1));
            w.transform.rotation.yaw = (float)uni(-180, 180); /* a float's value: kept exactly */
            orig[i] = w;
            sn_md_set(&md, md.n++, &w);
            h += uni(-0.2, 0.2);
            x += 2 * cos(h), y += 2 * sin(h);
        }
        bool ok = true;
        for (uint32_t i = 0; i < n; i++) {
            const sn_waypoint g = sn_md_wp(&md, i);
            ok &= !memcmp(&g.transform.location, &orig[i].transform.location, sizeof g.transform.location) &&
                  g.transform.rotation.yaw == orig[i].transform.rotation.yaw && g.road_id == orig[i].road_id &&
                  g.section_id == orig[i].section_id && g.lane_id == orig[i].lane_id && g.s == orig[i].s &&
                  g.is_junction == orig[i].is_junction && g.lane_change == orig[i].lane_change;
        }
        CHECK(ok, "trial %d: a waypoint set is not given back whole", trial);
        /* a position somewhere along (or a little off) the path */
        const uint32_t near = (uint32_t)(rnd() * n);
        const sn_vec3 pos = sn_v3_add(orig[near].transform.location, sn_v3(uni(-2, 2), uni(-2, 2), 0));
        double along0 = 0;
        sn_md_advance(&md, pos, &along0);
        const uint32_t drop = n - md.n;
        CHECK(md.n >= 1 && md.n <= n, "trial %d: %u of %u waypoints left", trial, md.n, n);
        ok = true;
        for (uint32_t i = 0; i < md.n; i++) {
            const sn_waypoint g = sn_md_wp(&md, i), *o = &orig[i + drop];
            ok &= !memcmp(&g.transform.location, &o->transform.location, sizeof g.transform.location) &&
                  g.road_id == o->road_id && g.s == o->s && g.transform.rotation.yaw == o->transform.rotation.yaw;
        }
        CHECK(ok, "trial %d: after dropping %u of %u, a location is not beside its own waypoint", trial, drop, n);
        n_dropped += drop > 0, n_kept += drop == 0;
    }
    /* the trials drop waypoints often, and keep them all sometimes */
    CHECK(n_dropped > 2000 && n_kept > 100, "cases: %ld trials dropped waypoints, %ld kept them all", n_dropped,
          n_kept);
    return CHECK_DONE();
}
