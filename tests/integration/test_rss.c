/* sensor.other.rss against the RSS paper's formulas, computed here independently of the
** plugin, on a straight 4-lane road (inline map): two cars in one lane are unsafe exactly when
** their gap falls under the same-direction safe distance, at gaps around the threshold, the
** follower being the ego and then the other car; a wrong-way driver (the ego in its correct
** lane, then the ego in the wrong one) against the opposite-direction formula; an oncoming car
** in its own lane is never dangerous; two cars drifting together from adjacent lanes become
** laterally unsafe where the lateral formula says, and the response is lateral only (the blame
** time rule); no map gives response_valid false and one warning; the same bytes at 1 and 2
** threads; bad attributes refused.
** argv[1]: temp folder, argv[2]: plugin folder (build/plugins) */
#include "../check.h"
#include "../testutil.h"
#include "../map/junction_map.h"

static const char *dir, *plugins;

/* Road 1: 1000 m along +x; lanes -1, -2 (world y > 0, driving +x) and 1, 2 (driving -x), 3.5 m. */
#define LANE(id) \
    "<lane id=\"" id "\" type=\"driving\" level=\"false\"><width sOffset=\"0\" a=\"3.5\" b=\"0\" c=\"0\" d=\"0\"/>" \
    "<roadMark sOffset=\"0\" type=\"broken\" weight=\"standard\" color=\"standard\" width=\"0.15\"/></lane>"
static const char straight_xml[] =
    "<?xml version=\"1.0\" standalone=\"yes\"?>\n<OpenDRIVE>\n"
    "<header revMajor=\"1\" revMinor=\"4\" name=\"straight\" version=\"1\"/>\n"
    "<road name=\"straight\" length=\"1000\" id=\"1\" junction=\"-1\">\n"
    "<planView><geometry s=\"0\" x=\"0\" y=\"0\" hdg=\"0\" length=\"1000\"><line/></geometry></planView>\n"
    "<lanes><laneSection s=\"0\"><left>" LANE("2") LANE("1") "</left>"
    "<center><lane id=\"0\" type=\"none\" level=\"false\"/></center>"
    "<right>" LANE("-1") LANE("-2") "</right></laneSection></lanes>\n"
    "</road>\n</OpenDRIVE>\n";

/* ad-rss's defaults as CARLA sets them (RssCheck::GetDefaultVehicleDynamics). */
static const double A_MAX = 3.5, B_MAX = 8, B_MIN = 4, B_MIN_CORRECT = 3, LAT_A = 0.2, LAT_B = 0.8, MU = 0.1;
static const double RHO_EGO = 1, RHO_OTHER = 2;

/* The paper's Lemma 2: rear at v_r with response time rho, front at v_f. */
static double d_same(double v_r, double rho, double v_f)
{
    double d = v_r * rho + 0.5 * A_MAX * rho * rho + (v_r + rho * A_MAX) * (v_r + rho * A_MAX) / (2 * B_MIN) -
               v_f * v_f / (2 * B_MAX);
    return d > 0 ? d : 0;
}

/* Opposite directions: each accelerates for its rho, then brakes (b_correct for the one in its lane). */
static double stated(double v, double rho, double b) { return v * rho + 0.5 * A_MAX * rho * rho + (v + rho * A_MAX) * (v + rho * A_MAX) / (2 * b); }

/* Lateral, both drifting toward each other at u (m/s), plus the margin mu. */
static double d_lat(double u_left, double rho_left, double u_right, double rho_right)
{
    double dl = u_left * rho_left + 0.5 * LAT_A * rho_left * rho_left +
                (u_left + LAT_A * rho_left) * (u_left + LAT_A * rho_left) / (2 * LAT_B);
    double dr = u_right * rho_right + 0.5 * LAT_A * rho_right * rho_right +
                (u_right + LAT_A * rho_right) * (u_right + LAT_A * rho_right) / (2 * LAT_B);
    return dl + dr + MU;
}

/* ---- the engine and the last message ---- */

