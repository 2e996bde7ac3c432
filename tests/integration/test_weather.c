/*
** test_weather.c — CARLA's weather and the RGB image's light, through the public API and the
** camera plugin, against values derived here:
**   - every preset by name equals its fields (CARLA 0.9.15's table, typed out again below), in
**     the scene and through sn_engine_set_weather; bad names and values are refused;
**   - a box's shadow under a known sun ends where the sun's projection of the box's top edge
**     lands, to one pixel column;
**   - fog attenuates a wall at known distances as docs/rendering.md's formula says, with and
**     without height falloff, while depth stays byte-identical;
**   - anti-aliased edges of a tilted box have intermediate colours while the semantic image of
**     the same frame holds only exact tags;
**   - RGB with shadows, fog and anti-aliasing is byte-identical at 1, 2 and 3 threads;
**   - the recorder records weather changes and replay applies them; a format 1.0 file still
**     reads and replays.
** argv[1]: temp folder, argv[2]: plugin folder (build/plugins: camera and recorder), argv[3]: a
** recording of format 1.0 (tests/fuzz/corpus/small.sensimrec).
*/
#include "../check.h"
#include "../testutil.h"

#include <sensim/sensim.h>

static const char *dir, *plugins;

typedef tu_image capture; /* the last image of a sensor (testutil.h) */

static sn_engine *engine(int threads)
{
    sn_error err = {0};
    sn_engine_options o = {.plugin_dir = plugins, .quiet_plugins = true, .threads = threads};
    sn_engine *e = sn_engine_create(&o, &err);
    CHECK(e, "engine: %s", err.msg);
    return e;
}

/* Runs `scene` one frame with `threads` workers; captures up to two sensors (s2 may be NULL). */
static bool shoot2(const char *scene, int threads, const char *s1, capture *c1, const char *s2, capture *c2)
{
    sn_error err = {0};
    sn_engine *e = engine(threads);
    memset(c1, 0, sizeof *c1);
    if (c2)
        memset(c2, 0, sizeof *c2);
    bool ok = e && !sn_engine_load_scene(e, tu_write(dir, "weather.yaml", scene), &err) &&
              !sn_engine_listen(e, s1, tu_on_image, c1, &err) && (!s2 || !sn_engine_listen(e, s2, tu_on_image, c2, &err)) &&
              !sn_engine_run(e, 1, &err);
    CHECK(ok, "%s", err.msg);
    sn_engine_destroy(e);
    return ok && c1->n == 1 && (!c2 || c2->n == 1);
}

static bool shoot(const char *scene, int threads, capture *c) { return shoot2(scene, threads, "cam", c, NULL, NULL); }

/* ---- presets ---- */

/* CARLA 0.9.15 (LibCarla/source/carla/rpc/WeatherParameters.cpp), typed out again. */
static const struct { const char *name; float v[14]; } carla[] = {
    {"ClearNoon", {5, 0, 0, 10, -1, 45, 2, 0.75f, 0.1f, 0, 1, 0.03f, 0.0331f, 0}},
    {"WetCloudySunset", {60, 0, 50, 10, -1, 15, 2, 0.75f, 0.1f, 0, 1, 0.03f, 0.0331f, 0}},
    {"HardRainNight", {100, 100, 90, 100, -1, -90, 100, 0.75f, 0.1f, 100, 1, 0.03f, 0.0331f, 0}},
    {"ClearNight", {5, 0, 0, 10, -1, -90, 60, 75, 1, 0, 1, 0.03f, 0.0331f, 0}},
    {"DustStorm", {100, 0, 0, 100, -1, 45, 2, 0.75f, 0.1f, 0, 1, 0.03f, 0.0331f, 100}},
};
static const char *const fields[14] = {
    "cloudiness", "precipitation", "precipitation_deposits", "wind_intensity", "sun_azimuth_angle",
    "sun_altitude_angle", "fog_density", "fog_distance", "fog_falloff", "wetness", "scattering_intensity",
    "mie_scattering_scale", "rayleigh_scattering_scale", "dust_storm"};

