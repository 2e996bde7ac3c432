/* shapes.c — which model an actor is drawn with, the models' cached topology, posing. */
#include "shapes_build.h"

#include <math.h>
#include <pthread.h>
#include <string.h>

#define MAX_V 640
#define MAX_T 1280
#define MAX_P 40

static float ref_v[SN_MODEL_COUNT][MAX_V][3];
static uint32_t ref_t[SN_MODEL_COUNT][MAX_T][3];
static sn_mesh_part ref_p[SN_MODEL_COUNT][MAX_P];
static sn_mesh meshes[SN_MODEL_COUNT];
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* Each model's blueprint defaults: the extents its topology is built at (any others pose it). */
static const double ref_ext[SN_MODEL_COUNT][3] = {
    {0, 0, 0}, {2.3, 0.95, 0.75}, {2.6, 1.0, 1.05}, {4.0, 1.25, 1.6}, {6.0, 1.27, 1.6}, {0.25, 0.25, 0.9},
    {0.82, 0.3, 0.85}, {1.1, 0.43, 0.75}, {1.85, 0.89, 0.77}, {2.3, 0.97, 0.93}, {2.49, 1.02, 0.77}, {2.68, 0.9, 0.79},
};

/* CARLA 0.9.15's two-wheelers (docs/shapes.md): bicycles, then motorcycles. */
const char *sn_carla_base_type(const char *id); /* engine/plugin/carla_vehicles.c */

static const char *const bikes[] = {"vehicle.bh.crossbike", "vehicle.diamondback.century", "vehicle.gazelle.omafiets"};
static const char *const motorbikes[] = {"vehicle.harley-davidson.low_rider", "vehicle.kawasaki.ninja",
                                         "vehicle.yamaha.yzf", "vehicle.vespa.zx125"};
/* CARLA's cars by the look of their meshes (base_type car; docs/shapes.md): the rest are sedans. */
static const struct { const char *id; sn_model m; } car_kinds[] = {
    {"vehicle.audi.a2", SN_MODEL_COMPACT},         {"vehicle.citroen.c3", SN_MODEL_COMPACT},
    {"vehicle.micro.microlino", SN_MODEL_COMPACT}, {"vehicle.mini.cooper_s", SN_MODEL_COMPACT},
    {"vehicle.mini.cooper_s_2021", SN_MODEL_COMPACT}, {"vehicle.nissan.micra", SN_MODEL_COMPACT},
    {"vehicle.seat.leon", SN_MODEL_COMPACT},       {"vehicle.audi.etron", SN_MODEL_SUV},
    {"vehicle.bmw.grandtourer", SN_MODEL_SUV},     {"vehicle.jeep.wrangler_rubicon", SN_MODEL_SUV},
    {"vehicle.nissan.patrol", SN_MODEL_SUV},       {"vehicle.nissan.patrol_2021", SN_MODEL_SUV},
    {"vehicle.dodge.charger_police", SN_MODEL_POLICE}, {"vehicle.dodge.charger_police_2020", SN_MODEL_POLICE},
    {"vehicle.ford.crown", SN_MODEL_TAXI},
};

static void build(sn_mb *b, sn_model m, const sn_model_state *s)
{
    if (m == SN_MODEL_WALKER)
        sn_build_walker(b, s);
    else if (m == SN_MODEL_BIKE || m == SN_MODEL_MOTORBIKE)
        sn_build_twowheel(b, m, s);
    else
        sn_build_vehicle(b, m, s);
    sn_mb_end(b);
}

static void build_all(void)
{
    for (int m = SN_MODEL_NONE + 1; m < SN_MODEL_COUNT; m++) {
        sn_mb b = {ref_v[m], 0, MAX_V, ref_t[m], 0, MAX_T, ref_p[m], 0, MAX_P, false};
        sn_model_state s = {sn_v3(ref_ext[m][0], ref_ext[m][1], ref_ext[m][2]), 0, 70 * M_PI / 180, 0, 0, 0};
        build(&b, (sn_model)m, &s);
        /* an overflow leaves the model empty: tests/unit/test_shapes.c checks every model */
        meshes[m] = b.overflow ? (sn_mesh){0}
                               : (sn_mesh){NULL, (const uint32_t(*)[3])ref_t[m], b.n_v, b.n_t, ref_p[m], b.n_parts};
    }
}

