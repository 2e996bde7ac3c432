/* The tent windows' pairs' least depths (engine/render/shadow_window.c) against the least of each
** pair's 20 texels (4 rows, the 5 columns of the windows starting at 2p and 2p + 1) taken one by
** one, and at most the least of each of its two windows' 16: random maps with plateaus, FLT_MAX
** (nothing drawn) and equal depths, widths that are and are not multiples of 8, eight lanes and
** four, rows asked in bands (as the shadow map's tasks ask them) and pairs outside them, or
** reaching past the map's last column, left alone. The lookup that uses them is checked bit for
** bit against the tent in test_shadow_bounds. */
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
            const int32_t half = n / 2; /* pairs a row */
            for (size_t i = 0; i < nn / 2; i++)
                w[i] = -1234.5f; /* not written: stays */
            /* bands of rows, each its own columns  */
            const int32_t band = n >= 64 ? 16 : 4;
            int32_t lo[1024 / 4], hi[1024 / 4];
            for (int32_t b = 0; b * band < n; b++) {
                lo[b] = part ? (int32_t)(uni() * n) - 3 : 0, hi[b] = part ? lo[b] + (int32_t)(uni() * n / 2) : n - 1;
                sn_shadow_window_min(d, n, w, b * band, b * band + band, lo[b], hi[b]);
            }
            for (int32_t y = 0; y < n; y++)
                for (int32_t p = 0; p < half; p++) {
                    const float got = w[(size_t)y * half + p];
                    if (2 * p + 4 > n - 1 || y > n - 4) {
                        CHECK(got == -1234.5f, "size %d: pair (%d, %d) outside the map's windows written", n, p, y);
                        continue;
                    }
                    /* asked: either of its windows' columns */
                    const bool asked = 2 * p + 1 >= lo[y / band] && 2 * p <= hi[y / band];
                    if (!asked && got == -1234.5f)
                        continue; /* not asked, not written */
                    float m = FLT_MAX, m0 = FLT_MAX, m1 = FLT_MAX;
                    for (int j = 0; j < 4; j++)
                        for (int i = 0; i < 5; i++) {
                            const float t = d[(size_t)(y + j) * n + 2 * p + i];
                            m = t < m ? t : m;
                            m0 = i < 4 && t < m0 ? t : m0, m1 = i > 0 && t < m1 ? t : m1;
                        }
                    CHECK(memcmp(&got, &m, sizeof m) == 0, "size %d wide %d: pair (%d, %d) %g, its least %g", n, wide,
                          p, y, got, m);
                    CHECK(got <= m0 && got <= m1, "size %d: pair (%d, %d) above a window's least", n, p, y);
                    windows++, asked_n += asked;
                }
            free(d), free(w);
        }
    }
    printf("%zu pairs of windows (%zu asked) the least of their 20 texels\n", windows, asked_n);
    CHECK(asked_n > 500000, "pairs asked: %zu", asked_n);
    return CHECK_DONE();
}
