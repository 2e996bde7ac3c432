/* test_stream_reader.c — the public stream reader (sensim.h) on stream files written here with
** msgpack-c: headers as written, pictures as the converters define them (BGRA to RGB, depth
** gray, DVS event frames, lidar only with `points`), the end and every kind of bad file told
** apart; and the GIF palette (engine/cli/palette.c): exact colours kept, median cut close.
** usage: test_stream_reader TMP_DIR */
#include <sensim/data.h>
#include <sensim/sensim.h>

#include "../../engine/cli/palette.h"
#include "../check.h"

#include <msgpack.h>
#include <stdlib.h>
#include <sys/stat.h>

static void pack_str(msgpack_packer *pk, const char *s)
{
    msgpack_pack_str(pk, strlen(s));
    msgpack_pack_str_body(pk, s, strlen(s));
}

/* A camera message with the header keys and W x H BGRA pixels from `bgra`. */
static void camera_msg(msgpack_packer *pk, uint64_t frame, double t, const char *type, uint32_t w, uint32_t h,
                       const uint8_t *bgra)
{
    msgpack_pack_map(pk, 8);
    pack_str(pk, "frame"), msgpack_pack_uint64(pk, frame);
    pack_str(pk, "timestamp"), msgpack_pack_double(pk, t);
    pack_str(pk, "sensor"), pack_str(pk, "front");
    pack_str(pk, "type"), pack_str(pk, type);
    pack_str(pk, "sensor_id"), msgpack_pack_uint32(pk, 42);
    pack_str(pk, "width"), msgpack_pack_uint32(pk, w);
    pack_str(pk, "height"), msgpack_pack_uint32(pk, h);
    pack_str(pk, "raw_data"), msgpack_pack_bin(pk, (size_t)w * h * 4), msgpack_pack_bin_body(pk, bgra, (size_t)w * h * 4);
}

static void write_file(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    fwrite(data, 1, n, f);
    fclose(f);
}

