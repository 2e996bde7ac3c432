/* bench_python_loop.c — the C side of bench_python.py: the loop a Python user writes (load a
** scene, listen to its cameras, step N frames), in C, as the baseline of Python's overhead.
** Prints "seconds_per_tick messages". Usage: bench_python_loop SCENE FRAMES PLUGIN_DIR */
#include <sensim/sensim.h>

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static void on_msg(const sn_message *m, void *user)
{
    /* touch the message as the Python listener does (it decodes the header and maps the pixels) */
    *(uint64_t *)user += m->size + ((const unsigned char *)m->data)[0];
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
    if (argc < 4)
        return fprintf(stderr, "usage: bench_python_loop SCENE FRAMES PLUGIN_DIR\n"), 2;
    sn_error err;
    sn_engine_options o = {.plugin_dir = argv[3], .quiet_plugins = true};
    sn_engine *e = sn_engine_create(&o, &err);
    if (!e || sn_engine_load_scene(e, argv[1], &err) != SN_OK)
        return fprintf(stderr, "%s\n", err.msg), 1;
    uint64_t sink = 0;
    const char *cams[] = {"hero_rgb", "hero_depth", "hero_semantic"};
    for (int i = 0; i < 3; i++)
        if (sn_engine_listen(e, cams[i], on_msg, &sink, &err) != SN_OK)
            return fprintf(stderr, "%s\n", err.msg), 1;
    const long frames = atol(argv[2]);
    const double t0 = now();
    for (long f = 0; f < frames; f++)
        if (sn_engine_step(e, &err) != SN_OK)
            return fprintf(stderr, "%s\n", err.msg), 1;
    printf("%.9f %llu\n", (now() - t0) / (double)frames, (unsigned long long)sink);
    sn_engine_destroy(e);
    return 0;
}
