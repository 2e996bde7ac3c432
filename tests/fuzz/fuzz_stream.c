/*
** fuzz_stream.c — libFuzzer target for the stream reader behind `sensim dump` and `sensim
** convert` (engine/data): the bytes are a stream file, dumped as JSON (bins summarised and in
** full, records decoded) and converted to PNGs in a scratch folder; the same bytes, as one
** message, go through every typed reader of sensim/data.h (engine/data/msgview.c). Any crash,
** hang, leak or sanitizer report is a bug; refusals are the expected end. Built by tests/fuzz/run_fuzz.sh like fuzz_reader.
*/
#include "../../engine/data/dump.h"
#include "../../engine/data/image.h"

#include <sensim/data.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The bytes as a listener's message, in a buffer of exactly their size (ASan sees any read past). */
static void read_typed(const uint8_t *data, size_t size)
{
    uint8_t *m = malloc(size ? size : 1);
    if (!m)
        return;
    memcpy(m, data, size);
    sn_error err = {0};
    sn_data_header h = {.struct_size = sizeof h};
    sn_data_image im = {.struct_size = sizeof im};
    sn_data_collision c = {.struct_size = sizeof c};
    sn_data_events ev = {.struct_size = sizeof ev};
    sn_data_points p = {.struct_size = sizeof p};
    volatile double sink = 0;
    sn_data_header_read(m, size, &h, &err);
    if (sn_data_image_read(m, size, &im, &err) == SN_OK && im.width && im.height)
        sink += sn_data_image_depth_at(&im, im.width - 1, im.height - 1);
    sn_data_collision_read(m, size, &c, &err);
    if (sn_data_events_read(m, size, &ev, &err) == SN_OK)
        for (size_t i = 0; i < ev.count; i++) {
            uint8_t tag;
            uint32_t id;
            sn_data_event_label_at(&ev, i, &tag, &id);
            sink += (double)sn_data_event_at(&ev, i).t + tag + id;
        }
    if (sn_data_points_read(m, size, &p, &err) == SN_OK)
        for (size_t i = 0; i < p.count; i++)
            sink += sn_data_lidar_point_at(&p, i).x + sn_data_semantic_point_at(&p, i).x +
                    sn_data_radar_detection_at(&p, i).depth;
    (void)sink;
    free(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64], dir[64];
    snprintf(path, sizeof path, "/tmp/sn_fuzz_stream_%d.msgpack", (int)getpid());
    snprintf(dir, sizeof dir, "/tmp/sn_fuzz_stream_%d.d", (int)getpid());
    FILE *f = fopen(path, "wb");
    if (!f)
        return 0;
    fwrite(data, 1, size, f);
    fclose(f);
    FILE *null = fopen("/dev/null", "w");
    for (unsigned flags = 0; null && flags < 4; flags++) { /* SN_DUMP_BASE64, SN_DUMP_DECODE */
        sn_error err = {0};
        sn_dump_file(path, null, flags, &err);
    }
    read_typed(data, size);
    if (null)
        fclose(null);
    mkdir(dir, 0777);
    sn_error err = {0};
    size_t n = 0;
    sn_convert_stream(path, dir, SN_CONV_CITYSCAPES, NULL, &n, &err);
    static const char *const formats[] = {"ppm", "pgm", "pfm"}; /* netpbm.c reads the message itself */
    for (int i = 0; i < 3; i++)
        sn_convert_stream(path, dir, i ? SN_CONV_RAW : SN_CONV_DEPTH, formats[i], &n, &err);
    DIR *d = opendir(dir);
    struct dirent *de;
    while (d && (de = readdir(d))) {
        char p[400];
        snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
        if (de->d_name[0] != '.')
            remove(p);
    }
    if (d)
        closedir(d);
    rmdir(dir);
    remove(path);
    return 0;
}

#include "standalone.h"
