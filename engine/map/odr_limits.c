/* odr_limits.c — the shape of an OpenDRIVE file's XML, checked on its bytes before libxml2
** reads them (issue 33 item 14): libxml2 2.9 compares each attribute of an element with every
** one before it (100 000 attributes kept it busy for minutes) and builds a tree as deep as the
** file nests. One linear pass counts attributes per start tag and the depth of elements;
** comments, CDATA, processing instructions and the DOCTYPE are skipped whole. What it cannot
** tell (a quote never closed, a tag never ended) it leaves to libxml2, which reports it. */
#include "odr.h"

#include "../core/error.h"

#include <string.h>

/* The end of `pat` after p (or NULL), counting the newlines crossed. */
static const char *skip_past(const char *p, const char *end, const char *pat, int *line)
{
    size_t n = strlen(pat);
    for (; p + n <= end; p++) {
        if (*p == '\n')
            (*line)++;
        if (!memcmp(p, pat, n))
            return p + n;
    }
    return NULL;
}

sn_status sn_odr_check_shape(const char *xml, size_t size, const char *name, sn_error *err)
{
    if (size > SN_ODR_MAX_FILE)
        return sn_fail(err, SN_E_RANGE, "%s:1: XML: the file has %zu bytes, more than a map may have (%u MiB)", name,
                       size, (unsigned)(SN_ODR_MAX_FILE >> 20));
    const char *p = xml, *end = xml + size;
    int line = 1, depth = 0;
    while (p < end) {
        const char *lt = memchr(p, '<', (size_t)(end - p));
        if (!lt)
            break;
        for (const char *q = p; q < lt; q++)
            line += *q == '\n';
        p = lt + 1;
        if (p >= end)
            break;
        const char *next = NULL;
        if (end - p >= 3 && !memcmp(p, "!--", 3))
            next = skip_past(p + 3, end, "-->", &line);
        else if (end - p >= 8 && !memcmp(p, "![CDATA[", 8))
            next = skip_past(p + 8, end, "]]>", &line);
        else if (*p == '?')
            next = skip_past(p + 1, end, "?>", &line);
        else if (*p == '!') { /* <!DOCTYPE ... [ ... ]>: to the '>' outside brackets and quotes */
            int br = 0;
            char quote = 0;
            for (const char *q = p + 1; q < end && !next; q++) {
                line += *q == '\n';
                if (quote)
                    quote = *q == quote ? 0 : quote;
                else if (*q == '"' || *q == '\'')
                    quote = *q;
                else if (*q == '[')
                    br++;
                else if (*q == ']')
                    br--;
                else if (*q == '>' && br <= 0)
                    next = q + 1;
            }
        } else if (*p == '/') {
            next = memchr(p, '>', (size_t)(end - p));
            next = next ? next + 1 : NULL;
            depth--;
        } else { /* a start tag: count its attributes (an '=' outside quotes) */
            long attrs = 0;
            char quote = 0;
            const char *q = p;
            for (; q < end; q++) {
                line += *q == '\n';
                if (quote)
                    quote = *q == quote ? 0 : quote;
                else if (*q == '"' || *q == '\'')
                    quote = *q;
                else if (*q == '=')
                    attrs++;
                else if (*q == '>')
                    break;
            }
            if (attrs > SN_ODR_MAX_ATTRS)
                return sn_fail(err, SN_E_RANGE, "%s:%d: XML: an element with %ld attributes (at most %d)", name, line,
                               attrs, SN_ODR_MAX_ATTRS);
            if (q < end && q[-1] != '/' && ++depth > SN_ODR_MAX_DEPTH)
                return sn_fail(err, SN_E_RANGE, "%s:%d: XML: elements nested more than %d deep", name, line,
                               SN_ODR_MAX_DEPTH);
            next = q < end ? q + 1 : NULL;
        }
        if (!next)
            break; /* unterminated: libxml2 says where */
        p = next;
    }
    return SN_OK;
}
