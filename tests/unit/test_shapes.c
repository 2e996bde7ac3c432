/* Vehicles and walkers drawn as models (engine/render/shapes.h): every vertex of every model
** inside its box at any steer, roll, stride and odd extents; closed convex parts wound
** outwards; front wheels turned by the steer angle and every wheel rolled by travel / radius;
** travel integrated from the velocity; lidar, depth, labels and sweeps see the model, not the
** box (a ray above the hood, in front of the windscreen, misses) while sweeps meet the collision
** box; renders and ray batches identical at 1, 2 and 3 threads, and with the triangle setup on
** the pool or on one thread; bicycles and motorcycles: their wheels, and their riders tagged
** Rider in cameras and rays; every CARLA vehicle id drawn as the model of its kind (compact,
** sedan, SUV, police, taxi, van, truck, bus, bikes) filling its bounding box, each kind seen by the
** semantic and instance cameras with its tag; CARLA's walkers: a figure per id (height, build,
** skin), children smaller. */
#include "../../engine/query/rayscene.h"
#include "../../engine/render/render.h"
#include "../../engine/render/shapes.h"
#include "../../engine/plugin/attr.h"
#include "../../engine/plugin/library.h"
#include "../check.h"

#include <string.h>

#include <stdlib.h>

static const char *const blueprint[SN_MODEL_COUNT] = {
    NULL, "vehicle.sedan", "vehicle.van", "vehicle.truck", "vehicle.bus", "walker.pedestrian",
    "vehicle.diamondback.century", "vehicle.yamaha.yzf", "vehicle.audi.a2", "vehicle.nissan.patrol",
    "vehicle.dodge.charger_police", "vehicle.ford.crown",
};
static const double defaults[SN_MODEL_COUNT][3] = {
    {0, 0, 0}, {2.3, 0.95, 0.75}, {2.6, 1.0, 1.05}, {4.0, 1.25, 1.6}, {6.0, 1.27, 1.6}, {0.25, 0.25, 0.9},
    {0.82, 0.3, 0.85}, {1.1, 0.43, 0.75}, {1.8527, 0.8943, 0.7745}, {2.3023, 0.9658, 0.9274},
    {2.4871, 1.0192, 0.7711}, {2.6828, 0.9004, 0.7875},
};

/* A vehicle or walker of blueprint m, not materialized (the renderer and the index read only
** its state), its origin at pos (a vehicle's at the bottom of its box, CARLA's). */
static sn_actor *add_model(sn_world *w, sn_model m, sn_vec3 pos, double yaw, sn_vec3 ext)
{
    sn_actor *a = sn_world_add(w, m == SN_MODEL_WALKER ? SN_ACTOR_WALKER : SN_ACTOR_VEHICLE, 0);
    a->type_id = blueprint[m];
    a->shape = SN_SHAPE_BOX;
    a->tag = m == SN_MODEL_WALKER ? SN_TAG_PEDESTRIAN : m == SN_MODEL_TRUCK ? SN_TAG_TRUCK
             : m == SN_MODEL_BIKE     ? SN_TAG_BICYCLE
             : m == SN_MODEL_MOTORBIKE ? SN_TAG_MOTORCYCLE
                                      : SN_TAG_CAR;
    a->color[0] = 200, a->color[1] = 30, a->color[2] = 30;
    a->ph->bbox.extent = ext;
    a->ph->bbox.location = m == SN_MODEL_WALKER ? sn_v3(0, 0, 0) : sn_v3(0, 0, ext.z);
    static const sn_vehicle_params vp = {.max_steer = 70 * SN_DEG};
    if (m != SN_MODEL_WALKER) /* a walker's control has that room */
        a->mv->vp = &vp;
    a->st.pos = a->st.prev_pos = pos;
    a->st.rot = a->st.prev_rot = sn_quat_from_rotation((sn_rotation){0, yaw, 0});
    w->gen++;
    return a;
}

/* Signed volume of part p of a posed model (divergence theorem): > 0 when closed and wound outwards. */
static double part_volume(const sn_mesh *m, const sn_mesh_part *p, float (*v)[3])
{
    double vol = 0;
    for (uint32_t i = p->first; i < p->first + p->count; i++) {
        const float *a = v[m->t[i][0]], *b = v[m->t[i][1]], *c = v[m->t[i][2]];
        vol += (a[0] * ((double)b[1] * c[2] - (double)b[2] * c[1]) - a[1] * ((double)b[0] * c[2] - (double)b[2] * c[0]) +
                a[2] * ((double)b[0] * c[1] - (double)b[1] * c[0])) / 6;
    }
    return vol;
}

/* Every vertex within the half extents (float rounding aside); every part of the blueprint's
** size closed, of positive volume, its faces wound away from its centroid. */
static void check_pose(sn_model m, const sn_model_state *s, const char *what, bool parts_full)
{
    const sn_mesh *mesh = sn_model_mesh(m);
    float(*v)[3] = malloc(mesh->n_v * sizeof *v);
    sn_model_pose(m, s, v);
    double e[3] = {s->ext.x, s->ext.y, s->ext.z}, worst = 0;
    int outside = 0;
    for (uint32_t i = 0; i < mesh->n_v; i++)
        for (int k = 0; k < 3; k++)
            if (fabs(v[i][k]) > e[k] * (1 + 1e-6))
                outside++, worst = fmax(worst, fabs(v[i][k]) - e[k]);
    CHECK(outside == 0, "%s: %d vertex coordinates outside the box, by up to %g m", what, outside, worst);
    for (uint32_t k = 0; k < mesh->n_parts; k++) {
        const sn_mesh_part *p = &mesh->parts[k];
        double vol = part_volume(mesh, p, v);
        CHECK(parts_full ? vol > 1e-6 : vol >= -1e-9, "%s: part %u (material %d) has volume %g", what, k, p->material, vol);
        if (!parts_full)
            continue;
        double c[3] = {0, 0, 0};
        for (uint32_t i = p->first_v; i < p->first_v + p->n_v; i++)
            for (int j = 0; j < 3; j++)
                c[j] += v[i][j] / p->n_v;
        int inward = 0;
        for (uint32_t i = p->first; i < p->first + p->count; i++) {
            const float *a = v[mesh->t[i][0]], *b = v[mesh->t[i][1]], *d = v[mesh->t[i][2]];
            sn_vec3 n = sn_v3_cross(sn_v3(b[0] - a[0], b[1] - a[1], b[2] - a[2]), sn_v3(d[0] - a[0], d[1] - a[1], d[2] - a[2]));
            inward += sn_v3_dot(n, sn_v3(a[0] - c[0], a[1] - c[1], a[2] - c[2])) < -1e-12;
        }
        CHECK(inward == 0, "%s: part %u: %d triangles face its centroid", what, k, inward);
    }
    free(v);
}

