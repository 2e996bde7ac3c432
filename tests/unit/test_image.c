/* CARLA's converters on known values (carla-sensors.md §3), and the save-path patterns. */
#include "../../engine/data/image.h"
#include "../../engine/data/views.h"
#include "../../engine/world/world.h"
#include "../check.h"

static uint8_t gray(sn_converter c, uint8_t b, uint8_t g, uint8_t r)
{
    uint8_t in[4] = {b, g, r, 255}, out[3];
    sn_convert_bgra(c, in, 1, out);
    CHECK(out[0] == out[1] && out[1] == out[2], "depth converters give gray");
    return out[0];
}

/* CARLA's get_color_coded_flow (PythonAPI SensorData.cpp) worked by hand: hue = 180 +
** atan2(y, x) * 360 / (2 * 3.1415) wrapped to [0, 360), value = clamp(ln(|v| + 0.999) /
** ln(1.099), 0, 1), HSV to RGB by 60-degree sectors, (uint8)((c + m) * 255). */
static void flow_is(float x, float y, int r, int g, int b, const char *what)
{
    uint8_t c[3];
    sn_flow_color(x, y, c);
    CHECK(c[0] == r && c[1] == g && c[2] == b, "%s: flow (%g, %g) -> (%d, %d, %d), want (%d, %d, %d)", what, x, y, c[0],
          c[1], c[2], r, g, b);
}

static void flow_colours(void)
{
    flow_is(0, 0, 0, 0, 0, "still: ln(0.999) < 0, value 0, black");
    /* hue 180 (sector 3: r 0, g X, b C), value 1; H/60 is 3.0000002 in float (1/60 rounds up),
    ** so X = 1 - 2.4e-7 and G truncates to 254 as in CARLA */
    flow_is(1, 0, 0, 254, 255, "right: cyan");
    /* atan2 = pi (float), times 360 / 6.283: 180.0053 deg, hue 0.0053: sector 0, X = 0.0000885 */
    flow_is(-1, 0, 255, 0, 0, "left: red");
    /* hue 270.0027: sector 4 (r X, g 0, b C), X = 0.50004 -> 127.51 -> 127 */
    flow_is(0, 1, 127, 0, 255, "up: violet");
    /* hue 89.9973: sector 1 (r X, g C, b 0), X = 0.50004 */
    flow_is(0, -1, 127, 255, 0, "down: yellow-green");
    /* |v| = 0.05: value ln(1.049) / ln(1.099) = 0.50675 -> 129.22 -> 129 */
    flow_is(0.05f, 0, 0, 129, 129, "a slow right: half-bright cyan");
    /* |v| = 0.05 at hue 126.868: sector 2 (r 0, g C, b X), X = C (1 - |2.1145 mod 2 - 1|) = 0.05801 C */
    flow_is(0.03f, -0.04f, 0, 129, 14, "slow, down and right");
    /* hue 315.004: sector 5 (r C, g 0, b X), X = 0.74993 -> 191.23 */
    flow_is(-2, 2, 255, 0, 191, "fast, up and left");
    /* |v| = 0.02828: value 0.28515; hue 225.0013: sector 3, X = 0.25 C */
    flow_is(0.02f, 0.02f, 0, 18, 72, "slower, up and right");
    flow_is(NAN, 0, 0, 0, 0, "NaN is black, not an undefined cast");
    flow_is(INFINITY, 1, 0, 0, 0, "infinity is black");
    flow_is(3e38f, 3e38f, 0, 63, 255, "an overflowing norm is full brightness (hue 225: X = C / 4)");
}

/* A little-endian float32 record writer. */
static void put_f32(uint8_t *p, float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    for (int k = 0; k < 4; k++)
        p[k] = (uint8_t)(u >> (8 * k));
}

static const uint8_t *bev_px(const uint8_t *rgb, int row, int col) { return rgb + 3 * ((size_t)row * SN_BEV_SIZE + col); }

