/* zrle.c — a picture's deflate (zrle.h). Two passes a block: the input becomes up to 65536 tokens
** (a literal byte, or a copy of 3-258 bytes from the byte before, the pixel before, the row above,
** or where a hash of the next 4 bytes last saw them) while their frequencies are counted; then a
** dynamic-Huffman block (RFC 1951 3.2.7) writes them: its header (the two codes' lengths,
** themselves run-length coded) and the tokens, or a stored block when that is shorter. A
** candidate is rejected by one 32-bit compare; matches are measured sixteen bytes a compare
** (SSE2), so a picture's flat regions cost a load and a compare per sixteen bytes. */
#include "zrle.h"

#include <libdeflate.h>
#include <stdbool.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#define N_LITLEN 286 /* 0-255 literals, 256 end of block, 257-285 lengths */
#define N_CLEN 19
#define LITTLE (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__)
/* Tokens a block holds: 256 KB of them, in cache between the two passes. */
#define BLOCK_TOKENS SN_ZRLE_BLOCK

/* Deflate's length symbols: base lengths and extra bits of 257 + i. */
static const uint16_t len_base[29] = {3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
                                      31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
static const uint8_t len_extra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};

size_t sn_zrle_bound(size_t n)
{
    /* a literal is at most 15 bits, a copy 15 + 5 + 15 + 13 bits for 3 bytes or more (the
    ** block is stored instead when that is longer, but it is written first); each block's
    ** code tables under 400 bytes; zlib's header and Adler-32 */
    return n * 2 + (n / SN_ZRLE_BLOCK + 1) * 400 + 16;
}

typedef struct bits {
    uint8_t *p;
    uint64_t acc;
    unsigned n;
} bits;

/* v's n low bits (n <= 56), least significant first, as deflate orders them. Branch-free: eight
** bytes are stored each time and the whole bytes among them kept (the next store rewrites the
** rest), so the output needs 8 bytes of slack (sn_zrle_bound has them). */
static inline void put(bits *b, uint64_t v, unsigned n)
{
    b->acc |= v << b->n;
    b->n += n;
    const uint64_t le = LITTLE ? b->acc : __builtin_bswap64(b->acc);
    memcpy(b->p, &le, 8);
    b->p += b->n >> 3;
    b->acc >>= b->n & ~7u; /* under 64 bits held: never a shift by 64 */
    b->n &= 7;
}

static void put_end(bits *b)
{
    while (b->n > 0) {
        *b->p++ = (uint8_t)b->acc;
        b->acc >>= 8;
        b->n = b->n > 8 ? b->n - 8 : 0;
    }
}

/* Huffman code lengths (at most `limit` bits) for n symbols of frequencies freq; symbols of
** frequency 0 get no code. Needs two symbols of non-zero frequency at least. When the tree is
** too deep the frequencies are halved (never to 0) and it is built again: deterministic, and the
** depth shrinks to log2 of the symbols once they are all equal. */
static void code_lengths(const uint32_t *freq, int n, unsigned limit, uint8_t *len)
{
    uint32_t f[N_LITLEN];
    memcpy(f, freq, (size_t)n * sizeof *f);
    for (;;) {
        int sym[N_LITLEN], m = 0;
        for (int i = 0; i < n; i++)
            if (f[i])
                sym[m++] = i;
        /* leaves by frequency, then symbol (insertion sort: n <= 286) */
        for (int i = 1; i < m; i++) {
            int s = sym[i], j = i;
            for (; j > 0 && (f[sym[j - 1]] > f[s] || (f[sym[j - 1]] == f[s] && sym[j - 1] > s)); j--)
                sym[j] = sym[j - 1];
            sym[j] = s;
        }
        /* two queues: the sorted leaves, and the internal nodes (made in non-decreasing weight) */
        uint64_t w[2 * N_LITLEN];
        int parent[2 * N_LITLEN];
        for (int k = 0; k < m; k++)
            w[k] = f[sym[k]];
        int leaf = 0, inner = m;
        for (int k = m; k < 2 * m - 1; k++) {
            int two[2];
            for (int t = 0; t < 2; t++)
                two[t] = leaf < m && (inner >= k || w[leaf] <= w[inner]) ? leaf++ : inner++;
            w[k] = w[two[0]] + w[two[1]];
            parent[two[0]] = parent[two[1]] = k;
        }
        unsigned depth[2 * N_LITLEN], deepest = 0;
        depth[2 * m - 2] = 0;
        for (int k = 2 * m - 3; k >= 0; k--)
            depth[k] = depth[parent[k]] + 1;
        memset(len, 0, (size_t)n);
        for (int k = 0; k < m; k++) {
            len[sym[k]] = (uint8_t)depth[k];
            deepest = depth[k] > deepest ? depth[k] : deepest;
        }
        if (deepest <= limit)
            return;
        for (int i = 0; i < n; i++)
            f[i] = f[i] ? (f[i] + 1) / 2 : 0;
    }
}