static void test_inside_boxes(void)
{
    char what[200];
    for (int m = SN_MODEL_NONE + 1; m < SN_MODEL_COUNT; m++) {
        const sn_mesh *mesh = sn_model_mesh((sn_model)m);
        CHECK(mesh && mesh->n_t > 12 && mesh->n_parts > 5, "model %d: %u triangles, %u parts", m, mesh ? mesh->n_t : 0,
              mesh ? mesh->n_parts : 0);
        sn_vec3 def = sn_v3(defaults[m][0], defaults[m][1], defaults[m][2]);
        /* the blueprint's box, and odd ones: tiny, flat, long and narrow, tall */
        const sn_vec3 exts[] = {def, {0.1, 0.1, 0.1}, {3, 1.5, 0.2}, {6, 0.3, 0.8}, {0.4, 0.4, 3}, {1, 1, 1}};
        for (size_t x = 0; x < sizeof exts / sizeof exts[0]; x++)
            for (int k = -4; k <= 4; k++) {
                double max_steer = (x % 2 ? 80 : 70) * SN_DEG;
                sn_model_state s = {exts[x], max_steer * k / 4, max_steer, 0.37 * k * k + 0.11 * k, fabs(0.9 * k), (uint32_t)(0x9e3779b9u * (uint32_t)(k + 4))};
                snprintf(what, sizeof what, "%s, extents %g,%g,%g, steer %g deg, travel %g, speed %g", blueprint[m],
                         exts[x].x, exts[x].y, exts[x].z, s.steer / SN_DEG, s.travel, s.speed);
                check_pose((sn_model)m, &s, what, x == 0);
            }
        /* steer past max_steer is drawn at max_steer: still inside */
        sn_model_state s = {def, 3, 30 * SN_DEG, 0, 0, 0};
        check_pose((sn_model)m, &s, "steer beyond max_steer", true);
    }
}

/* Wheel wh of a posed model: its part's first vertex, axle direction and centre (the part's
** first two vertices are the centres of its faces); false when the model has no such wheel. */
static bool wheel_of(sn_model m, float (*v)[3], int wh, uint32_t *first, sn_vec3 *axle, sn_vec3 *centre)
{
    int p = sn_model_wheel_part(m, wh);
    CHECK(p >= 0, "%s: wheel %d", blueprint[m], wh);
    if (p < 0)
        return false;
    uint32_t f = *first = sn_model_mesh(m)->parts[p].first_v;
    sn_vec3 c0 = sn_v3(v[f][0], v[f][1], v[f][2]), c1 = sn_v3(v[f + 1][0], v[f + 1][1], v[f + 1][2]);
    *axle = sn_v3_norm(sn_v3_sub(c1, c0)), *centre = sn_v3_scale(sn_v3_add(c0, c1), 0.5);
    return true;
}

/* The front wheels turn about z by the steer angle; every wheel rolls about its axle by
** travel / radius, the top moving forward. */
static void test_wheels(void)
{
    const sn_model models[] = {SN_MODEL_SEDAN, SN_MODEL_VAN, SN_MODEL_TRUCK, SN_MODEL_BUS};
    for (size_t mi = 0; mi < 4; mi++) {
        sn_model m = models[mi];
        const sn_mesh *mesh = sn_model_mesh(m);
        sn_vec3 ext = sn_v3(defaults[m][0], defaults[m][1], defaults[m][2]);
        double r = sn_vehicle_wheel_radius(m, ext);
        CHECK(r > 0.2 * ext.z && r <= ext.z, "%s: wheel radius %g", blueprint[m], r);
        float(*v)[3] = malloc(mesh->n_v * sizeof *v);
        for (int k = -3; k <= 3; k++) {
            double steer = 0.3 * k, travel = 1.7 * k;
            sn_model_state s = {ext, steer, 70 * SN_DEG, travel, 0, 0};
            sn_model_pose(m, &s, v);
            for (int wh = 0; wh < 4; wh++) {
                uint32_t f;
                sn_vec3 axle, centre;
                if (!wheel_of(m, v, wh, &f, &axle, &centre))
                    continue;
                double want = wh < 2 ? steer : 0;
                CHECK_NEAR(atan2(-axle.x, axle.y), want, 1e-5, "wheel angle follows the steer");
                CHECK_NEAR(axle.z, 0, 1e-6, "the axle stays level");
                CHECK((wh % 2 ? 1 : -1) * centre.y > 0, "%s: wheel %d on its side", blueprint[m], wh);
                CHECK_NEAR(centre.z, -ext.z + r, 1e-5, "the wheel stands on the ground");
                /* the first rim vertex of the inner face: (r, -hw, 0) turned by the roll, then the steer */
                sn_vec3 q = sn_v3_sub(sn_v3(v[f + 2][0], v[f + 2][1], v[f + 2][2]), centre);
                double phi = fmod(travel / r, 2 * M_PI);
                double along = q.x * cos(want) + q.y * sin(want); /* in the wheel's own forward direction */
                CHECK_NEAR(along, r * cos(phi), 1e-5, "rolled by travel / radius (x)");
                CHECK_NEAR(q.z, -r * sin(phi), 1e-5, "rolled by travel / radius (z): the top moves forward");
            }
        }
        free(v);
    }
}