typedef struct capture {
    uint8_t *last;
    size_t n_last;
    uint8_t *all;
    size_t n_all;
    int n;
} capture;

static void on_msg(const sn_message *m, void *user)
{
    capture *c = user;
    c->last = realloc(c->last, m->size);
    memcpy(c->last, m->data, m->size);
    c->n_last = m->size;
    c->all = realloc(c->all, c->n_all + m->size);
    memcpy(c->all + c->n_all, m->data, m->size);
    c->n_all += m->size;
    c->n++;
}

static int n_warnings;
static char last_warning[512];
static void on_log(sn_log_level level, const char *line, void *user)
{
    (void)user;
    if (level == SN_LOG_WARN && strstr(line, "rss")) {
        n_warnings++;
        snprintf(last_warning, sizeof last_warning, "%s", line);
    }
}

typedef struct world {
    sn_engine *e;
    capture cap;
    uint32_t ego;
    msgpack_unpacked u;
    bool unpacked;
} world;

/* The scene on map `name` (text `xml`; NULL: no map), the hero spawned at (x, y). */
static void world_open_on(world *w, const char *name, const char *xml, double x, double y, int threads,
                          const char *attrs)
{
    memset(w, 0, sizeof *w);
    char map_line[128] = "";
    if (xml) {
        tu_write(dir, name, xml);
        snprintf(map_line, sizeof map_line, "map: %s\n", name);
    }
    char scene[1024];
    snprintf(scene, sizeof scene,
             "%ssettings: {fixed_delta_seconds: 0.05}\n"
             "actors:\n  - {name: hero, blueprint: vehicle.sedan, transform: {location: [%g, %g, 0]}}\n"
             "sensors:\n  - {name: rss, blueprint: sensor.other.rss, attach_to: hero, attributes: {%s}}\n",
             map_line, x, y, attrs ? attrs : "");
    sn_error err = {0};
    sn_engine_options o = {.plugin_dir = plugins, .quiet_plugins = true, .threads = threads, .log = on_log};
    w->e = sn_engine_create(&o, &err);
    if (!w->e || sn_engine_load_scene(w->e, tu_write(dir, "rss.yaml", scene), &err) != SN_OK) {
        fprintf(stderr, "FAIL: cannot load the scene: %s\n", err.msg);
        exit(1);
    }
    w->ego = sn_engine_find_actor(w->e, "hero");
    CHECK(sn_engine_set_simulate_physics(w->e, w->ego, false, &err) == SN_OK, "%s", err.msg);
    CHECK(sn_engine_listen(w->e, "rss", on_msg, &w->cap, &err) == SN_OK, "%s", err.msg);
}

static void world_open(world *w, bool with_map, int threads, const char *attrs)
{
    world_open_on(w, "straight.xodr", with_map ? straight_xml : NULL, 100, 1.75, threads, attrs);
}

static void world_close(world *w)
{
    if (w->unpacked)
        msgpack_unpacked_destroy(&w->u);
    sn_engine_destroy(w->e);
    free(w->cap.last);
    free(w->cap.all);
}

static uint32_t add_car(world *w)
{
    sn_actor_desc d = {sizeof d, "vehicle.sedan", NULL, {{0, 40, 0}, {0, 0, 0}}, 0, 0, NULL, 0};
    uint32_t id = 0;
    sn_error err = {0};
    CHECK(sn_engine_spawn(w->e, &d, &id, &err) == SN_OK, "%s", err.msg);
    CHECK(sn_engine_set_simulate_physics(w->e, id, false, &err) == SN_OK, "%s", err.msg);
    return id;
}

/* Puts a car at (x, y) facing yaw with velocity v, so that after one step of dt it is at
** (x, y) + v dt: kinematic cars keep their velocity through the step. */
static void put(world *w, uint32_t id, double x, double y, double yaw, sn_vec3 v)
{
    const double dt = 0.05;
    sn_transform t = {{x - v.x * dt, y - v.y * dt, 0}, {0, yaw, 0}};
    sn_error err = {0};
    CHECK(sn_engine_set_transform(w->e, id, &t, &err) == SN_OK, "%s", err.msg);
    CHECK(sn_engine_set_velocity(w->e, id, v, (sn_vec3){0, 0, 0}, &err) == SN_OK, "%s", err.msg);
}