static void test_reader(const char *dir) /* dir: at most 4000 bytes */
{
    uint8_t px[3 * 2 * 4];
    for (int i = 0; i < (int)sizeof px; i++)
        px[i] = (uint8_t)(i * 11 + 3);
    msgpack_sbuffer sb;
    msgpack_sbuffer_init(&sb);
    msgpack_packer pk;
    msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
    camera_msg(&pk, 2, 0.1, "sensor.camera.depth", 3, 2, px);
    camera_msg(&pk, 4, 0.2, "sensor.camera.depth", 3, 2, px);
    char path[4200];
    snprintf(path, sizeof path, "%s/depth.msgpack", dir);
    write_file(path, sb.data, sb.size);

    sn_error err = {0};
    sn_stream_reader *r = sn_stream_reader_open(path, &err);
    CHECK(r != NULL, "open: %s", err.msg);
    sn_message m;
    sn_picture pic;
    CHECK(sn_stream_reader_picture(r, SN_COLOR_RAW, false, &pic, &err) == SN_E_STATE, "a picture before any message");
    CHECK(sn_stream_reader_next(r, &m, &err) == SN_OK, "first: %s", err.msg);
    CHECK(m.frame == 2 && m.timestamp == 0.1 && !strcmp(m.sensor, "front") && !strcmp(m.type_id, "sensor.camera.depth") &&
              m.sensor_id == 42 && m.size == sb.size / 2,
          "header: frame %llu t %g sensor %s type %s id %u size %zu", (unsigned long long)m.frame, m.timestamp, m.sensor,
          m.type_id, m.sensor_id, m.size);
    CHECK(sn_stream_reader_picture(r, SN_COLOR_RAW, false, &pic, &err) == SN_OK && pic.width == 3 && pic.height == 2 &&
              pic.frame == 2,
          "raw picture: %s", err.msg);
    int bad = 0;
    for (int i = 0; i < 6; i++)
        bad += pic.rgb[3 * i] != px[4 * i + 2] || pic.rgb[3 * i + 1] != px[4 * i + 1] || pic.rgb[3 * i + 2] != px[4 * i];
    CHECK(bad == 0, "raw: %d pixels are not BGRA's R, G, B", bad);
    CHECK(sn_stream_reader_picture(r, SN_COLOR_DEPTH, false, &pic, &err) == SN_OK, "depth picture: %s", err.msg);
    bad = 0;
    for (int i = 0; i < 6; i++) {
        /* CARLA's depth: (R + 256 G + 65536 B) / (2^24 - 1), as a gray level */
        float n = (float)(px[4 * i + 2] + 256u * px[4 * i + 1] + 65536u * px[4 * i]) / 16777215.0f;
        uint8_t g = (uint8_t)(n * 255.0f + 0.5f);
        bad += pic.rgb[3 * i] != g || pic.rgb[3 * i + 1] != g || pic.rgb[3 * i + 2] != g;
    }
    CHECK(bad == 0, "depth: %d pixels differ from CARLA's formula", bad);
    CHECK(sn_stream_reader_next(r, &m, &err) == SN_OK && m.frame == 4, "second message");
    CHECK(sn_stream_reader_next(r, &m, &err) == SN_E_NOT_FOUND && err.status == SN_E_NOT_FOUND, "the end: %s", err.msg);
    char end[4300];
    snprintf(end, sizeof end, "%s", err.msg);
    sn_stream_reader_close(r);

    /* data.h's sn_stream_file is the same reader handing out bytes: the same messages, the same end */
    sn_stream_file *sf = sn_stream_file_open(path, &err);
    const void *bytes;
    size_t nb;
    CHECK(sf && sn_stream_file_next(sf, &bytes, &nb, &err) == SN_OK && nb == sb.size / 2 && !memcmp(bytes, sb.data, nb),
          "stream_file: the first message's bytes");
    CHECK(sn_stream_file_next(sf, &bytes, &nb, &err) == SN_OK && nb == sb.size / 2 &&
              !memcmp(bytes, sb.data + sb.size / 2, nb), "stream_file: the second");
    CHECK(sn_stream_file_next(sf, &bytes, &nb, &err) == SN_E_NOT_FOUND && !strcmp(err.msg, end),
          "stream_file: the end says what the reader says: '%s' / '%s'", err.msg, end);
    sn_stream_file_close(sf);

    /* cut inside the second message: the first reads, then a truncated stream naming the byte */
    snprintf(path, sizeof path, "%s/cut.msgpack", dir);
    write_file(path, sb.data, sb.size - 5);
    r = sn_stream_reader_open(path, &err);
    CHECK(r && sn_stream_reader_next(r, &m, &err) == SN_OK, "cut: the first message");
    CHECK(sn_stream_reader_next(r, &m, &err) == SN_E_INVALID, "cut: the second is refused");
    CHECK_CONTAINS(err.msg, "truncated stream");
    char at[64];
    snprintf(at, sizeof at, "at byte %zu", sb.size / 2);
    CHECK_CONTAINS(err.msg, at);
    sn_stream_reader_close(r);

    /* a map without the header keys; a non-camera message has no picture */
    msgpack_sbuffer_clear(&sb);
    msgpack_pack_map(&pk, 5);
    pack_str(&pk, "frame"), msgpack_pack_uint64(&pk, 1);
    pack_str(&pk, "timestamp"), msgpack_pack_double(&pk, 0.05);
    pack_str(&pk, "sensor"), pack_str(&pk, "crash");
    pack_str(&pk, "type"), pack_str(&pk, "sensor.other.collision");
    pack_str(&pk, "other_actor"), msgpack_pack_uint32(&pk, 7);
    msgpack_pack_map(&pk, 1);
    pack_str(&pk, "frame"), msgpack_pack_uint64(&pk, 2);
    snprintf(path, sizeof path, "%s/odd.msgpack", dir);
    write_file(path, sb.data, sb.size);
    r = sn_stream_reader_open(path, &err);
    CHECK(r && sn_stream_reader_next(r, &m, &err) == SN_OK && m.sensor_id == 0, "a message without sensor_id reads");
    CHECK(sn_stream_reader_picture(r, SN_COLOR_RAW, true, &pic, &err) == SN_E_INVALID, "a collision has no picture");
    CHECK_CONTAINS(err.msg, "not a camera image");
    CHECK(sn_stream_reader_next(r, &m, &err) == SN_E_INVALID, "a map without the header keys");
    CHECK_CONTAINS(err.msg, "is not a map with frame, timestamp, sensor and type");
    sn_stream_reader_close(r);

    /* a lidar message: a picture (the bird's-eye view) only when points are asked for */
    msgpack_sbuffer_clear(&sb);
    float pt[4] = {10, 0, 0, 1};
    msgpack_pack_map(&pk, 5);
    pack_str(&pk, "frame"), msgpack_pack_uint64(&pk, 1);
    pack_str(&pk, "timestamp"), msgpack_pack_double(&pk, 0.05);
    pack_str(&pk, "sensor"), pack_str(&pk, "lidar");
    pack_str(&pk, "type"), pack_str(&pk, "sensor.lidar.ray_cast");
    pack_str(&pk, "raw_data"), msgpack_pack_bin(&pk, sizeof pt), msgpack_pack_bin_body(&pk, pt, sizeof pt);
    snprintf(path, sizeof path, "%s/lidar.msgpack", dir);
    write_file(path, sb.data, sb.size);
    r = sn_stream_reader_open(path, &err);
    CHECK(r && sn_stream_reader_next(r, &m, &err) == SN_OK, "lidar message");
    CHECK(sn_stream_reader_picture(r, SN_COLOR_RAW, false, &pic, &err) == SN_E_INVALID, "lidar without points");
    CHECK(sn_stream_reader_picture(r, SN_COLOR_RAW, true, &pic, &err) == SN_OK && pic.width == 500 && pic.height == 500,
          "lidar with points: %s", err.msg);
    /* 10 m ahead at 0.2 m a pixel: 50 rows above the centre, grey 96 + 159 * intensity */
    const uint8_t *p = pic.rgb + 3 * ((size_t)(250 - 50) * 500 + 250);
    CHECK(p[0] == 255 && p[1] == 255 && p[2] == 255, "the point is at row 200, column 250: %u %u %u", p[0], p[1], p[2]);
    sn_stream_reader_close(r);

    snprintf(path, sizeof path, "%s/none.msgpack", dir);
    CHECK(sn_stream_reader_open(path, &err) == NULL && err.status == SN_E_IO, "a missing file: %s", err.msg);
    msgpack_sbuffer_destroy(&sb);
}

