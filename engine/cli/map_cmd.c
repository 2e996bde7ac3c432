/* map_cmd.c — `sensim map FILE`: an OpenDRIVE map's summary, waypoints, topology and spawn
** points, as text or JSON (public API only: sensim/map.h). */
#include "map_cmd.h"
#include <sensim/numtext.h>
#include "json_out.h"

#include <sensim/sensim.h>

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char HELP_MAP[] =
    "usage: sensim map FILE [--json] [--waypoints D | --topology | --spawn-points | --at X,Y,Z [--lane-type T]]\n"
    "Loads an OpenDRIVE map (.xodr) and prints its summary: roads, junctions, lanes, driving km,\n"
    "signals, traffic lights, crosswalks, geo-reference, bounds (world frame: CARLA's axes).\n"
    "  --json          the summary, or the list asked for, as JSON (lists: one object per line)\n"
    "  --waypoints D   every D metres on every driving lane (CARLA's generate_waypoints)\n"
    "  --topology      the driving lanes' segment pairs (CARLA's get_topology)\n"
    "  --spawn-points  CARLA's get_spawn_points\n"
    "  --at X,Y,Z      the waypoint nearest to a world location (CARLA's get_waypoint)\n"
    "  --lane-type T   with --at: driving (default), sidewalk, shoulder, any, ...\n"
    "Exit status: 0 success, 2 a map that cannot be read (the error names FILE:LINE and the element).\n";

static int fail2(const char *what, const char *detail)
{
    fprintf(stderr, "sensim: error: map: %s%s\n", what, detail ? detail : "");
    return 2;
}

static const char *lane_type_name(uint32_t t)
{
    static const char *names[] = {"None", "Driving", "Stop", "Shoulder", "Biking", "Sidewalk", "Border",
                                  "Restricted", "Parking", "Bidirectional", "Median", "Special1", "Special2",
                                  "Special3", "RoadWorks", "Tram", "Rail", "Entry", "Exit", "OffRamp", "OnRamp"};
    for (unsigned i = 0; i < sizeof names / sizeof names[0]; i++)
        if (t == (1u << i))
            return names[i];
    return "Any";
}

static bool parse_lane_type(const char *s, uint32_t *out)
{
    if (!strcasecmp(s, "any")) {
        *out = SN_LANE_ANY;
        return true;
    }
    for (unsigned i = 0; i <= 20; i++)
        if (!strcasecmp(s, lane_type_name(1u << i))) {
            *out = 1u << i;
            return true;
        }
    return false;
}

static const char *mark_type_name(uint8_t t)
{
    static const char *n[] = {"Other", "Broken", "Solid", "SolidSolid", "SolidBroken", "BrokenSolid",
                              "BrokenBroken", "BottsDots", "Grass", "Curb", "NONE"};
    return t < sizeof n / sizeof n[0] ? n[t] : "Other";
}

static const char *mark_color_name(uint8_t c)
{
    static const char *n[] = {"Standard", "Blue", "Green", "Red", "Yellow", "Other"};
    return c < sizeof n / sizeof n[0] ? n[c] : "Other";
}

static const char *lane_change_name(uint8_t c)
{
    static const char *n[] = {"NONE", "Right", "Left", "Both"};
    return n[c & 3];
}

static void print_transform(FILE *f, const sn_transform *t)
{
    fprintf(f, "{\"location\":[%.6f,%.6f,%.6f],\"rotation\":[%.6f,%.6f,%.6f]}", t->location.x, t->location.y,
            t->location.z, t->rotation.pitch, t->rotation.yaw, t->rotation.roll);
}

static void print_marking(FILE *f, const sn_lane_marking *m)
{
    fprintf(f, "{\"type\":\"%s\",\"color\":\"%s\",\"lane_change\":\"%s\",\"width\":%.3f}", mark_type_name(m->type),
            mark_color_name(m->color), lane_change_name(m->lane_change), m->width);
}

static void print_waypoint(FILE *f, const sn_waypoint *w)
{
    fprintf(f, "{\"id\":%llu,\"road_id\":%d,\"section_id\":%d,\"lane_id\":%d,\"s\":%.6f,\"transform\":",
            (unsigned long long)w->id, (int)w->road_id, (int)w->section_id, (int)w->lane_id, w->s);
    print_transform(f, &w->transform);
    fprintf(f, ",\"lane_width\":%.6f,\"lane_type\":\"%s\",\"is_junction\":%s,\"junction_id\":%d,\"lane_change\":\"%s\","
               "\"left_lane_marking\":",
            w->lane_width, lane_type_name(w->lane_type), w->is_junction ? "true" : "false", (int)w->junction_id,
            lane_change_name(w->lane_change));
    print_marking(f, &w->left_marking);
    fprintf(f, ",\"right_lane_marking\":");
    print_marking(f, &w->right_marking);
    fputc('}', f);
}