const sn_mesh *sn_model_mesh(sn_model m)
{
    if (m <= SN_MODEL_NONE || m >= SN_MODEL_COUNT)
        return NULL;
    pthread_once(&once, build_all);
    return &meshes[m];
}

sn_model sn_model_of(const sn_world *w, const sn_actor *a)
{
    /* by blueprint: an actor made without one (the engine's own unit tests) keeps its shape */
    const char *id = a->type_id;
    if ((w && w->box_shapes) || a->shape != SN_SHAPE_BOX || !id)
        return SN_MODEL_NONE;
    if (a->kind == SN_ACTOR_WALKER)
        return strncmp(id, "walker.", 7) ? SN_MODEL_NONE : SN_MODEL_WALKER;
    if (a->kind != SN_ACTOR_VEHICLE || strncmp(id, "vehicle.", 8))
        return SN_MODEL_NONE;
    for (size_t i = 0; i < sizeof bikes / sizeof bikes[0]; i++)
        if (!strcmp(id, bikes[i]))
            return SN_MODEL_BIKE;
    for (size_t i = 0; i < sizeof motorbikes / sizeof motorbikes[0]; i++)
        if (!strcmp(id, motorbikes[i]))
            return SN_MODEL_MOTORBIKE;
    /* CARLA's ids: the model of their base type, posed at their own extents */
    const char *base = sn_carla_base_type(id);
    if (base && !strcmp(base, "car"))
        for (size_t i = 0; i < sizeof car_kinds / sizeof car_kinds[0]; i++)
            if (!strcmp(id, car_kinds[i].id))
                return car_kinds[i].m;
    if (base)
        return !strcmp(base, "truck") ? SN_MODEL_TRUCK : !strcmp(base, "van") ? SN_MODEL_VAN
               : !strcmp(base, "bus")  ? SN_MODEL_BUS : SN_MODEL_SEDAN;
    return !strcmp(id, "vehicle.truck") ? SN_MODEL_TRUCK
           : !strcmp(id, "vehicle.van") ? SN_MODEL_VAN
           : !strcmp(id, "vehicle.bus") ? SN_MODEL_BUS
                                          : SN_MODEL_SEDAN;
}

void sn_model_state_of(const sn_actor *a, double alpha, sn_model_state *s)
{
    s->ext = a->ph->bbox.extent;
    s->steer = a->ph->steer_angle;
    s->max_steer = a->kind == SN_ACTOR_VEHICLE ? a->mv->vp->max_steer : 0;
    s->travel = alpha >= 1 ? a->st.travel : a->st.prev_travel + (a->st.travel - a->st.prev_travel) * alpha;
    sn_vec3 v = alpha >= 1 ? a->st.vel : sn_v3_lerp(a->st.prev_vel, a->st.vel, alpha);
    s->speed = sqrt(v.x * v.x + v.y * v.y);
    s->look = a->kind == SN_ACTOR_WALKER ? sn_model_look(a->type_id) : 0;
}

uint32_t sn_model_look(const char *type_id)
{
    uint32_t h = 2166136261u;
    for (const char *c = type_id; c && *c; c++)
        h = (h ^ (uint8_t)*c) * 16777619u;
    /* FNV-1a's low bits of ids that differ in their last digit differ little: mix them */
    h ^= h >> 15, h *= 0x2c1b3c6du, h ^= h >> 12, h *= 0x297a2d39u, h ^= h >> 15;
    return type_id ? h : 0;
}

