/* image.c — converters and image files (PNG, netpbm.h) of camera messages. */
#include "image.h"
#include "msgread.h"

#include "../core/error.h"
#include "../core/util.h"
#include "netpbm.h"
#include "png.h"
#include "png_share.h"
#include "views.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>


/* CARLA's CityScapesPalette.h (LibCarla/source/carla/image, 0.9.14 and later: tags 0-28 as
** seed 003's table numbers them). Fence and Terrain were seed 003's doc table, (100, 40, 40) and
** (145, 170, 100); CARLA's code, which colours its images, has (190, 153, 153) and (152, 251, 152). */
static const uint8_t palette[29][3] = {
    {0, 0, 0},       {128, 64, 128},  {244, 35, 232},  {70, 70, 70},    {102, 102, 156}, {190, 153, 153},
    {153, 153, 153}, {250, 170, 30},  {220, 220, 0},   {107, 142, 35},  {152, 251, 152}, {70, 130, 180},
    {220, 20, 60},   {255, 0, 0},     {0, 0, 142},     {0, 0, 70},      {0, 60, 100},    {0, 80, 100},
    {0, 0, 230},     {119, 11, 32},   {110, 190, 160}, {170, 120, 50},  {55, 90, 80},    {45, 60, 150},
    {157, 234, 50},  {81, 0, 81},     {150, 100, 100}, {230, 150, 140}, {180, 165, 180},
};

/* Black beyond the table. CARLA's GetColor wraps (tag % the table's size), so an unknown tag takes
** a real class's colour (30 would be Roads'); its own comment warns that it overflows there. */
const uint8_t *sn_cityscapes_color(uint8_t tag) { return tag < 29 ? palette[tag] : palette[0]; }

bool sn_converter_parse(const char *name, sn_converter *out)
{
    static const char *const names[] = {"raw", "depth", "logarithmic_depth", "cityscapes"};
    for (int i = 0; i < 4; i++)
        if (!strcmp(name, names[i])) {
            *out = (sn_converter)i;
            return true;
        }
    return false;
}

/* CARLA's logarithmic depth of a 24-bit depth code, exactly as the formula in image.h. */
static uint8_t log_gray(uint32_t d)
{
    float n = (float)d / 16777215.0f;
    float v = 1.0f + logf(n) / 5.70378f;
    v = v > 1.0f ? 1.0f : v;
    v = v < 0.005f ? 0.005f : v; /* also catches ln(0) = -inf */
    return (uint8_t)(v * 255 + 0.5f);
}

/* log_gray is monotonic in d, so over a block of 256 codes (d >> 8) it is one value when its two
** ends agree: then the table gives it (bit 8 set), else the pixel takes the formula. Same bytes
** as the formula everywhere, without a logf per pixel (the converter's whole cost). */
static uint16_t log_blocks[1 << 16];
static pthread_once_t log_once = PTHREAD_ONCE_INIT;
static void make_log_blocks(void)
{
    for (uint32_t b = 0; b < (1u << 16); b++) {
        uint8_t lo = log_gray(b << 8), hi = log_gray(b << 8 | 255);
        log_blocks[b] = (uint16_t)(lo | (lo == hi) << 8);
    }
}

#if defined(__x86_64__) || defined(__i386__)
#include <tmmintrin.h>
/* Four pixels a shuffle: the compiler does not vectorise the 4-to-3 byte gather, and this pass
** ran on the frame thread for every saved colour picture (save49). Stores 16 bytes for 12, so it
** stops 6 pixels short of the end; returns the pixels done. The same bytes as the loop. */
__attribute__((target("ssse3"))) static size_t bgra_rgb_ssse3(const uint8_t *bgra, size_t px, uint8_t *rgb)
{
    const __m128i m = _mm_setr_epi8(2, 1, 0, 6, 5, 4, 10, 9, 8, 14, 13, 12, -1, -1, -1, -1);
    size_t i = 0;
    for (; i + 6 <= px; i += 4)
        _mm_storeu_si128((__m128i *)(rgb + 3 * i),
                         _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(bgra + 4 * i)), m));
    return i;
}
static size_t bgra_rgb_fast(const uint8_t *bgra, size_t px, uint8_t *rgb)
{
    return __builtin_cpu_supports("ssse3") ? bgra_rgb_ssse3(bgra, px, rgb) : 0;
}
#else
static size_t bgra_rgb_fast(const uint8_t *bgra, size_t px, uint8_t *rgb)
{
    (void)bgra, (void)px, (void)rgb;
    return 0;
}
#endif

