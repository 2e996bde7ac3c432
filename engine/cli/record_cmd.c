/* record_cmd.c — `sensim recorder info|collisions|blocked FILE` and `sensim replay FILE`, on the
** public API only (sn_recording_*, sn_engine_load_replay): the program knows no file layout.
** Exit status: 0 success, 1 a failure while running, 2 bad input (usage, missing or unreadable
** file, not a recording, a damaged frame: after the frames before it were printed). */
#include <sensim/sensim.h>

#include "record_cmd.h"
#include <sensim/numtext.h>
#include "export_cmd.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define EXIT_RUN 1
#define EXIT_INPUT 2

static const char HELP_RECORDER[] =
    "usage: sensim recorder info FILE [--all] [--all-contacts] [--json] [--plugin-dir DIR]\n"
    "       sensim recorder collisions FILE [--type1 a] [--type2 a] [--all-contacts] [--json] [--plugin-dir DIR]\n"
    "       sensim recorder blocked FILE [--min-time 30] [--min-distance 100] [--json] [--plugin-dir DIR]\n"
    "Queries a recording in CARLA's text layout (lengths in metres), or as one JSON object with --json.\n"
    "  info        header, then per frame the actors created, destroyed, re-parented and the collisions;\n"
    "              --all adds every pose, control, walker speed, velocity and bounding box\n"
    "  collisions  new contacts between actors of type1 and type2: h hero, v vehicle, w walker,\n"
    "              t traffic light, o other, a any (default a a)\n"
    "  --all-contacts  every contact pair recorded, both orders; by default only what CARLA records:\n"
    "              collisions a collision sensor reported, actor 1 its parent\n"
    "  blocked     actors that moved less than --min-distance centimetres (CARLA's unit; default 100)\n"
    "              for at least --min-time seconds (default 30)\n"
    "A recording cut off by a crash is read up to its last complete frame (a note says where it ends).\n"
    "Exit status: 0 success, 2 bad input (no such file, not a recording, a damaged frame).\n";

static const char HELP_REPLAY[] =
    "usage: sensim replay FILE --out DIR [--start S] [--duration D] [--time-factor F] [--follow ID]\n"
    "                     [--ignore-hero] [--branch-hero] [--replay-sensors] [--scene SCENE]\n"
    "                     [--threads N] [--plugin-dir DIR] [--quiet] [--mcap FILE [--overwrite]]\n"
    "Replays a recording: recorded actors move to their recorded poses (exact at recorded frames,\n"
    "interpolated between them) with their velocities and controls, while the sensors of SCENE\n"
    "(and with --replay-sensors the recorded ones) write DIR/<sensor>.msgpack as in a live run.\n"
    "  --start S         seconds into the recording; negative counts from the end (default 0)\n"
    "  --duration D      seconds to replay: D / (dt * F) frames (default: to the end)\n"
    "  --time-factor F   recording seconds per replayed second (default 1)\n"
    "  --follow ID       free-standing sensors of SCENE ride on recorded vehicle or walker ID\n"
    "  --ignore-hero     do not replay heroes (role_name hero)\n"
    "  --branch-hero     hand heroes to physics at --start, with their recorded velocity and control\n"
    "  --replay-sensors  re-create the recorded sensors\n"
    "  --scene SCENE     a scene whose sensors (attach_to may name recorded actors) and actors ride along\n"
    "  --mcap FILE       also write the replay as MCAP for Foxglove (docs/mcap.md), as sensim run --mcap\n"
    "  --overwrite       replace an existing --mcap FILE (else refused)\n"
    "Replayed messages carry the recorded frame numbers and timestamps.\n"
    "Exit status: 0 success, 1 a failure while running, 2 bad input (also: --follow of an id the\n"
    "recording does not move, a time factor giving over 10^9 frames).\n";

static int fail(int code, const char *msg)
{
    fprintf(stderr, "sensim: error: %s\n", msg);
    return code;
}

static int failf(int code, const char *fmt, const char *a)
{
    char m[1200];
    snprintf(m, sizeof m, fmt, a);
    return fail(code, m);
}