static void print_summary(const sn_map_info *i, bool json)
{
    if (json) {
        printf("{\"name\":");
        sn_json_str(stdout, i->name);
        printf(",\"path\":");
        sn_json_str(stdout, i->path);
        printf(",\"opendrive\":\"%u.%u\",\"roads\":%u,\"junction_roads\":%u,\"junctions\":%u,\"lanes\":%u,"
               "\"driving_km\":%.3f,\"signals\":%u,\"traffic_lights\":%u,\"objects\":%u,\"crosswalks\":%u,",
               i->rev_major, i->rev_minor, i->roads, i->junction_roads, i->junctions, i->lanes, i->driving_km,
               i->signals, i->traffic_lights, i->objects, i->crosswalks);
        if (i->has_geo_reference)
            printf("\"geo_reference\":{\"latitude\":%.9f,\"longitude\":%.9f,\"altitude\":%.3f},",
                   i->geo_reference.latitude, i->geo_reference.longitude, i->geo_reference.altitude);
        else
            printf("\"geo_reference\":null,");
        printf("\"bounds\":{\"min\":[%.3f,%.3f,%.3f],\"max\":[%.3f,%.3f,%.3f]},\"warnings\":%u}\n", i->bounds_min.x,
               i->bounds_min.y, i->bounds_min.z, i->bounds_max.x, i->bounds_max.y, i->bounds_max.z, i->warnings);
        return;
    }
    printf("map %s (%s), OpenDRIVE %u.%u\n", i->name, i->path, i->rev_major, i->rev_minor);
    printf("  roads      %u (%u in junctions), junctions %u\n", i->roads, i->junction_roads, i->junctions);
    printf("  lanes      %u (per lane section), driving lanes %.3f km\n", i->lanes, i->driving_km);
    printf("  signals    %u (%u traffic lights), objects %u (%u crosswalks)\n", i->signals, i->traffic_lights,
           i->objects, i->crosswalks);
    if (i->has_geo_reference)
        printf("  geo        latitude %.9f, longitude %.9f at the world origin\n", i->geo_reference.latitude,
               i->geo_reference.longitude);
    else
        printf("  geo        none in the header\n");
    printf("  bounds     x %.1f..%.1f, y %.1f..%.1f, z %.1f..%.1f m (world frame)\n", i->bounds_min.x,
           i->bounds_max.x, i->bounds_min.y, i->bounds_max.y, i->bounds_min.z, i->bounds_max.z);
    if (i->warnings)
        printf("  warnings   %u (on stderr)\n", i->warnings);
}

/* Runs a list query twice: once to count, once into a buffer of that size. */
typedef sn_status (*list_fn)(const sn_map *m, double d, void *out, size_t cap, size_t *n, sn_error *err);

static sn_status gen_wp(const sn_map *m, double d, void *out, size_t cap, size_t *n, sn_error *err)
{
    return sn_map_generate_waypoints(m, d, out, cap, n, err);
}
static sn_status gen_topo(const sn_map *m, double d, void *out, size_t cap, size_t *n, sn_error *err)
{
    (void)d;
    return sn_map_topology(m, out, cap, n, err);
}
static sn_status gen_spawn(const sn_map *m, double d, void *out, size_t cap, size_t *n, sn_error *err)
{
    (void)d;
    return sn_map_spawn_points(m, out, cap, n, err);
}

static int print_list(const sn_map *m, list_fn fn, double d, size_t elem, int kind, bool json)
{
    sn_error err = {0};
    size_t n = 0;
    if (fn(m, d, NULL, 0, &n, &err))
        return fail2(err.msg, NULL);
    /* One list in memory at a time: refuse what no terminal or file wants (1 GiB of records). */
    if (n > ((size_t)1 << 30) / elem) {
        char why[160];
        snprintf(why, sizeof why, "%zu items would take more than 1 GiB; ask for a longer distance", n);
        return fail2(why, NULL);
    }
    void *buf = malloc(n ? n * elem : 1);
    if (!buf)
        return fail2("out of memory", NULL);
    if (fn(m, d, buf, n, &n, &err)) {
        free(buf);
        return fail2(err.msg, NULL);
    }
    for (size_t i = 0; i < n; i++) {
        if (kind == 2) {
            const sn_transform *t = (const sn_transform *)buf + i;
            if (json) {
                print_transform(stdout, t);
                putchar('\n');
            } else
                printf("%6zu  x %10.3f  y %10.3f  z %7.3f  yaw %8.3f\n", i, t->location.x, t->location.y,
                       t->location.z, t->rotation.yaw);
            continue;
        }
        const sn_waypoint *w = (const sn_waypoint *)buf + i;
        if (kind == 1 && json) { /* topology: one pair per line */
            if (i % 2)
                continue;
            printf("[");
            print_waypoint(stdout, w);
            putchar(',');
            print_waypoint(stdout, w + 1);
            printf("]\n");
        } else if (json) {
            print_waypoint(stdout, w);
            putchar('\n');
        } else
            printf("road %5d  section %2d  lane %3d  s %9.3f  x %10.3f  y %10.3f  z %7.3f  yaw %8.3f%s\n",
                   (int)w->road_id, (int)w->section_id, (int)w->lane_id, w->s, w->transform.location.x,
                   w->transform.location.y, w->transform.location.z, w->transform.rotation.yaw,
                   kind == 1 ? (i % 2 ? "  (end)" : "  (start)") : "");
    }
    free(buf);
    return 0;
}

