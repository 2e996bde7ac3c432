/* A coasting vehicle's path read in part (engine/traffic/path.c, issue 36 item 6, town62):
** sn_md_along gives the distances bit for bit as the points copied and summed before path68
** (sn_md_points, kept here as the reference), sn_md_along_more any run of them after those
** summed already, to the index asked or the path's end, sn_md_along_reach those up to the first
** at least `reach` along; sn_md_reaches never says the path is at least len long when the last
** distance is shorter — on random paths (straight, bending, turning back, with repeated points)
** and lengths at and about that distance. */
#include "../check.h"
#include "../../engine/traffic/traffic_int.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rs = 0x2545F4914F6CDD1Dull;
static double rnd(void) /* xorshift64*, uniform in [0, 1) */
{
    rs ^= rs >> 12, rs ^= rs << 25, rs ^= rs >> 27;
    return (double)((rs * 2685821657736338717ull) >> 11) * 0x1.0p-53;
}
static double uni(double a, double b) { return a + (b - a) * rnd(); }
static bool same(double a, double b) { return !memcmp(&a, &b, sizeof a); }

/* The reference: the points copied, their distances summed (engine/traffic/path.c before path68). */
static void sn_md_points(const sn_mapdrive *md, double along0, sn_vec3 *pts, double *along)
{
    along[0] = along0;
    pts[0] = md->at[0];
    for (uint32_t i = 1; i < md->n; i++) {
        pts[i] = md->at[i];
        along[i] = along[i - 1] + sn_dist2d(pts[i - 1], pts[i]);
    }
}

/* A path of n points from (x, y): steps of 0..3 m (some 0), turning by up to `turn` rad a step. */
static void make_path(sn_mapdrive *md, uint32_t n, double turn)
{
    double x = uni(-5e3, 5e3), y = uni(-5e3, 5e3), h = uni(-M_PI, M_PI);
    md->n = n;
    for (uint32_t i = 0; i < n; i++) {
        md->at[i] = sn_v3(x, y, uni(-1, 1));
        const double step = rnd() < 0.05 ? 0 : uni(0, 3);
        h += uni(-turn, turn);
        x += step * cos(h), y += step * sin(h);
    }
}

int main(void)
{
    static sn_mapdrive md;
    long n_to = 0, n_reach_to = 0, n_short = 0, n_reach = 0, n_reach_edge = 0, n_lens = 0;
    for (int trial = 0; trial < 20000; trial++) {
        const uint32_t n = 1 + (uint32_t)(rnd() * SN_MD_PATH);
        const int kind = trial % 4; /* straight, bending, turning back, a U-turn's loop */
        make_path(&md, n, kind == 0 ? 0 : kind == 1 ? 0.05 : kind == 2 ? 0.6 : 0.3);
        const double along0 = rnd() < 0.1 ? 0 : uni(-3, 1);
        sn_vec3 pts[SN_MD_PATH];
        double al[SN_MD_PATH], al2[SN_MD_PATH];
        sn_md_points(&md, along0, pts, al);
        /* the whole: the same bits */
        double al3[SN_MD_PATH];
        sn_md_along(&md, along0, al3);
        bool whole = true;
        for (uint32_t i = 0; i < n; i++)
            whole &= same(al[i], al3[i]);
        CHECK(whole, "trial %d: sn_md_along's distances differ from the reference's", trial);
        /* a prefix summed, then more up to `upto`: the same bits, as many as asked */
        const uint32_t k0 = 1 + (uint32_t)(rnd() * n), upto = (uint32_t)(rnd() * (SN_MD_PATH + 2));
        al2[0] = along0;
        uint32_t k = sn_md_along_more(&md, al2, 1, k0 - 1);
        CHECK(k == k0, "trial %d: %u summed of the %u asked", trial, k, k0);
        for (uint32_t i = k; i < SN_MD_PATH; i++)
            al2[i] = NAN; /* what was not summed stays as it was */
        k = sn_md_along_more(&md, al2, k, upto);
        const uint32_t want = upto + 1 < k0 ? k0 : upto + 1 < n ? upto + 1 : n;
        CHECK(k == want, "trial %d: %u summed, %u wanted (from %u to %u of %u)", trial, k, want, k0, upto, n);
        bool ok = true;
        for (uint32_t i = 0; i < k; i++)
            ok &= same(al[i], al2[i]);
        for (uint32_t i = k; i < SN_MD_PATH; i++)
            ok &= isnan(al2[i]);
        CHECK(ok, "trial %d: the first %u distances differ from the reference's, or more were written", trial, k);
        n_to += k < n;
        /* up to the first at least reach along, from a prefix summed: that one's count, the same bits */
        const double reach = rnd() < 0.1 ? al[(uint32_t)(rnd() * n)] : uni(-2, 90);
        double al4[SN_MD_PATH];
        al4[0] = along0;
        const uint32_t k1 = sn_md_along_more(&md, al4, 1, (uint32_t)(rnd() * n));
        const uint32_t r = sn_md_along_reach(&md, al4, k1, reach);
        uint32_t want_r = n;
        for (uint32_t i = 1; i < n; i++)
            if (al[i] >= reach) {
                want_r = i + 1;
                break;
            }
        CHECK(r == want_r, "trial %d: %u points to reach %.17g, %u wanted", trial, r, reach, want_r);
        bool ok_r = true;
        for (uint32_t i = 0; i < r; i++)
            ok_r &= same(al[i], al4[i]);
        CHECK(ok_r, "trial %d: the %u distances to reach differ from the reference's", trial, r);
        n_reach_to += r < n;
        /* the bound: lengths about the last distance, to the last bit, and far below it */
        const double last = al[n - 1];
        const double lens[] = {last, nextafter(last, INFINITY), nextafter(last, -INFINITY), last - 1e-3, last - 2e-3,
                               last - 1, last - 20, uni(-5, 90)};
        for (size_t j = 0; j < sizeof lens / sizeof lens[0]; j++) {
            const bool r = sn_md_reaches(&md, along0, lens[j]);
            n_lens++;
            CHECK(!r || last >= lens[j], "trial %d: reaches %.17g, sn_md_points' path %.17g", trial, lens[j], last);
            n_reach += r;
            n_reach_edge += r && last - lens[j] < 3e-3;
            n_short += !r && last >= lens[j];
        }
        CHECK(n >= 2 || !sn_md_reaches(&md, along0, -1e9), "trial %d: one point reaches nowhere", trial);
    }
    /* the trials exercise the prefix, the bound's success near its margin and its refusals */
    CHECK(n_to > 5000 && n_reach_to > 5000 && n_reach > n_lens / 4 && n_reach_edge > 100 && n_short > 1000,
          "cases: %ld prefixes, %ld stopped short, %ld of %ld lengths reached (%ld within 3 mm), %ld refused though long "
          "enough", n_to, n_reach_to, n_reach, n_lens, n_reach_edge, n_short);
    return CHECK_DONE();
}
