/* Another plugin on the engine's V2X medium (host->v2x_join, v2x_send, v2x_received; ABI 1.6), on
** the fake host with the v2x plugin opened: what reaches a station and when, at the power of
** CARLA's model for the distance (WINNER+ highway, no fading), line of sight behind a wall, the
** payload byte for byte, channels apart from the text sensors', the refusals, and a station
** leaving with its sensor. argv[1]: v2x_probe.so, argv[2]: sensim_v2x.so. */
#include <sensim/testing.h>

#include "../check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *probe_so, *v2x_so;
static const sn_transform at0 = {{0, 0, 2}, {0, 0, 0}}, at30 = {{30, 0, 2}, {0, 0, 0}};

static sn_plugin_entry_fn v2x_entry;

static sn_fake *fake(sn_plugin_entry_fn *probe, int threads)
{
    sn_testworld_options o = {.struct_size = sizeof o, .seed = 5, .threads = threads};
    sn_fake *f = sn_fake_new_with(&o);
    *probe = sn_fake_open(f, probe_so);
    v2x_entry = sn_fake_open(f, v2x_so);
    CHECK(*probe && v2x_entry, "%s", sn_fake_error(f));
    return f;
}

static sn_fake_sensor *spawn(sn_fake *f, sn_plugin_entry_fn e, const char *name, sn_transform t, const char *a0,
                             const char *a1)
{
    return sn_fake_spawn_named(f, e, "sensor.test.v2x_probe", name, (const char *[]){a0, a1, NULL}, 0, t);
}

static double num(sn_fake_sensor *s, int i, const char *key)
{
    char path[64];
    snprintf(path, sizeof path, "heard.%d.%s", i, key);
    return sn_fake_number(s, 0, path);
}

/* B hears A's 300 bytes one frame after A sent them, at the model's power, intact; A does not
** hear itself, nor B a probe on another channel or the text sensors, nor they the probes. */
static void delivery(int threads, int wall)
{
    sn_plugin_entry_fn e;
    sn_fake *f = fake(&e, threads);
    if (wall)
        sn_fake_add_actor(f, "static.building", SN_TAG_BUILDING, (sn_transform){{15, 0, 5}, {0, 0, 0}},
                          (sn_vec3){0.5, 20, 5});
    sn_fake_sensor *a = spawn(f, e, "a", at0, "send_size=300", NULL);
    sn_fake_sensor *b = spawn(f, e, "b", at30, NULL, NULL);
    sn_fake_sensor *c = spawn(f, e, "c", (sn_transform){{10, 0, 2}, {0, 0, 0}}, "send_size=20", "channel=other");
    sn_fake_sensor *t1 = sn_fake_spawn_named(f, v2x_entry, "sensor.other.v2x_custom", "t1", NULL, 0, at0);
    sn_fake_sensor *t2 = sn_fake_spawn_named(f, v2x_entry, "sensor.other.v2x_custom", "t2", NULL, 0, at30);
    CHECK(a && b && c && t1 && t2, "%s", sn_fake_error(f));
    if (!a || !b || !c || !t1 || !t2) {
        sn_fake_free(f);
        return;
    }
    CHECK(sn_fake_call(t1, "send", 1, (const char *[]){"hello"}) == SN_OK, "%s", sn_fake_error(f));
    CHECK(sn_fake_step(f) == SN_OK, "%s", sn_fake_error(f));
    int64_t sent_ns = sn_fake_clock(f)->time_ns;
    CHECK(sn_fake_length(b, 0, "heard") == 0, "nothing in the frame it was sent");
    CHECK(sn_fake_message_count(t2) == 1 && sn_fake_length(t2, 0, "messages") == 1,
          "the text sensors hear each other, not the probes");
    CHECK(sn_fake_message_count(t1) == 0, "t1 hears no probe");
    CHECK(sn_fake_step(f) == SN_OK, "%s", sn_fake_error(f));
    CHECK(sn_fake_length(b, 0, "heard") == 1, "b hears a once (%lld)", (long long)sn_fake_length(b, 0, "heard"));
    CHECK(num(b, 0, "sender") == sn_fake_sensor_id(a) && num(b, 0, "station") == sn_fake_sensor_id(a),
          "from a (free-standing: its own station)");
    const double fq = (double)(float)5.9;
    double want = wall ? 31.5 - (36.85 + 30 * log10(30.0) + 18.9 * log10(fq))
                       : 31.5 - (32.4 + 20 * log10(30.0) + 20 * log10(fq));
    CHECK_NEAR(num(b, 0, "power"), want, 1e-9, "received power");
    CHECK(num(b, 0, "los") == wall, "los %g", num(b, 0, "los"));
    CHECK(num(b, 0, "frame") == 1 && num(b, 0, "time_ns") == (double)sent_ns, "sent in frame 1");
    CHECK(num(b, 0, "size") == 300 && sn_fake_number(b, 0, "heard.0.intact") == 1, "300 bytes intact");
    CHECK(sn_fake_length(a, 0, "heard") == 0, "a hears neither itself nor c (another channel)");
    CHECK(sn_fake_length(c, 0, "heard") == 0, "c hears nobody on its channel");
    sn_fake_free(f);
}

