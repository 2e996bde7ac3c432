/* traffic's blueprint patterns and weighted lists (docs/traffic.md, "Which blueprints") on the
** town map (tests/data/town.xodr). argv[1]: temp folder, argv[2]: tests/data.
**
** Every vehicle's blueprint matches an entry and the weights show (3 : 1 over 40 vehicles);
** each vehicle's colour is one of its blueprint's recommended colours; walkers of
** 'walker.pedestrian.*' are of several ids; the same seed gives the same picks (ids and
** colours), another seed others; a pattern matching nothing, a zero weight and an entry
** without an id are refused with a line and position. */
#include "../check.h"
#include "../testutil.h"

#include <fnmatch.h>
#include <string.h>

static const char *tmp, *data;

static const char *scene(const char *name, const char *traffic)
{
    char text[4096];
    snprintf(text, sizeof text,
             "settings: {fixed_delta_seconds: 0.05, duration: 1, seed: 5}\n"
             "map: %s/town.xodr\n"
             "scenery: {enabled: false}\n"
             "traffic: %s\n",
             data, traffic);
    static char path[1024];
    snprintf(path, sizeof path, "%s", tu_write(tmp, name, text));
    return path;
}

static sn_engine *load(const char *path, sn_error *err)
{
    sn_engine_options o = {.quiet_plugins = true, .threads = 1};
    sn_engine *e = sn_engine_create(&o, err);
    if (e && sn_engine_load_scene(e, path, err) != SN_OK) {
        sn_engine_destroy(e);
        return NULL;
    }
    return e;
}

/* "type_id r,g,b;" of every vehicle and walker, in id order. */
static void picks(sn_engine *e, char *out, size_t cap, int *vehicles, int *walkers)
{
    out[0] = 0;
    *vehicles = *walkers = 0;
    for (uint32_t i = 0; i < sn_engine_actor_count(e); i++) {
        sn_actor_info a;
        memset(&a, 0, sizeof a);
        a.struct_size = sizeof a;
        uint32_t id = sn_engine_actor_id_at(e, i);
        if (sn_engine_actor_get(e, id, &a) != SN_OK || (a.kind != SN_ACTOR_VEHICLE && a.kind != SN_ACTOR_WALKER))
            continue;
        sn_value c = {0};
        sn_engine_actor_attribute(e, id, "color", &c, NULL);
        size_t n = strlen(out);
        snprintf(out + n, cap - n, "%s %u,%u,%u;", a.type_id, c.rgb[0], c.rgb[1], c.rgb[2]);
        if (a.kind == SN_ACTOR_VEHICLE)
            (*vehicles)++;
        else
            (*walkers)++;
    }
}

static const char *const weighted =
    "{seed: 11, vehicles: {count: 40, blueprints: [{id: 'vehicle.tesla.*', weight: 3}, 'vehicle.audi.*']},"
    " walkers: {count: 20, blueprints: ['walker.pedestrian.*']}}";

