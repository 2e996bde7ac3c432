/* test_uni.h — a test's uniform random numbers (xorshift64). The test defines TEST_UNI_SEED before
** including it, so each test keeps its own fixed sequence. */
#ifndef TEST_UNI_H
#define TEST_UNI_H

#include <stdint.h>

static uint64_t rng = TEST_UNI_SEED;
static double uni(void) /* [0, 1) */
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (double)(rng >> 11) * 0x1p-53;
}

#endif
