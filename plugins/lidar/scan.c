/* scan.c — one tick of the spinning lidar (CARLA's RayCastSemanticLidar::SimulateLidar and
** RayCastLidar's pre- and post-processing), every ray of the tick in one host->ray_batch. */
#include "scan.h"

#include <sensim/math.h>
#include <sensim/noise.h>
#include <sensim/grow.h>

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* More rays in one tick than this is a configuration mistake (points_per_second x interval):
** refused rather than allocated (16.8 M rays are about 2.5 GB of queries and results). */
#define LIDAR_MAX_RAYS (1u << 24)
/* Rays a ray_batch call is handed (without motion distortion): their rays and results, 0.7 MB,
** fit a core's L2 cache. */
#define CHUNK 4096

sn_status lidar_scan_init(lidar_scan *s, const sn_host *h, sn_ctx *ctx, const lidar_cfg *cfg)
{
    memset(s, 0, sizeof *s);
    s->h = h;
    s->ctx = ctx;
    s->cfg = *cfg;
    s->laser_deg = malloc(cfg->channels * sizeof *s->laser_deg);
    s->counts = calloc(cfg->channels, sizeof *s->counts);
    if (!s->laser_deg || !s->counts) {
        h->set_error(ctx, "out of memory for %u channels", cfg->channels);
        return SN_E_NOMEM;
    }
    /* CARLA's CreateLasers: channel 0 is the top laser, the others evenly below it */
    double step = cfg->channels == 1 ? 0 : (cfg->upper_fov - cfg->lower_fov) / (double)(cfg->channels - 1);
    for (uint32_t i = 0; i < cfg->channels; i++)
        s->laser_deg[i] = cfg->upper_fov - (double)i * step;
    return SN_OK;
}

void lidar_scan_free(lidar_scan *s)
{
    free(s->laser_deg), free(s->counts), free(s->rays), free(s->res), free(s->ray_time), free(s->ray_slot);
    free(s->pose), free(s->points), free(s->point_time), free(s->col), free(s->elev);
}

/* Column j of P fires at the end of its share of the interval ending now (the last one now):
** integer nanoseconds, (j + 1) * interval fits in 64 bits (interval <= a frame, P < 2^24). */
static int64_t column_time(const sn_clock *clk, int64_t interval, uint32_t j, uint32_t P)
{
    return clk->time_ns - interval + (int64_t)(j + 1) * interval / (int64_t)P;
}

/* Rounds half away from zero, as Unreal's FMath::RoundHalfFromZero (x >= 0 here). */
static double round_half_up(double x) { return floor(x + 0.5); }

/* Motion distortion: the sensor's pose at each of the P columns' times into s->pose. */
static sn_status column_poses(lidar_scan *s, const sn_clock *clk, int64_t interval, uint32_t P)
{
    const sn_host *h = s->h;
    if (!SN_HOST_HAS(h, ray_batch_at)) {
        h->set_error(s->ctx, "motion_distortion needs a host with ray_batch_at (ABI 1.4, second revision)");
        return SN_E_UNSUPPORTED;
    }
    if (interval > clk->dt_ns) {
        h->set_error(s->ctx, "motion_distortion: %lld ns since the last tick is longer than a frame; the "
                     "world's motion is known over the last frame only", (long long)interval);
        return SN_E_STATE;
    }
    if (!sn_grow_array((void **)&s->pose, &s->cap_pose, P, sizeof *s->pose)) {
        h->set_error(s->ctx, "out of memory for %u poses", P);
        return SN_E_NOMEM;
    }
    for (uint32_t j = 0; j < P; j++) {
        sn_status st = h->sensor_transform_at(s->ctx, column_time(clk, interval, j, P), &s->pose[j]);
        if (st)
            return st;
    }
    return SN_OK;
}

