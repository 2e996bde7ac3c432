/* sha256.h — SHA-256 of a file, for the batch manifest's output checksums (FIPS 180-4). */
#ifndef SN_CLI_SHA256_H
#define SN_CLI_SHA256_H

#include <stdbool.h>
#include <stdint.h>

/* Writes the lower-case hex digest (64 characters + NUL) of the file; false if unreadable. */
bool sn_cli_sha256_file(const char *path, char hex[65], uint64_t *size);

#endif
