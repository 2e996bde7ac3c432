/* place_marks.c — the passes from the map's own data: its <objects>, signs from signals, stop
** lines and zebra crossings. */
#include "placer.h"

#include <sensim/math.h>

#include "../core/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sn_pl_pass_signs(placer *P)
{
    const sn_odr *od = P->m->odr;
    for (uint32_t ri = 0; ri < od->n_roads && !P->oom; ri++) {
        const sn_odr_road *r = &od->roads[ri];
        for (uint32_t k = 0; k < r->n_signals; k++) {
            const sn_odr_signal *sg = &r->signals[k];
            if (sg->is_reference || !sg->type)
                continue;
            int sc = !strcmp(sg->type, "206") ? SN_SC_SIGN_STOP
                     : !strcmp(sg->type, "205") ? SN_SC_SIGN_YIELD
                     : !strcmp(sg->type, "274") ? SN_SC_SIGN_SPEED
                                                : -1;
            if (sc < 0 || !(sg->s >= 0 && sg->s <= r->length + 1e-6) || !isfinite(sg->t) || fabs(sg->t) > 100)
                continue;
            double out = sg->t >= 0 ? 1 : -1, w[3], yaw;
            bool placed = false;
            for (double d = 0; d <= 12.0 && !placed; d += 0.5) {
                sn_pl_at(r, sg->s, sg->t + out * d, 0, w, &yaw);
                /* the pole's own footprint, ignoring other scenery (signs come before it) */
                placed = sn_pl_claim(P, w[0], w[1], 0, 0.06, 0.06, w[2], w[2] + 2.9, 0.0);
            }
            if (!placed)
                continue;
            double top = w[2] + 2.0 + 0.2, plate = sc == SN_SC_SIGN_SPEED ? 0.3 : 0.38;
            sn_scenery_obj *o = sn_pl_new_obj(P, SN_SK_SIGN, SN_TAG_TRAFFIC_SIGN, w[0], w[1], 0, 0.06, 0.06, w[2],
                                        top + plate);
            if (!o)
                return;
            /* The plate faces the traffic that drives toward it: with s for '+', against s for '-'. */
            double face = yaw + (sg->orientation == '-' ? 0 : M_PI);
            sn_sgeom_begin(&P->g, SN_SC_SIGN_POLE, o->instance, NULL);
            sn_sgeom_prism(&P->g, w[0], w[1], 0.04, w[2] - 0.2, top, 6);
            sn_sgeom_end(&P->g);
            sn_sgeom_begin(&P->g, sc, o->instance, NULL);
            double px = w[0] + 0.06 * cos(face), py = w[1] + 0.06 * sin(face);
            sn_sgeom_box(&P->g, px, py, face, 0.02, plate, top - plate, top + plate);
            sn_sgeom_end(&P->g);
        }
    }
}