/* A walker's legs hang straight at rest and swing apart when it walks, wider the faster. */
static void test_walker_legs(void)
{
    const sn_mesh *mesh = sn_model_mesh(SN_MODEL_WALKER);
    float(*v)[3] = malloc(mesh->n_v * sizeof *v);
    sn_vec3 ext = sn_v3(0.25, 0.25, 0.9);
    double spread[3];
    const double speeds[3] = {0, 0.7, 1.4};
    for (int k = 0; k < 3; k++) {
        /* a quarter stride in: the legs at their widest */
        sn_model_state s = {ext, 0, 0, 0.25 * 1.8 * 0.47 * 1.8, speeds[k], 0xffffffffu};
        sn_model_pose(SN_MODEL_WALKER, &s, v);
        /* the legs are the last four parts (trousers, shoe, trousers, shoe): each box's centre
        ** lies ahead of the hip by its distance below it times sin(swing) */
        double mid[2] = {0, 0};
        for (int l = 0; l < 2; l++) {
            const sn_mesh_part *p = &mesh->parts[mesh->n_parts - 4 + 2 * l];
            for (uint32_t i = p->first_v; i < p->first_v + p->n_v; i++)
                mid[l] += v[i][0] / p->n_v;
        }
        spread[k] = mid[1] - mid[0];
    }
    CHECK(fabs(spread[0]) < 1e-6, "standing: the legs side by side (%g m apart)", spread[0]);
    /* twice the swing at twice the speed: sin 2a / sin a = 2 cos a, a below 0.45 rad */
    CHECK(fabs(spread[1]) > 0.02 && fabs(spread[2]) > 2 * cos(0.45) * fabs(spread[1]),
          "walking: legs %g m apart at 0.7 m/s, %g at 1.4", spread[1], spread[2]);
    free(v);
}

/* The world integrates travel from the velocity: forward for vehicles (signed), horizontal for walkers. */
static void test_travel(void)
{
    sn_world w;
    sn_error err = {0};
    CHECK(sn_world_init(&w, 1, &err) == SN_OK, "world: %s", err.msg);
    sn_actor *car = sn_world_add(&w, SN_ACTOR_VEHICLE, 0), *ped = sn_world_add(&w, SN_ACTOR_WALKER, 0);
    car->shape = ped->shape = SN_SHAPE_BOX;
    car->ph->bbox.extent = sn_v3(2.3, 0.95, 0.75);
    car->ph->bbox.location = sn_v3(0, 0, 0.75);
    ped->ph->bbox.extent = sn_v3(0.25, 0.25, 0.9);
    car->ph->mass = 1500, ped->ph->mass = 80;
    sn_transform tc = {{0, 0, 0.5}, {0, 90, 0}}, tp = {{5, 5, 1}, {0, 0, 0}};
    CHECK(sn_world_materialize(&w, car, &tc, &err) == SN_OK && sn_world_materialize(&w, ped, &tp, &err) == SN_OK,
          "materialize: %s", err.msg);
    sn_world_set_drive(&w, car, SN_DRIVE_KINEMATIC);
    sn_world_set_drive(&w, ped, SN_DRIVE_KINEMATIC);
    /* the car faces +y and backs up along -y at 4 m/s; the walker sidesteps at 3 / 4 m/s */
    sn_world_set_velocity(&w, car, sn_v3(0, -4, 0), sn_v3(0, 0, 0));
    sn_world_set_velocity(&w, ped, sn_v3(0.6, -0.45, 0), sn_v3(0, 0, 0));
    car->mv->kin->kin_scripted = ped->mv->kin->kin_scripted = true; /* they keep those velocities (sim/control.c) */
    for (int k = 0; k < 10; k++)
        CHECK(sn_world_advance(&w, 0.05, 1, &err) == SN_OK, "advance: %s", err.msg);
    CHECK_NEAR(car->st.travel, -4 * 0.5, 1e-9, "the car rolled 2 m backwards");
    CHECK_NEAR(car->st.travel - car->st.prev_travel, -4 * 0.05, 1e-9, "its last frame");
    CHECK_NEAR(ped->st.travel, 0.75 * 0.5, 1e-9, "the walker walked 0.375 m");
    sn_world_free(&w);
}

static sn_ray_result cast(sn_rayscene *rs, sn_world *w, sn_ray r)
{
    sn_ray_query q = SN_RAY_QUERY_INIT;
    sn_ray_result res;
    sn_error err = {0};
    CHECK(sn_rays_trace(rs, w, &q, &r, 1, &res, &err) == SN_OK, "trace: %s", err.msg);
    return res;
}

