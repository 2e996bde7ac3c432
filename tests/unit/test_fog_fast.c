/* Fog's single-precision batch (shade.h sn_fog_transmittance_fast, the renderer's default for
** surfaces) against the exact double-precision sn_fog_transmittance: (1) the transmittance itself
** on random points under several fogs (thin, CARLA's ClearNoon; thick with a steep falloff; no
** falloff; a fog that begins far away), rays near the horizontal (the series branch, and its edge
** |f dz (1 - s)| about 0.5) and points
** before the fog's start included: |T_fast - T_exact| <= 2e-6; (2) whole images: a street of
** buildings and cars in thick fog rendered both ways (sn_renderer_set_exact_shading), one sample and
** 2x2 samples a pixel: per channel the largest difference is at most 1 (a byte whose exact value
** lies within 2e-6 x 255 of a rounding boundary), the mean under 0.002, and the fog does show
** (the image differs from the same one without fog); (3) the sky's batch (sn_shade_sky_fast)
** against sn_shade_sky, byte for byte within 1. argv[1]: temp folder. */
#include "../../engine/render/render.h"
#include "../../engine/render/lanes.h"
#include "../../engine/render/shade.h"
#include "../../engine/render/shade_fast.h"
#include "../../engine/sim/engine.h"
#include "../check.h"
#include "../testutil.h"

#include <math.h>
#include <string.h>

static uint64_t rng = 88172645463325252ull;
static uint64_t rng2 = 2463534242ull; /* the later cases', so the first ones' points stay as they were */
static double uni_from(uint64_t *s) /* xorshift64, 0..1 */
{
    *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
    return (double)(*s >> 11) * (1.0 / 9007199254740992.0);
}
static double uni(void) { return uni_from(&rng); }
static double uni2(void) { return uni_from(&rng2); }

static int wide_checked; /* fogs whose eight lanes were compared with four */

static void transmittance_cases(void)
{
    /* density (%), distance (m), falloff */
    const double fogs[][3] = {{2, 0.75, 0.1}, {60, 5, 0.4}, {30, 0, 0}, {100, 0.2, 2}, {10, 40, 0.05}, {0.5, 2, 1}};
    enum { N = 4096 };
    static float dx[N], dy[N], dz[N], T[N];
    static sn_vec3 p[N];
    for (size_t c = 0; c < sizeof fogs / sizeof *fogs; c++) {
        sn_lighting l;
        sn_lighting_default(&l);
        l.weather.fog_density = fogs[c][0], l.weather.fog_distance = fogs[c][1], l.weather.fog_falloff = fogs[c][2];
        sn_shade_env e;
        sn_shade_env_init(&e, &l);
        CHECK(e.fog_k > 0, "fog %zu is on", c);
        sn_vec3 eye = sn_v3(10 * uni() - 5, 10 * uni() - 5, 0.5 + 30 * uni());
        for (int i = 0; i < N; i++) {
            double r = i % 7 == 0 ? fogs[c][1] * 1.2 * uni() : 0.1 + 400 * uni() * uni(); /* some before the fog */
            double az = 2 * M_PI * uni(), el = i % 5 == 0 ? 1e-3 * (uni() - 0.5) : (uni() - 0.6) * 1.4;
            if (i % 11 == 0) /* the old series branch's edge: f |dz| about 0.01 */
                el = fogs[c][2] > 0 ? asin(fmin(1, 0.01 / (fogs[c][2] * r))) * (uni() < 0.5 ? -1 : 1) : el;
            if (i % 13 == 0) /* the series branch's edge now: f |dz| (1 - s) about 0.5 */
                el = fogs[c][2] > 0 && r > fogs[c][1] ? asin(fmin(1, (0.45 + 0.1 * uni2()) / (fogs[c][2] * (r - fogs[c][1])))) *
                                                            (uni2() < 0.5 ? -1 : 1)
                                                      : el;
            sn_vec3 d = sn_v3(r * cos(el) * cos(az), r * cos(el) * sin(az), r * sin(el));
            dx[i] = (float)d.x, dy[i] = (float)d.y, dz[i] = (float)d.z;
            /* the exact path sees the same point the renderer's float offset stands for */
            p[i] = sn_v3_add(eye, d);
        }
        sn_fog_transmittance_fast(&e, eye, dx, dy, dz, T, N);
        /* eight lanes (AVX2, where the CPU has it) and four give the same bits, at any count
        ** (the multiple of 8 in eight lanes, the rest in four) */
        if (sn_lanes_set_wide(true)) {
            static float T4[N];
            sn_lanes_set_wide(false);
            sn_fog_transmittance_fast(&e, eye, dx, dy, dz, T4, N);
            CHECK(memcmp(T, T4, sizeof T) == 0, "fog %zu: eight lanes give four lanes' bits", c);
            sn_lanes_set_wide(true);
            static float T13[16];
            sn_fog_transmittance_fast(&e, eye, dx + 3, dy + 3, dz + 3, T13, 13);
            CHECK(memcmp(T13, T + 3, 13 * sizeof *T) == 0, "fog %zu: 13 points, eight lanes and four", c);
            wide_checked++;
        }
        double worst = 0, sum = 0, lowest = 1;
        for (int i = 0; i < N; i++) {
            double ex = sn_fog_transmittance(&e, eye, p[i]), d = fabs(T[i] - ex);
            worst = d > worst ? d : worst, sum += d, lowest = ex < lowest ? ex : lowest;
        }
        printf("fog %zu (density %g, distance %g, falloff %g): |T_fast - T_exact| max %.2e mean %.2e (T down to %.3g)\n", c,
               fogs[c][0], fogs[c][1], fogs[c][2], worst, sum / N, lowest);
        CHECK(worst <= 2e-6, "fog %zu: the fast transmittance within 2e-6 of the exact one (max %.3g)", c, worst);
    }
}

