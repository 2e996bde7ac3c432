/*
** test_light_record.c — traffic-light states in recordings, through the public API only:
** the town map's 36 lights cycle for 40 s (green 10, yellow 3, red 2 each, one light of a
** junction at a time) while the recorder runs; every recorded frame's light list must equal the
** states the live engine reported at that frame; `recorder info --all` text names them; a
** replay of the recording shows the recorded state of every light at every frame.
** argv: tmp dir, plugin dir (build/plugins), maps/.
*/
#include "../check.h"
#include "../testrun.h"

#include <sensim/sensim.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define FRAMES 800 /* 40 s at 0.05 s */
#define MAX_LIGHTS 64

static const char *tmp, *plugins, *maps;

typedef struct states {
    uint32_t n, id[MAX_LIGHTS];
    uint8_t s[FRAMES + 1][MAX_LIGHTS];
} states;

static void live_run(const char *scene, const char *rec, states *st)
{
    sn_error err;
    sn_engine *e = tu_engine(plugins, 1);
    CHECK(sn_engine_load_scene(e, scene, &err) == SN_OK, "%s", err.msg);
    sn_record_options ro = {.struct_size = sizeof ro, .file = rec};
    CHECK(sn_engine_record(e, &ro, &err) == SN_OK, "%s", err.msg);
    st->n = sn_engine_traffic_light_count(e);
    CHECK(st->n == 36, "36 lights on the town: %u", st->n);
    if (st->n > MAX_LIGHTS)
        st->n = MAX_LIGHTS;
    for (uint32_t i = 0; i < st->n; i++)
        st->id[i] = sn_engine_traffic_light_at(e, i);
    int changes = 0;
    for (int f = 1; f <= FRAMES; f++) {
        CHECK(sn_engine_step(e, &err) == SN_OK, "%s", err.msg);
        for (uint32_t i = 0; i < st->n; i++) {
            sn_traffic_light_state s = SN_TL_UNKNOWN;
            sn_engine_traffic_light_get_state(e, st->id[i], &s, NULL);
            st->s[f][i] = (uint8_t)s;
            changes += f > 1 && st->s[f][i] != st->s[f - 1][i];
        }
    }
    CHECK(changes > 36, "the lights cycled: %d changes", changes);
    CHECK(sn_engine_finish(e, true, &err) == SN_OK, "%s", err.msg);
    sn_engine_destroy(e);
}

static int light_index(const states *st, uint32_t id)
{
    for (uint32_t i = 0; i < st->n; i++)
        if (st->id[i] == id)
            return (int)i;
    return -1;
}

static void check_read(const char *rec, const states *st)
{
    sn_error err;
    sn_engine_options o = {.plugin_dir = plugins, .quiet_plugins = true};
    sn_recording *r = sn_recording_open(rec, &o, &err);
    CHECK(r, "%s", err.msg);
    if (!r)
        return;
    const sn_log_frame *f;
    int frames = 0, wrong = 0;
    while (sn_recording_next(r, &f, &err) == SN_OK) {
        frames++;
        CHECK(f->struct_size >= offsetof(sn_log_frame, n_lights) + sizeof f->n_lights, "a 1.4 frame");
        CHECK(f->n_lights == st->n, "frame %llu lists %u lights", (unsigned long long)f->frame, f->n_lights);
        for (uint32_t i = 0; i < f->n_lights && f->frame <= FRAMES; i++) {
            int k = light_index(st, f->lights[i].id);
            wrong += k < 0 || f->lights[i].state != st->s[f->frame][k];
        }
    }
    CHECK(frames == FRAMES, "%d frames read", frames);
    CHECK(wrong == 0, "%d recorded light states differ from the live run", wrong);
    /* The text of `sensim recorder info --all` names them. */
    char path[4096];
    snprintf(path, sizeof path, "%s/light_info.txt", tmp);
    FILE *out = fopen(path, "w+");
    CHECK(out && sn_recording_print_info(r, out, true, false, &err) == SN_OK, "%s", err.msg);
    if (out) {
        rewind(out);
        char line[512];
        int headers = 0, greens = 0;
        while (fgets(line, sizeof line, out)) {
            headers += strncmp(line, " State traffic lights: 36", 25) == 0;
            greens += strstr(line, "(Green)") != NULL;
        }
        CHECK(headers == FRAMES, "a light list in every frame: %d", headers);
        CHECK(greens > 0, "green lights named");
        fclose(out);
    }
    sn_recording_close(r);
}

static void check_replay(const char *rec, const states *st)
{
    sn_error err;
    sn_engine *e = tu_engine(plugins, 1);
    sn_replay_options ro = {.struct_size = sizeof ro};
    CHECK(sn_engine_load_replay(e, rec, &ro, &err) == SN_OK, "%s", err.msg);
    int wrong = 0, missing = 0;
    for (int f = 1; f <= FRAMES; f++) {
        if (sn_engine_step(e, &err) != SN_OK) {
            CHECK(0, "replay step %d: %s", f, err.msg);
            break;
        }
        for (uint32_t i = 0; i < st->n; i++) {
            uint32_t id = sn_engine_replay_actor(e, st->id[i]);
            sn_traffic_light_state s;
            if (!id || sn_engine_traffic_light_get_state(e, id, &s, NULL) != SN_OK) {
                missing++;
                continue;
            }
            wrong += (uint8_t)s != st->s[f][i];
        }
    }
    CHECK(missing == 0, "%d light-frames without the replayed light", missing);
    CHECK(wrong == 0, "%d replayed light states differ from the recording", wrong);
    sn_engine_destroy(e);
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: test_light_record TMP PLUGINS MAPS\n");
        return 2;
    }
    tmp = argv[1], plugins = argv[2], maps = argv[3];
    char scene[4096], rec[4096];
    snprintf(scene, sizeof scene, "%s/light_record.yaml", tmp);
    snprintf(rec, sizeof rec, "%s/light_record.sensimrec", tmp);
    FILE *f = fopen(scene, "w");
    if (!f)
        return 1;
    fprintf(f, "map: %s/town.xodr\nsettings: {fixed_delta_seconds: 0.05, frames: %d}\nactors: []\n", maps, FRAMES);
    fclose(f);
    states *st = calloc(1, sizeof *st);
    live_run(scene, rec, st);
    check_read(rec, st);
    check_replay(rec, st);
    free(st);
    return CHECK_DONE();
}