/* The rays kept, channel-major as CARLA records them, into s->ray_slot (and their times into
** s->ray_time with motion distortion); returns how many. The general drop-off draws one uniform
** per (channel, point) before tracing, in that order (RayCastLidar::PreprocessRays). Also each
** column's azimuth (s->col, from the tick's start angle by step degrees) and each channel's
** elevation (s->elev), once. */
static size_t keep_rays(lidar_scan *s, const sn_clock *clk, int64_t interval, uint32_t P, double start, double step,
                        const sn_noise *noise)
{
    const lidar_cfg *c = &s->cfg;
    const bool gen_drop = !c->semantic && c->dropoff_general_rate > FLT_EPSILON, motion = c->motion_distortion;
    for (uint32_t j = 0; j < P; j++) { /* each column's azimuth once, not once per channel */
        double az = (fmod(start + step * j, c->horizontal_fov) - c->horizontal_fov / 2) * SN_DEG;
        s->col[j] = sn_v3(cos(az), sin(az), 0);
    }
    for (uint32_t ch = 0; ch < c->channels; ch++)
        s->elev[ch] = sn_v3(cos(s->laser_deg[ch] * SN_DEG), sin(s->laser_deg[ch] * SN_DEG), 0);
    size_t n = 0;
    for (uint32_t ch = 0; ch < c->channels; ch++)
        for (uint32_t j = 0; j < P; j++) {
            if (gen_drop && sn_noise_below(noise, c->dropoff_general_rate))
                continue;
            s->ray_slot[n] = ch * P + j;
            if (motion)
                s->ray_time[n] = column_time(clk, interval, j, P);
            n++;
        }
    return n;
}

/* Where the conversion of rays to points stands between chunks: the channel of the ray at hand
** and its first slot (ch * P), and the points so far. */
typedef struct scan_cursor {
    uint32_t ch, ch_first;
    size_t n_points;
} scan_cursor;

/* Rays k0 .. k0 + m of the kept ones into s->rays: Unreal's forward vector of the rotator (pitch
** elevation, yaw azimuth), ShootLaser, from the sensor's pose (now, or at the column's time). */
static void make_rays(lidar_scan *s, const sn_transform *now, const sn_mat3 *R_now, uint32_t P, size_t k0, size_t m,
                      scan_cursor at)
{
    /* read through locals: every store of a ray may alias anything the compiler would otherwise
    ** reload from s */
    const uint32_t *slots = s->ray_slot;
    const sn_vec3 *col = s->col, *elev = s->elev;
    sn_ray *rays = s->rays;
    const bool motion = s->cfg.motion_distortion;
    const double range = s->cfg.range;
    sn_mat3 R_j = *R_now;
    uint32_t rc = at.ch, rc_first = at.ch_first;
    for (size_t i = 0; i < m; i++) {
        uint32_t slot = slots[k0 + i];
        while (slot - rc_first >= P) /* slots ascend: the channel follows without a division */
            rc++, rc_first += P;
        uint32_t j = slot - rc_first;
        double cv = elev[rc].x, sv = elev[rc].y;
        sn_vec3 local = sn_v3(cv * col[j].x, cv * col[j].y, sv);
        const sn_transform *tf = motion ? &s->pose[j] : now;
        if (motion)
            R_j = sn_mat3_from_rotation(tf->rotation);
        rays[i] = (sn_ray){tf->location, sn_mat3_apply(&R_j, local), range};
    }
}