static bool scene_weather(const char *weather, sn_weather *out, char *err_out)
{
    char scene[2048];
    snprintf(scene, sizeof scene, "settings:\n  weather: %s\nactors: []\n", weather);
    sn_error err = {0};
    sn_engine *e = engine(1);
    bool ok = e && !sn_engine_load_scene(e, tu_write(dir, "w.yaml", scene), &err) && !sn_engine_get_weather(e, out, &err);
    if (err_out)
        snprintf(err_out, SN_ERROR_MAX, "%s", err.msg);
    sn_engine_destroy(e);
    return ok;
}

static void presets(void)
{
    for (size_t k = 0; k < sizeof carla / sizeof carla[0]; k++) {
        /* the same fields written out as a map, as decimals: rounded to float32 as CARLA's */
        char map[1024] = "{";
        for (int i = 0; i < 14; i++)
            snprintf(map + strlen(map), sizeof map - strlen(map), "%s%s: %.9g", i ? ", " : "", fields[i], carla[k].v[i]);
        strcat(map, "}");
        sn_weather by_name, by_fields, api;
        CHECK(scene_weather(carla[k].name, &by_name, NULL), "%s by name", carla[k].name);
        CHECK(scene_weather(map, &by_fields, NULL), "%s by fields", carla[k].name);
        CHECK(!memcmp(&by_name, &by_fields, sizeof by_name), "%s: the preset by name equals its fields", carla[k].name);
        const double *f = (const double *)(const void *)&by_name;
        for (int i = 0; i < 14; i++)
            CHECK(f[i] == (double)carla[k].v[i], "%s.%s = %g, CARLA's %g", carla[k].name, fields[i], f[i],
                  (double)carla[k].v[i]);
        CHECK(sn_weather_preset_get(carla[k].name, &api, NULL) == SN_OK && !memcmp(&api, &by_name, sizeof api),
              "%s: the API's preset equals the scene's", carla[k].name);
    }
    /* every preset the API lists is accepted by name in a scene and equals the API's */
    int n = 0;
    for (unsigned i = 0; sn_weather_preset_at(i); i++, n++) {
        sn_weather a, b;
        CHECK(sn_weather_preset_get(sn_weather_preset_at(i), &a, NULL) == SN_OK && scene_weather(sn_weather_preset_at(i), &b, NULL) &&
                  !memcmp(&a, &b, sizeof a), "preset %s", sn_weather_preset_at(i));
    }
    CHECK(n == 23, "CARLA 0.9.15 has Default and 22 presets: %d listed", n);
    /* a map over a preset changes only what it names */
    sn_weather w, base;
    sn_weather_preset_get("WetCloudySunset", &base, NULL);
    CHECK(scene_weather("{preset: WetCloudySunset, fog_density: 30}", &w, NULL), "preset plus a field");
    base.fog_density = 30;
    CHECK(!memcmp(&w, &base, sizeof w), "preset plus fog_density 30");

    char msg[SN_ERROR_MAX];
    CHECK(!scene_weather("SunnyDay", &w, msg), "an unknown preset is refused");
    CHECK_CONTAINS(msg, "unknown weather preset 'SunnyDay'");
    CHECK_CONTAINS(msg, "WetCloudySunset");
    CHECK(!scene_weather("{fog_density: 101}", &w, msg), "fog_density 101 is refused");
    CHECK_CONTAINS(msg, "w.yaml:2:");
    CHECK_CONTAINS(msg, "fog_density = 101: must be within [0, 100]");
    CHECK(!scene_weather("{fog: 1}", &w, msg), "an unknown field is refused");
    CHECK_CONTAINS(msg, "unknown key 'fog' in weather");

    /* the API: set, get, refuse */
    sn_error err = {0};
    sn_engine *e = engine(1);
    CHECK(e && sn_engine_load_scene(e, tu_write(dir, "w0.yaml", "actors: []\n"), &err) == SN_OK, "%s", err.msg);
    sn_weather set;
    sn_weather_preset_get("HardRainNoon", &set, NULL);
    CHECK(sn_engine_set_weather(e, &set, &err) == SN_OK && sn_engine_get_weather(e, &w, &err) == SN_OK &&
              !memcmp(&w, &set, sizeof w), "set_weather then get_weather: %s", err.msg);
    set.sun_altitude_angle = NAN;
    CHECK(sn_engine_set_weather(e, &set, &err) == SN_E_RANGE, "NaN altitude refused");
    CHECK_CONTAINS(err.msg, "set_weather: weather sun_altitude_angle");
    set.sun_altitude_angle = 45, set.wetness = -1;
    CHECK(sn_engine_set_weather(e, &set, &err) == SN_E_RANGE, "wetness -1 refused");
    CHECK(sn_engine_get_weather(e, &w, &err) == SN_OK && w.wetness == 0, "a refused weather leaves the old one");
    sn_engine_destroy(e);
}

