/* json_schema.h — a JSON Schema of one JSON message, for the MCAP channels that carry JSON
** (Foxglove's panels read a channel's fields from its schema: with `{"type":"object"}` alone its
** Raw Messages panel waited for ever and a Plot of /imu.accelerometer[0] stayed empty, issue 33
** item 3). The schema is the message's shape: objects with their properties, arrays with the
** schema of their first item, numbers, strings, booleans. Every property has a type Foxglove
** Studio's parser takes (mcap-support's parseJsonSchema: it refuses a property without one and
** an array without items, and the app then fails the whole channel): a null is a number
** (sensim's nulls are actor ids that are not there: a parent), an empty array's items are objects
** (whose fields Foxglove reads off each message). */
#ifndef SN_VIEWS_JSON_SCHEMA_H
#define SN_VIEWS_JSON_SCHEMA_H

#include "buf.h"

#include <stdbool.h>
#include <stddef.h>

/* Appends to out the schema of the JSON text json[n] (one value); false when it is not JSON
** (or nests deeper than 64), out then unchanged in length. */
bool sn_json_schema_of(const char *json, size_t n, sn_buf *out);

#endif
