/* health.c — see health.h. */
#include "health.h"

#include "../core/error.h"
#include "../sim/engine.h"

#include <math.h>
#include <sensim/grow.h>
#include <stdlib.h>
#include <string.h>
#include <sensim/search.h>
#include <stddef.h>

void sn_health_note_deadlock(struct sn_engine *e)
{
    if (e)
        e->health->deadlocks_resolved++;
}

void sn_health_note_lane_change(struct sn_engine *e)
{
    if (e)
        e->health->lane_changes++;
}

static void add_event(sn_health *h, int kind, uint64_t frame, uint32_t a, uint32_t b, bool *nomem)
{
    if (h->n_events[kind] >= SN_HEALTH_EVENTS) {
        h->more_events[kind]++;
        return;
    }
    if (!sn_grow_array32((void **)&h->events[kind], &h->cap_events[kind], h->n_events[kind] + 1, sizeof(sn_health_event))) {
        *nomem = true;
        return;
    }
    h->events[kind][h->n_events[kind]++] = (sn_health_event){frame, a, b};
}

/* ---- stop lines, from the lights' stop waypoints (the public calls: whatever binds them) ---- */

static int by_x(const void *a, const void *b)
{
    const sn_health_stop *p = a, *q = b;
    return p->x < q->x ? -1 : p->x > q->x ? 1 : p->light < q->light ? -1 : p->light > q->light ? 1 : 0;
}

static bool build_stops(sn_engine *e, sn_health *h)
{
    uint32_t n_lights = sn_engine_traffic_light_count(e);
    h->n_stops = 0;
    h->stops_reach = 0;
    h->stops_lights = n_lights;
    sn_waypoint wp[64];
    for (uint32_t i = 0; i < n_lights; i++) {
        uint32_t id = sn_engine_traffic_light_at(e, i);
        size_t n = 0;
        if (sn_engine_traffic_light_stops(e, id, wp, 64, &n, NULL) != SN_OK)
            continue;
        n = n < 64 ? n : 64;
        if (!sn_grow_array32((void **)&h->stops, &h->cap_stops, h->n_stops + (uint32_t)n, sizeof *h->stops))
            return false;
        for (size_t k = 0; k < n; k++) {
            double yaw = wp[k].transform.rotation.yaw * SN_DEG, hw = wp[k].lane_width / 2;
            h->stops[h->n_stops++] = (sn_health_stop){wp[k].transform.location.x, wp[k].transform.location.y,
                                                      wp[k].transform.location.z, cos(yaw), sin(yaw), hw, id};
            h->stops_reach = hw > h->stops_reach ? hw : h->stops_reach;
        }
    }
    if (h->n_stops)
        qsort(h->stops, h->n_stops, sizeof *h->stops, by_x);
    return true;
}

/* The light whose stop line the front crossed this frame, going with its lane (0: none). A
** crossing: the front was behind the line at the end of the last frame and is on or past it
** now, within the lane's width and 2.5 m in height, heading along the lane. */
static uint32_t crossed_stop(const sn_health *h, sn_vec3 f0, sn_vec3 f1, sn_vec3 fwd)
{
    double lo = fmin(f0.x, f1.x) - h->stops_reach, hi = fmax(f0.x, f1.x) + h->stops_reach;
    /* the first stop with x >= lo */
    uint32_t a = (uint32_t)sn_search_f64(h->stops, h->n_stops, sizeof *h->stops, offsetof(sn_health_stop, x), lo);
    for (uint32_t i = a; i < h->n_stops && h->stops[i].x <= hi; i++) {
        const sn_health_stop *s = &h->stops[i];
        double d0 = (f0.x - s->x) * s->dx + (f0.y - s->y) * s->dy, d1 = (f1.x - s->x) * s->dx + (f1.y - s->y) * s->dy;
        if (!(d0 < 0 && d1 >= 0))
            continue;
        double side = -(f1.x - s->x) * s->dy + (f1.y - s->y) * s->dx;
        if (fabs(side) > s->half_width || fabs(f1.z - s->z) > 2.5 || fwd.x * s->dx + fwd.y * s->dy < 0.3)
            continue;
        return s->light;
    }
    return 0;
}

/* ---- windows ---- */