static const msgpack_object *step(world *w)
{
    sn_error err = {0};
    int before = w->cap.n;
    CHECK(sn_engine_step(w->e, &err) == SN_OK, "%s", err.msg);
    CHECK(w->cap.n == before + 1, "one message per tick");
    if (w->unpacked)
        msgpack_unpacked_destroy(&w->u);
    msgpack_unpacked_init(&w->u);
    w->unpacked = true;
    size_t off = 0;
    if (msgpack_unpack_next(&w->u, (const char *)w->cap.last, w->cap.n_last, &off) != MSGPACK_UNPACK_SUCCESS) {
        CHECK(0, "message does not unpack");
        return NULL;
    }
    return &w->u.data;
}

/* A value by path: keys and array indices joined by dots. */
static const msgpack_object *at(const msgpack_object *o, const char *path)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *save = NULL, *k = strtok_r(buf, ".", &save); k && o; k = strtok_r(NULL, ".", &save)) {
        if (o->type == MSGPACK_OBJECT_ARRAY) {
            size_t i = strtoul(k, NULL, 10);
            o = i < o->via.array.size ? &o->via.array.ptr[i] : NULL;
        } else {
            o = tu_get(o, k);
        }
    }
    return o;
}
static double num(const msgpack_object *m, const char *path) { return tu_num(at(m, path)); }
static int flag(const msgpack_object *m, const char *path)
{
    const msgpack_object *o = at(m, path);
    return o && o->type == MSGPACK_OBJECT_BOOLEAN ? o->via.boolean : -1;
}
static bool str_is(const msgpack_object *m, const char *path, const char *want)
{
    const msgpack_object *o = at(m, path);
    return o && o->type == MSGPACK_OBJECT_STR && o->via.str.size == strlen(want) &&
           memcmp(o->via.str.ptr, want, o->via.str.size) == 0;
}
static const char *str_of(const msgpack_object *m, const char *path)
{
    static char buf[128];
    const msgpack_object *o = at(m, path);
    if (!o || o->type != MSGPACK_OBJECT_STR)
        return "(not a string)";
    snprintf(buf, sizeof buf, "%.*s", (int)o->via.str.size, o->via.str.ptr);
    return buf;
}

static sn_actor_info info(world *w, uint32_t id)
{
    sn_actor_info a;
    memset(&a, 0, sizeof a);
    a.struct_size = sizeof a;
    sn_engine_actor_get(w->e, id, &a);
    return a;
}

/* The gap along x between two cars facing +x or -x (the boxes' facing ends). */
static double gap_x(world *w, uint32_t back, uint32_t front)
{
    sn_actor_info b = info(w, back), f = info(w, front);
    return (f.transform.location.x - f.bounding_box.extent.x) - (b.transform.location.x + b.bounding_box.extent.x);
}

/* ---- the cases ---- */