static bool is_help(const char *a) { return strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0; }

/* A number by the scene's rules (numtext.h). */
static bool parse_double(const char *s, double *out) { return sn_text_number(s, out); }

typedef struct opts {
    const char *file, *out, *plugin_dir, *scene, *mcap;
    bool all, json, quiet, ignore_hero, branch_hero, replay_sensors, all_contacts, overwrite;
    char type1, type2;
    double min_time, min_distance, start, duration, time_factor;
    unsigned long follow, threads;
} opts;

static const struct option ALL_OPTIONS[] = {
    {"all", no_argument, NULL, 0},           {"json", no_argument, NULL, 0},
    {"all-contacts", no_argument, NULL, 0},
    {"quiet", no_argument, NULL, 0},         {"ignore-hero", no_argument, NULL, 0},
    {"branch-hero", no_argument, NULL, 0},   {"replay-sensors", no_argument, NULL, 0},
    {"out", required_argument, NULL, 0},     {"plugin-dir", required_argument, NULL, 0},
    {"scene", required_argument, NULL, 0},   {"type1", required_argument, NULL, 0},
    {"type2", required_argument, NULL, 0},   {"min-time", required_argument, NULL, 0},
    {"min-distance", required_argument, NULL, 0}, {"start", required_argument, NULL, 0},
    {"duration", required_argument, NULL, 0}, {"time-factor", required_argument, NULL, 0},
    {"follow", required_argument, NULL, 0},  {"threads", required_argument, NULL, 0},
    {"mcap", required_argument, NULL, 0},    {"overwrite", no_argument, NULL, 0},
};
#define N_OPTIONS (sizeof ALL_OPTIONS / sizeof ALL_OPTIONS[0])
#define OPT_BASE 256 /* getopt_long returns OPT_BASE + the option's index in ALL_OPTIONS */

/* Options from argv[first] on, parsed with getopt_long; `allowed` lists the names (" all json ... "). */
static int parse(int argc, char **argv, int first, const char *allowed, opts *o)
{
    struct option longopts[N_OPTIONS + 1];
    size_t n_long = 0;
    for (size_t k = 0; k < N_OPTIONS; k++) {
        char key[40];
        snprintf(key, sizeof key, " %s ", ALL_OPTIONS[k].name);
        if (strstr(allowed, key)) {
            longopts[n_long] = ALL_OPTIONS[k];
            longopts[n_long++].val = OPT_BASE + (int)k;
        }
    }
    longopts[n_long] = (struct option){0};
    /* argv[first - 1] stands for the program name; "-" returns positionals in order, ":" tells
    ** a missing value from an unknown option. */
    char **args = argv + first - 1;
    int nargs = argc - first + 1, opt;
    optind = 0;
    opterr = 0;
    while ((opt = getopt_long(nargs, args, "-:", longopts, NULL)) != -1) {
        if (opt == 1) {
            if (o->file)
                return failf(EXIT_INPUT, "unexpected argument '%s'", optarg);
            o->file = optarg;
            continue;
        }
        if (opt == ':')
            return failf(EXIT_INPUT, "option '%s' needs a value", args[optind - 1]);
        if (opt < OPT_BASE) {
            char shortopt[3] = {'-', (char)optopt, 0};
            return failf(EXIT_INPUT, "unknown option '%s' (see --help)", optopt > 0 ? shortopt : args[optind - 1]);
        }
        const char *name = ALL_OPTIONS[opt - OPT_BASE].name, *v = optarg;
        if (strcmp(name, "all") == 0)
            o->all = true;
        else if (strcmp(name, "all-contacts") == 0)
            o->all_contacts = true;
        else if (strcmp(name, "json") == 0)
            o->json = true;
        else if (strcmp(name, "quiet") == 0)
            o->quiet = true;
        else if (strcmp(name, "ignore-hero") == 0)
            o->ignore_hero = true;
        else if (strcmp(name, "branch-hero") == 0)
            o->branch_hero = true;
        else if (strcmp(name, "replay-sensors") == 0)
            o->replay_sensors = true;
        else if (strcmp(name, "overwrite") == 0)
            o->overwrite = true;
        if (!v)
            continue;
        bool ok = true;
        if (strcmp(name, "out") == 0)
            o->out = v;
        else if (strcmp(name, "plugin-dir") == 0)
            o->plugin_dir = v;
        else if (strcmp(name, "scene") == 0)
            o->scene = v;
        else if (strcmp(name, "mcap") == 0)
            o->mcap = v;
        else if (strcmp(name, "type1") == 0 || strcmp(name, "type2") == 0) {
            ok = strlen(v) == 1 && strchr("hvwtoa", v[0]);
            *(name[4] == '1' ? &o->type1 : &o->type2) = v[0];
        } else if (strcmp(name, "min-time") == 0)
            ok = parse_double(v, &o->min_time) && o->min_time >= 0;
        else if (strcmp(name, "min-distance") == 0)
            ok = parse_double(v, &o->min_distance) && o->min_distance >= 0;
        else if (strcmp(name, "start") == 0)
            ok = parse_double(v, &o->start);
        else if (strcmp(name, "duration") == 0)
            ok = parse_double(v, &o->duration) && o->duration >= 0;
        else if (strcmp(name, "time-factor") == 0)
            ok = parse_double(v, &o->time_factor) && o->time_factor > 0 && o->time_factor <= 1000;
        else if (strcmp(name, "follow") == 0 || strcmp(name, "threads") == 0) {
            uint64_t n = 0;
            ok = sn_text_uint(v, name[0] == 'f' ? 0xffffffffUL : 1024UL, &n);
            *(name[0] == 'f' ? &o->follow : &o->threads) = (unsigned long)n;
        }
        if (!ok) {
            char m[300];
            snprintf(m, sizeof m, "option '--%s': bad value '%.200s'", name, v);
            return fail(EXIT_INPUT, m);
        }
    }
    return 0;
}

