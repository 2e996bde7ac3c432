/* json.h — the one JSON string writer: the engine's (run.json, recorder queries, storyboard
** logs), `sensim dump`'s and the program's (core/json.c is compiled into the sensim program
** too, which includes no engine header and declares it in cli/json_out.h) and testing.h's
** sn_fake_json. */
#ifndef SN_CORE_JSON_H
#define SN_CORE_JSON_H

#include <stddef.h>
#include <stdio.h>

/* Length of the valid UTF-8 sequence at s[0..n) (1-4), 0 when it is not one (overlong forms,
** surrogates and code points past U+10FFFF are not). On a NUL-terminated string n may be
** SIZE_MAX: a NUL ends every sequence. */
size_t sn_utf8_len(const unsigned char *s, size_t n);

/* s[0..n) as a quoted JSON string: quotes and backslashes escaped, control bytes and DEL as
** \u00XX, and U+FFFD (\ufffd) for each byte that is not valid UTF-8, so the output is always
** valid JSON. */
void sn_json_strn(FILE *o, const char *s, size_t n);
/* The same escaping into any sink: put(ctx, p, k) receives the output in pieces, in order (the
** FILE writer above is this with fwrite; libsensim's testing.h JSON uses a growing buffer). */
typedef void sn_json_put_fn(void *ctx, const char *p, size_t k);
void sn_json_strn_put(sn_json_put_fn *put, void *ctx, const char *s, size_t n);
/* The same for a NUL-terminated s; NULL writes "". */
void sn_json_str(FILE *o, const char *s);

#endif
