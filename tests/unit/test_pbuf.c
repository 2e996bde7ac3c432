/* test_pbuf.c — the MCAP view's protobuf writers (engine/views/buf.h): nested messages whose
** tag and length fit the two bytes pb_begin leaves and those that do not (a body of 127 and 128
** bytes, 16 383 and 16 384, a field number above 15, three levels of nesting), against a
** reference encoder that writes every length in front of its body the plain way, and an
** allocation failure that leaves the buffer marked bad. */
#include "../../engine/views/buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fails;
#define CHECK(c)                                                                                              \
    do {                                                                                                      \
        if (!(c)) {                                                                                           \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, #c);                                          \
            fails++;                                                                                          \
        }                                                                                                     \
    } while (0)

/* The reference: varints by the proto3 rules, written forwards into a flat array. */
static size_t ref_varint(uint8_t *p, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        p[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    p[n++] = (uint8_t)v;
    return n;
}

/* A body of `len` bytes of field 1 (bytes, wire type 2) filler, as the reference encodes it;
** its own tag and length included, so the caller picks len to land on a boundary. */
static size_t ref_filler(uint8_t *p, size_t len)
{
    /* tag 0x0a, length, bytes: len = 1 + varint(k) + k */
    size_t k = len - 2;
    if (k >= 0x80)
        k = len - 3;
    if (k >= 0x4000)
        k = len - 4;
    size_t n = 0;
    p[n++] = 0x0a;
    n += ref_varint(p + n, k);
    memset(p + n, 0x5a, k);
    return n + k;
}

static void filler(sn_buf *b, size_t len)
{
    size_t k = len - 2;
    if (k >= 0x80)
        k = len - 3;
    if (k >= 0x4000)
        k = len - 4;
    uint8_t *tmp = malloc(k + 1);
    memset(tmp, 0x5a, k);
    pb_bytes(b, 1, tmp, k);
    free(tmp);
}

/* field { inner { filler(len) } , double 2.5 } */
static void one_case(uint32_t field, uint32_t inner_field, size_t len)
{
    uint8_t *ref = malloc(len + 64), *body = malloc(len + 64);
    size_t nb = ref_filler(body, len);
    CHECK(nb == len);
    /* inner message */
    uint8_t *inner = malloc(len + 64);
    size_t ni = ref_varint(inner, (uint64_t)inner_field << 3 | 2);
    ni += ref_varint(inner + ni, nb);
    memcpy(inner + ni, body, nb);
    ni += nb;
    /* then a double, field 3 */
    double d = 2.5;
    inner[ni++] = 3 << 3 | 1;
    memcpy(inner + ni, &d, 8);
    ni += 8;
    size_t nr = ref_varint(ref, (uint64_t)field << 3 | 2);
    nr += ref_varint(ref + nr, ni);
    memcpy(ref + nr, inner, ni);
    nr += ni;

    sn_buf b = {0};
    sn_buf_u8(&b, 0xee); /* something before: marks are offsets into the buffer */
    size_t outer = pb_begin(&b);
    size_t in = pb_begin(&b);
    filler(&b, len);
    pb_end(&b, inner_field, in);
    pb_double(&b, 3, d);
    pb_end(&b, field, outer);
    CHECK(!b.bad);
    CHECK(b.n == nr + 1);
    CHECK(b.n == nr + 1 && b.p[0] == 0xee && memcmp(b.p + 1, ref, nr) == 0);
    if (b.n != nr + 1 || memcmp(b.p + 1, ref, nr) != 0)
        fprintf(stderr, "  case field %u inner %u body %zu: %zu bytes, reference %zu\n", field, inner_field, len, b.n - 1, nr);
    sn_buf_free(&b);
    free(ref), free(body), free(inner);
}

int main(void)
{
    static const size_t lens[] = {3, 4, 126, 127, 128, 129, 200, 16383, 16384, 16385, 70000};
    static const uint32_t fields[] = {1, 15, 16, 2047, 2048};
    for (size_t i = 0; i < sizeof lens / sizeof *lens; i++)
        for (size_t f = 0; f < sizeof fields / sizeof *fields; f++)
            one_case(fields[f], fields[(f + 2) % 5], lens[i]);

    /* an empty nested message: tag and a zero length, as protoc writes a present empty message */
    sn_buf b = {0};
    size_t m = pb_begin(&b);
    pb_end(&b, 4, m);
    CHECK(b.n == 2 && b.p[0] == (4 << 3 | 2) && b.p[1] == 0);
    sn_buf_free(&b);

    /* proto3 defaults are skipped; varints of every width */
    b = (sn_buf){0};
    pb_uint(&b, 1, 0);
    pb_double(&b, 2, 0.0);
    pb_fixed32(&b, 3, 0);
    CHECK(b.n == 0);
    pb_uint(&b, 1, 300); /* 0x08 0xac 0x02 */
    CHECK(b.n == 3 && b.p[0] == 0x08 && b.p[1] == 0xac && b.p[2] == 0x02);
    pb_double(&b, 2, -0.0); /* not +0.0: written */
    CHECK(b.n == 12 && b.p[3] == 0x11 && b.p[11] == 0x80);
    pb_uint(&b, 1, UINT64_MAX); /* ten bytes of varint */
    CHECK(b.n == 12 + 1 + 10 && b.p[22] == 0x01);
    sn_buf_free(&b);

    /* a buffer marked bad stays bad and writes nothing */
    b = (sn_buf){0};
    sn_buf_u32(&b, 7);
    b.bad = true;
    size_t before = b.n;
    m = pb_begin(&b);
    pb_uint(&b, 1, 5);
    pb_end(&b, 1, m);
    CHECK(b.n == before && b.bad);
    sn_buf_free(&b);

    if (fails)
        fprintf(stderr, "test_pbuf: %d failures\n", fails);
    else
        printf("test_pbuf: ok\n");
    return fails ? 1 : 0;
}