/* ---- the warning about fields that are not rendered ---- */

static void on_log(sn_log_level level, const char *line, void *user)
{
    char *out = user;
    if (level == SN_LOG_WARN && strstr(line, "not rendered"))
        snprintf(out, 512, "%s", line);
}

/* The warning `weather` (a scene's value) gives when loaded, then after set_weather(api) if api. */
static void warned(const char *weather, const sn_weather *api, char out[512])
{
    char scene[1024];
    snprintf(scene, sizeof scene, "settings:\n  weather: %s\nactors: []\n", weather);
    sn_error err = {0};
    out[0] = 0;
    sn_engine_options o = {.plugin_dir = plugins, .quiet_plugins = true, .threads = 1, .log = on_log, .log_user = out};
    sn_engine *e = sn_engine_create(&o, &err);
    CHECK(e && sn_engine_load_scene(e, tu_write(dir, "warn.yaml", scene), &err) == SN_OK &&
              (!api || sn_engine_set_weather(e, api, &err) == SN_OK), "%s: %s", weather, err.msg);
    sn_engine_destroy(e);
}

static void unrendered_warning(void)
{
    char log[512];
    /* a preset by name, or over it only rendered fields: its own values are not the user's */
    for (unsigned i = 0; sn_weather_preset_at(i); i++) {
        warned(sn_weather_preset_at(i), NULL, log);
        CHECK(!log[0], "preset %s warns: %s", sn_weather_preset_at(i), log);
    }
    warned("{preset: HardRainNoon, fog_density: 30, sun_altitude_angle: -10}", NULL, log);
    CHECK(!log[0], "a preset with rendered fields changed warns: %s", log);
    warned("{cloudiness: 30}", NULL, log);
    CHECK(!log[0], "a rendered field alone warns: %s", log);
    /* a field set by hand warns, naming only what differs from the nearest preset */
    warned("{preset: HardRainNoon, scattering_intensity: 20}", NULL, log);
    CHECK_CONTAINS(log, "weather: scattering_intensity accepted and recorded but not rendered");
    warned("{dust_storm: 40, mie_scattering_scale: 10}", NULL, log);
    CHECK_CONTAINS(log, "weather: mie_scattering_scale, dust_storm accepted");
    warned("{preset: HardRainNoon, wind_intensity: 20, precipitation: 10}", NULL, log);
    CHECK(!log[0], "precipitation and wind_intensity are rendered (rain streaks): %s", log);
    /* the API: a preset (as Python's carla.WeatherParameters.DustStorm) is quiet, a changed field is not */
    sn_weather w;
    sn_weather_preset_get("DustStorm", &w, NULL);
    w.sun_altitude_angle = 10;
    warned("ClearNoon", &w, log);
    CHECK(!log[0], "set_weather(DustStorm with a lower sun) warns: %s", log);
    w.dust_storm = 50;
    warned("ClearNoon", &w, log);
    CHECK_CONTAINS(log, "weather: dust_storm accepted");
}

/* ---- shadows ---- */

/* Mean of the B, G, R bytes of pixel (x, y). */
static double lum(const capture *c, uint32_t x, uint32_t y)
{
    const uint8_t *p = c->raw + 4 * ((size_t)y * c->w + x);
    return (p[0] + p[1] + p[2]) / 3.0;
}

static bool shadow_scene(double altitude, bool shadows, uint32_t W, double H, double fov, capture *c)
{
    char scene[2048];
    snprintf(scene, sizeof scene,
             "settings: {lighting: {shadows: %s}, weather: {sun_azimuth_angle: 90, sun_altitude_angle: %g}}\n"
             "actors:\n"
             "  - {name: ground, blueprint: static.ground, attributes: {color: \"200,200,200\", texture: none, semantic_tag: Terrain}}\n"
             "  - {name: box, blueprint: static.prop.box, transform: {location: [0, 0, 1]}, attributes: {extent: \"1,1,1\", color: \"200,60,60\"}}\n"
             "sensors:\n"
             "  - {name: cam, blueprint: sensor.camera.rgb, transform: {location: [0, 0, %g], rotation: [-90, 0, 0]},"
             " attributes: {image_size_x: %u, image_size_y: %u, fov: %g, anti_aliasing: 1, enable_postprocess_effects: false}}\n",
             shadows ? "true" : "false", altitude, H, W, W, fov);
    return shoot(scene, 2, c);
}

