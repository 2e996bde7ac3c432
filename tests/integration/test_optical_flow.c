/* The optical flow camera against analytic flow: a box moving and turning in front of a moving
** camera (both kinematic, their poses set every frame), each pixel's flow from an exact ray-box
** intersection now and the projection of the same box-frame point through both frames' poses;
** a camera turning in yaw over a static scene (the depth-free rotation flow); a still scene:
** zero bytes; the same bytes at 1 and 2 threads; bad attributes refused.
** argv[1]: temp folder, argv[2]: plugin folder (optical_flow) */
#include "../check.h"
#include "../testutil.h"

#include <sensim/math.h>
#include <sensim/types.h>

static const char *dir, *plugins;

/* The last message of the flow camera (testutil.h); its raw_data is float (u, v) pairs. */
typedef tu_image capture;

static const float *flow_of(const capture *c) { return (const float *)c->raw; }

static sn_engine *open_scene(const char *scene, int threads, capture *c, sn_error *err)
{
    sn_engine_options o = {.plugin_dir = plugins, .quiet_plugins = true, .threads = threads};
    sn_engine *e = sn_engine_create(&o, err);
    memset(c, 0, sizeof *c);
    if (!e || sn_engine_load_scene(e, tu_write(dir, "flow.yaml", scene), err) ||
        sn_engine_listen(e, "flow", tu_on_image, c, err)) {
        sn_engine_destroy(e);
        return NULL;
    }
    return e;
}

/* ---- the analytic model ---- */

typedef struct pinhole {
    double W, H, f, cx, cy;
} pinhole;

static pinhole make_pinhole(uint32_t w, uint32_t h, double fov)
{
    return (pinhole){w, h, w / (2 * tan(fov * M_PI / 360)), w / 2.0, h / 2.0};
}

/* World ray of pixel (x, y)'s centre from camera pose t. */
static sn_vec3 pixel_ray(const pinhole *p, const sn_transform *t, uint32_t x, uint32_t y)
{
    sn_mat3 r = sn_mat3_from_rotation(t->rotation);
    double a = (x + 0.5 - p->cx) / p->f, b = (y + 0.5 - p->cy) / p->f;
    return sn_mat3_apply(&r, sn_v3(1, a, -b));
}

/* Where world point q projects through camera pose t; false behind it. */
static bool project(const pinhole *p, const sn_transform *t, sn_vec3 q, double *u, double *v)
{
    sn_mat3 r = sn_mat3_from_rotation(t->rotation);
    sn_vec3 c = sn_mat3_apply_t(&r, sn_v3_sub(q, t->location));
    if (c.x <= 0)
        return false;
    *u = p->cx + p->f * c.y / c.x;
    *v = p->cy - p->f * c.z / c.x;
    return true;
}

/* A box: centre and rotation, half extents. Slab intersection in its frame; returns the face
** (1..6) hit first, 0 for none, and the hit point in the box frame. */
static int ray_box(sn_vec3 o, sn_vec3 d, const sn_transform *box, sn_vec3 ext, sn_vec3 *local)
{
    sn_mat3 r = sn_mat3_from_rotation(box->rotation);
    sn_vec3 lo = sn_mat3_apply_t(&r, sn_v3_sub(o, box->location)), ld = sn_mat3_apply_t(&r, d);
    double O[3] = {lo.x, lo.y, lo.z}, D[3] = {ld.x, ld.y, ld.z}, E[3] = {ext.x, ext.y, ext.z};
    double t0 = -INFINITY, t1 = INFINITY;
    int face = 0;
    for (int k = 0; k < 3; k++) {
        if (fabs(D[k]) < 1e-15) {
            if (fabs(O[k]) > E[k])
                return 0;
            continue;
        }
        double ta = (-E[k] - O[k]) / D[k], tb = (E[k] - O[k]) / D[k];
        int fa = 2 * k + 1, fb = 2 * k + 2;
        if (ta > tb) {
            double s = ta; ta = tb; tb = s;
            int fs = fa; fa = fb; fb = fs;
        }
        if (ta > t0)
            t0 = ta, face = fa;
        if (tb < t1)
            t1 = tb;
    }
    if (t0 > t1 || t0 <= 0)
        return 0;
    *local = sn_v3(O[0] + t0 * D[0], O[1] + t0 * D[1], O[2] + t0 * D[2]);
    return face;
}

/* CARLA's units of a pixel's motion from (u_prev, v_prev) to its centre now. */
static void carla_flow(const pinhole *p, uint32_t x, uint32_t y, double up, double vp, double *fx, double *fy)
{
    *fx = 2 * (x + 0.5 - up) / p->W;
    *fy = -2 * (y + 0.5 - vp) / p->H;
}

