/* test_lin_bytes.c — anti-aliasing's bytes (engine/render/lin_bytes.h) against the definition:
** for every sum of n samples' linear values (n = 1, 4, 9, 16: anti-aliasing 1-4), the byte whose
** linear value is nearest to the mean, a tie going to the brighter byte (the midpoint rule), found
** by a plain scan in exact integers; and sn_lin_to_byte4 equal to sn_lin_to_byte at every sum. */
#include "../../engine/render/lin_bytes.h"
#include "../check.h"

#include <stdio.h>

int main(void)
{
    static sn_lin_bytes t;
    sn_lin_bytes_init(&t);
    CHECK(t.lin[0] == 0 && t.lin[255] == 65535, "lin[] spans 0..65535 (%u..%u)", t.lin[0], t.lin[255]);
    for (int i = 1; i < 256; i++)
        CHECK(t.lin[i] > t.lin[i - 1] || i < 8, "lin[] rises at %d", i);
    const uint32_t ns[4] = {1, 4, 9, 16};
    for (int j = 0; j < 4; j++) {
        const uint32_t n = ns[j];
        const float inv16n = 1.0f / (float)(16 * n);
        long bad = 0, bad4 = 0;
        uint32_t want = 0;
        for (uint32_t sum = 0; sum <= n * 65535u; sum++) {
            /* nearest: |n lin[b] - sum| least, ties up; sums rise, so the answer only moves up */
            while (want < 255) {
                int64_t here = (int64_t)n * t.lin[want] - sum, next = (int64_t)n * t.lin[want + 1] - sum;
                if ((next < 0 ? -next : next) > (here < 0 ? -here : here))
                    break;
                want++;
            }
            bad += sn_lin_to_byte(&t, sum, n, inv16n) != want;
            if (n == 4)
                bad4 += sn_lin_to_byte4(&t, sum) != want;
        }
        printf("n = %u: %u sums, %ld bytes off the nearest, %ld by the 2 x 2 path\n", n, n * 65535u + 1, bad, bad4);
        CHECK(bad == 0, "n = %u: %ld sums rounded to another byte than the nearest", n, bad);
        CHECK(bad4 == 0, "n = 4: sn_lin_to_byte4 differs at %ld sums", bad4);
    }
    return CHECK_DONE();
}
