/* The leader scan (engine/traffic/leader.c) against a full scan: on random paths and bodies,
** sn_traffic_leader gives the same leader, gap, speed along the path and, for the gap searches,
** the same nearest body behind as measuring every body of the grid in the grid's order — bit
** for bit, ties included (duplicated bodies: the lower grid index wins, as a scan in that order).
** The full scan here is the rule written out plainly: every segment, every body, no bounds.
** Likewise a coasting vehicle's leader (sn_path_nearest, measured from the segment its distance
** picks): the same segment, distance and point as every segment measured in order, whatever
** segment it starts from, on paths that repeat themselves (exact ties: the lower index); its bound
** on the segments beyond a few of its answer; and sn_path_nearest_kept, which answers from its last
** search while that cannot have changed, frame after frame on paths that move on. */
#include "../check.h"
#include "../../engine/sim/engine.h"
#include "../../engine/traffic/traffic_int.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rs = 0x9E3779B97F4A7C15ull;
static double rnd(void) /* xorshift64*, uniform in [0, 1) */
{
    rs ^= rs >> 12, rs ^= rs << 25, rs ^= rs >> 27;
    return (double)((rs * 2685821657736338717ull) >> 11) * 0x1.0p-53;
}
static double uni(double a, double b) { return a + (b - a) * rnd(); }

typedef struct res {
    bool found;
    double gap, v, gap_b, v_b;
    const sn_actor *who;
} res;

/* Every body of the grid, in the grid's order, measured against every segment. */
static res full_scan(const struct sn_traffic *t, const sn_actor *self, const sn_vec3 *pts, const double *along, size_t np,
                     double hw, const sn_leader_skip *skip, bool behind)
{
    res r = {.gap_b = INFINITY};
    const double front = self->ph->bbox.extent.x;
    for (size_t j = 0; j < t->n; j++) {
        const body *b = &t->b[j];
        if (b->a == self || b->down)
            continue;
        if (skip && (b->id == skip->actor || (skip->vehicles && b->kind == SN_ACTOR_VEHICLE) ||
                     (skip->walkers && b->kind == SN_ACTOR_WALKER)))
            continue;
        double best = INFINITY, s_at = 0;
        sn_vec3 tan = {1, 0, 0};
        for (size_t i = 0; i + 1 < np; i++) {
            double ax = pts[i].x, bx = pts[i + 1].x, ay = pts[i].y, by = pts[i + 1].y;
            double dx = bx - ax, dy = by - ay, l2 = dx * dx + dy * dy;
            if (l2 < 1e-12)
                continue;
            double u = sn_clampd(((b->pos.x - ax) * dx + (b->pos.y - ay) * dy) / l2, 0, 1);
            double px = ax + u * dx - b->pos.x, py = ay + u * dy - b->pos.y, d = px * px + py * py;
            if (d < best) {
                double l = sqrt(l2);
                best = d, s_at = along[i] + u * l, tan = sn_v3(dx / l, dy / l, 0);
            }
        }
        if (!isfinite(best) || (s_at <= 0 && !behind))
            continue;
        sn_vec3 nrm = sn_v3(-tan.y, tan.x, 0);
        double ext_lat = fabs(sn_v3_dot(nrm, b->fwd)) * b->ext.x + fabs(sn_v3_dot(nrm, b->right)) * b->ext.y;
        double ext_along = fabs(sn_v3_dot(tan, b->fwd)) * b->ext.x + fabs(sn_v3_dot(tan, b->right)) * b->ext.y;
        if (sqrt(best) - ext_lat > hw)
            continue;
        if (behind && s_at <= 0) {
            double g = -s_at - ext_along - front;
            if (g < r.gap_b)
                r.gap_b = g, r.v_b = sn_v3_dot(b->vel, tan);
            continue;
        }
        double g = s_at - ext_along - front;
        if (g < -0.3 && b->kind == SN_ACTOR_WALKER && skip)
            continue;
        if (!r.found || g < r.gap)
            r.found = true, r.gap = g, r.v = sn_v3_dot(b->vel, tan), r.who = b->a;
    }
    return r;
}

static bool same(double a, double b) { return !memcmp(&a, &b, sizeof a); }