void sn_convert_bgra(sn_converter c, const uint8_t *bgra, size_t px, uint8_t *rgb)
{
    /* one loop per converter, so each is a tight loop */
    switch (c) {
    case SN_CONV_RAW:
        for (size_t i = bgra_rgb_fast(bgra, px, rgb); i < px; i++)
            rgb[3 * i] = bgra[4 * i + 2], rgb[3 * i + 1] = bgra[4 * i + 1], rgb[3 * i + 2] = bgra[4 * i];
        break;
    case SN_CONV_DEPTH:
        for (size_t i = 0; i < px; i++) {
            const uint8_t *p = bgra + 4 * i;
            float n = (float)(p[2] + 256u * p[1] + 65536u * p[0]) / 16777215.0f;
            rgb[3 * i] = rgb[3 * i + 1] = rgb[3 * i + 2] = (uint8_t)(n * 255.0f + 0.5f);
        }
        break;
    case SN_CONV_LOG_DEPTH:
        pthread_once(&log_once, make_log_blocks);
        for (size_t i = 0; i < px; i++) {
            const uint8_t *p = bgra + 4 * i;
            uint32_t d = p[2] + 256u * p[1] + 65536u * p[0];
            uint16_t b = log_blocks[d >> 8];
            rgb[3 * i] = rgb[3 * i + 1] = rgb[3 * i + 2] = b >> 8 ? (uint8_t)b : log_gray(d);
        }
        break;
    case SN_CONV_CITYSCAPES: {
        /* each colour stored as 4 bytes (one store, not a 3-byte copy), its fourth overwritten by
        ** the next pixel's; the last pixel takes its 3 bytes alone */
        uint8_t lut[256][4];
        for (int t = 0; t < 256; t++)
            memcpy(lut[t], sn_cityscapes_color((uint8_t)t), 3), lut[t][3] = 0;
        size_t i = 0;
        for (; i + 1 < px; i++)
            memcpy(rgb + 3 * i, lut[bgra[4 * i + 2]], 4);
        for (; i < px; i++)
            memcpy(rgb + 3 * i, lut[bgra[4 * i + 2]], 3);
        break;
    }
    }
}

bool sn_event_frame(const uint8_t *ev, size_t n, uint32_t w, uint32_t h, uint8_t *bgra)
{
    memset(bgra, 0, (size_t)w * h * 4);
    for (size_t e = 0; e < n; e++, ev += 13) {
        uint32_t x = ev[0] | (uint32_t)ev[1] << 8, y = ev[2] | (uint32_t)ev[3] << 8;
        if (x >= w || y >= h)
            return false;
        bgra[4 * ((size_t)y * w + x) + (ev[12] ? 0 : 2)] = 255;
    }
    return true;
}

/* A save pattern as tokens: literal characters, and one frame number (any run of digits). */
typedef struct { char ch[SN_SAVE_PATH_MAX + 1]; bool num[SN_SAVE_PATH_MAX + 1]; size_t n; } tokens;

static void tokenize(const char *p, tokens *t)
{
    t->n = 0;
    for (; *p && t->n < SN_SAVE_PATH_MAX; p++) {
        if (*p == '%' && p[1] == '%') {
            t->ch[t->n] = '%', t->num[t->n++] = false;
            p++;
        } else if (*p == '%') {
            while (*++p != 'd')
                ;
            t->ch[t->n] = 0, t->num[t->n++] = true;
        } else {
            t->ch[t->n] = *p, t->num[t->n++] = false;
        }
    }
}

