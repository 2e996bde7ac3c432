/* util.h — small allocation and string helpers used across the engine. */
#ifndef SN_CORE_UTIL_H
#define SN_CORE_UTIL_H

#include "json.h" /* sn_json_str, which used to be here */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Grows *pp (an array of `elem`-byte items with capacity *cap) to hold `need` items, as the SDK's
** sn_grow_array (sensim/grow.h) does.
** Returns false on allocation failure (the array is left as it was). */
bool sn_grow(void **pp, size_t *cap, size_t need, size_t elem);
/* strdup that accepts NULL (returns NULL). Caller frees. */
char *sn_strdup(const char *s);
/* snprintf for messages where cutting a long text short is intended. */
int sn_format(char *buf, size_t n, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* 64-bit FNV-1a of a string. */
uint64_t sn_hash_str(const char *s);
/* Case-insensitive ASCII comparison. */
bool sn_streq_nocase(const char *a, const char *b);

/* `in` as one printable line in out[n] (always terminated): valid UTF-8 is kept, and each byte
** of a control character (below 0x20, DEL, U+0080-U+009F) or of an invalid UTF-8 sequence is
** written "\xHH", so a plugin's text can neither move the terminal's cursor nor break a line.
** Cut short only between characters. Returns out. */
char *sn_text_escape(const char *in, char *out, size_t n);


#define SN_COUNT(a) (sizeof(a) / sizeof((a)[0]))

#endif
