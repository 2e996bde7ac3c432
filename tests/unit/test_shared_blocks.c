/* test_shared_blocks.c — what actors share by content (world/vshare.h) and the scene's string
** pool (core/strpool.h): equal contents give one copy, different ones their own, a block lives
** while any holder does, and what is handed out is what was given.
**
** Values compare member by member and strings by their text: blocks with the same strings at
** other addresses are one; a block differing in one member (a colour, a float's sign, a string)
** is another. Each block is allocated as sn_attr_resolve makes them (n + 1 values) so ASan sees
** every free. */
#include "../../engine/core/strpool.h"
#include "../../engine/world/vshare.h"

#include "../check.h"

#include <stdlib.h>
#include <string.h>

/* A resolved block of 3 values: a colour, a role name (text copied into the block, as
** sn_attr_resolve does) and a mass. */
static sn_value *block(uint8_t r, const char *role, double mass)
{
    size_t len = strlen(role) + 1;
    sn_value *v = calloc(1, 4 * sizeof *v + len);
    char *text = (char *)(v + 4);
    memcpy(text, role, len);
    v[0] = (sn_value){.type = SN_ATTR_RGB, .rgb = {r, 0, 0}};
    v[1] = (sn_value){.type = SN_ATTR_STRING, .s = text};
    v[2] = (sn_value){.type = SN_ATTR_FLOAT, .f = mass};
    return v;
}

static void test_values(void)
{
    sn_vshare t = {0};
    bool shared;
    sn_value *a = sn_vshare_take(&t, block(255, "hero", 1500), 3, &shared);
    CHECK(a && shared, "the first block is kept and shared");
    sn_value *b = sn_vshare_take(&t, block(255, "hero", 1500), 3, &shared);
    CHECK(b == a && shared, "an equal block (its text elsewhere) is the first one");
    sn_value *c = sn_vshare_take(&t, block(254, "hero", 1500), 3, &shared);
    sn_value *d = sn_vshare_take(&t, block(255, "heron", 1500), 3, &shared);
    sn_value *z = sn_vshare_take(&t, block(255, "hero", -0.0), 3, &shared);
    sn_value *z2 = sn_vshare_take(&t, block(255, "hero", 0.0), 3, &shared);
    CHECK(c != a && d != a && z != a && z2 != z, "a colour, a string, a float's sign: other blocks");
    CHECK(a[0].rgb[0] == 255 && strcmp(a[1].s, "hero") == 0 && a[2].f == 1500, "the shared block's values");
    CHECK(c[0].rgb[0] == 254 && strcmp(d[1].s, "heron") == 0 && signbit(z[2].f), "the others' values");
    CHECK(sn_vshare_take(&t, NULL, 3, &shared) == NULL && !shared, "no block, nothing shared");
    /* a has two holders: it outlives the first drop and is read after it (ASan: not freed) */
    sn_vshare_drop(&t, a, 3);
    CHECK(strcmp(a[1].s, "hero") == 0 && a[0].rgb[0] == 255, "a block lives while a holder does");
    sn_value *e = sn_vshare_take(&t, block(255, "hero", 1500), 3, &shared);
    CHECK(e == a, "and is found again");
    sn_vshare_drop(&t, a, 3);
    sn_vshare_drop(&t, e, 3);
    sn_value *f = sn_vshare_take(&t, block(255, "hero", 1500), 3, &shared);
    CHECK(f && shared && strcmp(f[1].s, "hero") == 0, "after the last drop an equal block starts again");
    /* many distinct blocks: the table grows and keeps every one */
    sn_value *many[300];
    for (int i = 0; i < 300; i++)
        many[i] = sn_vshare_take(&t, block((uint8_t)i, "walker", i), 3, &shared);
    int ok = 0;
    for (int i = 0; i < 300; i++) {
        ok += many[i][2].f == i && many[i] == sn_vshare_take(&t, block((uint8_t)i, "walker", i), 3, &shared);
        sn_vshare_drop(&t, many[i], 3);
    }
    CHECK(ok == 300, "300 distinct blocks found again after growing: %d", ok);
    for (int i = 0; i < 300; i++)
        sn_vshare_drop(&t, many[i], 3);
    sn_vshare_drop(&t, c, 3);
    sn_vshare_drop(&t, d, 3);
    sn_vshare_drop(&t, z, 3);
    sn_vshare_free(&t); /* frees f and z2, still held */
    (void)z2;
}

static void test_blobs(void)
{
    sn_blobs b = {0};
    double p[3] = {1.5, 2, 3}, q[3] = {1.5, 2, 3}, r[3] = {1.5, 2, 4};
    const double *x = sn_blobs_intern(&b, p, sizeof p), *y = sn_blobs_intern(&b, q, sizeof q);
    const double *u = sn_blobs_intern(&b, r, sizeof r);
    CHECK(x && x == y && x != p, "equal bytes: one copy, not the caller's");
    CHECK(u && u != x && u[2] == 4 && x[2] == 3, "other bytes: their own copy");
    const double *first[100];
    int ok = 0;
    for (int i = 0; i < 100; i++) {
        double v[3] = {i, -i, 0.5};
        first[i] = sn_blobs_intern(&b, v, sizeof v);
    }
    for (int i = 0; i < 100; i++) {
        double v[3] = {i, -i, 0.5};
        ok += sn_blobs_intern(&b, v, sizeof v) == first[i] && first[i][0] == i;
    }
    CHECK(ok == 100, "100 blobs kept across growth: %d", ok);
    CHECK(sn_blobs_intern(&b, p, sizeof p) == x, "the first one still");
    sn_blobs_free(&b);
}

static void test_strpool(void)
{
    sn_strpool p = {0};
    char *a = sn_strpool_add(&p, "vehicle.sedan"), *b = sn_strpool_add(&p, "car7");
    char *c = sn_strpool_add(&p, "vehicle.sedan");
    CHECK(a && b && c == a && strcmp(b, "car7") == 0, "equal texts once while indexed");
    char big[6000];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = 0;
    char *d = sn_strpool_add(&p, big); /* longer than a block */
    char *names[2000];
    int ok = 0;
    for (int i = 0; i < 2000; i++) {
        char n[32];
        snprintf(n, sizeof n, "car%d", i);
        names[i] = sn_strpool_add(&p, n);
    }
    for (int i = 0; i < 2000; i++) {
        char n[32];
        snprintf(n, sizeof n, "car%d", i);
        ok += names[i] && strcmp(names[i], n) == 0;
    }
    CHECK(ok == 2000 && d && strlen(d) == sizeof big - 1 && names[7] == b, "2000 names across blocks: %d", ok);
    sn_strpool_index_drop(&p);
    char *e = sn_strpool_add(&p, "vehicle.sedan");
    CHECK(e && e != a && strcmp(e, a) == 0, "without the index: a copy, the earlier strings intact");
    sn_strpool_free(&p);
}

int main(void)
{
    test_values();
    test_blobs();
    test_strpool();
    return CHECK_DONE();
}
