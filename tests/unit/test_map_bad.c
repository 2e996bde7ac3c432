/* test_map_bad.c — malformed maps: every file in tests/map/ (argv[1]) and, generated here from
** the embedded junction map (tests/map/junction_map.h), the text truncated at every 97th byte
** and at every element boundary, each element deleted in turn, each numeric attribute set to
** "nan", "1e308", "-1" and "abc" in turn, and a few structural breakages (dangling links, a road
** its own successor, duplicate ids, lane ids with holes). Each must load with warnings or fail
** with "FILE:LINE: <element>: ..." (or "FILE:LINE: XML: ..." for text that is not XML); every
** warning is "FILE:LINE: <element>: ..."; nothing may crash, hang (SIGALRM after 20 s per map)
** or upset ASan/UBSan. Maps that load are queried: 1000 next() steps, previous(), waypoints at
** random points, left/right lanes, generate_waypoints, topology, spawn points, marks crossed. */
#include "../../engine/map/lanemap.h"
#include "../check.h"
#include "../map/junction_map.h"

#include <ctype.h>
#include <dirent.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *current = "";
static void on_alarm(int sig)
{
    (void)sig;
    static const char msg[] = "test_map_bad: a map took over 20 s (hang): ";
    ssize_t r = write(2, msg, sizeof msg - 1);
    r = write(2, current, strlen(current));
    r = write(2, "\n", 1);
    (void)r;
    _exit(1);
}

