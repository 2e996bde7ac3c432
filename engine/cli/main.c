/* main.c — the sensim command: run, blueprints, plugins, dump, convert, new-sensor.
**
** Built only on the public API of <sensim/sensim.h> and linked against libsensim like any
** embedding program, so everything the command does, a user's program can do too.
**
** Exit status: 0 success, 1 a failure while running, 2 bad input (usage, scene, attributes,
** plugin). Every error is one line on stderr starting "sensim: error:". */
#include <sensim/mcap.h>
#include <sensim/sensim.h>

#include "batch_cmd.h"
#include "cli_input.h"
#include <sensim/numtext.h>
#include "export_cmd.h"
#include "json_out.h"
#include "map_cmd.h"
#include "record_cmd.h"
#include "scaffold.h"
#include "views_module.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <time.h>

#define EXIT_RUN 1
#define EXIT_INPUT 2
#define HELP_SHOWN (-1) /* parse_args printed --help: the subcommand exits 0 */

/* "partial outputs in DIR/sensim-partial-X; " or "" when the run wrote nothing. */
static const char *partial_note(const char *dir)
{
    static char buf[4200];
    if (!dir)
        return "";
    snprintf(buf, sizeof buf, "partial outputs in %s; ", dir);
    return buf;
}

static int fail(int code, const char *fmt, const char *a)
{
    fprintf(stderr, "sensim: error: ");
    fprintf(stderr, fmt, a);
    fputc('\n', stderr);
    return code;
}

static const char USAGE[] =
    "usage: sensim run SCENE --out DIR [--set PATH=VALUE ...] [--frames N] [--seed N] [--threads N] [--plugin-dir DIR]\n"
    "                  [--quiet] [--stats FILE] [--record FILE [--additional-data]] [--mcap FILE]\n"
    "       sensim export mcap RUN_DIR --out FILE [--map XODR] [--depth-converter C] [--raw-images]\n"
    "       sensim batch SPEC --out DIR [-j N] [--shard I/N] [--resume] [--dry-run]\n"
    "       sensim replay FILE --out DIR [--start S] [--duration D] [--scene SCENE] ...\n"
    "       sensim recorder info|collisions|blocked FILE [--json] ...\n"
    "       sensim blueprints [--json] [--plugin-dir DIR]\n"
    "       sensim plugins [--json] [--plugin-dir DIR]\n"
    "       sensim dump FILE [--json] [--decode] [--plugin-dir DIR]\n"
    "       sensim convert STREAM --out DIR [--converter raw|depth|logarithmic_depth|cityscapes] [--format F]\n"
    "       sensim convert STREAM --video OUT.mp4 [--gif OUT.gif] [--converter C]\n"
    "       sensim report RUN_DIR --out REPORT.html [--map FILE.xodr]\n"
    "       sensim new-sensor NAME [DIR]\n"
    "       sensim map FILE [--json] [--waypoints D | --topology | --spawn-points | --at X,Y,Z]\n"
    "       sensim help [COMMAND]\n"
    "       sensim --version\n"
    "Every command answers --help (or sensim help COMMAND).\n";

/* What `sensim COMMAND --help` prints on stdout. */
static const char HELP_RUN[] =
    "usage: sensim run SCENE --out DIR [--set PATH=VALUE ...] [--frames N] [--seed N] [--threads N] [--plugin-dir DIR]\n"
    "                  [--quiet] [--stats FILE] [--record FILE [--additional-data]] [--mcap FILE [--overwrite]]\n"
    "                  [--no-streams]\n"
    "Runs a scene headless; each sensor writes DIR/<sensor name>.msgpack.\n"
    "  --out DIR         output folder (created on demand); required\n"
    "  --set PATH=VALUE  overrides one scene value, checked like the file (repeatable), e.g.\n"
    "                    actors.hero.control.throttle=0.7  settings.seed=4  sensors.front.attributes.fov=110\n"
    "  --frames N        run N frames instead of the scene's settings.frames / duration\n"
    "  --seed N          random seed instead of the scene's\n"
    "  --threads N       renderer worker threads (default: the number of cores)\n"
    "  --plugin-dir DIR  searched for plugins before SENSIM_PLUGIN_PATH and the engine's own\n"
    "  --quiet           no summary line, no refused-plugin warnings\n"
    "  --stats FILE      write {\"frames\":N,\"sim_time\":S,\"messages\":N,\"sensors\":N,\"time_world\":S,\n"
    "                    \"time_sensors\":S,\"time_output\":S,\"time_serialize\":S,\"time_write\":S,\"seed\":N,\n"
    "                    \"scene\":PATH,\"traffic_health\":{...}} there at the end (wall seconds by part: serialising\n"
    "                    is part of output; traffic health per simulated minute as in DIR/run.json, docs/traffic.md;\n"
    "                    writing the streams is mostly on their own thread); as DIR/stats.json it is what\n"
    "                    `sensim report DIR` summarises\n"
    "  --record FILE     record the run (CARLA's recorder; see sensim recorder, sensim replay)\n"
    "  --additional-data with --record: also velocities and bounding boxes\n"
    "  --no-streams      no sensor writes DIR/<sensor>.msgpack (settings.streams: false; a sensor's own\n"
    "                    stream: false does it for one); save: images, --record, --mcap, listeners as before\n"
    "  --mcap FILE       also write the run as MCAP for Foxglove as it goes (docs/mcap.md); adds an\n"
    "                    actors stream (sensor.other.actors) when the scene has none; an existing FILE\n"
    "                    is refused unless --overwrite is given (docs/cli.md)\n"
    "Exit status: 0 success, 1 a failure while running (partial outputs kept in DIR/sensim-partial-*), 2 bad input.\n";
