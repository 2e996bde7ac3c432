/* Walkers that navigate, on the town map (tests/data/town.xodr: 3x3 blocks, sidewalks on every
** street, crosswalks across every junction arm). argv[1]: temp folder, argv[2]: collision
** plugin folder, argv[3]: tests/data.
**
** 1. The navigation graph joins every sidewalk lane of the town into one component, with a
**    crossing on every crosswalk object; random navigation locations lie on sidewalks, follow
**    the pedestrians' seed and differ after set_pedestrians_seed.
** 2. controller.ai.walker: a started walker stands until go_to_location; then it reaches goals
**    across the town (within ARRIVE_TOL of each, before a generous time limit derived from the
**    straight distance) at the speed set_max_speed gives; bad calls fail with clear errors.
** 3. 50 wandering walkers (the traffic: key) among 20 vehicles for 10 simulated minutes: in
**    every 60 s window the walkers' median net displacement is 20 m or more, walker-walker
**    contacts stay under CONTACT_BOUND per walker-minute and walker-vehicle ones under
**    VEHICLE_CONTACTS (boxes touching, from the poses).
**
** SENSIM_TEST_WALKERS_SECONDS shortens run 3 (sanitizer builds); SENSIM_TEST_WALKERS_MAP runs
** the same measures on another map (e.g. CARLA's towns; not part of the suite). */
#include "../check.h"
#include "../testutil.h"

#include <math.h>
#include <stdlib.h>

static const char *tmp, *plugins, *data;
static char map_path[1024];
static bool own_map = true;

#define ARRIVE_TOL 1.0 /* m: a goal counts as reached this near (the controller stops within 0.6 m) */
/* Contacts are boxes that start touching (derived from the poses, as the recorder's new
** contacts). Walkers on lane centres without avoidance (this test on the code before the graph)
** met head-on and pushed: 22.8 walker-walker contacts per walker-minute, and the median walker
** moved 0.2 m in the worst window. With avoidance a contact needs a squeeze it cannot resolve;
** we allow 0.1 per walker-minute (50 in the 10-minute run: 200 times fewer than before; this
** run measured 0). Vehicles: a walker struck on a crossing lies on the road and passing cars
** touch it again, so a single strike shows as several contacts; we allow 5 in the run. */
#define CONTACT_BOUND 0.1
#define VEHICLE_CONTACTS 5

static double sim_seconds(void)
{
    const char *s = getenv("SENSIM_TEST_WALKERS_SECONDS");
    double v = s ? atof(s) : 600;
    return v > 0 ? v : 600;
}

static const char *scene(const char *name, const char *body)
{
    char text[4096];
    snprintf(text, sizeof text,
             "settings: {fixed_delta_seconds: 0.05, duration: 10, seed: 5}\n"
             "map: %s\n"
             "actors:\n  - {name: ground, blueprint: static.ground}\n%s",
             map_path, body);
    static char path[1024];
    snprintf(path, sizeof path, "%s", tu_write(tmp, name, text));
    return path;
}

static sn_engine *load(const char *path)
{
    sn_error err = {0};
    sn_engine_options o = {.plugin_dir = plugins, .quiet_plugins = true, .threads = 1};
    sn_engine *e = sn_engine_create(&o, &err);
    if (!e || sn_engine_load_scene(e, path, &err) != SN_OK) {
        fprintf(stderr, "FAIL: cannot load %s: %s\n", path, err.msg);
        exit(1);
    }
    return e;
}

static void step(sn_engine *e)
{
    sn_error err = {0};
    if (sn_engine_step(e, &err) != SN_OK) {
        fprintf(stderr, "FAIL: step: %s\n", err.msg);
        exit(1);
    }
}

static sn_vec3 where(sn_engine *e, uint32_t id)
{
    sn_actor_info a = {.struct_size = sizeof a};
    sn_engine_actor_get(e, id, &a);
    return a.transform.location;
}

static double dist2d(sn_vec3 a, sn_vec3 b) { return hypot(a.x - b.x, a.y - b.y); }

/* ---- 1. the graph and random locations ---- */

