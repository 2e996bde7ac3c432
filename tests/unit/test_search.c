/* test_search.c — sensim/search.h against a linear scan: lower bounds of every key type, the
** last element at or below a value, a predicate over a sub-range, duplicates, empty arrays. */
#include <sensim/search.h>

#include <stdio.h>
#include <stdlib.h>

typedef struct item {
    char pad[3];
    uint32_t u;
    int32_t i;
    uint64_t w;
    double d;
} item;

static int fails;
#define CHECK(c)                                                                                              \
    do {                                                                                                      \
        if (!(c)) {                                                                                           \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, #c);                                          \
            fails++;                                                                                          \
        }                                                                                                     \
    } while (0)

static bool odd_before(const void *ctx, size_t i)
{
    const item *a = ctx;
    return a[i].u % 2 == 1; /* the array puts odd values first */
}

int main(void)
{
    srand(7);
    for (size_t n = 0; n < 40; n++) {
        item a[40];
        uint32_t v = 0;
        for (size_t k = 0; k < n; k++) { /* ascending with duplicates */
            v += (uint32_t)(rand() % 3);
            a[k] = (item){{0}, v, (int32_t)v - 20, (uint64_t)v << 33, v * 0.5};
        }
        for (uint32_t key = 0; key < v + 3; key++) {
            size_t lin = 0, last = 0;
            while (lin < n && a[lin].u < key)
                lin++;
            for (size_t k = 1; k < n; k++)
                if (a[k].u <= key)
                    last = k;
            CHECK(sn_search_u32(a, n, sizeof *a, offsetof(item, u), key) == lin);
            CHECK(sn_search_i32(a, n, sizeof *a, offsetof(item, i), (int32_t)key - 20) == lin);
            CHECK(sn_search_u64(a, n, sizeof *a, offsetof(item, w), (uint64_t)key << 33) == lin);
            CHECK(sn_search_f64(a, n, sizeof *a, offsetof(item, d), key * 0.5) == lin);
            CHECK(sn_search_last_u32(a, n, sizeof *a, offsetof(item, u), key) == last);
            CHECK(sn_search_last_f64(a, n, sizeof *a, offsetof(item, d), key * 0.5) == last);
        }
    }
    /* a predicate over [2, 9): odd values first */
    item b[10];
    for (uint32_t k = 0; k < 10; k++)
        b[k].u = k < 6 ? 2 * k + 1 : 2 * k;
    CHECK(sn_search_first(2, 9, b, odd_before) == 6);
    CHECK(sn_search_first(7, 9, b, odd_before) == 7);
    CHECK(sn_search_first(3, 3, b, odd_before) == 3);
    CHECK(sn_search_first(0, 5, b, odd_before) == 5);
    if (fails)
        return 1;
    printf("search: ok\n");
    return 0;
}
