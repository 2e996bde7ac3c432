/* The map: load time and peak memory of the largest shipped map (maps/, argv[1]) and of the
** biggest CARLA town when /work/carla-maps (or $SENSIM_CARLA_MAPS) has them, against libxml2's
** own xmlReadFile of the same file in the same run (ratio = our load / bare XML parse); the
** lane at a point (sn_map_waypoint, target <= 5 us) against a brute-force linear scan over
** every section; next(2.0) (target <= 1 us) against one reference-line evaluation. Peak memory
** is measured in a fresh process per load (this program exec'd again: VmHWM above its start). */
#include "../../engine/map/lanemap.h"

#include <dirent.h>
#include <libxml/parser.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static uint64_t rng = 4242;
static double rnd(void)
{
    uint64_t z = (rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return (double)((z ^ (z >> 31)) >> 11) * 0x1.0p-53;
}

static long status_kb(const char *key)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long v = -1;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, key, strlen(key)))
            v = atol(line + strlen(key));
    if (f)
        fclose(f);
    return v;
}

/* In a fresh process (main's "--peak"): the load alone, its peak above the process's start. */
static int peak_main(const char *which, const char *path)
{
    long base = status_kb("VmRSS:");
    long v;
    if (!strcmp(which, "ours")) {
        sn_error err = {0};
        sn_map *m = sn_map_open(path, &err);
        v = status_kb("VmHWM:") - base;
        sn_map_close(m);
    } else {
        xmlDocPtr d = xmlReadFile(path, NULL, XML_PARSE_NONET | XML_PARSE_BIG_LINES);
        v = status_kb("VmHWM:") - base;
        xmlFreeDoc(d);
    }
    printf("%ld\n", v);
    return 0;
}