static uint64_t rng = 99;
static double rnd(void)
{
    uint64_t z = (rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return (double)((z ^ (z >> 31)) >> 11) * 0x1.0p-53;
}

/* "NAME:LINE: <elem>: text" (kind 0) or, for errors, also "NAME:LINE: XML: text". */
static bool well_formed(const char *msg, const char *name, bool allow_xml)
{
    size_t n = strlen(name);
    if (strncmp(msg, name, n) || msg[n] != ':')
        return false;
    const char *p = msg + n + 1;
    if (!isdigit((unsigned char)*p))
        return false;
    long line = strtol(p, (char **)&p, 10);
    if (line < 1 || strncmp(p, ": ", 2))
        return false;
    p += 2;
    if (allow_xml && !strncmp(p, "XML: ", 5))
        return p[5] != 0;
    if (*p != '<')
        return false;
    const char *e = strstr(p, ">: ");
    return e && e > p + 1 && e[3] != 0 && !strchr(msg, '\n');
}

static size_t loaded, refused;

static void query(const sn_map *m)
{
    sn_error err = {0};
    sn_map_info info = {.struct_size = sizeof info};
    sn_map_info_get(m, &info, &err);
    size_t n = 0;
    sn_waypoint wp[16], w;
    sn_map_generate_waypoints(m, 3.0, wp, 16, &n, &err);
    bool have = n > 0;
    if (have)
        w = wp[0];
    for (int i = 0; i < 40; i++) {
        sn_vec3 p = {m->lo.x - 5 + (m->hi.x - m->lo.x + 10) * rnd(), m->lo.y - 5 + (m->hi.y - m->lo.y + 10) * rnd(),
                     m->lo.z + (m->hi.z - m->lo.z) * rnd()};
        sn_waypoint q;
        if (!sn_map_waypoint(m, p, i % 2 == 0, i % 3 ? SN_LANE_ANY : SN_LANE_DRIVING, &q, &err)) {
            sn_waypoint side;
            sn_map_left_lane(m, &q, &side, &err);
            sn_map_right_lane(m, &q, &side, &err);
            if (!have)
                w = q, have = true;
        }
        sn_mark_crossing mc[8];
        sn_vec3 b = {p.x + 20 * (rnd() - 0.5), p.y + 20 * (rnd() - 0.5), p.z};
        sn_map_marks_crossed(m, p, b, mc, 8, &n, &err);
    }
    for (int i = 0; have && i < 1000; i++) {
        sn_waypoint nx[16];
        if (sn_map_next(m, &w, 2.0, nx, 16, &n, &err) || !n) {
            sn_map_previous(m, &w, 5.0, nx, 16, &n, &err);
            break;
        }
        w = nx[(size_t)(rnd() * (double)(n < 16 ? n : 16))];
        if (i % 100 == 0) {
            sn_map_previous(m, &w, 2.0, nx, 16, &n, &err);
            sn_map_next_until_lane_end(m, &w, 5.0, nx, 16, &n, &err);
        }
    }
    sn_waypoint topo[64];
    sn_map_topology(m, topo, 64, &n, &err);
    sn_transform sp[64];
    sn_map_spawn_points(m, sp, 64, &n, &err);
}

static void try_map(const char *label, const char *xml, size_t len, const char *name)
{
    current = label;
    alarm(20);
    sn_error err = {0};
    sn_map *m = sn_map_open_memory(xml, len, name, &err);
    if (m) {
        loaded++;
        for (size_t i = 0; sn_map_warning(m, i); i++)
            CHECK(well_formed(sn_map_warning(m, i), name, false), "%s: warning \"%s\"", label, sn_map_warning(m, i));
        query(m);
        sn_map_close(m);
    } else {
        refused++;
        CHECK(err.status != SN_OK && well_formed(err.msg, name, true), "%s: error \"%s\"", label, err.msg);
    }
    alarm(0);
}

/* A copy of xml with [a, b) replaced by rep. */
static char *splice(const char *xml, size_t len, size_t a, size_t b, const char *rep, size_t *out_len)
{
    size_t r = strlen(rep), n = len - (b - a) + r;
    char *s = malloc(n + 1);
    memcpy(s, xml, a);
    memcpy(s + a, rep, r);
    memcpy(s + a + r, xml + b, len - b);
    s[n] = 0;
    *out_len = n;
    return s;
}

/* End (one past '>') of the element starting at xml[a] == '<'. */
static size_t element_end(const char *xml, size_t len, size_t a)
{
    int depth = 0;
    for (size_t i = a; i < len; i++) {
        if (xml[i] != '<')
            continue;
        if (!strncmp(xml + i, "<![CDATA[", 9)) {
            const char *e = strstr(xml + i, "]]>");
            i = e ? (size_t)(e - xml) + 2 : len;
            continue;
        }
        const char *gt = memchr(xml + i, '>', len - i);
        if (!gt)
            return len;
        size_t end = (size_t)(gt - xml) + 1;
        if (xml[i + 1] == '/')
            depth--;
        else if (xml[i + 1] != '?' && xml[i + 1] != '!' && gt[-1] != '/')
            depth++;
        if (depth == 0)
            return end;
        i = end - 1;
    }
    return len;
}

static void replace_all(const char *label, const char *xml, size_t len, const char *from, const char *to, int nth)
{
    /* the nth occurrence of `from` (or every one for nth < 0) */
    const char *p = xml;
    int k = 0;
    char *cur = NULL;
    size_t cur_len = len;
    const char *base = xml;
    for (;;) {
        p = strstr(p, from);
        if (!p)
            break;
        if (nth < 0 || k == nth) {
            size_t a = (size_t)(p - base), nl;
            char *s = splice(base, cur_len, a, a + strlen(from), to, &nl);
            free(cur);
            cur = s, base = s, cur_len = nl;
            p = s + a + strlen(to);
            if (nth >= 0)
                break;
        } else
            p += strlen(from);
        k++;
    }
    if (cur)
        try_map(label, cur, cur_len, "bad.xodr");
    else
        CHECK(0, "%s: \"%s\" not found in the map", label, from);
    free(cur);
}

static void read_dir(const char *dir)
{
    DIR *d = opendir(dir);
    CHECK(d != NULL, "no folder %s", dir);
    if (!d)
        return;
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        size_t l = strlen(e->d_name);
        if (l < 6 || strcmp(e->d_name + l - 5, ".xodr"))
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *f = fopen(path, "rb");
        if (!f)
            continue;
        static char buf[1 << 20];
        size_t len = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        try_map(path, buf, len, e->d_name);
        /* and through the file path */
        sn_error err = {0};
        sn_map *m = sn_map_open(path, &err);
        if (m)
            query(m);
        else
            CHECK(well_formed(err.msg, path, true), "%s: error \"%s\"", path, err.msg);
        sn_map_close(m);
        n++;
    }
    closedir(d);
    CHECK(n >= 5, "only %d files in %s", n, dir);
}