/* Canonical codes (RFC 1951 3.2.2) for the lengths, bit-reversed for the LSB-first stream. */
static void codes(const uint8_t *len, int n, uint16_t *code)
{
    unsigned count[16] = {0}, next[16];
    for (int i = 0; i < n; i++)
        count[len[i]]++;
    count[0] = 0;
    unsigned c = 0;
    for (int b = 1; b < 16; b++)
        next[b] = c = (c + count[b - 1]) << 1;
    for (int i = 0; i < n; i++) {
        if (!len[i])
            continue;
        unsigned v = next[len[i]]++, r = 0;
        for (unsigned b = 0; b < len[i]; b++)
            r |= ((v >> b) & 1u) << (len[i] - 1 - b);
        code[i] = (uint16_t)r;
    }
}

/* How many bytes from p equal those from q (at most max). */
static inline size_t same_as(const uint8_t *p, const uint8_t *q, size_t max)
{
    size_t k = 0;
#ifdef __SSE2__
    for (; k + 16 <= max; k += 16) { /* sixteen bytes a compare: a 258-byte match in 17 */
        unsigned ne = 0xffffu ^ (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(p + k)),
                                                                            _mm_loadu_si128((const __m128i *)(q + k))));
        if (ne)
            return k + (size_t)__builtin_ctz(ne);
    }
#endif
    for (; k + 8 <= max; k += 8) {
        uint64_t x, y;
        memcpy(&x, p + k, 8);
        memcpy(&y, q + k, 8);
        if (x ^ y) /* the first byte that differs: the lowest on a little-endian machine */
            return k + (size_t)(LITTLE ? __builtin_ctzll(x ^ y) : __builtin_clzll(x ^ y)) / 8;
    }
    while (k < max && p[k] == q[k])
        k++;
    return k;
}

/* Deflate's distance symbol of a distance d (1-32768): 0-3 for 1-4, then two symbols for each
** power of two, the bit below the top one telling which (RFC 1951 3.2.5); its extra bits are
** the bits below that one. */
static inline unsigned dist_sym(size_t d, unsigned *extra_bits)
{
    unsigned x = (unsigned)d - 1;
    if (x < 4)
        return *extra_bits = 0, x;
    unsigned b = 31u - (unsigned)__builtin_clz(x);
    *extra_bits = b - 1;
    return 2 * b + ((x >> (b - 1)) & 1u);
}

static inline uint32_t load32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

/* The copy at i from distance d when it is longer than best (< max), else 0: its first `min` (3
** or 4) bytes and its byte at best must agree, a 32-bit compare and a byte compare (as zlib's
** scan_end), so a literal or a candidate that cannot win costs no compare loop. */
static inline size_t longer_copy(const uint8_t *in, size_t i, size_t d, uint32_t cur, uint32_t mask, size_t min,
                                 size_t best, size_t max)
{
    if (((load32(in + i - d) ^ cur) & mask) || in[i + best] != in[i + best - d])
        return 0;
    size_t l = min + same_as(in + i + min, in + i - d + min, max - min);
    return l > best ? l : 0;
}

/* The input from *pos as up to BLOCK_TOKENS tokens (a literal v < 256, or a copy: its distance
** symbol << 25 | its distance << 9 | its length), their symbols counted in freq (literal/length) and dfreq (distance);
** returns how many and moves *pos past them. At each byte the copies tried, in order (a tie goes to the first):
** a run (distance 1), the pixel before (3), the row above (stride), all from 3 bytes; then the
** last place the next 4 bytes were seen (a hash of them, from 4 bytes): repeated texture and
** edges a fixed distance does not reach. Greedy: the longest copy is taken. */
static size_t tokenize(const uint8_t *restrict in, size_t n, size_t *restrict pos, size_t stride, const uint8_t *restrict len_sym,
                       uint32_t *restrict tokens, uint32_t *restrict head, uint32_t *restrict freq, uint32_t *restrict dfreq)
{
    const size_t row = stride >= 4 && stride <= 32768 ? stride : 0;
    size_t nt = 0, i = *pos;
    while (i < n && nt < BLOCK_TOKENS) {
        const size_t left = n - i;
        size_t best = 0, bd = 0;
        if (left >= 4 && i > 0) {
            const size_t max = left < 258 ? left : 258;
            const uint32_t cur = load32(in + i), three = LITTLE ? 0xffffffu : 0xffffff00u; /* the first 3 bytes */
            const uint32_t h = (cur * 0x9E3779B1u) >> (32 - SN_ZRLE_HASH_BITS);
            const size_t seen = head[h];
            head[h] = (uint32_t)i;
            if ((best = longer_copy(in, i, 1, cur, three, 3, 0, max)))
                bd = 1;
            size_t l;
            if (i >= 3 && best < max && (l = longer_copy(in, i, 3, cur, three, 3, best, max)))
                best = l, bd = 3;
            if (row && i >= row && best < max && (l = longer_copy(in, i, row, cur, three, 3, best, max)))
                best = l, bd = row;
            const size_t d = i - seen;
            if (best < max && d > 0 && d <= 32768 && d != 1 && d != 3 && d != row &&
                (l = longer_copy(in, i, d, cur, 0xffffffffu, 4, best, max)))
                best = l, bd = d;
        }
        if (best >= 3) {
            unsigned eb;
            const unsigned ds = dist_sym(bd, &eb);
            tokens[nt++] = (uint32_t)(ds << 25 | bd << 9 | best);
            freq[257 + len_sym[best]]++;
            dfreq[ds]++;
            i += best;
        } else {
            tokens[nt++] = in[i];
            freq[in[i]]++;
            i++;
        }
    }
    *pos = i;
    return nt;
}