static void shadow_edge(double altitude)
{
    /* A 2 x 2 x 2 m box on the ground at the origin; the sun towards +y at `altitude`; a camera
    ** 20 m up looking straight down (image columns grow with +y). The box's top edge at y = -1,
    ** z = 2 throws its shadow to y = -1 - 2 / tan(altitude) on the ground (less the bias's, below). */
    const double H = 20, fov = 60;
    const uint32_t W = 240;
    capture c;
    if (!shadow_scene(altitude, true, W, H, fov, &c))
        return;
    double f = W / (2 * tan(fov * M_PI / 360));
    /* the lookup looks from o above the ground (the normal-offset bias, docs/rendering.md
    ** "Shadows"): o = 2 cos(altitude) texels here (the map's axes: one along x, the other's part
    ** of the up vector cos(altitude)), a texel the view's 80 m slice, 2 * 80 * tan 30 deg wide,
    ** over 1024 with the map's 2 % margin; so the shadow ends o / tan(altitude) nearer the box */
    const double texel = 2 * 80 * tan(fov * M_PI / 360) * 1.02 / 1024, o = 2 * cos(altitude * M_PI / 180) * texel;
    double edge_y = -1 - (2 - o) / tan(altitude * M_PI / 180);
    double want = W / 2.0 + f * edge_y / H; /* the column boundary (continuous pixel coordinate) */
    uint32_t row = W / 2;
    double lit = lum(&c, 2, row), dark = lum(&c, (uint32_t)(W / 2.0 + f * (edge_y + 0.5) / H), row);
    CHECK(lit > dark + 40, "altitude %g: the ground lit %.1f, in the shadow %.1f", altitude, lit, dark);
    /* the column where the row crosses halfway from lit to shadowed, interpolated */
    double got = -1;
    for (uint32_t x = 1; x < W / 2; x++) {
        double a = lum(&c, x - 1, row), b = lum(&c, x, row), mid = (lit + dark) / 2;
        if (a >= mid && b < mid) {
            got = (x - 1) + 0.5 + (a - mid) / (a - b);
            break;
        }
    }
    CHECK(fabs(got - want) <= 1, "altitude %g: the shadow's edge at column %.2f, the sun's projection puts it at %.2f",
          altitude, got, want);
    /* the sunny side of the box, beyond +y, is lit ground */
    CHECK(fabs(lum(&c, W - 3, row) - lit) < 2, "altitude %g: the ground on the sun's side is lit", altitude);
    free(c.raw);
    /* without shadows the same ground is lit up to the box */
    if (shadow_scene(altitude, false, W, H, fov, &c)) {
        CHECK(fabs(lum(&c, (uint32_t)(want - 3), row) - lit) < 2 && fabs(lum(&c, (uint32_t)(want + 3), row) - lit) < 2,
              "shadows: false: no shadow");
        free(c.raw);
    }
}

/* ---- fog ---- */

/* A wall facing the camera at distance D (its face), the camera 1.5 m up; the centre pixel's
** colour for the given fog. */
static bool wall_pixel(double D, const char *weather, const char *camera, uint8_t bgr[3], uint8_t sky[3])
{
    char scene[2048];
    snprintf(scene, sizeof scene,
             "settings: {weather: %s, lighting: {shadows: false}}\n"
             "actors:\n"
             "  - {name: wall, blueprint: static.prop.box, transform: {location: [%g, 0, 1.5]}, attributes: {extent: \"0.5,4,18.5\", color: \"180,120,60\", semantic_tag: Wall}}\n"
             "sensors:\n"
             "  - {name: cam, blueprint: %s, transform: {location: [0, 0, 1.5]},"
             " attributes: {image_size_x: 64, image_size_y: 48, fov: 90%s}}\n",
             weather, D + 0.5, camera, strcmp(camera, "sensor.camera.rgb") ? "" : ", anti_aliasing: 1, enable_postprocess_effects: false");
    capture c;
    if (!shoot(scene, 1, &c))
        return false;
    const uint8_t *p = c.raw + 4 * (24 * 64 + 32); /* the pixel below the centre: its ray is 1/96 off the axis */
    memcpy(bgr, p, 3);
    if (sky)
        memcpy(sky, c.raw + 4 * (24 * 64 + 1), 3); /* beside the wall: sky at the horizon */
    free(c.raw);
    return true;
}

