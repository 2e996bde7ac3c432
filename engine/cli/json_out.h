/* json_out.h — the program's one JSON string writer (the engine's own is internal to libsensim). */
#ifndef SN_CLI_JSON_OUT_H
#define SN_CLI_JSON_OUT_H

#include <stdio.h>

/* s as a quoted JSON string ("" for NULL): quotes and backslashes escaped, control bytes as \u00XX. */
void sn_cli_json_str(FILE *f, const char *s);

#endif