/* Same lane, same direction: is_safe flips exactly at the formula's distance. */
static void same_direction(bool ego_follows)
{
    world w;
    world_open(&w, true, 1, NULL);
    uint32_t other = add_car(&w);
    const double v_ego = 15, v_other = ego_follows ? 10 : 12;
    const double d_min = ego_follows ? d_same(v_ego, RHO_EGO, v_other) : d_same(v_other, RHO_OTHER, v_ego);
    const double len = 2 * info(&w, other).bounding_box.extent.x;
    const double deltas[] = {5, 2, 0.5, 0.05, 0.001, -0.001, -0.05, -0.5, -2, -5};
    for (size_t i = 0; i < sizeof deltas / sizeof deltas[0]; i++) {
        const double gap = d_min + deltas[i];
        const double x_ego = 100, x_other = ego_follows ? x_ego + len + gap : x_ego - len - gap;
        put(&w, w.ego, x_ego, 1.75, 0, (sn_vec3){v_ego, 0, 0});
        put(&w, other, x_other, 1.75, 0, (sn_vec3){v_other, 0, 0});
        const msgpack_object *m = step(&w);
        if (!m)
            break;
        const double real_gap = ego_follows ? gap_x(&w, w.ego, other) : gap_x(&w, other, w.ego);
        CHECK(flag(m, "response_valid") == 1, "response_valid: %s", str_of(m, "invalid_reason"));
        CHECK(num(m, "rss_state_snapshot.0.id") == other, "the other car has a state");
        CHECK(str_is(m, "rss_state_snapshot.0.situation_type", "SameDirection"), "same direction: %s",
              str_of(m, "rss_state_snapshot.0.situation_type"));
        CHECK(fabs(num(m, "rss_state_snapshot.0.longitudinal.safe_distance") - d_min) < 1e-6,
              "safe distance %.9f, formula %.9f", num(m, "rss_state_snapshot.0.longitudinal.safe_distance"), d_min);
        CHECK(fabs(num(m, "rss_state_snapshot.0.longitudinal.current_distance") - real_gap) < 1e-6,
              "current distance %.9f, the boxes' gap %.9f", num(m, "rss_state_snapshot.0.longitudinal.current_distance"),
              real_gap);
        const int safe = real_gap > d_min;
        CHECK(flag(m, "rss_state_snapshot.0.longitudinal.is_safe") == safe, "%s, gap %.4f vs d_min %.4f: is_safe %d",
              ego_follows ? "ego follows" : "ego leads", real_gap, d_min,
              flag(m, "rss_state_snapshot.0.longitudinal.is_safe"));
        /* one lane: the boxes overlap sideways, so longitudinally unsafe is dangerous */
        CHECK(flag(m, "rss_state_snapshot.0.lateral_left.is_safe") == 0, "same lane: laterally unsafe");
        CHECK(flag(m, "rss_state_snapshot.0.is_dangerous") == !safe, "dangerous exactly when unsafe");
        CHECK(flag(m, "proper_response.is_safe") == safe, "proper response is_safe %d", safe);
        CHECK(str_is(m, "rss_state_snapshot.0.longitudinal.evaluator",
                     ego_follows ? "LongitudinalDistanceSameDirectionOtherInFront"
                                 : "LongitudinalDistanceSameDirectionEgoFront"),
              "evaluator %s", str_of(m, "rss_state_snapshot.0.longitudinal.evaluator"));
        if (!safe) {
            /* the previous tick was safe longitudinally, so only braking answers (definition 10);
            ** a leading ego need not brake at all */
            CHECK(str_is(m, "proper_response.longitudinal_response", ego_follows ? "BrakeMin" : "None"),
                  "longitudinal response %s", str_of(m, "proper_response.longitudinal_response"));
            CHECK(str_is(m, "proper_response.lateral_response_left", "None") &&
                      str_is(m, "proper_response.lateral_response_right", "None"),
                  "no lateral response in a longitudinal conflict");
            CHECK(num(m, "proper_response.acceleration_restrictions.longitudinal_range.0") == -B_MAX,
                  "the hardest braking stays allowed");
            CHECK(num(m, "proper_response.acceleration_restrictions.longitudinal_range.1") ==
                      (ego_follows ? -B_MIN : A_MAX),
                  "longitudinal range max %g", num(m, "proper_response.acceleration_restrictions.longitudinal_range.1"));
        } else {
            CHECK(str_is(m, "proper_response.longitudinal_response", "None"), "safe: no response");
            CHECK(num(m, "proper_response.acceleration_restrictions.longitudinal_range.1") == A_MAX, "safe: accel_max");
        }
    }
    fprintf(stderr, "same direction, %s: d_min %.4f m checked at 10 gaps around it\n",
            ego_follows ? "ego following at 15 m/s a car at 10" : "a car at 12 m/s following the ego at 15", d_min);
    world_close(&w);
}

