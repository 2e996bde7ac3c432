/* writer.c — the msgpack writer plugins serialize through, and message assembly.
**
** A message is one map: the header keys (frame, timestamp, sensor, type, sensor_id,
** transform) then the plugin's keys. The plugin's part is packed into a separate reusable
** buffer while its structure is checked, so a buggy plugin cannot corrupt a stream. The
** header is known only afterwards (its map size counts the plugin's keys), so the body starts
** HEADER_ROOM bytes into its buffer and the header is copied in front of it: a camera image
** is copied once, by write_bin, not again to join header and body. */
#include "engine.h"

#include "../core/error.h"

#include <string.h>

/* Enough for any header whose sensor name and blueprint id fit a file name; longer ones are
** joined by copying. */
#define HEADER_ROOM 1024
static const char room[HEADER_ROOM];

void sn_writer_init(sn_writer *w, struct sn_engine *e)
{
    memset(w, 0, sizeof *w);
    msgpack_sbuffer_init(&w->body);
    msgpack_packer_init(&w->pk, &w->body, msgpack_sbuffer_write);
    w->engine = e;
}

void sn_writer_free(sn_writer *w) { msgpack_sbuffer_destroy(&w->body); }

void sn_writer_reset(sn_writer *w)
{
    msgpack_sbuffer_clear(&w->body);
    w->top_pairs = 0;
    w->expect_value = false;
    w->depth = 0;
    w->why[0] = 0;
    if (msgpack_sbuffer_write(&w->body, room, HEADER_ROOM) != 0)
        snprintf(w->why, sizeof w->why, "out of memory"); /* every write is then refused */
}

static sn_status refuse(sn_writer *w, const char *why)
{
    if (!w->why[0])
        snprintf(w->why, sizeof w->why, "%s", why);
    return SN_E_INVALID;
}

/* Accounts for one item about to be written; `children` > 0 opens a container. */
static sn_status item(sn_writer *w, uint32_t children)
{
    if (w->why[0])
        return SN_E_INVALID;
    if (w->depth == 0) {
        if (!w->expect_value)
            return refuse(w, "a value was written without write_key first");
        w->expect_value = false;
        w->top_pairs++;
    } else {
        w->stack[w->depth - 1]--;
    }
    while (w->depth > 0 && w->stack[w->depth - 1] == 0)
        w->depth--;
    if (children) {
        if (w->depth == SN_WRITER_MAX_DEPTH)
            return refuse(w, "containers nested too deeply");
        w->stack[w->depth++] = children;
    }
    return SN_OK;
}

static sn_status w_key(sn_writer *w, const char *key)
{
    if (!key)
        return refuse(w, "write_key(NULL)");
    if (w->depth == 0) {
        if (w->expect_value)
            return refuse(w, "write_key twice without a value between");
        w->expect_value = true;
    } else if (item(w, 0)) {
        return SN_E_INVALID;
    }
    size_t n = strlen(key);
    msgpack_pack_str(&w->pk, n);
    msgpack_pack_str_body(&w->pk, key, n);
    return SN_OK;
}

#define SCALAR(call) \
    do { \
        if (item(w, 0)) \
            return SN_E_INVALID; \
        call; \
        return SN_OK; \
    } while (0)

static sn_status w_nil(sn_writer *w) { SCALAR(msgpack_pack_nil(&w->pk)); }
static sn_status w_bool(sn_writer *w, bool v) { SCALAR(v ? msgpack_pack_true(&w->pk) : msgpack_pack_false(&w->pk)); }
static sn_status w_int(sn_writer *w, int64_t v) { SCALAR(msgpack_pack_int64(&w->pk, v)); }
static sn_status w_uint(sn_writer *w, uint64_t v) { SCALAR(msgpack_pack_uint64(&w->pk, v)); }
static sn_status w_float(sn_writer *w, float v) { SCALAR(msgpack_pack_float(&w->pk, v)); }
static sn_status w_double(sn_writer *w, double v) { SCALAR(msgpack_pack_double(&w->pk, v)); }

static sn_status w_strn(sn_writer *w, const char *s, size_t n)
{
    if (!s && n)
        return refuse(w, "write_strn(NULL)");
    SCALAR((msgpack_pack_str(&w->pk, n), msgpack_pack_str_body(&w->pk, s, n)));
}

static sn_status w_str(sn_writer *w, const char *s) { return w_strn(w, s ? s : "", s ? strlen(s) : 0); }

static sn_status w_bin(sn_writer *w, const void *data, size_t n)
{
    if (!data && n)
        return refuse(w, "write_bin(NULL)");
    if (n > UINT32_MAX)
        return refuse(w, "bin larger than 4 GiB");
    SCALAR((msgpack_pack_bin(&w->pk, n), msgpack_pack_bin_body(&w->pk, data, n)));
}

