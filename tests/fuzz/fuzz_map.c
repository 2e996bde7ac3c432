/*
** fuzz_map.c — libFuzzer target for the map loader (engine/map: libxml2, the OpenDRIVE reader,
** the lane index) and the queries behind sensim/map.h: the bytes are an OpenDRIVE file opened
** with sn_map_open_memory; a refusal must be one line starting "fuzz.xodr:"; a map that loads is
** queried (waypoints at points, next/previous walks, left/right lanes, topology, spawn points,
** marks crossed). Built with -DSN_FUZZ_MESH (target map_mesh) it also tessellates the roads
** (sn_road_mesh_build: a NaN reference line made its chord rule halve for ever, issue 33 item
** 13b). Any crash, hang, leak or sanitizer report is a bug. tests/fuzz/run_fuzz.sh
** builds it with clang; without clang, -DSN_FUZZ_STANDALONE runs the corpus once.
*/
#include "../../engine/map/lanemap.h"
#include "../../engine/map/road_mesh.h"
#include "../../engine/traffic/bind.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sn_error err = {0};
    sn_map *m = sn_map_open_memory((const char *)data, size, "fuzz.xodr", &err);
    if (!m) {
        if (!err.msg[0] || strchr(err.msg, '\n') || strncmp(err.msg, "fuzz.xodr:", 10))
            abort(); /* an error is one line naming the file */
        return 0;
    }
    for (size_t i = 0; sn_map_warning(m, i); i++)
        if (strncmp(sn_map_warning(m, i), "fuzz.xodr:", 10))
            abort();
    sn_map_info info = {.struct_size = sizeof info};
    sn_map_info_get(m, &info, &err);
    /* Signals bound to lanes as the engine binds lights and signs (engine/traffic/bind.c). */
    sn_sigindex ix;
    if (sn_sigindex_build(m->odr, &ix)) {
        sn_bind_out bo = {0};
        sn_bind_issues iss = {0};
        sn_sigindex_orphans(m->odr, &ix, &iss);
        for (uint32_t ri = 0; ri < m->odr->n_roads; ri++)
            for (uint32_t k = 0; k < m->odr->roads[ri].n_signals; k++) {
                const sn_odr_signal *sg = &m->odr->roads[ri].signals[k];
                if (sg->is_reference || !sn_sigindex_signal(m->odr, &ix, sg->id, NULL))
                    continue;
                bo.n_lanes = bo.n_b = 0;
                if (!sn_bind_signal(m, &ix, sg->id, (sn_bind_kind)(k % 4), &bo, &iss))
                    break;
            }
        sn_bind_out_free(&bo);
        sn_sigindex_free(&ix);
    }
    sn_waypoint wp[8], w;
    size_t n = 0;
    bool have = false;
    for (int i = 0; i < 8; i++) { /* points across the map's bounds */
        sn_vec3 p = {m->lo.x + (m->hi.x - m->lo.x) * (i + 0.5) / 8, m->lo.y + (m->hi.y - m->lo.y) * ((i * 5) % 8 + 0.5) / 8,
                     m->lo.z};
        sn_waypoint q, side;
        if (sn_map_waypoint(m, p, true, SN_LANE_ANY, &q, &err) == SN_OK) {
            sn_map_left_lane(m, &q, &side, &err);
            sn_map_right_lane(m, &q, &side, &err);
            if (!have)
                w = q, have = true;
        }
        sn_map_waypoint(m, p, false, SN_LANE_DRIVING, &q, &err);
        sn_mark_crossing mc[8];
        sn_map_marks_crossed(m, p, (sn_vec3){p.x + 7, p.y - 5, p.z}, mc, 8, &n, &err);
    }
    for (int i = 0; have && i < 50; i++) {
        if (sn_map_next(m, &w, 3.0, wp, 8, &n, &err) || !n)
            break;
        w = wp[(size_t)i % (n < 8 ? n : 8)];
        sn_map_previous(m, &w, 3.0, wp, 8, &n, &err);
    }
    if (have)
        sn_map_next_until_lane_end(m, &w, 10.0, wp, 8, &n, &err);
    sn_map_generate_waypoints(m, 10.0, wp, 8, &n, &err);
    sn_waypoint topo[32];
    sn_map_topology(m, topo, 32, &n, &err);
    sn_transform sp[32];
    sn_map_spawn_points(m, sp, 32, &n, &err);
#ifdef SN_FUZZ_MESH
    sn_road_mesh *rm = NULL;
    if (sn_road_mesh_build(m, &rm, &err) == SN_OK)
        for (uint32_t i = 0; i < rm->n_v; i++)
            if (!isfinite(rm->v[i][0]) || !isfinite(rm->v[i][1]) || !isfinite(rm->v[i][2]))
                abort(); /* a vertex that is not a place */
    sn_road_mesh_free(rm);
#endif
    sn_map_close(m);
    return 0;
}

#include "standalone.h"
