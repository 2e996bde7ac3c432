/* The fake host answers ABI 1.2's additions as the engine does: class state created once and
** shared, class ticks around the instances', no NULL member. argv[1]: sdk12_probe.so. */
#define SN_TESTING_IMPLEMENTATION
#include <sensim/testing.h>

#include "../check.h"

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    sn_fake *f = sn_fake_new(1);
    sn_plugin_entry_fn entry = sn_fake_open(f, argv[1]);
    CHECK(entry != NULL, "%s", sn_fake_error(f));
    sn_fake_sensor *a = sn_fake_spawn(f, entry, "sensor.test.sdk12_probe", NULL, 0);
    sn_fake_sensor *b = sn_fake_spawn(f, entry, "sensor.test.sdk12_probe", (const char *[]){"noise_seed=7", NULL}, 0);
    CHECK(a && b, "%s", sn_fake_error(f));
    CHECK(sn_fake_begin_frame(f) == SN_OK && sn_fake_end_frame(f) == SN_OK, "%s", sn_fake_error(f));
    CHECK(sn_fake_number(a, 0, "instances") == 2, "one class state for both: %g", sn_fake_number(a, 0, "instances"));
    CHECK(!strcmp(sn_fake_string(a, 0, "order"), "<ii>[II]"), "order '%s'", sn_fake_string(a, 0, "order"));
    CHECK(sn_fake_number(a, 0, "gravity.2") == -9.81, "gravity");
    CHECK(sn_fake_number(a, 0, "physics.2") == 5, "substeps");
    /* xoshiro256** seeded by splitmix64(7): the engine's fresh stream (test_sdk12 checks it there). */
    uint64_t x = 7, s[4];
    for (int i = 0; i < 4; i++) {
        uint64_t z = (x += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        s[i] = z ^ (z >> 31);
    }
    uint64_t want = ((s[1] * 5) << 7 | (s[1] * 5) >> 57) * 9;
    CHECK(sn_fake_number(b, 0, "draws.0") == (double)want, "reseeded first draw");
    sn_fake_set_georeference(f, (sn_geo_location){0, 0, 10});
    CHECK(sn_fake_begin_frame(f) == SN_OK && sn_fake_end_frame(f) == SN_OK, "%s", sn_fake_error(f));
    CHECK(sn_fake_number(a, 0, "geo.2") == 10, "geo altitude");
    sn_fake_free(f); /* class_destroy after the instances: ASan watches */
    return CHECK_DONE();
}