/* Peak memory (kB above the start) of loading `path` with ours (1) or xmlReadFile (0), in a
** fresh process (this program exec'd again): a forked child reused the heap its parent had
** freed, and reported 1.4-2.4 MB for loads that peak at 23-42 MB (issue 33 item 9). */
static long peak_kb(const char *path, int ours)
{
    int fd[2];
    if (pipe(fd))
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        dup2(fd[1], 1);
        execl("/proc/self/exe", "bench_map", "--peak", ours ? "ours" : "xml", path, (char *)NULL);
        _exit(127);
    }
    close(fd[1]);
    char buf[64] = "";
    ssize_t n = read(fd[0], buf, sizeof buf - 1);
    close(fd[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    if (n <= 0 || !WIFEXITED(status) || WEXITSTATUS(status))
        return -1;
    buf[n] = 0;
    return atol(buf);
}

/* The largest .xodr of a folder (by size), or "" */
static void largest(const char *dir, char *out, size_t cap)
{
    out[0] = 0;
    DIR *d = opendir(dir);
    off_t best = -1;
    for (struct dirent *e; d && (e = readdir(d));) {
        size_t l = strlen(e->d_name);
        if (l < 6 || strcmp(e->d_name + l - 5, ".xodr"))
            continue;
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        struct stat st;
        if (!stat(p, &st) && st.st_size > best)
            best = st.st_size, snprintf(out, cap, "%s", p);
    }
    if (d)
        closedir(d);
}

/* The brute force: every section of every road, the reference line projected by Newton from
** the section's middle (then from its ends), the lane read from the borders; nearest wins. */
static int brute_lane(const sn_map *m, double x, double y, int32_t *road)
{
    const sn_odr *o = m->odr;
    double best = INFINITY;
    int lane = 0;
    for (uint32_t ri = 0; ri < o->n_roads; ri++) {
        const sn_odr_road *r = &o->roads[ri];
        for (uint32_t si = 0; si < r->n_sections; si++) {
            const sn_odr_section *sec = &r->sections[si];
            double s = 0.5 * (sec->s + sec->s_end);
            for (int it = 0; it < 8; it++) {
                sn_odr_pose p = sn_odr_ref_line(r, s);
                s = fmin(sec->s_end, fmax(sec->s, s + (x - p.x) * cos(p.hdg) + (y - p.y) * sin(p.hdg)));
            }
            sn_odr_pose p = sn_odr_ref_line(r, s);
            double dx = x - p.x, dy = y - p.y, t = -dx * sin(p.hdg) + dy * cos(p.hdg);
            double along = fabs(dx * cos(p.hdg) + dy * sin(p.hdg));
            for (uint32_t li = 0; li < sec->n_lanes; li++) {
                double a, b;
                int id = sec->lanes[li].id;
                if (!id)
                    continue;
                sn_odr_lane_span(r, sec, id, s, &a, &b);
                double lo = fmin(a, b), hi = fmax(a, b), d = t < lo ? lo - t : t > hi ? t - hi : 0;
                d = hypot(d, along);
                if (d < best)
                    best = d, lane = id, *road = r->id;
            }
        }
    }
    return lane;
}

static void bench_file(const char *label, const char *path)
{
    struct stat st;
    stat(path, &st);
    /* load: best of 5, ours and the bare XML parse */
    double ours = 1e30, xml = 1e30;
    sn_map *m = NULL;
    for (int i = 0; i < 5; i++) {
        double t0 = now();
        xmlDocPtr d = xmlReadFile(path, NULL, XML_PARSE_NONET | XML_PARSE_BIG_LINES);
        xml = fmin(xml, now() - t0);
        xmlFreeDoc(d);
        sn_error err = {0};
        t0 = now();
        sn_map *mm = sn_map_open(path, &err);
        ours = fmin(ours, now() - t0);
        if (!mm) {
            fprintf(stderr, "bench_map: %s: %s\n", path, err.msg);
            exit(1);
        }
        if (m)
            sn_map_close(m);
        m = mm;
    }
    long pk_ours = peak_kb(path, 1), pk_xml = peak_kb(path, 0);
    printf("ratio map load %s (%s, %.0f kB): sensim %.2f ms, libxml2 xmlReadFile %.2f ms (ratio %.2f)\n", label, path,
           st.st_size / 1024.0, ours * 1e3, xml * 1e3, ours / xml);
    printf("memory map load %s: peak %ld kB above the start, xmlReadFile %ld kB (ratio %.2f)\n", label, pk_ours, pk_xml,
           pk_xml > 0 ? (double)pk_ours / pk_xml : 0);
    /* libxml2's tree of a file holds at least the file's text: a smaller peak measured nothing */
    if (pk_xml < st.st_size / 1024 || pk_ours < st.st_size / 1024) {
        fprintf(stderr, "bench_map: a peak below the file's own %lld kB: not measured in a fresh process\n",
                (long long)st.st_size / 1024);
        exit(1);
    }

    /* waypoint at a location: points within 2 m of driving lane centres */
    size_t n = 0;
    sn_error err = {0};
    sn_map_generate_waypoints(m, 5.0, NULL, 0, &n, &err);
    sn_waypoint *wps = malloc(n * sizeof *wps);
    sn_map_generate_waypoints(m, 5.0, wps, n, &n, &err);
    enum { NQ = 20000 };
    sn_vec3 *q = malloc(NQ * sizeof *q);
    for (int i = 0; i < NQ; i++) {
        sn_vec3 c = wps[(size_t)(rnd() * (double)n)].transform.location;
        q[i] = (sn_vec3){c.x + 4 * (rnd() - 0.5), c.y + 4 * (rnd() - 0.5), c.z};
    }
    volatile int sink = 0;
    double best_q = 1e30;
    for (int rep = 0; rep < 3; rep++) {
        double t0 = now();
        for (int i = 0; i < NQ; i++) {
            sn_waypoint w;
            sink += sn_map_waypoint(m, q[i], true, SN_LANE_DRIVING, &w, &err) == SN_OK ? w.lane_id : 0;
        }
        best_q = fmin(best_q, (now() - t0) / NQ);
    }
    int nb = 500, same = 0;
    double t0 = now();
    for (int i = 0; i < nb; i++) {
        int32_t road = 0;
        int lane = brute_lane(m, q[i].x, -q[i].y, &road);
        sn_waypoint w;
        sn_map_waypoint(m, q[i], true, SN_LANE_ANY | SN_LANE_NONE, &w, &err);
        same += w.road_id == road && w.lane_id == lane;
    }
    double brute_q = (now() - t0) / nb;
    printf("ratio map waypoint %s: %.2f us per get_waypoint, brute-force scan of %u roads %.1f us (ratio %.4f; the baseline's crude projection "
           "names the same lane on %d of %d)\n", label, best_q * 1e6, m->odr->n_roads, brute_q * 1e6, best_q / brute_q, same, nb);

    /* next(2.0) along a walk, against one reference-line evaluation */
    sn_waypoint w = wps[0], nx[16];
    double best_n = 1e30;
    int calls = 100000;
    for (int rep = 0; rep < 3; rep++) {
        t0 = now();
        for (int i = 0; i < calls; i++) {
            size_t k = 0;
            if (sn_map_next(m, &w, 2.0, nx, 16, &k, &err) || !k)
                w = wps[(size_t)i % n];
            else
                w = nx[(size_t)i % (k < 16 ? k : 16)];
        }
        best_n = fmin(best_n, (now() - t0) / calls);
    }
    double best_r = 1e30, acc = 0;
    for (int rep = 0; rep < 3; rep++) {
        t0 = now();
        for (int i = 0; i < calls; i++) {
            const sn_odr_road *r = &m->odr->roads[(uint32_t)i % m->odr->n_roads];
            acc += sn_odr_ref_line(r, r->length * ((i * 37) % 100) / 100.0).x;
        }
        best_r = fmin(best_r, (now() - t0) / calls);
    }
    sink += acc > 0;
    printf("ratio map next %s: %.3f us per next(2.0), one reference-line eval %.3f us (ratio %.1f)\n", label,
           best_n * 1e6, best_r * 1e6, best_n / best_r);
    printf("target map %s: get_waypoint %.2f us (target <= 5), next(2.0) %.3f us (target <= 1)\n", label, best_q * 1e6,
           best_n * 1e6);
    free(q);
    free(wps);
    sn_map_close(m);
}

int main(int argc, char **argv)
{
    if (argc == 4 && !strcmp(argv[1], "--peak"))
        return peak_main(argv[2], argv[3]);
    char path[4096];
    largest(argc > 1 ? argv[1] : "maps", path, sizeof path);
    if (path[0])
        bench_file("shipped", path);
    else
        printf("ratio map: no shipped map in %s\n", argc > 1 ? argv[1] : "maps");
    const char *carla = getenv("SENSIM_CARLA_MAPS") ? getenv("SENSIM_CARLA_MAPS") : "/work/carla-maps";
    largest(carla, path, sizeof path);
    if (path[0])
        bench_file("carla", path);
    else
        printf("ratio map: no CARLA towns (%s): skipped\n", carla);
    return 0;
}