/* A wrong-way driver in the ego's lane, then the ego in the wrong lane. */
static void opposite_direction(bool ego_correct)
{
    world w;
    world_open(&w, true, 1, NULL);
    uint32_t other = add_car(&w);
    const double v_ego = 10, v_other = 8;
    /* the ego drives +x; in lane -1 it is in its correct lane, in lane 1 (y = -1.75) it is not */
    const double y = ego_correct ? 1.75 : -1.75;
    const double d_min = ego_correct ? stated(v_ego, RHO_EGO, B_MIN_CORRECT) + stated(v_other, RHO_OTHER, B_MIN)
                                     : stated(v_other, RHO_OTHER, B_MIN_CORRECT) + stated(v_ego, RHO_EGO, B_MIN);
    const double len = 2 * info(&w, other).bounding_box.extent.x;
    const double deltas[] = {3, 0.01, -0.01, -3};
    for (size_t i = 0; i < 4; i++) {
        const double gap = d_min + deltas[i];
        put(&w, w.ego, 100, y, 0, (sn_vec3){v_ego, 0, 0});
        put(&w, other, 100 + len + gap, y, 180, (sn_vec3){-v_other, 0, 0});
        const msgpack_object *m = step(&w);
        if (!m)
            break;
        const double real_gap = gap_x(&w, w.ego, other);
        CHECK(str_is(m, "rss_state_snapshot.0.situation_type", "OppositeDirection"), "opposite: %s",
              str_of(m, "rss_state_snapshot.0.situation_type"));
        CHECK(flag(m, "situation_snapshot.0.ego.is_in_correct_lane") == ego_correct, "ego in its correct lane: %d",
              ego_correct);
        CHECK(flag(m, "situation_snapshot.0.other.is_in_correct_lane") == !ego_correct, "other in its correct lane");
        CHECK(fabs(num(m, "rss_state_snapshot.0.longitudinal.safe_distance") - d_min) < 1e-6,
              "opposite safe distance %.9f, formula %.9f", num(m, "rss_state_snapshot.0.longitudinal.safe_distance"),
              d_min);
        const int safe = real_gap > d_min;
        CHECK(flag(m, "rss_state_snapshot.0.longitudinal.is_safe") == safe, "gap %.4f vs %.4f", real_gap, d_min);
        if (!safe)
            CHECK(str_is(m, "proper_response.longitudinal_response", ego_correct ? "BrakeMinCorrect" : "BrakeMin") &&
                      num(m, "proper_response.acceleration_restrictions.longitudinal_range.1") ==
                          (ego_correct ? -B_MIN_CORRECT : -B_MIN),
                  "opposite response %s", str_of(m, "proper_response.longitudinal_response"));
    }
    fprintf(stderr, "opposite direction, ego %s: d_min %.4f m\n", ego_correct ? "in its lane" : "in the wrong lane",
            d_min);

    /* an oncoming car in its own lane, 5 m ahead: longitudinally unsafe, laterally safe, not dangerous */
    put(&w, w.ego, 100, 1.75, 0, (sn_vec3){v_ego, 0, 0});
    put(&w, other, 100 + len + 5, -1.75, 180, (sn_vec3){-v_other, 0, 0});
    const msgpack_object *m = step(&w);
    if (m) {
        CHECK(flag(m, "rss_state_snapshot.0.longitudinal.is_safe") == 0, "5 m head-on: longitudinally unsafe");
        CHECK(flag(m, "rss_state_snapshot.0.lateral_left.is_safe") == 1, "the next lane: laterally safe");
        CHECK(flag(m, "rss_state_snapshot.0.is_dangerous") == 0 && flag(m, "proper_response.is_safe") == 1,
              "passing in the next lane is not dangerous");
        /* ad-rss names the ego's side: the oncoming car is on its left, so the ego is AtRight */
        CHECK(str_is(m, "situation_snapshot.0.lateral_position", "AtRight"), "the ego is right of the oncoming car: %s",
              str_of(m, "situation_snapshot.0.lateral_position"));
    }
    world_close(&w);
}