/* A window's vehicle counts from the vehicles' records: autopilot vehicles present from its
** first frame to its last (`alive`: the vehicles seen then). Standing and crawling are rates, 1 m
** and 50 m a minute: the window still open (a run's last) scales them by its duration, else a
** car that drove 2 m in a 0.1 s tail counted as crawling; a closed window is a minute (`whole`,
** its frames' sum a step short of it when dt does not divide 60 s). */
static void count_vehicles(const sn_health *h, sn_traffic_health *w, uint64_t alive, bool whole)
{
    const double share = whole ? 1.0 : fmin(1.0, w->duration * 1e9 / (double)SN_HEALTH_WINDOW_NS);
    w->vehicles = w->standing = w->crawling = 0;
    for (uint32_t i = 0; i < h->n_veh; i++) {
        const sn_health_vehicle *v = &h->veh[i];
        if (!v->from_start || v->seen != alive || !v->autopilot)
            continue;
        w->vehicles++;
        w->standing += v->travelled < SN_HEALTH_STANDING * share;
        w->crawling += v->travelled < SN_HEALTH_CRAWLING * share;
    }
}

static sn_status close_window(sn_health *h, sn_error *err)
{
    h->cur.duration = (double)(h->last_ns - h->window_start_ns) / 1e9;
    count_vehicles(h, &h->cur, h->last_frame, true);
    if (!sn_grow_array32((void **)&h->done, &h->cap_done, h->n_done + 1, sizeof *h->done))
        return sn_fail(err, SN_E_NOMEM, "traffic health: out of memory");
    h->done[h->n_done++] = h->cur;
    /* the gone vehicles' records are dropped; the others start the next window afresh */
    uint32_t k = 0;
    for (uint32_t i = 0; i < h->n_veh; i++) {
        if (h->veh[i].seen != h->last_frame)
            continue;
        h->veh[k] = h->veh[i];
        h->veh[k].travelled = 0;
        h->veh[k].flipped = false;
        h->veh[k].from_start = false;
        k++;
    }
    h->n_veh = k;
    return SN_OK;
}

static bool flipped(sn_quat q)
{
    /* An upright vehicle, decided from its rotation's last row without asin and two atan2 (every
    ** vehicle, every frame): |pitch| <= asin(0.49) = 29.3 deg and |roll| <= atan(0.57) = 29.7 deg,
    ** margins far above any rounding, so the same answer as the angles below (NaN falls through). */
    const double w = q.w, x = q.x, y = q.y, z = q.z;
    const double m6 = 2 * (x * z - w * y), m7 = 2 * (y * z + w * x), m8 = 1 - 2 * (x * x + y * y);
    if (fabs(m6) <= 0.49 && m8 > 0 && fabs(m7) <= 0.57 * m8)
        return false;
    sn_rotation r = sn_quat_to_rotation(q);
    return fabs(r.pitch) > SN_HEALTH_FLIPPED || fabs(r.roll) > SN_HEALTH_FLIPPED;
}

static bool push_touch(sn_health *h, uint64_t key, int64_t last_ns)
{
    if (h->n_touching_next == h->cap_touching) {
        uint32_t c = h->cap_touching ? 2 * h->cap_touching : 16;
        sn_health_touch *t1 = realloc(h->touching, c * sizeof *t1);
        if (t1)
            h->touching = t1;
        sn_health_touch *t2 = t1 ? realloc(h->touching_next, c * sizeof *t2) : NULL;
        if (!t2)
            return false;
        h->touching_next = t2;
        h->cap_touching = c;
    }
    h->touching_next[h->n_touching_next++] = (sn_health_touch){key, last_ns};
    return true;
}