/* The states a token list reaches from (k, in_num) on character c; bit 0 = state k, in_num 0... */
static int step(const tokens *t, size_t k, bool in, char c, size_t out_k[2], bool out_in[2])
{
    int m = 0;
    bool digit = c >= '0' && c <= '9';
    if (in && digit) /* another digit of the number */
        out_k[m] = k, out_in[m++] = true;
    size_t at = in ? k + 1 : k; /* a number ended (in) or the current token */
    if (in && at < t->n && !t->num[at] && t->ch[at] == c)
        out_k[m] = at + 1, out_in[m++] = false;
    if (!in && at < t->n) {
        if (t->num[at] && digit)
            out_k[m] = at, out_in[m++] = true;
        else if (!t->num[at] && t->ch[at] == c)
            out_k[m] = at + 1, out_in[m++] = false;
    }
    return m;
}

static bool at_end(const tokens *t, size_t k, bool in) { return in ? k + 1 == t->n : k == t->n; }

bool sn_image_patterns_may_collide(const char *a, const char *b)
{
    static _Thread_local tokens ta, tb;
    tokenize(a, &ta);
    tokenize(b, &tb);
    size_t w = (tb.n + 1) * 2, total = (ta.n + 1) * 2 * w;
    uint8_t *seen = calloc(total, 1);
    size_t *queue = malloc(total * sizeof *queue);
    bool hit = !seen || !queue; /* without memory, say they may: refusing is safe */
    size_t head = 0, tail = 0;
    if (!hit)
        seen[0] = 1, queue[tail++] = 0;
    while (!hit && head < tail) {
        size_t s = queue[head++];
        size_t ka = s / w / 2, kb = s % w / 2;
        bool ia = s / w % 2, ib = s % 2;
        if (at_end(&ta, ka, ia) && at_end(&tb, kb, ib)) {
            hit = true;
            break;
        }
        /* candidate characters: what either side expects next, and a digit */
        char cs[5] = {'0'};
        int nc = 1;
        size_t pa = ia ? ka + 1 : ka, pb = ib ? kb + 1 : kb;
        if (pa < ta.n && !ta.num[pa])
            cs[nc++] = ta.ch[pa];
        if (pb < tb.n && !tb.num[pb])
            cs[nc++] = tb.ch[pb];
        for (int c = 0; c < nc; c++) {
            size_t ak[2], bk[2];
            bool ai[2], bi[2];
            int na = step(&ta, ka, ia, cs[c], ak, ai), nb = step(&tb, kb, ib, cs[c], bk, bi);
            for (int x = 0; x < na; x++)
                for (int y = 0; y < nb; y++) {
                    size_t ns = (ak[x] * 2 + ai[x]) * w + bk[y] * 2 + bi[y];
                    if (ns < total && !seen[ns])
                        seen[ns] = 1, queue[tail++] = ns;
                }
        }
    }
    free(seen);
    free(queue);
    return hit;
}

