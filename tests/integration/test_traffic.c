/* Traffic lights and traffic that drives, on the town map (tests/data/town.xodr: 3x3 blocks,
** 9 signalised junctions of 4 lights, two controllers per junction: opposite approaches). argv[1]: temp folder,
** argv[2]: collision plugin folder, argv[3]: tests/data.
**
** 1. Lights: one actor per map signal (36), four per junction group; each light's states follow
**    CARLA's cycle exactly (green 10 s, yellow 3 s, red 2 s, then the group's next controller),
**    the two lights of a controller (opposite approaches) together, never two controllers; set_state, freeze, stop waypoints (on the signal's
**    lane at its s), the `state` attribute and the head's colour follow.
** 2. A hero on autopilot among traffic for 10 simulated minutes: its collision sensor reports
**    nothing, it travels far, and whenever its lane's light is red while its front is within
**    10 m before the stop line, it never crosses the line while that light stays red and it
**    comes to rest before it (derived from the light states, the stop waypoints and its pose).
** 3. 100 autopilot vehicles for 10 simulated minutes: no collision between them (a collision
**    sensor on each), and they move (most travel more than a block).
** 4. Determinism: two runs give byte-identical poses; --threads 1 and 2 too.
**
** SENSIM_TEST_TRAFFIC_SECONDS shortens the long runs (the sanitizer builds use 120 s). */
#include "../check.h"
#include "../testutil.h"

#include <math.h>

static const char *tmp, *plugins, *data;

static double sim_seconds(void)
{
    const char *s = getenv("SENSIM_TEST_TRAFFIC_SECONDS");
    double v = s ? atof(s) : 600;
    return v > 0 ? v : 600;
}

static const char *scene(const char *name, const char *body)
{
    char text[4096];
    snprintf(text, sizeof text,
             "settings: {fixed_delta_seconds: 0.05, duration: 10, seed: 5}\n"
             "map: %s/town.xodr\n"
             "actors:\n  - {name: ground, blueprint: static.ground}\n%s",
             data, body);
    static char path[1024];
    snprintf(path, sizeof path, "%s", tu_write(tmp, name, text));
    return path;
}

static void step(sn_engine *e)
{
    sn_error err = {0};
    if (sn_engine_step(e, &err) != SN_OK) {
        fprintf(stderr, "FAIL: step: %s\n", err.msg);
        exit(1);
    }
}

/* ---- 1. lights ---- */

/* 4. Walkers cross streets at crosswalks only. The town's crosswalks lie across every arm of a
** junction, 3 m outside it; junction centres are at x in {0, 100, 200}, y in {0, -100, -200}
** and a junction reaches 10 m from its centre. So a walker on a driving lane stands within 16 m
** (Chebyshev) of a junction centre, never mid-block; over two minutes some do cross. */
static void test_crosswalks(void)
{
    const char *path = scene("walkers.yaml", "traffic: {vehicles: 20, walkers: 30, seed: 3}\n");
    sn_engine *e = tu_load_threads(plugins, path, 1);
    const sn_map *m = sn_engine_map(e);
    int on_road = 0, jaywalk = 0, crossings = 0;
    uint32_t ids[64];
    int sides[64];
    uint32_t n = 0;
    for (uint32_t i = 0; i < sn_engine_actor_count(e) && n < 64; i++) {
        sn_actor_info a = {.struct_size = sizeof a};
        if (sn_engine_actor_get(e, sn_engine_actor_id_at(e, i), &a) == SN_OK && a.kind == SN_ACTOR_WALKER)
            ids[n] = a.id, sides[n++] = 0;
    }
    CHECK(n == 30, "30 walkers spawned: %u", n);
    for (int f = 0; f < 2400; f++) {
        step(e);
        if (f % 5)
            continue;
        for (uint32_t k = 0; k < n; k++) {
            sn_actor_info a = {.struct_size = sizeof a};
            if (sn_engine_actor_get(e, ids[k], &a) != SN_OK)
                continue;
            sn_vec3 p = a.transform.location;
            sn_waypoint w;
            if (sn_map_waypoint(m, p, false, SN_LANE_DRIVING, &w, NULL) != SN_OK) {
                sides[k] = 0;
                continue;
            }
            on_road++;
            double best = 1e9;
            for (int cx = 0; cx <= 200; cx += 100)
                for (int cy = 0; cy >= -200; cy -= 100)
                    best = fmin(best, fmax(fabs(p.x - cx), fabs(p.y - cy)));
            if (best > 16) {
                jaywalk++;
                fprintf(stderr, "  walker %u on the road mid-block at (%.1f, %.1f)\n", ids[k], p.x, p.y);
            }
            /* a crossing: on lanes of both directions in one visit to the road */
            int side = w.lane_id < 0 ? -1 : 1;
            if (sides[k] && sides[k] != side && sides[k] != 2)
                crossings++, side = 2;
            if (sides[k] != 2)
                sides[k] = side;
        }
    }
    fprintf(stderr, "crosswalks: %d walker samples on driving lanes, %d crossings, %d mid-block\n", on_road, crossings,
            jaywalk);
    CHECK(crossings >= 3, "walkers crossed streets (%d)", crossings);
    CHECK(jaywalk == 0, "%d samples of walkers on the road mid-block", jaywalk);
    sn_engine_destroy(e);
}