/* Collisions between autopilot vehicles: a pair that touches (with force, as a collision
** sensor counts it) and did not in the frame before. Pairs come sorted by (self, other).
** Counts them and their events (*nomem when an event could not be kept); false when out of
** memory. */
static bool observe_collisions(sn_engine *e, sn_health *h, uint64_t frame, bool *nomem)
{
    const sn_world *w = &e->world;
    h->n_touching_next = 0;
    uint32_t k = 0; /* merge: the pairs touching now with those that touched within the rebound time */
    const int64_t now = e->clock.time_ns;
    for (size_t i = 0; i < w->n_pairs; i++) {
        const sn_pair *p = &w->pairs[i];
        if (p->self >= p->other || sn_v3_len(p->impulse) < 1e-9)
            continue;
        const sn_actor *a = sn_world_find(w, p->self), *b = sn_world_find(w, p->other);
        if (!a || !b || a->kind != SN_ACTOR_VEHICLE || b->kind != SN_ACTOR_VEHICLE || !a->has_autopilot ||
            !b->has_autopilot)
            continue;
        uint64_t key = (uint64_t)p->self << 32 | p->other;
        for (; k < h->n_touching && h->touching[k].key < key; k++)
            if (now - h->touching[k].last_ns <= SN_HEALTH_REBOUND_NS && !push_touch(h, h->touching[k].key, h->touching[k].last_ns))
                return false;
        bool recent = k < h->n_touching && h->touching[k].key == key;
        k += recent;
        if (!push_touch(h, key, now))
            return false;
        if (!recent) {
            h->cur.autopilot_collisions++;
            add_event(h, SN_HEALTH_EV_COLLISION, frame, p->self, p->other, nomem);
        }
    }
    for (; k < h->n_touching; k++)
        if (now - h->touching[k].last_ns <= SN_HEALTH_REBOUND_NS && !push_touch(h, h->touching[k].key, h->touching[k].last_ns))
            return false;
    sn_health_touch *t = h->touching;
    h->touching = h->touching_next;
    h->touching_next = t;
    h->n_touching = h->n_touching_next;
    return true;
}

sn_status sn_health_observe(struct sn_engine *e, sn_error *err)
{
    sn_health *h = e->health;
    sn_world *w = &e->world;
    const uint64_t frame = e->clock.frame;
    const int64_t start_ns = e->clock.time_ns - e->clock.dt_ns, window = start_ns / SN_HEALTH_WINDOW_NS;
    bool first = !h->started || window != h->window;
    if (h->started && window != h->window) {
        sn_status st = close_window(h, err);
        if (st)
            return st;
    }
    if (first) {
        h->started = true;
        h->window = window;
        h->window_start_ns = start_ns;
        memset(&h->cur, 0, sizeof h->cur);
        h->cur.struct_size = sizeof h->cur;
        h->cur.start = (double)(window * SN_HEALTH_WINDOW_NS) / 1e9;
    }
    h->last_ns = e->clock.time_ns;
    h->last_frame = frame;
    h->cur.deadlocks_resolved += h->deadlocks_resolved;
    h->cur.lane_changes += h->lane_changes;
    h->deadlocks_resolved = h->lane_changes = 0;
    if (sn_engine_traffic_light_count(e) != h->stops_lights && !build_stops(e, h))
        return sn_fail(err, SN_E_NOMEM, "traffic health: out of memory");

    bool nomem = false;
    uint32_t j = 0;
    for (size_t i = 0; i < w->n_bodies; i++) {
        const sn_actor *a = w->bodies[i];
        if (a->kind != SN_ACTOR_VEHICLE)
            continue;
        while (j < h->n_veh && h->veh[j].id < a->id)
            j++;
        if (j == h->n_veh || h->veh[j].id != a->id) { /* new: ids only grow, so it goes last */
            if (!sn_grow_array32((void **)&h->veh, &h->cap_veh, h->n_veh + 1, sizeof *h->veh))
                return sn_fail(err, SN_E_NOMEM, "traffic health: out of memory");
            j = h->n_veh++;
            h->veh[j] = (sn_health_vehicle){.id = a->id};
        }
        sn_health_vehicle *v = &h->veh[j];
        const sn_actor_state *s = &a->st;
        v->seen = frame;
        v->from_start |= first;
        v->autopilot = a->has_autopilot;
        v->travelled += hypot(s->pos.x - s->prev_pos.x, s->pos.y - s->prev_pos.y);
        bool flip = flipped(s->rot);
        if (flip && !v->flipped) {
            h->cur.flipped++;
            if (!v->ever_flipped) {
                h->flipped_total++;
                add_event(h, SN_HEALTH_EV_FLIP, frame, a->id, 0, &nomem);
            }
            v->ever_flipped = v->flipped = true;
        }
        if (h->n_stops) {
            sn_vec3 nose = sn_v3(a->ph->bbox.location.x + a->ph->bbox.extent.x, 0, 0);
            sn_vec3 f0 = sn_v3_add(s->prev_pos, sn_quat_apply(s->prev_rot, nose));
            sn_vec3 f1 = sn_v3_add(s->pos, sn_quat_apply(s->rot, nose));
            uint32_t light = crossed_stop(h, f0, f1, sn_quat_apply(s->rot, sn_v3(1, 0, 0)));
            sn_traffic_light_state ls;
            if (light && sn_engine_traffic_light_get_state(e, light, &ls, NULL) == SN_OK && ls == SN_TL_RED) {
                h->cur.red_light_crossings++;
                add_event(h, SN_HEALTH_EV_RED, frame, a->id, light, &nomem);
            }
        }
    }
    if (!observe_collisions(e, h, frame, &nomem)) /* between autopilot vehicles */
        return sn_fail(err, SN_E_NOMEM, "traffic health: out of memory");
    if (nomem)
        return sn_fail(err, SN_E_NOMEM, "traffic health: out of memory");
    return SN_OK;
}

