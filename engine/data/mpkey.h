/* mpkey.h — the one msgpack map lookup by key: the stream tools, image converters, MCAP views,
** the embedding API's data calls and the views module (which compiles mpkey.c too and
** declares it in cli/msgkey.h, as it includes no engine header). */
#ifndef SN_DATA_MPKEY_H
#define SN_DATA_MPKEY_H

#include <msgpack.h>

/* The value of the string key `key` in `map` (the first one), or NULL: no such key, or map is
** NULL or not a map. The result points into map's zone. */
const msgpack_object *sn_mp_get(const msgpack_object *map, const char *key);

#endif