/* A block's header: final or not, dynamic codes, then both codes' lengths (hlit literal/length and
** hdist distance ones) as one sequence, run-length coded with the code-length code (16 repeats
** the last length 3-6 times, 17 and 18 give 3-10 and 11-138 zeros) whose own lengths come first. */
static void put_header(bits *b, bool final, const uint8_t *ll_len, int hlit, const uint8_t *d_len, int hdist)
{
    uint8_t all[N_LITLEN + 30];
    memcpy(all, ll_len, (size_t)hlit);
    memcpy(all + hlit, d_len, (size_t)hdist);
    int na = hlit + hdist;
    uint8_t cl_sym[N_LITLEN + 30], cl_extra[N_LITLEN + 30];
    int nc = 0;
    uint32_t cl_freq[N_CLEN] = {0};
    for (int i = 0; i < na;) {
        int r = 1;
        while (i + r < na && all[i + r] == all[i])
            r++;
        if (all[i] == 0 && r >= 3) {
            int take = r > 138 ? 138 : r;
            cl_sym[nc] = take >= 11 ? 18 : 17, cl_extra[nc++] = (uint8_t)(take - (take >= 11 ? 11 : 3));
            i += take;
        } else if (all[i] != 0 && r >= 4) {
            cl_sym[nc] = all[i], cl_extra[nc++] = 0; /* the length once, then repeats of it */
            int rest = r - 1 > 6 ? 6 : r - 1;
            cl_sym[nc] = 16, cl_extra[nc++] = (uint8_t)(rest - 3);
            i += 1 + rest;
        } else {
            cl_sym[nc] = all[i], cl_extra[nc++] = 0;
            i++;
        }
    }
    for (int k = 0; k < nc; k++)
        cl_freq[cl_sym[k]]++;
    int used = 0;
    for (int k = 0; k < N_CLEN; k++)
        used += cl_freq[k] != 0;
    if (used < 2)
        cl_freq[cl_freq[0] ? 1 : 0]++; /* never sent, but the code stays complete */
    uint8_t cl_len[N_CLEN];
    uint16_t cl_code[N_CLEN];
    code_lengths(cl_freq, N_CLEN, 7, cl_len);
    codes(cl_len, N_CLEN, cl_code);
    static const uint8_t order[N_CLEN] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15};
    int hclen = N_CLEN;
    while (hclen > 4 && !cl_len[order[hclen - 1]])
        hclen--;

    put(b, (final ? 1u : 0u) | 2u << 1, 3); /* dynamic codes */
    put(b, (uint64_t)(hlit - 257), 5);
    put(b, (uint64_t)(hdist - 1), 5);
    put(b, (uint64_t)(hclen - 4), 4);
    for (int k = 0; k < hclen; k++)
        put(b, cl_len[order[k]], 3);
    static const uint8_t extra_bits[3] = {2, 3, 7};
    for (int k = 0; k < nc; k++) {
        put(b, cl_code[cl_sym[k]], cl_len[cl_sym[k]]);
        if (cl_sym[k] >= 16)
            put(b, cl_extra[k], extra_bits[cl_sym[k] - 16]);
    }
}

/* in[0..n) as stored blocks (RFC 1951 3.2.4): what incompressible data costs least as. */
static void put_stored(bits *b, bool final, const uint8_t *in, size_t n)
{
    do {
        size_t k = n < 65535 ? n : 65535;
        put(b, final && k == n ? 1u : 0u, 3);
        put_end(b); /* to a byte boundary */
        uint8_t *o = b->p;
        o[0] = (uint8_t)k, o[1] = (uint8_t)(k >> 8), o[2] = (uint8_t)~k, o[3] = (uint8_t)(~k >> 8);
        memcpy(o + 4, in, k);
        b->p = o + 4 + k;
        in += k, n -= k;
    } while (n > 0);
}

