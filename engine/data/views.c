/* views.c — the flow colour code and bird's-eye views (views.h). */
#include "views.h"
#include "image.h"
#include "layouts.h"

#include <math.h>
#include <string.h>

static float clampf(float v, float lo, float hi) { return v < lo ? lo : v > hi ? hi : v; }

void sn_flow_color(float vx, float vy, uint8_t rgb[3])
{
    /* CARLA's constants and float operations as written (PythonAPI SensorData.cpp), so the
    ** bytes match its get_color_coded_flow; only NaN and infinity, which it would turn into
    ** undefined casts, are caught first */
    if (!isfinite(vx) || !isfinite(vy)) {
        rgb[0] = rgb[1] = rgb[2] = 0;
        return;
    }
    const float pi = 3.1415f, rad2ang = 360.f / (2.f * pi);
    float angle = 180.f + atan2f(vy, vx) * rad2ang;
    if (angle < 0)
        angle = 360.f + angle;
    angle = fmodf(angle, 360.f);
    float norm = sqrtf(vx * vx + vy * vy);
    const float shift = 0.999f, a = 1.f / logf(0.1f + shift);
    float intensity = clampf(a * logf(norm + shift), 0.f, 1.f);
    if (!isfinite(intensity)) /* norm overflowed to infinity */
        intensity = 1.f;
    float H = angle, S = 1.f, V = intensity, H_60 = H * (1.f / 60.f);
    float C = V * S, X = C * (1.f - fabsf(fmodf(H_60, 2.f) - 1.f)), m = V - C;
    float r, g, b;
    switch ((unsigned)H_60) {
    case 0: r = C, g = X, b = 0; break;
    case 1: r = X, g = C, b = 0; break;
    case 2: r = 0, g = C, b = X; break;
    case 3: r = 0, g = X, b = C; break;
    case 4: r = X, g = 0, b = C; break;
    case 5: r = C, g = 0, b = X; break;
    default: r = g = b = 1; break;
    }
    rgb[0] = (uint8_t)((r + m) * 255.f);
    rgb[1] = (uint8_t)((g + m) * 255.f);
    rgb[2] = (uint8_t)((b + m) * 255.f);
}

void sn_flow_image(const uint8_t *raw, size_t px, uint8_t *rgb)
{
    for (size_t i = 0; i < px; i++)
        sn_flow_color(sn_le_f32(raw + 8 * i), sn_le_f32(raw + 8 * i + 4), rgb + 3 * i);
}

size_t sn_bev_record_size(sn_bev_kind k) { return k == SN_BEV_SEMANTIC_LIDAR ? 24 : 16; }

/* Paints an r x r square (r odd) centred on the pixel of sensor-frame (x, y). */
static void dot(uint8_t *rgb, double x, double y, int r, const uint8_t c[3])
{
    double col = floor(SN_BEV_SIZE / 2.0 + y / SN_BEV_M_PER_PX), row = floor(SN_BEV_SIZE / 2.0 - x / SN_BEV_M_PER_PX);
    if (!(col > -r && col < SN_BEV_SIZE + r && row > -r && row < SN_BEV_SIZE + r))
        return; /* off the picture (also NaN) */
    for (int dy = -(r / 2); dy <= r / 2; dy++)
        for (int dx = -(r / 2); dx <= r / 2; dx++) {
            int cx = (int)col + dx, cy = (int)row + dy;
            if (cx >= 0 && cx < SN_BEV_SIZE && cy >= 0 && cy < SN_BEV_SIZE)
                memcpy(rgb + 3 * ((size_t)cy * SN_BEV_SIZE + cx), c, 3);
        }
}

static uint8_t unit_byte(double v) { return (uint8_t)(255.0 * (v < 0 ? 0 : v > 1 ? 1 : v)); }

void sn_bev_image(sn_bev_kind k, const uint8_t *rec, size_t n, uint8_t *rgb)
{
    memset(rgb, 0, (size_t)SN_BEV_SIZE * SN_BEV_SIZE * 3);
    static const uint8_t grey[3] = {128, 128, 128};
    dot(rgb, 0, 0, 3, grey);
    size_t stride = sn_bev_record_size(k);
    for (size_t i = 0; i < n; i++, rec += stride) {
        float a = sn_le_f32(rec), b = sn_le_f32(rec + 4), c = sn_le_f32(rec + 8), d = sn_le_f32(rec + 12);
        if (!isfinite(a) || !isfinite(b) || !isfinite(c) || !isfinite(d))
            continue;
        uint8_t col[3];
        if (k == SN_BEV_LIDAR) {
            col[0] = col[1] = col[2] = (uint8_t)(96 + 159 * (d < 0 ? 0 : d > 1 ? 1 : d));
            dot(rgb, a, b, 1, col);
        } else if (k == SN_BEV_SEMANTIC_LIDAR) {
            uint32_t tag = rec[20] | (uint32_t)rec[21] << 8 | (uint32_t)rec[22] << 16 | (uint32_t)rec[23] << 24;
            memcpy(col, sn_cityscapes_color(tag < 29 ? (uint8_t)tag : 0), 3);
            dot(rgb, a, b, 1, col);
        } else {
            /* velocity a, azimuth b, altitude c, depth d; CARLA's manual_control colours */
            double nv = a / 7.5, h = d * cos(c);
            col[0] = unit_byte(1 - nv);
            col[1] = unit_byte(1 - fabs(nv));
            double blue = -1 - nv; /* CARLA: abs(clamp(-1, 0, -1 - n)) */
            col[2] = unit_byte(-(blue < -1 ? -1 : blue > 0 ? 0 : blue));
            dot(rgb, h * cos(b), h * sin(b), 3, col);
        }
    }
}
