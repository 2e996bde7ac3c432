/* run_map.c — the driving lanes of a run's map for the report (run_data.h, sn_run_data_map),
** through the public map API: CARLA's generate_waypoints every 2 m, strung into one line per
** lane section in the order of s. */
#include "cli_input.h"
#include "outfile.h"
#include "run_data.h"

#include <sensim/map.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STEP 2.0 /* metres between waypoints */

/* The `map:` value of a scene file (a top-level line "map: PATH"), made relative to the
** scene's folder; false when there is none or the file cannot be read. */
static bool scene_map(const char *scene, char *out, size_t cap)
{
    FILE *f = sn_cli_open_input(scene, NULL); /* a FIFO would block */
    if (!f)
        return false;
    char line[4096];
    bool found = false;
    while (!found && fgets(line, sizeof line, f)) {
        if (strncmp(line, "map:", 4) != 0)
            continue;
        char *v = line + 4, *e;
        while (*v == ' ' || *v == '\t')
            v++;
        if (*v == '"' || *v == '\'') { /* a quoted value ends at its quote */
            char q = *v++;
            e = strchr(v, q);
        } else {
            e = v + strcspn(v, " \t#\r\n");
        }
        if (!e || e == v)
            break;
        *e = 0;
        const char *slash = strrchr(scene, '/');
        if (v[0] == '/' || !slash)
            snprintf(out, cap, "%s", v);
        else
            snprintf(out, cap, "%.*s/%s", (int)(slash - scene), scene, v);
        found = true;
    }
    fclose(f);
    return found;
}

static int by_lane(const void *pa, const void *pb)
{
    const sn_waypoint *a = pa, *b = pb;
    if (a->road_id != b->road_id)
        return a->road_id < b->road_id ? -1 : 1;
    if (a->section_id != b->section_id)
        return a->section_id < b->section_id ? -1 : 1;
    if (a->lane_id != b->lane_id)
        return a->lane_id < b->lane_id ? -1 : 1;
    return (a->s > b->s) - (a->s < b->s);
}

static bool same_lane(const sn_waypoint *a, const sn_waypoint *b)
{
    return a->road_id == b->road_id && a->section_id == b->section_id && a->lane_id == b->lane_id &&
           hypot(a->transform.location.x - b->transform.location.x, a->transform.location.y - b->transform.location.y) <
               1.5 * STEP;
}

static sn_status lanes_of(run_data *d, const sn_map *m, sn_error *err)
{
    size_t n = 0;
    if (sn_map_generate_waypoints(m, STEP, NULL, 0, &n, err) != SN_OK)
        return err->status;
    sn_waypoint *w = malloc((n ? n : 1) * sizeof *w);
    if (!w)
        return sn_cli_fail(err, SN_E_NOMEM, "out of memory for %zu waypoints", n);
    if (sn_map_generate_waypoints(m, STEP, w, n, &n, err) != SN_OK) {
        free(w);
        return err->status;
    }
    qsort(w, n, sizeof *w, by_lane);
    size_t runs = 0;
    for (size_t i = 0; i < n; i++)
        runs += i == 0 || !same_lane(&w[i - 1], &w[i]);
    d->lanes = calloc(runs ? runs : 1, sizeof *d->lanes);
    rd_pt *pts = malloc((n ? n : 1) * sizeof *pts); /* one block: lane k's points are a slice */
    if (!d->lanes || !pts) {
        free(w);
        free(pts);
        return sn_cli_fail(err, SN_E_NOMEM, "out of memory for the map's lanes");
    }
    for (size_t i = 0; i < n; i++) {
        if (i == 0 || !same_lane(&w[i - 1], &w[i]))
            d->lanes[d->n_lanes++] = (rd_lane){pts + i, 0, w[i].lane_width};
        pts[i] = (rd_pt){w[i].transform.location.x, w[i].transform.location.y};
        d->lanes[d->n_lanes - 1].n++;
    }
    free(w);
    if (!d->n_lanes)
        free(pts);
    return SN_OK;
}

/* run.json names a map (usable or not): then the scene's is not a fallback. */
static bool has_run_note_map(const char *dir)
{
    char p[4096];
    sn_status st = sn_run_map_path(dir, p, sizeof p, NULL);
    return st != SN_E_NOT_FOUND;
}

sn_status sn_run_data_map(run_data *d, const char *map, sn_error *err)
{
    char guess[4096], noted[4096];
    /* the map the run noted (run.json) by export's rule (cli_input.h), else the one its scene
    ** names (older runs without run.json) */
    sn_map *m = map ? NULL : sn_cli_run_map_open("report", d->dir, noted, sizeof noted); /* loaded once */
    const char *path = map ? map : m ? noted : NULL;
    if (!path && !map && !has_run_note_map(d->dir) && d->scene[0] && scene_map(d->scene, guess, sizeof guess))
        path = guess;
    if (!path)
        return SN_OK;
    sn_error e2 = {0};
    if (!m)
        m = sn_map_open(path, &e2);
    sn_status st = m ? lanes_of(d, m, &e2) : e2.status;
    sn_map_close(m);
    if (st) {
        if (map) /* asked for: its error is the command's */
            return sn_cli_fail(err, st, "--map %s", e2.msg);
        fprintf(stderr, "sensim: warning: report: the map %s cannot be drawn: %s; the report has no lanes\n", path,
                e2.msg);
        return SN_OK;
    }
    snprintf(d->map, sizeof d->map, "%s", path);
    return SN_OK;
}