/* A note on stderr when the file does not end as a closed recording does. */
static void end_note(sn_recording *r, const char *path)
{
    sn_log_info in = {.struct_size = sizeof in};
    if (sn_recording_info(r, &in, NULL) == SN_OK && in.end != SN_LOG_END_COMPLETE)
        fprintf(stderr, "sensim: note: %s: %s; %llu complete frames used\n", path, in.end_reason,
                (unsigned long long)in.frames);
}

int sn_cmd_recorder(int argc, char **argv)
{
    for (int i = 2; i < argc; i++)
        if (is_help(argv[i])) {
            fputs(HELP_RECORDER, stdout);
            return 0;
        }
    if (argc < 3)
        return fail(EXIT_INPUT, "recorder: which query? info, collisions or blocked (see sensim recorder --help)");
    const char *q = argv[2];
    /* --min-distance in centimetres, as CARLA's client.show_recorder_actors_blocked takes it
    ** (default 100 cm, CARLA's documented default and show_recorder_actors_blocked.py's) */
    opts o = {.type1 = 'a', .type2 = 'a', .min_time = 30, .min_distance = 100};
    const char *allowed = strcmp(q, "info") == 0         ? " all all-contacts json plugin-dir "
                          : strcmp(q, "collisions") == 0 ? " type1 type2 all-contacts json plugin-dir "
                          : strcmp(q, "blocked") == 0    ? " min-time min-distance json plugin-dir "
                                                         : NULL;
    if (!allowed)
        return failf(EXIT_INPUT, "recorder: unknown query '%s' (info, collisions or blocked)", q);
    int rc = parse(argc, argv, 3, allowed, &o);
    if (rc)
        return rc;
    if (!o.file)
        return failf(EXIT_INPUT, "recorder %s: no recording given", q);
    sn_error err = {0};
    sn_engine_options eo = {.plugin_dir = o.plugin_dir};
    sn_recording *r = sn_recording_open(o.file, &eo, &err);
    if (!r)
        return fail(EXIT_INPUT, err.msg);
    sn_recording_show_all_contacts(r, o.all_contacts);
    sn_status st = q[0] == 'i'   ? sn_recording_print_info(r, stdout, o.all, o.json, &err)
                   : q[0] == 'c' ? sn_recording_print_collisions(r, stdout, o.type1, o.type2, o.json, &err)
                                 : sn_recording_print_blocked(r, stdout, o.min_time, o.min_distance / 100, o.json, &err);
    fflush(stdout);
    if (!st)
        end_note(r, o.file);
    sn_recording_close(r);
    return st ? fail(EXIT_INPUT, err.msg) : 0;
}