static void test_lights(void)
{
    sn_engine *e = tu_load_threads(plugins, scene("lights.yaml", ""), 1);
    sn_error err = {0};
    uint32_t n = sn_engine_traffic_light_count(e);
    CHECK(n == 36, "36 lights from the map's 36 signals, got %u", n);
    /* Groups: 9 of 4, each light's controller its place in the junction's listing. */
    uint32_t first = sn_engine_traffic_light_at(e, 0);
    size_t ng = 0;
    uint32_t group[8];
    CHECK(sn_engine_traffic_light_group(e, first, group, 8, &ng, &err) == SN_OK && ng == 4, "a group of 4, got %zu", ng);
    sn_traffic_light_info info = {.struct_size = sizeof info};
    CHECK(sn_engine_traffic_light_info(e, first, &info, &err) == SN_OK, "info: %s", err.msg);
    CHECK(info.junction_id >= 0 && info.opendrive_id >= 0 && info.n_stops == 1, "first light: junction %d, signal %d, %u stops",
          info.junction_id, info.opendrive_id, info.n_stops);
    CHECK(fabs(info.green_time - 10) < 1e-9 && fabs(info.yellow_time - 3) < 1e-9 && fabs(info.red_time - 2) < 1e-9,
          "CARLA's default times, got %g %g %g", info.green_time, info.yellow_time, info.red_time);
    /* The stop waypoint: on the signal's road, at its s, on the lane its validity names. */
    sn_waypoint stop;
    size_t ns = 0;
    CHECK(sn_engine_traffic_light_stops(e, first, &stop, 1, &ns, &err) == SN_OK && ns == 1, "one stop waypoint");
    CHECK(stop.road_id == info.road_id && stop.lane_type == SN_LANE_DRIVING, "stop on road %d (lane %d)", stop.road_id,
          stop.lane_id);
    sn_actor_info head = {.struct_size = sizeof head};
    sn_engine_actor_get(e, first, &head);
    CHECK(head.semantic_tag == 7 && strcmp(head.type_id, "traffic.traffic_light") == 0, "tag TrafficLight (7), %s",
          head.type_id);
    CHECK(head.transform.location.z > 3.0, "the head on its pole, z = %g", head.transform.location.z);
    CHECK(sqrt(pow(head.transform.location.x - stop.transform.location.x, 2) +
               pow(head.transform.location.y - stop.transform.location.y, 2)) < 8,
          "the head beside its stop line");

    /* Every light's state over 125 s against CARLA's cycle: the lights of controller k of their
    ** group (k = pole index, 0 or 1) are green during [15k, 15k + 10) of every 30 s, yellow the
    ** next 3 s, else red. */
    int bad = 0, nonred_max = 0, mixed = 0;
    for (int f = 1; f <= 2500; f++) {
        double t = f * 0.05; /* groups advance at the start of frame f, at t = f * dt */
        step(e);
        int nonred[64] = {0}, pole[64];
        for (uint32_t i = 0; i < n; i++) {
            uint32_t id = sn_engine_traffic_light_at(e, i);
            sn_traffic_light_info li = {.struct_size = sizeof li};
            sn_engine_traffic_light_info(e, id, &li, NULL);
            double ph = fmod(t + 1e-9, 30.0) - 15.0 * li.pole_index;
            sn_traffic_light_state want = ph >= 0 && ph < 10 ? SN_TL_GREEN : ph >= 10 && ph < 13 ? SN_TL_YELLOW : SN_TL_RED;
            if (li.state != want && bad++ < 5)
                fprintf(stderr, "  light %u (pole %u) at t = %.2f: state %d, CARLA's cycle says %d\n", id, li.pole_index, t,
                        li.state, want);
            if (li.state != SN_TL_RED && li.junction_id >= 0 && li.junction_id < 64 * 1024) {
                int j = li.junction_id % 64;
                if (nonred[j]++ && pole[j] != (int)li.pole_index)
                    mixed++;
                pole[j] = (int)li.pole_index;
            }
        }
        for (int j = 0; j < 64; j++)
            nonred_max = nonred[j] > nonred_max ? nonred[j] : nonred_max;
    }
    CHECK(bad == 0, "%d light states off CARLA's cycle", bad);
    CHECK(nonred_max == 2 && mixed == 0, "two non-red lights per junction at a time (one controller), saw %d, %d of two controllers",
          nonred_max, mixed);

    /* The attribute and set_state / freeze. */
    sn_value v;
    sn_traffic_light_state s;
    sn_engine_traffic_light_get_state(e, first, &s, NULL);
    CHECK(sn_engine_actor_attribute(e, first, "state", &v, NULL) == SN_OK && v.i == (int64_t)s, "attribute state %lld = %d",
          (long long)v.i, s);
    CHECK(sn_engine_traffic_light_freeze(e, first, true, &err) == SN_OK, "freeze");
    CHECK(sn_engine_traffic_light_set_state(e, first, SN_TL_GREEN, &err) == SN_OK, "set_state");
    for (int f = 0; f < 400; f++)
        step(e);
    sn_engine_traffic_light_get_state(e, first, &s, NULL);
    CHECK(s == SN_TL_GREEN, "a frozen group keeps the state set: %d", s);
    sn_engine_actor_attribute(e, first, "state", &v, NULL);
    CHECK(strcmp(v.s, "Green") == 0, "attribute says %s", v.s);
    CHECK(sn_engine_traffic_light_set_state(e, first, (sn_traffic_light_state)9, &err) == SN_E_RANGE, "state 9 refused");
    CHECK(sn_engine_traffic_light_get_state(e, 1u << 30, &s, &err) == SN_E_NOT_FOUND, "no such light");
    sn_engine_destroy(e);
}