static void test_graph(void)
{
    sn_engine *e = load(scene("graph.yaml", ""));
    sn_error err = {0};
    sn_navigation_info ni = {.struct_size = sizeof ni};
    CHECK(sn_engine_navigation_info(e, &ni, &err) == SN_OK, "navigation_info: %s", err.msg);
    fprintf(stderr, "graph: %u nodes, %u edges, %.2f km of sidewalk, %u crosswalks, %u corner and %u road crossings, "
            "%u components; %u of %u sidewalk lanes in the largest\n", ni.nodes, ni.edges, ni.sidewalk_km, ni.crosswalks,
            ni.corner_crossings, ni.road_crossings, ni.components, ni.largest_lanes, ni.sidewalk_lanes);
    if (own_map) {
        /* 9 junctions x 4 arms, a crosswalk on each (maps/town.xodr) */
        CHECK(ni.crosswalks == 36, "%u crossings on the town's 36 crosswalks", ni.crosswalks);
        CHECK(ni.components == 1, "the town's sidewalks form %u components, not one", ni.components);
        CHECK(ni.largest_lanes == ni.sidewalk_lanes && ni.sidewalk_lanes > 0, "%u of %u lanes joined", ni.largest_lanes,
              ni.sidewalk_lanes);
    } else {
        CHECK(ni.largest_lanes * 10 >= ni.sidewalk_lanes * 9, "only %u of %u lanes in the largest component",
              ni.largest_lanes, ni.sidewalk_lanes);
    }
    /* Random locations: on a sidewalk lane, the same sequence for the same seed. */
    const sn_map *m = sn_engine_map(e);
    sn_vec3 first[8];
    int on_sidewalk = 0;
    for (int i = 0; i < 8; i++) {
        CHECK(sn_engine_random_navigation_location(e, &first[i], &err) == SN_OK, "random location: %s", err.msg);
        sn_waypoint w;
        if (sn_map_waypoint(m, first[i], false, SN_LANE_SIDEWALK, &w, NULL) == SN_OK &&
            dist2d(w.transform.location, first[i]) <= w.lane_width / 2 + 0.01)
            on_sidewalk++;
    }
    CHECK(on_sidewalk == 8, "%d of 8 random locations on a sidewalk", on_sidewalk);
    CHECK(sn_engine_set_pedestrians_seed(e, 42, &err) == SN_OK, "set_pedestrians_seed: %s", err.msg);
    sn_vec3 a, b;
    sn_engine_random_navigation_location(e, &a, &err);
    sn_engine_set_pedestrians_seed(e, 42, &err);
    sn_engine_random_navigation_location(e, &b, &err);
    CHECK(a.x == b.x && a.y == b.y && a.z == b.z, "the same seed, another location");
    CHECK(dist2d(a, first[0]) > 1e-9, "set_pedestrians_seed changed nothing");
    /* A fresh engine on the same scene draws the same first location. */
    sn_engine *e2 = load(scene("graph.yaml", ""));
    sn_engine_random_navigation_location(e2, &b, &err);
    CHECK(b.x == first[0].x && b.y == first[0].y, "random locations differ between two loads of one scene");
    sn_engine_destroy(e2);
    /* Bad values. */
    CHECK(sn_engine_set_pedestrians_cross_factor(e, 1.5, &err) == SN_E_RANGE, "cross factor 1.5 accepted");
    CHECK(strstr(err.msg, "[0, 1]") != NULL, "message: %s", err.msg);
    CHECK(sn_engine_set_pedestrians_cross_factor(e, NAN, &err) == SN_E_RANGE, "cross factor NaN accepted");
    CHECK(sn_engine_random_navigation_location(e, NULL, &err) == SN_E_INVALID, "NULL location accepted");
    sn_engine_destroy(e);
}

/* ---- 2. controller.ai.walker ---- */

static uint32_t spawn_walker(sn_engine *e, sn_vec3 at, const char *name)
{
    sn_error err = {0};
    uint32_t id = 0;
    sn_actor_desc d = {sizeof d, "walker.pedestrian", name, {{at.x, at.y, at.z + 1.0}, {0, 0, 0}}, 0, 0, NULL, 0};
    if (sn_engine_spawn(e, &d, &id, &err) != SN_OK) {
        fprintf(stderr, "FAIL: spawn walker at (%.1f, %.1f, %.1f): %s\n", at.x, at.y, at.z, err.msg);
        exit(1);
    }
    return id;
}

