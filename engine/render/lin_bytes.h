/* lin_bytes.h — anti-aliasing's way back from linear light to a byte: the mean of n samples'
** linear values rounded to the byte whose linear value is nearest (render.c's resolve). */
#ifndef SN_RENDER_LIN_BYTES_H
#define SN_RENDER_LIN_BYTES_H

#include <stdint.h>

typedef struct sn_lin_bytes {
    uint32_t lin[256];   /* gamma-2.2 bytes in linear light, 2^16 scale */
    uint32_t mid2[256];  /* twice the midpoints between consecutive lin[], then a sentinel */
    uint8_t guess[4097]; /* the byte for a linear value / 16, give or take one */
} sn_lin_bytes;

void sn_lin_bytes_init(sn_lin_bytes *t);

/* The byte whose linear value (lin[]) is nearest to the mean sum / n: mid[b - 1] <= sum / n <
** mid[b] for the midpoints mid = mid2 / 2, tested in integers as n mid2[b - 1] <= 2 sum < n mid2[b]
** (the same decisions as comparing the double sum / n, which lies at least 1 / 2n from a midpoint
** it is not on, far more than its rounding). The start, guess[] at about sum / 16n (inv16n = 1 / 16n:
** a product, not a division), may be a bucket off; the searches end at the one such b from any. */
static inline uint8_t sn_lin_to_byte(const sn_lin_bytes *t, uint32_t sum, uint32_t n, float inv16n)
{
    const uint64_t s2 = 2 * (uint64_t)sum;
    const uint32_t k = (uint32_t)((float)sum * inv16n);
    int b = t->guess[k > 4096 ? 4096 : k];
    while (b > 0 && s2 < (uint64_t)n * t->mid2[b - 1])
        b--;
    b += s2 >= (uint64_t)n * t->mid2[b]; /* a step up without a branch: a bucket of guess[] holds one
                                          ** midpoint or none but in the darkest few */
    while (s2 >= (uint64_t)n * t->mid2[b])
        b++;
    return (uint8_t)b;
}

/* sn_lin_to_byte at n = 4 (2 x 2 samples), the same byte: 2 sum < 4 mid2[b] is sum < 2 mid2[b],
** and as 2 mid2[b] is even, (sum >> 1) < mid2[b]; guess[sum >> 6] (sum >> 6 is sn_lin_to_byte's k,
** exact here) is the byte at the bucket's least sum, so the search only steps up, and one step
** without a branch ends it but in the darkest buckets (tests/unit/test_lin_bytes.c: every sum) */
static inline uint8_t sn_lin_to_byte4(const sn_lin_bytes *t, uint32_t sum)
{
    const uint32_t v = sum >> 1, k = sum >> 6;
    uint32_t b = t->guess[k > 4096 ? 4096 : k];
    b += v >= t->mid2[b];
    while (v >= t->mid2[b])
        b++;
    return (uint8_t)b;
}

#endif
