/* jam_probe — where and why autopilot traffic stands on a map over a long run (not a test: a
** diagnosis, built on demand with `meson compile -C build jam_probe`). bench_traffic's scene
** (settings {fixed_delta_seconds: 0.05, seed: 1}, traffic {vehicles: N, seed: 2}, no hero), hybrid
** mode as bench_traffic's (JP_HYBRID=0: full physics), 1 thread; every JP_DT s (default 10) it
** prints how many vehicles stand (under 0.3 m/s) and, following each standing vehicle's wait
** record (wait_for: its leader, or the claim or exit it waits for at a junction) to the vehicle at
** its head, what the heads wait for (a light, a junction's claim or exit, the lane's end for a
** route's lane change, a cycle, nothing) with the largest queues' place and ages.
** usage: jam_probe TMP PLUGINS MAP.xodr VEHICLES SECONDS */
#include "../../engine/sim/engine.h"
#include <unistd.h>

#include "../../engine/traffic/traffic.h"
#include "../../engine/traffic/traffic_int.h"
#include "../../engine/traffic/junction.h"
#include "../../engine/traffic/lights.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const sn_mapdrive *md_of(const sn_actor *a)
{
    return a && a->kind == SN_ACTOR_VEHICLE && a->has_autopilot && a->mv && a->mv->ap && a->mv->ap->map &&
                   !a->mv->ap->map->walker ? a->mv->ap->map : NULL;
}

static bool standing(const sn_actor *a) { return hypot(a->st.vel.x, a->st.vel.y) < 0.3; }

enum { R_LIGHT, R_LANE_END, R_ENDED, R_SIGN, R_CLAIM, R_EXIT, R_CYCLE, R_LEAD_MOVING, R_HEADON, R_NONE, R_N };
static const char *rname[R_N] = {"light", "lane-end(route)", "dead-end", "sign", "jx-claim", "jx-exit", "cycle",
                                 "leader-moving", "head-on", "nothing"};

/* What the head of a chain (a vehicle that waits for nobody standing) waits for. */
static int head_reason(const sn_engine *e, const sn_mapdrive *md)
{
    if (md->pass_with || md->held_for)
        return R_HEADON;
    if (md->wait_for) {
        const sn_actor *x = sn_world_find(&e->world, md->wait_for);
        if (x && !standing(x))
            return R_LEAD_MOVING;
    }
    if (md->route_dir)
        return R_LANE_END;
    if (md->ended)
        return R_ENDED;
    const sn_lights *ls = e->lights;
    if (md->light_seen && ls && md->light_seen <= ls->n && !md->light_ignored &&
        ls->l[md->light_seen - 1].state != SN_TL_GREEN)
        return R_LIGHT;
    if (md->sign_seen && md->sign_wait > 0)
        return R_SIGN;
    return R_NONE;
}

typedef struct head { uint32_t id, queue; int reason; } head;

static int by_queue(const void *x, const void *y)
{
    const head *a = x, *b = y;
    return a->queue != b->queue ? (a->queue < b->queue ? 1 : -1) : (a->id > b->id) - (a->id < b->id);
}