int sn_cmd_replay(int argc, char **argv)
{
    for (int i = 2; i < argc; i++)
        if (is_help(argv[i])) {
            fputs(HELP_REPLAY, stdout);
            return 0;
        }
    opts o = {.time_factor = 1};
    int rc = parse(argc, argv, 2,
                   " out start duration time-factor follow ignore-hero branch-hero replay-sensors scene threads "
                   "plugin-dir quiet mcap overwrite ", &o);
    if (rc)
        return rc;
    if (!o.file)
        return fail(EXIT_INPUT, "replay: no recording given (usage: sensim replay FILE --out DIR)");
    if (!o.out)
        return fail(EXIT_INPUT, "replay: --out DIR is required");
    if (o.overwrite && !o.mcap)
        return fail(EXIT_INPUT, "replay: --overwrite goes with --mcap FILE");
    sn_install_crash_reporter();
    sn_error err = {0};
    sn_engine_options eo = {.plugin_dir = o.plugin_dir, .threads = (int)o.threads, .quiet_plugins = o.quiet};
    sn_engine *e = sn_engine_create(&eo, &err);
    if (!e)
        return fail(EXIT_INPUT, err.msg);
    sn_replay_options ro = {sizeof ro, o.start, o.duration, o.time_factor, (uint32_t)o.follow, o.ignore_hero,
                            o.replay_sensors, o.branch_hero, o.scene};
    sn_mcap *mcap = NULL;
    sn_status loaded = sn_engine_load_replay(e, o.file, &ro, &err);
    sn_error ignored = {0};
    if (loaded == SN_OK) /* the actors stream every sensim run keeps (main.c keep_actors): `sensim
                         ** export mcap` of the replay's folder then draws the actors as --mcap does */
        sn_cli_add_actors(e, &ignored);
    if (loaded != SN_OK || sn_engine_open_outputs(e, o.out, &err) != SN_OK ||
        (o.mcap && !(mcap = sn_cli_mcap_start(e, o.mcap, (int)o.threads, o.overwrite, &err)))) {
        sn_engine_destroy(e);
        return fail(EXIT_INPUT, err.msg);
    }
    sn_recording *cut = sn_recording_open(o.file, &eo, &ignored); /* a cut file: say what is replayed */
    if (cut)
        end_note(cut, o.file);
    sn_recording_close(cut);
    clock_t t0 = clock();
    sn_status st = sn_engine_run(e, 0, &err);
    if (sn_cli_mcap_end(mcap, st == SN_OK)) {
        sn_engine_destroy(e);
        return EXIT_RUN;
    }
    double wall = (double)(clock() - t0) / CLOCKS_PER_SEC;
    sn_run_stats stats = {.struct_size = sizeof stats};
    sn_engine_stats(e, &stats, NULL);
    if (st) {
        fprintf(stderr, "sensim: error: %s\n", err.msg);
        const char *pd = sn_engine_partial_dir(e);
        fprintf(stderr, "sensim: stopped at frame %llu; %s%s%s%s left as it was\n", (unsigned long long)stats.frames,
                pd ? "partial outputs in " : "", pd ? pd : "", pd ? "; " : "", o.out);
        sn_engine_destroy(e);
        return EXIT_RUN;
    }
    if (!o.quiet)
        printf("sensim: replayed %llu frames (%.3f s) in %.3f s CPU, %llu messages from %u sensors in %s\n",
               (unsigned long long)stats.frames, stats.sim_time, wall, (unsigned long long)stats.messages,
               stats.sensors, o.out);
    sn_engine_destroy(e);
    return 0;
}
