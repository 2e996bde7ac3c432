/* crosswalk.c — crosswalk objects of the map as crossing segments.
**
** An OpenDRIVE crosswalk is an object on a road: its origin at (s, t, zOffset), turned by hdg
** from the road's heading, its outline's corners in (u along, v across) around the origin. The
** walkers cross along its longer side, from one kerb to the other; each end is carried 1.5 m
** further onto the sidewalk so that it lies on the sidewalk a walker leaves and reaches. */
#include "crosswalk.h"

#include "../core/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define ONTO_SIDEWALK 1.5 /* m beyond the kerb: about a sidewalk's centre */

bool sn_crosswalks_build(const sn_map *m, sn_crosswalk **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    size_t cap = 0;
    const sn_odr *o = m->odr;
    for (uint32_t ri = 0; ri < o->n_roads; ri++) {
        const sn_odr_road *r = &o->roads[ri];
        for (uint32_t k = 0; k < r->n_objects; k++) {
            const sn_odr_object *ob = &r->objects[k];
            if (!sn_streq_nocase(ob->type, "crosswalk"))
                continue;
            /* Half extents along u and v: the outline's, else length and width. */
            double hu = ob->length / 2, hv = ob->width / 2;
            if (ob->n_corners >= 3 && !ob->road_corners) {
                hu = hv = 0;
                for (uint32_t c = 0; c < ob->n_corners; c++)
                    hu = fmax(hu, fabs(ob->corners[c].u)), hv = fmax(hv, fabs(ob->corners[c].v));
            }
            if (!(hu > 0.5 || hv > 0.5) || !isfinite(hu) || !isfinite(hv) || hu > 100 || hv > 100)
                continue; /* no extent to cross, or none a street has */
            bool across_v = hv >= hu;
            double half = (across_v ? hv : hu) + ONTO_SIDEWALK;
            double p[3];
            sn_odr_point(r, ob->s, ob->t, 0, p);
            p[2] += ob->z_offset; /* vertical, as the scenery's objects */
            double h = sn_odr_ref_line(r, ob->s).hdg + ob->hdg;
            /* The crossing direction in the OpenDRIVE frame: v is u turned left. */
            double dx = across_v ? -sin(h) : cos(h), dy = across_v ? cos(h) : sin(h);
            if (!sn_grow((void **)out, &cap, *n + 1, sizeof **out)) {
                free(*out);
                *out = NULL;
                *n = 0;
                return false;
            }
            sn_crosswalk *cw = &(*out)[(*n)++];
            for (int e = 0; e < 2; e++) {
                double sg = e ? 1 : -1, q[3] = {p[0] + sg * half * dx, p[1] + sg * half * dy, p[2]};
                cw->end[e] = sn_map_world(q);
            }
        }
    }
    return true;
}