/* ---- 2-4. driving ---- */

#define MAXV 160
typedef struct run {
    uint32_t ids[MAXV], n_ids;
    sn_vec3 start[MAXV];
    double travelled[MAXV];
    sn_vec3 last[MAXV];
    uint64_t collisions, vehicle_collisions, hero_collisions;
    uint32_t hero;
    /* red-light bookkeeping */
    int approaches, stops, released, violations;
    uint64_t hash;
} run;

static run *cur;

static bool is_vehicle(uint32_t id)
{
    for (uint32_t i = 0; i < cur->n_ids; i++)
        if (cur->ids[i] == id)
            return true;
    return false;
}

static void on_collision(const sn_message *m, void *user)
{
    (void)user;
    msgpack_unpacked u;
    msgpack_unpacked_init(&u);
    if (msgpack_unpack_next(&u, m->data, m->size, NULL) == MSGPACK_UNPACK_SUCCESS) {
        const msgpack_object *o = tu_get(&u.data, "other_actor");
        const msgpack_object *id = o ? tu_get(o, "id") : NULL;
        uint32_t other = id ? (uint32_t)tu_num(id) : 0;
        cur->collisions++;
        if (is_vehicle(other) && cur->vehicle_collisions++ < 8) {
            const msgpack_object *tr = tu_get(&u.data, "transform");
            sn_vec3 at = tr ? tu_vec3(tu_get(tr, "location")) : (sn_vec3){0, 0, 0};
            fprintf(stderr, "  collision at frame %llu: %s with actor %u at (%.1f, %.1f)\n", (unsigned long long)m->frame,
                    m->sensor, other, at.x, at.y);
        }
        if (strcmp(m->sensor, "hero_crash") == 0) {
            cur->hero_collisions++;
            const msgpack_object *t = o ? tu_get(o, "type_id") : NULL;
            fprintf(stderr, "  hero collision at frame %llu with actor %u (%.*s)\n", (unsigned long long)m->frame, other,
                    t && t->type == MSGPACK_OBJECT_STR ? (int)t->via.str.size : 1, t ? t->via.str.ptr : "?");
        }
    }
    msgpack_unpacked_destroy(&u);
}

/* The hero's red lights: its front against each stop line of its lane (see the header). */
typedef struct redwatch {
    uint32_t light; /* 0: none tracked */
    bool stopped;
} redwatch;