static void test_controller(void)
{
    sn_engine *e = load(scene("ai.yaml", ""));
    sn_error err = {0};
    sn_vec3 start;
    sn_engine_set_pedestrians_seed(e, 7, &err);
    sn_engine_random_navigation_location(e, &start, &err);
    uint32_t w = spawn_walker(e, start, "ai_walker");
    /* Calls before start, on no walker, with bad values. */
    CHECK(sn_engine_walker_ai_go_to_location(e, w, start, &err) == SN_E_STATE, "go_to before start: %s", err.msg);
    CHECK(sn_engine_walker_ai_start(e, 1, &err) != SN_OK, "start on the ground accepted");
    CHECK(sn_engine_walker_ai_start(e, 99999, &err) == SN_E_NOT_FOUND, "start on no actor: %s", err.msg);
    CHECK(sn_engine_walker_ai_start(e, w, &err) == SN_OK, "start: %s", err.msg);
    CHECK(sn_engine_walker_ai_set_max_speed(e, w, -1, &err) == SN_E_RANGE, "max speed -1 accepted");
    CHECK(sn_engine_walker_ai_set_max_speed(e, w, 1e9, &err) == SN_E_RANGE, "max speed 1e9 accepted");
    sn_vec3 inf = {INFINITY, 0, 0};
    CHECK(sn_engine_walker_ai_go_to_location(e, w, inf, &err) == SN_E_INVALID, "an infinite goal accepted");
    /* Started, no goal: it stands (CARLA's WALKER_IDLE). */
    for (int f = 0; f < 40; f++)
        step(e);
    sn_vec3 p0 = where(e, w);
    for (int f = 0; f < 100; f++)
        step(e);
    CHECK(dist2d(p0, where(e, w)) < 0.2, "an idle AI walker moved %.2f m", dist2d(p0, where(e, w)));
    /* Goals across the map; at 2 m/s for the second half. */
    int reached = 0, goals = 0;
    double speed_sum = 0;
    int speed_n = 0;
    for (int k = 0; k < 4; k++) {
        sn_vec3 goal, from = where(e, w);
        int tries = 0;
        do
            sn_engine_random_navigation_location(e, &goal, &err);
        while (dist2d(goal, from) < 60 && ++tries < 50);
        if (k == 2)
            CHECK(sn_engine_walker_ai_set_max_speed(e, w, 2.0, &err) == SN_OK, "set_max_speed: %s", err.msg);
        if (sn_engine_walker_ai_go_to_location(e, w, goal, &err) != SN_OK) {
            CHECK(!own_map, "go_to_location (%.1f, %.1f): %s", goal.x, goal.y, err.msg);
            continue;
        }
        goals++;
        /* A route along sidewalks is at most about three times the straight line on a street
        ** grid (around a block and back), and crossings wait for vehicles (none here). */
        double limit = 3 * dist2d(goal, from) / 1.4 + 30, best = 1e9;
        sn_vec3 prev = where(e, w);
        for (int f = 0; f < (int)(limit / 0.05) && best > ARRIVE_TOL; f++) {
            step(e);
            sn_vec3 p = where(e, w);
            best = fmin(best, dist2d(p, goal));
            if (k >= 2 && f > 40 && f % 20 == 0) { /* speed on the way, once under way */
                speed_sum += dist2d(p, prev) / 1.0;
                speed_n++;
            }
            if (f % 20 == 0)
                prev = p;
        }
        fprintf(stderr, "go_to_location %d: %.1f m away, came within %.2f m\n", k, dist2d(goal, from), best);
        reached += best <= ARRIVE_TOL;
    }
    CHECK(reached == goals && goals >= 3, "reached %d of %d goals", reached, goals);
    double mean = speed_n ? speed_sum / speed_n : 0;
    fprintf(stderr, "mean speed at set_max_speed(2.0): %.2f m/s\n", mean);
    CHECK(mean > 1.6 && mean < 2.05, "walked at %.2f m/s with max speed 2", mean);
    /* stop: it stands where it is. */
    CHECK(sn_engine_walker_ai_stop(e, w, &err) == SN_OK, "stop: %s", err.msg);
    for (int f = 0; f < 40; f++)
        step(e);
    p0 = where(e, w);
    for (int f = 0; f < 60; f++)
        step(e);
    CHECK(dist2d(p0, where(e, w)) < 0.1, "a stopped walker moved %.2f m", dist2d(p0, where(e, w)));
    sn_engine_destroy(e);
}

