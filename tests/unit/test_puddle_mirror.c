/* Puddles mirror the scene (engine/render/reflect.c, docs/rendering.md "Rain"). A camera 1.5 m
** up looks along +x over a flat road under a puddle; a red box stands beyond it, lit from behind
** the camera. The reflection of box point B is where the camera sees the mirrored point
** B' = (x, y, -z): (1) at the pixel of B' for the box's face centre, the puddle turns towards the
** box's red against the same road without the box (which mirrors the sky there); (2) at the pixel
** of B' for a point 1 m above the box, the reflected ray passes over it: the same bytes with and
** without the box; (3) wet road without puddles (wetness, no deposits) mirrors only the sky: the
** face centre's mirrored pixel is the same with and without the box; (4) the same bytes at 1, 2
** and 3 threads, and with 2x2 samples the reflection is there too. argv[1]: temp folder. */
#include "../../engine/render/puddles.h"
#include "../../engine/render/render.h"
#include "../../engine/sim/engine.h"
#include "../check.h"
#include "../testutil.h"

#include <math.h>

enum { W = 320, H = 180 };
static const double EZ = 1.5, BOX_H = 2.0, DIST = 10.0; /* eye height; box height; eye to box face */

static sn_engine *scene(const char *tmp, double bx, double by, bool box, const char *wet)
{
    char text[2048];
    int n = snprintf(text, sizeof text,
                     "settings: {lighting: {shadows: false}, weather: {preset: ClearNoon, cloudiness: 0, "
                     "sun_azimuth_angle: 180, sun_altitude_angle: 30, %s}}\n"
                     "actors:\n"
                     "  - {name: ground, blueprint: static.ground, attributes: {semantic_tag: Roads, color: \"90,90,90\"}}\n",
                     wet);
    if (box)
        snprintf(text + n, sizeof text - (size_t)n,
                 "  - {name: box, blueprint: static.prop.box, transform: {location: [%.3f, %.3f, %.3f]}, attributes: "
                 "{extent: \"0.5,1.5,%.3f\", color: \"220,20,20\"}}\n",
                 bx + 0.5, by, BOX_H / 2, BOX_H / 2);
    sn_error err = {0};
    sn_engine_options o = {.plugin_dir = "", .quiet_plugins = true};
    sn_engine *e = sn_engine_create(&o, &err);
    if (!e || sn_engine_load_scene(e, tu_write(tmp, "puddle_mirror.yaml", text), &err) || sn_engine_step(e, &err)) {
        fprintf(stderr, "FAIL: %s\n", err.msg);
        exit(1);
    }
    return e;
}

static void render(sn_engine *e, sn_vec3 eye, int threads, int ss, uint8_t *bgra)
{
    sn_renderer *r = sn_renderer_create(threads);
    CHECK(r != NULL, "a renderer");
    sn_camera cam = {sizeof cam, {eye, {0, 0, 0}}, W, H, 90, 0.1, 1000};
    sn_image img = {sizeof img, NULL, bgra, NULL, NULL, (uint32_t)ss};
    sn_error err = {0};
    CHECK(!sn_render(r, &e->world, 1.0, &e->lighting, &cam, &img, &err), "render: %s", err.msg);
    sn_renderer_destroy(r);
}

/* The pixel where a camera at eye looking along +x (level) sees point p. */
static void pixel_of(sn_vec3 eye, sn_vec3 p, int *x, int *y)
{
    sn_mat3 R = sn_mat3_from_rotation((sn_rotation){0, 0, 0});
    sn_vec3 d = sn_v3_sub(p, eye);
    double f = W / (2 * tan(45 * SN_DEG)), fw = sn_v3_dot(d, sn_mat3_col(&R, 0));
    *x = (int)floor(W / 2.0 + f * sn_v3_dot(d, sn_mat3_col(&R, 1)) / fw);
    *y = (int)floor(H / 2.0 - f * sn_v3_dot(d, sn_mat3_col(&R, 2)) / fw);
}

/* Where the line from eye to the mirrored point q' meets the ground. */
static sn_vec3 ground_hit(sn_vec3 eye, sn_vec3 q)
{
    sn_vec3 m = sn_v3(q.x, q.y, -q.z);
    return sn_v3_add(eye, sn_v3_scale(sn_v3_sub(m, eye), eye.z / (eye.z + q.z)));
}