static void fog(void)
{
    /* docs/rendering.md: T = exp(-k L g), k = 0.05 fog_density / 100, L = d - fog_distance (the
    ** ray's length inside the fog), g = (e^(-f za) - e^(-f zb)) / (f (zb - za)) (1 without
    ** falloff); colour = surface T + fog colour (1 - T); the fog colour is the horizon's */
    const double density = 40, start = 5, k = 0.05 * density / 100;
    const double dists[] = {10, 30, 60};
    for (int falloff = 0; falloff < 2; falloff++) {
        const double fo = falloff ? 0.5 : 0;
        char wf[200], clear[200];
        snprintf(wf, sizeof wf, "{fog_density: %g, fog_distance: %g, fog_falloff: %g}", density, start, fo);
        snprintf(clear, sizeof clear, "{fog_density: 0}");
        uint8_t fogc[3] = {0}, dummy[3];
        uint8_t sky0[3];
        /* the fog's colour: the sky at the horizon is wholly fog when the fog does not thin */
        if (!wall_pixel(10, "{fog_density: 40, fog_distance: 5, fog_falloff: 0}", "sensor.camera.rgb", dummy, fogc) ||
            !wall_pixel(10, clear, "sensor.camera.rgb", dummy, sky0))
            return;
        for (size_t i = 0; i < sizeof dists / sizeof dists[0]; i++) {
            double D = dists[i];
            uint8_t plain[3], fogged[3];
            if (!wall_pixel(D, clear, "sensor.camera.rgb", plain, NULL) || !wall_pixel(D, wf, "sensor.camera.rgb", fogged, NULL))
                return;
            /* the pixel (32, 24) looks 0.5 px right and below the axis: its ray to the wall's face */
            double f = 32, a = 0.5 / f, b = 0.5 / f;
            double d = D * sqrt(1 + a * a + b * b);
            double za = 1.5 - b * D * start / d, zb = 1.5 - b * D; /* heights where the fog starts and at the wall */
            double g = 1;
            if (fo > 0)
                g = (exp(-fo * za) - exp(-fo * zb)) / (fo * (zb - za));
            double T = exp(-k * (d - start) * g);
            int worst = 0;
            for (int ch = 0; ch < 3; ch++) {
                double want = plain[ch] * T + fogc[ch] * (1 - T);
                int off = (int)lround(fabs(fogged[ch] - want));
                worst = off > worst ? off : worst;
            }
            CHECK(worst <= 1, "falloff %g, wall at %g m: T %.4f: BGR %u %u %u, the formula %.1f %.1f %.1f (clear %u %u %u)",
                  fo, D, T, fogged[0], fogged[1], fogged[2], plain[0] * T + fogc[0] * (1 - T),
                  plain[1] * T + fogc[1] * (1 - T), plain[2] * T + fogc[2] * (1 - T), plain[0], plain[1], plain[2]);
            CHECK(T < 0.96 && abs(fogged[0] - plain[0]) + abs(fogged[2] - plain[2]) > 3, "the fog shows at %g m", D);
        }
    }
    /* depth stays exact: the same bytes with and without fog */
    uint8_t d0[3], d1[3];
    if (wall_pixel(30, "{fog_density: 0}", "sensor.camera.depth", d0, NULL) &&
        wall_pixel(30, "{fog_density: 100, fog_distance: 0}", "sensor.camera.depth", d1, NULL))
        CHECK(!memcmp(d0, d1, 3), "depth with fog equals depth without");
}

/* ---- anti-aliasing ---- */