int sn_cmd_map(int argc, char **argv)
{
    enum { O_JSON = 256, O_WP, O_TOPO, O_SPAWN, O_AT, O_TYPE, O_HELP };
    static const struct option opts[] = {
        {"json", no_argument, 0, O_JSON},           {"waypoints", required_argument, 0, O_WP},
        {"topology", no_argument, 0, O_TOPO},       {"spawn-points", no_argument, 0, O_SPAWN},
        {"at", required_argument, 0, O_AT},         {"lane-type", required_argument, 0, O_TYPE},
        {"help", no_argument, 0, O_HELP},           {0, 0, 0, 0}};
    const char *file = NULL, *at = NULL, *type = NULL;
    bool json = false, topo = false, spawn = false;
    double wp = 0;
    int opt, lists = 0;
    optind = 0;
    opterr = 0;
    while ((opt = getopt_long(argc - 1, argv + 1, "-:h", opts, NULL)) != -1) {
        switch (opt) {
        case 1:
            if (file)
                return fail2("more than one map file given", NULL);
            file = optarg;
            break;
        case O_JSON: json = true; break;
        case O_WP: {
            if (!sn_text_number(optarg, &wp)) /* numtext.h */
                wp = -1;
            if (!(wp >= 0.01) || wp > 1e6)
                return fail2("--waypoints wants a distance in metres within [0.01, 1e6], not ", optarg);
            lists++;
            break;
        }
        case O_TOPO: topo = true, lists++; break;
        case O_SPAWN: spawn = true, lists++; break;
        case O_AT: at = optarg, lists++; break;
        case O_TYPE: type = optarg; break;
        case 'h':
        case O_HELP: fputs(HELP_MAP, stdout); return 0;
        case ':': return fail2("an option needs a value: ", argv[optind]);
        default: return fail2("unknown option ", argv[optind]);
        }
    }
    if (!file)
        return fail2("no map file given (usage: sensim map FILE [--json])", NULL);
    if (lists > 1)
        return fail2("ask for one of --waypoints, --topology, --spawn-points, --at", NULL);
    if (type && !at)
        return fail2("--lane-type goes with --at", NULL);
    uint32_t types = SN_LANE_DRIVING;
    if (type && !parse_lane_type(type, &types))
        return fail2("unknown lane type ", type);

    sn_error err = {0};
    sn_map *m = sn_map_open(file, &err);
    if (!m) {
        fprintf(stderr, "sensim: error: %s\n", err.msg);
        return 2;
    }
    for (size_t i = 0; sn_map_warning(m, i); i++)
        fprintf(stderr, "sensim: warning: %s\n", sn_map_warning(m, i));
    int rc = 0;
    if (at) {
        double x, y, z;
        char tail;
        if (sscanf(at, "%lf,%lf,%lf%c", &x, &y, &z, &tail) != 3 || !isfinite(x) || !isfinite(y) || !isfinite(z)) {
            rc = fail2("--at wants X,Y,Z in metres, not ", at);
        } else {
            sn_waypoint w;
            if (sn_map_waypoint(m, (sn_vec3){x, y, z}, true, types, &w, &err)) {
                fprintf(stderr, "sensim: error: %s\n", err.msg);
                rc = 1;
            } else {
                print_waypoint(stdout, &w);
                putchar('\n');
            }
        }
    } else if (wp > 0)
        rc = print_list(m, gen_wp, wp, sizeof(sn_waypoint), 0, json);
    else if (topo)
        rc = print_list(m, gen_topo, 0, sizeof(sn_waypoint), 1, json);
    else if (spawn)
        rc = print_list(m, gen_spawn, 0, sizeof(sn_transform), 2, json);
    else {
        sn_map_info info = {.struct_size = sizeof info};
        sn_map_info_get(m, &info, NULL);
        print_summary(&info, json);
    }
    sn_map_close(m);
    return rc;
}