void sn_actor_material_rgb(const sn_actor *a, sn_material mat, uint8_t out[3])
{
    /* skin tones from light to dark, hair, trousers (jeans, black, grey, khaki, navy, brown,
    ** beige, olive), shoes: a walker's picks are fields of its look */
    static const uint8_t skin[8][3] = {{241, 194, 160}, {224, 172, 140}, {198, 145, 110}, {176, 122, 88},
                                       {141, 94, 64},   {110, 72, 48},   {84, 56, 38},    {232, 184, 150}};
    static const uint8_t hair[6][3] = {{30, 24, 20}, {70, 48, 30}, {120, 86, 50}, {200, 170, 110}, {140, 140, 140}, {110, 40, 25}};
    static const uint8_t legs[8][3] = {{45, 55, 85}, {25, 25, 28}, {95, 95, 100}, {160, 140, 100},
                                       {30, 36, 60}, {90, 62, 40}, {200, 190, 165}, {80, 86, 50}};
    static const uint8_t shoes[4][3] = {{20, 20, 22}, {235, 235, 235}, {90, 60, 40}, {60, 60, 70}};
    if (a->kind == SN_ACTOR_WALKER && a->type_id && !strncmp(a->type_id, "walker.", 7) &&
        (mat == SN_MAT_SKIN || mat == SN_MAT_HAIR || mat == SN_MAT_TROUSERS || mat == SN_MAT_SHOES)) {
        uint32_t k = sn_model_look(a->type_id);
        const uint8_t *c = mat == SN_MAT_SKIN ? skin[(k >> 8) & 7] : mat == SN_MAT_HAIR ? hair[((k >> 11) & 7) % 6]
                           : mat == SN_MAT_TROUSERS ? legs[(k >> 14) & 7] : shoes[(k >> 17) & 3];
        memcpy(out, c, 3);
        return;
    }
    sn_material_rgb(mat, a->color, out);
}

void sn_model_pose(sn_model m, const sn_model_state *s, float (*v)[3])
{
    const sn_mesh *mesh = sn_model_mesh(m);
    if (!mesh || !mesh->n_v)
        return;
    sn_mb b = {v, 0, mesh->n_v, NULL, 0, 0, NULL, 0, 0, false};
    build(&b, m, s);
}

void sn_material_rgb(sn_material mat, const uint8_t actor_rgb[3], uint8_t out[3])
{
    static const uint8_t rgb[SN_MAT_COUNT][3] = {
        {0, 0, 0},       {45, 60, 75},   {28, 28, 28},    {165, 165, 170}, {50, 50, 52},
        {240, 238, 215}, {190, 25, 25},  {225, 225, 215}, {224, 172, 140}, {45, 55, 85},
        {55, 75, 110},   {224, 172, 140}, {40, 40, 48},   {30, 30, 34},   {220, 30, 30},
        {30, 60, 230},   {245, 205, 60},  {40, 30, 24},   {30, 30, 32},
    };
    memcpy(out, mat == SN_MAT_BODY || mat >= SN_MAT_COUNT ? actor_rgb : rgb[mat], 3);
}

uint8_t sn_material_tag(sn_material mat, uint8_t actor_tag)
{
    return mat == SN_MAT_RIDER || mat == SN_MAT_RIDER_SKIN || mat == SN_MAT_RIDER_LEGS || mat == SN_MAT_HELMET
               ? (uint8_t)SN_TAG_RIDER
               : actor_tag;
}

int sn_model_wheel_part(sn_model m, int k)
{
    const sn_mesh *mesh = sn_model_mesh(m);
    bool two = m == SN_MODEL_BIKE || m == SN_MODEL_MOTORBIKE;
    if (!mesh || m == SN_MODEL_WALKER || k < 0 || k > (two ? 1 : 3))
        return -1;
    /* tyres are the model's only parts of material SN_MAT_TYRE, in wheel order */
    for (uint32_t i = 0, n = 0; i < mesh->n_parts; i++)
        if (mesh->parts[i].material == SN_MAT_TYRE && (int)n++ == k)
            return (int)i;
    return -1;
}
