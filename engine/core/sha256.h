/* sha256.h — a plain SHA-256 (FIPS 180-4): no crypto library for a checksum of an output or
** of a map's text (a recording names its map by it). Self-contained: the program compiles it in
** too (it links the public API alone). */
#ifndef SN_CORE_SHA256_H
#define SN_CORE_SHA256_H

#include <stddef.h>
#include <stdint.h>

typedef struct sn_sha256 {
    uint32_t h[8];
    uint64_t len;
    unsigned char buf[64];
    size_t n;
} sn_sha256;

void sn_sha256_init(sn_sha256 *s);
void sn_sha256_update(sn_sha256 *s, const void *p, size_t n);
/* The lower-case hex digest (64 characters + NUL); s is spent. */
void sn_sha256_hex(sn_sha256 *s, char hex[65]);
/* init, update, hex of one buffer. */
void sn_sha256_of(const void *p, size_t n, char hex[65]);

#endif