/* Side by side in adjacent lanes, drifting together at u m/s each. */
static void lateral(void)
{
    world w;
    world_open(&w, true, 1, NULL);
    uint32_t other = add_car(&w);
    const double u = 0.5, v = 10;
    const double d_min = d_lat(u, RHO_EGO, u, RHO_OTHER);
    const double half_w = info(&w, other).bounding_box.extent.y;
    /* start 1.0 m wider than the threshold, then let them drift (kinematic: v dt per step) */
    const double start_gap = d_min + 1.0;
    const double y_ego = 3.5 - 0.5 * (start_gap + 2 * half_w), y_other = 3.5 + 0.5 * (start_gap + 2 * half_w);
    put(&w, w.ego, 100, y_ego, 0, (sn_vec3){v, u, 0});
    put(&w, other, 100, y_other, 0, (sn_vec3){v, -u, 0});
    int flips = 0, first_unsafe = -1;
    for (int f = 0; f < 40; f++) {
        const msgpack_object *m = step(&w);
        if (!m)
            break;
        sn_actor_info e = info(&w, w.ego), o = info(&w, other);
        const double gap = (o.transform.location.y - o.bounding_box.extent.y) -
                           (e.transform.location.y + e.bounding_box.extent.y);
        if (gap <= 0)
            break;
        CHECK(str_is(m, "situation_snapshot.0.lateral_position", "AtLeft"), "the ego is the left car");
        CHECK(fabs(num(m, "situation_snapshot.0.ego.speed_lat") - u) < 1e-9 &&
                  fabs(num(m, "situation_snapshot.0.other.speed_lat") + u) < 1e-9,
              "lateral speeds %g, %g", num(m, "situation_snapshot.0.ego.speed_lat"),
              num(m, "situation_snapshot.0.other.speed_lat"));
        CHECK(fabs(num(m, "rss_state_snapshot.0.lateral_right.safe_distance") - d_min) < 1e-6,
              "lateral safe distance %.9f, formula %.9f", num(m, "rss_state_snapshot.0.lateral_right.safe_distance"),
              d_min);
        CHECK(fabs(num(m, "rss_state_snapshot.0.lateral_right.current_distance") - gap) < 1e-6,
              "lateral distance %.9f, boxes %.9f", num(m, "rss_state_snapshot.0.lateral_right.current_distance"), gap);
        const int safe = gap > d_min;
        CHECK(flag(m, "rss_state_snapshot.0.lateral_right.is_safe") == safe, "gap %.4f vs %.4f", gap, d_min);
        CHECK(flag(m, "rss_state_snapshot.0.is_dangerous") == !safe, "side by side: dangerous when laterally unsafe");
        if (!safe && first_unsafe < 0) {
            first_unsafe = f;
            flips++;
            /* longitudinally unsafe all along, laterally safe before: respond sideways only */
            CHECK(str_is(m, "proper_response.lateral_response_right", "BrakeMin") &&
                      str_is(m, "proper_response.lateral_response_left", "None") &&
                      str_is(m, "proper_response.longitudinal_response", "None"),
                  "lateral conflict: right %s, left %s, longitudinal %s",
                  str_of(m, "proper_response.lateral_response_right"),
                  str_of(m, "proper_response.lateral_response_left"),
                  str_of(m, "proper_response.longitudinal_response"));
            CHECK(num(m, "proper_response.acceleration_restrictions.lateral_right_range.1") == -LAT_B,
                  "lateral right range max %g", num(m, "proper_response.acceleration_restrictions.lateral_right_range.1"));
            fprintf(stderr, "lateral: unsafe from a gap of %.4f m (d_min %.4f m)\n", gap, d_min);
        }
    }
    CHECK(first_unsafe > 0, "the drift crossed the lateral threshold (first unsafe tick %d)", first_unsafe);
    world_close(&w);
}