/* One block of nt tokens (the input's bytes from `from`, n of them) with its own codes, or, when
** that would be longer than storing those bytes, stored. */
static void put_block(bits *b, bool final, const uint32_t *tokens, size_t nt, uint32_t *freq, uint32_t *dfreq,
                      const uint8_t *len_sym, const uint8_t *from, size_t n)
{
    freq[256] = 1;
    if (nt == 0)
        freq[0] = 1; /* two symbols at least, so the code is complete */
    /* two distance symbols at least, so that code is complete too */
    if (!dfreq[0])
        dfreq[0] = 1;
    if (!dfreq[2])
        dfreq[2] = 1;
    uint8_t ll_len[N_LITLEN], d_len[30];
    uint16_t ll_code[N_LITLEN], d_code[30];
    code_lengths(freq, N_LITLEN, 15, ll_len);
    codes(ll_len, N_LITLEN, ll_code);
    code_lengths(dfreq, 30, 15, d_len);
    codes(d_len, 30, d_code);
    int hdist = 30;
    while (hdist > 1 && !d_len[hdist - 1])
        hdist--;
    int hlit = N_LITLEN;
    while (hlit > 257 && !ll_len[hlit - 1])
        hlit--;
    /* each literal's and each length's bits (its code, then its extra bits) and their count
    ** (<< 24), worked out once a block: a token then costs a lookup or two and one put */
    uint32_t lit[256], len_bits[259];
    for (int c = 0; c < 256; c++)
        lit[c] = ll_code[c] | (uint32_t)ll_len[c] << 24;
    for (unsigned l = 3; l < 259; l++) {
        unsigned s = len_sym[l], c = 257 + s;
        len_bits[l] = (ll_code[c] | (l - len_base[s]) << ll_len[c]) | (uint32_t)(ll_len[c] + len_extra[s]) << 24;
    }
    const bits start = *b;
    put_header(b, final, ll_len, hlit, d_len, hdist);
    for (size_t k = 0; k < nt; k++) {
        unsigned t = tokens[k];
        if (t < 256) {
            put(b, lit[t] & 0xffffffu, lit[t] >> 24);
        } else { /* the length (at most 20 bits) and the distance (28) in one put: under 56 */
            unsigned d = (t >> 9) & 0xffffu, ds = t >> 25, de = ds < 4 ? 0 : ds / 2 - 1;
            unsigned lb = len_bits[t & 511], ln = lb >> 24;
            uint64_t v = (lb & 0xffffffu) |
                         (uint64_t)(d_code[ds] | (uint64_t)((d - 1) & ((1u << de) - 1)) << d_len[ds]) << ln;
            put(b, v, ln + d_len[ds] + de);
        }
    }
    put(b, ll_code[256], ll_len[256]);
    /* the bits written (whole bytes, and the bits held) against a stored copy's */
    size_t coded = (size_t)(b->p - start.p) * 8 + b->n - start.n, stored = (n / 65535 + 1) * 5 * 8 + n * 8 + 7;
    if (coded > stored) {
        *b = start;
        put_stored(b, final, from, n);
    }
}

size_t sn_zrle_compress(const uint8_t *in, size_t n, size_t stride, uint8_t *out, uint32_t *scratch)
{
    uint8_t len_sym[259];
    for (int s = 0; s < 29; s++)
        for (int l = len_base[s]; l < (s < 28 ? len_base[s + 1] : 259); l++)
            len_sym[l] = (uint8_t)s;
    len_sym[258] = 28; /* 258 is its own symbol (285), not 284 with extra bits 31 */

    uint32_t *head = scratch, *tokens = scratch + SN_ZRLE_HASH;
    memset(head, 0, SN_ZRLE_HASH * sizeof *head);
    uint8_t *o = out;
    *o++ = 0x78, *o++ = 0x01; /* zlib: deflate, 32 KiB window, the check bits (0x7801 % 31 == 0) */
    bits b = {o, 0, 0};
    size_t i = 0;
    do { /* blocks of BLOCK_TOKENS tokens: the tokens stay in cache, the codes follow the picture */
        uint32_t freq[N_LITLEN] = {0}, dfreq[30] = {0};
        const size_t from = i, nt = tokenize(in, n, &i, stride, len_sym, tokens, head, freq, dfreq);
        put_block(&b, i == n, tokens, nt, freq, dfreq, len_sym, in + from, i - from);
    } while (i < n);
    put_end(&b);
    o = b.p;
    uint32_t a = libdeflate_adler32(1, in, n);
    *o++ = (uint8_t)(a >> 24), *o++ = (uint8_t)(a >> 16), *o++ = (uint8_t)(a >> 8), *o++ = (uint8_t)a;
    return (size_t)(o - out);
}