/* The map's own objects: building, pole, tree/vegetation, barrier — built where the map puts
** them and as large as it says (its outline's box when it has one). */
void sn_pl_pass_map_objects(placer *P)
{
    const sn_odr *od = P->m->odr;
    for (uint32_t ri = 0; ri < od->n_roads && !P->oom; ri++) {
        const sn_odr_road *r = &od->roads[ri];
        for (uint32_t k = 0; k < r->n_objects; k++) {
            const sn_odr_object *ob = &r->objects[k];
            if (!ob->type)
                continue;
            int sc = sn_streq_nocase(ob->type, "building") ? SN_SC_BUILDING
                     : sn_streq_nocase(ob->type, "pole") ? SN_SC_POLE
                     : sn_streq_nocase(ob->type, "tree") || sn_streq_nocase(ob->type, "vegetation") ? SN_SC_TRUNK
                     : sn_streq_nocase(ob->type, "barrier") ? SN_SC_FENCE
                                                              : -1;
            if (sc < 0 || !isfinite(ob->s) || !isfinite(ob->t) || fabs(ob->t) > 1e4)
                continue;
            double hx = ob->length / 2, hy = ob->width / 2;
            if (ob->n_corners >= 3 && !ob->road_corners) {
                hx = hy = 0;
                for (uint32_t c = 0; c < ob->n_corners; c++)
                    hx = fmax(hx, fabs(ob->corners[c].u)), hy = fmax(hy, fabs(ob->corners[c].v));
            }
            if (ob->radius > 0 && !(hx > 0))
                hx = hy = ob->radius;
            double h = ob->height;
            double w[3], yaw;
            sn_pl_at(r, fmin(fmax(ob->s, 0), r->length), ob->t, 0, w, &yaw);
            w[2] += ob->z_offset; /* zOffset is vertical (esmini's objects: z_road + zOffset) */
            yaw -= ob->hdg; /* hdg turns counter-clockwise in OpenDRIVE: clockwise in the world */
            if (!(hx > 0 && hx < 500) || !(hy > 0 && hy < 500))
                hx = hy = sc == SN_SC_BUILDING ? 5 : sc == SN_SC_TRUNK ? 0.2 : 0.12;
            if (!(h > 0 && h < 1000))
                h = sc == SN_SC_BUILDING ? 10 : sc == SN_SC_TRUNK ? 6 : sc == SN_SC_POLE ? 6 : 1;
            /* a solid the map puts on a lane would stop its traffic: left out, and named */
            obb fb = sn_pl_obb_of(w[0], w[1], yaw, hx, hy);
            if (!sn_pl_footprint_free_mg(P, &fb, w[2], w[2] + h, 0.0)) {
                if (!sn_grow((void **)&P->out.skipped, &P->cap_skipped, (size_t)P->out.n_skipped + 1,
                             sizeof *P->out.skipped)) {
                    P->oom = true;
                    return;
                }
                snprintf(P->out.skipped[P->out.n_skipped++], sizeof *P->out.skipped,
                         "object %d '%s' (type %s) of road %d at s %.1f, t %.1f stands on a lane: not built", ob->id,
                         ob->name ? ob->name : "", ob->type, r->id, ob->s, ob->t);
                continue;
            }
            if (!sn_pl_add_box(P, fb))
                return;
            uint8_t tag = sn_scenery_categories[sc].tag;
            sn_scenery_obj *o = sn_pl_new_obj(P, SN_SK_MAP_OBJECT, tag, w[0], w[1], yaw, hx, hy, w[2], w[2] + h);
            if (!o)
                return;
            o->from_map = true;
            if (sc == SN_SC_TRUNK) {
                double cr = fmax(hx, 1.0);
                sn_sgeom_begin(&P->g, SN_SC_TRUNK, o->instance, NULL);
                sn_sgeom_prism(&P->g, w[0], w[1], fmin(hx, 0.3), w[2], w[2] + h * 0.5 + 0.3, 6);
                sn_sgeom_end(&P->g);
                sn_sgeom_begin(&P->g, SN_SC_CROWN, o->instance, NULL);
                sn_sgeom_ellipsoid(&P->g, w[0], w[1], w[2] + h * 0.5 + cr, cr, fmax(h * 0.5 - 0.2, 0.5));
            } else {
                sn_sgeom_begin(&P->g, sc, o->instance, NULL);
                sn_sgeom_box(&P->g, w[0], w[1], yaw, hx, hy, w[2], w[2] + h);
            }
            sn_sgeom_end(&P->g);
        }
    }
}

/* Stop lines: a 0.4 m band across the lane just before each line, 2 cm above the road. */
static int cmp_line(const void *a, const void *b)
{
    const sn_scenery_line *x = a, *y = b;
    if (x->road_id != y->road_id)
        return x->road_id < y->road_id ? -1 : 1;
    if (x->lane_id != y->lane_id)
        return x->lane_id < y->lane_id ? -1 : 1;
    return x->s < y->s ? -1 : x->s > y->s;
}

void sn_pl_pass_stop_lines(placer *P, const sn_scenery_line *lines, size_t n)
{
    if (!n)
        return;
    sn_scenery_line *ls = malloc(n * sizeof *ls);
    if (!ls) {
        P->oom = true;
        return;
    }
    memcpy(ls, lines, n * sizeof *ls);
    qsort(ls, n, sizeof *ls, cmp_line);
    for (size_t i = 0; i < n && !P->oom; i++) {
        if (i && ls[i].road_id == ls[i - 1].road_id && ls[i].lane_id == ls[i - 1].lane_id &&
            fabs(ls[i].s - ls[i - 1].s) < 0.5)
            continue;
        int32_t ri = sn_odr_road_index(P->m->odr, ls[i].road_id);
        if (ri < 0 || !ls[i].lane_id)
            continue;
        const sn_odr_road *r = &P->m->odr->roads[ri];
        int dir = sn_map_lane_dir(r, ls[i].lane_id);
        double s1 = fmin(fmax(ls[i].s - dir * 0.05, 0), r->length), s0 = fmin(fmax(s1 - dir * 0.4, 0), r->length);
        const sn_odr_section *sec = &r->sections[sn_odr_section_at(r, (s0 + s1) / 2, false)];
        if (!sn_odr_lane_of(sec, ls[i].lane_id))
            continue;
        double ti, to, q[4][3];
        sn_odr_lane_span(r, sec, ls[i].lane_id, (s0 + s1) / 2, &ti, &to);
        if (!(fabs(to - ti) > 0.5))
            continue;
        double a = ti + (to > ti ? 0.1 : -0.1), b = to - (to > ti ? 0.1 : -0.1);
        /* counter-clockwise from above: in OpenDRIVE's frame (s, t) is right-handed; the world
        ** flips y, so order the corners clockwise there */
        double ss[4] = {s0, s1, s1, s0}, tt[4] = {a, a, b, b};
        bool flip = (s1 - s0) * (b - a) > 0;
        for (int k = 0; k < 4; k++)
            sn_pl_at(r, ss[flip ? 3 - k : k], tt[flip ? 3 - k : k], 0.02, q[k], NULL);
        sn_scenery_obj *o = sn_pl_new_obj(P, SN_SK_STOP_LINE, SN_TAG_ROAD_LINE, (q[0][0] + q[2][0]) / 2,
                                    (q[0][1] + q[2][1]) / 2, 0, 0.2, fabs(to - ti) / 2, q[0][2], q[0][2]);
        if (!o)
            break;
        o->paint = true;
        sn_sgeom_begin(&P->g, SN_SC_STOP_LINE, o->instance, NULL);
        sn_sgeom_quad(&P->g, q[0], q[1], q[2], q[3]);
        sn_sgeom_end(&P->g);
    }
    free(ls);
}

