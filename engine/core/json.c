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

void sn_json_strn(FILE *o, const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    fputc('"', o);
    for (size_t i = 0; i < n;) {
        unsigned char c = u[i];
        size_t k = sn_utf8_len(u + i, n - i);
        if (!k) {
            fputs("\\ufffd", o);
            i++;
            continue;
        }
        if (c == '"' || c == '\\')
            fprintf(o, "\\%c", c);
        else if (c < 0x20 || c == 0x7f)
            fprintf(o, "\\u%04x", c);
        else
            fwrite(u + i, 1, k, o);
        i += k;
    }
    fputc('"', o);
}

void sn_json_str(FILE *o, const char *s) { sn_json_strn(o, s ? s : "", s ? strlen(s) : 0); }