static void watch_red(sn_engine *e, run *r, redwatch *w)
{
    const sn_map *m = sn_engine_map(e);
    sn_actor_info h = {.struct_size = sizeof h};
    if (sn_engine_actor_get(e, r->hero, &h) != SN_OK)
        return;
    double yaw = h.transform.rotation.yaw * M_PI / 180;
    sn_vec3 front = {h.transform.location.x + cos(yaw) * h.bounding_box.extent.x,
                     h.transform.location.y + sin(yaw) * h.bounding_box.extent.x, 0};
    sn_waypoint wp;
    if (sn_map_waypoint(m, front, true, SN_LANE_DRIVING, &wp, NULL) != SN_OK)
        return;
    double speed = sqrt(h.velocity.x * h.velocity.x + h.velocity.y * h.velocity.y);
    if (w->light) {
        sn_traffic_light_state s;
        sn_engine_traffic_light_get_state(e, w->light, &s, NULL);
        sn_waypoint stop;
        size_t ns = 0;
        sn_engine_traffic_light_stops(e, w->light, &stop, 1, &ns, NULL);
        if (s != SN_TL_RED) {
            r->released += !w->stopped; /* the red ended before it had to stand: still before the line */
            w->light = 0;
            return;
        }
        if (wp.is_junction || (wp.road_id == stop.road_id && wp.lane_id == stop.lane_id &&
                               (stop.s - wp.s) * (wp.lane_id < 0 ? 1 : -1) < 0)) {
            r->violations++;
            fprintf(stderr, "  hero crossed the stop line of red light %u at t = %.2f\n", w->light,
                    sn_engine_clock(e)->timestamp);
            w->light = 0;
            return;
        }
        if (speed < 0.1 && !w->stopped) {
            w->stopped = true;
            r->stops++;
        }
        return;
    }
    for (uint32_t i = 0; i < sn_engine_traffic_light_count(e); i++) {
        uint32_t id = sn_engine_traffic_light_at(e, i);
        sn_traffic_light_state s;
        sn_engine_traffic_light_get_state(e, id, &s, NULL);
        if (s != SN_TL_RED)
            continue;
        sn_waypoint stop;
        size_t ns = 0;
        sn_engine_traffic_light_stops(e, id, &stop, 1, &ns, NULL);
        if (!ns || stop.road_id != wp.road_id || stop.lane_id != wp.lane_id)
            continue;
        double d = (stop.s - wp.s) * (wp.lane_id < 0 ? 1 : -1);
        if (d > 0 && d <= 10) {
            w->light = id;
            w->stopped = speed < 0.1;
            r->approaches++;
            r->stops += w->stopped;
        }
    }
}

static void drive(const char *path, int threads, double seconds, bool with_hero, run *r)
{
    memset(r, 0, sizeof *r);
    cur = r;
    sn_engine *e = tu_load_threads(plugins, path, threads);
    sn_error err = {0};
    /* A collision sensor on every vehicle. */
    for (uint32_t i = 0; i < sn_engine_actor_count(e); i++) {
        uint32_t id = sn_engine_actor_id_at(e, i);
        sn_actor_info a = {.struct_size = sizeof a};
        sn_engine_actor_get(e, id, &a);
        if (a.kind != SN_ACTOR_VEHICLE || r->n_ids >= MAXV)
            continue;
        r->ids[r->n_ids] = id;
        r->start[r->n_ids] = r->last[r->n_ids] = a.transform.location;
        r->n_ids++;
        char name[64];
        snprintf(name, sizeof name, "%s_crash", a.name);
        sn_actor_desc d = {sizeof d, "sensor.other.collision", name, {{0, 0, 0}, {0, 0, 0}}, id, 0, NULL, 0};
        if (sn_engine_spawn(e, &d, NULL, &err) != SN_OK || sn_engine_listen(e, name, on_collision, NULL, &err) != SN_OK) {
            fprintf(stderr, "FAIL: collision sensor: %s\n", err.msg);
            exit(1);
        }
        if (strcmp(a.name, "hero") == 0)
            r->hero = id;
    }
    redwatch w = {0};
    uint64_t frames = (uint64_t)llround(seconds / 0.05);
    for (uint64_t f = 0; f < frames; f++) {
        step(e);
        if (with_hero && r->hero)
            watch_red(e, r, &w);
        if (f + 1 == frames && w.light && !w.stopped)
            r->approaches--; /* still rolling towards a red when the run ends: not yet either outcome */
        if (f % 20 == 0)
            for (uint32_t i = 0; i < r->n_ids; i++) {
                sn_actor_info a = {.struct_size = sizeof a};
                if (sn_engine_actor_get(e, r->ids[i], &a) != SN_OK)
                    continue;
                sn_vec3 p = a.transform.location;
                r->travelled[i] += hypot(p.x - r->last[i].x, p.y - r->last[i].y);
                r->last[i] = p;
            }
    }
    uint64_t h = 0xcbf29ce484222325ull;
    for (uint32_t i = 0; i < sn_engine_actor_count(e); i++) {
        sn_actor_info a = {.struct_size = sizeof a};
        sn_engine_actor_get(e, sn_engine_actor_id_at(e, i), &a);
        h = tu_fnv(h, &a.id, sizeof a.id);
        h = tu_fnv(h, &a.transform, sizeof a.transform);
        h = tu_fnv(h, &a.velocity, sizeof a.velocity);
    }
    r->hash = h;
    sn_engine_destroy(e);
}