/* The sky's batch (sn_shade_sky_fast, its fog by fog_exp.h's polynomials) against the exact
** sn_shade_sky on random directions under the same fogs, the sun high and low, rays near the
** horizon (where e^-tau leaves its Taylor range) and a sky without fog included: every byte within 1 of the exact one
** but where the sun's disc edge (g = 0.99996) lies within float error; eight lanes = four. */
/* The eye high in a thinning fog, points below the fog's base (rev53's sweep: float's range
** lost T, 1 where the exact T is about 0): the fast path must stay within the bound there too. */
static void high_eye_cases(void)
{
    enum { N = 512 };
    static float dx[N], dy[N], dz[N], T[N];
    const double heights[] = {187, 60, 40}; /* over the exact path's switch (60/f - start), and under it */
    for (size_t h = 0; h < sizeof heights / sizeof *heights; h++) {
        sn_lighting l;
        sn_lighting_default(&l);
        l.weather.fog_density = 60, l.weather.fog_distance = 5, l.weather.fog_falloff = 1.04;
        sn_shade_env e;
        sn_shade_env_init(&e, &l);
        sn_vec3 eye = sn_v3(0, 0, heights[h]);
        double worst = 0;
        int fogged = 0;
        for (int i = 0; i < N; i++) {
            double az = 2 * M_PI * uni2(), r = 20 + 300 * uni2();
            double zp = -15 + (eye.z + 30) * uni2(); /* the point's height: some below z = 0 */
            double dzv = zp - eye.z, horiz = sqrt(fmax(0, r * r - dzv * dzv));
            dx[i] = (float)(horiz * cos(az)), dy[i] = (float)(horiz * sin(az)), dz[i] = (float)dzv;
        }
        sn_fog_transmittance_fast(&e, eye, dx, dy, dz, T, N);
        for (int i = 0; i < N; i++) {
            double ex = sn_fog_transmittance(&e, eye, sn_v3(eye.x + dx[i], eye.y + dy[i], eye.z + dz[i]));
            worst = fmax(worst, fabs(T[i] - ex)), fogged += ex < 0.5;
        }
        printf("eye %g m up, falloff 1.04: |T_fast - T_exact| max %.2e (%d of %d points with T < 0.5)\n", eye.z, worst,
               fogged, N);
        CHECK(fogged > 0, "eye %g m: some points lie in thick fog (the case is meaningful)", eye.z);
        CHECK(worst <= 2e-6, "eye %g m up: the fast transmittance within 2e-6 of the exact one (max %.3g)", eye.z, worst);
    }
}

