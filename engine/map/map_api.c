/* map_api.c — sensim/map.h: opening a map, its summary, and the road marks a segment crosses. */
#include "lanemap.h"

#include "../core/error.h"
#include "../core/infile.h"
#include "../core/util.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

sn_map *sn_map_open_memory(const char *xml, size_t size, const char *name, sn_error *err)
{
    SN_ERR_LOCAL(err);
    if (!xml || !name) {
        sn_fail(err, SN_E_INVALID, "map: NULL argument");
        return NULL;
    }
    sn_odr *odr;
    if (sn_odr_load_memory(xml, size, name, &odr, err))
        return NULL;
    char *copy = malloc(size + 1);
    if (!copy) {
        sn_odr_free(odr);
        sn_fail(err, SN_E_NOMEM, "%s: out of memory", name);
        return NULL;
    }
    memcpy(copy, xml, size);
    copy[size] = 0;
    sn_map *m;
    if (sn_map_build(odr, copy, size, &m, err))
        return NULL;
    return m;
}

char *sn_map_read_file(const char *path, size_t *size, sn_error *err)
{
    FILE *f = sn_open_input(path, "map", err); /* a FIFO would block */
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t n = 0, cap = 0;
    bool bad = false;
    for (;;) {
        if (n + 1 >= cap) {
            size_t nc = cap ? cap * 2 : (size_t)1 << 16;
            char *nb = realloc(buf, nc);
            if (!nb) {
                bad = true;
                break;
            }
            buf = nb, cap = nc;
        }
        size_t got = fread(buf + n, 1, cap - 1 - n, f);
        n += got;
        if (!got)
            break;
    }
    bad |= ferror(f) != 0;
    fclose(f);
    if (bad) {
        free(buf);
        sn_fail(err, SN_E_IO, "%s: cannot read the map", path);
        return NULL;
    }
    buf[n] = 0;
    *size = n;
    return buf;
}

sn_map *sn_map_open(const char *path, sn_error *err)
{
    SN_ERR_LOCAL(err);
    if (!path) {
        sn_fail(err, SN_E_INVALID, "map: NULL path");
        return NULL;
    }
    size_t n;
    char *buf = sn_map_read_file(path, &n, err);
    if (!buf)
        return NULL;
    sn_odr *odr;
    if (sn_odr_load_memory(buf, n, path, &odr, err)) {
        free(buf);
        return NULL;
    }
    sn_map *m;
    if (sn_map_build(odr, buf, n, &m, err))
        return NULL;
    return m;
}

const char *sn_map_warning(const sn_map *m, size_t i)
{
    return m && i < m->odr->n_warnings ? m->odr->warnings[i] : NULL;
}

const char *sn_map_to_opendrive(const sn_map *m, size_t *size)
{
    if (size)
        *size = m ? m->xml_size : 0;
    return m ? m->xml : NULL;
}

static const char *stem(const char *path)
{
    const char *b = strrchr(path, '/');
    return b ? b + 1 : path;
}

sn_status sn_map_info_get(const sn_map *m, sn_map_info *out, sn_error *err)
{
    SN_ERR_LOCAL(err);
    if (!m || !out)
        return sn_fail(err, SN_E_INVALID, "map: NULL argument");
    if (out->struct_size < sizeof(uint32_t))
        return sn_fail(err, SN_E_INVALID, "map: sn_map_info.struct_size is not set");
    sn_map_info info;
    memset(&info, 0, sizeof info);
    info.struct_size = out->struct_size < sizeof info ? out->struct_size : (uint32_t)sizeof info;
    const sn_odr *o = m->odr;
    info.name = o->name && *o->name ? o->name : stem(o->path);
    info.path = o->path;
    info.rev_major = (uint32_t)o->rev_major, info.rev_minor = (uint32_t)o->rev_minor;
    info.roads = o->n_roads, info.junctions = o->n_junctions;
    for (uint32_t i = 0; i < o->n_roads; i++) {
        const sn_odr_road *r = &o->roads[i];
        info.junction_roads += r->junction >= 0;
        for (uint32_t s = 0; s < r->n_sections; s++)
            info.lanes += r->sections[s].n_lanes - 1;
        for (uint32_t k = 0; k < r->n_signals; k++) {
            const sn_odr_signal *sg = &r->signals[k];
            if (sg->is_reference)
                continue;
            info.signals++;
            info.traffic_lights += sg->dynamic && (!strcmp(sg->type, "1000001") || strstr(sg->name, "Signal_3Light"));
        }
        for (uint32_t k = 0; k < r->n_objects; k++) {
            info.objects++;
            info.crosswalks += sn_streq_nocase(r->objects[k].type, "crosswalk");
        }
    }
    info.driving_km = m->driving_m / 1000.0;
    info.has_geo_reference = o->has_geo;
    info.geo_reference = (sn_geo_location){o->lat0, o->lon0, 0};
    info.bounds_min = m->lo, info.bounds_max = m->hi;
    info.warnings = o->n_warnings;
    memcpy(out, &info, info.struct_size);
    return SN_OK;
}

