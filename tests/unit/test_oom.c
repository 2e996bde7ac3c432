/* test_oom.c — out of memory, SQLite's way (its malloc fault simulator): every allocation of a
** scene load, of a step and of a recording is made to fail in turn, and each must end cleanly —
** a status with a sentence (or success, where the engine does without), no crash, and no leak
** once the engine is destroyed (the ASan build's leak checker is the judge of that).
**
** The counting allocator: this test is linked with -Wl,--wrap=malloc,--wrap=calloc,
** --wrap=realloc (tests/meson.build), so the engine's own calls (the static sensim_core) come
** here, while ODE, libyaml, the C library and the plugins allocate as usual. Nothing in the
** engine changes for the test. sn_test_fail_alloc_after(n): the n-th allocation from now and
** every one after it fail, until sn_test_fail_alloc_after(-1).
**
** Phases, each on a fresh engine, the phases before it run with memory:
**   load   sn_engine_load_scene of a scene with vehicles, a prop, a collision sensor, an IMU
**   step   outputs opened, the first two steps, sn_engine_finish (later steps allocate nothing:
**          their buffers are reused)
**   record sn_engine_record, then two steps and sn_engine_finish
** A phase with N allocations is tried at up to SAMPLES of them, evenly spread (all when fewer),
** so the test stays fast. argv: tmp dir, plugin dir (build/plugins). */
#include <sensim/sensim.h>

#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SAMPLES 60

void *__real_malloc(size_t n);
void *__real_calloc(size_t k, size_t n);
void *__real_realloc(void *p, size_t n);

static atomic_long countdown = -1; /* allocations left before they fail; -1: never */
static atomic_long counted;        /* allocations since the last arm */

/* Arms the fault (n >= 0) and starts counting; n < 0 disarms and keeps the count. */
static void sn_test_fail_alloc_after(long n)
{
    if (n >= 0 || atomic_load(&countdown) < 0)
        atomic_store(&counted, 0);
    atomic_store(&countdown, n);
}

static bool fail_now(void)
{
    atomic_fetch_add(&counted, 1);
    long c = atomic_load(&countdown);
    if (c < 0)
        return false;
    if (c == 0)
        return true;
    atomic_fetch_sub(&countdown, 1);
    return false;
}

void *__wrap_malloc(size_t n) { return fail_now() ? NULL : __real_malloc(n); }
void *__wrap_calloc(size_t k, size_t n) { return fail_now() ? NULL : __real_calloc(k, n); }
void *__wrap_realloc(void *p, size_t n) { return fail_now() ? NULL : __real_realloc(p, n); }

static const char *tmp, *plugins;
static char scene[512];
static int failures;

#define CHECK(c, ...)                                                                                                  \
    do {                                                                                                               \
        if (!(c)) {                                                                                                    \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                                                       \
            fprintf(stderr, __VA_ARGS__);                                                                              \
            fputc('\n', stderr);                                                                                       \
            failures++;                                                                                                \
        }                                                                                                              \
    } while (0)

typedef enum { PH_LOAD, PH_STEP, PH_RECORD } phase;
static const char *const phase_name[] = {"load", "step", "record"};

