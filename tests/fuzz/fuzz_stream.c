/*
** fuzz_stream.c — libFuzzer target for the stream reader behind `sensim dump` and `sensim
** convert` (engine/data): the bytes are a stream file, dumped as JSON (bins summarised and in
** full) and converted to PNGs in a scratch folder. Any crash, hang, leak or sanitizer report is
** a bug; refusals are the expected end. Built by tests/fuzz/run_fuzz.sh like fuzz_reader.
*/
#include "../../engine/data/dump.h"
#include "../../engine/data/image.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
    for (int full = 0; null && full < 2; full++) {
        sn_error err = {0};
        sn_dump_file(path, null, full, &err);
    }
    if (null)
        fclose(null);
    mkdir(dir, 0777);
    sn_error err = {0};
    size_t n = 0;
    sn_convert_stream(path, dir, SN_CONV_CITYSCAPES, &n, &err);
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
