#include "util.h"
#include "json.h"

#include <ctype.h>
#include <sensim/grow.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool sn_grow(void **pp, size_t *cap, size_t need, size_t elem)
{
    return sn_grow_array(pp, cap, need, elem);
}

char *sn_strdup(const char *s)
{
    if (!s)
        return NULL;
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

uint64_t sn_hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ull;
    }
    return h;
}

bool sn_streq_nocase(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
            return false;
    return *a == *b;
}

int sn_format(char *buf, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int r = vsnprintf(buf, n, fmt, ap);
    va_end(ap);
    return r;
}

char *sn_text_escape(const char *in, char *out, size_t n)
{
    size_t o = 0;
    if (!n)
        return out;
    for (const unsigned char *p = (const unsigned char *)(in ? in : ""); *p;) {
        size_t len = sn_utf8_len(p, SIZE_MAX); /* a NUL ends every sequence */
        bool control = len == 1 ? (*p < 0x20 || *p == 0x7F) : len == 2 && p[0] == 0xC2 && p[1] < 0xA0;
        if (len && !control) {
            if (o + len >= n)
                break;
            memcpy(out + o, p, len);
            o += len, p += len;
            continue;
        }
        size_t k = len ? len : 1; /* a control character's bytes, or one stray byte */
        if (o + 4 * k >= n)
            break;
        for (size_t i = 0; i < k; i++, p++, o += 4)
            snprintf(out + o, 5, "\\x%02X", *p);
    }
    out[o] = 0;
    return out;
}

