/* wait_trace — what holds a vehicle in town_survey's drive (not a test: a diagnosis, built on
** demand with `meson compile -C build wait_trace`). Replays town_survey.c's scene (the same
** YAML: 50 vehicles and 30 walkers of CARLA's blueprints, the hero at the map's first spawn point,
** its semantic camera and lidar, 2 threads, 2400 frames) frame by frame, scenery on
** (WT_OFF=1: off), and prints every WT_DT s (default 2) from WT_T0 s (default 0) the chain of
** what the vehicle WT_ID (default the hero) waits for: each link's place, speed, lane, light,
** junction claim and standing time, until a vehicle that waits for nothing or a cycle.
** WT_PAIR=A,B prints each new minimum of the gap between A's and B's boxes (separating axes;
** < 0: they overlap) with both pitches (a braking two-wheeler dips its nose); WT_WP=ROAD prints
** the road's lane centres every 4 m; WT_END=T stops at T s.
** Each link also shows a head-on pass (headon.c: whom it passes, whom it is held for, its side step).
** At the end: how long the vehicle stood (below 0.3 m/s) and the run's traffic health totals.
** docs/traffic.md ("Two wide vehicles face to face") has what it found on Town10HD.
** usage: wait_trace TMP PLUGINS MAP.xodr */
#include "../../engine/map/lanemap.h"
#include "../../engine/scenery/scenery.h"
#include "../../engine/sim/engine.h"
#include "survey.h"