/* Rays and the depth camera meet the model: a ray through the box above the hood, in front of
** the windscreen, misses; drawn as a box (w.box_shapes) the same ray hits its face. */
static void test_sensors_see_meshes(void)
{
    sn_world w;
    sn_error err = {0};
    CHECK(sn_world_init(&w, 1, &err) == SN_OK, "world: %s", err.msg);
    const double L = 2.3, W = 0.95, H = 0.75;
    sn_actor *car = add_model(&w, SN_MODEL_SEDAN, sn_v3(10, 0, 0), 0, sn_v3(L, W, H));
    sn_rayscene *rs = sn_rayscene_create(2, &err);
    /* across the car at 0.7 L ahead of its centre, 0.8 of its height: over the hood (the body
    ** ends at the belt, 0.56), ahead of the windscreen (from 0.42 L at the belt back to 0.08 L) */
    sn_ray over_hood = {{10 + 0.7 * L, -5, 0.8 * 2 * H}, {0, 1, 0}, 20};
    /* across the middle at 0.3 of the height: the body's side, 0.985 W out (docs/shapes.md) */
    sn_ray side = {{10, -5, 0.3 * 2 * H}, {0, 1, 0}, 20};
    /* down onto the roof (height 2H) and onto the hood, which is lower than the box's top */
    sn_ray roof = {{10 - 0.2 * L, 0, 5}, {0, 0, -1}, 20};
    sn_ray r = over_hood;
    sn_ray_result a = cast(rs, &w, r);
    CHECK(a.n_hits == 0, "above the hood: a hit at %g m on actor %u", a.hit.distance, a.hit.actor_id);
    a = cast(rs, &w, side);
    CHECK(a.n_hits == 1 && a.hit.actor_id == car->id && a.hit.semantic_tag == SN_TAG_CAR, "the body's side");
    CHECK_NEAR(a.hit.distance, 5 - 0.985 * W, 1e-6, "the body's side, 0.985 W out");
    a = cast(rs, &w, roof);
    CHECK(a.n_hits == 1 && a.hit.actor_id == car->id, "the roof");
    CHECK_NEAR(a.hit.distance, 5 - 2 * H, 1e-6, "the roof at the box's top");
    w.box_shapes = true;
    w.gen++;
    a = cast(rs, &w, over_hood);
    CHECK(a.n_hits == 1 && a.hit.actor_id == car->id, "as a box, the same ray hits");
    CHECK_NEAR(a.hit.distance, 5 - W, 1e-9, "as a box: its face");
    w.box_shapes = false;
    w.gen++;

    /* a sweep meets the collision box, as physics does (docs/shapes.md): a small ball above the
    ** hood is inside it at once, before and after a ray query built the models' index; a ball
    ** coming down onto the hood stops at the box's top, not at the hood */
    sn_ray_query q = SN_RAY_QUERY_INIT;
    sn_ray_result res;
    sn_ray up = {{10 + 0.7 * L, 0, 0.8 * 2 * H}, {0, 0, 1}, 5};
    sn_rayscene *rs2 = sn_rayscene_create(1, &err);
    CHECK(sn_sweep_sphere(rs2, &w, &q, &up, 0.05, &res, &err) == SN_OK && res.n_hits == 1 &&
              res.hit.actor_id == car->id && res.hit.distance == 0,
          "a ball over the hood is inside the collision box (%u hits)", res.n_hits);
    sn_ray down = {{10 + 0.7 * L, 0, 5}, {0, 0, -1}, 10};
    CHECK(sn_sweep_sphere(rs2, &w, &q, &down, 0.05, &res, &err) == SN_OK && res.n_hits == 1, "down onto the hood");
    CHECK_NEAR(res.hit.distance, 5 - 2 * H - 0.05, 1e-9, "a ball coming down stops on the box's top");
    a = cast(rs2, &w, over_hood);
    CHECK(a.n_hits == 0, "after the sweeps, a ray over the hood still misses (the models' index is built)");
    CHECK(sn_sweep_sphere(rs2, &w, &q, &up, 0.05, &res, &err) == SN_OK && res.n_hits == 1 && res.hit.distance == 0,
          "and a sweep after the ray still meets the box");
    sn_rayscene_destroy(rs2);
    sn_ray mid = {{10, 0, 0.4 * 2 * H}, {0, 0, 1}, 5};
    CHECK(sn_sweep_sphere(rs, &w, &q, &mid, 0.05, &res, &err) == SN_OK && res.n_hits == 1 &&
              res.hit.actor_id == car->id && res.hit.distance == 0,
          "a ball inside the body touches it at once");

    /* the depth camera: looking along +y across the car from y = -5, at the heights of the rays */
    sn_renderer *rd = sn_renderer_create(2);
    enum { WD = 201, HT = 101 };
    float *depth = malloc(WD * HT * sizeof *depth);
    uint8_t *tag = malloc(WD * HT);
    uint32_t *inst = malloc(WD * HT * sizeof *inst);
    sn_lighting light;
    sn_lighting_default(&light);
    /* pixel (100, 50) is the centre ray: aim it through the point over the hood */
    sn_camera cam = {sizeof cam, {{10 + 0.7 * L, -5, 0.8 * 2 * H}, {0, 90, 0}}, WD, HT, 60, 0.1, 100};
    sn_image img = {sizeof img, depth, NULL, tag, inst, 0};
    CHECK(sn_render(rd, &w, 1, &light, &cam, &img, &err) == SN_OK, "render: %s", err.msg);
    size_t c = 50 * WD + 100;
    CHECK(inst[c] == 0 && tag[c] == SN_TAG_SKY, "the depth camera sees past the hood: instance %u, tag %u", inst[c], tag[c]);
    cam.transform.location = side.origin;
    CHECK(sn_render(rd, &w, 1, &light, &cam, &img, &err) == SN_OK, "render: %s", err.msg);
    CHECK(inst[c] == car->id && tag[c] == SN_TAG_CAR, "the body: instance %u, tag %u", inst[c], tag[c]);
    CHECK_NEAR(depth[c], 5 - 0.985 * W, 1e-4, "depth of the body's side");
    /* every pixel of the car is labelled Car with its id, wheels and glass included */
    int wrong = 0, on_car = 0;
    for (size_t i = 0; i < (size_t)WD * HT; i++)
        if (inst[i])
            on_car++, wrong += inst[i] != car->id || tag[i] != SN_TAG_CAR;
    CHECK(on_car > 1000 && wrong == 0, "%d car pixels, %d with another tag or id", on_car, wrong);
    free(depth), free(tag), free(inst);
    sn_renderer_destroy(rd);
    sn_rayscene_destroy(rs);
    sn_world_free(&w);
}

