/* shade_pairs.c — the fast path's fog at every fourth pixel of a run (quad57, SN_FOG_SPAN): a run's entries
** are neighbouring pixels of one plane in one sample row, along which fog's transmittance varies
** slowly, so an entry with a weight u (g->fw > 0: the share of the way to the next anchor still to
** go) takes the line between the evaluated entries (anchors) before and after it, hi - (hi - lo) u. The bound is tested (tests/integration/test_shade_pairs.c) and
** documented (docs/rendering.md, "Fog's anchors"); SENSIM_EXACT_PAIRS=1 or the exact shading turn
** it off. */
#include "shade_fast.h"

#include "lanes.h"

#include <pthread.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

/* the anchors' points, packed, and their transmittance; + 16: vectors' loads and stores past the last */
typedef struct sub {
    float dx[SN_GBUF_N + 16], dy[SN_GBUF_N + 16], dz[SN_GBUF_N + 16], T[SN_GBUF_N + 16];
    uint16_t at[SN_GBUF_N];
    uint32_t n;
} sub;

/* padding lanes as sn_shade_gbuf's: a finite point */
static void pad(sub *s)
{
    for (uint32_t k = s->n; k % 4; k++)
        s->dx[k] = s->dy[k] = s->dz[k] = 1;
}

#if defined(__x86_64__) && defined(__GNUC__)
/* Eight entries at a time (AVX2): the anchors packed by a permutation from a table of the 256
** masks, the results unpacked by its inverse; the same values as the scalar loop. */
static int32_t pack_idx[256][8], unpack_idx[256][8];

static void tables(void)
{
    for (int m = 0; m < 256; m++)
        for (int l = 0, c = 0; l < 8; l++) {
            unpack_idx[m][l] = c; /* lane l: the anchors packed before it (its own, or the next's) */
            if (m >> l & 1)
                pack_idx[m][c++] = l;
        }
}

__attribute__((target("avx2,no-fma"))) static void fog8(const sn_shade_env *e, sn_vec3 eye, sn_gbuf *g)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT; /* the tables, filled by one thread only */
    pthread_once(&once, tables);
    const uint32_t n = g->n, n8 = (n + 7) & ~7u;
    for (uint32_t k = n; k < n8; k++) /* padding lanes: anchors at a finite point */
        g->dx[k] = g->dy[k] = g->dz[k] = 1, g->fw[k] = 0;
    sub s;
    uint8_t keep[SN_GBUF_N / 8];
    uint32_t c = 1; /* s's [0]: below the first anchor (never read for a lane that uses it) */
    s.T[0] = 0;
    for (uint32_t i = 0; i < n8; i += 8) {
        const unsigned m = (unsigned)_mm256_movemask_ps(_mm256_cmp_ps(_mm256_loadu_ps(g->fw + i), _mm256_setzero_ps(), _CMP_EQ_OQ));
        keep[i / 8] = (uint8_t)m;
        const __m256i idx = _mm256_loadu_si256((const __m256i *)pack_idx[m]);
        _mm256_storeu_ps(s.dx + c, _mm256_permutevar8x32_ps(_mm256_loadu_ps(g->dx + i), idx));
        _mm256_storeu_ps(s.dy + c, _mm256_permutevar8x32_ps(_mm256_loadu_ps(g->dy + i), idx));
        _mm256_storeu_ps(s.dz + c, _mm256_permutevar8x32_ps(_mm256_loadu_ps(g->dz + i), idx));
        c += (uint32_t)__builtin_popcount(m);
    }
    s.n = c;
    s.dx[0] = s.dy[0] = s.dz[0] = 1;
    pad(&s);
    sn_fog_transmittance_fast(e, eye, s.dx, s.dy, s.dz, s.T, s.n);
    /* back in place: an anchor its own, an entry between two the line from the one below (packed
    ** just before the one after it) */
    c = 1;
    for (uint32_t i = 0; i < n8; i += 8) {
        const unsigned m = keep[i / 8];
        const __m256i idx = _mm256_loadu_si256((const __m256i *)unpack_idx[m]);
        const __m256 lo = _mm256_permutevar8x32_ps(_mm256_loadu_ps(s.T + c - 1), idx),
                     hi = _mm256_permutevar8x32_ps(_mm256_loadu_ps(s.T + c), idx), w = _mm256_loadu_ps(g->fw + i);
        _mm256_storeu_ps(g->T + i, _mm256_sub_ps(hi, _mm256_mul_ps(_mm256_sub_ps(hi, lo), w)));
        c += (uint32_t)__builtin_popcount(m);
    }
}
#endif

void sn_shade_pairs(const sn_shade_env *e, sn_vec3 eye, sn_gbuf *g)
{
#if defined(__x86_64__) && defined(__GNUC__)
    if (sn_lanes_wide()) {
        fog8(e, eye, g);
        return;
    }
#endif
    const uint32_t n = g->n;
    sub s;
    s.n = 1, s.T[0] = 0, s.dx[0] = s.dy[0] = s.dz[0] = 1;
    for (uint32_t k = 0; k < n; k++)
        if (g->fw[k] == 0) {
            const uint32_t j = s.n++;
            s.at[j] = (uint16_t)k, s.dx[j] = g->dx[k], s.dy[j] = g->dy[k], s.dz[j] = g->dz[k];
        }
    pad(&s);
    sn_fog_transmittance_fast(e, eye, s.dx, s.dy, s.dz, s.T, s.n);
    /* the same operations as fog8's lanes: an anchor hi - (hi - lo) 0 = its own T exactly */
    for (uint32_t k = 0, j = 1; k < n; k++) {
        const float lo = s.T[j - 1], hi = s.T[j];
        g->T[k] = hi - (hi - lo) * g->fw[k];
        j += g->fw[k] == 0;
    }
}
