/* msgkey.h — the views module's msgpack key lookup: engine/data/mpkey.c, the engine's one,
** which meson compiles into the module too. Declared here because cli/ includes no engine
** header; the signature is data/mpkey.h's. */
#ifndef SN_CLI_MSGKEY_H
#define SN_CLI_MSGKEY_H

#include <msgpack.h>

/* The value of the string key `key` in `map`, or NULL (no such key, map NULL or not a map). */
const msgpack_object *sn_mp_get(const msgpack_object *map, const char *key);

#endif