/* Zebra paint on crosswalk objects: stripes 0.5 m wide, 0.5 m apart, along the crossing,
** painted in 0.5 m pieces only where a driving-type lane is under them (not on the sidewalks). */
void sn_pl_pass_zebras(placer *P)
{
    const sn_odr *od = P->m->odr;
    const uint32_t road_types = P->blocked & ~(uint32_t)SN_LANE_SIDEWALK;
    for (uint32_t ri = 0; ri < od->n_roads && !P->oom; ri++) {
        const sn_odr_road *r = &od->roads[ri];
        for (uint32_t k = 0; k < r->n_objects; k++) {
            const sn_odr_object *ob = &r->objects[k];
            if (!ob->type || !sn_streq_nocase(ob->type, "crosswalk"))
                continue;
            double hu = ob->length / 2, hv = ob->width / 2;
            if (ob->n_corners >= 3 && !ob->road_corners) {
                hu = hv = 0;
                for (uint32_t c = 0; c < ob->n_corners; c++)
                    hu = fmax(hu, fabs(ob->corners[c].u)), hv = fmax(hv, fabs(ob->corners[c].v));
            }
            if (!(hu > 0.5 || hv > 0.5) || !isfinite(hu) || !isfinite(hv) || hu > 100 || hv > 100)
                continue;
            double p[3];
            sn_odr_point(r, ob->s, ob->t, 0, p);
            p[2] += ob->z_offset; /* vertical, as every object's */
            double h = sn_odr_ref_line(r, ob->s).hdg + ob->hdg;
            bool across_v = hv >= hu;
            double L = across_v ? hv : hu, Wd = across_v ? hu : hv; /* half length across the road, half width */
            /* crossing direction c and the stripes' spacing direction e, OpenDRIVE frame */
            double cx = across_v ? -sin(h) : cos(h), cy = across_v ? cos(h) : sin(h), ex = cy, ey = -cx;
            sn_scenery_obj *o = NULL;
            for (double e = -Wd + 0.25; e + 0.25 <= Wd + 1e-9; e += 1.0)
                for (double c = -L; c + 0.5 <= L + 1e-9; c += 0.5) {
                    double mx = p[0] + (c + 0.25) * cx + e * ex, my = p[1] + (c + 0.25) * cy + e * ey;
                    sn_map_place pl;
                    if (!sn_map_locate(P->m, sn_v3(mx, -my, p[2]), 0.01, road_types, &pl) || pl.outside > 0 ||
                        fabs(pl.dz) > 1.0)
                        continue;
                    double z = p[2] - pl.dz + 0.02, q[4][3];
                    const double cc[4] = {c, c + 0.5, c + 0.5, c}, ee[4] = {e - 0.25, e - 0.25, e + 0.25, e + 0.25};
                    for (int j = 0; j < 4; j++) {
                        /* (c, e) is left-handed in OpenDRIVE's frame (e = c turned right): the world's
                        ** y flip makes it right-handed, counter-clockwise from above */
                        q[j][0] = p[0] + cc[j] * cx + ee[j] * ex, q[j][1] = -(p[1] + cc[j] * cy + ee[j] * ey), q[j][2] = z;
                    }
                    if (!o) {
                        if (!(o = sn_pl_new_obj(P, SN_SK_CROSSWALK, SN_TAG_ROAD_LINE, p[0], -p[1], -h, across_v ? hu : hv,
                                          across_v ? hv : hu, z, z)))
                            return;
                        o->paint = true;
                        sn_sgeom_begin(&P->g, SN_SC_ZEBRA, o->instance, NULL);
                    }
                    sn_sgeom_quad(&P->g, q[0], q[1], q[2], q[3]);
                }
            if (o)
                sn_sgeom_end(&P->g);
        }
    }
}
