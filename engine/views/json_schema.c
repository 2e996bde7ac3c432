/* json_schema.c — see json_schema.h. A recursive descent over the text: the schema is written as
** the value is read, so a message costs one pass. */
#include "json_schema.h"

#include <string.h>

typedef struct rd {
    const char *p, *end;
    sn_buf *out;
    int depth;
} rd;

static void ws(rd *r)
{
    while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r'))
        r->p++;
}

static void put(rd *r, const char *s) { sn_buf_put(r->out, s, strlen(s)); }

/* A string at p (its quotes included) copied to the output when `copy`: keys keep their escapes. */
static bool string(rd *r, bool copy)
{
    const char *s = r->p;
    if (r->p >= r->end || *r->p != '"')
        return false;
    for (r->p++; r->p < r->end && *r->p != '"'; r->p++)
        if (*r->p == '\\' && ++r->p >= r->end)
            return false;
    if (r->p >= r->end)
        return false;
    r->p++;
    if (copy)
        sn_buf_put(r->out, s, (size_t)(r->p - s));
    return true;
}

static bool value(rd *r);

static bool object(rd *r)
{
    r->p++; /* { */
    put(r, "{\"type\":\"object\",\"properties\":{");
    ws(r);
    if (r->p < r->end && *r->p == '}') {
        r->p++;
        put(r, "}}");
        return true;
    }
    for (bool first = true;; first = false) {
        ws(r);
        if (!first)
            put(r, ",");
        if (!string(r, true))
            return false;
        ws(r);
        if (r->p >= r->end || *r->p++ != ':')
            return false;
        put(r, ":");
        if (!value(r))
            return false;
        ws(r);
        if (r->p < r->end && *r->p == ',') {
            r->p++;
            continue;
        }
        if (r->p < r->end && *r->p == '}') {
            r->p++;
            put(r, "}}");
            return true;
        }
        return false;
    }
}

/* An array: the schema of its first item stands for all (a message's lists are uniform). */
static bool array(rd *r)
{
    r->p++; /* [ */
    ws(r);
    if (r->p < r->end && *r->p == ']') {
        r->p++; /* Foxglove needs the items' type: objects, whose fields it reads off each message */
        put(r, "{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{}}}");
        return true;
    }
    put(r, "{\"type\":\"array\",\"items\":");
    if (!value(r))
        return false;
    put(r, "}");
    size_t keep = r->out->n; /* the other items: read, their schema dropped */
    for (;;) {
        ws(r);
        if (r->p < r->end && *r->p == ']') {
            r->p++;
            return true;
        }
        if (r->p >= r->end || *r->p++ != ',' || !value(r))
            return false;
        r->out->n = keep;
    }
}

static bool word(rd *r, const char *w, const char *schema)
{
    size_t n = strlen(w);
    if ((size_t)(r->end - r->p) < n || memcmp(r->p, w, n))
        return false;
    r->p += n;
    put(r, schema);
    return true;
}

static bool value(rd *r)
{
    ws(r);
    if (r->p >= r->end || ++r->depth > 64)
        return false;
    bool ok;
    char c = *r->p;
    if (c == '{')
        ok = object(r);
    else if (c == '[')
        ok = array(r);
    else if (c == '"')
        ok = string(r, false), put(r, "{\"type\":\"string\"}");
    else if (c == 't')
        ok = word(r, "true", "{\"type\":\"boolean\"}");
    else if (c == 'f')
        ok = word(r, "false", "{\"type\":\"boolean\"}");
    else if (c == 'n')
        ok = word(r, "null", "{\"type\":\"number\"}"); /* sensim's nulls: an actor id not there */
    else if (c == '-' || (c >= '0' && c <= '9')) {
        while (r->p < r->end && strchr("+-.0123456789eE", *r->p))
            r->p++;
        put(r, "{\"type\":\"number\"}");
        ok = true;
    } else
        ok = false;
    r->depth--;
    return ok;
}

bool sn_json_schema_of(const char *json, size_t n, sn_buf *out)
{
    size_t start = out->n;
    rd r = {json, json + n, out, 0};
    bool ok = value(&r);
    ws(&r);
    if (!ok || r.p != r.end || out->bad) {
        out->n = start;
        return false;
    }
    return true;
}