bool sn_image_pattern_check(const char *pattern, sn_error *err)
{
    int conversions = 0;
    if (strlen(pattern) > SN_SAVE_PATH_MAX) {
        sn_fail(err, SN_E_INVALID, "of %zu bytes is longer than the limit of %d", strlen(pattern), SN_SAVE_PATH_MAX);
        return false;
    }
    if (!*pattern) {
        sn_fail(err, SN_E_INVALID, "the image path is empty");
        return false;
    }
    for (const char *p = pattern; *p; p++) {
        if (*p != '%')
            continue;
        if (p[1] == '%') {
            p++;
            continue;
        }
        const char *q = p + 1;
        while (*q >= '0' && *q <= '9')
            q++;
        if (*q != 'd' || q - p > 3) {
            sn_fail(err, SN_E_INVALID, "'%s': only one frame number like %%06d or %%d (and %%%% for %%) may appear", pattern);
            return false;
        }
        conversions++;
        p = q;
    }
    if (conversions > 1) {
        sn_fail(err, SN_E_INVALID, "'%s': more than one frame number", pattern);
        return false;
    }
    if (conversions != 1) {
        sn_fail(err, SN_E_INVALID, "'%s' has no frame number (%%06d): every frame's image would replace the last", pattern);
        return false;
    }
    size_t len = strlen(pattern);
    if (len > SN_SAVE_PATH_MAX) { /* not quoted: it would fill the error line */
        sn_fail(err, SN_E_INVALID, "of %zu bytes is longer than the limit of %d", len, SN_SAVE_PATH_MAX);
        return false;
    }
    sn_image_format f;
    if (!sn_image_format_of(pattern, &f)) {
        sn_fail(err, SN_E_INVALID, "'%s' must end in .png, .ppm, .pgm or .pfm (the file's format)", pattern);
        return false;
    }
    /* components: not empty ("a//b", "sub/"), not "." or "..", at most 200 bytes with the
    ** frame number written out (NAME_MAX is 255), not the staging folder's prefix */
    for (const char *c = pattern; *c;) {
        const char *e = strchr(c, '/');
        size_t n = e ? (size_t)(e - c) : strlen(c);
        if (n == 0 || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.') || n > 200 ||
            strncmp(c, "sensim-partial-", 15) == 0) {
            sn_fail(err, SN_E_INVALID, "'%s': a part of the path is empty, '.', '..', longer than 200 bytes or "
                    "starts with sensim-partial-", pattern);
            return false;
        }
        c += n + (e != NULL);
    }
    return true;
}

/* mkdir -p of the folder part of path. */
static sn_status make_parents(char *path, sn_error *err)
{
    for (char *p = path + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = 0;
        int rc = mkdir(path, 0777);
        int e = errno;
        *p = '/';
        if (rc && e != EEXIST)
            return sn_fail(err, SN_E_IO, "cannot create folder for %s: %s", path, strerror(e));
    }
    return SN_OK;
}

/* dir/pattern(frame): the file's path into path. */
sn_status sn_image_path(const char *dir, const char *pattern, uint64_t frame, char *path, size_t n, sn_error *err)
{
    char name[2048];
    /* the pattern was checked: at most one integer conversion */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
    snprintf(name, sizeof name, pattern, (int)frame);
#pragma GCC diagnostic pop
    if (snprintf(path, n, "%s/%s", dir, name) >= (int)n)
        return sn_fail(err, SN_E_INVALID, "image path too long");
    return SN_OK;
}

static bool type_is(const msgpack_object *t, const char *name)
{
    size_t n = strlen(name);
    return t && t->type == MSGPACK_OBJECT_STR && t->via.str.size == n && !memcmp(t->via.str.ptr, name, n);
}

/* A lidar or radar message: its bird's-eye view (views.h). */
static sn_status bev_picture(const msgpack_object *msg, sn_bev_kind k, uint8_t **scratch, size_t *cap,
                             sn_picture_size *out, sn_error *err)
{
    const msgpack_object *raw = sn_mp_get(msg, "raw_data"), *frame = sn_mp_get(msg, "frame");
    size_t rs = sn_bev_record_size(k);
    if (!raw || !frame || raw->type != MSGPACK_OBJECT_BIN || frame->type != MSGPACK_OBJECT_POSITIVE_INTEGER)
        return sn_fail(err, SN_E_INVALID, "not a point stream: a message needs frame and raw_data");
    if (raw->via.bin.size % rs)
        return sn_fail(err, SN_E_INVALID, "corrupt points: raw_data has %u bytes, not a multiple of the %zu-byte record",
                       raw->via.bin.size, rs);
    if (!sn_grow((void **)scratch, cap, (size_t)SN_BEV_SIZE * SN_BEV_SIZE * 3, 1))
        return sn_fail(err, SN_E_NOMEM, "out of memory for a bird's-eye view");
    sn_bev_image(k, (const uint8_t *)raw->via.bin.ptr, raw->via.bin.size / rs, *scratch);
    *out = (sn_picture_size){SN_BEV_SIZE, SN_BEV_SIZE, frame->via.u64};
    return SN_OK;
}

