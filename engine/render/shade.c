/* shade.c — sun, sky light, sky gradient, fog and wet/glossy materials (shade.h). The numbers
** are documented in docs/rendering.md; with the default weather (clear, no fog, dry) a lit,
** matte surface keeps the renderer's earlier Lambert colour exactly. */
#include "shade.h"

#include "puddles.h"
#include "lanes.h"
#include "simd4.h"

#include <math.h>
#include <pthread.h>
#include <string.h>

#define FOG_K 0.05 /* extinction per metre at fog_density 100 */

static double clamp01(double v) { return v < 0 ? 0 : v > 1 ? 1 : v; }
static double mix(double a, double b, double t) { return a + (b - a) * t; }
static double dot3(const double a[3], sn_vec3 b) { return a[0] * b.x + a[1] * b.y + a[2] * b.z; }

void sn_shade_env_init(sn_shade_env *e, const sn_lighting *l)
{
    const sn_weather *w = &l->weather;
    double az = w->sun_azimuth_angle * SN_DEG, alt = w->sun_altitude_angle * SN_DEG;
    e->sun[0] = cos(alt) * cos(az), e->sun[1] = cos(alt) * sin(az), e->sun[2] = sin(alt);
    double c = w->cloudiness / 100, altd = w->sun_altitude_angle;
    /* the sun fades over its last 5 degrees above the horizon; clouds take up to 3/4 of it */
    double fade = clamp01(altd / 5), strength = l->sun_intensity * fade * (1 - 0.75 * c);
    double warm = clamp01(1 - altd / 25) * fade; /* low sun: yellow to orange */
    e->sun_rgb[0] = strength, e->sun_rgb[1] = strength * (1 - 0.2 * warm), e->sun_rgb[2] = strength * (1 - 0.45 * warm);
    /* day: 1 above 6 degrees, 0 below -6 (civil twilight); the night keeps 15 % (moon, city) */
    double day = clamp01((altd + 6) / 12);
    e->ambient = l->ambient * (0.15 + 0.85 * day);
    for (int k = 0; k < 3; k++) {
        double base = l->sky[k], night = (double[]){8, 12, 28}[k], grey = (double[]){188, 191, 196}[k];
        double z = base * 0.85, h = mix(base, (double[]){232, 236, 242}[k], 0.55);
        h = mix(h, (double[]){255, 160, 95}[k], 0.55 * warm);          /* sunset horizon */
        z = mix(z, grey * 0.9, 0.85 * c), h = mix(h, grey, 0.85 * c);  /* overcast */
        e->zenith[k] = mix(night, z, day), e->horizon[k] = mix(night * 1.4, h, day);
    }
    e->glow = fade * (1 - c);
    e->fog_k = FOG_K * w->fog_density / 100;
    e->fog_start = w->fog_distance;
    e->fog_falloff = w->fog_falloff;
    double wet = w->wetness > w->precipitation_deposits ? w->wetness : w->precipitation_deposits;
    e->wet = wet / 100;
    e->shadow_keep = 0.6 * c;
    e->night = 1 - day;
    e->deposits = w->precipitation_deposits / 100;
}

/* Optical depth of fog from a to b: the integral of fog_k exp(-falloff z) along the segment. */
static double optical_depth(const sn_shade_env *e, sn_vec3 a, sn_vec3 b)
{
    double L = sn_v3_len(sn_v3_sub(b, a));
    double f = e->fog_falloff, za = f * a.z, dz = f * (b.z - a.z);
    if (za < -50) /* far below the fog's base: bounded, so the exponentials stay finite */
        za = -50;
    double g = fabs(dz) < 1e-6 ? exp(-za) * (1 - dz / 2) : (exp(-za) - exp(-za - dz)) / dz;
    return e->fog_k * L * g;
}

double sn_fog_transmittance(const sn_shade_env *e, sn_vec3 eye, sn_vec3 p)
{
    if (e->fog_k <= 0)
        return 1;
    sn_vec3 d = sn_v3_sub(p, eye);
    double dist = sn_v3_len(d);
    if (dist <= e->fog_start)
        return 1;
    sn_vec3 a = sn_v3_add(eye, sn_v3_scale(d, e->fog_start / dist));
    return exp(-optical_depth(e, a, p));
}

void sn_shade_sky(const sn_shade_env *e, sn_vec3 eye, sn_vec3 d, uint8_t rgb[3])
{
    double t = sqrt(clamp01(d.z)), below = d.z < 0 ? 0.85 : 1;
    double g = dot3(e->sun, d), glow = 0;
    if (e->glow > 0 && g > 0.9) /* the disc (half a degree) and a halo around it */
        glow = e->glow * ((g > 0.99996 ? 1 : 0) + 0.35 * pow((g - 0.9) / 0.1, 24));
    /* fog towards the sky: to infinity, finite only when it thins with height and the ray climbs */
    double T = 1;
    if (e->fog_k > 0) {
        if (e->fog_falloff > 0 && d.z > 1e-6) {
            sn_vec3 a = sn_v3_add(eye, sn_v3_scale(d, e->fog_start));
            double za = e->fog_falloff * a.z;
            T = exp(-e->fog_k * exp(-(za < -50 ? -50 : za)) / (e->fog_falloff * d.z));
        } else {
            T = 0;
        }
    }
    for (int k = 0; k < 3; k++) {
        double v = mix(e->horizon[k], e->zenith[k], t) * below;
        v += (255 - v) * glow;
        v = v * T + e->horizon[k] * (1 - T);
        v += 0.5;
        rgb[k] = (uint8_t)(v > 255 ? 255 : v);
    }
}

