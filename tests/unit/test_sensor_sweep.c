/* Sensors spawned through the API and destroyed leave the steps' walks of e->sensors: a script
** spawning and destroying a listening sensor per episode made every step slower for good (soak70:
** 20 000 destroyed sensors took a bare world's step from 0.018 to 0.25 ms). They are kept apart
** (e->gone) until unload: their names stay taken, a stream opened after is still written and
** their messages still counted (sn_engine_stats as before).
** argv[1]: a temp folder; argv[2]: the collision plugin's folder. */
#include "../../engine/sim/engine.h"
#include "../check.h"
#include "../testutil.h"

#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#define CYCLES 2000

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    const char *scene = tu_write(argv[1], "sweep.yaml", "settings: {seed: 1}\nactors:\n"
                                 "  - {name: ground, blueprint: static.ground}\n"
                                 "  - {name: car, blueprint: vehicle.sedan, transform: {location: [0, 0, 0.5]}}\n"
                                 "sensors:\n  - {name: crash, blueprint: sensor.other.collision, attach_to: car}\n");
    CHECK(scene != NULL, "cannot write %s/sweep.yaml", argv[1]);
    sn_error err;
    sn_engine_options o = {.plugin_dir = argv[2], .quiet_plugins = true, .threads = 1};
    sn_engine *e = scene ? sn_engine_create(&o, &err) : NULL;
    if (!e || sn_engine_load_scene(e, scene, &err) != SN_OK) {
        CHECK(0, "load: %s", err.msg);
        sn_engine_destroy(e);
        return CHECK_DONE();
    }
    uint32_t car = sn_engine_find_actor(e, "car"), first = 0;
    for (int i = 0; i < CYCLES; i++) {
        sn_actor_desc d = {.struct_size = sizeof d, .blueprint = "sensor.other.collision", .parent_id = car};
        uint32_t id = 0;
        if (sn_engine_spawn(e, &d, &id, &err) || sn_engine_destroy_actor(e, id, &err) ||
            (i % 10 == 9 && sn_engine_step(e, &err))) {
            CHECK(0, "cycle %d: %s", i, err.msg);
            break;
        }
        first = first ? first : id;
    }
    CHECK(sn_engine_step(e, &err) == SN_OK, "step: %s", err.msg);
    CHECK(e->n_sensors == 1, "the steps walk %u sensors after %d spawned and destroyed; want 1", e->n_sensors, CYCLES);

    sn_run_stats st = {.struct_size = sizeof st};
    CHECK(sn_engine_stats(e, &st, &err) == SN_OK, "stats: %s", err.msg);
    CHECK(st.sensors == CYCLES + 1 && st.live_sensors == 1, "stats: %u sensors, %u live; want %d, 1", st.sensors,
          st.live_sensors, CYCLES + 1);

    /* a destroyed one's name stays taken, and says so */
    char name[32];
    snprintf(name, sizeof name, "sensor_%u", first);
    sn_actor_desc again = {.struct_size = sizeof again, .blueprint = "sensor.other.collision", .name = name,
                           .parent_id = car};
    CHECK(sn_engine_spawn(e, &again, NULL, &err) != SN_OK && strstr(err.msg, "is taken"), "reuse of %s: %s", name,
          err.msg);
    CHECK(sn_engine_listen(e, name, NULL, NULL, &err) != SN_OK && strstr(err.msg, "was destroyed"), "listen %s: %s",
          name, err.msg);

    /* outputs opened now still give every sensor of the run its stream, the gone ones' too */
    char dir[4096], path[4200];
    snprintf(dir, sizeof dir, "%s/sweep_out_%d", argv[1], (int)getpid());
    CHECK(sn_engine_open_outputs(e, dir, &err) == SN_OK, "outputs: %s", err.msg);
    CHECK(sn_engine_step(e, &err) == SN_OK, "step with outputs: %s", err.msg);
    CHECK(sn_engine_finish(e, true, &err) == SN_OK, "finish: %s", err.msg);
    struct stat sb;
    snprintf(path, sizeof path, "%s/%s.msgpack", dir, name);
    CHECK(stat(path, &sb) == 0, "no stream %s for the destroyed sensor", path);
    snprintf(path, sizeof path, "%s/crash.msgpack", dir);
    CHECK(stat(path, &sb) == 0, "no stream %s", path);
    sn_engine_destroy(e);
    return CHECK_DONE();
}
