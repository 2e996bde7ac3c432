/* sensim/numtext.h — what a number is, written as text: one set of rules for scenes, --set values,
** batch specs, blueprint attributes and command-line options (issue 33 item 10: a spec and
** `--frames` took "+3" that a scene refused). Header-only (static inline) so the program,
** which links the public API alone, applies the same rules as the engine.
**
**  - a whole number: ASCII digits only, at least one ("3", "007"); no sign, space, "0x" or
**    fraction; at most `max`;
**  - an integer: a whole number with an optional '-' in front;
**  - a number: an optional '-', digits with an optional '.' and fraction, an optional
**    exponent ("2", "-0.5", ".5", "5.", "1e3", "2.5E-3"); finite. No '+', space, hex, inf, nan.
** (A vehicle's light_state bits alone also take C's "0x41", as documented in docs/scene.md.) */
#ifndef SENSIM_NUMTEXT_H
#define SENSIM_NUMTEXT_H

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

static inline bool sn_text_digits(const char *s)
{
    if (!s || !*s)
        return false;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return false;
    return true;
}

static inline bool sn_text_uint(const char *s, uint64_t max, uint64_t *out)
{
    if (!sn_text_digits(s))
        return false;
    errno = 0;
    unsigned long long v = strtoull(s, NULL, 10);
    if (errno == ERANGE || v > max)
        return false;
    *out = v;
    return true;
}

static inline bool sn_text_int(const char *s, long long *out)
{
    if (!s || !sn_text_digits(*s == '-' ? s + 1 : s))
        return false;
    errno = 0;
    long long v = strtoll(s, NULL, 10);
    if (errno == ERANGE)
        return false;
    *out = v;
    return true;
}

static inline bool sn_text_number(const char *s, double *out)
{
    if (!s)
        return false;
    const char *p = s + (*s == '-');
    int digits = 0;
    while (*p >= '0' && *p <= '9')
        p++, digits++;
    if (*p == '.')
        for (p++; *p >= '0' && *p <= '9'; p++)
            digits++;
    if (!digits)
        return false;
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-')
            p++;
        if (*p < '0' || *p > '9')
            return false;
        while (*p >= '0' && *p <= '9')
            p++;
    }
    if (*p)
        return false;
    errno = 0;
    double v = strtod(s, NULL);
    if (!isfinite(v) || (errno == ERANGE && fabs(v) > 1)) /* overflow; an underflow reads as ~0 */
        return false;
    *out = v;
    return true;
}

#endif