/*
** Beyond the ego's road (tests/map/junction_map.h: arms of 100 m around a 4-way junction whose
** square is [-10, 10]^2; a right turn is a quarter circle whose lane centre has radius 8.25).
** The ego drives east on the west arm's lane -1 (world y = 1.75) toward the junction; the car
** ahead is either straight on, past the junction on the east arm (the gap along x), or past the
** right turn on the south arm, driving +y at x = -1.75: the gap along the lane is the straight
** part to the junction, 8.25 pi / 2 round the curve and the part on the south arm, which is
** longer than any straight line between them. is_safe flips where the same-direction formula
** says, at gaps around it.
*/
static void beyond_the_road(bool curve)
{
    size_t len_xml;
    char *xml = jm_xml(&len_xml);
    world w;
    world_open_on(&w, "junction.xodr", xml, -60, 1.75, 1, NULL);
    free(xml);
    uint32_t other = add_car(&w);
    const double v_ego = 15, v_other = 10, d_min = d_same(v_ego, RHO_EGO, v_other);
    const double ex = info(&w, w.ego).bounding_box.extent.x, ox = info(&w, other).bounding_box.extent.x;
    const double r_lane = 10 - 1.75, curve_len = r_lane * M_PI / 2, y_o = 35; /* the other's place on the south arm */
    const double deltas[] = {5, 2, 0.5, 0.05, -0.05, -0.5, -2, -5};
    int flips = 0;
    for (size_t i = 0; i < sizeof deltas / sizeof deltas[0]; i++) {
        const double gap = d_min + deltas[i];
        double x_e;
        if (curve) {
            x_e = -10 - ex - (gap - curve_len - (y_o - ox - 10));
            put(&w, other, -1.75, y_o, 90, (sn_vec3){0, v_other, 0});
        } else {
            x_e = -40;
            put(&w, other, x_e + ex + gap + ox, 1.75, 0, (sn_vec3){v_other, 0, 0});
        }
        put(&w, w.ego, x_e, 1.75, 0, (sn_vec3){v_ego, 0, 0});
        const msgpack_object *m = step(&w);
        if (!m)
            break;
        const sn_actor_info e = info(&w, w.ego), o = info(&w, other);
        const double real_gap =
            curve ? (-10 - (e.transform.location.x + ex)) + curve_len + (o.transform.location.y - ox - 10)
                  : (o.transform.location.x - ox) - (e.transform.location.x + ex);
        CHECK(flag(m, "response_valid") == 1, "response_valid: %s", str_of(m, "invalid_reason"));
        CHECK(num(m, "rss_state_snapshot.0.id") == other, "%s: the car past the junction has a state (note: %s)",
              curve ? "curve" : "straight on", str_of(m, "world_model.objects.0.note"));
        CHECK(str_is(m, "rss_state_snapshot.0.situation_type", "SameDirection"), "same direction: %s",
              str_of(m, "rss_state_snapshot.0.situation_type"));
        CHECK(fabs(num(m, "rss_state_snapshot.0.longitudinal.safe_distance") - d_min) < 1e-6, "safe distance %.9f",
              num(m, "rss_state_snapshot.0.longitudinal.safe_distance"));
        CHECK(fabs(num(m, "rss_state_snapshot.0.longitudinal.current_distance") - real_gap) < 2e-3,
              "%s: current distance %.6f, along the lane %.6f", curve ? "curve" : "straight on",
              num(m, "rss_state_snapshot.0.longitudinal.current_distance"), real_gap);
        const int safe = real_gap > d_min;
        flips += !safe;
        CHECK(flag(m, "rss_state_snapshot.0.longitudinal.is_safe") == safe, "gap %.4f vs d_min %.4f: is_safe %d",
              real_gap, d_min, flag(m, "rss_state_snapshot.0.longitudinal.is_safe"));
        CHECK(flag(m, "rss_state_snapshot.0.is_dangerous") == !safe, "dangerous exactly when unsafe");
        CHECK(str_is(m, "proper_response.longitudinal_response", safe ? "None" : "BrakeMin"), "response %s",
              str_of(m, "proper_response.longitudinal_response"));
    }
    CHECK(flips == 4, "unsafe at the four gaps under d_min, got %d", flips);
    fprintf(stderr, "beyond the road, %s: d_min %.4f m checked at 8 gaps along the lane\n",
            curve ? "round the right turn" : "straight through the junction", d_min);
    world_close(&w);
}