sn_status sn_image_picture(const msgpack_object *msg, sn_converter c, bool points, uint8_t **scratch, size_t *cap,
                           sn_picture_size *out, sn_error *err)
{
    const msgpack_object *type = msg->type == MSGPACK_OBJECT_MAP ? sn_mp_get(msg, "type") : NULL;
    if (points && type_is(type, "sensor.lidar.ray_cast"))
        return bev_picture(msg, SN_BEV_LIDAR, scratch, cap, out, err);
    if (points && type_is(type, "sensor.lidar.ray_cast_semantic"))
        return bev_picture(msg, SN_BEV_SEMANTIC_LIDAR, scratch, cap, out, err);
    if (points && type_is(type, "sensor.other.radar"))
        return bev_picture(msg, SN_BEV_RADAR, scratch, cap, out, err);
    const bool flow = type_is(type, "sensor.camera.optical_flow");
    const msgpack_object *w = msg->type == MSGPACK_OBJECT_MAP ? sn_mp_get(msg, "width") : NULL;
    const msgpack_object *h = w ? sn_mp_get(msg, "height") : NULL;
    const msgpack_object *raw = h ? sn_mp_get(msg, "raw_data") : NULL;
    const msgpack_object *events = h && !raw ? sn_mp_get(msg, "events") : NULL; /* a DVS: its event frame */
    raw = raw ? raw : events;
    const msgpack_object *frame = raw ? sn_mp_get(msg, "frame") : NULL;
    if (!frame || w->type != MSGPACK_OBJECT_POSITIVE_INTEGER || h->type != MSGPACK_OBJECT_POSITIVE_INTEGER ||
        raw->type != MSGPACK_OBJECT_BIN || frame->type != MSGPACK_OBJECT_POSITIVE_INTEGER)
        return sn_fail(err, SN_E_INVALID, "not a camera image: a message needs frame, width, height and raw_data (or events)");
    uint64_t W = w->via.u64, H = h->via.u64;
    if (!W || !H || W > 16384 || H > 16384 ||
        (events ? raw->via.bin.size % 13 : (uint64_t)raw->via.bin.size != W * H * (flow ? 8 : 4)))
        return sn_fail(err, SN_E_INVALID, "corrupt camera image: %s has %u bytes for %llux%llu pixels",
                       events ? "events" : "raw_data", raw->via.bin.size, (unsigned long long)W, (unsigned long long)H);
    size_t px = (size_t)(W * H);
    if (!sn_grow((void **)scratch, cap, px * (events ? 7 : 3), 1))
        return sn_fail(err, SN_E_NOMEM, "out of memory for a %llux%llu image", (unsigned long long)W, (unsigned long long)H);
    const uint8_t *bgra = (const uint8_t *)raw->via.bin.ptr;
    if (events) {
        /* the event frame goes after the RGB output in the same scratch buffer */
        if (!sn_event_frame(bgra, raw->via.bin.size / 13, (uint32_t)W, (uint32_t)H, *scratch + px * 3))
            return sn_fail(err, SN_E_INVALID, "corrupt event stream: an event lies outside the %llux%llu picture",
                           (unsigned long long)W, (unsigned long long)H);
        bgra = *scratch + px * 3;
    }
    if (flow) /* CARLA's colour code; converters apply to colour images only */
        sn_flow_image(bgra, px, *scratch);
    else
        sn_convert_bgra(c, bgra, px, *scratch);
    *out = (sn_picture_size){(uint32_t)W, (uint32_t)H, frame->via.u64};
    return SN_OK;
}

sn_status sn_image_make_file(const msgpack_object *msg, const char *pattern, sn_converter c, uint64_t share,
                             uint8_t **scratch, size_t *cap, sn_image_file *out, sn_error *err)
{
    sn_image_format f = SN_FMT_PNG;
    (void)sn_image_format_of(pattern, &f); /* checked with the pattern */
    sn_picture_size ps;
    *out = (sn_image_file){0};
    sn_status st;
    if (f == SN_FMT_PGM || f == SN_FMT_PFM) { /* the file from the message's own values */
        st = sn_netpbm_of_message(f, msg, c, scratch, cap, &out->len, &ps, err);
    } else if (!(st = sn_image_picture(msg, c, true, scratch, cap, &ps, err)) && f == SN_FMT_PPM) {
        out->head_len = sn_ppm_header(out->head, ps.width, ps.height);
        out->len = (size_t)ps.width * ps.height * 3;
    }
    if (st)
        return st;
    if (f == SN_FMT_PNG)
        return sn_image_png_file(*scratch, ps, share, out, err);
    out->frame = ps.frame;
    out->data = *scratch;
    return SN_OK;
}

