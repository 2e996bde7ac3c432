/* report_cmd.c — `sensim report RUN_DIR --out REPORT.html`: one self-contained page of a run. */
#include "report_cmd.h"
#include "outfile.h"
#include "report_html.h"
#include "run_data.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char HELP_REPORT[] =
    "usage: sensim report RUN_DIR --out REPORT.html [--map FILE.xodr] [--overwrite]\n"
    "Writes one self-contained HTML page of a run's output folder (no server, nothing fetched):\n"
    "its summary (scene, seed, frames, timers from RUN_DIR/stats.json), the paths of every actor\n"
    "seen from above with collisions marked (from a recording in RUN_DIR, else each sensor's\n"
    "mount from its stream) over the driving lanes of the run's map (RUN_DIR/run.json names it;\n"
    "--map FILE.xodr overrides),\n"
    "messages per sensor over time, and a thumbnail strip per camera.\n"
    "For all of it: sensim run SCENE --out RUN --stats RUN/stats.json --record RUN/run.sensimrec\n"
    "An existing REPORT.html is refused unless --overwrite is given; either way a failure leaves\n"
    "it as it was (docs/cli.md).\n";

static int fail(int code, const char *msg)
{
    fprintf(stderr, "sensim: error: report: %s\n", msg);
    return code;
}

int sn_cmd_report(int argc, char **argv)
{
    for (int i = 2; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(HELP_REPORT, stdout);
            return 0;
        }
    static const struct option opts[] = {{"out", required_argument, NULL, 'o'}, {"map", required_argument, NULL, 'm'},
                                         {"overwrite", no_argument, NULL, 'w'}, {0}};
    const char *dir = NULL, *out = NULL, *map = NULL;
    bool overwrite = false;
    int opt;
    optind = 0;
    opterr = 0;
    while ((opt = getopt_long(argc - 1, argv + 1, "-:", opts, NULL)) != -1) {
        if (opt == 1 && !dir)
            dir = optarg;
        else if (opt == 'o')
            out = optarg;
        else if (opt == 'm')
            map = optarg;
        else if (opt == 'w')
            overwrite = true;
        else
            return fail(2, "usage: sensim report RUN_DIR --out REPORT.html [--map FILE.xodr] [--overwrite]");
    }
    if (!dir || !out)
        return fail(2, "usage: sensim report RUN_DIR --out REPORT.html [--map FILE.xodr] [--overwrite]");
    sn_error err = {0};
    sn_outfile of;
    if (sn_outfile_open(&of, out, overwrite, &err) != SN_OK)
        return fail(2, err.msg);
    run_data d;
    if (sn_run_data_read(dir, &d, &err) != SN_OK || sn_run_data_map(&d, map, &err) != SN_OK) {
        sn_outfile_drop(&of);
        sn_run_data_free(&d);
        return fail(2, err.msg);
    }
    FILE *f = fdopen(of.fd, "w");
    if (!f) {
        sn_outfile_drop(&of);
        sn_run_data_free(&d);
        return fail(1, strerror(errno));
    }
    of.fd = -1; /* the FILE owns it now */
    sn_report_html(f, &d);
    bool ok = !ferror(f);
    int e = errno;
    ok = (fclose(f) == 0) && ok;
    size_t n_streams = d.n_streams, n_paths = d.n_paths;
    sn_run_data_free(&d);
    if (!ok) {
        sn_outfile_drop(&of);
        char m[4300];
        snprintf(m, sizeof m, "%s: cannot write: %s", out, strerror(e ? e : EIO));
        return fail(1, m);
    }
    if (sn_outfile_commit(&of, &err) != SN_OK)
        return fail(err.status == SN_E_INVALID ? 2 : 1, err.msg);
    printf("sensim: report of %zu streams and %zu paths written to %s\n", n_streams, n_paths, out);
    return 0;
}