/* ---- road marks crossed ---- */

#define CROSS_STEP 0.25 /* m between the samples of a segment */

sn_status sn_map_marks_crossed(const sn_map *m, sn_vec3 a, sn_vec3 b, sn_mark_crossing *out, size_t cap, size_t *n,
                               sn_error *err)
{
    SN_ERR_LOCAL(err);
    if (n)
        *n = 0;
    if (!m)
        return sn_fail(err, SN_E_INVALID, "map: NULL map");
    if (cap && !out)
        return sn_fail(err, SN_E_INVALID, "map: NULL output with a capacity of %zu", cap);
    if (!isfinite(a.x) || !isfinite(a.y) || !isfinite(a.z) || !isfinite(b.x) || !isfinite(b.y) || !isfinite(b.z))
        return sn_fail(err, SN_E_INVALID, "map: marks_crossed: a point is not finite");
    double len = hypot(b.x - a.x, b.y - a.y);
    if (len > 1000)
        return sn_fail(err, SN_E_RANGE, "map: marks_crossed: the segment is %g m long (at most 1000)", len);
    int steps = (int)ceil(len / CROSS_STEP);
    if (steps < 1)
        steps = 1;
    size_t count = 0;
    sn_map_place prev;
    bool have = sn_map_locate(m, a, 10.0, 0, &prev);
    for (int i = 1; i <= steps; i++) {
        double f = (double)i / steps;
        sn_vec3 p = {a.x + (b.x - a.x) * f, a.y + (b.y - a.y) * f, a.z + (b.z - a.z) * f};
        sn_map_place cur;
        bool ok = sn_map_locate(m, p, 10.0, 0, &cur);
        /* Marks count only within one section of one road: across road ends lanes change
        ** names, not places (CARLA's CalculateCrossedLanes does the same). */
        if (ok && have && cur.road == prev.road && cur.section == prev.section && cur.lane != prev.lane) {
            const sn_odr_road *r = &m->odr->roads[cur.road];
            const sn_odr_section *sec = &r->sections[cur.section];
            int lo = prev.lane < cur.lane ? prev.lane : cur.lane, hi = prev.lane < cur.lane ? cur.lane : prev.lane;
            bool up = cur.lane > prev.lane;
            /* The borders between lanes lo..hi (0 skipped: it has no width), in the order the
            ** segment meets them. A border belongs to the lane nearer the centre (its outer
            ** border); between -1 and 1 it is the centre lane's. */
            int nb = 0, borders[2 * SN_ODR_MAX_LANES + 4];
            for (int x = lo; x < hi && nb < (int)SN_COUNT(borders);) {
                int y = x + 1 == 0 ? 1 : x + 1;
                borders[nb++] = y < 0 ? y : x > 0 ? x : 0;
                x = y;
            }
            for (int q = 0; q < nb; q++) {
                int owner = up ? borders[q] : borders[nb - 1 - q];
                const sn_odr_lane *l = sn_odr_lane_of(sec, owner);
                double s = 0.5 * (prev.s + cur.s);
                const sn_odr_mark *mk = sn_odr_mark_at(sec, l, s);
                if (!mk || mk->type == SN_MARK_NONE)
                    continue;
                double tb = sn_odr_lane_border(r, sec, owner, s);
                double w = (cur.t != prev.t) ? (tb - prev.t) / (cur.t - prev.t) : 0.5;
                w = fmin(1, fmax(0, w));
                double f0 = (double)(i - 1) / steps, ff = f0 + w * (f - f0);
                if (count < cap) {
                    sn_mark_crossing *c = &out[count];
                    c->marking = (sn_lane_marking){mk->type, mk->color, mk->lane_change, mk->width};
                    c->location = (sn_vec3){a.x + (b.x - a.x) * ff, a.y + (b.y - a.y) * ff, a.z + (b.z - a.z) * ff};
                    c->road_id = r->id, c->lane_id = owner;
                }
                count++;
            }
        }
        if (ok)
            prev = cur, have = true;
        else
            have = false;
    }
    if (n)
        *n = count;
    return SN_OK;
}