static const char HELP_BLUEPRINTS[] =
    "usage: sensim blueprints [--json] [--plugin-dir DIR]\n"
    "Lists every blueprint, built-in and from plugins, with its attributes (type, default, range, doc).\n";
static const char HELP_PLUGINS[] =
    "usage: sensim plugins [--json] [--plugin-dir DIR]\n"
    "Lists every plugin file found, its ABI and blueprints, or why it was refused.\n";
static const char HELP_DUMP[] =
    "usage: sensim dump FILE [--json] [--decode] [--plugin-dir DIR]\n"
    "Prints a stream as JSON lines, one per message. Every bin is {\"$bin_bytes\": N}, with\n"
    "\"$records\" and \"count\" when its layout is known (points, detections, events, pixels).\n"
    "--decode adds \"records\": each record as an object (not for pixels), also for the layouts\n"
    "plugins on the search path declare (--plugin-dir, SENSIM_PLUGIN_PATH); --json adds \"$bin\":\n"
    "the bytes in base64.\n";
static const char HELP_CONVERT[] =
    "usage: sensim convert STREAM --out DIR [--converter raw|depth|logarithmic_depth|cityscapes]\n"
    "                      [--format png|ppm|pgm|pfm]\n"
    "       sensim convert STREAM [--video OUT.mp4] [--gif OUT.gif] [--converter C]\n"
    "Saves every image of a camera stream as DIR/<frame>.png (CARLA's ColorConverter; default raw).\n"
    "  --format F        ppm: the same pictures uncompressed; pgm: depth at 16 bits or segmentation\n"
    "                    tags at 8; pfm: depth in metres as floats (docs/sensors/cameras.md)\n"
    "Optical flow streams get CARLA's get_color_coded_flow colours; lidar, semantic lidar and radar\n"
    "streams a 500x500 bird's-eye view, 0.2 m per pixel, the sensor at the centre, forward up.\n"
    "  --video OUT.mp4   the same pictures as an H.264 video at the sensor's rate (its timestamps)\n"
    "  --gif OUT.gif     an animated GIF preview, at most 480 pixels wide\n"
    "  --overwrite       replace existing --video/--gif files (else refused; a failure leaves them as they were)\n";
static const char HELP_NEW_SENSOR[] =
    "usage: sensim new-sensor NAME [DIR]\n"
    "Writes a plugin folder (sensor, unit test, meson.build, scene, README) that builds as written.\n"
    "NAME is lower case [a-z0-9_] (blueprint sensor.other.NAME) or a whole id sensor.FAMILY.NAME.\n";

static int usage(void)
{
    fputs(USAGE, stderr);
    return EXIT_INPUT;
}

static bool is_help(const char *a) { return strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0; }

/* A whole number by the scene's rules (numtext.h): "+3" and " 3" are refused here too. */
static bool parse_u64(const char *s, uint64_t *out) { return sn_text_uint(s, UINT64_MAX, out); }

/* Every run keeps an actors stream (sensor.other.actors), so `sensim export mcap` of its folder
** draws the actors' boxes and transform tree (issue 33 item 2). Without the actors plugin, or
** with a sensor of another kind holding the name, the run goes on without it. Always true. */
static bool keep_actors(sn_engine *e)
{
    sn_error ignored = {0};
    sn_cli_add_actors(e, &ignored);
    return true;
}

#define MAX_SETS 256
enum { OPT_OVERWRITE = 512 }; /* --overwrite (docs/cli.md, "Existing output files") */

typedef struct cli {
    const char *positional;
    const char *sets[MAX_SETS];
    size_t n_sets;
    const char *out, *plugin_dir, *converter, *stats;
    const char *record, *mcap;
    const char *format;
    const char *video, *gif;
    uint64_t frames, seed, threads;
    bool has_frames, has_seed, json, quiet, additional, decode;
    bool overwrite; /* --overwrite: replace an existing --mcap / --video / --gif file */
} cli;

/* Every option of the subcommands parsed here; each subcommand allows a subset (`allowed`). */
enum { OPT_OUT = 256, OPT_SET, OPT_FRAMES, OPT_SEED, OPT_THREADS, OPT_PLUGIN_DIR, OPT_QUIET, OPT_STATS, OPT_RECORD,
       OPT_ADDITIONAL, OPT_JSON, OPT_CONVERTER, OPT_DECODE, OPT_VIDEO, OPT_GIF, OPT_MCAP, OPT_FORMAT, OPT_NO_STREAMS };
