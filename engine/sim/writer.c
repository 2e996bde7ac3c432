/* writer.c — the msgpack writer plugins serialize through, and message assembly.
**
** A message is one map: the header keys (frame, timestamp, sensor, type, sensor_id,
** transform) then the plugin's keys. The plugin's part is packed into a separate reusable
** buffer while its structure is checked, so a buggy plugin cannot corrupt a stream. The
** header is known only afterwards (its map size counts the plugin's keys), so the body starts
** HEADER_ROOM bytes into its buffer and the header is copied in front of it: a camera image
** is copied once, by write_bin, not again to join header and body. For a large message bound
** for a direct-written stream the room is padded so that the message's address agrees with its
** file offset modulo the direct-I/O alignment: the stream writer then writes it from this buffer
** without copying it into its stage (sn_writer_reset_aligned; spool.h). */
#include "engine.h"
#include "writer.h"

#include <sensim/pack.h>

#include "../core/error.h"

#include <string.h>

/* Enough for any header whose sensor name and blueprint id fit a file name; longer ones are
** joined by copying. */
#define HEADER_ROOM 1024
static const char room[HEADER_ROOM];

void sn_writer_init(sn_writer *w, struct sn_engine *e)
{
    memset(w, 0, sizeof *w);
    w->engine = e;
}

void sn_writer_free(sn_writer *w) { sn_pack_free(&w->body); }

void sn_writer_reset(sn_writer *w)
{
    sn_pack_clear(&w->body);
    w->top_pairs = 0;
    w->expect_value = false;
    w->depth = 0;
    w->why[0] = 0;
    w->room = HEADER_ROOM;
    if (!sn_pack_raw(&w->body, room, HEADER_ROOM))
        snprintf(w->why, sizeof w->why, "out of memory"); /* every write is then refused */
}

void sn_writer_reset_aligned(sn_writer *w, size_t head, uint64_t at, size_t align, size_t expect)
{
    sn_writer_reset(w);
    /* room for the largest pad and the message expected, so the body does not move while the
    ** plugin writes (a move would lose the alignment: still correct, only copied again) */
    if (w->why[0] || head > HEADER_ROOM || !sn_pack_room(&w->body, align + expect))
        return;
    uintptr_t start = (uintptr_t)w->body.data + HEADER_ROOM - head; /* where the message would start */
    size_t pad = (size_t)((at - (uint64_t)start) % align);
    w->room = HEADER_ROOM + pad;
    w->body.size = w->room; /* the pad's bytes are never part of the message: left as they are */
}

static sn_status refuse(sn_writer *w, const char *why)
{
    if (!w->why[0])
        snprintf(w->why, sizeof w->why, "%s", why);
    return SN_E_INVALID;
}

/* Accounts for one item about to be written: a container (of `children` items) or a scalar. */
static sn_status item(sn_writer *w, bool container, uint32_t children)
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
    if (container && w->depth == SN_WRITER_MAX_DEPTH) /* empty ones too: readers count them */
        return refuse(w, "containers nested too deeply");
    if (children) { /* open until its last item is complete: depth is the true nesting */
        w->stack[w->depth++] = children;
        return SN_OK;
    }
    while (w->depth > 0 && w->stack[w->depth - 1] == 0) /* complete: so are the containers it ended */
        w->depth--;
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
    } else if (item(w, false, 0)) {
        return SN_E_INVALID;
    }
    return sn_pack_str(&w->body, key, strlen(key)) ? SN_OK : refuse(w, "out of memory");
}

#define SCALAR(call) \
    do { \
        if (item(w, false, 0)) \
            return SN_E_INVALID; \
        return (call) ? SN_OK : refuse(w, "out of memory"); \
    } while (0)

static sn_status w_nil(sn_writer *w) { SCALAR(sn_pack_nil(&w->body)); }
static sn_status w_bool(sn_writer *w, bool v) { SCALAR(sn_pack_bool(&w->body, v)); }
static sn_status w_int(sn_writer *w, int64_t v) { SCALAR(sn_pack_int(&w->body, v)); }
static sn_status w_uint(sn_writer *w, uint64_t v) { SCALAR(sn_pack_uint(&w->body, v)); }
static sn_status w_float(sn_writer *w, float v) { SCALAR(sn_pack_float(&w->body, v)); }
static sn_status w_double(sn_writer *w, double v) { SCALAR(sn_pack_double(&w->body, v)); }

static sn_status w_strn(sn_writer *w, const char *s, size_t n)
{
    if (!s && n)
        return refuse(w, "write_strn(NULL)");
    if (n > UINT32_MAX)
        return refuse(w, "string longer than 4 GiB");
    SCALAR(sn_pack_str(&w->body, s, n));
}

static sn_status w_str(sn_writer *w, const char *s) { return w_strn(w, s ? s : "", s ? strlen(s) : 0); }