static void bev_views(void)
{
    static uint8_t rgb[SN_BEV_SIZE * SN_BEV_SIZE * 3];
    const int c = SN_BEV_SIZE / 2;
    const double mpp = SN_BEV_M_PER_PX;
    /* three lidar points: 10 m ahead (up), 5 m right, 5 m behind-left; intensity 1, 0, 0.5 */
    uint8_t rec[4 * 16];
    float pts[4][4] = {{10.1f, 0.1f, 0, 1}, {0.1f, 5.1f, -1, 0}, {-4.9f, -4.9f, 2, 0.5f}, {NAN, 0, 0, 1}};
    for (int i = 0; i < 4; i++)
        for (int k = 0; k < 4; k++)
            put_f32(rec + 16 * i + 4 * k, pts[i][k]);
    sn_bev_image(SN_BEV_LIDAR, rec, 4, rgb);
    /* row = c - x / mpp, col = c + y / mpp, floored */
    const uint8_t *a = bev_px(rgb, c - (int)ceil(10.1 / mpp), c + (int)(0.1 / mpp));
    CHECK(a[0] == 255 && a[1] == 255 && a[2] == 255, "10 m ahead: white (intensity 1) at row %d", c - 51);
    const uint8_t *b = bev_px(rgb, c - 1, c + (int)(5.1 / mpp));
    CHECK(b[0] == 96, "5 m right: grey 96 (intensity 0), got %d", b[0]);
    const uint8_t *d = bev_px(rgb, c + (int)(4.9 / mpp), c - (int)ceil(4.9 / mpp));
    CHECK(d[0] == 175, "behind-left: 96 + 159 / 2 -> 175, got %d", d[0]);
    CHECK(bev_px(rgb, c, c)[0] == 128, "the sensor's grey mark");
    size_t lit = 0;
    for (size_t i = 0; i < sizeof rgb; i += 3)
        lit += rgb[i] != 0;
    CHECK(lit == 9 + 3, "3 points and the 3x3 mark: %zu lit pixels (the NaN point skipped)", lit);

    /* radar: a closing target 20 m ahead at azimuth 0 (red), a parting one at azimuth +90 deg
    ** 10 m away (right: blue), a still one behind (white) */
    uint8_t rad[3 * 16];
    float det[3][4] = {{-7.5f, 0, 0, 20.1f}, {7.5f, (float)(M_PI / 2), 0, 10.1f}, {0, (float)M_PI, 0, 8.1f}};
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 4; k++)
            put_f32(rad + 16 * i + 4 * k, det[i][k]);
    sn_bev_image(SN_BEV_RADAR, rad, 3, rgb);
    const uint8_t *r1 = bev_px(rgb, c - 101, c), *r2 = bev_px(rgb, c, c + 50), *r3 = bev_px(rgb, c + 40, c);
    CHECK(r1[0] == 255 && r1[1] == 0 && r1[2] == 0, "closing: red (%d, %d, %d)", r1[0], r1[1], r1[2]);
    CHECK(r2[0] == 0 && r2[1] == 0 && r2[2] == 255, "parting: blue (%d, %d, %d)", r2[0], r2[1], r2[2]);
    CHECK(r3[0] == 255 && r3[1] == 255 && r3[2] == 255, "still: white (%d, %d, %d)", r3[0], r3[1], r3[2]);

    /* semantic lidar: the tag's CityScapes colour */
    uint8_t sem[24] = {0};
    put_f32(sem, 3.1f);
    put_f32(sem + 4, 0.1f);
    sem[20] = SN_TAG_CAR;
    sn_bev_image(SN_BEV_SEMANTIC_LIDAR, sem, 1, rgb);
    CHECK(!memcmp(bev_px(rgb, c - 16, c), sn_cityscapes_color(SN_TAG_CAR), 3), "a car point in the car's colour");
    sem[20] = 200; /* beyond the table: Unlabeled's black, no read past it */
    sn_bev_image(SN_BEV_SEMANTIC_LIDAR, sem, 1, rgb);
    CHECK(bev_px(rgb, c - 16, c)[0] == 0, "an unknown tag is black");
}

/* Whole pictures (odd sizes, so every tail is hit) convert to the same bytes as pixel by pixel:
** the raw converter's shuffles and the palette's 4-byte stores (save49) change no byte, and write
** nothing past the picture. */
static void whole_pictures(void)
{
    enum { N = 1031 };
    static uint8_t bgra[4 * N], whole[3 * N + 16], one[3];
    uint32_t x = 12345;
    for (size_t i = 0; i < sizeof bgra; i++)
        x = x * 1103515245u + 12345u, bgra[i] = (uint8_t)(x >> 16);
    for (int i = 0; i < N; i += 7)
        bgra[4 * i + 2] %= 32; /* cityscapes: most tags in the table, some beyond */
    for (sn_converter c = SN_CONV_RAW; c <= SN_CONV_CITYSCAPES; c++)
        for (size_t n = 0; n <= N; n += n < 20 ? 1 : 101) {
            memset(whole, 0xa5, sizeof whole);
            sn_convert_bgra(c, bgra, n, whole);
            bool same = true;
            for (size_t i = 0; i < n; i++) {
                sn_convert_bgra(c, bgra + 4 * i, 1, one);
                same = same && !memcmp(one, whole + 3 * i, 3);
            }
            for (size_t i = 3 * n; i < sizeof whole; i++)
                same = same && whole[i] == 0xa5;
            CHECK(same, "converter %d on %zu pixels: the bytes of one pixel at a time", (int)c, n);
        }
}