/* The vehicle's box centre: its origin is the bottom face's centre. */
static sn_transform box_pose(const sn_transform *vehicle, double ext_z)
{
    sn_transform c = {{0, 0, ext_z}, {0, 0, 0}};
    return sn_transform_compose(vehicle, &c);
}

/* ---- tests ---- */

static sn_transform car_pose(int k) { return (sn_transform){{12, -3 + 0.25 * k, 0}, {0, 20 + 3.0 * k, 0}}; }
static sn_transform eye_pose(int k) { return (sn_transform){{0.3 * k, 0.05 * k, 0}, {0, 1.5 * k, 0}}; }

static void moving_box(void)
{
    /* The car (a 2 x 1.6 x 1.4 m box: a prop of its box riding on it, around its drawn shape,
    ** docs/shapes.md) slides right at 5 m/s and turns 60 deg/s; the camera, on a second
    ** kinematic car, drives forward, drifts and turns 30 deg/s. */
    const char *scene =
        "settings: {fixed_delta_seconds: 0.05}\n"
        "actors:\n"
        "  - {name: car, blueprint: vehicle.sedan, attributes: {extent: \"1,0.8,0.7\"}}\n"
        "  - {name: shell, blueprint: static.prop.box, attach_to: car, transform: {location: [0, 0, 0.7]},"
        " attributes: {extent: \"1,0.8,0.7\"}}\n"
        "  - {name: eye, blueprint: vehicle.sedan, transform: {location: [0, 0, 0]}, attributes: {extent: \"0.2,0.2,0.1\", center_of_mass_height: 0.05}}\n"
        "sensors:\n"
        "  - {name: flow, blueprint: sensor.camera.optical_flow, attach_to: eye,\n"
        "     transform: {location: [0, 0, 0.9], rotation: [-3, 0, 0]},\n"
        "     attributes: {image_size_x: 240, image_size_y: 160, fov: 70}}\n";
    capture c;
    sn_error err = {0};
    sn_engine *e = open_scene(scene, 2, &c, &err);
    CHECK(e != NULL, "%s", err.msg);
    if (!e)
        return;
    uint32_t car = sn_engine_find_actor(e, "car"), eye = sn_engine_find_actor(e, "eye");
    sn_transform t0 = car_pose(0), e0 = eye_pose(0);
    CHECK(sn_engine_set_simulate_physics(e, car, false, &err) == SN_OK, "%s", err.msg);
    CHECK(sn_engine_set_simulate_physics(e, eye, false, &err) == SN_OK, "%s", err.msg);
    sn_engine_set_transform(e, car, &t0, &err);
    sn_engine_set_transform(e, eye, &e0, &err);
    const sn_transform mount = {{0, 0, 0.9}, {-3, 0, 0}};
    const sn_vec3 ext = {1, 0.8, 0.7};
    const pinhole p = make_pinhole(240, 160, 70);
    int frames = 4, checked = 0, moving = 0;
    double worst = 0, worst_sky = 0;
    for (int k = 1; k <= frames; k++) {
        sn_transform ck = car_pose(k), ek = eye_pose(k);
        CHECK(sn_engine_set_target_transform(e, car, &ck, &err) == SN_OK, "%s", err.msg);
        CHECK(sn_engine_set_target_transform(e, eye, &ek, &err) == SN_OK, "%s", err.msg);
        if (sn_engine_step(e, &err)) {
            CHECK(false, "step: %s", err.msg);
            break;
        }
        CHECK(c.n == (size_t)k && c.size == (size_t)240 * 160 * 8, "message %zu, %zu bytes", c.n, c.size);
        if (c.n != (size_t)k || c.size != (size_t)240 * 160 * 8)
            break;
        sn_transform cp = car_pose(k - 1), ep = eye_pose(k - 1);
        sn_transform box_now = box_pose(&ck, ext.z), box_prev = box_pose(&cp, ext.z);
        sn_transform cam_now = sn_transform_compose(&ek, &mount), cam_prev = sn_transform_compose(&ep, &mount);
        /* analytic faces per pixel, to keep away from the silhouette and the box's edges */
        static int face[160][240];
        static sn_vec3 local[160][240];
        for (uint32_t y = 0; y < 160; y++)
            for (uint32_t x = 0; x < 240; x++)
                face[y][x] = ray_box(cam_now.location, pixel_ray(&p, &cam_now, x, y), &box_now, ext, &local[y][x]);
        for (uint32_t y = 1; y + 1 < 160; y++)
            for (uint32_t x = 1; x + 1 < 240; x++) {
                bool interior = true;
                for (int dy = -1; dy <= 1; dy++)
                    for (int dx = -1; dx <= 1; dx++)
                        interior &= face[y + dy][x + dx] == face[y][x];
                if (!interior)
                    continue;
                const float *got = flow_of(&c) + 2 * ((size_t)y * 240 + x);
                if (!face[y][x]) { /* sky */
                    worst_sky = fmax(worst_sky, fabs(got[0]) + fabs(got[1]));
                    continue;
                }
                /* the same box-frame point at the previous frame, through the previous camera */
                sn_vec3 q = sn_transform_point(&box_prev, local[y][x]);
                double up, vp, fx, fy;
                if (!project(&p, &cam_prev, q, &up, &vp))
                    continue;
                carla_flow(&p, x, y, up, vp, &fx, &fy);
                /* compare in pixels */
                double ex = fabs(got[0] - fx) * p.W / 2, ey = fabs(got[1] - fy) * p.H / 2;
                worst = fmax(worst, fmax(ex, ey));
                checked++;
                moving += hypot(fx * p.W / 2, fy * p.H / 2) > 1;
            }
    }
    CHECK(checked > 4 * 600, "box pixels compared: %d", checked);
    CHECK(moving > checked / 2, "most of them move more than a pixel (%d of %d)", moving, checked);
    fprintf(stderr, "moving box: %d pixels, worst %.3g px\n", checked, worst);
    CHECK(worst < 1e-3, "flow off its analytic value by %g px somewhere on the box", worst);
    CHECK(worst_sky == 0, "sky pixels read %g", worst_sky);
    tu_image_free(&c);
    sn_engine_destroy(e);
}

