/* OpenDRIVE junction <priority high low/> records (traffic/junction.c): on the town map
** (tests/data/town.xodr), a connecting road that crosses another without priority gets a record
** naming it first; the conflict areas then give it priority (+1 for it, -1 for the other, not a
** merge's); a record with a non-integer id is dropped with a warning, the map still loads.
** argv[1]: tests/data. */
#include "../check.h"

#include "../../engine/map/lanemap.h"
#include "../../engine/traffic/junction.h"

#include <stdlib.h>

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n)
        free(b), b = NULL;
    fclose(f);
    if (b)
        b[n] = 0, *len = (size_t)n;
    return b;
}

/* The conflict of connector (road a, its first driving lane) with road b: its prio, merge flag. */
static bool conflict(const sn_junctions *j, int32_t a, int32_t b, int *prio, bool *merge)
{
    for (uint32_t c = 0; c < j->n_conn; c++) {
        if (j->conn[c].road_id != a)
            continue;
        for (uint32_t k = j->conn[c].first; k < j->conn[c].first + j->conn[c].n; k++)
            if (j->conn[j->conf[k].other].road_id == b) {
                *prio = j->conf[k].prio, *merge = j->conf[k].merge;
                return true;
            }
    }
    return false;
}

/* The map text with `insert` placed before the first junction's first <connection. */
static char *with_record(const char *xml, const char *insert)
{
    const char *at = strstr(strstr(xml, "<junction "), "<connection");
    size_t head = (size_t)(at - xml), len = strlen(xml) + strlen(insert) + 1;
    char *out = malloc(len);
    memcpy(out, xml, head);
    strcpy(out + head, insert);
    strcat(out, at);
    return out;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    char path[1024];
    snprintf(path, sizeof path, "%s/town.xodr", argv[1]);
    size_t len = 0;
    char *xml = slurp(path, &len);
    CHECK(xml != NULL, "read %s", path);
    if (!xml)
        return CHECK_DONE();
    sn_error err = {0};
    sn_map *m = sn_map_open_memory(xml, len, "town", &err);
    CHECK(m != NULL, "town opens: %s", err.msg);
    sn_junctions *j = m ? sn_junctions_build(m) : NULL;
    CHECK(j != NULL, "junctions built");
    if (!j)
        return CHECK_DONE();
    /* A pair of connecting roads of the first junction that conflict with no priority. */
    int32_t first = m->odr->junctions[0].id, a = -1, b = -1;
    for (uint32_t c = 0; c < j->n_conn && a < 0; c++) {
        if (m->odr->junctions[j->conn[c].junction].id != first)
            continue;
        for (uint32_t k = j->conn[c].first; k < j->conn[c].first + j->conn[c].n; k++)
            if (j->conf[k].prio == 0 && j->conn[j->conf[k].other].road_id != j->conn[c].road_id) {
                a = j->conn[c].road_id, b = j->conn[j->conf[k].other].road_id;
                break;
            }
    }
    CHECK(a >= 0 && b >= 0, "a conflict without priority in junction %d", (int)first);
    sn_junctions_free(j);
    sn_map_close(m);

    char rec[160];
    snprintf(rec, sizeof rec, "<priority high=\"%d\" low=\"%d\"/><priority high=\"x1\" low=\"%d\"/>\n", (int)a, (int)b,
             (int)b);
    char *xml2 = with_record(xml, rec);
    m = sn_map_open_memory(xml2, strlen(xml2), "town_priority", &err);
    CHECK(m != NULL, "town with <priority> opens: %s", err.msg);
    j = m ? sn_junctions_build(m) : NULL;
    CHECK(j != NULL, "junctions built");
    if (j) {
        CHECK(m->odr->junctions[0].n_priorities == 1, "one record kept of two (the other names no integer id): %u",
              m->odr->junctions[0].n_priorities);
        int pa = 0, pb = 0;
        bool ma = true, mb = true;
        CHECK(conflict(j, a, b, &pa, &ma) && pa == 1 && !ma, "road %d goes first over road %d: prio %d", (int)a, (int)b, pa);
        CHECK(conflict(j, b, a, &pb, &mb) && pb == -1 && !mb, "road %d yields to road %d: prio %d", (int)b, (int)a, pb);
        sn_map_info info = {.struct_size = sizeof info};
        sn_map_info_get(m, &info, NULL);
        CHECK(info.warnings >= 1, "the bad record is warned about (%u warnings)", info.warnings);
    }
    sn_junctions_free(j);
    sn_map_close(m);
    free(xml2);
    free(xml);
    return CHECK_DONE();
}