/* ---- 3. wandering crowd ---- */

#define MAXW 64
#define MAXV 32
#define TOUCH 0.02 /* m: boxes this near count as touching */

typedef struct box2 {
    double x, y, c, s, ex, ey; /* centre, heading's cos and sin, half extents */
} box2;

static box2 box_of(const sn_actor_info *a)
{
    double h = a->transform.rotation.yaw * M_PI / 180;
    return (box2){a->transform.location.x, a->transform.location.y, cos(h), sin(h),
                  a->bounding_box.extent.x + TOUCH / 2, a->bounding_box.extent.y + TOUCH / 2};
}

/* Separating axes of two rectangles in the plane: true when they overlap. */
static bool boxes_touch(const box2 *a, const box2 *b)
{
    double dx = b->x - a->x, dy = b->y - a->y;
    if (dx * dx + dy * dy > (hypot(a->ex, a->ey) + hypot(b->ex, b->ey)) * (hypot(a->ex, a->ey) + hypot(b->ex, b->ey)))
        return false;
    const box2 *bx[2] = {a, b};
    for (int k = 0; k < 2; k++)
        for (int ax = 0; ax < 2; ax++) {
            double ux = ax ? -bx[k]->s : bx[k]->c, uy = ax ? bx[k]->c : bx[k]->s;
            double ra = a->ex * fabs(ux * a->c + uy * a->s) + a->ey * fabs(-ux * a->s + uy * a->c);
            double rb = b->ex * fabs(ux * b->c + uy * b->s) + b->ey * fabs(-ux * b->s + uy * b->c);
            if (fabs(dx * ux + dy * uy) > ra + rb)
                return false;
        }
    return true;
}

