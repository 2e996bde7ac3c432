/* export_cmd.c — `sensim export mcap RUN_DIR --out FILE`: a run's output folder as an MCAP file
** for Foxglove, and the two steps `sensim run --mcap FILE` adds to a run. Public API only
** (sensim/mcap.h). */
#include "export_cmd.h"
#include "cli_input.h"
#include <sensim/numtext.h>

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char HELP[] =
    "usage: sensim export mcap RUN_DIR --out FILE [--overwrite] [--map XODR] [--depth-converter C] [--raw-images]\n"
    "                          [--zstd-level N] [--chunk-size BYTES] [--threads N]\n"
    "Writes a run's output folder (its DIR/<sensor>.msgpack streams) as one MCAP file for Foxglove:\n"
    "cameras as PNG images, lidar and radar as point clouds, GNSS as location fixes, other sensors as\n"
    "JSON, the actors stream (sensor.other.actors; sensim run --mcap adds one) as 3-D boxes and the\n"
    "transform tree. docs/mcap.md has the topics and axes.\n"
    "  --out FILE             the MCAP file (written whole or not at all); required\n"
    "  --overwrite            replace an existing FILE (else refused; a failure leaves it as it was)\n"
    "  --map XODR             the OpenDRIVE map the run drove on: its lanes as lines on /map (default:\n"
    "                         the map RUN_DIR/run.json names, which every run writes)\n"
    "  --depth-converter C    depth cameras: logarithmic_depth (default), depth or raw\n"
    "  --raw-images           cameras as foxglove.RawImage (rgb8) instead of PNG\n"
    "  --zstd-level N         chunk compression level 1..19 (default 1); 0 stores chunks uncompressed\n"
    "  --chunk-size BYTES     close a chunk at this size (default 4194304; smaller seeks finer)\n"
    "  --threads N            threads making images (default: one per core; the file is the same)\n";

/* The output's folder exists and may be written (the file itself is checked at create). */
static bool output_ok(const char *out, const char **why)
{
    char dir[4096];
    const char *slash = strrchr(out, '/');
    if (!*out)
        return *why = "an empty path", false;
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else
        snprintf(dir, sizeof dir, "%.*s", slash == out ? 1 : (int)(slash - out), out);
    struct stat st;
    if (stat(dir, &st) != 0)
        return *why = strerror(errno), false;
    if (!S_ISDIR(st.st_mode))
        return *why = "its folder is not a folder", false;
    if (access(dir, W_OK | X_OK) != 0)
        return *why = strerror(errno), false;
    if (stat(out, &st) == 0 && S_ISDIR(st.st_mode))
        return *why = "it is a folder", false;
    return true;
}