/* The text sensors' reports are the same bytes whether probes share the medium or not (the
** text sensors spawn first, so their ids are the same). */
static void unchanged(void)
{
    unsigned char *seen[2][3] = {{0}};
    size_t len[2][3] = {{0}};
    for (int with = 0; with < 2; with++) {
        sn_plugin_entry_fn e;
        sn_fake *f = fake(&e, 2);
        sn_fake_sensor *t[3];
        const sn_transform at[3] = {at0, at30, {{12, 9, 2}, {0, 0, 0}}};
        const char *names[3] = {"t1", "t2", "t3"};
        for (int i = 0; i < 3; i++)
            t[i] = sn_fake_spawn_named(f, v2x_entry, "sensor.other.v2x_custom", names[i], NULL, 0, at[i]);
        if (with) {
            spawn(f, e, "a", (sn_transform){{5, 1, 2}, {0, 0, 0}}, "send_size=100", NULL);
            spawn(f, e, "b", (sn_transform){{25, -1, 2}, {0, 0, 0}}, "send_size=50", NULL);
        }
        for (int step = 0; step < 3; step++) {
            for (int i = 0; i < 3; i++)
                CHECK(t[i] && sn_fake_call(t[i], "send", 1, (const char *[]){names[i]}) == SN_OK, "%s", sn_fake_error(f));
            CHECK(sn_fake_step(f) == SN_OK, "%s", sn_fake_error(f));
        }
        for (int i = 0; i < 3; i++) {
            size_t n = 0;
            const void *raw = t[i] && sn_fake_message_count(t[i]) ? sn_fake_raw(t[i], 0, &n) : NULL;
            seen[with][i] = raw ? malloc(n) : NULL;
            if (seen[with][i])
                memcpy(seen[with][i], raw, n), len[with][i] = n;
        }
        sn_fake_free(f);
    }
    for (int i = 0; i < 3; i++) {
        CHECK(seen[0][i] && len[0][i] == len[1][i] && seen[1][i] && !memcmp(seen[0][i], seen[1][i], len[0][i]),
              "t%d: the same report with and without probes (%zu, %zu bytes)", i + 1, len[0][i], len[1][i]);
        free(seen[0][i]), free(seen[1][i]);
    }
}

/* A station goes with its sensor: b still reads what reached it, then nothing. */
static void leaving(void)
{
    sn_plugin_entry_fn e;
    sn_fake *f = fake(&e, 1);
    sn_fake_sensor *a = spawn(f, e, "a", at0, "send_size=8", NULL);
    sn_fake_sensor *b = spawn(f, e, "b", at30, NULL, NULL);
    CHECK(a && b && sn_fake_step(f) == SN_OK, "%s", sn_fake_error(f));
    CHECK(sn_fake_remove_actor(f, sn_fake_sensor_id(a)) == SN_OK, "%s", sn_fake_error(f));
    CHECK(sn_fake_step(f) == SN_OK && sn_fake_length(b, 0, "heard") == 1, "frame 1's message");
    CHECK(sn_fake_step(f) == SN_OK && sn_fake_length(b, 0, "heard") == 0, "a left");
    sn_fake_free(f);
}

static void refused(const char *a0, const char *a1, bool at_step, const char *needle)
{
    sn_plugin_entry_fn e;
    sn_fake *f = fake(&e, 1);
    sn_fake_sensor *s = spawn(f, e, "p", at0, a0, a1);
    if (at_step)
        CHECK(s && sn_fake_step(f) != SN_OK, "%s %s: the step fails", a0, a1 ? a1 : "");
    else
        CHECK(!s, "%s %s: the spawn fails", a0, a1 ? a1 : "");
    CHECK_CONTAINS(sn_fake_error(f), needle);
    sn_fake_free(f);
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    probe_so = argv[1], v2x_so = argv[2];
    for (int wall = 0; wall < 2; wall++)
        for (int threads = 1; threads <= 2; threads++)
            delivery(threads, wall);
    unchanged();
    leaving();
    refused("join=false", "send_size=10", true, "v2x_send: call v2x_join first");
    refused("send_size=70000", NULL, true, "v2x_send: a payload of 70000 bytes");
    refused("join_twice=true", NULL, false, "has joined the V2X medium already");
    refused("filter=0", NULL, false, "v2x_join: filter_distance 0 is outside [0.001, 100000]");
    /* without the v2x plugin */
    sn_fake *f = sn_fake_new(1);
    sn_plugin_entry_fn e = sn_fake_open(f, probe_so);
    CHECK(!spawn(f, e, "p", at0, NULL, NULL), "no medium, no join");
    CHECK_CONTAINS(sn_fake_error(f), "no loaded plugin carries a V2X medium");
    sn_fake_free(f);
    return CHECK_DONE();
}