static const struct option ALL_OPTIONS[] = {
    {"overwrite", no_argument, NULL, OPT_OVERWRITE},
    {"out", required_argument, NULL, OPT_OUT},           {"set", required_argument, NULL, OPT_SET},
    {"frames", required_argument, NULL, OPT_FRAMES},     {"seed", required_argument, NULL, OPT_SEED},
    {"threads", required_argument, NULL, OPT_THREADS},   {"plugin-dir", required_argument, NULL, OPT_PLUGIN_DIR},
    {"quiet", no_argument, NULL, OPT_QUIET},             {"stats", required_argument, NULL, OPT_STATS},
    {"record", required_argument, NULL, OPT_RECORD},     {"additional-data", no_argument, NULL, OPT_ADDITIONAL},
    {"json", no_argument, NULL, OPT_JSON},               {"converter", required_argument, NULL, OPT_CONVERTER},
    {"decode", no_argument, NULL, OPT_DECODE},
    {"video", required_argument, NULL, OPT_VIDEO},       {"gif", required_argument, NULL, OPT_GIF},
    {"mcap", required_argument, NULL, OPT_MCAP},
    {"format", required_argument, NULL, OPT_FORMAT},
    {"no-streams", no_argument, NULL, OPT_NO_STREAMS},
};
#define N_OPTIONS (sizeof ALL_OPTIONS / sizeof ALL_OPTIONS[0])

/* Parses a subcommand's options with getopt_long; `allowed` lists its options (" out set ... ")
** and " ARG " when it takes one positional argument (a scene, a stream).
** Returns 0, an exit code, or HELP_SHOWN after printing `help` for --help / -h anywhere. */
static int parse_args(int argc, char **argv, cli *c, const char *allowed, const char *help)
{
    memset(c, 0, sizeof *c);
    for (int i = 2; i < argc; i++)
        if (is_help(argv[i])) {
            fputs(help, stdout);
            return HELP_SHOWN;
        }
    struct option longopts[N_OPTIONS + 1];
    size_t n = 0;
    for (size_t k = 0; k < N_OPTIONS; k++) {
        char key[40];
        snprintf(key, sizeof key, " %s ", ALL_OPTIONS[k].name);
        if (strstr(allowed, key))
            longopts[n++] = ALL_OPTIONS[k];
    }
    longopts[n] = (struct option){0};
    /* argv[1] (the subcommand) stands for the program name; "-" returns positionals in order,
    ** ":" tells a missing value from an unknown option. */
    char **args = argv + 1;
    int nargs = argc - 1, opt;
    optind = 0; /* a full restart of getopt's state */
    opterr = 0;
    while ((opt = getopt_long(nargs, args, "-:", longopts, NULL)) != -1) {
        const char *val = optarg;
        switch (opt) {
        case 1:
            if (c->positional || !strstr(allowed, " ARG ")) {
                char what[600];
                snprintf(what, sizeof what, "%s: unexpected argument '%s'", argv[1], val);
                return fail(EXIT_INPUT, "%s", what);
            }
            c->positional = val;
            break;
        case ':':
            return fail(EXIT_INPUT, "option '%s' needs a value", sn_cli_offending(args));
        case '?':
            return fail(EXIT_INPUT, "unknown option '%s' (see sensim --help)", sn_cli_offending(args));
        case OPT_JSON: c->json = true; break;
        case OPT_DECODE: c->decode = true; break;
        case OPT_QUIET: c->quiet = true; break;
        case OPT_OVERWRITE: c->overwrite = true; break;
        case OPT_ADDITIONAL: c->additional = true; break;
        case OPT_OUT: c->out = val; break;
        case OPT_STATS: c->stats = val; break;
        case OPT_CONVERTER: c->converter = val; break;
        case OPT_VIDEO: c->video = val; break;
        case OPT_GIF: c->gif = val; break;
        case OPT_PLUGIN_DIR: c->plugin_dir = val; break;
        case OPT_RECORD: c->record = val; break;
        case OPT_MCAP: c->mcap = val; break;
        case OPT_FORMAT: c->format = val; break;
        case OPT_NO_STREAMS: /* the scene's settings.streams: false, as a --set would give it */
            val = "settings.streams=false";
            /* fall through */
        case OPT_SET:
            if (c->n_sets == MAX_SETS)
                return fail(EXIT_INPUT, "at most 256 --set options, found more at '%s'", val);
            if (!strchr(val, '=') || val[0] == '=')
                return fail(EXIT_INPUT, "--set needs PATH=VALUE (e.g. settings.seed=4), found '%s'", val);
            c->sets[c->n_sets++] = val;
            break;
        case OPT_FRAMES:
            if (!parse_u64(val, &c->frames) || c->frames == 0)
                return fail(EXIT_INPUT, "--frames needs a whole number > 0, found '%s'", val);
            c->has_frames = true;
            break;
        case OPT_SEED:
            if (!parse_u64(val, &c->seed))
                return fail(EXIT_INPUT, "--seed needs a whole number >= 0, found '%s'", val);
            c->has_seed = true;
            break;
        case OPT_THREADS:
            if (!parse_u64(val, &c->threads) || c->threads > 1024)
                return fail(EXIT_INPUT, "--threads needs a whole number 0..1024, found '%s'", val);
            break;
        default:
            return fail(EXIT_INPUT, "unknown option '%s'", sn_cli_offending(args));
        }
    }
    return 0;
}