static sn_status w_bin(sn_writer *w, const void *data, size_t n)
{
    if (!data && n)
        return refuse(w, "write_bin(NULL)");
    if (n > UINT32_MAX)
        return refuse(w, "bin larger than 4 GiB");
    SCALAR(sn_pack_bin_header(&w->body, (uint32_t)n) && sn_pack_raw(&w->body, data, n));
}

/* write_bin's header, and its n bytes left for the plugin to write in place (host.h): no copy. */
static void *w_bin_room(sn_writer *w, size_t n)
{
    if (n > UINT32_MAX) {
        refuse(w, "bin larger than 4 GiB");
        return NULL;
    }
    if (item(w, false, 0))
        return NULL;
    unsigned char *d = NULL;
    if (!sn_pack_bin_header(&w->body, (uint32_t)n) || !(d = sn_pack_room(&w->body, n))) {
        refuse(w, "out of memory");
        return NULL;
    }
    w->body.size += n;
    return d;
}

/* Checks that p[0..n) is exactly one msgpack value the other calls could have written, at
** most `depth` containers deep; why says what is wrong. No recursion: a stack of what each
** open container still holds. */
static bool packed_ok(const unsigned char *p, size_t n, int depth, int *deepest, const char **why)
{
    *deepest = 0;
    struct level {
        uint64_t left; /* items still to come; a map counts keys and values */
        bool map;
    } st[SN_WRITER_MAX_DEPTH + 1];
    int d = 0;
    st[0].left = 1, st[0].map = false;
    size_t i = 0;
    while (d >= 0) {
        if (st[d].left == 0) {
            d--;
            continue;
        }
        bool key = st[d].map && st[d].left % 2 == 0;
        st[d].left--;
        if (i >= n) {
            *why = "write_packed: the bytes end inside a value";
            return false;
        }
        unsigned c = p[i++];
        uint64_t len = 0;   /* bytes of payload that follow the header */
        uint64_t items = 0; /* a container's items */
        bool container = false, map = false, str = false;
        int field = 0;      /* bytes of the big-endian length field */
        if (c <= 0x7f || c >= 0xe0 || c == 0xc0 || c == 0xc2 || c == 0xc3)
            ;
        else if ((c & 0xe0) == 0xa0)
            str = true, len = c & 0x1f;
        else if ((c & 0xf0) == 0x90)
            container = true, items = c & 0x0f;
        else if ((c & 0xf0) == 0x80)
            container = map = true, items = c & 0x0f;
        else
            switch (c) {
            case 0xcc: case 0xd0: len = 1; break;
            case 0xcd: case 0xd1: len = 2; break;
            case 0xca: case 0xce: case 0xd2: len = 4; break;
            case 0xcb: case 0xcf: case 0xd3: len = 8; break;
            case 0xd9: str = true, field = 1; break;
            case 0xda: str = true, field = 2; break;
            case 0xdb: str = true, field = 4; break;
            case 0xc4: field = 1; break;
            case 0xc5: field = 2; break;
            case 0xc6: field = 4; break;
            case 0xdc: container = true, field = 2; break;
            case 0xdd: container = true, field = 4; break;
            case 0xde: container = map = true, field = 2; break;
            case 0xdf: container = map = true, field = 4; break;
            default:
                *why = "write_packed: an ext type or the unused byte 0xc1 (not something the writer makes)";
                return false;
            }
        if (key && !str) {
            *why = "write_packed: a map key that is not a string";
            return false;
        }
        if ((size_t)field > n - i) {
            *why = "write_packed: the bytes end inside a value";
            return false;
        }
        uint64_t v = 0;
        for (int k = 0; k < field; k++)
            v = v << 8 | p[i++];
        if (container)
            items = field ? v : items;
        else
            len = field ? v : len;
        if (len > n - i) {
            *why = "write_packed: the bytes end inside a value";
            return false;
        }
        i += (size_t)len;
        if (container) {
            /* open containers above this one: levels 1..d hold items still to come, and the
            ** ones whose last item this is are open too; count what encloses it exactly */
            int open = d + 1;
            if (open > depth) {
                *why = "write_packed: containers nested too deeply";
                return false;
            }
            *deepest = open > *deepest ? open : *deepest;
            if (items)
                d++, st[d].left = map ? 2 * items : items, st[d].map = map;
        }
    }
    if (i != n) {
        *why = "write_packed: bytes left over after one value";
        return false;
    }
    return true;
}

