/* testutil.h — run scenes through the public API and read their messages back. */
#ifndef SN_TEST_UTIL_H
#define SN_TEST_UTIL_H

#include <math.h>
#include <msgpack.h>
#include <sensim/sensim.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The whole file at path in a malloc'd buffer the caller frees, *n its length (the bytes read);
** NULL when it cannot be opened or the buffer not allocated. */
static inline char *tu_read_file(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = len >= 0 ? malloc((size_t)len + 1) : NULL;
    *n = b ? fread(b, 1, (size_t)len, f) : 0;
    fclose(f);
    return b;
}

/* Writes `text` to dir/name and returns the path (static buffer). */
static inline const char *tu_write(const char *dir, const char *name, const char *text)
{
    static char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f)
        return NULL;
    fputs(text, f);
    fclose(f);
    return path;
}

/* Creates an engine with `plugins` on `threads` threads (0: the default) and loads the scene;
** exits the test on failure. The caller destroys the engine. */
static inline sn_engine *tu_load_threads(const char *plugins, const char *path, int threads)
{
    sn_error err = {0};
    sn_engine_options o = {.plugin_dir = plugins, .quiet_plugins = true, .threads = threads};
    sn_engine *e = sn_engine_create(&o, &err);
    if (!e || sn_engine_load_scene(e, path, &err) != SN_OK) {
        fprintf(stderr, "FAIL: cannot load %s: %s\n", path, err.msg);
        exit(1);
    }
    return e;
}

/* Creates an engine with `plugins` and loads the scene; exits the test on failure. */
static inline sn_engine *tu_load(const char *plugins, const char *path)
{
    return tu_load_threads(plugins, path, 0);
}

/* FNV-1a over n bytes, continuing from h (start from 0xcbf29ce484222325): runs compared byte for byte. */
static inline uint64_t tu_fnv(uint64_t h, const void *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        h = (h ^ ((const uint8_t *)p)[i]) * 0x100000001b3ull;
    return h;
}

static inline const msgpack_object *tu_get(const msgpack_object *map, const char *key)
{
    if (map->type != MSGPACK_OBJECT_MAP)
        return NULL;
    for (uint32_t i = 0; i < map->via.map.size; i++) {
        const msgpack_object_kv *kv = &map->via.map.ptr[i];
        if (kv->key.type == MSGPACK_OBJECT_STR && kv->key.via.str.size == strlen(key) &&
            memcmp(kv->key.via.str.ptr, key, kv->key.via.str.size) == 0)
            return &kv->val;
    }
    return NULL;
}

static inline double tu_num(const msgpack_object *o)
{
    if (!o)
        return NAN;
    switch (o->type) {
    case MSGPACK_OBJECT_POSITIVE_INTEGER: return (double)o->via.u64;
    case MSGPACK_OBJECT_NEGATIVE_INTEGER: return (double)o->via.i64;
    case MSGPACK_OBJECT_FLOAT32:
    case MSGPACK_OBJECT_FLOAT64: return o->via.f64;
    default: return NAN;
    }
}

static inline sn_vec3 tu_vec3(const msgpack_object *o)
{
    if (!o || o->type != MSGPACK_OBJECT_ARRAY || o->via.array.size != 3)
        return (sn_vec3){NAN, NAN, NAN};
    return (sn_vec3){tu_num(&o->via.array.ptr[0]), tu_num(&o->via.array.ptr[1]), tu_num(&o->via.array.ptr[2])};
}

static inline sn_actor_info tu_actor(sn_engine *e, const char *name)
{
    sn_actor_info info;
    memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    sn_engine_actor_get(e, sn_engine_find_actor(e, name), &info);
    return info;
}

/* The last image a camera listener got (sn_engine_listen(e, name, tu_on_image, &capture, ...)):
** its size, raw_data bytes and their count, a depth camera's float depth (NULL in a message
** without one), and how many came. Owned: tu_image_free. */
typedef struct tu_image {
    uint32_t w, h;
    uint8_t *raw;
    size_t n;
    size_t size;  /* raw's bytes */
    float *depth; /* "depth" of the last message, NULL when it had none */
} tu_image;

/* A copy of a bin's bytes (malloc'd, at least one byte), NULL when o is no bin. */
static inline void *tu_bin_copy(const msgpack_object *o)
{
    if (!o || o->type != MSGPACK_OBJECT_BIN)
        return NULL;
    void *copy = malloc(o->via.bin.size ? o->via.bin.size : 1);
    if (copy)
        memcpy(copy, o->via.bin.ptr, o->via.bin.size);
    return copy;
}

static inline void tu_on_image(const sn_message *m, void *user)
{
    tu_image *c = user;
    msgpack_unpacked u;
    msgpack_unpacked_init(&u);
    size_t off = 0;
    if (msgpack_unpack_next(&u, m->data, m->size, &off) == MSGPACK_UNPACK_SUCCESS) {
        const msgpack_object *raw = tu_get(&u.data, "raw_data");
        uint8_t *copy = tu_bin_copy(raw);
        if (copy) {
            free(c->raw), free(c->depth);
            c->raw = copy;
            c->size = raw->via.bin.size;
            c->depth = tu_bin_copy(tu_get(&u.data, "depth"));
            c->w = (uint32_t)tu_num(tu_get(&u.data, "width"));
            c->h = (uint32_t)tu_num(tu_get(&u.data, "height"));
            c->n++;
        }
    }
    msgpack_unpacked_destroy(&u);
}

static inline void tu_image_free(tu_image *c)
{
    free(c->raw), free(c->depth);
    c->raw = NULL, c->depth = NULL;
}

#endif
