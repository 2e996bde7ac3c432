/* The three sensors on the SDK's fake host (libsensim), with a map for the light detector.
** usage: test_sensors ultrasonic.so light_ahead.so coop.so sensim_v2x.so [signals.xodr] */
#include <sensim/testing.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

static int failures;
#define EXPECT(cond, ...)                                                                     \
    do {                                                                                      \
        if (!(cond)) {                                                                        \
            failures++;                                                                       \
            fprintf(stderr, "FAIL line %d: ", __LINE__), fprintf(stderr, __VA_ARGS__), fputc('\n', stderr); \
        }                                                                                     \
    } while (0)

typedef struct echo { float distance, bearing; uint32_t actor, beam; } echo;
typedef struct object { float x, y, z, distance; uint32_t actor, source; } object;
typedef struct link { double power; uint32_t sender, station, los, objects; } link;

static uint32_t box(sn_fake *f, double x, double y, double e)
{
    return sn_fake_add_actor(f, "static.prop.box", SN_TAG_STATIC, (sn_transform){{x, y, e}, {0, 0, 0}},
                             (sn_vec3){e, e, e});
}

/* A bar of 3 beams 30 degrees apart: a box 3 m ahead (its face at 2.5 m), one to the left at
** 45 degrees, out of every 10-degree beam; the side beams hear nothing. */
static void ultrasonic(const char *so)
{
    sn_fake *f = sn_fake_new(1);
    sn_plugin_entry_fn entry = sn_fake_open(f, so);
    EXPECT(entry, "%s", sn_fake_error(f));
    uint32_t ahead = box(f, 3, 0, 0.5);
    box(f, 2, -2, 0.5);
    sn_fake_sensor *s = sn_fake_spawn_named(f, entry, "sensor.other.ultrasonic_array", "bar",
                                            (const char *[]){"beams=3", "spacing=30", "half_angle=10", NULL}, 0,
                                            (sn_transform){{0, 0, 0.5}, {0, 0, 0}});
    EXPECT(s && sn_fake_step(f) == SN_OK, "%s", sn_fake_error(f));
    size_t n = 0;
    const echo *e = sn_fake_bin(s, 0, "echoes", &n);
    EXPECT(e && n == 3 * sizeof *e, "three echoes");
    EXPECT(e && e[1].actor == ahead && fabsf(e[1].distance - 2.5f) < 1e-5f, "centre beam: %u at %g", e[1].actor,
           e[1].distance);
    EXPECT(e && e[0].actor == 0 && e[2].actor == 0 && e[0].distance == -1, "side beams quiet");
    sn_fake_free(f);
}

/* On signals.xodr: a car at s 5 of Street_W's lane -1 has the light of signal 3006 75 m ahead,
** whose state the embedding API reports the same, and the 40 km/h sign 5 m ahead. */
static void light_ahead(const char *so, const char *map)
{
    sn_testworld_options o = {.struct_size = sizeof o, .seed = 1, .map_path = map};
    sn_fake *f = sn_fake_new_with(&o);
    EXPECT(f, "a fake with the map");
    if (!f)
        return;
    sn_engine *e = sn_fake_engine(f);
    sn_plugin_entry_fn entry = sn_fake_open(f, so);
    sn_waypoint wp;
    sn_map_waypoint_xodr(sn_engine_map(e), 1, -1, 5.0, &wp, NULL);
    uint32_t car = sn_fake_spawn_actor(f, "vehicle.sedan", "car", wp.transform, 0, NULL);
    sn_fake_sensor *s = sn_fake_spawn(f, entry, "sensor.other.traffic_light_ahead", NULL, car);
    EXPECT(s && sn_fake_step(f) == SN_OK, "%s", sn_fake_error(f));
    uint32_t light = (uint32_t)sn_fake_number(s, 0, "traffic_light.id");
    sn_traffic_light_state st = SN_TL_UNKNOWN;
    EXPECT(sn_engine_traffic_light_get_state(e, light, &st, NULL) == SN_OK, "light %u is a light", light);
    static const char *const names[] = {"Red", "Yellow", "Green", "Off", "Unknown"};
    EXPECT(!strcmp(sn_fake_string(s, 0, "traffic_light.state"), names[st]), "state %s",
           sn_fake_string(s, 0, "traffic_light.state"));
    EXPECT(fabs(sn_fake_number(s, 0, "traffic_light.distance") - 75) < 1e-6, "distance %g",
           sn_fake_number(s, 0, "traffic_light.distance"));
    EXPECT(sn_fake_number(s, 0, "traffic_light.opendrive_id") == 3006, "signal");
    EXPECT(fabs(sn_fake_number(s, 0, "speed_limit") - 40) < 1e-9, "limit %g", sn_fake_number(s, 0, "speed_limit"));
    sn_fake_free(f);
}

