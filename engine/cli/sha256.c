/* sha256.c — SHA-256 of a file for the batch manifest (the hash itself: engine/core/sha256.c). */
#include "sha256.h"
#include "cli_input.h"
#include "../core/sha256.h"

#include <stdio.h>

bool sn_cli_sha256_file(const char *path, char hex[65], uint64_t *size)
{
    FILE *f = sn_cli_open_input(path, NULL); /* a FIFO planted among the outputs would block */
    if (!f)
        return false;
    sn_sha256 s;
    sn_sha256_init(&s);
    static _Thread_local unsigned char buf[1 << 16];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        sn_sha256_update(&s, buf, n);
    bool ok = !ferror(f);
    fclose(f);
    *size = s.len;
    sn_sha256_hex(&s, hex);
    return ok;
}