/* Cars and walkers, moving, steering, mid-stride: renders and ray batches byte for byte the same
** at 1, 2 and 3 threads, at the frame's end and halfway through it. */
static void test_threads(void)
{
    sn_world w;
    sn_error err = {0};
    CHECK(sn_world_init(&w, 1, &err) == SN_OK, "world: %s", err.msg);
    for (int i = 0; i < 24; i++) {
        sn_model m = (sn_model)(1 + i % (SN_MODEL_COUNT - 1));
        sn_actor *a = add_model(&w, m, sn_v3(8 + 6 * (i % 6), -12 + 5 * (i / 6), m == SN_MODEL_WALKER ? 0.9 : 0), 17 * i,
                                sn_v3(defaults[m][0], defaults[m][1], defaults[m][2]));
        a->ph->steer_angle = 0.1 * (i % 7) - 0.3;
        a->st.prev_travel = 0.3 * i, a->st.travel = 0.3 * i + 0.7;
        a->st.vel = sn_v3(1.5, 0.2, 0);
        a->st.prev_pos = sn_v3_sub(a->st.pos, sn_v3(0.07, 0.01, 0));
    }
    enum { WD = 320, HT = 200, NR = 4000 };
    sn_lighting light;
    sn_lighting_default(&light);
    sn_camera cam = {sizeof cam, {{0, 0, 2}, {-5, 0, 0}}, WD, HT, 90, 0.1, 200};
    uint8_t *bgra[3];
    float *depth[3];
    sn_ray *rays = malloc(NR * sizeof *rays);
    sn_ray_result *res[3];
    for (int i = 0; i < NR; i++) {
        double az = (i % 200) * 0.0045 - 0.45, el = (i / 200) * 0.01 - 0.15;
        rays[i] = (sn_ray){{0, 0, 1.6}, {cos(el) * cos(az), cos(el) * sin(az), sin(el)}, 100};
    }
    sn_ray_query q = SN_RAY_QUERY_INIT;
    for (int t = 0; t < 3; t++) {
        sn_renderer *rd = sn_renderer_create(t + 1);
        sn_rayscene *rs = sn_rayscene_create(t + 1, &err);
        bgra[t] = malloc(2 * WD * HT * 4);
        depth[t] = malloc(2 * WD * HT * sizeof(float));
        res[t] = malloc(NR * sizeof *res[t]);
        for (int h = 0; h < 2; h++) {
            sn_image img = {sizeof img, depth[t] + h * WD * HT, bgra[t] + h * WD * HT * 4, NULL, NULL, 0};
            CHECK(sn_render(rd, &w, h ? 0.5 : 1, &light, &cam, &img, &err) == SN_OK, "render: %s", err.msg);
        }
        CHECK(sn_rays_trace(rs, &w, &q, rays, NR, res[t], &err) == SN_OK, "trace: %s", err.msg);
        if (t == 2) {
            /* setup on the calling thread alone (the serial baseline) gives the same image */
            uint8_t *one = malloc(WD * HT * 4);
            sn_image img = {sizeof img, NULL, one, NULL, NULL, 0};
            sn_renderer_set_serial_setup(rd, true);
            CHECK(sn_render(rd, &w, 1, &light, &cam, &img, &err) == SN_OK && !memcmp(one, bgra[t], WD * HT * 4),
                  "serial setup differs from setup on the pool");
            /* nothing in view: no mesh to set up, only sky */
            sn_renderer_set_serial_setup(rd, false);
            sn_camera up = cam;
            up.transform.rotation = (sn_rotation){80, 180, 0};
            /* the sky is a gradient (shade.h): "only sky" is every pixel tagged Sky */
            uint8_t *tags = malloc(WD * HT);
            sn_image sky = {sizeof sky, NULL, one, tags, NULL, 0};
            CHECK(sn_render(rd, &w, 1, &light, &up, &sky, &err) == SN_OK && sn_renderer_last_triangles(rd) == 0,
                  "an empty view: %u triangles", sn_renderer_last_triangles(rd));
            size_t labelled = 0;
            for (size_t k = 0; k < (size_t)WD * HT; k++)
                labelled += tags[k] != SN_TAG_SKY;
            CHECK(labelled == 0, "an empty view: %zu pixels show something", labelled);
            free(tags);
            free(one);
        }
        sn_rayscene_destroy(rs);
        sn_renderer_destroy(rd);
    }
    int hits = 0;
    for (int i = 0; i < NR; i++)
        hits += res[0][i].n_hits && res[0][i].hit.actor_id;
    CHECK(hits > NR / 10, "%d of %d rays meet a car or walker", hits, NR);
    for (int t = 1; t < 3; t++) {
        CHECK(!memcmp(bgra[0], bgra[t], 2 * WD * HT * 4) && !memcmp(depth[0], depth[t], 2 * WD * HT * sizeof(float)),
              "images at %d threads differ from 1 thread", t + 1);
        CHECK(!memcmp(res[0], res[t], NR * sizeof *res[0]), "ray results at %d threads differ from 1 thread", t + 1);
    }
    CHECK(memcmp(bgra[0], bgra[0] + WD * HT * 4, WD * HT * 4) != 0, "halfway through the frame is another image");
    for (int t = 0; t < 3; t++)
        free(bgra[t]), free(depth[t]), free(res[t]);
    free(rays);
    sn_world_free(&w);
}