int sn_cmd_export(int argc, char **argv)
{
    for (int i = 2; i < argc; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(HELP, stdout);
            return 0;
        }
    enum { O_OUT = 1000, O_MAP, O_DEPTH, O_RAW, O_LEVEL, O_CHUNK, O_THREADS, O_OVERWRITE };
    static const struct option opts[] = {{"out", required_argument, NULL, O_OUT},
                                         {"map", required_argument, NULL, O_MAP},
                                         {"depth-converter", required_argument, NULL, O_DEPTH},
                                         {"raw-images", no_argument, NULL, O_RAW},
                                         {"zstd-level", required_argument, NULL, O_LEVEL},
                                         {"chunk-size", required_argument, NULL, O_CHUNK},
                                         {"threads", required_argument, NULL, O_THREADS},
                                         {"overwrite", no_argument, NULL, O_OVERWRITE},
                                         {0}};
    const char *pos[2] = {0}, *out = NULL, *map = NULL;
    int n_pos = 0, opt;
    sn_mcap_options o = {.struct_size = sizeof o};
    optind = 0;
    opterr = 0;
    while ((opt = getopt_long(argc - 1, argv + 1, "-:", opts, NULL)) != -1) {
        switch (opt) {
        case 1:
            if (n_pos == 2) {
                fprintf(stderr, "sensim: error: export: unexpected argument '%s'\n", optarg);
                return 2;
            }
            pos[n_pos++] = optarg;
            break;
        case O_OUT: out = optarg; break;
        case O_MAP: map = optarg; break;
        case O_DEPTH: o.depth_converter = optarg; break;
        case O_RAW: o.raw_images = true; break;
        case O_OVERWRITE: o.overwrite = true; break;
        case O_LEVEL:
        case O_CHUNK:
        case O_THREADS: {
            long long v = -1;
            long lo = opt == O_LEVEL ? 0 : opt == O_CHUNK ? 1024 : 1, hi = opt == O_LEVEL ? 19 : opt == O_CHUNK ? 1L << 30 : 64;
            if (!sn_text_int(optarg, &v) || v < lo || v > hi) { /* numtext.h */
                fprintf(stderr, "sensim: error: export: --%s needs %ld..%ld, found '%s'\n",
                        opt == O_LEVEL ? "zstd-level" : opt == O_CHUNK ? "chunk-size" : "threads", lo, hi, optarg);
                return 2;
            }
            if (opt == O_LEVEL)
                o.zstd_level = v ? (int)v : -1; /* 0: stored, the API's -1 */
            else if (opt == O_CHUNK)
                o.chunk_bytes = (uint32_t)v;
            else
                o.threads = (int)v;
            break;
        }
        case ':':
            fprintf(stderr, "sensim: error: export: option '%s' needs a value\n", argv[optind]);
            return 2;
        default:
            fprintf(stderr, "sensim: error: export: unknown option '%s' (see sensim export --help)\n", argv[optind]);
            return 2;
        }
    }
    if (n_pos != 2 || strcmp(pos[0], "mcap") != 0 || !out) {
        fprintf(stderr, "sensim: error: export: usage: sensim export mcap RUN_DIR --out FILE (see --help)\n");
        return 2;
    }
    sn_error err = {0};
    /* an output that cannot be made is a bad argument (exit 2), as in report and convert,
    ** found before any work (issue 33 item 22), the run's map included: an existing FILE was
    ** refused only after the map had loaded, behind its warning when run.json was damaged
    ** (fuzz71); sn_mcap_create checks it again, for a name taken meanwhile */
    const char *why = NULL;
    struct stat ost;
    if (!output_ok(out, &why)) {
        fprintf(stderr, "sensim: error: export: cannot write %s: %s\n", out, why);
        return 2;
    }
    if (!o.overwrite && lstat(out, &ost) == 0) {
        fprintf(stderr, "sensim: error: export: mcap: %s exists; sensim does not replace it without --overwrite\n", out);
        return 2;
    }
    char run_map[4096];
    /* the run's noted map loaded once, here, where a map that does not load is a warning, and
    ** handed to the export (it was loaded a second time there: 9 % of the export's CPU) */
    sn_map *noted = NULL;
    if (!map && (noted = sn_cli_run_map_open("export", pos[1], run_map, sizeof run_map)))
        map = run_map;
    sn_status st = noted ? sn_mcap_export_map(pos[1], out, noted, &o, &err) : sn_mcap_export(pos[1], out, map, &o, &err);
    sn_map_close(noted);
    if (st != SN_OK) {
        fprintf(stderr, "sensim: error: %s\n", err.msg);
        return err.status == SN_E_IO || err.status == SN_E_NOMEM ? 1 : 2;
    }
    printf("sensim: %s written from %s%s%s\n", out, pos[1], map ? " with the map " : "", map ? map : "");
    return 0;
}

/* Adds a sensor.other.actors named "actors" to a loaded scene that has none live. */
sn_status sn_cli_add_actors(sn_engine *e, sn_error *err)
{
    for (uint32_t i = 0; i < sn_engine_actor_count(e); i++) {
        sn_actor_info a = {.struct_size = sizeof a};
        if (sn_engine_actor_get(e, sn_engine_actor_id_at(e, i), &a) == SN_OK && strcmp(a.type_id, "sensor.other.actors") == 0)
            return SN_OK;
    }
    sn_actor_desc d = {sizeof d, "sensor.other.actors", "actors", {{0, 0, 0}, {0, 0, 0}}, 0, 0, NULL, 0};
    sn_status st = sn_engine_spawn(e, &d, NULL, err);
    if (st) {
        char m[sizeof err->msg];
        memcpy(m, err->msg, sizeof m);
        snprintf(err->msg, sizeof err->msg, "--mcap: cannot add the actors stream: %.900s", m);
    }
    return st;
}

sn_mcap *sn_cli_mcap_start(sn_engine *e, const char *path, int threads, bool overwrite, sn_error *err)
{
    if (sn_cli_add_actors(e, err) != SN_OK)
        return NULL;
    sn_mcap_options o = {.struct_size = sizeof o, .threads = threads, .overwrite = overwrite};
    sn_mcap *m = sn_mcap_create(path, &o, err);
    sn_blueprints *lib = m ? sn_engine_blueprints(e, err) : NULL; /* the layouts its sensors declare */
    sn_status lst = lib ? sn_mcap_add_layouts(m, lib, err) : SN_OK;
    sn_blueprints_close(lib);
    if (m && (lst != SN_OK || sn_mcap_add_map(m, sn_engine_map(e), err) != SN_OK ||
              sn_engine_listen_all(e, sn_mcap_listen, m, err) != SN_OK)) {
        char part[4200];
        snprintf(part, sizeof part, "%s", sn_mcap_partial_path(m));
        sn_mcap_close(m, false, NULL);
        unlink(part); /* nothing of the run in it yet */
        return NULL;
    }
    return m;
}

int sn_cli_mcap_end(sn_mcap *m, bool run_ok)
{
    if (!m)
        return 0;
    if (!run_ok)
        fprintf(stderr, "sensim: partial MCAP in %s\n", sn_mcap_partial_path(m));
    sn_error err = {0};
    if (sn_mcap_close(m, run_ok, &err) != SN_OK && run_ok) {
        fprintf(stderr, "sensim: error: %s\n", err.msg);
        return 1;
    }
    return 0;
}
