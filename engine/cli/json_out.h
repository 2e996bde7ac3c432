/* json_out.h — the program's JSON string writer: engine/core/json.c, the engine's one writer,
** which meson compiles into the program too. Declared here because the program includes no
** engine header (it is built on the public API); the signature is json.h's. */
#ifndef SN_CLI_JSON_OUT_H
#define SN_CLI_JSON_OUT_H

#include <stdio.h>

/* s as a quoted JSON string ("" for NULL): quotes and backslashes escaped, control bytes and
** DEL as \u00XX, U+FFFD for bytes that are not valid UTF-8. */
void sn_json_str(FILE *o, const char *s);

#endif