/* JP_ID=A,B,...: those vehicles' state (place with height, heading, path ends, wait). */
static void trace_ids(sn_engine *e, double t)
{
    const char *ids = getenv("JP_ID");
    for (const char *p = ids; p && *p;) {
        uint32_t id = (uint32_t)strtoul(p, (char **)&p, 10);
        if (*p == ',')
            p++;
        const sn_actor *a = sn_world_find(&e->world, id);
        const sn_mapdrive *md = md_of(a);
        if (!md || !md->n) {
            printf("  id %u gone\n", id);
            continue;
        }
        const struct sn_traffic *tf_ = e->traffic;
        const sn_jclaim *cl = NULL;
        int32_t cj = -1;
        for (uint32_t jn = 0; tf_ && tf_->jx && jn < tf_->jx->n_junctions && !cl; jn++)
            if ((cl = sn_jx_claim(tf_->jx, (int32_t)jn, id, false)))
                cj = (int32_t)jn;
        if (cl)
            printf("  id %u t %.2f claim j%d ready %d granted %d ready for %.1f s front %.1f ticket %.1f\n", id, t, cj, cl->ready,
                   cl->granted, cl->ready ? e->clock.timestamp - cl->ready_since : 0.0, cl->front, cl->ticket);
        const sn_transform tf = sn_actor_world_transform(&e->world, a);
        printf("  id %u t %.2f at (%.2f, %.2f, %.2f) yaw %.1f v %.2f ext %.2f x %.2f | path[0] road %d lane %d s %.1f%s at (%.2f, %.2f, %.2f) "
               "... [%u] road %d lane %d s %.1f%s at (%.2f, %.2f) ended %d route_dir %d n_route %u at %u | waits %u%s stand %.1f "
               "vt %.2f asleep %d coast %d offset %.2f pass %u held %u lc_done %d\n",
               id, t, a->st.pos.x, a->st.pos.y, a->st.pos.z, tf.rotation.yaw, hypot(a->st.vel.x, a->st.vel.y),
               a->ph->bbox.extent.y, a->ph->bbox.extent.x, md->path[0].road_id, md->path[0].lane_id, md->path[0].s,
               md->path[0].is_junction ? " (J)" : "", md->at[0].x, md->at[0].y, md->at[0].z, md->n - 1,
               md->path[md->n - 1].road_id, md->path[md->n - 1].lane_id, md->path[md->n - 1].s,
               md->path[md->n - 1].is_junction ? " (J)" : "", md->at[md->n - 1].x, md->at[md->n - 1].y, md->ended,
               md->route_dir, md->n_route, md->route_at, md->wait_for, md->wait_logical ? " (logical)" : "", md->stand,
               (double)md->coast_vt, md->asleep, md->coast, md->offset, md->pass_with, md->held_for, md->lc_done);
    }
}

static void sample(sn_engine *e, double t)
{
    const sn_world *w = &e->world;
    uint32_t nv = 0, ns = 0, own[R_N] = {0}, hq[R_N] = {0}, nh = 0;
    static head heads[4096];
    for (size_t i = 0; i < w->n_actors; i++) {
        const sn_actor *a = w->actors[i];
        const sn_mapdrive *md = md_of(a);
        if (!md)
            continue;
        nv++;
        if (!standing(a))
            continue;
        ns++;
        /* follow the wait records to the head (a vehicle whose wait is for nobody standing) */
        uint32_t id = a->id, seen[64], n = 0;
        int reason = -1;
        const sn_actor *h = a;
        for (;;) {
            const sn_mapdrive *mh = md_of(h);
            if (!mh) { reason = R_NONE; break; }
            bool cyc = false;
            for (uint32_t k = 0; k < n; k++)
                cyc |= seen[k] == id;
            if (cyc) { reason = R_CYCLE; break; }
            if (n < 64)
                seen[n++] = id;
            const sn_actor *x = mh->wait_for ? sn_world_find(w, mh->wait_for) : NULL;
            if (!x || !standing(x) || !md_of(x)) {
                reason = mh->wait_for && mh->wait_logical && x && standing(x) ? R_NONE : head_reason(e, mh);
                if (reason == R_NONE && mh->wait_logical)
                    reason = R_CLAIM; /* waits for a claim or exit whose vehicle moves */
                break;
            }
            id = x->id, h = x;
        }
        /* its own reason: the first link */
        own[md->wait_for ? (md->wait_logical ? R_CLAIM : R_LEAD_MOVING) : head_reason(e, md)]++;
        uint32_t k = 0;
        for (; k < nh && heads[k].id != id; k++)
            ;
        if (k == nh && nh < 4096)
            heads[nh++] = (head){id, 0, reason};
        if (k < nh)
            heads[k].queue++;
    }
    for (uint32_t k = 0; k < nh; k++)
        hq[heads[k].reason] += heads[k].queue;
    const struct sn_traffic *tf = e->traffic;
    printf("t=%5.0f vehicles %u standing %u (%.0f %%) removed %llu deadlocks %llu heads %u\n", t, nv, ns,
           nv ? 100.0 * ns / nv : 0, tf ? (unsigned long long)tf->stuck_removed : 0,
           tf ? (unsigned long long)tf->stats.deadlocks_resolved : 0, nh);
    printf("  own wait (leader incl. standing ones / logical / head reasons):");
    for (int r = 0; r < R_N; r++)
        if (own[r])
            printf(" %s %u", r == R_LEAD_MOVING ? "leader" : r == R_CLAIM ? "logical" : rname[r], own[r]);
    printf("\n  standing by their head's reason:");
    for (int r = 0; r < R_N; r++)
        if (hq[r])
            printf(" %s %u", rname[r], hq[r]);
    printf("\n");
    qsort(heads, nh, sizeof *heads, by_queue);
    const int top = getenv("JP_TOP") ? atoi(getenv("JP_TOP")) : 8;
    for (uint32_t k = 0; k < nh && (int)k < top; k++) {
        const sn_actor *h = sn_world_find(w, heads[k].id);
        const sn_mapdrive *md = md_of(h);
        if (!md)
            continue;
        int32_t cj = -1;
        const sn_jclaim *cl = NULL;
        for (uint32_t jn = 0; tf && tf->jx && jn < tf->jx->n_junctions && !cl; jn++)
            if ((cl = sn_jx_claim(tf->jx, (int32_t)jn, h->id, false)))
                cj = (int32_t)jn;
        const sn_lights *ls = e->lights;
        int lst = md->light_seen && ls && md->light_seen <= ls->n ? (int)ls->l[md->light_seen - 1].state : -1;
        const sn_actor *x = md->wait_for ? sn_world_find(w, md->wait_for) : NULL;
        printf("    head %u %s queue %u [%s] at (%.0f, %.0f) road %d lane %d s %.0f%s stand %.0f idle %.0f vt %.2f "
               "waits %u%s (v %.2f) light %u st %d route_dir %d claim j%d%s%s front %.1f jx_in %d\n",
               h->id, h->type_id, heads[k].queue, rname[heads[k].reason], h->st.pos.x, h->st.pos.y, md->path[0].road_id,
               md->path[0].lane_id, md->path[0].s, md->path[0].is_junction ? " (J)" : "", md->stand,
               md->idle_since > 0 ? e->clock.timestamp - md->idle_since : 0, (double)md->coast_vt, md->wait_for,
               md->wait_logical ? " (logical)" : "", x ? hypot(x->st.vel.x, x->st.vel.y) : -1, md->light_seen, lst,
               md->route_dir, cj, cl && cl->ready ? " ready" : "", cl && cl->granted ? " granted" : "", cl ? cl->front : 0.0,
               md->jx_in);
    }
}

