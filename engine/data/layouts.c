#include "layouts.h"

#include <string.h>

static const sn_field XYZI[] = {{"x", SN_FIELD_F32, 0}, {"y", SN_FIELD_F32, 4}, {"z", SN_FIELD_F32, 8},
                                {"intensity", SN_FIELD_F32, 12}};
static const sn_field SEMANTIC[] = {{"x", SN_FIELD_F32, 0},          {"y", SN_FIELD_F32, 4},
                                    {"z", SN_FIELD_F32, 8},          {"cos_inc_angle", SN_FIELD_F32, 12},
                                    {"object_idx", SN_FIELD_U32, 16}, {"object_tag", SN_FIELD_U32, 20}};
static const sn_field RADAR[] = {{"velocity", SN_FIELD_F32, 0}, {"azimuth", SN_FIELD_F32, 4},
                                 {"altitude", SN_FIELD_F32, 8}, {"depth", SN_FIELD_F32, 12}};
static const sn_field DVS[] = {{"x", SN_FIELD_U16, 0}, {"y", SN_FIELD_U16, 2}, {"t", SN_FIELD_I64, 4},
                               {"pol", SN_FIELD_U8, 12}};
static const sn_field LABEL[] = {{"tag", SN_FIELD_U8, 0}, {"id", SN_FIELD_U32, 1}};
static const sn_field BGRA[] = {{"b", SN_FIELD_U8, 0}, {"g", SN_FIELD_U8, 1}, {"r", SN_FIELD_U8, 2},
                                {"a", SN_FIELD_U8, 3}};
static const sn_field DEPTH[] = {{"depth", SN_FIELD_F32, 0}};
static const sn_field FLOW[] = {{"x", SN_FIELD_F32, 0}, {"y", SN_FIELD_F32, 4}};

#define FIELDS(f) sizeof f / sizeof *f, f
static const sn_bin_layout LAYOUTS[] = {
    {"sensor.lidar.ray_cast", "raw_data", "sn_point_xyzi", 16, false, FIELDS(XYZI)},
    {"sensor.lidar.ray_cast_semantic", "raw_data", "sn_semantic_point", 24, false, FIELDS(SEMANTIC)},
    {"sensor.other.radar", "raw_data", "sn_radar_detection", 16, false, FIELDS(RADAR)},
    {"sensor.camera.dvs", "events", "sn_dvs_event", 13, false, FIELDS(DVS)},
    {"sensor.camera.dvs", "labels", "sn_dvs_label", 5, false, FIELDS(LABEL)},
    {"sensor.camera.rgb", "raw_data", "bgra8", 4, true, FIELDS(BGRA)},
    {"sensor.camera.depth", "raw_data", "bgra8", 4, true, FIELDS(BGRA)},
    {"sensor.camera.semantic_segmentation", "raw_data", "bgra8", 4, true, FIELDS(BGRA)},
    {"sensor.camera.instance_segmentation", "raw_data", "bgra8", 4, true, FIELDS(BGRA)},
    {"sensor.camera.depth", "depth", "f32", 4, true, FIELDS(DEPTH)},
    {"sensor.camera.optical_flow", "raw_data", "flow_f32x2", 8, true, FIELDS(FLOW)},
};

static bool same(const char *a, size_t n, const char *z) { return strlen(z) == n && memcmp(a, z, n) == 0; }

const sn_bin_layout *sn_bin_layout_find(const char *type, size_t type_len, const char *key, size_t key_len)
{
    for (size_t i = 0; type && key && i < sizeof LAYOUTS / sizeof *LAYOUTS; i++)
        if (same(type, type_len, LAYOUTS[i].type) && same(key, key_len, LAYOUTS[i].key))
            return &LAYOUTS[i];
    return NULL;
}

const sn_bin_layout *sn_bin_layout_find_in(const sn_bin_layout *extra, size_t n, const char *type, size_t type_len,
                                           const char *key, size_t key_len)
{
    const sn_bin_layout *l = sn_bin_layout_find(type, type_len, key, key_len);
    for (size_t i = 0; !l && type && key && i < n; i++)
        if (same(type, type_len, extra[i].type) && same(key, key_len, extra[i].key))
            l = &extra[i];
    return l;
}