static void anti_aliasing(void)
{
    static const char *scene =
        "settings: {lighting: {shadows: false}}\n"
        "actors:\n"
        "  - {name: wall, blueprint: static.prop.box, transform: {location: [20, 0, 0]}, attributes: {extent: \"0.5,40,40\", color: \"40,40,40\", semantic_tag: Wall}}\n"
        "  - {name: box, blueprint: static.prop.box, transform: {location: [10, 0, 0], rotation: [10, 25, 30]}, attributes: {extent: \"1,1,1\", color: \"230,200,40\", semantic_tag: Static}}\n"
        "sensors:\n"
        "  - {name: cam, blueprint: sensor.camera.rgb, transform: {location: [0, 0, 0]}, attributes: {image_size_x: 96, image_size_y: 72, fov: 40, anti_aliasing: %d, enable_postprocess_effects: false}}\n"
        "  - {name: sem, blueprint: sensor.camera.semantic_segmentation, transform: {location: [0, 0, 0]}, attributes: {image_size_x: 96, image_size_y: 72, fov: 40}}\n";
    char s1[2048], s4[2048];
    snprintf(s1, sizeof s1, scene, 1);
    snprintf(s4, sizeof s4, scene, 4);
    capture one, four, sem;
    if (!shoot(s1, 1, &one) || !shoot2(s4, 2, "cam", &four, "sem", &sem))
        return;
    /* colours of the one-sample image: the wall and the box's three visible faces */
    uint32_t palette[16];
    int n_pal = 0;
    size_t px = 96 * 72;
    for (size_t i = 0; i < px; i++) {
        uint32_t v = one.raw[4 * i] | one.raw[4 * i + 1] << 8 | (uint32_t)one.raw[4 * i + 2] << 16;
        bool seen = false;
        for (int k = 0; k < n_pal; k++)
            seen |= palette[k] == v;
        if (!seen && n_pal < 16)
            palette[n_pal++] = v;
    }
    CHECK(n_pal >= 3 && n_pal <= 5, "one sample a pixel: %d flat colours (wall and faces)", n_pal);
    int between = 0, same = 0;
    for (size_t i = 0; i < px; i++) {
        uint32_t v = four.raw[4 * i] | four.raw[4 * i + 1] << 8 | (uint32_t)four.raw[4 * i + 2] << 16;
        bool flat = false;
        for (int k = 0; k < n_pal; k++)
            flat |= palette[k] == v;
        between += !flat;
        same += v == (one.raw[4 * i] | one.raw[4 * i + 1] << 8 | (uint32_t)one.raw[4 * i + 2] << 16);
    }
    CHECK(between > 40, "anti-aliased: %d edge pixels hold intermediate colours", between);
    CHECK(same > (int)px * 3 / 4, "anti-aliased: the flat insides keep their colour exactly (%d of %zu)", same, px);
    int bad = 0, box = 0;
    for (size_t i = 0; i < px; i++) {
        bad += sem.raw[4 * i + 2] != SN_TAG_WALL && sem.raw[4 * i + 2] != SN_TAG_STATIC;
        box += sem.raw[4 * i + 2] == SN_TAG_STATIC;
    }
    CHECK(bad == 0 && box > 100, "the semantic image of the same frame: only exact tags (%d others, %d box pixels)", bad, box);
    free(one.raw), free(four.raw), free(sem.raw);
}

/* ---- determinism ---- */

/* ---- rain behind a wall ---- */

/* The RGB camera (CARLA's defaults: anti-aliasing 2, post-process on) facing a wall at D m that
** fills its view, in rain or not: the streaks of drops behind the wall are hidden (rain.h), so
** a wall nearer than the nearest drop (0.7 m) leaves the rainy image as the dry one, byte for
** byte, and a wall at 8 m does not. */
static bool rain_wall(double D, double precipitation, const char *aa, capture *c)
{
    char scene[2048];
    snprintf(scene, sizeof scene,
             "settings: {weather: {preset: ClearNoon, precipitation: %g, wind_intensity: 30}}\n"
             "actors:\n"
             "  - {name: wall, blueprint: static.prop.box, transform: {location: [%g, 0, 1.5]}, attributes: {extent: \"0.1,40,40\", color: \"60,70,80\", semantic_tag: Wall}}\n"
             "sensors:\n"
             "  - {name: cam, blueprint: sensor.camera.rgb, transform: {location: [0, 0, 1.5]},"
             " attributes: {image_size_x: 96, image_size_y: 64, fov: 90, anti_aliasing: %s}}\n",
             precipitation, D + 0.1, aa);
    return shoot(scene, 2, c);
}