static sn_status w_array(sn_writer *w, uint32_t n)
{
    if (item(w, n))
        return SN_E_INVALID;
    msgpack_pack_array(&w->pk, n);
    return SN_OK;
}

static sn_status w_map(sn_writer *w, uint32_t n)
{
    if (n > UINT32_MAX / 2)
        return refuse(w, "map too large");
    if (item(w, 2 * n))
        return SN_E_INVALID;
    msgpack_pack_map(&w->pk, n);
    return SN_OK;
}

static sn_status w_vec3(sn_writer *w, sn_vec3 v)
{
    if (w_array(w, 3))
        return SN_E_INVALID;
    w_double(w, v.x);
    w_double(w, v.y);
    return w_double(w, v.z);
}

static sn_status w_actor(sn_writer *w, uint32_t id)
{
    const sn_actor *a = sn_world_find(&w->engine->world, id);
    if (!a)
        return SN_E_NOT_FOUND;
    if (w_map(w, 3))
        return SN_E_INVALID;
    w_key(w, "id");
    w_uint(w, a->id);
    w_key(w, "type_id");
    w_str(w, a->type_id);
    w_key(w, "semantic_tag");
    return w_uint(w, a->tag);
}

static void pack_str(msgpack_packer *pk, const char *s)
{
    size_t n = strlen(s);
    msgpack_pack_str(pk, n);
    msgpack_pack_str_body(pk, s, n);
}

static void pack_vec3(msgpack_packer *pk, double x, double y, double z)
{
    msgpack_pack_array(pk, 3);
    msgpack_pack_double(pk, x);
    msgpack_pack_double(pk, y);
    msgpack_pack_double(pk, z);
}

sn_status sn_writer_finish(sn_writer *w, sn_sensor *s, sn_error *err)
{
    if (!w->why[0] && (w->depth != 0 || w->expect_value))
        refuse(w, w->expect_value ? "the last key has no value" : "a container was left unfinished");
    if (w->why[0])
        return sn_fail(err, SN_E_INVALID, "malformed message: %s", w->why);
    struct sn_engine *e = w->engine;
    const sn_actor *a = sn_world_find(&e->world, s->actor_id);
    sn_transform t = a ? sn_actor_world_transform(&e->world, a) : (sn_transform){{0, 0, 0}, {0, 0, 0}};
    msgpack_sbuffer_clear(&e->msg);
    msgpack_packer *pk = &e->msg_pk;
    msgpack_pack_map(pk, 6 + w->top_pairs);
    pack_str(pk, "frame");
    msgpack_pack_uint64(pk, e->clock.frame);
    pack_str(pk, "timestamp");
    msgpack_pack_double(pk, e->clock.timestamp);
    pack_str(pk, "sensor");
    pack_str(pk, s->name);
    pack_str(pk, "type");
    pack_str(pk, s->bp->id);
    pack_str(pk, "sensor_id");
    msgpack_pack_uint32(pk, s->actor_id);
    pack_str(pk, "transform");
    msgpack_pack_map(pk, 2);
    pack_str(pk, "location");
    pack_vec3(pk, t.location.x, t.location.y, t.location.z);
    pack_str(pk, "rotation");
    pack_vec3(pk, t.rotation.pitch, t.rotation.yaw, t.rotation.roll);
    size_t body = w->body.size - HEADER_ROOM, head = e->msg.size;
    if (head <= HEADER_ROOM) {
        memcpy(w->body.data + HEADER_ROOM - head, e->msg.data, head);
        e->out_data = w->body.data + HEADER_ROOM - head;
    } else {
        msgpack_sbuffer_write(&e->msg, w->body.data + HEADER_ROOM, body);
        if (e->msg.size != head + body)
            return sn_fail(err, SN_E_NOMEM, "out of memory for a message");
        e->out_data = e->msg.data;
    }
    e->out_size = head + body;
    return SN_OK;
}

void sn_host_writer_fill(sn_host *h);
void sn_host_writer_fill(sn_host *h)
{
    h->write_key = w_key;
    h->write_nil = w_nil;
    h->write_bool = w_bool;
    h->write_int = w_int;
    h->write_uint = w_uint;
    h->write_float = w_float;
    h->write_double = w_double;
    h->write_str = w_str;
    h->write_strn = w_strn;
    h->write_bin = w_bin;
    h->write_array = w_array;
    h->write_map = w_map;
    h->write_vec3 = w_vec3;
    h->write_actor = w_actor;
}