static void test_palette(void)
{
    static sn_palette p;
    /* 200 colours: kept exactly, every pixel mapped to its own colour */
    uint8_t img[200 * 3], idx[200];
    for (int i = 0; i < 200; i++)
        img[3 * i] = (uint8_t)i, img[3 * i + 1] = (uint8_t)(255 - i), img[3 * i + 2] = (uint8_t)(i * 7);
    sn_palette_init(&p);
    sn_palette_add(&p, img, 200);
    sn_palette_build(&p);
    sn_palette_map(&p, img, 200, idx);
    int bad = 0;
    for (int i = 0; i < 200; i++)
        bad += p.argb[idx[i]] != (0xFF000000u | (uint32_t)img[3 * i] << 16 | (uint32_t)img[3 * i + 1] << 8 | img[3 * i + 2]);
    CHECK(!p.too_many && p.n == 200 && bad == 0, "exact palette: %u colours, %d pixels changed", p.n, bad);

    /* a smooth gradient of 64 x 64 x 4 colours: median cut, every pixel within 24 levels a channel */
    enum { N = 64 * 64 * 4 };
    static uint8_t g[N * 3], gi[N];
    for (int i = 0; i < N; i++)
        g[3 * i] = (uint8_t)(i % 64 * 4), g[3 * i + 1] = (uint8_t)(i / 64 % 64 * 4), g[3 * i + 2] = (uint8_t)(i / 4096 * 64);
    sn_palette_init(&p);
    sn_palette_add(&p, g, N);
    sn_palette_build(&p);
    sn_palette_map(&p, g, N, gi);
    int worst = 0;
    for (int i = 0; i < N; i++)
        for (int c = 0; c < 3; c++) {
            int v = (int)(p.argb[gi[i]] >> (16 - 8 * c) & 255), d = abs(v - g[3 * i + c]);
            worst = d > worst ? d : worst;
        }
    CHECK(p.too_many && p.n == 256 && worst <= 24, "median cut: %u colours, worst channel error %d", p.n, worst);
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    char dir[4000];
    snprintf(dir, sizeof dir, "%.3900s/stream_reader", argv[1]);
    mkdir(argv[1], 0777);
    mkdir(dir, 0777);
    test_reader(dir);
    test_palette();
    return CHECK_DONE();
}