sn_status sn_image_png_file(const uint8_t *rgb, sn_picture_size ps, uint64_t share, sn_image_file *out, sn_error *err)
{
    *out = (sn_image_file){.frame = ps.frame};
    if (!(out->data = sn_png_encode_rgb_tls((int)ps.width, (int)ps.height, rgb, &out->len)))
        return sn_fail(err, SN_E_NOMEM, "out of memory for a PNG");
    sn_png_share_publish(share, out->data, out->len); /* the MCAP view's copy (png_share.h) */
    return SN_OK;
}

sn_status sn_image_write_file(const char *dir, const char *pattern, const sn_image_file *file, sn_error *err)
{
    char path[4096];
    sn_status st = sn_image_path(dir, pattern, file->frame, path, sizeof path, err);
    if (st)
        return st;
    bool ok = sn_write_file(path, file->head, file->head_len, file->data, file->len);
    if (!ok && errno == ENOENT) { /* its folders are made once, not tried for every image */
        if ((st = make_parents(path, err)))
            return st;
        ok = sn_write_file(path, file->head, file->head_len, file->data, file->len);
    }
    return ok ? SN_OK : sn_fail(err, SN_E_IO, "cannot write %s: %s", path, strerror(errno));
}

sn_status sn_image_save_message(const msgpack_object *msg, const char *dir, const char *pattern, sn_converter c,
                                uint64_t share, uint8_t **scratch, size_t *cap, sn_error *err)
{
    sn_image_file file;
    sn_status st = sn_image_make_file(msg, pattern, c, share, scratch, cap, &file, err);
    return st ? st : sn_image_write_file(dir, pattern, &file, err);
}

sn_status sn_convert_stream(const char *path, const char *dir, sn_converter c, const char *ext, size_t *written,
                            sn_error *err)
{
    *written = 0;
    char pattern[32];
    snprintf(pattern, sizeof pattern, "%%06d.%s", ext ? ext : "png");
    sn_image_format f;
    if (!sn_image_format_of(pattern, &f))
        return sn_fail(err, SN_E_INVALID, "unknown image format '%s' (png, ppm, pgm or pfm)", ext);
    sn_msgreader r;
    sn_status st = sn_msgreader_open(&r, path, err);
    if (st)
        return st;
    msgpack_unpacked res;
    msgpack_unpacked_init(&res);
    uint8_t *scratch = NULL;
    size_t cap = 0;
    const uint8_t *msg;
    size_t len;
    while (!st && (st = sn_msgreader_next(&r, &msg, &len, err)) == SN_OK) {
        size_t off = 0;
        if (msgpack_unpack_next(&res, (const char *)msg, len, &off) != MSGPACK_UNPACK_SUCCESS ||
            res.data.type != MSGPACK_OBJECT_MAP) {
            st = sn_fail(err, SN_E_INVALID, "%s: corrupt stream (message %zu at byte %llu)", path, *written + 1,
                         (unsigned long long)(r.offset - len));
            break;
        }
        if ((st = sn_image_save_message(&res.data, dir, pattern, c, 0, &scratch, &cap, err))) {
            char m[sizeof err->msg];
            sn_format(m, sizeof m, "%s", err->msg);
            sn_fail(err, st, "%s: message %zu: %s", path, *written + 1, m);
        } else {
            (*written)++;
        }
    }
    if (st == SN_E_NOT_FOUND)
        st = SN_OK;
    msgpack_unpacked_destroy(&res);
    free(scratch);
    sn_msgreader_close(&r);
    return st;
}