static bool is_ground(uint8_t tag)
{
    return tag == SN_TAG_ROADS || tag == SN_TAG_SIDEWALK || tag == SN_TAG_ROAD_LINE || tag == SN_TAG_GROUND ||
           tag == SN_TAG_BRIDGE || tag == SN_TAG_RAIL_TRACK;
}

static bool is_vehicle(uint8_t tag)
{
    return tag == SN_TAG_CAR || tag == SN_TAG_TRUCK || tag == SN_TAG_BUS || tag == SN_TAG_TRAIN ||
           tag == SN_TAG_MOTORCYCLE || tag == SN_TAG_BICYCLE;
}

void sn_shade_surface_lin(const sn_shade_env *e, const sn_surface *s, double out[3])
{
    const float *n = s->n;
    double lambert = n[0] * e->sun[0] + n[1] * e->sun[1] + n[2] * e->sun[2];
    double lit = lambert > 0 ? lambert : 0;
    double vis = s->sun_vis < 1 ? s->sun_vis + (1 - s->sun_vis) * e->shadow_keep : 1;
    double albedo = s->albedo, gloss = 0, spec_power = 0;
    if (is_vehicle(s->tag)) { /* car paint: a highlight and a little of the sky */
        gloss = 0.35, spec_power = 60;
    } else if (e->wet > 0 && is_ground(s->tag) && n[2] > 0.5) { /* wet ground: darker, mirror-like */
        double pud = sn_puddle(e->deposits, s->p), wet = e->wet > pud ? e->wet : pud; /* standing water: fully wet */
        albedo *= 1 - 0.45 * wet;
        gloss = 0.8 * wet + 0.15 * pud, spec_power = 30 + 200 * wet;
    }
    for (int k = 0; k < 3; k++)
        out[k] = s->color[k] * ((e->ambient + e->sun_rgb[k] * lit * vis + (s->lamp ? s->lamp[k] : 0)) * albedo +
                                s->glow);
    if (gloss > 0) {
        /* view reflected about the normal; Schlick's Fresnel weights the sky it mirrors */
        sn_vec3 v = sn_v3_norm(s->ray), nn = sn_v3(n[0], n[1], n[2]); /* only glossy ones need it */
        double vn = sn_v3_dot(v, nn);
        sn_vec3 r = sn_v3_sub(v, sn_v3_scale(nn, 2 * vn));
        double cosv = clamp01(-vn), f = 0.04 + 0.96 * pow(1 - cosv, 5);
        double rs = dot3(e->sun, r), spec = rs > 0 && lit > 0 ? pow(rs, spec_power) * vis : 0;
        double t = sqrt(clamp01(r.z));
        for (int k = 0; k < 3; k++) {
            double sky = mix(e->horizon[k], e->zenith[k], t);
            out[k] = mix(out[k], sky, gloss * f) + 255 * gloss * spec * e->sun_rgb[k];
        }
    }
}

void sn_shade_fog_bytes(const sn_shade_env *e, const double out[3], double T, uint8_t rgb[3])
{
    for (int k = 0; k < 3; k++) {
        double v = (T < 1 ? out[k] * T + e->horizon[k] * (1 - T) : out[k]) + 0.5;
        rgb[k] = (uint8_t)(v > 255 ? 255 : v);
    }
}

void sn_shade_surface(const sn_shade_env *e, sn_vec3 eye, const sn_surface *s, uint8_t rgb[3])
{
    double out[3];
    sn_shade_surface_lin(e, s, out);
    sn_shade_fog_bytes(e, out, sn_fog_transmittance(e, eye, s->p), rgb);
}

/* Value noise: a 256 x 256 table of hashed lattice values (built once, read-only after), smooth
** between lattice points, repeating every 256 cells. */
#define NOISE_N 256
static float noise_table[NOISE_N * NOISE_N];
static pthread_once_t noise_once = PTHREAD_ONCE_INIT;

static void noise_build(void)
{
    for (uint32_t i = 0; i < NOISE_N * NOISE_N; i++) {
        uint64_t h = (uint64_t)(i + 1) * 0x9E3779B97F4A7C15ull;
        h ^= h >> 31, h *= 0xBF58476D1CE4E5B9ull, h ^= h >> 29;
        noise_table[i] = (float)(h >> 40) * (1.0f / 16777216.0f);
    }
}

