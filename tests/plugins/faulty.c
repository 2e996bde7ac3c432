/* A sensor that fails or crashes on purpose, where and when its attributes say, to check
** that the host reports the plugin, the sensor and the callback by name. */
#include <sensim/plugin.h>

#include <stdint.h>
#include <stdlib.h>

static const char *const modes[] = {"none", "fail_set", "fail_tick", "fail_serialize", "crash_tick",
                                    "crash_serialize", "garbled_set", "crash_set", NULL};
enum { NONE, FAIL_SET, FAIL_TICK, FAIL_SERIALIZE, CRASH_TICK, CRASH_SERIALIZE, GARBLED_SET, CRASH_SET };

/* Text no terminal should receive raw: DEL, an escape sequence, a newline, a C1 control (CSI),
** invalid UTF-8 (a stray continuation byte, an overlong '/', a cut sequence), then valid é. */
static const char garbled[] = "del\x7f esc\x1b[31mred nl\nnext csi\xc2\x9b bad\x80\xc0\xaf\xe2\x82 ok\xc3\xa9";

static const sn_attr_def attrs[] = {
    {"mode", SN_ATTR_ENUM, "none", NULL, modes, false, 0, 0, NULL, "what goes wrong"},
    {"at_frame", SN_ATTR_INT, "3", NULL, NULL, true, 0, 1000000, NULL, "frame at which it goes wrong"},
};

typedef struct faulty {
    const sn_host *host;
    sn_ctx *ctx;
    int64_t mode, at;
} faulty;

static sn_status create(const sn_host *h, sn_ctx *c, void **out)
{
    faulty *f = calloc(1, sizeof *f);
    if (!f)
        return SN_E_NOMEM;
    f->host = h;
    f->ctx = c;
    *out = f;
    return SN_OK;
}
static void destroy(void *self) { free(self); }

/* Dies of a real invalid access. Not NULL, which UBSan would catch before the fault;
** volatile so the compiler keeps the store. */
static void crash(void)
{
    volatile int *volatile p = (volatile int *)(uintptr_t)64;
    *p = 1;
}

static sn_status set(void *self, const sn_value *v, uint32_t n)
{
    faulty *f = self;
    (void)n;
    f->mode = v[0].i;
    f->at = v[1].i;
    if (f->mode == FAIL_SET) {
        f->host->set_error(f->ctx, "refusing to be set up (on purpose)");
        return SN_E_INVALID;
    }
    if (f->mode == CRASH_SET) /* a scene whose load crashes (tests/integration/batch_mapcache.sh) */
        crash();
    if (f->mode == GARBLED_SET) {
        f->host->log(f->ctx, SN_LOG_WARN, "%s", garbled);
        f->host->set_error(f->ctx, "%s", garbled);
        return SN_E_INVALID;
    }
    return SN_OK;
}

static bool now(faulty *f) { return f->host->clock(f->ctx)->frame >= (uint64_t)f->at; }

static sn_status tick(void *self, sn_phase phase)
{
    faulty *f = self;
    (void)phase;
    if (now(f) && f->mode == FAIL_TICK) {
        f->host->set_error(f->ctx, "failing in tick at frame %llu (on purpose)",
                           (unsigned long long)f->host->clock(f->ctx)->frame);
        return SN_E_PLUGIN;
    }
    if (now(f) && f->mode == CRASH_TICK)
        crash();
    return SN_OK;
}

static sn_status serialize(void *self, uint32_t i, sn_writer *w)
{
    faulty *f = self;
    (void)i;
    if (now(f) && f->mode == FAIL_SERIALIZE) {
        f->host->set_error(f->ctx, "failing in serialize (on purpose)");
        return SN_E_PLUGIN;
    }
    if (now(f) && f->mode == CRASH_SERIALIZE)
        crash();
    f->host->write_key(w, "ok");
    return f->host->write_bool(w, true);
}

static const sn_sensor_class cls = {
    .hdr = SN_ABI_HEADER(sn_sensor_class),
    .blueprint = "sensor.test.faulty",
    .doc = "fails or crashes on purpose",
    .phases = SN_PHASE_POST,
    .attrs = attrs,
    .n_attrs = 2,
    .attr_def_size = sizeof(sn_attr_def),
    .create = create,
    .destroy = destroy,
    .set = set,
    .tick = tick,
    .serialize = serialize,
};
static const sn_sensor_class *const classes[] = {&cls};
static const sn_plugin_lib lib = {
    .hdr = SN_ABI_HEADER(sn_plugin_lib), .name = "faulty", .version = "1", .n_classes = 1, .classes = classes,
};

SN_PLUGIN_ENTRY
{
    (void)host_abi_minor;
    return host_abi_major == SN_ABI_MAJOR ? &lib : NULL;
}