static void rain_occlusion(void)
{
    const char *aas[] = {"1", "2"};
    for (int k = 0; k < 2; k++) {
        capture dry, wet, dry8, wet8;
        if (!rain_wall(0.6, 0, aas[k], &dry) || !rain_wall(0.6, 100, aas[k], &wet) || !rain_wall(8, 0, aas[k], &dry8) ||
            !rain_wall(8, 100, aas[k], &wet8))
            return;
        size_t n = (size_t)dry.w * dry.h * 4, streak8 = 0;
        for (size_t i = 0; i < n; i += 4)
            streak8 += memcmp(dry8.raw + i, wet8.raw + i, 3) != 0;
        CHECK(memcmp(dry.raw, wet.raw, n) == 0,
              "anti_aliasing %s: rain behind a wall 0.6 m away (nearer than every drop) draws no streak", aas[k]);
        CHECK(streak8 > 100, "anti_aliasing %s: with the wall at 8 m the nearer drops show (%zu streak pixels)", aas[k],
              streak8);
        free(dry.raw), free(wet.raw), free(dry8.raw), free(wet8.raw);
    }
}

static void threads(void)
{
    static const char *scene =
        "settings: {weather: {preset: WetCloudySunset, sun_azimuth_angle: 60, fog_density: 20, fog_distance: 10, fog_falloff: 0.2}}\n"
        "actors:\n"
        "  - {name: ground, blueprint: static.ground}\n"
        "  - {name: car, blueprint: vehicle.sedan, transform: {location: [12, 1, 0.1], rotation: [0, 30, 0]}, attributes: {color: \"200,30,30\"}}\n"
        "  - {name: box, blueprint: static.prop.box, transform: {location: [20, -4, 2], rotation: [0, 15, 0]}, attributes: {extent: \"1,3,2\"}}\n"
        "  - {name: ball, blueprint: static.prop.sphere, transform: {location: [9, -2, 1]}, attributes: {radius: 0.8}}\n"
        "sensors:\n"
        "  - {name: cam, blueprint: sensor.camera.rgb, transform: {location: [0, 0, 2], rotation: [-8, 0, 0]}, attributes: {image_size_x: 160, image_size_y: 100, anti_aliasing: 3, enable_postprocess_effects: false}}\n";
    capture c[3];
    bool ok = true;
    for (int t = 0; t < 3; t++)
        ok &= shoot(scene, t + 1, &c[t]);
    if (ok) {
        CHECK(!memcmp(c[0].raw, c[1].raw, 160 * 100 * 4), "RGB with shadows, fog, wet road and AA: 1 and 2 threads");
        CHECK(!memcmp(c[0].raw, c[2].raw, 160 * 100 * 4), "RGB with shadows, fog, wet road and AA: 1 and 3 threads");
    }
    for (int t = 0; t < 3; t++)
        free(c[t].raw);
}

/* ---- recorder and replay ---- */