static void test_picks(void)
{
    sn_error err = {0};
    sn_engine *e = load(scene("picks.yaml", weighted), &err);
    CHECK(e != NULL, "load: %s", err.msg);
    if (!e)
        return;
    static char a[65536], b[65536];
    int nv, nw;
    picks(e, a, sizeof a, &nv, &nw);
    CHECK(nv == 40 && nw == 20, "%d vehicles, %d walkers", nv, nw);
    int tesla = 0, audi = 0, other = 0, bad_colour = 0, ids = 0;
    char seen[64][48];
    for (uint32_t i = 0; i < sn_engine_actor_count(e); i++) {
        sn_actor_info ai;
        memset(&ai, 0, sizeof ai);
        ai.struct_size = sizeof ai;
        uint32_t id = sn_engine_actor_id_at(e, i);
        if (sn_engine_actor_get(e, id, &ai) != SN_OK)
            continue;
        if (ai.kind == SN_ACTOR_VEHICLE) {
            tesla += !fnmatch("vehicle.tesla.*", ai.type_id, 0);
            audi += !fnmatch("vehicle.audi.*", ai.type_id, 0);
            other += fnmatch("vehicle.tesla.*", ai.type_id, 0) && fnmatch("vehicle.audi.*", ai.type_id, 0);
            /* CARLA's cars' recommended colours (engine/plugin/carla_vehicles.c rec_colors) */
            static const char *const rec[] = {"17,37,103", "75,75,75", "255,255,255", "140,0,0", "0,0,0", "200,200,200"};
            sn_value c = {0};
            char txt[32];
            sn_engine_actor_attribute(e, id, "color", &c, NULL);
            snprintf(txt, sizeof txt, "%u,%u,%u", c.rgb[0], c.rgb[1], c.rgb[2]);
            int ok = 0;
            for (int k = 0; k < 6; k++)
                ok |= !strcmp(rec[k], txt);
            bad_colour += !ok;
        } else if (ai.kind == SN_ACTOR_WALKER) {
            CHECK(!fnmatch("walker.pedestrian.[0-9][0-9][0-9][0-9]", ai.type_id, 0), "walker %s", ai.type_id);
            int dup = 0;
            for (int k = 0; k < ids; k++)
                dup |= !strcmp(seen[k], ai.type_id);
            if (!dup && ids < 64)
                snprintf(seen[ids++], sizeof seen[0], "%s", ai.type_id);
        }
    }
    CHECK(other == 0 && tesla + audi == 40, "tesla %d, audi %d, other %d", tesla, audi, other);
    CHECK(tesla > 2 * audi && audi > 0, "weights 3 : 1: tesla %d, audi %d", tesla, audi);
    CHECK(bad_colour == 0, "%d vehicles in a colour not recommended", bad_colour);
    CHECK(ids >= 8, "%d walker ids among 20 walkers", ids);
    sn_engine_destroy(e);

    /* the same seed: the same picks and colours; another seed: others */
    e = load(scene("picks2.yaml", weighted), &err);
    CHECK(e != NULL, "reload: %s", err.msg);
    if (e) {
        picks(e, b, sizeof b, &nv, &nw);
        CHECK(!strcmp(a, b), "the same seed gives the same picks");
        sn_engine_destroy(e);
    }
    char other_seed[512];
    snprintf(other_seed, sizeof other_seed, "{seed: 12, %s", weighted + strlen("{seed: 11, "));
    e = load(scene("picks3.yaml", other_seed), &err);
    CHECK(e != NULL, "other seed: %s", err.msg);
    if (e) {
        picks(e, b, sizeof b, &nv, &nw);
        CHECK(strcmp(a, b) != 0, "another seed gives other picks");
        sn_engine_destroy(e);
    }
}

static void refused(const char *name, const char *traffic, const char *want)
{
    sn_error err = {0};
    sn_engine *e = load(scene(name, traffic), &err);
    CHECK(!e && strstr(err.msg, want) && strstr(err.msg, ".yaml:4:"), "%s: refused with '%s': %s", traffic, want, err.msg);
    if (e)
        sn_engine_destroy(e);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: test_traffic_picks TMP DATA\n");
        return 2;
    }
    tmp = argv[1], data = argv[2];
    test_picks();
    refused("bad1.yaml", "{vehicles: {count: 3, blueprints: ['vehicle.nope.*']}}", "matches no vehicle blueprint");
    refused("bad2.yaml", "{vehicles: {count: 3, blueprints: [{id: 'vehicle.*', weight: 0}]}}", "weight must be in (0, 1e6]");
    refused("bad3.yaml", "{vehicles: {count: 3, blueprints: [{weight: 2}]}}", "needs an 'id'");
    refused("bad4.yaml", "{walkers: {blueprints: ['walker.*']}}", "needs a 'count'");
    refused("bad5.yaml", "{walkers: {count: 2, blueprints: ['vehicle.*']}}", "matches no walker blueprint");
    return CHECK_DONE();
}