static int moved(const run *r, double metres)
{
    int k = 0;
    for (uint32_t i = 0; i < r->n_ids; i++)
        k += r->travelled[i] > metres;
    return k;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: test_traffic TMP PLUGINS DATA\n");
        return 2;
    }
    tmp = argv[1], plugins = argv[2], data = argv[3];
    const double secs = sim_seconds();
    test_lights();
    test_crosswalks();

    /* 2. The hero among 40 autopilot vehicles and 20 walkers. */
    const char *hero_scene = scene("hero.yaml",
                                   "  - name: hero\n    blueprint: vehicle.sedan\n"
                                   "    transform: {location: [-30, 1.75, 0.3]}\n"
                                   "    attributes: {role_name: hero}\n    autopilot: {}\n"
                                   "traffic: {vehicles: 40, walkers: 20, seed: 11}\n");
    run r;
    drive(hero_scene, 1, secs, true, &r);
    uint32_t hi = 0;
    for (uint32_t i = 0; i < r.n_ids; i++)
        if (r.ids[i] == r.hero)
            hi = i;
    fprintf(stderr, "hero: %.0f m in %.0f s, %d red lights met within 10 m, %d stops before the line, %d released "
            "before the line, %llu collisions in all\n", r.travelled[hi], secs, r.approaches, r.stops, r.released,
            (unsigned long long)r.collisions);
    CHECK(r.hero_collisions == 0, "the hero's collision sensor reported %llu events", (unsigned long long)r.hero_collisions);
    CHECK(r.violations == 0, "the hero crossed %d red stop lines", r.violations);
    CHECK(r.approaches >= (secs >= 300 ? 5 : 1), "the hero met red lights (%d)", r.approaches); /* 11 in 300 s, 16 in 600 */
    CHECK(r.stops >= 1 && r.stops + r.released == r.approaches,
          "at every red it met it came to rest before the line (%d) or was still before it when the red ended (%d), "
          "of %d", r.stops, r.released, r.approaches);
    CHECK(r.travelled[hi] > secs * 2, "the hero drives: %.0f m", r.travelled[hi]);

    /* 3. 100 vehicles. */
    const char *big = scene("traffic100.yaml", "traffic: {vehicles: 100, seed: 2}\n");
    drive(big, 1, secs, false, &r);
    fprintf(stderr, "100 vehicles: %u spawned, %d moved more than 100 m, %llu collision events (%llu between vehicles)\n",
            r.n_ids, moved(&r, 100), (unsigned long long)r.collisions, (unsigned long long)r.vehicle_collisions);
    CHECK(r.n_ids == 100, "100 vehicles spawned, got %u", r.n_ids);
    CHECK(r.vehicle_collisions == 0, "%llu collisions between autopilot vehicles", (unsigned long long)r.vehicle_collisions);
    CHECK(moved(&r, 100) >= 80, "most vehicles travel more than a block: %d of 100", moved(&r, 100));

    /* 4. Determinism. */
    const char *det = scene("det.yaml", "traffic: {vehicles: 60, walkers: 10, seed: 4}\n");
    run a, b, c;
    drive(det, 1, 60, false, &a);
    drive(det, 1, 60, false, &b);
    drive(det, 2, 60, false, &c);
    CHECK(a.hash == b.hash, "two runs agree: %016llx vs %016llx", (unsigned long long)a.hash, (unsigned long long)b.hash);
    CHECK(a.hash == c.hash, "--threads 1 and 2 agree: %016llx vs %016llx", (unsigned long long)a.hash,
          (unsigned long long)c.hash);
    return CHECK_DONE();
}