/* ---- reading it ---- */

uint32_t sn_health_windows(const sn_health *h) { return h->n_done + (h->started ? 1 : 0); }

bool sn_health_window(const sn_health *h, uint32_t index, sn_traffic_health *out)
{
    if (index < h->n_done) {
        *out = h->done[index];
    } else if (index == h->n_done && h->started) {
        *out = h->cur;
        out->duration = (double)(h->last_ns - h->window_start_ns) / 1e9;
        count_vehicles(h, out, h->last_frame, false);
    } else {
        return false;
    }
    return true;
}

void sn_health_totals(const sn_health *h, sn_traffic_health *out)
{
    memset(out, 0, sizeof *out);
    out->struct_size = sizeof *out;
    for (uint32_t i = 0; i < sn_health_windows(h); i++) {
        sn_traffic_health w;
        sn_health_window(h, i, &w);
        out->duration += w.duration;
        out->vehicles += w.vehicles;
        out->standing += w.standing;
        out->crawling += w.crawling;
        out->red_light_crossings += w.red_light_crossings;
        out->autopilot_collisions += w.autopilot_collisions;
        out->deadlocks_resolved += w.deadlocks_resolved;
        out->lane_changes += w.lane_changes;
    }
    out->flipped = h->flipped_total;
}

static void counts_json(FILE *f, const sn_traffic_health *w)
{
    fprintf(f, "\"vehicles\":%u,\"standing\":%u,\"crawling\":%u,\"flipped\":%u,\"red_light_crossings\":%u,"
               "\"autopilot_collisions\":%u,\"deadlocks_resolved\":%u,\"lane_changes\":%u",
            w->vehicles, w->standing, w->crawling, w->flipped, w->red_light_crossings, w->autopilot_collisions,
            w->deadlocks_resolved, w->lane_changes);
}

void sn_health_json(const sn_health *h, FILE *f)
{
    sn_traffic_health t;
    sn_health_totals(h, &t);
    fprintf(f, "{\"window_s\":%.9g,\"standing_m\":%.9g,\"crawling_m\":%.9g,\"flipped_deg\":%.9g,\"observed_s\":%.9g,"
               "\"totals\":{",
            (double)SN_HEALTH_WINDOW_NS / 1e9, SN_HEALTH_STANDING, SN_HEALTH_CRAWLING, SN_HEALTH_FLIPPED, t.duration);
    counts_json(f, &t);
    fputs("},\"windows\":[", f);
    for (uint32_t i = 0; i < sn_health_windows(h); i++) {
        sn_traffic_health w;
        sn_health_window(h, i, &w);
        fprintf(f, "%s{\"start\":%.9g,\"duration\":%.9g,", i ? "," : "", w.start, w.duration);
        counts_json(f, &w);
        fputc('}', f);
    }
    static const char *const names[3] = {"red_light_events", "collision_events", "flip_events"};
    static const char *const a_names[3] = {"vehicle", "a", "vehicle"}, *const b_names[3] = {"light", "b", NULL};
    for (int k = 0; k < 3; k++) {
        fprintf(f, "],\"%s\":[", names[k]);
        for (uint32_t i = 0; i < h->n_events[k]; i++) {
            const sn_health_event *ev = &h->events[k][i];
            fprintf(f, "%s{\"frame\":%llu,\"%s\":%u", i ? "," : "", (unsigned long long)ev->frame, a_names[k], ev->a);
            if (b_names[k])
                fprintf(f, ",\"%s\":%u", b_names[k], ev->b);
            fputc('}', f);
        }
    }
    fprintf(f, "],\"events_left_out\":%llu}",
            (unsigned long long)(h->more_events[0] + h->more_events[1] + h->more_events[2]));
}

void sn_health_free(sn_health *h)
{
    free(h->done);
    free(h->veh);
    free(h->stops);
    free(h->touching);
    free(h->touching_next);
    for (int k = 0; k < 3; k++)
        free(h->events[k]);
    memset(h, 0, sizeof *h);
}
