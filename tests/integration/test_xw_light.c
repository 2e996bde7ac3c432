/* Lights and crossings (issue 31): how long a red has left, and walkers that do not start a
** crossing when the cars' red is about to end. On the town (tests/data/town.xodr: two
** controllers per junction, opposite approaches together; CARLA's 10 s green, 3 s yellow, 2 s red
** per controller, so a 30 s round). argv: TMP PLUGINS DATA.
**
** 1. sn_lights_red_left for every light over 65 s against the cycle: a light of controller k is
**    red outside [15k, 15k + 13) of every 30 s and turns green at 15k, so its red has
**    (15k - t) mod 30 s left.
** 2. A walker sent across the east arm of junction (0, 0) (the crosswalk at x = 13, light of
**    controller 0, red on [13, 30) and [43, 60) s) when that red has 6 s left stays on its kerb
**    through the cars' green and yellow until their next red at 43 s; sent when the red has 16 s
**    left it is on the carriageway within 6 s. */
#include "../check.h"
#include "../testutil.h"

#include "../../engine/sim/engine.h"
#include "../../engine/traffic/lights.h"

#include <math.h>

static const char *tmp, *plugins, *data;

static sn_engine *load(void)
{
    char text[1024];
    snprintf(text, sizeof text,
             "settings: {fixed_delta_seconds: 0.05, duration: 10, seed: 5}\nmap: %s/town.xodr\n"
             "actors:\n  - {name: ground, blueprint: static.ground}\n",
             data);
    sn_error err = {0};
    sn_engine_options o = {.plugin_dir = plugins, .quiet_plugins = true, .threads = 1};
    sn_engine *e = sn_engine_create(&o, &err);
    if (!e || sn_engine_load_scene(e, tu_write(tmp, "xw_light.yaml", text), &err) != SN_OK) {
        fprintf(stderr, "FAIL: cannot load the town: %s\n", err.msg);
        exit(1);
    }
    return e;
}

static void step_to(sn_engine *e, double t)
{
    sn_error err = {0};
    while (sn_engine_clock(e)->timestamp < t - 1e-9)
        if (sn_engine_step(e, &err) != SN_OK) {
            fprintf(stderr, "FAIL: step: %s\n", err.msg);
            exit(1);
        }
}

static void test_red_left(void)
{
    sn_engine *e = load();
    const sn_lights *ls = e->lights;
    CHECK(ls && ls->n == 36, "36 lights");
    int bad = 0, reds = 0;
    for (int f = 1; f <= 1300; f++) {
        step_to(e, f * 0.05);
        double t = sn_engine_clock(e)->timestamp;
        for (uint32_t i = 0; ls && i < ls->n; i++) {
            double ph = fmod(t + 1e-9, 30.0), k = 15.0 * ls->l[i].ctl;
            bool red = !(ph >= k && ph < k + 13);
            double want = red ? fmod(k - ph + 60.0, 30.0) : 0, got = sn_lights_red_left(ls, i);
            reds += red;
            if (fabs(got - want) > 1e-6 && bad++ < 5)
                fprintf(stderr, "  light %u (controller %u) at t = %.2f: red_left %.3f, the cycle says %.3f\n", i,
                        ls->l[i].ctl, t, got, want);
        }
    }
    CHECK(bad == 0 && reds > 0, "%d of the lights' red times left off the cycle (%d red samples)", bad, reds);
    sn_engine_destroy(e);
}

/* Sends a walker from the north kerb of the crosswalk at x = 13 to the south side at time t0;
** the first time after t0 it stands on the carriageway (|y| < 3), or INFINITY within 30 s. */
static double cross_at(double t0)
{
    sn_engine *e = load();
    step_to(e, t0);
    sn_error err = {0};
    sn_actor_desc d = {sizeof d, "walker.pedestrian", "w", {{13.0, 5.2, 1.0}, {0, 0, 0}}, 0, 0, NULL, 0};
    uint32_t w = 0;
    if (sn_engine_spawn(e, &d, &w, &err) != SN_OK || sn_engine_walker_ai_start(e, w, &err) != SN_OK ||
        sn_engine_walker_ai_go_to_location(e, w, (sn_vec3){13.0, -5.2, 0.15}, &err) != SN_OK) {
        fprintf(stderr, "FAIL: walker: %s\n", err.msg);
        exit(1);
    }
    double on = INFINITY;
    for (double t = t0; t < t0 + 30 && !isfinite(on); t += 0.05) {
        step_to(e, t + 0.05);
        sn_actor_info a = {.struct_size = sizeof a};
        sn_engine_actor_get(e, w, &a);
        if (fabs(a.transform.location.y) < 3.0)
            on = sn_engine_clock(e)->timestamp;
    }
    sn_engine_destroy(e);
    return on;
}

int main(int argc, char **argv)
{
    if (argc < 4)
        return 2;
    tmp = argv[1], plugins = argv[2], data = argv[3];
    test_red_left();
    double late = cross_at(24.0), early = cross_at(14.0);
    fprintf(stderr, "walker sent at 24 s (red 6 s left) steps on the road at %.2f s; sent at 14 s (16 s left): %.2f s\n",
            late, early);
    CHECK(late >= 43.0 && late < 50.0, "sent as the red ends, it waits for the next red: on the road at %.2f s (want 43..50)",
          late);
    CHECK(early < 20.0, "sent with 16 s of red left, it crosses at once: on the road at %.2f s", early);
    return CHECK_DONE();
}
