/* A sensor that declares the layout of its records (ABI 1.6, sensim/records.h): each tick it
** writes three "echoes" (every field type a reader must know) and two "points" (x, y, z), values
** derived from the frame number, so `sensim dump --decode`, Python's listen() and the MCAP
** export can be checked against numbers known in advance (tests/integration/records.sh). */
#include <sensim/plugin.h>

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

typedef struct echo {
    double range;     /* m: 10 * frame + i */
    float bearing;    /* rad: 0.25 * i */
    uint32_t actor;   /* 100 + i */
    int16_t level;    /* -i */
    uint8_t flags;    /* i */
    int8_t trend;     /* -1 */
    uint16_t beam;    /* 7 * i */
    int32_t offset;   /* -1000 * i */
    uint64_t stamp;   /* frame * 1e10 */
    int64_t delta;    /* -frame */
} echo;

typedef struct point {
    float x, y, z;    /* frame, i, -i */
} point;

static const sn_rec_field echo_fields[] = {
    {"range", SN_REC_F64, offsetof(echo, range), "m"},     {"bearing", SN_REC_F32, offsetof(echo, bearing), "rad"},
    {"actor", SN_REC_U32, offsetof(echo, actor), NULL},    {"level", SN_REC_I16, offsetof(echo, level), "dB"},
    {"flags", SN_REC_U8, offsetof(echo, flags), NULL},     {"trend", SN_REC_I8, offsetof(echo, trend), NULL},
    {"beam", SN_REC_U16, offsetof(echo, beam), NULL},      {"offset", SN_REC_I32, offsetof(echo, offset), "mm"},
    {"stamp", SN_REC_U64, offsetof(echo, stamp), "ns"},    {"delta", SN_REC_I64, offsetof(echo, delta), NULL},
};
static const sn_rec_field point_fields[] = {
    {"x", SN_REC_F32, offsetof(point, x), "m"}, {"y", SN_REC_F32, offsetof(point, y), "m"},
    {"z", SN_REC_F32, offsetof(point, z), "m"},
};
static const sn_rec_layout records[] = {
    {.key = "echoes", .name = "test_echo", .size = sizeof(echo), SN_REC_FIELDS(echo_fields), .doc = "three per tick"},
    {.key = "points", .name = "test_point", .size = sizeof(point), SN_REC_FIELDS(point_fields), .doc = "two per tick"},
};

typedef struct probe {
    const sn_host *host;
    sn_ctx *ctx;
    echo e[3];
    point p[2];
} probe;

static sn_status create(const sn_host *h, sn_ctx *c, void **out)
{
    probe *p = calloc(1, sizeof *p);
    if (!p)
        return SN_E_NOMEM;
    p->host = h, p->ctx = c;
    *out = p;
    return SN_OK;
}
static void destroy(void *self) { free(self); }

static sn_status tick(void *self, sn_phase phase)
{
    probe *p = self;
    uint64_t f = p->host->clock(p->ctx)->frame;
    (void)phase;
    memset(p->e, 0, sizeof p->e); /* padding too: the bytes are deterministic */
    for (int i = 0; i < 3; i++)
        p->e[i] = (echo){10.0 * (double)f + i, 0.25f * (float)i, 100u + (uint32_t)i, (int16_t)-i, (uint8_t)i, -1,
                         (uint16_t)(7 * i), -1000 * i, f * 10000000000ull, -(int64_t)f};
    for (int i = 0; i < 2; i++)
        p->p[i] = (point){(float)f, (float)i, (float)-i};
    return SN_OK;
}

static sn_status serialize(void *self, uint32_t index, sn_writer *w)
{
    probe *p = self;
    const sn_host *h = p->host;
    (void)index;
    h->write_key(w, "echoes");
    h->write_bin(w, p->e, sizeof p->e);
    h->write_key(w, "points");
    return h->write_bin(w, p->p, sizeof p->p);
}

static const sn_sensor_class probe_class = {
    .hdr = SN_ABI_HEADER(sn_sensor_class),
    .blueprint = "sensor.test.records",
    .doc = "declares its record layouts",
    .phases = SN_PHASE_POST,
    .attr_def_size = sizeof(sn_attr_def),
    SN_RECORD_TABLE(records),
    .create = create, .destroy = destroy, .tick = tick, .serialize = serialize,
};
static const sn_sensor_class *const classes[] = {&probe_class};
SN_PLUGIN_EXPORT(lib, "records_probe", "1.0", classes)