int main(int argc, char **argv)
{
    if (argc < 6)
        return fprintf(stderr, "usage: jam_probe TMP PLUGINS MAP.xodr VEHICLES SECONDS\n"), 2;
    const bool hybrid = !getenv("JP_HYBRID") || atoi(getenv("JP_HYBRID"));
    const double secs = atof(argv[5]), dts = getenv("JP_DT") ? atof(getenv("JP_DT")) : 10;
    char text[2048], path[1024];
    snprintf(text, sizeof text,
             "settings: {fixed_delta_seconds: 0.05, duration: 100000, seed: 1}\nmap: %s\n"
             "traffic: {vehicles: %s, walkers: 0, seed: %s}\nactors:\n  - {name: ground, blueprint: static.ground}\n",
             argv[3], argv[4], getenv("JP_SEED") ? getenv("JP_SEED") : "2");
    snprintf(path, sizeof path, "%s/jam_probe_%d.yaml", argv[1], (int)getpid());
    FILE *f = fopen(path, "w");
    if (!f || fputs(text, f) < 0 || fclose(f))
        return 1;
    sn_error err = {0};
    sn_engine_options o = {.plugin_dir = argv[2], .quiet_plugins = true, .threads = 1};
    sn_engine *e = sn_engine_create(&o, &err);
    if (!e || sn_engine_load_scene(e, path, &err) ||
        (hybrid && sn_engine_tm_set(e, 8000, 0, SN_TM_HYBRID_PHYSICS_MODE, 1, &err)))
        return fprintf(stderr, "jam_probe: %s\n", err.msg), 1;
    const int frames = (int)(secs / 0.05 + 0.5), every = (int)(dts / 0.05 + 0.5);
    for (int fr = 1; fr <= frames; fr++) {
        if (sn_engine_step(e, &err))
            return fprintf(stderr, "jam_probe: %s\n", err.msg), 1;
        if (getenv("JP_ID") && fr * 0.05 <= (getenv("JP_TEND") ? atof(getenv("JP_TEND")) : 1e9) &&
            fr % (getenv("JP_TDT") ? (int)(atof(getenv("JP_TDT")) / 0.05 + 0.5) : every) == 0)
            trace_ids(e, fr * 0.05);
        if (fr % every == 0) {
            sample(e, fr * 0.05);
            fflush(stdout);
        }
    }
    sn_engine_destroy(e);
    remove(path);
    return 0;
}