static void sky_cases(void)
{
    const double fogs[][3] = {{2, 0.75, 0.1}, {60, 5, 0.4}, {30, 0, 0}, {100, 0.2, 2}, {10, 40, 0.05}, {0.5, 2, 1}, {0, 0, 0}};
    static sn_skybuf b, b4;
    static sn_vec3 d[SN_GBUF_N];
    for (size_t c = 0; c < sizeof fogs / sizeof *fogs; c++)
        for (int sun = 0; sun < 2; sun++) {
            sn_lighting l;
            sn_lighting_default(&l);
            l.weather.fog_density = fogs[c][0], l.weather.fog_distance = fogs[c][1], l.weather.fog_falloff = fogs[c][2];
            l.weather.sun_altitude_angle = sun ? 8 : 50, l.weather.cloudiness = 5;
            sn_shade_env e;
            sn_shade_env_init(&e, &l);
            sn_vec3 eye = sn_v3(0, 0, 0.5 + 30 * uni2());
            int worst = 0, off = 0;
            for (int rep = 0; rep < 16; rep++) {
                b.n = SN_GBUF_N - (uint32_t)rep % 5; /* counts not a multiple of 8 too */
                for (uint32_t i = 0; i < b.n; i++) {
                    double az = 2 * M_PI * uni2(), el = i % 3 ? asin(uni2() * 1.6 - 0.6) : 0.05 * (uni2() - 0.3);
                    if (i % 17 == 0) /* around the sun */
                        el = asin(e.sun[2]) + 0.2 * (uni2() - 0.5), az = atan2(e.sun[1], e.sun[0]) + 0.2 * (uni2() - 0.5);
                    double len = 0.5 + 2 * uni2(); /* directions of any length */
                    d[i] = sn_v3(cos(el) * cos(az), cos(el) * sin(az), sin(el));
                    b.dx[i] = (float)(len * d[i].x), b.dy[i] = (float)(len * d[i].y), b.dz[i] = (float)(len * d[i].z);
                }
                b4 = b;
                sn_shade_sky_fast(&e, eye, &b);
                if (sn_lanes_set_wide(true)) {
                    sn_lanes_set_wide(false);
                    sn_shade_sky_fast(&e, eye, &b4);
                    sn_lanes_set_wide(true);
                    CHECK(memcmp(b.rgb, b4.rgb, b.n * sizeof *b.rgb) == 0, "sky %zu: eight lanes give four lanes' bytes", c);
                }
                for (uint32_t i = 0; i < b.n; i++) {
                    uint8_t ex[3];
                    sn_vec3 u = sn_v3_norm(sn_v3(b.dx[i], b.dy[i], b.dz[i]));
                    sn_shade_sky(&e, eye, u, ex);
                    double g = e.sun[0] * u.x + e.sun[1] * u.y + e.sun[2] * u.z;
                    if (fabs(g - 0.99996) < 1e-5)
                        continue; /* the disc's edge: a step */
                    for (int k = 0; k < 3; k++) { /* the batch's bytes are the image's B, G, R, 255 */
                        int dd = abs((int)b.rgb[i][2 - k] - (int)ex[k]);
                        worst = dd > worst ? dd : worst, off += dd != 0;
                    }
                    CHECK(b.rgb[i][3] == 255, "sky %zu: the batch's fourth byte is alpha 255", c);
                }
            }
            printf("sky, fog %zu, sun %s: max |fast - exact| %d, %d of %d bytes differ\n", c, sun ? "low" : "high", worst, off,
                   16 * 3 * (SN_GBUF_N - 2));
            CHECK(worst <= 1, "sky, fog %zu: every byte within 1 of the exact sky (%d)", c, worst);
        }
}

enum { W = 320, H = 180 };

static sn_engine *street(const char *tmp, const char *weather)
{
    char text[4096];
    int n = snprintf(text, sizeof text,
                     "settings: {weather: %s}\n"
                     "actors:\n"
                     "  - {name: ground, blueprint: static.ground, attributes: {semantic_tag: Roads}}\n",
                     weather);
    for (int i = 0; i < 8; i++) /* buildings both sides, 10 to 150 m ahead; cars between */
        n += snprintf(text + n, sizeof text - (size_t)n,
                      "  - {blueprint: static.building, transform: {location: [%d, %d, 0]}, attributes: {extent: "
                      "\"6,4,%d\"}}\n"
                      "  - {blueprint: vehicle.sedan, transform: {location: [%d, %d, 0.1], rotation: [0, %d, 0]}}\n",
                      10 + 20 * i, i % 2 ? 12 : -12, 6 + 3 * i, 8 + 18 * i, i % 2 ? 2 : -2, 30 * i);
    sn_error err = {0};
    sn_engine_options o = {.plugin_dir = "", .quiet_plugins = true};
    sn_engine *e = sn_engine_create(&o, &err);
    if (!e || sn_engine_load_scene(e, tu_write(tmp, "fog_fast.yaml", text), &err) || sn_engine_step(e, &err)) {
        fprintf(stderr, "FAIL: %s\n", err.msg);
        exit(1);
    }
    return e;
}