static int dcmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Height: a walker that stands wholly on one lane (its box's half diagonal and 10 cm inside the
** lane's borders, upright) has its soles on that lane's surface: the lane centre's height from
** the map (sn_map_waypoint), raised by the kerb's 15 cm on a sidewalk (docs/map-geometry.md).
** *checked counts the walkers checked by lane type (0 driving, 1 sidewalk); returns the largest
** error (m). */
#define KERB 0.15
#define HEIGHT_TOL 0.02
static double height_error(sn_engine *e, const uint32_t *ids, uint32_t n, uint32_t checked[2])
{
    const sn_map *m = sn_engine_map(e);
    double worst = 0;
    for (uint32_t i = 0; m && i < n; i++) {
        sn_actor_info a = {.struct_size = sizeof a};
        sn_engine_actor_get(e, ids[i], &a);
        if (fabs(a.transform.rotation.pitch) > 5 || fabs(a.transform.rotation.roll) > 5)
            continue; /* struck: lies, not stands */
        sn_vec3 p = a.transform.location;
        sn_waypoint wp;
        sn_error err = {0};
        if (sn_map_waypoint(m, p, false, SN_LANE_ANY, &wp, &err) != SN_OK)
            continue;
        bool side = wp.lane_type == SN_LANE_SIDEWALK;
        if (!side && wp.lane_type != SN_LANE_DRIVING)
            continue;
        double h = wp.transform.rotation.yaw * M_PI / 180;
        sn_vec3 c = wp.transform.location;
        double across = fabs(-(p.x - c.x) * sin(h) + (p.y - c.y) * cos(h));
        double reach = hypot(a.bounding_box.extent.x, a.bounding_box.extent.y) + 0.1;
        if (across > wp.lane_width / 2 - reach)
            continue;
        double soles = p.z + a.bounding_box.location.z - a.bounding_box.extent.z;
        double want = c.z + (side ? KERB : 0), d = fabs(soles - want);
        if (d > HEIGHT_TOL && getenv("SENSIM_TEST_WALKERS_DEBUG"))
            fprintf(stderr, "    walker %u at (%.2f, %.2f): soles %.3f, %s surface %.3f\n", ids[i], p.x, p.y, soles,
                    side ? "sidewalk" : "road", want);
        worst = fmax(worst, d);
        checked[side]++;
    }
    return worst;
}

static void test_crowd(void)
{
    sn_engine *e = load(scene("crowd.yaml", "traffic: {vehicles: 20, walkers: 50, seed: 3}\n"));
    uint32_t ids[MAXW], n = 0, vids[MAXV], nv = 0;
    for (uint32_t i = 0; i < sn_engine_actor_count(e); i++) {
        sn_actor_info a = {.struct_size = sizeof a};
        if (sn_engine_actor_get(e, sn_engine_actor_id_at(e, i), &a) != SN_OK)
            continue;
        if (a.kind == SN_ACTOR_WALKER && n < MAXW)
            ids[n++] = a.id;
        if (a.kind == SN_ACTOR_VEHICLE && nv < MAXV)
            vids[nv++] = a.id;
    }
    CHECK(n == 50 && nv == 20, "50 walkers and 20 vehicles spawned: %u, %u", n, nv);
    const double secs = sim_seconds(), win = fmin(60, secs);
    const int frames = (int)lround(secs / 0.05), per = (int)lround(win / 0.05);
    sn_vec3 at[MAXW];
    static bool touching[MAXW][MAXW + MAXV];
    uint64_t ww_frames = 0, ww_contacts = 0, wv_contacts = 0;
    for (uint32_t i = 0; i < n; i++)
        at[i] = where(e, ids[i]);
    double worst = 1e9, all[MAXW * 12];
    size_t n_all = 0;
    int windows = 0;
    double height_worst = 0;
    uint32_t height_n[2] = {0, 0};
    for (int f = 1; f <= frames; f++) {
        step(e);
        if (f % 20 == 0)
            height_worst = fmax(height_worst, height_error(e, ids, n, height_n));
        /* Contacts: walker boxes (and vehicle boxes) that touch, from the poses. A contact is
        ** counted when a pair starts touching (the recorder's "new contact"). */
        box2 wb[MAXW], vb[MAXV];
        for (uint32_t i = 0; i < n; i++) {
            sn_actor_info a = {.struct_size = sizeof a};
            sn_engine_actor_get(e, ids[i], &a);
            wb[i] = box_of(&a);
        }
        for (uint32_t i = 0; i < nv; i++) {
            sn_actor_info a = {.struct_size = sizeof a};
            sn_engine_actor_get(e, vids[i], &a);
            vb[i] = box_of(&a);
        }
        for (uint32_t i = 0; i < n; i++) {
            for (uint32_t j = i + 1; j < n; j++) {
                bool t = boxes_touch(&wb[i], &wb[j]);
                ww_frames += t;
                ww_contacts += t && !touching[i][j];
                touching[i][j] = t;
            }
            for (uint32_t j = 0; j < nv; j++) {
                bool t = boxes_touch(&wb[i], &vb[j]);
                wv_contacts += t && !touching[i][MAXW + j];
                if (t && !touching[i][MAXW + j] && getenv("SENSIM_TEST_WALKERS_DEBUG"))
                {
                    sn_actor_info va = {.struct_size = sizeof va}, wa = {.struct_size = sizeof wa};
                    sn_engine_actor_get(e, vids[j], &va);
                    sn_engine_actor_get(e, ids[i], &wa);
                    fprintf(stderr, "    f%d walker %u (%.1f, %.1f) v(%.2f %.2f) touches vehicle %u (%.1f, %.1f) yaw %.0f v(%.2f %.2f)\n", f, ids[i], wb[i].x,
                            wb[i].y, wa.velocity.x, wa.velocity.y, vids[j], vb[j].x, vb[j].y, va.transform.rotation.yaw, va.velocity.x, va.velocity.y);
                }
                touching[i][MAXW + j] = t;
            }
        }
        if (f % per)
            continue;
        double disp[MAXW];
        for (uint32_t i = 0; i < n; i++) {
            sn_vec3 p = where(e, ids[i]);
            disp[i] = dist2d(p, at[i]);
            if (getenv("SENSIM_TEST_WALKERS_DEBUG") && disp[i] < 2.0)
                fprintf(stderr, "    walker %u still at (%.2f, %.2f, %.2f)\n", ids[i], p.x, p.y, p.z);
            if (n_all < sizeof all / sizeof *all)
                all[n_all++] = disp[i];
            at[i] = p;
        }
        qsort(disp, n, sizeof *disp, dcmp);
        double med = n ? (disp[(n - 1) / 2] + disp[n / 2]) / 2 : 0;
        int still = 0;
        for (uint32_t i = 0; i < n; i++)
            still += disp[i] < 2.0;
        fprintf(stderr, "  window %d: median net displacement %.1f m, %d walkers under 2 m\n", windows, med, still);
        worst = fmin(worst, med);
        windows++;
    }
    qsort(all, n_all, sizeof *all, dcmp);
    double minutes = n * secs / 60, rate = ww_contacts / minutes;
    fprintf(stderr, "crowd: %d windows of %.0f s, worst median %.1f m, overall median %.1f m; %llu walker-walker "
            "contacts (%.3f per walker-minute, %llu pair-frames), %llu walker-vehicle contacts\n", windows, win, worst,
            n_all ? all[n_all / 2] : 0.0, (unsigned long long)ww_contacts, rate, (unsigned long long)ww_frames,
            (unsigned long long)wv_contacts);
    fprintf(stderr, "height: %u standing on sidewalks and %u on roads checked, soles at most %.1f mm off the surface\n",
            height_n[1], height_n[0], height_worst * 1e3);
    CHECK(height_n[1] >= n * secs / 4 && height_n[0] > 0, "walkers checked on sidewalks %u, on roads %u", height_n[1], height_n[0]);
    CHECK(height_worst <= HEIGHT_TOL, "a walker's soles were %.3f m off the surface it stands on", height_worst);
    CHECK(worst >= 20 * win / 60, "a window's median net displacement was %.1f m", worst);
    CHECK(rate <= CONTACT_BOUND, "%.3f walker-walker contacts per walker-minute", rate);
    CHECK(wv_contacts <= VEHICLE_CONTACTS * secs / 600 + 1, "%llu walker-vehicle contacts", (unsigned long long)wv_contacts);
    sn_engine_destroy(e);
}

/* ---- 4. struck on the map ---- */

static int n_struck_events;
static void on_struck(const sn_message *msg, void *user)
{
    (void)msg, (void)user;
    n_struck_events++;
}

/* A walker held on the road's surface (walker_hold.c) is still a body vehicles meet: standing on
** a lane of the map 15 m ahead of a sedan coming at 8 m/s under throttle, it stands at the
** road's height, a ray from the kerb's side meets its box, and the car strikes it: collision
** rows from its collision sensor (at most 5 at this speed: docs/walkers.md "Struck by a
** vehicle"), and it falls (tilts past 60 degrees) and lies on the road. */
static void test_struck_on_map(void)
{
    if (!own_map)
        return;
    sn_error err = {0};
    sn_map *m = sn_map_open(map_path, &err);
    CHECK(m != NULL, "open %s: %s", map_path, err.msg);
    if (!m)
        return;
    sn_transform sp[256];
    size_t nsp = 0;
    CHECK(sn_map_spawn_points(m, sp, 256, &nsp, &err) == SN_OK && nsp > 0, "spawn points: %s", err.msg);
    sn_waypoint w0, ahead;
    bool found = false;
    for (size_t i = 0; i < nsp && !found; i++) { /* a spawn point with 25 m of its road straight ahead */
        sn_waypoint nx[4];
        size_t k = 0;
        if (sn_map_waypoint(m, sp[i].location, true, SN_LANE_DRIVING, &w0, &err) != SN_OK || w0.is_junction)
            continue;
        if (sn_map_next(m, &w0, 25, nx, 4, &k, &err) != SN_OK || k != 1 || nx[0].road_id != w0.road_id ||
            fabs(remainder(nx[0].transform.rotation.yaw - w0.transform.rotation.yaw, 360)) > 1)
            continue;
        if (sn_map_next(m, &w0, 15, nx, 4, &k, &err) == SN_OK && k == 1)
            ahead = nx[0], found = true;
    }
    sn_map_close(m);
    CHECK(found, "a straight 25 m of road ahead of a spawn point");
    if (!found)
        return;
    const double h = w0.transform.rotation.yaw * M_PI / 180;
    const sn_vec3 c = w0.transform.location, wk = ahead.transform.location;
    char body[1024];
    snprintf(body, sizeof body,
             "  - {name: car, blueprint: vehicle.sedan, transform: {location: [%.3f, %.3f, %.3f], rotation: [0, %.3f, 0]},"
             " velocity: [%.3f, %.3f, 0], control: {throttle: 0.5}}\n"
             "  - {name: ped, blueprint: walker.pedestrian, transform: {location: [%.3f, %.3f, %.3f]}}\n"
             "sensors:\n  - {name: c, blueprint: sensor.other.collision, attach_to: ped}\n",
             c.x, c.y, c.z + 0.05, w0.transform.rotation.yaw, 8 * cos(h), 8 * sin(h), wk.x, wk.y, wk.z + 0.95);
    sn_engine *e = load(scene("struck.yaml", body));
    n_struck_events = 0;
    CHECK(sn_engine_listen(e, "c", on_struck, NULL, &err) == SN_OK, "listen: %s", err.msg);
    step(e);
    step(e);
    sn_actor_info p = tu_actor(e, "ped");
    double soles = p.transform.location.z + p.bounding_box.location.z - p.bounding_box.extent.z;
    CHECK(fabs(soles - wk.z) <= HEIGHT_TOL, "the walker stands on the road: soles %.3f, road %.3f", soles, wk.z);
    /* A ray across the lane at its waist, from 3 m to its side. */
    sn_ray ray = {{wk.x - 3 * sin(h), wk.y + 3 * cos(h), wk.z + 0.9}, {sin(h), -cos(h), 0}, 6};
    sn_ray_query q = SN_RAY_QUERY_INIT;
    sn_ray_result r;
    CHECK(sn_engine_ray_batch(e, &q, &ray, 1, &r, &err) == SN_OK && r.n_hits == 1 && r.hit.actor_id == p.id,
          "a ray across the lane meets the walker: %u hits, actor %u (walker %u) %s", r.n_hits, r.hit.actor_id, p.id,
          err.msg);
    /* the compact batch of the public API (sn_ray_compact): the same hit, rounded to float */
    float dist = 0, normal[3] = {0};
    uint32_t actor = 0;
    sn_ray_compact rc = SN_RAY_COMPACT_INIT;
    rc.fields = SN_RAY_FIELD_DISTANCE | SN_RAY_FIELD_ACTOR | SN_RAY_FIELD_NORMAL;
    rc.distance = &dist, rc.actor_id = &actor, rc.normal = normal;
    CHECK(sn_engine_ray_batch_compact(e, &q, &ray, 1, &rc, &err) == SN_OK && dist == (float)r.hit.distance &&
              actor == r.hit.actor_id && normal[0] == (float)r.hit.normal.x && normal[1] == (float)r.hit.normal.y,
          "compact: distance %.9g against %.9g, actor %u %s", dist, r.hit.distance, actor, err.msg);
    rc.fields = 0;
    CHECK(sn_engine_ray_batch_compact(e, &q, &ray, 1, &rc, &err) == SN_E_INVALID, "an empty mask is refused");
    CHECK_CONTAINS(err.msg, "ray_batch_compact: sn_ray_compact asks for no field");
    double max_tilt = 0;
    for (int f = 0; f < 80; f++) {
        step(e);
        p = tu_actor(e, "ped");
        double up = cos(p.transform.rotation.pitch * M_PI / 180) * cos(p.transform.rotation.roll * M_PI / 180);
        max_tilt = fmax(max_tilt, acos(fmin(1, up)) * 180 / M_PI);
    }
    fprintf(stderr, "struck on the map: %d collision rows, tilted %.0f deg at most, lies at z %.2f (road %.2f)\n",
            n_struck_events, max_tilt, p.transform.location.z, wk.z);
    CHECK(n_struck_events > 0 && n_struck_events <= 5, "the car struck the walker: %d collision rows", n_struck_events);
    CHECK(max_tilt > 60, "the walker fell: tilted %.0f deg at most", max_tilt);
    CHECK(p.transform.location.z - wk.z < 0.4 && p.transform.location.z - wk.z > 0, "it lies on the road: %.2f m above it",
          p.transform.location.z - wk.z);
    sn_engine_destroy(e);
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: test_walkers TMPDIR PLUGIN_DIR DATA_DIR\n");
        return 2;
    }
    tmp = argv[1], plugins = argv[2], data = argv[3];
    const char *m = getenv("SENSIM_TEST_WALKERS_MAP");
    own_map = !m || !*m;
    if (own_map)
        snprintf(map_path, sizeof map_path, "%s/town.xodr", data);
    else
        snprintf(map_path, sizeof map_path, "%s", m);
    test_graph();
    test_struck_on_map();
    test_controller();
    test_crowd();
    return CHECK_DONE();
}