static void turning_camera(void)
{
    /* A camera turning +2 deg of yaw per frame over a static scene (ground, walls all round):
    ** the flow of a pure rotation is depth-free. The ray (1, a, -b) now was, in the previous
    ** camera's frame, (cos t - a sin t, sin t + a cos t, -b): u_prev = cx + f (sin t + a cos t)
    ** / (cos t - a sin t), v_prev = cy + f b / (cos t - a sin t). Turning right moves the
    ** scene left: x < 0. */
    const char *scene =
        "settings: {fixed_delta_seconds: 0.05}\n"
        "actors:\n"
        "  - {blueprint: static.ground}\n"
        "  - {blueprint: static.building, transform: {location: [30, 0, 0]}, attributes: {extent: \"1,40,60\"}}\n"
        "  - {blueprint: static.building, transform: {location: [-30, 0, 0]}, attributes: {extent: \"1,40,60\"}}\n"
        "  - {blueprint: static.building, transform: {location: [0, 30, 0]}, attributes: {extent: \"40,1,60\"}}\n"
        "  - {blueprint: static.building, transform: {location: [0, -30, 0]}, attributes: {extent: \"40,1,60\"}}\n"
        "  - {name: eye, blueprint: vehicle.sedan, transform: {location: [0, 0, 0]}, attributes: {extent: \"0.2,0.2,0.1\", center_of_mass_height: 0.05}}\n"
        "sensors:\n"
        "  - {name: flow, blueprint: sensor.camera.optical_flow, attach_to: eye, transform: {location: [0, 0, 3]},\n"
        "     attributes: {image_size_x: 200, image_size_y: 120, fov: 90}}\n";
    capture c;
    sn_error err = {0};
    sn_engine *e = open_scene(scene, 2, &c, &err);
    CHECK(e != NULL, "%s", err.msg);
    if (!e)
        return;
    uint32_t eye = sn_engine_find_actor(e, "eye");
    CHECK(sn_engine_set_simulate_physics(e, eye, false, &err) == SN_OK, "%s", err.msg);
    sn_transform t0 = {{0, 0, 0}, {0, 10, 0}};
    sn_engine_set_transform(e, eye, &t0, &err);
    const pinhole p = make_pinhole(200, 120, 90);
    double worst = 0, th = 2 * M_PI / 180;
    int left = 0, n = 0;
    for (int k = 1; k <= 3; k++) {
        sn_transform t = {{0, 0, 0}, {0, 10 + 2.0 * k, 0}};
        sn_engine_set_target_transform(e, eye, &t, &err);
        if (sn_engine_step(e, &err) || c.n != (size_t)k) {
            CHECK(false, "step %d: %s", k, err.msg);
            break;
        }
        for (uint32_t y = 0; y < 120; y++)
            for (uint32_t x = 0; x < 200; x++) {
                double a = (x + 0.5 - p.cx) / p.f, b = (y + 0.5 - p.cy) / p.f;
                double den = cos(th) - a * sin(th);
                double up = p.cx + p.f * (sin(th) + a * cos(th)) / den, vp = p.cy + p.f * b / den, fx, fy;
                carla_flow(&p, x, y, up, vp, &fx, &fy);
                const float *got = flow_of(&c) + 2 * ((size_t)y * 200 + x);
                worst = fmax(worst, fmax(fabs(got[0] - fx) * p.W / 2, fabs(got[1] - fy) * p.H / 2));
                left += got[0] < 0;
                n++;
            }
    }
    CHECK(n == 3 * 200 * 120, "pixels compared: %d", n);
    CHECK(left == n, "turning right, everything moves left: %d of %d", left, n);
    CHECK(worst < 1e-3, "rotation flow off by %g px", worst);
    tu_image_free(&c);
    sn_engine_destroy(e);
}