static void record_replay(void)
{
    sn_error err = {0};
    char rec[1024];
    snprintf(rec, sizeof rec, "%s/weather.sensimrec", dir);
    sn_engine *e = engine(1);
    CHECK(e && sn_engine_load_scene(e, tu_write(dir, "wr.yaml", "settings: {weather: ClearNoon}\nactors:\n"
                                                 "  - {name: car, blueprint: vehicle.sedan, velocity: [5, 0, 0]}\n"), &err) == SN_OK,
          "%s", err.msg);
    sn_record_options ro = {.struct_size = sizeof ro, .file = rec};
    CHECK(sn_engine_record(e, &ro, &err) == SN_OK, "%s", err.msg);
    sn_weather w[81];
    for (int f = 1; f <= 80; f++) {
        if (f == 10 || f == 45) { /* two changes, one inside a key-frame group */
            sn_weather n;
            sn_weather_preset_get(f == 10 ? "HardRainSunset" : "ClearNight", &n, NULL);
            n.fog_density = f;
            CHECK(sn_engine_set_weather(e, &n, &err) == SN_OK, "%s", err.msg);
        }
        CHECK(sn_engine_step(e, &err) == SN_OK, "%s", err.msg);
        sn_engine_get_weather(e, &w[f], NULL);
    }
    CHECK(sn_engine_finish(e, true, &err) == SN_OK, "%s", err.msg);
    sn_engine_destroy(e);

    sn_recording *r = sn_recording_open(rec, &(sn_engine_options){.plugin_dir = plugins, .quiet_plugins = true}, &err);
    CHECK(r, "%s", err.msg);
    sn_log_info info = {.struct_size = sizeof info};
    if (r && sn_recording_info(r, &info, &err) == SN_OK)
        CHECK(info.version_major == 1 && info.version_minor == 4, "format 1.4, got %u.%u", info.version_major,
              info.version_minor);
    const sn_log_frame *fr;
    int frames = 0, wrong = 0;
    while (r && sn_recording_next(r, &fr, &err) == SN_OK) {
        frames++;
        wrong += !fr->weather || fr->frame > 80 || memcmp(fr->weather, &w[fr->frame], sizeof *fr->weather);
    }
    CHECK(frames == 80 && wrong == 0, "every recorded frame's weather is the live one: %d frames, %d wrong", frames, wrong);
    /* a seek into the middle of a key-frame group finds the weather of that frame */
    if (r && sn_recording_seek(r, 50 * 0.05 - 0.01, &err) == SN_OK && sn_recording_next(r, &fr, &err) == SN_OK)
        CHECK(fr->weather && !memcmp(fr->weather, &w[fr->frame], sizeof *fr->weather), "after a seek to frame %llu",
              (unsigned long long)fr->frame);
    sn_recording_close(r);

    /* replay: the world's weather follows the recording */
    e = engine(1);
    sn_replay_options o = {.struct_size = sizeof o};
    CHECK(e && sn_engine_load_replay(e, rec, &o, &err) == SN_OK, "%s", err.msg);
    wrong = 0;
    for (int f = 1; f <= 80 && e; f++) {
        if (sn_engine_step(e, &err))
            break;
        sn_weather now;
        sn_engine_get_weather(e, &now, NULL);
        wrong += memcmp(&now, &w[f], sizeof now) != 0;
    }
    CHECK(wrong == 0, "replay: the weather of %d frames differs from the recording's", wrong);
    sn_engine_destroy(e);
}

/* A recording of format 1.0 (before packet 12) still reads and replays: no weather in its
** frames, and the replay keeps the default weather. */
static void old_recording(const char *path)
{
    sn_error err = {0};
    sn_recording *r = sn_recording_open(path, &(sn_engine_options){.plugin_dir = plugins, .quiet_plugins = true}, &err);
    CHECK(r, "%s: %s", path, err.msg);
    sn_log_info info = {.struct_size = sizeof info};
    if (r && sn_recording_info(r, &info, &err) == SN_OK)
        CHECK(info.version_major == 1 && info.version_minor == 0, "a 1.0 file: %u.%u", info.version_major,
              info.version_minor);
    const sn_log_frame *fr;
    int frames = 0, with = 0;
    while (r && sn_recording_next(r, &fr, &err) == SN_OK)
        frames++, with += fr->weather != NULL;
    CHECK(frames > 0 && with == 0, "format 1.0: %d frames, %d with a weather", frames, with);
    sn_recording_close(r);
    sn_engine *e = engine(1);
    sn_replay_options o = {.struct_size = sizeof o};
    sn_weather w, def;
    sn_weather_preset_get("Default", &def, NULL);
    CHECK(e && sn_engine_load_replay(e, path, &o, &err) == SN_OK && sn_engine_step(e, &err) == SN_OK &&
              sn_engine_get_weather(e, &w, &err) == SN_OK && !memcmp(&w, &def, sizeof w),
          "a 1.0 recording replays under the default weather: %s", err.msg);
    sn_engine_destroy(e);
}

int main(int argc, char **argv)
{
    if (argc < 4)
        return fprintf(stderr, "usage: test_weather TMP PLUGINS OLD_RECORDING\n"), 2;
    dir = argv[1], plugins = argv[2];
    old_recording(argv[3]);
    presets();
    unrendered_warning();
    shadow_edge(45);
    shadow_edge(30);
    fog();
    anti_aliasing();
    threads();
    rain_occlusion();
    record_replay();
    return CHECK_DONE();
}