/* 64-bit hash of the bytes, 32 at a time in four independent lanes (a multiply-xorshift mix
** per word; one lane's chain of multiplies would bound it at 8 bytes per multiply latency). */
static uint64_t packed_hash(const unsigned char *p, size_t n)
{
    uint64_t h[4] = {0x9e3779b97f4a7c15ull ^ n, 0xc2b2ae3d27d4eb4full, 0x165667b19e3779f9ull, 0x27d4eb2f165667c5ull};
    size_t i = 0;
    for (; i + 32 <= n; i += 32)
        for (int k = 0; k < 4; k++) {
            uint64_t v;
            memcpy(&v, p + i + 8 * k, 8);
            h[k] = (h[k] ^ v) * 0xff51afd7ed558ccdull;
            h[k] ^= h[k] >> 32;
        }
    for (int k = 0; i + 8 <= n; i += 8, k++) {
        uint64_t v;
        memcpy(&v, p + i, 8);
        h[k] = (h[k] ^ v) * 0xff51afd7ed558ccdull;
        h[k] ^= h[k] >> 32;
    }
    uint64_t v = 0;
    memcpy(&v, p + i, n - i);
    uint64_t x = ((h[0] ^ v) * 0xc4ceb9fe1a85ec53ull) ^ (h[1] * 0xff51afd7ed558ccdull);
    x = (x ^ (x >> 29)) * 0xc4ceb9fe1a85ec53ull ^ (h[2] * 0x9e3779b97f4a7c15ull) ^ h[3];
    return x ^ (x >> 29);
}

static sn_status w_packed(sn_writer *w, const void *bytes, size_t n)
{
    const char *why = NULL;
    if (!bytes)
        return refuse(w, "write_packed(NULL)");
    /* The same bytes checked before (by hash and length), fitting under the current depth? The
    ** set is in most-recent-first order; a new value takes the first way. */
    uint64_t h = packed_hash(bytes, n);
    sn_packed_known *set = &w->known[(h >> 7) % (SN_WRITER_KNOWN / SN_WRITER_WAYS) * SN_WRITER_WAYS];
    int way = 0;
    while (way < SN_WRITER_WAYS && !(set[way].hash == h && set[way].n == n && n))
        way++;
    if (way == SN_WRITER_WAYS || w->depth + set[way].depth > SN_WRITER_MAX_DEPTH) {
        int deepest;
        if (!packed_ok(bytes, n, SN_WRITER_MAX_DEPTH - w->depth, &deepest, &why))
            return refuse(w, why);
        way = way == SN_WRITER_WAYS ? SN_WRITER_WAYS - 1 : way;
        set[way] = (sn_packed_known){n, h, deepest};
    }
    if (way) { /* to the front */
        sn_packed_known k = set[way];
        memmove(&set[1], &set[0], (size_t)way * sizeof *set);
        set[0] = k;
    }
    SCALAR(sn_pack_raw(&w->body, bytes, n));
}

static sn_status w_array(sn_writer *w, uint32_t n)
{
    if (item(w, true, n))
        return SN_E_INVALID;
    return sn_pack_array(&w->body, n) ? SN_OK : refuse(w, "out of memory");
}

static sn_status w_map(sn_writer *w, uint32_t n)
{
    if (n > UINT32_MAX / 2)
        return refuse(w, "map too large");
    if (item(w, true, 2 * n))
        return SN_E_INVALID;
    return sn_pack_map(&w->body, n) ? SN_OK : refuse(w, "out of memory");
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

static bool pack_vec3(sn_pack_buf *b, double x, double y, double z)
{
    return sn_pack_array(b, 3) && sn_pack_double(b, x) && sn_pack_double(b, y) && sn_pack_double(b, z);
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
    sn_pack_buf *b = &e->msg;
    sn_pack_clear(b);
    bool ok = sn_pack_map(b, 6 + w->top_pairs) && sn_pack_cstr(b, "frame") && sn_pack_uint(b, e->clock.frame) &&
              sn_pack_cstr(b, "timestamp") && sn_pack_double(b, e->clock.timestamp) && sn_pack_cstr(b, "sensor") &&
              sn_pack_cstr(b, s->name) && sn_pack_cstr(b, "type") && sn_pack_cstr(b, s->bp->id) && sn_pack_cstr(b, "sensor_id") &&
              sn_pack_uint(b, s->actor_id) && sn_pack_cstr(b, "transform") && sn_pack_map(b, 2) &&
              sn_pack_cstr(b, "location") && pack_vec3(b, t.location.x, t.location.y, t.location.z) &&
              sn_pack_cstr(b, "rotation") && pack_vec3(b, t.rotation.pitch, t.rotation.yaw, t.rotation.roll);
    if (!ok)
        return sn_fail(err, SN_E_NOMEM, "out of memory for a message");
    size_t body = w->body.size - w->room, head = e->msg.size;
    if (head <= w->room) {
        memcpy(w->body.data + w->room - head, e->msg.data, head);
        e->out_data = (const char *)w->body.data + w->room - head;
        e->out_buf = &w->body;
    } else {
        if (!sn_pack_raw(&e->msg, w->body.data + w->room, body))
            return sn_fail(err, SN_E_NOMEM, "out of memory for a message");
        e->out_data = (const char *)e->msg.data;
        e->out_buf = &e->msg;
    }
    e->out_size = head + body;
    return SN_OK;
}

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
    h->write_packed = w_packed;
    h->write_bin_room = w_bin_room;
}
