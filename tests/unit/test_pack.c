/* pack.h encodes every value exactly as msgpack-c does: each kind at every size boundary, and
** a long random sequence, packed both ways and compared byte for byte. */
#include "../../engine/core/rng.h"
#include "../../engine/sim/pack.h"
#include "../check.h"

#include <math.h>

static msgpack_sbuffer ours, theirs;
static msgpack_packer pk;

static void same(const char *what, long long i)
{
    CHECK(ours.size == theirs.size && memcmp(ours.data, theirs.data, ours.size) == 0,
          "%s #%lld: %zu bytes vs msgpack-c's %zu", what, i, ours.size, theirs.size);
    msgpack_sbuffer_clear(&ours), msgpack_sbuffer_clear(&theirs);
}

static void one_int(int64_t v)
{
    sn_pack_int(&ours, v), msgpack_pack_int64(&pk, v);
    same("int", v);
}

static void one_uint(uint64_t v)
{
    sn_pack_uint(&ours, v), msgpack_pack_uint64(&pk, v);
    same("uint", (long long)v);
}

static void one_len(uint32_t n, char *text)
{
    sn_pack_str(&ours, text, n), msgpack_pack_str(&pk, n), msgpack_pack_str_body(&pk, text, n);
    same("str", n);
    sn_pack_bin_header(&ours, n), sn_pack_raw(&ours, text, n), msgpack_pack_bin(&pk, n), msgpack_pack_bin_body(&pk, text, n);
    same("bin", n);
    sn_pack_array(&ours, n), msgpack_pack_array(&pk, n);
    same("array", n);
    sn_pack_map(&ours, n), msgpack_pack_map(&pk, n);
    same("map", n);
}

int main(void)
{
    msgpack_sbuffer_init(&ours), msgpack_sbuffer_init(&theirs);
    msgpack_packer_init(&pk, &theirs, msgpack_sbuffer_write);
    /* every integer width boundary, both sides of it */
    const int64_t edges[] = {0, 31, 32, 127, 128, 255, 256, 65535, 65536, 4294967295ll, 4294967296ll, INT64_MAX};
    for (size_t i = 0; i < sizeof edges / sizeof *edges; i++)
        for (int64_t d = -1; d <= 1; d++) {
            int64_t v = edges[i] == INT64_MAX && d > 0 ? INT64_MAX : edges[i] + d;
            one_int(v), one_int(v == INT64_MIN ? v : -v), one_uint((uint64_t)v);
        }
    one_int(INT64_MIN), one_int(-33), one_int(-129), one_int(-32769), one_int(-2147483649ll);
    one_uint(UINT64_MAX);
    static char text[70000];
    memset(text, 'x', sizeof text);
    const uint32_t lens[] = {0, 15, 16, 31, 32, 255, 256, 65535, 65536, 69999};
    for (size_t i = 0; i < sizeof lens / sizeof *lens; i++)
        one_len(lens[i], text);
    const double doubles[] = {0.0, -0.0, 1.5, -1e300, INFINITY, NAN, 5e-324};
    for (size_t i = 0; i < sizeof doubles / sizeof *doubles; i++) {
        sn_pack_double(&ours, doubles[i]), msgpack_pack_double(&pk, doubles[i]);
        sn_pack_float(&ours, (float)doubles[i]), msgpack_pack_float(&pk, (float)doubles[i]);
        same("double and float", (long long)i);
    }
    sn_pack_nil(&ours), sn_pack_bool(&ours, true), sn_pack_bool(&ours, false);
    msgpack_pack_nil(&pk), msgpack_pack_true(&pk), msgpack_pack_false(&pk);
    same("nil, true, false", 0);
    /* a long random stream: values of every magnitude, buffers growing as they go */
    sn_rng g;
    sn_rng_seed(&g, 11);
    for (int i = 0; i < 200000; i++) {
        int bits = (int)(sn_rng_uniform(&g) * 64);
        int64_t v = (int64_t)sn_rng_u64(&g) >> (63 - bits); /* arithmetic: every magnitude, both signs */
        switch (i % 4) {
        case 0: sn_pack_int(&ours, v), msgpack_pack_int64(&pk, v); break;
        case 1: sn_pack_uint(&ours, (uint64_t)v), msgpack_pack_uint64(&pk, (uint64_t)v); break;
        case 2: sn_pack_double(&ours, (double)v * 1e-3), msgpack_pack_double(&pk, (double)v * 1e-3); break;
        default: {
            uint32_t n = (uint32_t)(sn_rng_uniform(&g) * 300);
            sn_pack_str(&ours, text, n), msgpack_pack_str(&pk, n), msgpack_pack_str_body(&pk, text, n);
        }
        }
    }
    CHECK(ours.size > 1000000, "the random stream grew the buffer past 1 MB: %zu", ours.size);
    same("random stream", 200000);
    msgpack_sbuffer_destroy(&ours), msgpack_sbuffer_destroy(&theirs);
    return CHECK_DONE();
}