static inline __attribute__((always_inline)) double value_noise(double x, double y)
{
    if (!(fabs(x) < 1e9 && fabs(y) < 1e9))
        return 0.5;
    double fx = floor(x), fy = floor(y), tx = x - fx, ty = y - fy;
    uint32_t ix = (uint32_t)(int64_t)fx & (NOISE_N - 1), iy = (uint32_t)(int64_t)fy & (NOISE_N - 1);
    uint32_t jx = (ix + 1) & (NOISE_N - 1), jy = (iy + 1) & (NOISE_N - 1);
    tx = tx * tx * (3 - 2 * tx), ty = ty * ty * (3 - 2 * ty);
    const float *t = noise_table;
    return mix(mix(t[iy * NOISE_N + ix], t[iy * NOISE_N + jx], tx), mix(t[jy * NOISE_N + ix], t[jy * NOISE_N + jx], tx), ty);
}

void sn_shade_init(void) { pthread_once(&noise_once, noise_build); }

double sn_shade_texture(uint8_t tag, sn_vec3 p, double nz)
{
    if (tag == SN_TAG_ROADS) /* asphalt: grain at 7 cm and patches at 1.5 m */
        return 0.9 + 0.12 * value_noise(p.x / 0.07, p.y / 0.07) + 0.08 * value_noise(p.x / 1.5, p.y / 1.5);
    if (tag == SN_TAG_ROAD_LINE) /* paint worn in patches */
        return 0.9 + 0.1 * value_noise(p.x / 0.3, p.y / 0.3);
    if (tag == SN_TAG_SIDEWALK && nz < 0.5) /* a kerb's face: concrete grain along it */
        return 0.92 + 0.12 * value_noise((p.x + p.y) / 0.05, p.z / 0.05);
    if (tag == SN_TAG_SIDEWALK) { /* 0.6 m tiles with darker joints */
        double u = p.x / 0.6 - floor(p.x / 0.6), v = p.y / 0.6 - floor(p.y / 0.6);
        bool joint = u < 0.04 || v < 0.04;
        return (joint ? 0.78 : 1.0) * (0.95 + 0.08 * value_noise(floor(p.x / 0.6), floor(p.y / 0.6)));
    }
    return 1;
}

/* ---- the same textures in single precision, four points at a time (sn_shade_texture_fast) ---- */

/* the lanes' loops, four at a time (texture_lanes.h; texture_avx2.c has eight) */
static inline v4f v4_gather(const float *t, v4i k) { return (v4f){t[k[0]], t[k[1]], t[k[2]], t[k[3]]}; } /* SSE2 has none */
static inline v4i v4_tags(const uint8_t *t) { return (v4i){t[0], t[1], t[2], t[3]}; }
#define VF v4f
#define VI v4i
#define VW 4
#define V(name) v4_##name
#define NOISE_LANES_FN noise4
#define TEX_LANES_FN texture4
#include "texture_lanes.h"

/* The noise's lattice coordinate of the eye along one axis, v / size, less a multiple of the
** table's period (256 cells, the same noise): small, so a float adds the points' offsets to it
** without losing them. */
static float lattice_origin(double v, double size)
{
    double c = v / size;
    return (float)(c - NOISE_N * floor(c / NOISE_N));
}

#if defined(__x86_64__) && defined(__GNUC__)
void sn_shade_texture_avx2(const float o[10], const float *table, const uint8_t *tag, const float *dx, const float *dy,
                           const float *dz, const float *nz, float *albedo, size_t n);
#endif

void sn_shade_texture_fast(sn_vec3 eye, const uint8_t *tag, const float *dx, const float *dy, const float *dz,
                           const float *nz, float *albedo, size_t n)
{
    /* the eye's lattice origins, kept while the eye stays (a frame's every batch on this thread
    ** has one eye): ten double divisions and floors were about 0.4 % of the RGB camera, a batch
    ** being a few hundred points (rgb60); the same function of the eye, so the same floats */
    static _Thread_local struct {
        double e[3]; /* compared bit for bit */
        bool set;
        float o[10];
    } at;
    const double e[3] = {eye.x, eye.y, eye.z};
    if (!at.set || memcmp(at.e, e, sizeof e) != 0) {
        const float o[10] = {lattice_origin(eye.x, 0.07), lattice_origin(eye.y, 0.07), lattice_origin(eye.x, 1.5),
                             lattice_origin(eye.y, 1.5),  lattice_origin(eye.x, 0.3),  lattice_origin(eye.y, 0.3),
                             lattice_origin(eye.x + eye.y, 0.05), lattice_origin(eye.z, 0.05),
                             lattice_origin(eye.x, 0.6),  lattice_origin(eye.y, 0.6)};
        memcpy(at.o, o, sizeof o);
        memcpy(at.e, e, sizeof e), at.set = true;
    }
    const float *o = at.o;
    size_t done = 0;
#if defined(__x86_64__) && defined(__GNUC__)
    if (sn_lanes_wide() && n >= 8) { /* eight lanes, the same bits (texture_avx2.c) */
        done = n & ~(size_t)7;
        sn_shade_texture_avx2(o, noise_table, tag, dx, dy, dz, nz, albedo, done);
    }
#endif
    if (done < n)
        texture4(o, noise_table, tag + done, dx + done, dy + done, dz + done, nz + done, albedo + done, n - done);
}