static void still(void)
{
    /* Static props, the ground and a camera standing still: every value is 0. */
    capture c;
    sn_error err = {0};
    size_t nonzero;
    sn_engine *e;
    const char *props =
        "actors:\n"
        "  - {blueprint: static.ground}\n"
        "  - {blueprint: static.prop.box, transform: {location: [10, 1, 1]}, attributes: {extent: \"1,1,1\"}}\n"
        "  - {blueprint: static.prop.sphere, transform: {location: [8, -2, 1]}, attributes: {radius: 1}}\n"
        "sensors:\n"
        "  - {name: flow, blueprint: sensor.camera.optical_flow, transform: {location: [0, 0, 1.5]},\n"
        "     attributes: {image_size_x: 160, image_size_y: 100}}\n";
    e = open_scene(props, 2, &c, &err);
    CHECK(e != NULL, "%s", err.msg);
    if (!e)
        return;
    CHECK(sn_engine_run(e, 3, &err) == SN_OK, "%s", err.msg);
    nonzero = 0;
    for (size_t i = 0; c.raw && i < (size_t)160 * 100 * 2; i++)
        nonzero += flow_of(&c)[i] != 0;
    CHECK(c.n == 3 && c.raw && nonzero == 0, "a still scene and camera: %zu non-zero values", nonzero);
    tu_image_free(&c);
    sn_engine_destroy(e);
}

static void threads(void)
{
    /* A car driving off under physics past a camera on another: the same bytes at 1 and 2 threads. */
    const char *scene =
        "actors:\n"
        "  - {blueprint: static.ground}\n"
        "  - {blueprint: static.building, transform: {location: [25, 0, 0]}, attributes: {extent: \"1,20,6\"}}\n"
        "  - {name: car, blueprint: vehicle.sedan, transform: {location: [10, -4, 0.3], rotation: [0, 60, 0]},\n"
        "     control: {throttle: 0.8}}\n"
        "  - {name: hero, blueprint: vehicle.sedan, transform: {location: [0, 0, 0.3]}, control: {throttle: 0.4, steer: 0.2}}\n"
        "sensors:\n"
        "  - {name: flow, blueprint: sensor.camera.optical_flow, attach_to: hero, transform: {location: [0.5, 0, 1.6]},\n"
        "     attributes: {image_size_x: 200, image_size_y: 150}}\n";
    float *runs[2] = {NULL, NULL};
    size_t bytes[2] = {0, 0};
    for (int t = 0; t < 2; t++) {
        capture c;
        sn_error err = {0};
        sn_engine *e = open_scene(scene, t + 1, &c, &err);
        CHECK(e != NULL, "%s", err.msg);
        if (!e)
            return;
        CHECK(sn_engine_run(e, 12, &err) == SN_OK, "%s", err.msg);
        runs[t] = (float *)c.raw;
        bytes[t] = c.size;
        sn_engine_destroy(e);
    }
    size_t nonzero = 0;
    for (size_t i = 0; runs[0] && i < bytes[0] / 4; i++)
        nonzero += runs[0][i] != 0;
    CHECK(bytes[0] == (size_t)200 * 150 * 8 && nonzero > bytes[0] / 8, "a moving view: %zu non-zero values", nonzero);
    CHECK(bytes[0] == bytes[1] && runs[0] && runs[1] && !memcmp(runs[0], runs[1], bytes[0]),
          "the same bytes at 1 and 2 threads");
    free(runs[0]), free(runs[1]);
}

static void bad_attributes(void)
{
    static const char *const bad[] = {"fov: 0", "fov: 180", "image_size_x: 0", "image_size_y: 20000", "sensor_tick: -1",
                                      "lens_x_size: 2", "fov: \"wide\"", "colour: 3"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char scene[512];
        snprintf(scene, sizeof scene,
                 "sensors:\n  - {name: flow, blueprint: sensor.camera.optical_flow, attributes: {%s}}\n", bad[i]);
        capture c;
        sn_error err = {0};
        sn_engine *e = open_scene(scene, 1, &c, &err);
        sn_status st = e ? sn_engine_run(e, 1, &err) : err.status;
        CHECK(!e || st != SN_OK, "'%s' accepted", bad[i]);
        CHECK(err.msg[0] != 0, "'%s' refused with a sentence", bad[i]);
        sn_engine_destroy(e);
        tu_image_free(&c);
    }
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: test_optical_flow TMPDIR PLUGINDIR\n");
        return 2;
    }
    dir = argv[1];
    plugins = argv[2];
    moving_box();
    turning_camera();
    still();
    threads();
    bad_attributes();
    return CHECK_DONE();
}