/* The segment nearest (x, y), every segment in order, the first of equals (vehicle_coast's rule). */
static int plain_nearest(const sn_vec3 *pts, uint32_t n, double x, double y, double *d2, double *u)
{
    double best = INFINITY, bu = 0;
    int ib = -1;
    for (uint32_t i = 0; i + 1 < n; i++) {
        const double dx = pts[i + 1].x - pts[i].x, dy = pts[i + 1].y - pts[i].y, l2 = dx * dx + dy * dy;
        if (l2 < 1e-12)
            continue;
        const double uu = sn_clampd(((x - pts[i].x) * dx + (y - pts[i].y) * dy) / l2, 0, 1);
        const double px = pts[i].x + uu * dx - x, py = pts[i].y + uu * dy - y, d = px * px + py * py;
        if (d < best)
            best = d, bu = uu, ib = (int)i;
    }
    *d2 = best, *u = bu;
    return ib;
}

/* sn_path_nearest against plain_nearest for body (x, y) on the path, from several first segments,
** and its bound on the distances of the segments beyond w of its answer; counts the answers that
** were not the first segment measured, and the ties. */
static void check_nearest(const sn_vec3 *pts, const double *along, uint32_t n, double x, double y, int trial,
                          size_t *n_other, size_t *n_tie)
{
    double wd, wu;
    const int want = plain_nearest(pts, n, x, y, &wd, &wu);
    const double hints[] = {sn_dist2d(pts[0], sn_v3(x, y, 0)) + along[0], -10, 0, 1e9, uni(-5, 90), NAN};
    for (size_t h = 0; h < sizeof hints / sizeof *hints; h++) {
        double gd = -1, gu = -1, far = -1;
        const uint32_t w = (uint32_t)(h / 2); /* segments within w of the answer left out of the bound */
        const int got = sn_path_nearest(pts, along, n, x, y, hints[h], &gd, &gu, w, h % 2 ? &far : NULL);
        CHECK(got == want && same(gd, wd) && same(gu, wu), "trial %d hint %zu: segment %d d2 %.17g u %.17g, in order %d %.17g %.17g",
              trial, h, got, gd, gu, want, wd, wu);
        if (!(h % 2))
            continue;
        /* no segment beyond w of the answer nearer than far (up to the rounding of a box against a point) */
        for (uint32_t i = 0; i + 1 < n; i++) {
            double u, d;
            if ((i + w < (uint32_t)want || i > (uint32_t)want + w) && sn_seg_near(pts, i, x, y, &u, &d))
                CHECK(d >= far - 1e-9, "trial %d hint %zu: segment %u at %.17g, nearer than the bound %.17g", trial, h, i, d, far);
        }
        CHECK(want < 0 || far >= gd, "trial %d: the bound %.17g under the nearest %.17g", trial, far, gd);
    }
    for (uint32_t i = want + 1; want >= 0 && i + 1 < n; i++) { /* a later segment as near: a tie */
        const double dx = pts[i + 1].x - pts[i].x, dy = pts[i + 1].y - pts[i].y, l2 = dx * dx + dy * dy;
        if (l2 < 1e-12)
            continue;
        const double u = sn_clampd(((x - pts[i].x) * dx + (y - pts[i].y) * dy) / l2, 0, 1);
        const double px = pts[i].x + u * dx - x, py = pts[i].y + u * dy - y;
        if (same(px * px + py * py, wd)) {
            (*n_tie)++;
            break;
        }
    }
    *n_other += want > 0;
}

