/* netpbm.c — P6, P5 and PFM files of camera messages (netpbm.h). */
#include "netpbm.h"

#include "../core/error.h"
#include "../core/util.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

bool sn_image_format_of(const char *path, sn_image_format *out)
{
    static const char *const ext[] = {".png", ".ppm", ".pgm", ".pfm"};
    size_t n = strlen(path);
    for (int i = 0; i < 4; i++)
        if (n >= 4 && strcmp(path + n - 4, ext[i]) == 0) {
            *out = (sn_image_format)i;
            return true;
        }
    return false;
}

static bool is_depth(const char *bp) { return strcmp(bp, "sensor.camera.depth") == 0; }
static bool is_segmentation(const char *bp)
{
    return strcmp(bp, "sensor.camera.semantic_segmentation") == 0 || strcmp(bp, "sensor.camera.instance_segmentation") == 0;
}

bool sn_image_format_fits(sn_image_format f, const char *bp, sn_converter c, char *why, size_t n)
{
    if (f == SN_FMT_PGM && !((is_depth(bp) && c != SN_CONV_CITYSCAPES) || (is_segmentation(bp) && c == SN_CONV_RAW))) {
        snprintf(why, n, "a .pgm holds one channel: a depth camera's depth (16-bit; converter raw, depth or "
                         "logarithmic_depth) or a segmentation camera's tags (converter raw), not %s with %s",
                 bp, c == SN_CONV_CITYSCAPES ? "cityscapes" : "this converter");
        return false;
    }
    if (f == SN_FMT_PFM && !(is_depth(bp) && c == SN_CONV_RAW)) {
        snprintf(why, n, "a .pfm holds a depth camera's metres (converter raw), not %s%s", bp,
                 is_depth(bp) ? " through a converter" : "");
        return false;
    }
    return true;
}

/* The file's header (w, h and maxval or scale) into *buf, grown for the body after it. */
static bool put_header(uint8_t **buf, size_t *cap, size_t *len, size_t body, const char *magic, uint64_t w,
                       uint64_t h, const char *max)
{
    char head[64];
    int n = snprintf(head, sizeof head, "%s\n%llu %llu\n%s\n", magic, (unsigned long long)w, (unsigned long long)h, max);
    if (!sn_grow((void **)buf, cap, (size_t)n + body, 1))
        return false;
    memcpy(*buf, head, (size_t)n);
    *len = (size_t)n + body;
    return true;
}

size_t sn_ppm_header(char head[32], uint32_t w, uint32_t h) { return (size_t)snprintf(head, 32, "P6\n%u %u\n255\n", w, h); }

/* The normalised depth of a BGRA pixel's 24-bit code (image.h). */
static float depth_n(const uint8_t *p) { return (float)(p[2] + 256u * p[1] + 65536u * p[0]) / 16777215.0f; }

static uint16_t depth16(const uint8_t *p, sn_converter c)
{
    float n = depth_n(p), v = n;
    if (c == SN_CONV_LOG_DEPTH) { /* the logarithmic_depth formula of image.h, at 16 bits */
        v = 1.0f + logf(n) / 5.70378f;
        v = v > 1.0f ? 1.0f : v < 0.005f ? 0.005f : v;
    }
    return (uint16_t)(v * 65535.0f + 0.5f);
}

sn_status sn_netpbm_of_message(sn_image_format f, const msgpack_object *msg, sn_converter c, uint8_t **buf,
                               size_t *cap, size_t *len, sn_picture_size *size, sn_error *err)
{
    const msgpack_object *type = msg->type == MSGPACK_OBJECT_MAP ? sn_mp_get(msg, "type") : NULL;
    char bp[128] = "";
    if (type && type->type == MSGPACK_OBJECT_STR && type->via.str.size < sizeof bp)
        memcpy(bp, type->via.str.ptr, type->via.str.size);
    char why[256];
    if (!sn_image_format_fits(f, bp[0] ? bp : "a message without a camera type", c, why, sizeof why))
        return sn_fail(err, SN_E_INVALID, "%s", why);
    const msgpack_object *w = sn_mp_get(msg, "width"), *h = sn_mp_get(msg, "height");
    const msgpack_object *raw = sn_mp_get(msg, "raw_data"), *frame = sn_mp_get(msg, "frame");
    const msgpack_object *metres = sn_mp_get(msg, "depth");
    if (!w || !h || !raw || !frame || w->type != MSGPACK_OBJECT_POSITIVE_INTEGER || h->type != MSGPACK_OBJECT_POSITIVE_INTEGER ||
        raw->type != MSGPACK_OBJECT_BIN || frame->type != MSGPACK_OBJECT_POSITIVE_INTEGER)
        return sn_fail(err, SN_E_INVALID, "not a camera image: a message needs frame, width, height and raw_data");
    uint64_t W = w->via.u64, H = h->via.u64;
    if (!W || !H || W > 16384 || H > 16384 || (uint64_t)raw->via.bin.size != W * H * 4)
        return sn_fail(err, SN_E_INVALID, "corrupt camera image: raw_data has %u bytes for %llux%llu pixels",
                       raw->via.bin.size, (unsigned long long)W, (unsigned long long)H);
    size_t px = (size_t)(W * H);
    const uint8_t *bgra = (const uint8_t *)raw->via.bin.ptr;
    *size = (sn_picture_size){(uint32_t)W, (uint32_t)H, frame->via.u64};
    bool ok;
    if (f == SN_FMT_PFM) {
        bool exact = metres && metres->type == MSGPACK_OBJECT_BIN && (uint64_t)metres->via.bin.size == px * 4;
        if ((ok = put_header(buf, cap, len, px * 4, "Pf", W, H, "-1.0"))) {
            uint8_t *o = *buf + (*len - px * 4);
            for (size_t y = 0; y < H; y++) { /* PFM's first row is the picture's bottom one */
                size_t row = (size_t)(H - 1 - y) * W;
                for (size_t x = 0; x < W; x++, o += 4) {
                    float m;
                    if (exact)
                        memcpy(&m, metres->via.bin.ptr + 4 * (row + x), 4); /* little-endian, as PFM's -1 scale says */
                    else
                        m = depth_n(bgra + 4 * (row + x)) * 1000.0f;
                    uint32_t bits;
                    memcpy(&bits, &m, 4);
                    o[0] = (uint8_t)bits, o[1] = (uint8_t)(bits >> 8), o[2] = (uint8_t)(bits >> 16), o[3] = (uint8_t)(bits >> 24);
                }
            }
        }
    } else if (is_depth(bp)) { /* 16-bit P5 */
        if ((ok = put_header(buf, cap, len, px * 2, "P5", W, H, "65535"))) {
            uint8_t *o = *buf + (*len - px * 2);
            for (size_t i = 0; i < px; i++) {
                uint16_t v = depth16(bgra + 4 * i, c);
                o[2 * i] = (uint8_t)(v >> 8), o[2 * i + 1] = (uint8_t)v;
            }
        }
    } else { /* the tags, in R */
        if ((ok = put_header(buf, cap, len, px, "P5", W, H, "255"))) {
            uint8_t *o = *buf + (*len - px);
            for (size_t i = 0; i < px; i++)
                o[i] = bgra[4 * i + 2];
        }
    }
    return ok ? SN_OK : sn_fail(err, SN_E_NOMEM, "out of memory for a %llux%llu image", (unsigned long long)W, (unsigned long long)H);
}
