/* msgview.h — reading values out of one msgpack message in place: no allocation, every read
** bounds-checked, so a listener's bytes (or a file's) are read without msgpack-c objects and
** the bins it finds point into the message. What sensim/data.h is built on. */
#ifndef SN_DATA_MSGVIEW_H
#define SN_DATA_MSGVIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A position in a message: the bytes of one value from p on. */
typedef struct sn_mv {
    const uint8_t *p, *end;
} sn_mv;

typedef enum sn_mv_type {
    SN_MV_BAD, SN_MV_NIL, SN_MV_BOOL, SN_MV_UINT, SN_MV_INT, SN_MV_FLOAT, SN_MV_STR, SN_MV_BIN, SN_MV_ARRAY,
    SN_MV_MAP, SN_MV_EXT
} sn_mv_type;

/* True when v holds exactly one well-formed value, ending at v.end (a whole message). */
bool sn_mv_whole(sn_mv v);
/* The type of the value at v. */
sn_mv_type sn_mv_type_of(sn_mv v);
/* The value of key `key` in the map at v (the first such key), as a view; false if v is not a
** map, the key is absent or the bytes are malformed. */
bool sn_mv_get(sn_mv map, const char *key, sn_mv *out);
/* Scalars: integers of either sign and floats as a double; false for any other type. */
bool sn_mv_number(sn_mv v, double *out);
/* A non-negative integer; false otherwise (a float too). */
bool sn_mv_uint(sn_mv v, uint64_t *out);
/* Bytes of a string or bin in place (not NUL-terminated). */
bool sn_mv_str(sn_mv v, const char **s, size_t *n);
bool sn_mv_bin(sn_mv v, const uint8_t **b, size_t *n);
/* An array of exactly n numbers into out[0..n). */
bool sn_mv_numbers(sn_mv v, double *out, size_t n);

#endif