/* sn_path_nearest_kept frame after frame as vehicle_coast calls it: a path that is a window of a
** long polyline (points dropped at its start, cut or added at its end, now and then a new one with
** the memo forgotten), a body that stands, creeps, drives or jumps; the same segment, distance and
** point as every segment measured in order, bit for bit. Part of the polylines repeat a stretch
** (exact ties). */
static void check_kept(void)
{
    enum { RUNS = 400, FRAMES = 400, LONG = 400 };
    static sn_vec3 line[LONG];
    size_t n_frames = 0, n_kept = 0, n_added = 0;
    for (int run = 0; run < RUNS; run++) {
        double hd = uni(-M_PI, M_PI), turn = 0;
        line[0] = sn_v3(uni(-3000, 3000), uni(-3000, 3000), 0);
        for (size_t i = 1; i < LONG; i++) {
            if (rnd() < 0.1)
                turn = rnd() < 0.5 ? 0 : uni(-0.6, 0.6);
            hd += turn * rnd();
            const double step = rnd() < 0.02 ? 0 : uni(1.0, 2.5);
            line[i] = run % 4 == 3 && i >= 20 && rnd() < 0.3 ? line[i - 20]
                                                               : sn_v3(line[i - 1].x + step * cos(hd), line[i - 1].y + step * sin(hd), 0);
        }
        size_t s = 0, e = 2 + (size_t)(rnd() * (SN_MD_PATH - 1));
        uint8_t drops = 0;
        sn_near_memo m = {0};
        /* the body: on or beside the path's first stretch, moving at 0 to 15 m/s at 20 Hz */
        size_t at = s + (size_t)(rnd() * (double)(e - s - 1));
        double lat = uni(-3, 3), x = line[at].x + uni(-2, 2), y = line[at].y + lat, v = rnd() < 0.3 ? 0 : uni(0, 0.75);
        for (int f = 0; f < FRAMES; f++) {
            const double r = rnd();
            if (r < 0.01) { /* a new path: forgotten */
                s = (size_t)(rnd() * (LONG - SN_MD_PATH)), e = s + 2 + (size_t)(rnd() * (SN_MD_PATH - 2)), m.seg = 0;
            } else if (r < 0.25 && e - s > 2) { /* points dropped at the start */
                const size_t d = 1 + (size_t)(rnd() * 3);
                for (size_t q = 0; q < d && e - s > 2; q++) {
                    s++, drops++;
                    if (m.seg && (uint8_t)(drops - m.drops) >= m.seg)
                        m.seg = 0; /* as sn_md_advance forgets a dropped answer */
                }
            } else if (r < 0.3 && e - s > 2) { /* cut at the end */
                e -= 1 + (size_t)(rnd() * (double)(e - s - 2));
            }
            if (rnd() < 0.3) /* added at the end */
                for (size_t q = (size_t)(rnd() * 12); q > 0 && e < LONG && e - s < SN_MD_PATH; q--)
                    e++, n_added++;
            if (rnd() < 0.02)
                v = rnd() < 0.5 ? 0 : uni(0, 0.75);
            const double h = rnd() < 0.02 ? uni(-M_PI, M_PI) : hd;
            const double jump = rnd() < 0.01 ? uni(0, 20) : 0;
            x += (v + jump) * cos(h) + uni(-0.02, 0.02) * (v > 0), y += (v + jump) * sin(h) + uni(-0.02, 0.02) * (v > 0);
            const uint32_t n = (uint32_t)(e - s);
            double along[SN_MD_PATH];
            along[0] = uni(-3, 0);
            for (uint32_t i = 1; i < n; i++)
                along[i] = along[i - 1] + sn_dist2d(line[s + i - 1], line[s + i]);
            double wd, wu, gd = -1, gu = -1;
            const int want = plain_nearest(line + s, n, x, y, &wd, &wu);
            const int got = sn_path_nearest_kept(&m, drops, line + s, along, n, x, y, sn_dist2d(line[s], sn_v3(x, y, 0)), &gd, &gu);
            CHECK(got == want && same(gd, wd) && same(gu, wu), "run %d frame %d: segment %d d2 %.17g u %.17g, in order %d %.17g %.17g",
                  run, f, got, gd, gu, want, wd, wu);
            n_frames++;
            n_kept += m.seg && (m.x != x || m.y != y); /* answered from the memo, not searched */
        }
    }
    fprintf(stderr, "nearest segment kept: %zu of %zu frames answered from the last search (%zu points added)\n", n_kept,
            n_frames, n_added);
    CHECK(n_kept > n_frames / 4 && n_kept < n_frames * 9 / 10, "the frames exercise both the memo and the search");
}