/* Bicycles and motorcycles: the front wheel turns with the steer and the rear does not, both
** roll; the semantic camera and the rays see the rider as Rider and the machine as Bicycle or
** Motorcycle, both with the actor's id. */
static void test_two_wheelers(void)
{
    const sn_model models[] = {SN_MODEL_BIKE, SN_MODEL_MOTORBIKE};
    for (size_t mi = 0; mi < 2; mi++) {
        sn_model m = models[mi];
        const sn_mesh *mesh = sn_model_mesh(m);
        sn_vec3 ext = sn_v3(defaults[m][0], defaults[m][1], defaults[m][2]);
        double r = sn_vehicle_wheel_radius(m, ext);
        CHECK(r > 0.25 && r < ext.z, "%s: wheel radius %g m", blueprint[m], r);
        CHECK(sn_model_wheel_part(m, 2) < 0, "%s: two wheels", blueprint[m]);
        float(*v)[3] = malloc(mesh->n_v * sizeof *v);
        for (int k = -2; k <= 2; k++) {
            double steer = 0.25 * k;
            sn_model_state s = {ext, steer, 40 * SN_DEG, 1.3 * k, 3, 0};
            sn_model_pose(m, &s, v);
            for (int wh = 0; wh < 2; wh++) {
                uint32_t f;
                sn_vec3 axle, centre;
                if (!wheel_of(m, v, wh, &f, &axle, &centre))
                    continue;
                CHECK_NEAR(atan2(-axle.x, axle.y), wh ? 0 : steer, 1e-5, "the front wheel turns, the rear does not");
                CHECK_NEAR(centre.y, 0, 1e-6, "a two-wheeler's wheel in the middle");
                CHECK_NEAR(centre.z, -ext.z + r, 1e-5, "a two-wheeler's wheel stands on the ground");
                CHECK((wh ? -1 : 1) * centre.x > 0.3 * ext.x, "%s: wheel %d at its end", blueprint[m], wh);
                sn_vec3 q = sn_v3_sub(sn_v3(v[f + 2][0], v[f + 2][1], v[f + 2][2]), centre);
                CHECK_NEAR(q.z, -r * sin(fmod(1.3 * k / r, 2 * M_PI)), 1e-5, "a two-wheeler's wheel rolled by travel / radius");
            }
        }
        free(v);
    }

    sn_world w;
    sn_error err = {0};
    CHECK(sn_world_init(&w, 1, &err) == SN_OK, "world: %s", err.msg);
    sn_vec3 be = sn_v3(defaults[SN_MODEL_BIKE][0], defaults[SN_MODEL_BIKE][1], defaults[SN_MODEL_BIKE][2]);
    sn_vec3 me = sn_v3(defaults[SN_MODEL_MOTORBIKE][0], defaults[SN_MODEL_MOTORBIKE][1], defaults[SN_MODEL_MOTORBIKE][2]);
    sn_actor *bike = add_model(&w, SN_MODEL_BIKE, sn_v3(8.5, 0, 0), 0, be);
    sn_actor *moto = add_model(&w, SN_MODEL_MOTORBIKE, sn_v3(11.5, 0, 0), 0, me);
    /* from the side at mid height: a camera sees both whole */
    sn_renderer *rd = sn_renderer_create(2);
    enum { WD = 160, HT = 120 };
    uint8_t *tag = malloc(WD * HT);
    uint32_t *inst = malloc(WD * HT * sizeof *inst);
    sn_lighting light;
    sn_lighting_default(&light);
    sn_camera cam = {sizeof cam, {{10, -8, 0.9}, {0, 90, 0}}, WD, HT, 40, 0.1, 100};
    sn_image img = {sizeof img, NULL, NULL, tag, inst, 0};
    CHECK(sn_render(rd, &w, 1, &light, &cam, &img, &err) == SN_OK, "render: %s", err.msg);
    int n[4] = {0, 0, 0, 0}, wrong = 0; /* bike, bike's rider, motorcycle, its rider */
    for (size_t i = 0; i < (size_t)WD * HT; i++) {
        if (!inst[i])
            continue;
        bool is_bike = inst[i] == bike->id;
        if (tag[i] == SN_TAG_RIDER)
            n[is_bike ? 1 : 3]++;
        else if (tag[i] == (is_bike ? SN_TAG_BICYCLE : SN_TAG_MOTORCYCLE))
            n[is_bike ? 0 : 2]++;
        else
            wrong++;
    }
    CHECK(n[0] > 100 && n[1] > 100 && n[2] > 100 && n[3] > 100 && wrong == 0,
          "bicycle %d, cyclist %d, motorcycle %d, rider %d pixels; %d with another tag", n[0], n[1], n[2], n[3], wrong);
    /* rays: across the cyclist's torso (shoulder height) and through the bicycle's wheels */
    sn_rayscene *rs = sn_rayscene_create(1, &err);
    sn_ray torso = {{8.5, -8, 0.72 * 2 * be.z}, {0, 1, 0}, 20}, wheels = {{8.5 - 0.7 * be.x, -8, 0.2}, {0, 1, 0}, 20};
    sn_ray_result a = cast(rs, &w, torso);
    CHECK(a.n_hits == 1 && a.hit.actor_id == bike->id && a.hit.semantic_tag == SN_TAG_RIDER, "the cyclist's torso: tag %u",
          a.hit.semantic_tag);
    a = cast(rs, &w, wheels);
    CHECK(a.n_hits == 1 && a.hit.actor_id == bike->id && a.hit.semantic_tag == SN_TAG_BICYCLE, "the bicycle's wheel: tag %u",
          a.hit.semantic_tag);
    sn_ray_query all = SN_RAY_QUERY_INIT;
    all.mode = SN_RAY_ALL;
    sn_ray_result res[1];
    sn_ray_hit hits[8];
    all.hits = hits, all.max_hits = 8;
    CHECK(sn_rays_trace(rs, &w, &all, &torso, 1, res, &err) == SN_OK && res[0].n_hits >= 1 &&
              hits[0].semantic_tag == SN_TAG_RIDER,
          "every hit along a ray (SN_RAY_ALL): the rider's tag: %s", err.msg);
    /* along the bicycle at wheel height: SN_RAY_ALL gives the bicycle once (where the ray first
    ** meets it), SN_RAY_EVERY each part it enters */
    sn_ray along = {{8.5 - 3 * be.x, 0, 0.2}, {1, 0, 0}, 6 * be.x};
    all.ignore_ids = &moto->id, all.n_ignore = 1; /* the motorcycle stands further along */
    CHECK(sn_rays_trace(rs, &w, &all, &along, 1, res, &err) == SN_OK && res[0].n_hits == 1 &&
              hits[0].actor_id == bike->id, "SN_RAY_ALL along the bicycle: one hit, got %u", res[0].n_hits);
    double first = hits[0].distance;
    all.mode = SN_RAY_EVERY;
    sn_ray_hit many[256];
    all.hits = many, all.max_hits = 256;
    CHECK(sn_rays_trace(rs, &w, &all, &along, 1, res, &err) == SN_OK && res[0].n_hits >= 2 &&
              res[0].n_hits == res[0].n_found && many[0].distance == first, "SN_RAY_EVERY along the bicycle: %u hits, the first at %g (ALL: %g)",
          res[0].n_hits, res[0].n_hits ? many[0].distance : -1, first);
    for (uint32_t k = 0; k < res[0].n_hits; k++)
        CHECK(many[k].actor_id == bike->id && (!k || many[k].distance > many[k - 1].distance + 1e-6) &&
                  many[k].normal.x < 0, "every hit %u: the bicycle, further on (%g), a surface facing the ray (%g)", k,
              many[k].distance, many[k].normal.x);
    /* the rear wheel, then a part of the frame 0.9 m on: one actor entered twice */
    CHECK(res[0].n_hits && many[res[0].n_hits - 1].distance > many[0].distance + 0.5,
          "a second part of the bicycle further on (%g m after the first)",
          res[0].n_hits ? many[res[0].n_hits - 1].distance - many[0].distance : 0);
    sn_rayscene_destroy(rs);
    free(tag), free(inst);
    sn_renderer_destroy(rd);
    (void)moto;
    sn_world_free(&w);
}

const sn_blueprint *sn_carla_blueprints(size_t *n); /* engine/plugin/carla_vehicles.c */

static const char *attr_of(const sn_blueprint *bp, const char *name)
{
    int i = sn_attr_find(bp->attrs, bp->n_attrs, bp->stride, name);
    return i < 0 ? "" : ((const sn_attr_def *)((const char *)bp->attrs + (size_t)i * bp->stride))->def;
}

/* An actor of blueprint bp (its tag and extents), not materialized, its origin at pos. */
static sn_actor *add_bp(sn_world *w, const sn_blueprint *bp, sn_vec3 pos, double yaw)
{
    sn_vec3 e;
    uint8_t tag = 0;
    CHECK(sscanf(attr_of(bp, "extent"), "%lf,%lf,%lf", &e.x, &e.y, &e.z) == 3 && sn_tag_parse(attr_of(bp, "semantic_tag"), &tag),
          "%s: extent and tag", bp->id);
    bool walker = bp->kind == SN_ACTOR_WALKER;
    sn_actor *a = add_model(w, walker ? SN_MODEL_WALKER : SN_MODEL_SEDAN, pos, yaw, e);
    a->type_id = bp->id;
    a->tag = tag;
    return a;
}

