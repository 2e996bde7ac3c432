/*
** sensim/grow.h — growing a buffer you reuse across frames (header-only, SDK 1.6).
**
** Every sensor keeps buffers that grow to the largest frame seen and never shrink (the SDK's
** rule: no allocation per point or event). One helper instead of a grow() in every plugin:
**
**     if (!SN_GROW(s->points, s->cap_points, n))      // s->points: T *, s->cap_points: size_t
**         return SN_E_NOMEM;                           // *p and cap unchanged on failure
**
** Capacity doubles from 16 elements (or from `need` when more), with the multiplication checked
** for overflow. The buffer is yours: free() it in destroy(). Elements past the old capacity
** are not initialised (realloc's).
*/
#ifndef SENSIM_GROW_H
#define SENSIM_GROW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* *p holds *cap elements of `size` bytes; make it hold at least `need`. false: out of memory
** (or a size that does not fit in size_t), nothing changed. */
static inline bool sn_grow_array(void **p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return true;
    size_t c = *cap ? *cap : 16;
    while (c < need)
        c = c > SIZE_MAX / 2 ? need : c * 2;
    if (size && c > SIZE_MAX / size)
        return false;
    void *q = realloc(*p, c * size);
    if (!q)
        return false;
    *p = q;
    *cap = c;
    return true;
}

/* The same with a uint32_t capacity (counts kept as uint32_t); false past UINT32_MAX. */
static inline bool sn_grow_array32(void **p, uint32_t *cap, size_t need, size_t size)
{
    size_t c = *cap;
    if (need > UINT32_MAX || !sn_grow_array(p, &c, need, size))
        return false;
    *cap = c > UINT32_MAX ? UINT32_MAX : (uint32_t)c;
    return true;
}

/* SN_GROW(ptr, cap, need) for a T *ptr and a size_t cap; SN_GROW32 for a uint32_t cap. */
#define SN_GROW(ptr, cap, need) sn_grow_array((void **)&(ptr), &(cap), (need), sizeof *(ptr))
#define SN_GROW32(ptr, cap, need) sn_grow_array32((void **)&(ptr), &(cap), (need), sizeof *(ptr))

#endif