int main(int argc, char **argv)
{
    const char *tmp = argc > 1 ? argv[1] : "/tmp";
    /* a place where both mirror points lie in full puddle (the puddles are a fixed function of x, y) */
    sn_vec3 eye = {0}, face = {0}, above = {0};
    bool found = false;
    for (double y = 0; y < 400 && !found; y += 1.0)
        for (double x = 0; x < 400 && !found; x += 1.0) {
            eye = sn_v3(x, y, EZ), face = sn_v3(x + DIST, y, BOX_H / 2), above = sn_v3(x + DIST, y, BOX_H + 1);
            sn_vec3 g1 = ground_hit(eye, face), g2 = ground_hit(eye, above);
            found = true;
            for (int k = -2; k <= 2 && found; k++) /* a few cm around each, so the pixel's own point is inside */
                found = sn_puddle(1, sn_v3(g1.x + 0.05 * k, g1.y + 0.05 * k, 0)) == 1 &&
                        sn_puddle(1, sn_v3(g2.x + 0.05 * k, g2.y + 0.05 * k, 0)) == 1;
        }
    CHECK(found, "a spot under full puddle at (%.0f, %.0f)", eye.x, eye.y);
    int fx, fy, ax, ay;
    pixel_of(eye, sn_v3(face.x, face.y, -face.z), &fx, &fy);
    pixel_of(eye, sn_v3(above.x, above.y, -above.z), &ax, &ay);
    printf("eye (%.0f, %.0f): the face centre mirrored at pixel (%d, %d), 1 m above the box at (%d, %d)\n", eye.x,
           eye.y, fx, fy, ax, ay);

    static uint8_t with[W * H * 4], without[W * H * 4], t2[W * H * 4], t3[W * H * 4];
    const char *puddles = "precipitation_deposits: 100, wetness: 0";
    sn_engine *eb = scene(tmp, face.x, face.y, true, puddles), *en = scene(tmp, face.x, face.y, false, puddles);
    render(eb, eye, 1, 1, with);
    render(en, eye, 1, 1, without);
    const uint8_t *a = with + 4 * (fy * W + fx), *b = without + 4 * (fy * W + fx); /* B, G, R */
    printf("face's mirrored pixel: with the box RGB %d,%d,%d, without %d,%d,%d\n", a[2], a[1], a[0], b[2], b[1], b[0]);
    CHECK(a[0] + 25 < b[0] && (a[2] - a[1]) > (b[2] - b[1]) + 25,
          "the puddle mirrors the red box at the mirrored pixel: blue %d -> %d, red minus green %d -> %d", b[0], a[0],
          b[2] - b[1], a[2] - a[1]);
    const uint8_t *a2 = with + 4 * (ay * W + ax), *b2 = without + 4 * (ay * W + ax);
    CHECK(memcmp(a2, b2, 4) == 0, "1 m above the box the reflected ray misses it: the sky's mirror, the same bytes "
          "(%d,%d,%d and %d,%d,%d)", a2[2], a2[1], a2[0], b2[2], b2[1], b2[0]);
    /* the reflection sits where the mirror puts it: the rows between the mirrored box bottom
    ** (the contact line) and a little above its mirrored top are where the box's red shows */
    int redder_rows = 0, far_rows_changed = 0, tx, ty, bxp, byp;
    pixel_of(eye, sn_v3(face.x, face.y, -BOX_H), &tx, &ty);
    pixel_of(eye, sn_v3(face.x, face.y, 0), &bxp, &byp);
    for (int y = byp + 1; y < H; y++) {
        const uint8_t *p = with + 4 * (y * W + fx), *q = without + 4 * (y * W + fx);
        bool changed = memcmp(p, q, 3) != 0;
        if (y > byp + 1 && y < ty - 1)
            redder_rows += p[0] + 10 < q[0];
        if (y > ty + 3)
            far_rows_changed += changed;
    }
    CHECK(redder_rows >= (ty - byp - 3) * 8 / 10,
          "the box's mirror image spans rows %d..%d of column %d (%d of them bluer-less)", byp, ty, fx, redder_rows);
    CHECK(far_rows_changed == 0, "below the mirrored box top (rows > %d) the puddle is the same without it (%d rows "
          "differ)", ty + 3, far_rows_changed);

    render(eb, eye, 2, 1, t2);
    render(eb, eye, 3, 1, t3);
    CHECK(memcmp(with, t2, sizeof with) == 0 && memcmp(with, t3, sizeof with) == 0,
          "the same bytes at 1, 2 and 3 threads");
    render(eb, eye, 2, 2, t2);
    render(en, eye, 2, 2, t3);
    a = t2 + 4 * (fy * W + fx), b = t3 + 4 * (fy * W + fx);
    CHECK(a[0] + 25 < b[0], "with 2x2 samples the box is mirrored too: blue %d -> %d", b[0], a[0]);
    sn_engine_destroy(eb), sn_engine_destroy(en);

    /* wet road, no puddles: the sky alone is mirrored */
    const char *wet = "precipitation_deposits: 0, wetness: 100";
    eb = scene(tmp, face.x, face.y, true, wet), en = scene(tmp, face.x, face.y, false, wet);
    render(eb, eye, 2, 1, with);
    render(en, eye, 2, 1, without);
    CHECK(memcmp(with + 4 * (fy * W + fx), without + 4 * (fy * W + fx), 4) == 0,
          "without puddles the wet road mirrors the sky only: the face's mirrored pixel is the same with the box");
    sn_engine_destroy(eb), sn_engine_destroy(en);
    return CHECK_DONE();
}
