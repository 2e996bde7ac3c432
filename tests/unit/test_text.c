/* sn_text_escape (engine/core/util.c): what a plugin's text becomes before it is printed; and
** sn_json_str (engine/core/json.c), the one JSON string writer: always valid JSON. */
#include "../../engine/core/util.h"
#include "../check.h"
#include "../../engine/core/json.h"

#include <stdio.h>
#include <stdlib.h>

#include <string.h>

static const char *esc(const char *in, size_t n)
{
    static char out[256];
    return sn_text_escape(in, out, n);
}

/* sn_json_str(s) as a string (the caller frees). */
static char *json(const char *s)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    if (!f)
        return NULL;
    sn_json_str(f, s);
    fclose(f);
    return buf;
}

static int json_is(const char *in, const char *want)
{
    char *got = json(in);
    int ok = got && strcmp(got, want) == 0;
    if (!ok)
        fprintf(stderr, "json(%s) = %s, want %s\n", in ? in : "NULL", got ? got : "?", want);
    free(got);
    return ok;
}

int main(void)
{
    CHECK(json_is("plain ünïcode 𝄞", "\"plain ünïcode 𝄞\""), "valid UTF-8 kept");
    CHECK(json_is("a\"b\\c\n\x7f", "\"a\\\"b\\\\c\\u000a\\u007f\""), "quote, backslash, control, DEL");
    CHECK(json_is("x\xff\xc0\xafy", "\"x\\ufffd\\ufffd\\ufffdy\""), "stray and overlong bytes: U+FFFD each");
    CHECK(json_is("\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\""), "a surrogate is not UTF-8");
    CHECK(json_is(NULL, "\"\""), "NULL: empty string");
    CHECK(!strcmp(esc("plain text, ünïcode ✓ 𝄞", 256), "plain text, ünïcode ✓ 𝄞"), "valid UTF-8 kept");
    CHECK(!strcmp(esc("a\tb\nc\rd\x1b[0m\x7f", 256), "a\\x09b\\x0Ac\\x0Dd\\x1B[0m\\x7F"), "C0 controls and DEL");
    CHECK(!strcmp(esc("\xc2\x9b" "2J \xc2\xa0", 256), "\\xC2\\x9B2J \xc2\xa0"), "C1 control escaped, U+00A0 kept");
    CHECK(!strcmp(esc("\x80 \xc0\xaf \xed\xa0\x80 \xf4\x90\x80\x80 \xe2\x82", 256),
                  "\\x80 \\xC0\\xAF \\xED\\xA0\\x80 \\xF4\\x90\\x80\\x80 \\xE2\\x82"),
          "stray, overlong, surrogate, past U+10FFFF, cut: each byte escaped: %s", esc("\xe2\x82", 256));
    CHECK(!strcmp(esc("ab\x01", 6), "ab"), "an escape that does not fit is left out whole");
    CHECK(!strcmp(esc("a\xc3\xa9", 3), "a"), "a character that does not fit is left out whole");
    CHECK(!strcmp(esc(NULL, 8), ""), "NULL is empty");
    return CHECK_DONE();
}
