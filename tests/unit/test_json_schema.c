/* The JSON Schema of an MCAP JSON channel (engine/views/json_schema.c): a message's shape, with a
** type on every property and items on every array, as Foxglove Studio's parser needs (it fails
** the whole channel otherwise: "Unsupported type undefined for other_actor.parent", seen in the
** app by tests/foxglove). */
#include "../../engine/views/json_schema.h"
#include "../check.h"

#include <stdlib.h>

static void same(const char *json, const char *want)
{
    sn_buf b = {0};
    bool ok = sn_json_schema_of(json, strlen(json), &b);
    sn_buf_put(&b, "", 1);
    CHECK(ok && strcmp((const char *)b.p, want) == 0, "%s: %s, want %s", json, ok ? (const char *)b.p : "(refused)", want);
    sn_buf_free(&b);
}

static void refused(const char *json)
{
    sn_buf b = {0};
    sn_buf_put(&b, "x", 1);
    CHECK(!sn_json_schema_of(json, strlen(json), &b) && b.n == 1, "%s: refused, output unchanged", json);
    sn_buf_free(&b);
}

int main(void)
{
    same("{\"a\":1,\"b\":\"x\",\"c\":true}",
         "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"number\"},\"b\":{\"type\":\"string\"},\"c\":{\"type\":\"boolean\"}}}");
    /* a null is a number (an actor id not there), never a property without a type */
    same("{\"parent\":null}", "{\"type\":\"object\",\"properties\":{\"parent\":{\"type\":\"number\"}}}");
    /* an empty array has items: objects */
    same("{\"path\":[]}",
         "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{}}}}}");
    /* the first item stands for all */
    same("{\"v\":[1,2.5,-3e2]}", "{\"type\":\"object\",\"properties\":{\"v\":{\"type\":\"array\",\"items\":{\"type\":\"number\"}}}}");
    same("{\"o\":{\"k\":[{\"x\":1}]}}",
         "{\"type\":\"object\",\"properties\":{\"o\":{\"type\":\"object\",\"properties\":{\"k\":{\"type\":\"array\","
         "\"items\":{\"type\":\"object\",\"properties\":{\"x\":{\"type\":\"number\"}}}}}}}}");
    same("{}", "{\"type\":\"object\",\"properties\":{}}");
    refused("{\"a\":}");
    refused("{\"a\":1");
    refused("nul");
    return CHECK_DONE();
}
