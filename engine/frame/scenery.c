/* scenery.c — the engine's scenery: built when a scene with a map is loaded, after its
** lights, signs and own actors (their stop lines are painted, their boxes kept clear of), and
** handed to the world with the roads (world/roads.c), where physics, rays and cameras meet it. */
#include "../scenery/scenery.h"

#include "map_cache.h"

#include "../sim/engine.h"
#include "../traffic/lights.h"
#include "../traffic/signs.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* sc as the engine's scenery (taken): the map's objects it left out named once per load (a
** reset rebuilds the same scenery). */
static void keep_scenery(sn_engine *e, sn_scenery *sc)
{
    for (uint32_t i = 0; !e->scenery.objs && i < sc->n_skipped; i++) {
        char line[SN_ERROR_MAX + 200];
        snprintf(line, sizeof line, "%s: scenery: %s", e->scene.path ? e->scene.path : "scene", sc->skipped[i]);
        if (e->opts.log)
            e->opts.log(SN_LOG_WARN, line, e->opts.log_user);
        else if (!e->opts.quiet_plugins)
            fprintf(stderr, "sensim: warning: %s\n", line);
    }
    sn_scenery_free(&e->scenery);
    e->scenery = *sc;
}

sn_status sn_scenery_add(sn_engine *e, sn_error *err)
{
    const sn_scene_scenery *k = &e->scene.scenery;
    sn_world *w = &e->world;
    if (!e->map || !w->roads || k->disabled)
        return SN_OK;
    sn_scenery_opts o = {k->seed, k->density > 0 ? k->density : 1.0};
    /* stop lines: every light's and every stop sign's */
    size_t n_lines = 0, cap = (e->lights ? e->lights->n_stops : 0) + (e->signs ? e->signs->n_lines : 0);
    sn_scenery_line *lines = malloc((cap ? cap : 1) * sizeof *lines);
    /* the scene's static boxes (buildings, props, the lights' poles) */
    sn_scenery_avoid *avoid = malloc((w->n_actors ? w->n_actors : 1) * sizeof *avoid);
    if (!lines || !avoid) {
        free(lines), free(avoid);
        return sn_fail(err, SN_E_NOMEM, "scenery: out of memory");
    }
    for (uint32_t i = 0; e->lights && i < e->lights->n_stops; i++)
        lines[n_lines++] = (sn_scenery_line){e->lights->stops[i].road_id, e->lights->stops[i].lane_id,
                                             e->lights->stops[i].s};
    for (uint32_t i = 0; e->signs && i < e->signs->n_lines; i++) {
        const sn_sign_line *l = &e->signs->lines[i];
        if (e->signs->s[l->sign].kind == SN_BIND_STOP)
            lines[n_lines++] = (sn_scenery_line){l->b.road_id, l->b.lane_id, l->b.s};
    }
    size_t n_avoid = 0;
    for (size_t i = 0; i < w->n_actors; i++) {
        const sn_actor *a = w->actors[i];
        if (a->kind != SN_ACTOR_STATIC || a->parent || a->ph->body || a->shape == SN_SHAPE_PLANE || a->shape == SN_SHAPE_NONE)
            continue;
        sn_vec3 pos;
        sn_quat q;
        sn_actor_pose_at(w, a, 1.0, &pos, &q);
        sn_vec3 x = a->ph->bbox.extent;
        if (!(x.x > 0 && x.y > 0) || x.x > 1e4 || x.y > 1e4) /* absurd boxes */
            continue;
        double yaw = atan2(2 * (q.w * q.z + q.x * q.y), 1 - 2 * (q.y * q.y + q.z * q.z));
        sn_mat3 R = sn_mat3_from_quat(q);
        sn_vec3 c = sn_v3_add(pos, sn_mat3_apply(&R, a->ph->bbox.location));
        avoid[n_avoid++] = (sn_scenery_avoid){c.x, c.y, x.x, x.y, yaw};
    }
    sn_scenery sc;
    const sn_road_mesh *own;
    const dTriMeshDataID *data;
    if (w->road_data_shared &&
        sn_map_cache_scenery_shared(e->map, &o, lines, n_lines, avoid, n_avoid, w->roads, &own, &data, &sc)) {
        free(lines), free(avoid);
        keep_scenery(e, &sc);
        return sn_world_set_roads_shared(w, NULL, own, data, err); /* the cache's roads let go, not freed */
    }
    /* scenery grows the mesh: the world's own, or a copy of the map cache's (read by others) */
    sn_road_mesh *m = w->road_data_shared ? sn_road_mesh_dup(w->roads) : w->roads;
    if (!m) {
        free(lines), free(avoid);
        return sn_fail(err, SN_E_NOMEM, "scenery: out of memory for the road mesh");
    }
    w->roads = NULL; /* keep the mesh: the world's release would free it */
    sn_world_free_roads(w); /* the physics built on it, rebuilt below with the scenery */
    sn_status st = sn_map_cache_scenery(e->map, &o, lines, n_lines, avoid, n_avoid, &m, &sc, err);
    free(lines), free(avoid);
    if (st) {
        sn_error_prefix(err, e->scene.path ? e->scene.path : "scene");
        sn_road_mesh_free(m);
        return st;
    }
    keep_scenery(e, &sc);
    data = sn_map_cache_road_data(e->map, m, &own);
    return sn_world_set_roads_shared(w, m, own, data, err);
}