#include "../../engine/traffic/traffic.h"
#include "../../engine/traffic/traffic_int.h"
#include "../../engine/traffic/health.h"
#include "../../engine/traffic/junction.h"
#include "../../engine/traffic/lights.h"
/* 2-D separating-axis test between two actors' boxes: the largest gap along the four axes (< 0: overlap). */
static double box_gap(sn_engine *e, const sn_actor *a, const sn_actor *b)
{
    const sn_actor *v[2] = {a, b};
    double cx[2], cy[2], ax[2][2][2], ex[2][2];
    for (int i = 0; i < 2; i++) {
        sn_transform t = sn_actor_world_transform(&e->world, v[i]);
        double y = t.rotation.yaw * M_PI / 180;
        cx[i] = v[i]->st.pos.x, cy[i] = v[i]->st.pos.y;
        ax[i][0][0] = cos(y), ax[i][0][1] = sin(y), ax[i][1][0] = -sin(y), ax[i][1][1] = cos(y);
        ex[i][0] = v[i]->ph->bbox.extent.x, ex[i][1] = v[i]->ph->bbox.extent.y;
    }
    double best = -INFINITY;
    for (int i = 0; i < 2; i++)
        for (int k = 0; k < 2; k++) {
            double nx = ax[i][k][0], ny = ax[i][k][1];
            double d = fabs((cx[1] - cx[0]) * nx + (cy[1] - cy[0]) * ny);
            double r = 0;
            for (int j = 0; j < 2; j++)
                for (int m = 0; m < 2; m++)
                    r += ex[j][m] * fabs(ax[j][m][0] * nx + ax[j][m][1] * ny);
            best = fmax(best, d - r);
        }
    return best;
}
static void trace_chain(sn_engine *e, double t, uint32_t id)
{
    uint32_t seen[8] = {0};
    for (int depth = 0; depth < 8 && id; depth++) {
        for (int k = 0; k < depth; k++)
            if (seen[k] == id) { fprintf(stderr, "    (cycle back to %u)\n", id); return; }
        seen[depth] = id;
        const sn_actor *a = sn_world_find(&e->world, id);
        if (!a) { fprintf(stderr, "    %u gone\n", id); return; }
        const sn_mapdrive *md = a->has_autopilot && a->mv && a->mv->ap ? a->mv->ap->map : NULL;
        if (!md || !md->n) {
            fprintf(stderr, "  %s%u %s kind %d at (%.1f, %.1f) no autopilot\n", depth ? "  -> " : "t=", id, a->type_id, (int)a->kind, a->st.pos.x, a->st.pos.y);
            return;
        }
        const sn_lights *ls = e->lights;
        int light_state = md->light_seen && ls && md->light_seen <= ls->n ? (int)ls->l[md->light_seen - 1].state : -1;
        const struct sn_traffic *tf = e->traffic;
        const sn_jclaim *cl = NULL;
        int32_t cj = -1;
        for (uint32_t jn = 0; tf && tf->jx && jn < tf->jx->n_junctions && !cl; jn++)
            if ((cl = sn_jx_claim(tf->jx, (int32_t)jn, a->id, false)))
                cj = (int32_t)jn;
        fprintf(stderr, "%s%.1f %u %s at (%.1f, %.1f) yaw %.0f v %.2f road %d lane %d s %.1f%s -> road %d lane %d n %u%s, waits for %u%s, light %u st %d go %d, sign %u go %d, claim j%d %s%s%s front %.1f, jx_in %d, stand %.1f xw %.1f far %d route %u at %u dir %d, passes %u held for %u side step %.2f\n",
                depth ? "    -> " : "t=", t, a->id, a->type_id, a->st.pos.x, a->st.pos.y, sn_actor_world_transform(&e->world, a).rotation.yaw,
                hypot(a->st.vel.x, a->st.vel.y), md->path[0].road_id, md->path[0].lane_id, md->path[0].s,
                md->path[0].is_junction ? " (J)" : "", md->path[md->n - 1].road_id, md->path[md->n - 1].lane_id, md->n, md->ended ? " ENDED" : "",
                md->wait_for, md->wait_logical ? " (logical)" : "", md->light_seen, light_state, md->light_go, md->sign_seen, md->sign_go,
                cj, cl ? "yes" : "none", cl && cl->ready ? " ready" : "", cl && cl->granted ? " granted" : "", cl ? cl->front : 0.0, md->jx_in,
                md->stand, (double)md->xw_wait, md->far, md->n_route, md->route_at, md->route_dir, md->pass_with, md->held_for,
                md->offset);
        id = md->wait_for;
    }
}
static void run(const char *tmp, const char *plugins, const char *map, const char *pics, bool scenery)
{
    sn_error err = {0};
    char scene[8192];
    survey_scene(scene, sizeof scene, "wait_trace", map, pics, scenery, "ClearNoon");
    sn_engine_options o = {.plugin_dir = plugins, .quiet_plugins = true, .threads = 2};
    sn_engine *e = sn_engine_create(&o, &err);
    survey s = {0};
    if (!e || sn_engine_load_scene(e, tu_write(tmp, "wait_trace.yaml", scene), &err) ||
        sn_engine_listen(e, "sem", on_sem, &s, &err) || sn_engine_listen(e, "lidar", on_lidar, &s, &err) ||
        (pics && sn_engine_open_outputs(e, pics, &err))) {
        fprintf(stderr, "wait_trace: %s\n", err.msg);
        exit(1);
    }
    const char *t0s = getenv("WT_T0");
    double t0 = t0s ? atof(t0s) : 0, tstep = getenv("WT_DT") ? atof(getenv("WT_DT")) : 2.0;
    if (getenv("WT_WP")) {
        int road = atoi(getenv("WT_WP"));
        for (int lane = -2; lane <= 2; lane++)
            for (double q = 0; q < 200; q += 4) {
                sn_waypoint w;
                if (lane && sn_map_waypoint_xodr(sn_engine_map(e), road, lane, q, &w, NULL) == SN_OK)
                    fprintf(stderr, "wp road %d lane %d s %.0f at (%.1f, %.1f) yaw %.0f width %.2f junction %d\n", road, lane, q,
                            w.transform.location.x, w.transform.location.y, w.transform.rotation.yaw, w.lane_width, w.is_junction);
            }
    }
    int fmax_ = getenv("WT_END") ? (int)(atof(getenv("WT_END")) / 0.05) : 2400;
    const uint32_t traced = getenv("WT_ID") ? (uint32_t)atoi(getenv("WT_ID")) : sn_world_find_name(&e->world, "hero")->id;
    double stood = 0, longest = 0, since = 0; /* the traced vehicle's time below 0.3 m/s: all, its longest stretch */
    for (int f = 1; f <= fmax_; f++) {
        if (sn_engine_step(e, &err)) { fprintf(stderr, "%s\n", err.msg); exit(1); }
        double t = f * 0.05;
        const sn_actor *me = sn_world_find(&e->world, traced);
        if (me && sn_v3_len(me->st.vel) < 0.3)
            stood += 0.05, since += 0.05, longest = fmax(longest, since);
        else
            since = 0;
        if (getenv("WT_PAIR")) {
            unsigned p1, p2;
            sscanf(getenv("WT_PAIR"), "%u,%u", &p1, &p2);
            const sn_actor *x = sn_world_find(&e->world, p1), *y = sn_world_find(&e->world, p2);
            static double mingap = INFINITY;
            if (x && y && hypot(x->st.pos.x - y->st.pos.x, x->st.pos.y - y->st.pos.y) < 20) {
                double g = box_gap(e, x, y);
                if (g < mingap)
                    mingap = g, fprintf(stderr, "  pair gap %.3f at %.2f (pitch %.1f and %.1f deg)\n", g, t,
                                        sn_actor_world_transform(&e->world, x).rotation.pitch,
                                        sn_actor_world_transform(&e->world, y).rotation.pitch);
            }
        }
        if (t + 1e-9 >= t0 && fmod(t + 1e-9, tstep) < 0.05)
            trace_chain(e, t, traced);
    }
    sn_traffic_health th = {.struct_size = sizeof th};
    sn_engine_traffic_health(e, &th, &err);
    printf("vehicle %u stood %.1f s of %.1f (longest %.1f s); autopilot collisions %u, deadlocks resolved %u, "
           "vehicle-minutes standing %u of %u\n", traced, stood, fmax_ * 0.05, longest, th.autopilot_collisions,
           th.deadlocks_resolved, th.standing, th.vehicles);
    for (uint32_t k = 0; e->health && k < e->health->n_events[SN_HEALTH_EV_COLLISION]; k++) {
        const sn_health_event *c = &e->health->events[SN_HEALTH_EV_COLLISION][k];
        const sn_actor *x = sn_world_find(&e->world, c->a), *y = sn_world_find(&e->world, c->b);
        printf("  collision at %.2f s: %u %s and %u %s\n", c->frame * 0.05, c->a, x ? x->type_id : "?", c->b,
               y ? y->type_id : "?");
    }
    survey_print(&s, map, scenery);
    sn_engine_destroy(e);
}

int main(int argc, char **argv)
{
    if (argc < 4)
        return fprintf(stderr, "usage: wait_trace TMP PLUGINS MAP.xodr\n"), 2;
    run(argv[1], argv[2], argv[3], NULL, !getenv("WT_OFF"));
    return 0;
}