/* Every CARLA vehicle id is drawn as the model of its kind, filling its blueprint's bounding box
** (the box CARLA's bounding_box reports: the drawn model reaches within 3 % of each face, wheels
** on the ground, the roof or light bar at the top), with the blueprint's tag on every part but
** a rider's; the kinds: police iff special_type emergency on a car, taxi iff special_type taxi,
** SUVs stand higher than sedans; walkers: the same id always the same figure, 51 ids give
** several skin tones, builds and heights, a child's figure smaller than an adult's. */
static void test_carla_kinds(void)
{
    size_t n = 0;
    const sn_blueprint *bps = sn_carla_blueprints(&n);
    sn_world w;
    sn_error err = {0};
    CHECK(sn_world_init(&w, 1, &err) == SN_OK, "world: %s", err.msg);
    int per_kind[SN_MODEL_COUNT] = {0};
    double floor_frac[SN_MODEL_COUNT] = {0};
    for (size_t i = 0; i < n; i++) {
        const sn_blueprint *bp = &bps[i];
        if (bp->kind != SN_ACTOR_VEHICLE)
            continue;
        sn_actor *a = add_bp(&w, bp, sn_v3(0, 0, 0), 0);
        sn_model m = sn_model_of(&w, a);
        const char *base = attr_of(bp, "base_type"), *special = attr_of(bp, "special_type");
        bool car = !strcmp(base, "car");
        CHECK(car ? (m == SN_MODEL_SEDAN || m == SN_MODEL_COMPACT || m == SN_MODEL_SUV || m == SN_MODEL_POLICE || m == SN_MODEL_TAXI)
                  : !strcmp(base, "van")   ? m == SN_MODEL_VAN
                  : !strcmp(base, "truck") ? m == SN_MODEL_TRUCK
                  : !strcmp(base, "bus")   ? m == SN_MODEL_BUS
                  : !strcmp(base, "bicycle") ? m == SN_MODEL_BIKE
                                             : m == SN_MODEL_MOTORBIKE,
              "%s (%s): model %d", bp->id, base, m);
        CHECK((m == SN_MODEL_POLICE) == (car && !strcmp(special, "emergency")), "%s: police iff an emergency car", bp->id);
        CHECK((m == SN_MODEL_TAXI) == !strcmp(special, "taxi"), "%s: taxi iff special_type taxi", bp->id);
        per_kind[m]++;
        const sn_mesh *mesh = sn_model_mesh(m);
        float(*v)[3] = malloc(mesh->n_v * sizeof *v);
        sn_model_state s;
        sn_model_state_of(a, 1, &s);
        sn_model_pose(m, &s, v);
        double lo[3] = {1e9, 1e9, 1e9}, hi[3] = {-1e9, -1e9, -1e9}, e[3] = {s.ext.x, s.ext.y, s.ext.z};
        for (uint32_t k = 0; k < mesh->n_v; k++)
            for (int j = 0; j < 3; j++)
                lo[j] = fmin(lo[j], v[k][j]), hi[j] = fmax(hi[j], v[k][j]);
        /* a two-wheeler's handlebar is narrower than its box, its rider's head lower (docs/shapes.md) */
        const bool two = m == SN_MODEL_BIKE || m == SN_MODEL_MOTORBIKE;
        const double fill[3] = {0.97, two ? 0.7 : 0.97, two ? 0.89 : 0.97};
        for (int j = 0; j < 3; j++)
            CHECK(lo[j] >= -e[j] * (1 + 1e-6) && hi[j] <= e[j] * (1 + 1e-6) && lo[j] <= -(j == 2 ? 0.97 : fill[j]) * e[j] &&
                      hi[j] >= fill[j] * e[j],
                  "%s: axis %d drawn from %g to %g, its box +-%g", bp->id, j, lo[j], hi[j], e[j]);
        /* the body's lowest point (its first part: the skirt) above the ground, of the height */
        if (mesh->parts[0].material == SN_MAT_BODY) {
            double z = 1e9;
            for (uint32_t k = mesh->parts[0].first_v; k < mesh->parts[0].first_v + mesh->parts[0].n_v; k++)
                z = fmin(z, v[k][2]);
            floor_frac[m] = fmax(floor_frac[m], (z + e[2]) / (2 * e[2]));
        }
        for (uint32_t k = 0; k < mesh->n_parts; k++) {
            uint8_t t = sn_material_tag((sn_material)mesh->parts[k].material, a->tag);
            CHECK(t == a->tag || t == SN_TAG_RIDER, "%s: part %u tagged %u", bp->id, k, t);
        }
        free(v);
    }
    for (int m = SN_MODEL_SEDAN; m < SN_MODEL_COUNT; m++)
        CHECK(m == SN_MODEL_WALKER || per_kind[m] > 0, "model %d draws at least one CARLA id", m);
    CHECK(floor_frac[SN_MODEL_SUV] > floor_frac[SN_MODEL_SEDAN], "an SUV's body stands higher: %g of its height, a sedan's %g",
          floor_frac[SN_MODEL_SUV], floor_frac[SN_MODEL_SEDAN]);

    /* walkers */
    const sn_mesh *wm = sn_model_mesh(SN_MODEL_WALKER);
    float(*v)[3] = malloc(wm->n_v * sizeof *v);
    uint8_t skins[64][3];
    int n_skin = 0, n_walkers = 0;
    double hmin = 1e9, hmax = 0, adult_min = 1e9, child_max = 0, wmin = 1e9, wmax = 0;
    for (size_t i = 0; i < n; i++) {
        const sn_blueprint *bp = &bps[i];
        if (bp->kind != SN_ACTOR_WALKER)
            continue;
        sn_actor *a = add_bp(&w, bp, sn_v3(0, 0, 0.9), 0);
        CHECK(sn_model_of(&w, a) == SN_MODEL_WALKER, "%s: a walker", bp->id);
        n_walkers++;
        sn_model_state s;
        sn_model_state_of(a, 1, &s);
        CHECK(s.look == sn_model_look(bp->id) && s.look != 0, "%s: its look", bp->id);
        sn_model_pose(SN_MODEL_WALKER, &s, v);
        double top = -1e9, wide = 0;
        for (uint32_t k = 0; k < wm->n_v; k++) {
            top = fmax(top, v[k][2]);
            CHECK(fabs(v[k][0]) <= s.ext.x * (1 + 1e-6) && fabs(v[k][1]) <= s.ext.y * (1 + 1e-6) &&
                      fabs(v[k][2]) <= s.ext.z * (1 + 1e-6),
                  "%s: vertex %u outside its box", bp->id, k);
        }
        /* the torso (part 0): its half width, of the box's */
        for (uint32_t k = wm->parts[0].first_v; k < wm->parts[0].first_v + wm->parts[0].n_v; k++)
            wide = fmax(wide, v[k][1] / s.ext.y);
        double h = top + s.ext.z, frac = h / (2 * s.ext.z);
        CHECK(frac >= 0.9 - 1e-9 && frac <= 1 + 1e-9, "%s: %g of its box's height", bp->id, frac);
        hmin = fmin(hmin, frac), hmax = fmax(hmax, frac), wmin = fmin(wmin, wide), wmax = fmax(wmax, wide);
        if (!strcmp(attr_of(bp, "age"), "child"))
            child_max = fmax(child_max, h);
        else
            adult_min = fmin(adult_min, h);
        uint8_t c[3];
        sn_actor_material_rgb(a, SN_MAT_SKIN, c);
        int seen = 0;
        for (int k = 0; k < n_skin; k++)
            seen |= !memcmp(skins[k], c, 3);
        if (!seen && n_skin < 64)
            memcpy(skins[n_skin++], c, 3);
        uint8_t again[3];
        sn_actor_material_rgb(a, SN_MAT_SKIN, again);
        CHECK(!memcmp(c, again, 3), "%s: the same skin every time", bp->id);
    }
    CHECK(n_walkers == 51, "51 CARLA walkers (%d)", n_walkers);
    CHECK(n_skin >= 6, "%d skin tones over the walkers", n_skin);
    CHECK(hmax - hmin > 0.05 && wmax - wmin > 0.1, "heights %g..%g of the box, torso widths %g..%g", hmin, hmax, wmin, wmax);
    CHECK(child_max < adult_min, "the tallest child %g m, the shortest adult %g m", child_max, adult_min);
    free(v);
    sn_world_free(&w);
}

