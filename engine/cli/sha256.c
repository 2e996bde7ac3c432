/* sha256.c — SHA-256 of a file for the batch manifest, through the library (sn_sha256_file). */
#include "sha256.h"

#include <sensim/sensim.h>

bool sn_cli_sha256_file(const char *path, char hex[65], uint64_t *size)
{
    return sn_sha256_file(path, hex, size);
}
