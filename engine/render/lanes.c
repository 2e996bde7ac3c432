/* lanes.c — four or eight lanes (lanes.h). */
#include "lanes.h"

#include <stdatomic.h>
#include <stdlib.h>

static atomic_int wide = -1; /* -1: not decided yet */

bool sn_lanes_set_wide(bool on)
{
    bool can = false;
#if defined(__x86_64__) && defined(__GNUC__)
    __builtin_cpu_init();
    can = __builtin_cpu_supports("avx2") && !getenv("SENSIM_NO_AVX2");
#endif
    atomic_store(&wide, on && can);
    return on && can;
}

bool sn_lanes_wide(void)
{
    int w = atomic_load_explicit(&wide, memory_order_relaxed);
    return w < 0 ? sn_lanes_set_wide(true) : w;
}
