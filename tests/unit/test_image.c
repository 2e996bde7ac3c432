/* CARLA's converters on known values (carla-sensors.md §3), and the save-path patterns. */
#include "../../engine/data/image.h"
#include "../check.h"

static uint8_t gray(sn_converter c, uint8_t b, uint8_t g, uint8_t r)
{
    uint8_t in[4] = {b, g, r, 255}, out[3];
    sn_convert_bgra(c, in, 1, out);
    CHECK(out[0] == out[1] && out[1] == out[2], "depth converters give gray");
    return out[0];
}

int main(void)
{
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
    /* cityscapes: the palette of the tag in R */
    uint8_t px[4] = {0, 0, SN_TAG_CAR, 255}, rgb[3];
    sn_convert_bgra(SN_CONV_CITYSCAPES, px, 1, rgb);
    CHECK(rgb[0] == 0 && rgb[1] == 0 && rgb[2] == 142, "Car is (0, 0, 142)");
    px[2] = SN_TAG_ROADS;
    sn_convert_bgra(SN_CONV_CITYSCAPES, px, 1, rgb);
    CHECK(rgb[0] == 128 && rgb[1] == 64 && rgb[2] == 128, "Roads is (128, 64, 128)");
    px[2] = 200;
    sn_convert_bgra(SN_CONV_CITYSCAPES, px, 1, rgb);
    CHECK(rgb[0] == 0 && rgb[1] == 0 && rgb[2] == 0, "unknown tags are black");
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
    return CHECK_DONE();
}