/* Two cars 30 m apart, 10 m perception, antennas 2 m up, no fading: B broadcasts the box beside
** it over the engine's V2X medium and A hears it one frame later at WINNER+'s highway power for
** 30 m in line of sight (21.5 dBm + 10 dBi - (32.4 + 20 log10 30 + 20 log10 f)). A wall between
** them makes the link NLOSb (36.85 + 30 log10 30 + 18.9 log10 f): heard at -99 dBm sensitivity
** with that power, not at -55 dBm, and then A does not know the box. */
static void coop(const char *so, const char *v2x_so)
{
    const double f = (double)(float)5.9, d = 30;
    const double p_los = 31.5 - (32.4 + 20 * log10(d) + 20 * log10(f));
    const double p_nlosb = 31.5 - (36.85 + 30 * log10(d) + 18.9 * log10(f));
    for (int run = 0; run < 3; run++) {
        int wall = run > 0, deaf = run == 2;
        sn_fake *f = sn_fake_new(1);
        sn_plugin_entry_fn entry = sn_fake_open(f, so);
        EXPECT(sn_fake_open(f, v2x_so), "the v2x plugin: %s", sn_fake_error(f));
        uint32_t a = sn_fake_spawn_actor(f, "vehicle.sedan", "a", (sn_transform){{0, 0, 0}, {0, 0, 0}}, 0, NULL);
        uint32_t b = sn_fake_spawn_actor(f, "vehicle.sedan", "b", (sn_transform){{30, 0, 0}, {0, 0, 0}}, 0, NULL);
        uint32_t thing = box(f, 35, 0, 0.5);
        if (wall)
            sn_fake_add_actor(f, "static.building", SN_TAG_BUILDING, (sn_transform){{15, 0, 5}, {0, 0, 0}},
                              (sn_vec3){0.5, 20, 5});
        const char *at[] = {"perception_range=10", "fading_stddev=0",
                            deaf ? "receiver_sensitivity=-55" : "receiver_sensitivity=-99", NULL};
        sn_transform roof = {{0, 0, 2}, {0, 0, 0}};
        sn_fake_sensor *sa = sn_fake_spawn_named(f, entry, "sensor.other.coop_perception", "ca", at, a, roof);
        sn_fake_sensor *sb = sn_fake_spawn_named(f, entry, "sensor.other.coop_perception", "cb", at, b, roof);
        EXPECT(sa && sb && sn_fake_step(f) == SN_OK && sn_fake_step(f) == SN_OK, "%s", sn_fake_error(f));
        size_t n = 0, nl = 0;
        const object *o = sn_fake_bin(sa, 0, "objects", &n);
        const link *l = sn_fake_bin(sa, 0, "links", &nl);
        int heard = 0;
        for (size_t i = 0; o && i < n / sizeof *o; i++)
            heard += o[i].actor == thing && o[i].source == b;
        const char *what[] = {"clear", "a wall", "a wall, -55 dBm"};
        EXPECT(heard == !deaf, "%s: A %s the box through B (%zu objects)", what[run], heard ? "knows" : "does not know",
               n / sizeof *o);
        EXPECT(nl == (deaf ? 0 : sizeof *l), "%s: %zu links", what[run], nl / sizeof *l);
        if (l && nl == sizeof *l) {
            double want = wall ? p_nlosb : p_los;
            EXPECT(l->station == b && l->los == (uint32_t)wall && l->objects >= 1 && fabs(l->power - want) < 1e-3,
                   "%s: link from %u, los %u, %g dBm (want %u, %u, %g)", what[run], l->station, l->los, l->power, b,
                   wall, want);
        }
        sn_fake_free(f);
    }
}

int main(int argc, char **argv)
{
    if (argc < 5)
        return 2;
    ultrasonic(argv[1]);
    if (argc > 5)
        light_ahead(argv[2], argv[5]);
    coop(argv[3], argv[4]);
    return failures ? 1 : 0;
}