/* Runs the phase on a fresh engine with the n-th of its allocations failing (n < 0: none);
** returns the phase's status and counts its allocations into *n_alloc. */
static sn_status run(phase ph, long n, long *n_alloc, sn_error *err)
{
    sn_engine_options o = {.plugin_dir = plugins, .quiet_plugins = true, .threads = 1};
    sn_error e0 = {0};
    sn_engine *e = sn_engine_create(&o, &e0);
    if (!e) {
        fprintf(stderr, "FAIL engine: %s\n", e0.msg);
        failures++;
        return SN_E_INVALID;
    }
    sn_status st = SN_OK;
    *err = (sn_error){0};
    if (ph == PH_LOAD) {
        sn_test_fail_alloc_after(n < 0 ? 1L << 60 : n);
        st = sn_engine_load_scene(e, scene, err);
        sn_test_fail_alloc_after(-1);
        *n_alloc = atomic_load(&counted);
        if (!st)
            st = sn_engine_step(e, err); /* what loaded under the fault also runs */
    } else {
        /* a step allocates only at first (streams, scratch; later steps reuse them): the first */
        if ((st = sn_engine_load_scene(e, scene, &e0)) ||
            (ph == PH_RECORD && ((st = sn_engine_step(e, &e0)) || (st = sn_engine_step(e, &e0))))) {
            fprintf(stderr, "FAIL %s: setup: %s\n", phase_name[ph], e0.msg);
            failures++;
        } else if (ph == PH_STEP) {
            char out[600];
            snprintf(out, sizeof out, "%s/oom_run_%ld", tmp, n);
            sn_test_fail_alloc_after(n < 0 ? 1L << 60 : n);
            st = sn_engine_open_outputs(e, out, err);
            for (int i = 0; i < 2 && !st; i++)
                st = sn_engine_step(e, err);
            if (!st)
                st = sn_engine_finish(e, true, err);
            sn_test_fail_alloc_after(-1);
            *n_alloc = atomic_load(&counted);
        } else {
            char rec[600];
            snprintf(rec, sizeof rec, "%s/oom.sensimrec", tmp);
            remove(rec);
            sn_record_options ro = {.struct_size = sizeof ro, .file = rec};
            sn_test_fail_alloc_after(n < 0 ? 1L << 60 : n);
            st = sn_engine_record(e, &ro, err);
            for (int i = 0; i < 2 && !st; i++)
                st = sn_engine_step(e, err);
            if (!st)
                st = sn_engine_finish(e, true, err);
            sn_test_fail_alloc_after(-1);
            *n_alloc = atomic_load(&counted);
        }
    }
    sn_engine_destroy(e); /* whatever failed, everything goes: LeakSanitizer checks at exit */
    return st;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: test_oom TMP PLUGIN_DIR\n");
        return 2;
    }
    tmp = argv[1], plugins = argv[2];
    snprintf(scene, sizeof scene, "%s/oom.yaml", tmp);
    FILE *f = fopen(scene, "w");
    if (!f) {
        fprintf(stderr, "FAIL cannot write %s\n", scene);
        return 1;
    }
    fputs("settings: {fixed_delta_seconds: 0.05, frames: 10, seed: 3}\n"
          "actors:\n"
          "  - {name: ground, blueprint: static.ground}\n"
          "  - name: hero\n"
          "    blueprint: vehicle.sedan\n"
          "    transform: {location: [0, 0, 0.75]}\n"
          "    attributes: {role_name: hero}\n"
          "    velocity: [10, 0, 0]\n"
          "  - name: other\n"
          "    blueprint: vehicle.sedan\n"
          "    transform: {location: [12, 0, 0.75]}\n"
          "  - name: box\n"
          "    blueprint: static.prop.box\n"
          "    transform: {location: [30, 0, 1.5]}\n"
          "    attributes: {extent: \"0.5,5,1.5\"}\n"
          "sensors:\n"
          "  - {name: crash, blueprint: sensor.other.collision, attach_to: hero}\n"
          "  - {name: imu, blueprint: sensor.other.imu, attach_to: hero}\n",
          f);
    fclose(f);

    for (int ph = PH_LOAD; ph <= PH_RECORD; ph++) {
        long total = 0, ignored;
        sn_error err;
        sn_status st = run((phase)ph, -1, &total, &err);
        CHECK(st == SN_OK, "%s without faults: %s", phase_name[ph], err.msg);
        CHECK(total > 0, "%s: no allocation counted (is the test linked with --wrap=malloc?)", phase_name[ph]);
        long step = total > SAMPLES ? total / SAMPLES : 1;
        int failed = 0, tried = 0;
        for (long n = 0; n < total; n += step, tried++) {
            st = run((phase)ph, n, &ignored, &err);
            if (st != SN_OK) {
                failed++;
                /* a clean failure: a status with a sentence that says what */
                CHECK(err.msg[0] != 0, "%s, allocation %ld failing: status %d without a message", phase_name[ph], n,
                      (int)st);
            }
        }
        fprintf(stderr, "%s: %ld allocations, %d tried failing, %d of them failed the call cleanly, the rest "
                        "were done without\n",
                phase_name[ph], total, tried, failed);
        CHECK(failed > 0, "%s: no failing allocation made the call fail", phase_name[ph]);
    }
    if (failures)
        fprintf(stderr, "%d failure(s)\n", failures);
    return failures ? 1 : 0;
}
