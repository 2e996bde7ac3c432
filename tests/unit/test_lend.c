/* test_lend.c — the process-wide lists that lend per-frame memory (engine/core/lend.h, and the shadow
** map's texel sets, engine/render/shadow_maps.h): a block is the holder's alone until given back,
** big enough and 64-byte aligned, the last given back is lent first, a block grows when a taker asks
** for more, and threads taking and giving at once never share one. */
#include "../../engine/core/lend.h"
#include "../../engine/render/shadow.h"
#include "../../engine/render/shadow_maps.h"
#include "../check.h"

#include <float.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>

#define THREADS 4
#define ROUNDS  2000

static int bad_in_thread[THREADS];

/* each thread fills its block with its own byte and checks it after a yield: a block lent to two
** holders at once would show the other's byte */
static void *churn(void *arg)
{
    const int me = (int)(intptr_t)arg;
    for (int r = 0; r < ROUNDS; r++) {
        const size_t bytes = 256 + (size_t)((r * 7 + me * 13) % 5) * 1024;
        void *m;
        sn_lent *b = sn_lend_take(bytes, &m);
        if (!b) {
            bad_in_thread[me]++;
            continue;
        }
        memset(m, 0x40 + me, bytes);
        sched_yield();
        for (size_t i = 0; i < bytes; i++)
            if (((unsigned char *)m)[i] != 0x40 + me) {
                bad_in_thread[me]++;
                break;
            }
        sn_lend_give(b);
    }
    return NULL;
}

int main(void)
{
    void *a, *b2, *c;
    sn_lent *A = sn_lend_take(100, &a);
    CHECK(A && a && ((uintptr_t)a & 63) == 0, "a block of 100 bytes, 64-byte aligned (%p)", a);
    memset(a, 1, 100);
    sn_lend_give(A);
    sn_lent *B = sn_lend_take(50, &b2);
    CHECK(B == A && b2 == a, "a smaller request gets the block just given back (the warmest)");
    sn_lent *C = sn_lend_take(80, &c);
    CHECK(C && C != B && c != b2, "a block held is never lent again");
    memset(c, 2, 80);
    CHECK(((unsigned char *)b2)[0] == 1 && ((unsigned char *)b2)[99] == 1, "the holder's bytes stay its own");
    sn_lend_give(B), sn_lend_give(C);
    void *big;
    sn_lent *D = sn_lend_take(1 << 20, &big);
    CHECK(D && big && ((uintptr_t)big & 63) == 0, "a bigger request grows an idle block");
    memset(big, 3, 1 << 20); /* under ASan: the whole size is there */
    sn_lend_give(D);
    sn_lend_give(NULL); /* nothing */

    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        CHECK(pthread_create(&t[i], NULL, churn, (void *)(intptr_t)i) == 0, "thread %d", i);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    for (int i = 0; i < THREADS; i++)
        CHECK(bad_in_thread[i] == 0, "thread %d saw another holder's bytes or no block %d times", i, bad_in_thread[i]);

    /* the shadow map's sets: made as a fresh map's (never NaN), the last given back lent first */
    sn_shadow_maps *m1 = sn_shadow_maps_take(), *m2 = sn_shadow_maps_take();
    CHECK(m1 && m2 && m1 != m2 && m1->depth != m2->depth, "two sets held at once are two");
    if (m1 && m2) {
        const size_t texels = (size_t)SN_SHADOW_SIZE * SN_SHADOW_SIZE;
        size_t not_max = 0, not_zero = 0;
        for (size_t i = 0; i < texels; i++)
            not_max += m1->depth[i] != FLT_MAX, not_zero += i < texels / 2 && m1->win[i] != 0.0f; /* pairs: half */
        CHECK(not_max == 0 && not_zero == 0, "a new set: depths FLT_MAX, windows 0 (%zu, %zu off)", not_max, not_zero);
        sn_shadow_maps_give(m1), sn_shadow_maps_give(m2);
        sn_shadow_maps *m3 = sn_shadow_maps_take();
        CHECK(m3 == m2, "the set given back last is lent first");
        sn_shadow_maps_give(m3);
    }
    return CHECK_DONE();
}
