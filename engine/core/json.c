/* json.c — see json.h. */
#include "json.h"

#include <stdint.h>
#include <string.h>

size_t sn_utf8_len(const unsigned char *s, size_t n)
{
    unsigned char c = s[0];
    size_t k = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 0;
    if (!k || k > n)
        return 0;
    uint32_t cp = k == 1 ? c : k == 2 ? c & 0x1fu : k == 3 ? c & 0x0fu : c & 0x07u;
    for (size_t i = 1; i < k; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (s[i] & 0x3fu);
    }
    static const uint32_t min[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < min[k] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return k;
}

void sn_json_strn_put(sn_json_put_fn *put, void *ctx, const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    put(ctx, "\"", 1);
    for (size_t i = 0; i < n;) {
        unsigned char c = u[i];
        size_t k = sn_utf8_len(u + i, n - i);
        char esc[8];
        if (!k) {
            put(ctx, "\\ufffd", 6);
            i++;
            continue;
        }
        if (c == '"' || c == '\\')
            esc[0] = '\\', esc[1] = (char)c, put(ctx, esc, 2);
        else if (c < 0x20 || c == 0x7f)
            snprintf(esc, sizeof esc, "\\u%04x", c), put(ctx, esc, 6);
        else
            put(ctx, s + i, k);
        i += k;
    }
    put(ctx, "\"", 1);
}

static void put_file(void *ctx, const char *p, size_t k) { fwrite(p, 1, k, (FILE *)ctx); }

void sn_json_strn(FILE *o, const char *s, size_t n) { sn_json_strn_put(put_file, o, s, n); }

void sn_json_str(FILE *o, const char *s) { sn_json_strn(o, s ? s : "", s ? strlen(s) : 0); }