int main(void)
{
    enum { NB = 320, TRIALS = 3000 };
    static sn_actor act[NB + 1];
    static sn_actor_phys ph[NB + 1];
    static sn_actor *bodies[NB + 1];
    static sn_engine e;
    struct sn_traffic t = {0};
    e.traffic = &t;
    size_t n_found = 0, n_behind = 0, n_ties = 0, n_near = 0, n_other = 0, n_tie_seg = 0;
    for (int trial = 0; trial < TRIALS; trial++) {
        /* A path: steps of 0-3 m (some of zero length), turning by up to a right angle a step. */
        sn_vec3 pts[SN_MD_PATH];
        double along[SN_MD_PATH];
        size_t np = 2 + (size_t)(rnd() * (SN_MD_PATH - 1));
        double hd = uni(-M_PI, M_PI), turn = uni(-0.2, 0.2);
        pts[0] = sn_v3(uni(-100, 100), uni(-100, 100), 0);
        along[0] = uni(-4, 1);
        for (size_t i = 1; i < np; i++) {
            double step = rnd() < 0.03 ? 0 : uni(0.3, 3.0);
            if (rnd() < 0.1)
                turn = uni(-0.8, 0.8);
            hd += turn * rnd();
            pts[i] = sn_v3(pts[i - 1].x + step * cos(hd), pts[i - 1].y + step * sin(hd), 0);
            along[i] = along[i - 1] + sn_dist2d(pts[i - 1], pts[i]);
        }
        /* Bodies near the path (queues, beside it, across it), a few far, some duplicated
        ** exactly under another id (ties); boxes up to a truck's half diagonal below the scan's
        ** reach of 3 m beyond the corridor (leader.c). */
        size_t nb = (size_t)(rnd() * NB);
        sn_world w = {0};
        w.bodies = bodies;
        for (size_t k = 0; k <= nb; k++) {
            sn_actor *a = &act[k];
            memset(a, 0, sizeof *a);
            memset(&ph[k], 0, sizeof ph[k]);
            a->ph = &ph[k];
            a->id = (uint32_t)(1000 + trial * 7 + k * 3);
            if (k > 1 && rnd() < 0.15) { /* an exact copy of an earlier body */
                const sn_actor *c = &act[(size_t)(rnd() * (double)(k - 1)) + 1];
                a->kind = c->kind, a->st = c->st, ph[k].bbox = c->ph->bbox;
                bodies[w.n_bodies++] = a;
                continue;
            }
            a->kind = rnd() < 0.8 ? SN_ACTOR_VEHICLE : SN_ACTOR_WALKER;
            a->down = rnd() < 0.03;
            ph[k].bbox.extent = a->kind == SN_ACTOR_VEHICLE ? sn_v3(uni(1.0, 2.5), uni(0.6, 1.2), 0.8) : sn_v3(0.25, 0.25, 0.9);
            size_t i = (size_t)(rnd() * (double)(np - 1));
            double u = rnd(), lat = rnd() < 0.5 ? uni(-1.5, 1.5) : uni(-7, 7);
            sn_vec3 d = sn_v3(pts[i + 1].x - pts[i].x, pts[i + 1].y - pts[i].y, 0);
            double l = sqrt(d.x * d.x + d.y * d.y);
            sn_vec3 n = l > 0 ? sn_v3(-d.y / l, d.x / l, 0) : sn_v3(0, 1, 0);
            a->st.pos = rnd() < 0.1 ? sn_v3(pts[0].x + uni(-60, 60), pts[0].y + uni(-60, 60), 0)
                                    : sn_v3(pts[i].x + u * d.x + lat * n.x, pts[i].y + u * d.y + lat * n.y, uni(-0.5, 0.5));
            double yaw = rnd() < 0.6 ? atan2(d.y, d.x) * 180 / M_PI + uni(-10, 10) : uni(-180, 180);
            a->st.rot = sn_quat_from_rotation((sn_rotation){rnd() < 0.2 ? uni(-20, 20) : 0, yaw, rnd() < 0.1 ? uni(-30, 30) : 0});
            a->st.vel = sn_v3(uni(-15, 15), uni(-15, 15), uni(-1, 1));
            if (k > 0)
                bodies[w.n_bodies++] = a;
        }
        act[0].kind = SN_ACTOR_VEHICLE;
        ph[0].bbox.extent = sn_v3(uni(1.5, 2.5), uni(0.8, 1.1), 0.8);
        act[0].st.pos = pts[0];
        if (rnd() < 0.9 && nb > 0) /* self in the grid too, as every vehicle is */
            bodies[w.n_bodies++] = &act[0];
        CHECK(sn_traffic_grid_build(&t, &w), "grid");
        /* A coasting vehicle's leader against the path, and against the path repeated after
        ** itself (every segment twice, bit for bit: exact ties). */
        sn_vec3 rep[SN_MD_PATH];
        double along_rep[SN_MD_PATH];
        const uint32_t m = (uint32_t)np, nr = m < SN_MD_PATH / 2 ? 2 * m : SN_MD_PATH;
        for (uint32_t i = 0; i < nr; i++)
            rep[i] = pts[i % m], along_rep[i] = i ? along_rep[i - 1] + sn_dist2d(rep[i - 1], rep[i]) : along[0];
        for (size_t k = 1; k < w.n_bodies && k < 64; k++, n_near += 2) {
            check_nearest(pts, along, (uint32_t)np, w.bodies[k]->st.pos.x, w.bodies[k]->st.pos.y, trial, &n_other, &n_tie_seg);
            check_nearest(rep, along_rep, nr, w.bodies[k]->st.pos.x, w.bodies[k]->st.pos.y, trial, &n_other, &n_tie_seg);
        }
        sn_leader_skip skip = {.actor = rnd() < 0.2 && nb ? act[1 + (size_t)(rnd() * (double)nb)].id : 0,
                               .vehicles = rnd() < 0.1, .walkers = rnd() < 0.2};
        const sn_leader_skip *sk = rnd() < 0.8 ? &skip : NULL;
        const bool behind = rnd() < 0.3;
        const double hw = uni(0.8, 2.0);
        res want = full_scan(&t, &act[0], pts, along, np, hw, sk, behind);
        res got = {.gap_b = INFINITY};
        const sn_actor *who = NULL;
        got.found = sn_traffic_leader(&e, &act[0], pts, along, np, hw, sk, &got.gap, &got.v, &who, behind ? &got.gap_b : NULL,
                                      behind ? &got.v_b : NULL);
        got.who = got.found ? who : NULL;
        CHECK(got.found == want.found, "trial %d: found %d, the full scan %d", trial, got.found, want.found);
        if (got.found && want.found) {
            CHECK(got.who == want.who, "trial %d: leader %u, the full scan's %u", trial, got.who->id, want.who->id);
            CHECK(same(got.gap, want.gap) && same(got.v, want.v), "trial %d: gap %.17g v %.17g, the full scan's %.17g %.17g",
                  trial, got.gap, got.v, want.gap, want.v);
            n_found++;
            for (size_t j = 0; j < w.n_bodies; j++) /* a leader with a twin elsewhere in the grid: a tie */
                if (bodies[j] != want.who && bodies[j]->kind == want.who->kind &&
                    !memcmp(&bodies[j]->st.pos, &want.who->st.pos, sizeof(sn_vec3)) &&
                    !memcmp(&bodies[j]->st.rot, &want.who->st.rot, sizeof(sn_quat)) && !bodies[j]->down) {
                    n_ties++;
                    break;
                }
        }
        if (behind) {
            CHECK(same(got.gap_b, want.gap_b) && (!isfinite(want.gap_b) || same(got.v_b, want.v_b)),
                  "trial %d: behind %.17g v %.17g, the full scan's %.17g %.17g", trial, got.gap_b, got.v_b, want.gap_b, want.v_b);
            n_behind += isfinite(want.gap_b);
        }
    }
    fprintf(stderr, "%d trials: %zu with a leader (%zu of them tied with a twin), %zu with a body behind\n", TRIALS, n_found,
            n_ties, n_behind);
    CHECK(n_found > TRIALS / 3 && n_ties > 50 && n_behind > 100, "the configurations exercise leaders, ties and bodies behind");
    fprintf(stderr, "nearest segment: %zu bodies, %zu beyond the path's first segment, %zu tied\n", n_near, n_other, n_tie_seg);
    CHECK(n_other > n_near / 2 && n_tie_seg > n_near / 20, "the nearest-segment checks exercise far segments and ties");
    check_kept();
    free(t.b), free(t.q), free(t.k), free(t.col);
    return CHECK_DONE();
}