int main(void)
{
    whole_pictures();
    /* depth: n = (R + 256 G + 65536 B) / (2^24 - 1), gray = n * 255 + 0.5 truncated */
    CHECK(gray(SN_CONV_DEPTH, 0, 0, 0) == 0, "0 m is black");
    CHECK(gray(SN_CONV_DEPTH, 255, 255, 255) == 255, "1000 m is white");
    CHECK(gray(SN_CONV_DEPTH, 128, 0, 0) == 128, "B = 128: n = 0.500000 -> 128");
    CHECK(gray(SN_CONV_DEPTH, 0, 255, 255) == 1, "d = 65535: n * 255 = 0.996, + 0.5 -> 1");
    CHECK(gray(SN_CONV_DEPTH, 0, 0, 127) == 0, "d = 127: n * 255 = 0.0019, + 0.5 -> 0");
    /* logarithmic: v = 1 + ln(n) / 5.70378 clamped to [0.005, 1] */
    CHECK(gray(SN_CONV_LOG_DEPTH, 255, 255, 255) == 255, "n = 1 -> v = 1 -> 255");
    CHECK(gray(SN_CONV_LOG_DEPTH, 0, 0, 0) == 1, "n = 0 -> ln = -inf -> 0.005 -> 1 (CARLA's smallest value)");
    CHECK(gray(SN_CONV_LOG_DEPTH, 0, 0, 1) == 1, "a tiny n clamps to 0.005 -> 1");
    /* n = 0.5: v = 1 - 0.693147 / 5.70378 = 0.878475 -> 224.51 -> 224 */
    CHECK(gray(SN_CONV_LOG_DEPTH, 128, 0, 0) == 224, "n = 0.5 -> 224");
    /* n = 0.1 (100 m, d = 1677722 = 0x19999A): v = 1 - 2.302585 / 5.70378 = 0.596305 -> 152.56 -> 152 */
    CHECK(gray(SN_CONV_LOG_DEPTH, 0x19, 0x99, 0x9A) == 152, "100 m -> 152");
    /* cityscapes: the palette of the tag in R, every entry as CARLA's CityScapesPalette.h
    ** (0.9.14+) has it, by tag name (issue 24 item 5: Fence and Terrain had seed 003's doc colours) */
    static const struct { const char *name; uint8_t rgb[3]; } carla[SN_TAG_COUNT] = {
        {"Unlabeled", {0, 0, 0}},         {"Roads", {128, 64, 128}},       {"SideWalk", {244, 35, 232}},
        {"Building", {70, 70, 70}},       {"Wall", {102, 102, 156}},       {"Fence", {190, 153, 153}},
        {"Pole", {153, 153, 153}},        {"TrafficLight", {250, 170, 30}}, {"TrafficSign", {220, 220, 0}},
        {"Vegetation", {107, 142, 35}},   {"Terrain", {152, 251, 152}},    {"Sky", {70, 130, 180}},
        {"Pedestrian", {220, 20, 60}},    {"Rider", {255, 0, 0}},          {"Car", {0, 0, 142}},
        {"Truck", {0, 0, 70}},            {"Bus", {0, 60, 100}},           {"Train", {0, 80, 100}},
        {"Motorcycle", {0, 0, 230}},      {"Bicycle", {119, 11, 32}},      {"Static", {110, 190, 160}},
        {"Dynamic", {170, 120, 50}},      {"Other", {55, 90, 80}},         {"Water", {45, 60, 150}},
        {"RoadLine", {157, 234, 50}},     {"Ground", {81, 0, 81}},         {"Bridge", {150, 100, 100}},
        {"RailTrack", {230, 150, 140}},   {"GuardRail", {180, 165, 180}},
    };
    uint8_t px[4] = {0, 0, 0, 255}, rgb[3];
    for (int t = 0; t < SN_TAG_COUNT; t++) {
        uint8_t tag;
        CHECK(sn_tag_parse(carla[t].name, &tag) && tag == t, "tag %d is %s", t, carla[t].name);
        px[2] = (uint8_t)t;
        sn_convert_bgra(SN_CONV_CITYSCAPES, px, 1, rgb);
        CHECK(!memcmp(rgb, carla[t].rgb, 3) && !memcmp(sn_cityscapes_color((uint8_t)t), rgb, 3),
              "%s (%d) is (%d, %d, %d) as CARLA's: got (%d, %d, %d)", carla[t].name, t, carla[t].rgb[0],
              carla[t].rgb[1], carla[t].rgb[2], rgb[0], rgb[1], rgb[2]);
    }
    for (int t = SN_TAG_COUNT; t < 256; t++) { /* black, not CARLA's wrap onto a real class */
        px[2] = (uint8_t)t;
        sn_convert_bgra(SN_CONV_CITYSCAPES, px, 1, rgb);
        CHECK(rgb[0] == 0 && rgb[1] == 0 && rgb[2] == 0, "unknown tag %d is black", t);
    }
    /* raw: BGRA to RGB */
    uint8_t c[4] = {1, 2, 3, 255};
    sn_convert_bgra(SN_CONV_RAW, c, 1, rgb);
    CHECK(rgb[0] == 3 && rgb[1] == 2 && rgb[2] == 1, "raw swaps to RGB");
    /* DVS event frames (CARLA's to_image): positive blue, negative red, both magenta */
    uint8_t ev[4 * 13] = {0}, frame[3 * 2 * 4];
    const uint8_t xy_pol[4][3] = {{0, 0, 1}, {2, 1, 0}, {1, 0, 1}, {1, 0, 0}};
    for (int e = 0; e < 4; e++)
        ev[13 * e] = xy_pol[e][0], ev[13 * e + 2] = xy_pol[e][1], ev[13 * e + 12] = xy_pol[e][2];
    CHECK(sn_event_frame(ev, 4, 3, 2, frame), "events inside a 3x2 picture");
    CHECK(frame[0] == 255 && frame[1] == 0 && frame[2] == 0, "positive at (0, 0) is blue");
    CHECK(frame[4 * 5 + 2] == 255 && frame[4 * 5] == 0, "negative at (2, 1) is red");
    CHECK(frame[4] == 255 && frame[6] == 255 && frame[5] == 0, "both at (1, 0) are magenta");
    CHECK(frame[4 * 3] == 0 && frame[4 * 3 + 2] == 0 && frame[4 * 3 + 3] == 0, "no event: black, alpha 0 (CARLA)");
    CHECK(!sn_event_frame(ev, 4, 2, 2, frame), "an event outside the picture is refused");
    sn_converter k;
    CHECK(sn_converter_parse("logarithmic_depth", &k) && k == SN_CONV_LOG_DEPTH, "names");
    CHECK(!sn_converter_parse("Depth", &k), "names are case-sensitive");
    sn_error err = {0};
    CHECK(sn_image_pattern_check("front/%06d.png", &err), "%%06d");
    CHECK(sn_image_pattern_check("a%%b%d.png", &err), "%%%% is a percent sign");
    CHECK(!sn_image_pattern_check("x.png", &err), "no frame number refused");
    CHECK(!sn_image_pattern_check("x%d.jpg", &err), "not .png refused");
    CHECK(!sn_image_pattern_check("a//%d.png", &err) && !sn_image_pattern_check("./%d.png", &err), "empty and . parts");
    CHECK(sn_image_patterns_may_collide("a/x%d.png", "a/x1%02d.png"), "x1 then 2 digits meets x then 3");
    CHECK(sn_image_patterns_may_collide("a%db7.png", "a5b%d.png"), "a5b7.png both");
    CHECK(!sn_image_patterns_may_collide("rgb/%06d.png", "depth/%06d.png"), "two folders");
    CHECK(!sn_image_patterns_may_collide("x%d.png", "x%dy.png"), "a letter after the number");
    CHECK(!sn_image_pattern_check("f/%s.png", &err), "%%s refused");
    CHECK(!sn_image_pattern_check("%d_%d.png", &err), "two frame numbers refused");
    flow_colours();
    bev_views();
    return CHECK_DONE();
}