static void no_map(void)
{
    world w;
    n_warnings = 0;
    world_open(&w, false, 1, NULL);
    const msgpack_object *m = NULL;
    for (int i = 0; i < 3; i++)
        m = step(&w);
    if (m) {
        CHECK(flag(m, "response_valid") == 0, "no map: response_valid false");
        CHECK(at(m, "proper_response") && at(m, "proper_response")->type == MSGPACK_OBJECT_NIL, "no proper response");
        CHECK(strstr(str_of(m, "invalid_reason"), "no map") != NULL, "reason: %s", str_of(m, "invalid_reason"));
    }
    CHECK(n_warnings == 1, "one warning in 3 ticks, got %d", n_warnings);
    CHECK(strstr(last_warning, "no map") != NULL, "the warning says why: %s", last_warning);
    world_close(&w);
}

/* A busy road at 1 and 2 threads: the same bytes. */
static void threads(void)
{
    uint8_t *bytes[2];
    size_t n[2];
    for (int t = 0; t < 2; t++) {
        world w;
        world_open(&w, true, t + 1, NULL);
        uint32_t ids[6];
        for (int i = 0; i < 6; i++) {
            ids[i] = add_car(&w);
            const double y = (i % 4 == 0) ? 1.75 : (i % 4 == 1) ? 5.25 : (i % 4 == 2) ? -1.75 : -5.25;
            put(&w, ids[i], 60 + 17 * i, y, y > 0 ? 0 : 180, (sn_vec3){y > 0 ? 9 + i : -9 - i, 0.1 * (i - 3), 0});
        }
        put(&w, w.ego, 100, 1.75, 0, (sn_vec3){12, 0, 0});
        for (int f = 0; f < 30; f++)
            step(&w);
        bytes[t] = w.cap.all, n[t] = w.cap.n_all;
        w.cap.all = NULL;
        world_close(&w);
    }
    CHECK(n[0] == n[1] && memcmp(bytes[0], bytes[1], n[0]) == 0, "1 and 2 threads: the same bytes (%zu, %zu)", n[0],
          n[1]);
    free(bytes[0]);
    free(bytes[1]);
}

static void refused(const char *attrs, const char *what)
{
    tu_write(dir, "straight.xodr", straight_xml);
    char scene[1024];
    snprintf(scene, sizeof scene,
             "map: straight.xodr\nactors:\n  - {name: hero, blueprint: vehicle.sedan}\n"
             "sensors:\n  - {name: rss, blueprint: sensor.other.rss, attach_to: hero, attributes: {%s}}\n",
             attrs);
    sn_error err = {0};
    sn_engine_options o = {.plugin_dir = plugins, .quiet_plugins = true};
    sn_engine *e = sn_engine_create(&o, &err);
    sn_status st = e ? sn_engine_load_scene(e, tu_write(dir, "bad.yaml", scene), &err) : SN_E_INVALID;
    CHECK(st != SN_OK, "'%s' was accepted", attrs);
    CHECK(strstr(err.msg, what) != NULL, "'%s': the error names %s: %s", attrs, what, err.msg);
    sn_engine_destroy(e);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: test_rss TMP PLUGIN_DIR\n");
        return 2;
    }
    dir = argv[1], plugins = argv[2];
    same_direction(true);
    same_direction(false);
    opposite_direction(true);
    opposite_direction(false);
    lateral();
    beyond_the_road(false);
    beyond_the_road(true);
    no_map();
    threads();
    refused("ego_brake_min: 9", "ego_brake_max");
    refused("other_brake_min_correct: 5", "other_brake_min_correct");
    refused("ego_response_time: -1", "ego_response_time");
    refused("road_boundaries_mode: On", "road_boundaries_mode");
    refused("road_boundaries_mode: Sometimes", "road_boundaries_mode");
    refused("max_distance: 0", "max_distance");
    refused("ego_accel_max: nan", "ego_accel_max");
    return CHECK_DONE();
}
