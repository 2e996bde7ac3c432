/*
** fuzz_reader.c — libFuzzer target for the recording reader (plugins/recorder): the bytes go
** to a file, which is opened, described, read to the end, seeked to the middle and read again.
** Any crash, leak or sanitizer report is a bug; refusals with a message are the expected end.
** Built only with clang (-Dfuzz=true); `meson test fuzz_reader` runs it for a bounded time on
** tests/fuzz/corpus. Without clang, the same file runs the corpus once as a plain test.
*/
#include "../../plugins/recorder/reader.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/sn_fuzz_%d.rec", (int)getpid());
    FILE *f = fopen(path, "wb");
    if (!f)
        return 0;
    fwrite(data, 1, size, f);
    fclose(f);
    const sn_log_reader *rd = &rec_log_reader;
    rd->probe(data, size);
    void *self = NULL;
    char why[256];
    if (rd->open(path, &self, why, sizeof why) == SN_OK) {
        sn_log_info in = {.struct_size = sizeof in};
        rd->describe(self, &in);
        const sn_log_frame *fr;
        for (int pass = 0; pass < 2; pass++) {
            for (int k = 0; k < 100000 && rd->next(self, &fr) == SN_OK; k++)
                ;
            rd->seek(self, in.last_elapsed / 2);
        }
        rd->close(self);
    }
    remove(path);
    return 0;
}

#include "standalone.h"
