/* lanes.h — whether the renderer's single-precision passes (fog.c, shade.c's textures) run eight
** lanes at a time (AVX2: fog_avx2.c, texture_avx2.c, simd8.h) or four (SSE2, simd4.h). Both give
** the same bits (tests/unit/test_fog_fast.c, test_shade_fast.c compare them), so this changes
** only the time. */
#ifndef SN_LANES_H
#define SN_LANES_H

#include <stdbool.h>

/* Eight lanes: the CPU has AVX2 and the environment has no SENSIM_NO_AVX2 (decided at the first
** call), unless sn_lanes_set_wide(false) said otherwise. */
bool sn_lanes_wide(void);
/* Forces four lanes (false), or eight where the CPU can (true); returns what is used now. */
bool sn_lanes_set_wide(bool on);

#endif