int main(int argc, char **argv)
{
    signal(SIGALRM, on_alarm);
    if (argc > 1)
        read_dir(argv[1]);
    size_t fixed_loaded = loaded, fixed_refused = refused;

    size_t len;
    char *xml = jm_xml(&len);
    try_map("the good map", xml, len, "bad.xodr");
    CHECK(loaded == fixed_loaded + 1, "the unbroken map did not load");
    char label[128];
    size_t n_trunc = 0, n_del = 0, n_num = 0;
    /* truncations */
    for (size_t a = 0; a < len; a++)
        if (a % 97 == 0 || xml[a] == '<' || (a && xml[a - 1] == '>')) {
            snprintf(label, sizeof label, "truncated at byte %zu", a);
            try_map(label, xml, a, "bad.xodr");
            n_trunc++;
        }
    /* each element deleted */
    for (size_t a = 0; a < len; a++)
        if (xml[a] == '<' && xml[a + 1] != '/' && xml[a + 1] != '?' && xml[a + 1] != '!') {
            size_t b = element_end(xml, len, a), nl;
            char *s = splice(xml, len, a, b, "", &nl);
            snprintf(label, sizeof label, "element at byte %zu (%.20s) deleted", a, xml + a);
            try_map(label, s, nl, "bad.xodr");
            free(s);
            n_del++;
        }
    /* each numeric attribute replaced */
    static const char *const vals[] = {"nan", "1e308", "-1", "abc"};
    for (size_t a = 1; a + 1 < len; a++) {
        if (xml[a] != '"' || xml[a - 1] != '=')
            continue;
        const char *q = memchr(xml + a + 1, '"', len - a - 1);
        if (!q)
            break;
        size_t b = (size_t)(q - xml);
        char *end;
        strtod(xml + a + 1, &end);
        if (end == xml + a + 1 || end != q)
            continue;
        for (size_t v = 0; v < sizeof vals / sizeof *vals; v++) {
            size_t nl;
            char *s = splice(xml, len, a + 1, b, vals[v], &nl);
            snprintf(label, sizeof label, "attribute at byte %zu set to \"%s\"", a, vals[v]);
            try_map(label, s, nl, "bad.xodr");
            free(s);
            n_num++;
        }
        a = b;
    }
    /* structure */
    replace_all("dangling junction links", xml, len, "elementId=\"100\"", "elementId=\"999\"", -1);
    replace_all("dangling connecting road", xml, len, "connectingRoad=\"101\"", "connectingRoad=\"999\"", -1);
    replace_all("dangling road link", xml, len, "elementId=\"2\"", "elementId=\"999\"", 0);
    replace_all("a connecting road its own successor", xml, len, "<successor elementType=\"road\" elementId=\"2\"",
                "<successor elementType=\"road\" elementId=\"101\"", 0);
    replace_all("duplicate road ids", xml, len, "id=\"2\" junction=\"-1\"", "id=\"1\" junction=\"-1\"", 0);
    replace_all("duplicate junction ids", xml, len, "</OpenDRIVE>", "<junction id=\"100\" name=\"again\"/></OpenDRIVE>", 0);
    replace_all("lane ids with holes", xml, len, "lane id=\"-2\"", "lane id=\"-3\"", 0);
    replace_all("two centre lanes", xml, len, "<center>", "<center><lane id=\"0\" type=\"none\"/>", 0);
    replace_all("lane links to lanes that do not exist", xml, len, "<predecessor id=\"1\"/>", "<predecessor id=\"40\"/>", -1);
    replace_all("connections to lanes that do not exist", xml, len, "to=\"-1\"", "to=\"-9\"", -1);
    replace_all("wrong contact points", xml, len, "contactPoint=\"start\"", "contactPoint=\"end\"", -1);
    replace_all("an unknown geometry", xml, len, "<line/>", "<clothoid/>", 0);
    replace_all("an entity bomb", xml, len, "<OpenDRIVE>",
                "<!DOCTYPE OpenDRIVE [<!ENTITY a \"aaaaaaaaaa\"><!ENTITY b \"&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;\">"
                "<!ENTITY c \"&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;\"><!ENTITY d \"&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;\">]>"
                "<OpenDRIVE><userData v=\"&d;&d;&d;\"/>", 0);
    replace_all("an external entity", xml, len, "<OpenDRIVE>",
                "<!DOCTYPE OpenDRIVE [<!ENTITY x SYSTEM \"file:///etc/passwd\">]><OpenDRIVE><userData v=\"&x;\"/>", 0);
    free(xml);
    try_map("empty", "", 0, "bad.xodr");
    try_map("not XML", "\x00\x01\x02 hello", 9, "bad.xodr");
    try_map("another root", "<road/>", 7, "bad.xodr");
    try_map("no roads", "<OpenDRIVE><header/></OpenDRIVE>", 32, "bad.xodr");
    printf("tests/map: %zu loaded, %zu refused; the junction map: %zu truncations, %zu elements deleted, %zu attribute "
           "values; in all %zu loaded (queried) and %zu refused with FILE:LINE: <element>\n",
           fixed_loaded, fixed_refused, n_trunc, n_del, n_num, loaded, refused);
    CHECK(loaded > 100 && refused > 100, "both outcomes (%zu loaded, %zu refused)", loaded, refused);
    return CHECK_DONE();
}