/* Limits of run options the scene does not check (docs/scene.md, "Limits and ranges"). */
static int check_run_limits(const cli *c)
{
    if (c->has_frames && c->frames > SN_LIMIT_FRAMES) {
        char n[32];
        snprintf(n, sizeof n, "%llu", (unsigned long long)c->frames);
        return fail(EXIT_INPUT, "run: --frames %s is over the limit of 1000000000 frames (SN_LIMIT_FRAMES)", n);
    }
    return 0;
}


/* The stats' map cache counts: this process's (a run forked by `sensim batch` reused its map). */
static int write_cache_stats(FILE *sf)
{
    uint64_t map_hits, scenery_hits;
    sn_map_cache_stats(NULL, &map_hits, &scenery_hits);
    return fprintf(sf, ",\"map_cache\":{\"map_hits\":%llu,\"scenery_hits\":%llu}", (unsigned long long)map_hits,
                   (unsigned long long)scenery_hits);
}

static int cmd_run(int argc, char **argv)
{
    cli c;
    int rc = parse_args(argc, argv, &c, " ARG out set frames seed threads plugin-dir quiet stats record additional-data mcap overwrite no-streams ", HELP_RUN);
    if (rc)
        return rc == HELP_SHOWN ? 0 : rc;
    if (!c.positional)
        return fail(EXIT_INPUT, "run: no scene file given%s", " (usage: sensim run SCENE --out DIR)");
    if (!c.out)
        return fail(EXIT_INPUT, "run: --out DIR is required%s", "");
    if ((rc = check_run_limits(&c)))
        return rc;
    sn_install_crash_reporter(); /* a crash inside a plugin callback is then reported by name */
    sn_error err = {0};
    sn_engine_options o = {.plugin_dir = c.plugin_dir, .threads = (int)c.threads, .seed_set = c.has_seed,
                           .seed = c.seed, .quiet_plugins = c.quiet};
    sn_engine *e = sn_engine_create(&o, &err);
    if (!e)
        return fail(EXIT_INPUT, "%s", err.msg);
    if (c.has_frames)
        sn_engine_set_frames(e, c.frames);
    if (c.additional && !c.record) {
        sn_engine_destroy(e);
        return fail(EXIT_INPUT, "run: --additional-data goes with --record FILE%s", "");
    }
    if (c.overwrite && !c.mcap) {
        sn_engine_destroy(e);
        return fail(EXIT_INPUT, "run: --overwrite goes with --mcap FILE%s", "");
    }
    sn_record_options ro = {sizeof ro, c.record, c.additional, 0};
    sn_mcap *mcap = NULL;
    if (sn_engine_load_scene_with_overrides(e, c.positional, c.sets, c.n_sets, &err) != SN_OK ||
        (c.record && sn_engine_record(e, &ro, &err) != SN_OK) || !keep_actors(e) ||
        sn_engine_open_outputs(e, c.out, &err) != SN_OK ||
        (c.mcap && !(mcap = sn_cli_mcap_start(e, c.mcap, (int)c.threads, c.overwrite, &err)))) {
        sn_engine_destroy(e);
        return fail(EXIT_INPUT, "%s", err.msg);
    }
    /* the stats file is opened before the run: one that cannot be written is bad input */
    FILE *sf = c.stats ? fopen(c.stats, "w") : NULL;
    if (c.stats && !sf) {
        int e2 = errno;
        sn_engine_destroy(e);
        fprintf(stderr, "sensim: error: run: --stats %s: %s\n", c.stats, strerror(e2));
        return EXIT_INPUT;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    sn_status st = sn_cli_run_frames(e, &err);
    /* the MCAP becomes its path only when the run and the file are whole */
    if (sn_cli_mcap_end(mcap, st == SN_OK)) {
        sn_engine_destroy(e);
        if (sf)
            fclose(sf);
        return EXIT_RUN;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double wall = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    sn_run_stats stats = {.struct_size = sizeof stats};
    sn_engine_stats(e, &stats, NULL); /* cannot fail with an engine and a sized struct */
    int stats_failed = 0;
    if (sf) {
        int w = fprintf(sf, "{\"frames\":%llu,\"sim_time\":%.9g,\"messages\":%llu,\"sensors\":%u,"
                            "\"time_world\":%.6f,\"time_sensors\":%.6f,\"time_output\":%.6f,\"time_serialize\":%.6f,"
                            "\"time_write\":%.6f,\"seed\":%llu,\"scene\":",
                        (unsigned long long)stats.frames, stats.sim_time, (unsigned long long)stats.messages,
                        stats.sensors, stats.time_world, stats.time_sensors, stats.time_output, stats.time_serialize,
                        stats.time_write,
                        (unsigned long long)sn_engine_seed(e));
        sn_json_str(sf, c.positional); /* what `sensim report` shows as the run's scene */
        if (w >= 0 && fputs(",\"traffic_health\":", sf) >= 0 && sn_engine_traffic_health_json(e, sf, NULL) != SN_OK)
            w = -1;
        w = w < 0 ? w : write_cache_stats(sf);
        w = w < 0 ? w : fputs("}\n", sf);
        bool closed = fclose(sf) == 0;
        stats_failed = (!closed || w < 0) ? (errno ? errno : EIO) : 0;
    }
    if (st != SN_OK) {
        const int sig = sn_cli_interrupted();
        if (!sig)
            fprintf(stderr, "sensim: error: %s\n", err.msg);
        fprintf(stderr, "sensim: %s at frame %llu; %s%s left as it was\n",
                sig == SIGINT ? "interrupted (SIGINT)" : sig ? "interrupted (SIGTERM)" : "stopped",
                (unsigned long long)stats.frames, partial_note(sn_engine_partial_dir(e)), c.out);
        sn_engine_destroy(e);
        if (sig) { /* die of it, as a shell and a batch expect (128 + the signal) */
            signal(sig, SIG_DFL);
            raise(sig);
        }
        return EXIT_RUN;
    }
    if (stats_failed) {
        sn_engine_destroy(e);
        fprintf(stderr, "sensim: error: run: --stats %s: cannot write: %s\n", c.stats, strerror(stats_failed));
        return EXIT_RUN;
    }
    if (!c.quiet)
        printf("sensim: %llu frames (%.3f s simulated) in %.3f s (world %.3f s, sensors %.3f s, output %.3f s), "
               "%llu messages from %u sensor%s in %s\n",
               (unsigned long long)stats.frames, stats.sim_time, wall, stats.time_world, stats.time_sensors,
               stats.time_output, (unsigned long long)stats.messages, stats.sensors, stats.sensors == 1 ? "" : "s",
               c.out);
    sn_engine_destroy(e);
    return 0;
}

static void json_str(const char *s) { sn_json_str(stdout, s); }

static const char *kind_name(sn_actor_kind k)
{
    return k == SN_ACTOR_STATIC ? "static" : k == SN_ACTOR_VEHICLE ? "vehicle" : k == SN_ACTOR_WALKER ? "walker" : "sensor";
}

static void print_list_json(const char *const *l)
{
    putchar('[');
    for (int i = 0; l && l[i]; i++) {
        if (i)
            putchar(',');
        json_str(l[i]);
    }
    putchar(']');
}

static const char *rec_type_name(sn_rec_type t)
{
    static const char *const names[] = {"?", "u8", "i8", "u16", "i16", "u32", "i32", "u64", "i64", "f32", "f64"};
    return (unsigned)t < sizeof names / sizeof *names ? names[t] : "?";
}

static const sn_rec_layout *record_at(const sn_blueprint_info *b, uint32_t i)
{
    return (const sn_rec_layout *)(const void *)((const char *)b->records + (size_t)i * b->rec_layout_size);
}

static const sn_rec_field *field_at(const sn_rec_layout *l, uint32_t j)
{
    return (const sn_rec_field *)(const void *)((const char *)l->fields + (size_t)j * l->field_size);
}

/* ,"records":[{key, name, size, doc, fields: [{name, type, offset, unit}]}] (SDK 1.6) */
static void print_records_json(const sn_blueprint_info *b)
{
    printf(",\"records\":[");
    for (uint32_t i = 0; i < b->n_records; i++) {
        const sn_rec_layout *l = record_at(b, i);
        printf("%s{\"key\":", i ? "," : "");
        json_str(l->key);
        printf(",\"name\":");
        json_str(l->name);
        printf(",\"size\":%u,\"doc\":", l->size);
        json_str(l->doc ? l->doc : "");
        printf(",\"fields\":[");
        for (uint32_t j = 0; j < l->n_fields; j++) {
            const sn_rec_field *f = field_at(l, j);
            printf("%s{\"name\":", j ? "," : "");
            json_str(f->name);
            printf(",\"type\":\"%s\",\"offset\":%u,\"unit\":", rec_type_name(f->type), f->offset);
            if (f->unit)
                json_str(f->unit);
            else
                printf("null");
            putchar('}');
        }
        printf("]}");
    }
    putchar(']');
}

static void print_records_text(const sn_blueprint_info *b)
{
    for (uint32_t i = 0; i < b->n_records; i++) {
        const sn_rec_layout *l = record_at(b, i);
        printf("    records in '%s': %s, %u bytes:", l->key, l->name, l->size);
        for (uint32_t j = 0; j < l->n_fields; j++) {
            const sn_rec_field *f = field_at(l, j);
            printf(" %s %s@%u%s%s", f->name, rec_type_name(f->type), f->offset, f->unit ? " " : "", f->unit ? f->unit : "");
        }
        putchar('\n');
    }
}

static int cmd_blueprints(int argc, char **argv)
{
    cli c;
    int rc = parse_args(argc, argv, &c, " json plugin-dir ", HELP_BLUEPRINTS);
    if (rc)
        return rc == HELP_SHOWN ? 0 : rc;
    sn_install_crash_reporter(); /* a plugin crashing in its entry is refused by name */
    sn_error err = {0};
    sn_blueprints *lib = sn_blueprints_open(&(sn_engine_options){.plugin_dir = c.plugin_dir}, &err);
    if (!lib)
        return fail(EXIT_INPUT, "%s", err.msg);
    if (c.json)
        putchar('[');
    for (size_t i = 0; i < sn_blueprints_count(lib); i++) {
        sn_blueprint_info b = {.struct_size = sizeof b};
        if (sn_blueprints_get(lib, i, &b, &err) != SN_OK) {
            sn_blueprints_close(lib);
            return fail(EXIT_INPUT, "%s", err.msg);
        }
        if (c.json) {
            printf("%s{\"id\":", i ? "," : "");
            json_str(b.id);
            printf(",\"kind\":\"%s\",\"doc\":", kind_name(b.kind));
            json_str(b.doc);
            printf(",\"plugin\":");
            if (b.plugin)
                json_str(b.plugin);
            else
                printf("null");
            printf(",\"attributes\":[");
        } else {
            printf("%s  (%s%s%s)\n    %s\n", b.id, kind_name(b.kind), b.plugin ? ", " : "", b.plugin ? b.plugin : "",
                   b.doc);
        }
        for (uint32_t k = 0; k < b.n_attrs; k++) {
            const sn_attr_def *d = b.attrs[k];
            if (c.json) {
                printf("%s{\"name\":", k ? "," : "");
                json_str(d->name);
                printf(",\"type\":\"%s\",\"default\":", sn_attr_type_name(d->type));
                json_str(d->def);
                printf(",\"recommended\":");
                print_list_json(d->recommended);
                if (d->type == SN_ATTR_ENUM) {
                    printf(",\"choices\":");
                    print_list_json(d->choices);
                }
                if (d->has_range)
                    printf(",\"range\":[%.17g,%.17g]", d->min, d->max);
                printf(",\"unit\":");
                if (d->unit)
                    json_str(d->unit);
                else
                    printf("null");
                printf(",\"doc\":");
                json_str(d->doc ? d->doc : "");
                putchar('}');
            } else {
                printf("    %-22s %-6s default %-14s", d->name, sn_attr_type_name(d->type), d->def[0] ? d->def : "\"\"");
                if (d->has_range)
                    printf(" range [%g, %g]", d->min, d->max);
                if (d->unit)
                    printf(" %s", d->unit);
                if (d->type == SN_ATTR_ENUM)
                    for (int j = 0; d->choices[j]; j++)
                        printf("%s%s", j ? "|" : " one of ", d->choices[j]);
                if (d->recommended)
                    for (int j = 0; d->recommended[j]; j++)
                        printf("%s%s", j ? ", " : " recommended: ", d->recommended[j]);
                printf("\n      %s\n", d->doc ? d->doc : "");
            }
        }
        if (b.kind == SN_ACTOR_SENSOR) {
            if (c.json)
                printf("%s{\"name\":\"role_name\",\"type\":\"string\",\"default\":\"\",\"recommended\":[],\"unit\":null,"
                       "\"doc\":\"CARLA role name (handled by the host)\"}",
                       b.n_attrs ? "," : "");
            else
                printf("    %-22s %-6s default %-14s\n      CARLA role name (handled by the host)\n", "role_name", "string", "\"\"");
        }
        if (c.json) {
            printf("]");
            print_records_json(&b);
            printf("}");
        } else {
            print_records_text(&b);
        }
    }
    if (c.json)
        printf("]\n");
    sn_blueprints_close(lib);
    return 0;
}

static int cmd_plugins(int argc, char **argv)
{
    cli c;
    int rc = parse_args(argc, argv, &c, " json plugin-dir ", HELP_PLUGINS);
    if (rc)
        return rc == HELP_SHOWN ? 0 : rc;
    sn_install_crash_reporter(); /* a plugin crashing in its entry is refused by name */
    sn_error err = {0};
    /* quiet: the refusals are this command's output, not warnings */
    sn_blueprints *lib = sn_blueprints_open(&(sn_engine_options){.plugin_dir = c.plugin_dir, .quiet_plugins = true},
                                            &err);
    if (!lib)
        return fail(EXIT_INPUT, "%s", err.msg);
    if (c.json)
        putchar('[');
    size_t n = sn_blueprints_plugin_count(lib);
    for (size_t i = 0; i < n; i++) {
        sn_plugin_info p = {.struct_size = sizeof p};
        if (sn_blueprints_plugin(lib, i, &p, &err) != SN_OK) {
            sn_blueprints_close(lib);
            return fail(EXIT_INPUT, "%s", err.msg);
        }
        if (c.json) {
            printf("%s{\"path\":", i ? "," : "");
            json_str(p.path);
            printf(",\"loaded\":%s,\"name\":", p.loaded ? "true" : "false");
            json_str(p.name);
            printf(",\"version\":");
            json_str(p.version);
            printf(",\"abi\":\"%u.%u\",\"blueprints\":", p.abi_major, p.abi_minor);
            print_list_json(p.blueprints);
            printf(",\"reason\":");
            if (p.reason)
                json_str(p.reason);
            else
                printf("null");
            putchar('}');
        } else {
            printf("%s\n  %s", p.path, p.reason ? "REFUSED: " : "loaded");
            if (p.reason)
                printf("%s\n", p.reason);
            else {
                printf(" %s %s, ABI %u.%u:", p.name, p.version, p.abi_major, p.abi_minor);
                for (uint32_t k = 0; k < p.n_blueprints; k++)
                    printf(" %s", p.blueprints[k]);
                putchar('\n');
            }
        }
    }
    if (c.json)
        printf("]\n");
    else if (!n)
        printf("no plugin files found (search: --plugin-dir, SENSIM_PLUGIN_PATH, %s)\n",
               sn_default_plugin_dir() ? sn_default_plugin_dir() : "the engine's plugin folder");
    if (!c.json) {
        /* where the files above were looked for (an unknown blueprint's error says it too) */
        size_t n_dirs = sn_blueprints_search_count(lib);
        printf("searched:%s", n_dirs ? "" : " no folder (none given and none beside libsensim or the program)");
        for (size_t i = 0; i < n_dirs; i++)
            printf("%s %s", i ? "," : "", sn_blueprints_search_dir(lib, i));
        putchar('\n');
    }
    sn_blueprints_close(lib);
    return 0;
}

static int cmd_dump(int argc, char **argv)
{
    cli c;
    int rc = parse_args(argc, argv, &c, " ARG json decode plugin-dir ", HELP_DUMP);
    if (rc)
        return rc == HELP_SHOWN ? 0 : rc;
    if (!c.positional)
        return fail(EXIT_INPUT, "dump: no stream file given%s", "");
    sn_error err = {0};
    /* --decode: the record layouts plugins on the search path declare too (SDK 1.6) */
    sn_blueprints *lib = c.decode ? sn_blueprints_open(&(sn_engine_options){.plugin_dir = c.plugin_dir,
                                                                             .quiet_plugins = true}, &err)
                                  : NULL;
    sn_status st = sn_stream_dump_with(c.positional, stdout, (c.json ? SN_DUMP_BASE64 : 0) |
                                       (c.decode ? SN_DUMP_DECODE : 0), lib, &err);
    sn_blueprints_close(lib);
    if (st != SN_OK) {
        fflush(stdout);
        return fail(EXIT_INPUT, "%s", err.msg);
    }
    return 0;
}

/* sensim convert STREAM --converter C --out DIR: every image of a camera stream as DIR/%06d.png */
/* The views' commands run from a module loaded on demand (views_module.h). */
static int convert_video(const char *stream, const char *mp4, const char *gif, sn_color_converter conv,
                         bool overwrite)
{
    const sn_views_api *v = sn_views_load("convert");
    return v ? v->convert_video(stream, mp4, gif, conv, overwrite) : 1;
}

static int cmd_report(int argc, char **argv)
{
    const sn_views_api *v = sn_views_load("report");
    return v ? v->report(argc, argv) : 1;
}

static int cmd_convert(int argc, char **argv)
{
    cli c;
    int rc = parse_args(argc, argv, &c, " ARG converter out video gif format overwrite ", HELP_CONVERT);
    if (rc)
        return rc == HELP_SHOWN ? 0 : rc;
    if (!c.positional || (!c.out && !c.video && !c.gif))
        return fail(EXIT_INPUT, "convert: usage: sensim convert STREAM --out DIR | --video OUT.mp4 | --gif OUT.gif "
                    "[--converter %s]", "raw|depth|logarithmic_depth|cityscapes");
    sn_color_converter conv = SN_COLOR_RAW;
    if (c.converter && !sn_color_converter_parse(c.converter, &conv))
        return fail(EXIT_INPUT, "convert: unknown converter '%s' (raw, depth, logarithmic_depth or cityscapes)",
                    c.converter);
    if ((c.video || c.gif) && c.format)
        return fail(EXIT_INPUT, "convert: --format is for the files of --out DIR, not --video or --gif%s", "");
    if (c.video || c.gif)
        return c.out ? fail(EXIT_INPUT, "convert: --out DIR (PNG files) goes alone, without --video or --gif%s", "")
                     : convert_video(c.positional, c.video, c.gif, conv, c.overwrite);
    if (c.overwrite) /* PNG files in a folder are the stream's pictures, written as `save:` does */
        return fail(EXIT_INPUT, "convert: --overwrite goes with --video or --gif%s", "");
    if (mkdir(c.out, 0777) != 0 && errno != EEXIST)
        return fail(EXIT_INPUT, "convert: cannot create %s", c.out);
    sn_error err = {0};
    size_t n = 0;
    if (sn_stream_save_images_as(c.positional, c.out, conv, c.format, &n, &err) != SN_OK)
        return fail(EXIT_INPUT, "%s", err.msg);
    printf("sensim: %zu images written to %s\n", n, c.out);
    return 0;
}

/* sensim new-sensor NAME [DIR]: a plugin folder that builds and loads as generated. */
static int cmd_new_sensor(int argc, char **argv)
{
    for (int i = 2; i < argc; i++)
        if (is_help(argv[i])) {
            fputs(HELP_NEW_SENSOR, stdout);
            return 0;
        }
    static const struct option none[] = {{0}};
    const char *pos[2] = {NULL, NULL};
    int n_pos = 0, opt;
    optind = 0;
    opterr = 0;
    while ((opt = getopt_long(argc - 1, argv + 1, "-:", none, NULL)) != -1) {
        if (opt != 1 || n_pos == 2)
            return fail(EXIT_INPUT, "new-sensor: usage: sensim new-sensor NAME [DIR]%s", "");
        pos[n_pos++] = optarg;
    }
    if (n_pos == 0)
        return fail(EXIT_INPUT, "new-sensor: usage: sensim new-sensor NAME [DIR]%s", "");
    sn_error err = {0};
    char dir[4096];
    if (sn_scaffold_sensor(pos[0], pos[1], dir, sizeof dir, &err) != SN_OK)
        return fail(EXIT_INPUT, "%s", err.msg);
    /* The two command lines are run verbatim by tests/integration/scaffold.sh. */
    printf("sensim: wrote %s/ (sensor, unit test, meson.build, scene.yaml, README.md)\n"
           "  build and test:  cd %s && meson setup build && meson test -C build\n"
           "  run its scene:   SENSIM_PLUGIN_PATH=build sensim run scene.yaml --out out\n",
           dir, dir);
    const char *guide = sn_sdk_doc_dir();
    if (guide)
        printf("  the SDK guide:   %s/README.md\n", guide);
    return 0;
}

typedef struct command {
    const char *name;
    int (*fn)(int argc, char **argv);
} command;

static const command COMMANDS[] = {
    {"run", cmd_run},           {"batch", sn_cli_batch},       {"blueprints", cmd_blueprints},
    {"plugins", cmd_plugins},   {"dump", cmd_dump},            {"recorder", sn_cmd_recorder},
    {"replay", sn_cmd_replay},  {"convert", cmd_convert},      {"new-sensor", cmd_new_sensor},
    {"map", sn_cmd_map},        {"report", cmd_report},   {"export", sn_cmd_export},
};

static const command *find_command(const char *name)
{
    for (size_t i = 0; i < sizeof COMMANDS / sizeof COMMANDS[0]; i++)
        if (strcmp(COMMANDS[i].name, name) == 0)
            return &COMMANDS[i];
    return NULL;
}

/* Whatever a command printed must have reached stdout: a full device or a closed pipe (with
** SIGPIPE ignored) is a failure, exit 1 with one line, as `sensim dump` reports it. A command
** that already failed has said why. */
static int finish(int rc)
{
    /* A write that failed mid-output left only the error flag, and glibc may have dropped the
    ** buffer with it: once cleared, one more byte (the output is incomplete anyway) fails again
    ** with errno saying why — a full device, a closed pipe. */
    bool failed_before = ferror(stdout);
    clearerr(stdout);
    errno = 0;
    int flushed = fflush(stdout);
    if (failed_before && flushed == 0 && rc == 0) {
        putchar('\n');
        flushed = fflush(stdout);
    }
    if ((flushed != 0 || failed_before) && rc == 0) {
        fprintf(stderr, "sensim: error: writing to standard output: %s\n", errno ? strerror(errno) : "write error");
        return EXIT_FAILURE;
    }
    return rc;
}

/* `sensim run` as a run of `sensim batch` forked from the batch plays it (batch_exec.c). */
int sn_cli_run_main(int argc, char **argv) { return finish(cmd_run(argc, argv)); }

static int dispatch(int argc, char **argv);

int main(int argc, char **argv) { return finish(dispatch(argc, argv)); }

static int dispatch(int argc, char **argv)
{
    if (argc < 2)
        return usage();
    const char *cmd = argv[1];
    const command *c = find_command(cmd);
    if (c)
        return c->fn(argc, argv);
    if (strcmp(cmd, "help") == 0) {
        /* `sensim help CMD` is `sensim CMD --help` */
        if (argc == 2) {
            fputs(USAGE, stdout);
            return 0;
        }
        const command *h = find_command(argv[2]);
        if (!h || argc > 3) {
            fprintf(stderr, "sensim: error: help: %s '%s'\n", h ? "unexpected argument" : "unknown command",
                    argv[h ? 3 : 2]);
            return usage();
        }
        static char help_flag[] = "--help";
        char *help_argv[] = {argv[0], argv[2], help_flag, NULL};
        return h->fn(3, help_argv);
    }
    if (strcmp(cmd, "--version") == 0 && argc > 2)
        return fail(EXIT_INPUT, "--version: unexpected argument '%s'", argv[2]);
    if (strcmp(cmd, "--version") == 0) {
        uint32_t major, minor;
        sn_abi_version(&major, &minor);
        printf("sensim %s (plugin ABI %u.%u)\n", sn_version(), major, minor);
        return 0;
    }
    if (is_help(cmd)) {
        fputs(USAGE, stdout);
        return 0;
    }
    fprintf(stderr, "sensim: error: unknown command '%s'\n", cmd);
    return usage();
}
