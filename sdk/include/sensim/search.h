/*
** sensim/search.h — one binary search for sorted arrays (header-only, SDK 1.6).
**
** The first index whose element is not "before" what you look for (C++'s partition_point,
** Python's bisect_left), so one loop serves exact lookups, insert positions and ranges:
**
**     size_t i = sn_search_u32(s->items, s->n, sizeof *s->items, offsetof(item, id), id);
**     if (i < s->n && s->items[i].id == id) ...   // found; else i is where it would go
**
** sn_search_last_* finds the last element at or below a value (a piecewise function's piece).
** sn_search_first takes any order (a pointer array, a key of two fields, `<=` for the first
** element past a value) as a predicate that is true on a prefix of [lo, hi) and false after.
*/
#ifndef SENSIM_SEARCH_H
#define SENSIM_SEARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The first i in [lo, hi) with !before(ctx, i), or hi when before() holds everywhere. */
static inline size_t sn_search_first(size_t lo, size_t hi, const void *ctx, bool (*before)(const void *ctx, size_t i))
{
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (before(ctx, mid))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The first of n elements `stride` bytes apart whose key (a T at key_offset) is not < key;
** n when all are. One per key type: sn_search_u32, _i32, _u64, _f64. */
#define SN_SEARCH_DEFINE_(name, T)                                                                            \
    static inline size_t name(const void *base, size_t n, size_t stride, size_t key_offset, T key)           \
    {                                                                                                         \
        const unsigned char *b = (const unsigned char *)base;                                                 \
        size_t lo = 0, hi = n;                                                                                \
        while (lo < hi) {                                                                                     \
            size_t mid = lo + (hi - lo) / 2;                                                                  \
            T k;                                                                                              \
            memcpy(&k, b + mid * stride + key_offset, sizeof k);                                              \
            if (k < key)                                                                                      \
                lo = mid + 1;                                                                                 \
            else                                                                                              \
                hi = mid;                                                                                     \
        }                                                                                                     \
        return lo;                                                                                            \
    }
SN_SEARCH_DEFINE_(sn_search_u32, uint32_t)
SN_SEARCH_DEFINE_(sn_search_i32, int32_t)
SN_SEARCH_DEFINE_(sn_search_u64, uint64_t)
SN_SEARCH_DEFINE_(sn_search_f64, double)

/* The last of n elements `stride` bytes apart whose key (a T at key_offset) is <= x, and 0 when
** none is or n is 0: the piece of a piecewise function that holds x (element 0 is taken to
** start at or before anything asked). sn_search_last_u32, sn_search_last_f64. */
#define SN_SEARCH_LAST_DEFINE_(name, T)                                                                       \
    static inline size_t name(const void *base, size_t n, size_t stride, size_t key_offset, T x)             \
    {                                                                                                         \
        const unsigned char *b = (const unsigned char *)base;                                                 \
        size_t lo = 0, hi = n;                                                                                \
        while (hi - lo > 1) {                                                                                 \
            size_t mid = lo + (hi - lo) / 2;                                                                  \
            T k;                                                                                              \
            memcpy(&k, b + mid * stride + key_offset, sizeof k);                                              \
            if (k <= x)                                                                                       \
                lo = mid;                                                                                     \
            else                                                                                              \
                hi = mid;                                                                                     \
        }                                                                                                     \
        return lo;                                                                                            \
    }
SN_SEARCH_LAST_DEFINE_(sn_search_last_u32, uint32_t)
SN_SEARCH_LAST_DEFINE_(sn_search_last_f64, double)

#endif