static void render(sn_engine *e, bool exact, int ss, uint8_t *bgra)
{
    sn_renderer *r = sn_renderer_create(2);
    CHECK(r != NULL, "a renderer");
    sn_renderer_set_exact_shading(r, exact);
    sn_camera cam = {sizeof cam, {{-2, 0, 2.4}, {-4, 3, 0}}, W, H, 90, 0.1, 1000};
    sn_image img = {sizeof img, NULL, bgra, NULL, NULL, (uint32_t)ss};
    sn_error err = {0};
    CHECK(!sn_render(r, &e->world, 1.0, &e->lighting, &cam, &img, &err), "render: %s", err.msg);
    sn_renderer_destroy(r);
}

static void images(const char *tmp)
{
    /* fog's fast path alone: every pixel of a run shaded (the half runs' own bound is
    ** tests/integration/test_shade_half.c's; this ground is asphalt, whose far grain they smooth) */
    setenv("SENSIM_EXACT_HALF", "1", 1);
    static uint8_t fast[W * H * 4], exact[W * H * 4], clear[W * H * 4];
    const char *fogs[] = {"{preset: ClearNoon, fog_density: 60, fog_distance: 5, fog_falloff: 0.4}",
                          "{preset: CloudyNoon, fog_density: 30, fog_falloff: 0}", "ClearNoon"};
    for (int f = 0; f < 3; f++) {
        sn_engine *e = street(tmp, fogs[f]);
        for (int ss = 1; ss <= 2; ss++) {
            render(e, false, ss, fast);
            render(e, true, ss, exact);
            for (int c = 0; c < 3; c++) {
                int worst = 0;
                long sum = 0, off = 0;
                for (int i = 0; i < W * H; i++) {
                    int d = abs((int)fast[4 * i + c] - (int)exact[4 * i + c]);
                    worst = d > worst ? d : worst, sum += d, off += d != 0;
                }
                double mean = (double)sum / (W * H);
                printf("%s, %dx%d samples, channel %c: max |fast - exact| %d, mean %.5f (%ld pixels differ)\n", fogs[f],
                       ss, ss, "bgr"[c], worst, mean, off);
                CHECK(worst <= 1, "channel %d: fast fog within one level of the exact (%d)", c, worst);
                CHECK(mean < 0.002, "channel %d: mean difference %.4f under 0.002", c, mean);
            }
        }
        sn_engine_destroy(e);
    }
    /* the fog shows: the first scene without its fog differs widely */
    sn_engine *e = street(tmp, "{preset: ClearNoon, fog_density: 0}");
    render(e, true, 1, clear);
    sn_engine_destroy(e);
    e = street(tmp, fogs[0]);
    render(e, false, 1, fast);
    sn_engine_destroy(e);
    long changed = 0;
    for (int i = 0; i < W * H * 4; i++)
        changed += abs((int)fast[i] - (int)clear[i]) > 8;
    CHECK(changed > W * H / 4, "thick fog changes the image (%ld bytes by more than 8)", changed);
    unsetenv("SENSIM_EXACT_HALF");
}

/* The fast path's fog anchors (shade_pairs.c) and half runs (render.c's half_runs) follow
** sn_renderer_set_exact_shading as it stands at the render, not SENSIM_EXACT_SHADING as it stood
** when the renderer was made: a renderer made under it and switched to the fast path draws the
** fast path's bytes. */
static void anchors_follow_switch(const char *tmp)
{
    static uint8_t plain[W * H * 4], switched[W * H * 4];
    sn_engine *e = street(tmp, "{preset: ClearNoon, fog_density: 60, fog_distance: 5, fog_falloff: 0.4}");
    render(e, false, 2, plain);
    setenv("SENSIM_EXACT_SHADING", "1", 1);
    render(e, false, 2, switched); /* made under the variable, then set to the fast path */
    unsetenv("SENSIM_EXACT_SHADING");
    sn_engine_destroy(e);
    CHECK(!memcmp(plain, switched, sizeof plain), "switched to the fast path: the fast path's bytes, anchors and half runs included");
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return fprintf(stderr, "usage: test_fog_fast TMP\n"), 2;
    transmittance_cases();
    high_eye_cases();
    sky_cases();
    printf("eight lanes against four: %d fogs compared (0: this CPU has no AVX2)\n", wide_checked);
    images(argv[1]);
    anchors_follow_switch(argv[1]);
    return CHECK_DONE();
}