/* The semantic and instance cameras see each kind: a row of one vehicle per model, seen from the
** side, every one's pixels carry its id and its blueprint's tag (a rider's Rider); the police
** car's light bar shows red and blue in RGB, a taxi's sign yellow, at the roof. */
static void test_kinds_seen(void)
{
    static const char *const ids[] = {"vehicle.audi.a2", "vehicle.tesla.model3", "vehicle.nissan.patrol",
                                      "vehicle.mercedes.sprinter", "vehicle.carlamotors.european_hgv",
                                      "vehicle.mitsubishi.fusorosa", "vehicle.dodge.charger_police", "vehicle.ford.crown",
                                      "vehicle.gazelle.omafiets", "vehicle.kawasaki.ninja"};
    enum { NK = 10 };
    size_t n = 0;
    const sn_blueprint *bps = sn_carla_blueprints(&n);
    sn_world w;
    sn_error err = {0};
    CHECK(sn_world_init(&w, 1, &err) == SN_OK, "world: %s", err.msg);
    sn_actor *act[NK];
    double x = 0;
    for (int k = 0; k < NK; k++) {
        const sn_blueprint *bp = NULL;
        for (size_t i = 0; i < n; i++)
            if (!strcmp(bps[i].id, ids[k]))
                bp = &bps[i];
        CHECK(bp != NULL, "%s in the library", ids[k]);
        if (!bp)
            return;
        act[k] = add_bp(&w, bp, sn_v3(x, 0, 0), 0);
        x += 2 * act[k]->ph->bbox.extent.x + 1.5;
    }
    sn_renderer *rd = sn_renderer_create(2);
    enum { WD = 960, HT = 200 };
    uint8_t *tag = malloc(WD * HT), *bgra = malloc(WD * HT * 4);
    uint32_t *inst = malloc(WD * HT * sizeof *inst);
    sn_lighting light;
    sn_lighting_default(&light);
    /* from far to the side (-y), looking along +y at the row's middle, a little above */
    sn_camera cam = {sizeof cam, {{x / 2, -50, 14}, {-15, 90, 0}}, WD, HT, 70, 0.1, 200};
    sn_image img = {sizeof img, NULL, bgra, tag, inst, 0};
    CHECK(sn_render(rd, &w, 1, &light, &cam, &img, &err) == SN_OK, "render: %s", err.msg);
    int right[NK] = {0}, wrong = 0, red = 0, blue = 0, yellow = 0;
    for (size_t i = 0; i < (size_t)WD * HT; i++) {
        for (int k = 0; k < NK; k++) {
            if (inst[i] != act[k]->id)
                continue;
            if (tag[i] == act[k]->tag || tag[i] == SN_TAG_RIDER)
                right[k]++;
            else
                wrong++;
            const uint8_t *p = bgra + 4 * i; /* B, G, R */
            if (k == 6 && p[2] > 120 && p[1] < 60 && p[0] < 60)
                red++;
            if (k == 6 && p[0] > 120 && p[2] < 60)
                blue++;
            /* the sign's sides and its top (220, 190, 73 here: blue up to 80); its lowest side row,
            ** at the roof, is in the roof's penumbra since the shadow's normal-offset bias */
            if (k == 7 && p[2] > 150 && p[1] > 110 && p[0] < 80)
                yellow++;
        }
    }
    for (int k = 0; k < NK; k++)
        CHECK(right[k] > 30, "%s: %d pixels with its id and tag", ids[k], right[k]);
    CHECK(wrong == 0, "%d pixels of the row with another tag", wrong);
    CHECK(red > 3 && blue > 3 && yellow > 3, "the light bar: %d red, %d blue pixels; the taxi sign %d yellow", red, blue, yellow);
    free(tag), free(bgra), free(inst);
    sn_renderer_destroy(rd);
    sn_world_free(&w);
}

int main(void)
{
    test_carla_kinds();
    test_kinds_seen();
    test_inside_boxes();
    test_wheels();
    test_walker_legs();
    test_travel();
    test_sensors_see_meshes();
    test_threads();
    test_two_wheelers();
    return CHECK_DONE();
}