/* The traced rays k0 .. k0 + m (results in s->res) turned into points after s->points' at->n_points,
** in the sensor's frame at each ray's time; CARLA's intensity, noise and drop-off by intensity for
** the plain lidar. Moves *at on. */
static void chunk_points(lidar_scan *s, const sn_transform *now, const sn_mat3 *R_now, uint32_t P, size_t k0, size_t m,
                         const sn_noise *noise, scan_cursor *at)
{
    const lidar_cfg *c = &s->cfg;
    /* CARLA's drop-off by intensity: kept when above the limit, else with probability
    ** alpha * intensity + beta, alpha = zero_intensity / limit, beta = 1 - zero_intensity */
    const double beta = 1 - c->dropoff_zero_intensity;
    const double alpha = c->dropoff_intensity_limit > 0 ? c->dropoff_zero_intensity / c->dropoff_intensity_limit : 0;
    const bool range_noise = !c->semantic && c->noise_stddev > FLT_EPSILON;
    /* read through locals: every store of a point (bytes) may alias anything the compiler would
    ** otherwise reload from s and c */
    const uint32_t *slots = s->ray_slot;
    const sn_ray_result *res = s->res;
    uint8_t *points = s->points;
    uint32_t *counts = s->counts;
    const double rate = c->atmosphere_attenuation_rate, limit = c->dropoff_intensity_limit, noise_sd = c->noise_stddev;
    const bool semantic = c->semantic, reflectivity = c->reflectivity, motion = c->motion_distortion;
    sn_mat3 R_j = *R_now;
    uint32_t ch = at->ch, ch_first = at->ch_first;
    size_t n_points = at->n_points;
    for (size_t i = 0; i < m; i++) {
        size_t k = k0 + i;
        uint32_t slot = slots[k];
        while (slot - ch_first >= P)
            ch++, ch_first += P;
        const sn_ray_hit *hit = &res[i].hit;
        /* a ray starting inside a shape (distance 0) gives no point: Unreal's complex traces
        ** do not hit a mesh from inside */
        if (!res[i].n_hits || !(hit->distance > 0))
            continue;
        uint32_t j = slot - ch_first;
        const sn_transform *tf = motion ? &s->pose[j] : now;
        if (motion)
            R_j = sn_mat3_from_rotation(tf->rotation);
        sn_vec3 rel = sn_v3_sub(hit->point, tf->location);
        sn_vec3 p = sn_mat3_apply_t(&R_j, rel); /* the sensor's frame at the ray's time */
        if (semantic) {
            sn_semantic_point sp;
            sp.x = (float)p.x, sp.y = (float)p.y, sp.z = (float)p.z;
            sp.cos_inc_angle = (float)sn_v3_dot(sn_v3_scale(sn_v3_norm(rel), -1), hit->normal);
            sp.object_idx = hit->actor_id;
            sp.object_tag = hit->semantic_tag;
            memcpy(points + n_points * sizeof sp, &sp, sizeof sp);
        } else {
            double d = sn_v3_len(p);
            double intensity = exp(-rate * d);
            if (reflectivity) { /* a Lambertian surface: rho cos(incidence), then the air's loss */
                double cos_inc = -sn_v3_dot(sn_v3_norm(rel), hit->normal);
                intensity *= hit->reflectivity * (cos_inc > 0 ? cos_inc : 0);
            }
            if (range_noise) /* along the ray: exact angles, noisy range (PostprocessDetection) */
                p = sn_v3_add(p, sn_v3_scale(sn_v3_norm(p), sn_noise_normal(noise, 0, noise_sd)));
            if (!(intensity > limit) && !sn_noise_below(noise, alpha * intensity + beta))
                continue;
            sn_point_xyzi xp = {(float)p.x, (float)p.y, (float)p.z, (float)intensity};
            memcpy(points + n_points * sizeof xp, &xp, sizeof xp);
        }
        if (motion)
            s->point_time[n_points] = s->ray_time[k];
        counts[ch]++;
        n_points++;
    }
    at->ch = ch, at->ch_first = ch_first, at->n_points = n_points;
}

