/* The tent windows' least depths (engine/render/shadow_window.c) against the least of each
** window's 16 texels taken one by one: random maps with plateaus, FLT_MAX (nothing drawn) and
** equal depths, widths that are and are not multiples of 8, eight lanes and four, rows asked in
** bands (as the shadow map's tasks ask them) and rows outside them left alone. The lookup that
** uses them is checked bit for bit against the tent in test_shadow_bounds. */
#include "../../engine/render/lanes.h"
#include "../../engine/render/shadow_window.h"
#include "../check.h"

#include <float.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define TEST_UNI_SEED 0x9E3779B97F4A7C15u
#include "test_uni.h"

int main(void)
{
    const int32_t sizes[] = {8, 16, 60, 64, 72, 1024};
    size_t windows = 0, asked_n = 0;
    for (int run = 0; run < 6; run++) { /* eight lanes and four; whole rows, then random columns */
        const int wide = run / 3, part = run % 3;
        sn_lanes_set_wide(wide);
        for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
            const int32_t n = sizes[k];
            const size_t nn = (size_t)n * (size_t)n;
            float *d = malloc(nn * sizeof *d), *w = malloc(nn * sizeof *w);
            CHECK(d && w, "memory");
            for (size_t i = 0; i < nn; i++) {
                const double r = uni();
                d[i] = r < 0.3 ? FLT_MAX : r < 0.4 ? 7.0f : (float)(uni() * 200 - 100);
            }
            for (size_t i = 0; i < nn; i++)
                w[i] = -1234.5f; /* not written: stays */
            /* bands of rows, each its own columns  */
            const int32_t band = n >= 64 ? 16 : 4;
            int32_t lo[1024 / 4], hi[1024 / 4];
            for (int32_t b = 0; b * band < n; b++) {
                lo[b] = part ? (int32_t)(uni() * n) - 3 : 0, hi[b] = part ? lo[b] + (int32_t)(uni() * n / 2) : n - 1;
                sn_shadow_window_min(d, n, w, b * band, b * band + band, lo[b], hi[b]);
            }
            for (int32_t y = 0; y < n; y++)
                for (int32_t x = 0; x < n; x++) {
                    const float got = w[(size_t)y * n + x];
                    if (x > n - 4 || y > n - 4) {
                        CHECK(got == -1234.5f, "size %d: (%d, %d) outside the windows written", n, x, y);
                        continue;
                    }
                    const bool asked = x >= lo[y / band] && x <= hi[y / band];
                    if (!asked && got == -1234.5f)
                        continue; /* not asked, not written */
                    float m = FLT_MAX;
                    for (int j = 0; j < 4; j++)
                        for (int i = 0; i < 4; i++)
                            m = d[(size_t)(y + j) * n + x + i] < m ? d[(size_t)(y + j) * n + x + i] : m;
                    CHECK(memcmp(&got, &m, sizeof m) == 0, "size %d wide %d: window (%d, %d) %g, its least %g", n,
                          wide, x, y, got, m);
                    windows++, asked_n += asked;
                }
            free(d), free(w);
        }
    }
    printf("%zu windows (%zu asked) the least of their 16 texels\n", windows, asked_n);
    CHECK(asked_n > 1000000, "windows asked: %zu", asked_n);
    return CHECK_DONE();
}
