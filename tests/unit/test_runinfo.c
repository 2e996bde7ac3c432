/* test_runinfo: the run folder's note (engine/output/runinfo.c, docs/cli.md "The run's note").
**  - sn_path_relative: a sibling, a child, the same folder, and only "/" in common (absolute);
**  - sn_runinfo_write then sn_run_map_path: the map found again from the folder, through a name
**    with a quote, a backslash and a control character (JSON escapes), absolute or relative;
**  - no run.json, or one without a map: SN_E_NOT_FOUND. */
#include "../../engine/output/runinfo.h"

#include <sensim/map.h>

#include "../check.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static void rel_is(const char *from, const char *to, const char *want)
{
    char out[PATH_MAX];
    bool ok = sn_path_relative(from, to, out, sizeof out);
    CHECK(ok && strcmp(out, want) == 0, "%s from %s: '%s', want '%s'", to, from, ok ? out : "(failed)", want);
}

int main(int argc, char **argv)
{
    /* paths that do not exist are taken as written */
    rel_is("/nonexistent-sn/runs/a", "/nonexistent-sn/maps/town.xodr", "../../maps/town.xodr");
    rel_is("/nonexistent-sn/runs/a", "/nonexistent-sn/runs/a/x.xodr", "x.xodr");
    rel_is("/nonexistent-sn/runs/a", "/nonexistent-sn/runs/ab.xodr", "../ab.xodr");
    rel_is("/nonexistent-sn/runs", "/nonexistent-sn/runs", ".");
    rel_is("/nonexistent-a/runs", "/nonexistent-b/town.xodr", "/nonexistent-b/town.xodr");
    char tiny[4];
    CHECK(!sn_path_relative("/nonexistent-sn/a", "/nonexistent-sn/b/long.xodr", tiny, sizeof tiny), "too long refused");

    char base[1024];
    snprintf(base, sizeof base, "%.1000s/runinfo", argc > 1 ? argv[1] : "/tmp");
    char cmd[3 * PATH_MAX];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
    if (system(cmd) != 0)
        return 1;
    char run[1100], maps[1100], map[1200], got[PATH_MAX + 64];
    snprintf(run, sizeof run, "%s/runs/a", base);
    snprintf(maps, sizeof maps, "%s/maps", base);
    snprintf(cmd, sizeof cmd, "mkdir -p '%s' '%s'", run, maps);
    if (system(cmd) != 0)
        return 1;
    sn_error err = {0};
    CHECK(sn_run_map_path(run, got, sizeof got, &err) == SN_E_NOT_FOUND, "no run.json: not found");
    snprintf(map, sizeof map, "%s/to\"wn\\1\t.xodr", maps);
    FILE *f = fopen(map, "w");
    if (f)
        fclose(f);
    CHECK(sn_runinfo_write(run, run, NULL, map, 7, NULL, &err) == SN_OK, "write: %s", err.msg);
    CHECK(sn_run_map_path(run, got, sizeof got, &err) == SN_OK, "read: %s", err.msg);
    char want[2400], real_got[PATH_MAX], real_want[PATH_MAX];
    snprintf(want, sizeof want, "%s/../../maps/to\"wn\\1\t.xodr", run);
    CHECK(strcmp(got, want) == 0, "the map read back is '%s', want '%s'", got, want);
    CHECK(realpath(got, real_got) && realpath(map, real_want) && strcmp(real_got, real_want) == 0, "it is the map file");
    /* a run without a map */
    snprintf(cmd, sizeof cmd, "%s/run.json", run);
    remove(cmd);
    CHECK(sn_runinfo_write(run, run, NULL, NULL, 7, NULL, &err) == SN_OK, "write without a map");
    CHECK(sn_run_map_path(run, got, sizeof got, &err) == SN_E_NOT_FOUND && got[0] == 0, "no map named: not found");
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
    (void)!system(cmd);
    return CHECK_DONE();
}