sn_status lidar_scan_tick(lidar_scan *s)
{
    const sn_host *h = s->h;
    const lidar_cfg *c = &s->cfg;
    const sn_clock *clk = h->clock(s->ctx);
    /* CARLA hands every sensor the frame's step, whatever its sensor_tick (ASensor::
    ** PostPhysTickInternal passes the world's DeltaSeconds; SensorManager.cpp): a lidar with
    ** sensor_tick 0.1 at 20 FPS casts half a turn a tick, not the 0.1 s since its last one
    ** (issue 33 item 11). The radar does the same. */
    int64_t interval = clk->dt_ns;
    double dt = (double)interval * 1e-9;
    memset(s->counts, 0, c->channels * sizeof *s->counts);
    s->n_points = 0;

    /* CARLA: points_per_channel_each_step = round(points_per_second * DeltaTime / channels);
    ** the rotation covers rotation_frequency * horizontal_fov * DeltaTime degrees */
    double per = round_half_up(c->points_per_second * dt / (double)c->channels);
    double tick_deg = c->rotation_frequency * c->horizontal_fov * dt;
    double start = s->angle_deg;
    s->angle_deg = fmod(start + tick_deg, c->horizontal_fov);
    s->horizontal_angle = (float)(s->angle_deg * SN_DEG);
    if (per < 1) {
        if (!s->warned_empty)
            h->log(s->ctx, SN_LOG_WARN, "no points this tick: points_per_second x %g s / %u channels rounds to 0; "
                   "raise points_per_second", dt, c->channels);
        s->warned_empty = true;
        return SN_OK;
    }
    if (per * c->channels > LIDAR_MAX_RAYS) {
        h->set_error(s->ctx, "%.0f rays in one tick (points_per_second %g over %g s) exceed the %u a lidar may cast "
                     "at once", per * c->channels, c->points_per_second, dt, LIDAR_MAX_RAYS);
        return SN_E_RANGE;
    }
    uint32_t P = (uint32_t)per;
    size_t total = (size_t)P * c->channels;

    /* The sensor's pose: now, or with motion distortion at each column's own time, column j
    ** firing at the end of its share of the interval (the last one now). */
    sn_transform now;
    h->sensor_transform(s->ctx, &now);
    const sn_mat3 R_now = sn_mat3_from_rotation(now.rotation);
    const bool motion = c->motion_distortion;
    if (motion) {
        sn_status st = column_poses(s, clk, interval, P);
        if (st)
            return st;
    }
    /* Rays go to the host CHUNK at a time (all at once with motion distortion, whose rays the
    ** host groups by time): a chunk's rays and results (170 bytes a ray) stay in the cache
    ** from being made to being turned into points, where 100 000 of them (17 MB) went through
    ** memory three times. The draws keep their order: every general drop-off draw (before
    ** tracing, PreprocessRays) comes first, then the points' in ray order. */
    size_t chunk = motion ? total : CHUNK;
    if (!sn_grow_array((void **)&s->rays, &s->cap_rays, chunk, sizeof *s->rays) ||
        !sn_grow_array((void **)&s->res, &s->cap_res, chunk, sizeof *s->res) ||
        !sn_grow_array((void **)&s->ray_slot, &s->cap_slot, total, sizeof *s->ray_slot) ||
        (motion && !sn_grow_array((void **)&s->ray_time, &s->cap_time, total, sizeof *s->ray_time)) ||
        !sn_grow_array((void **)&s->col, &s->cap_col, P, sizeof *s->col) ||
        !sn_grow_array((void **)&s->elev, &s->cap_elev, c->channels, sizeof *s->elev))
        goto oom;
    const sn_noise noise = sn_noise_host(h, s->ctx); /* the draws: sensim/noise.h, docs/sensors/lidar.md */
    const size_t n = keep_rays(s, clk, interval, P, start, tick_deg / P, &noise);

    size_t rec = c->semantic ? sizeof(sn_semantic_point) : sizeof(sn_point_xyzi);
    if (!sn_grow_array((void **)&s->points, &s->cap_points, n ? n * rec : 1, 1) ||
        (motion && !sn_grow_array((void **)&s->point_time, &s->cap_point_time, n ? n : 1, sizeof *s->point_time)))
        goto oom;
    /* CARLA's trace ignores the lidar actor itself; sensors have no geometry here, and a query
    ** without filters lets Embree run without a callback on every candidate hit */
    sn_ray_query q = SN_RAY_QUERY_INIT;
    scan_cursor at = {0, 0, 0};
    for (size_t k0 = 0; k0 < n; k0 += chunk) {
        size_t m = n - k0 < chunk ? n - k0 : chunk;
        make_rays(s, &now, &R_now, P, k0, m, at);
        sn_status st = motion ? h->ray_batch_at(s->ctx, s->ray_time + k0, (uint32_t)m, &q, s->rays, (uint32_t)m, s->res)
                              : h->ray_batch(s->ctx, &q, s->rays, (uint32_t)m, s->res);
        if (st)
            return st;
        chunk_points(s, &now, &R_now, P, k0, m, &noise, &at);
    }
    s->n_points = at.n_points;
    return SN_OK;
oom:
    h->set_error(s->ctx, "out of memory for %zu rays", total);
    return SN_E_NOMEM;
}
