/* body.c — an actor's body (box, radius or plane, mass, vehicle model) from its blueprint's
** resolved attributes (body.h). */
#include "body.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* "x,y,z": three half extents in metres, each in (0, 10000]. */
static bool parse_extent(const char *text, sn_vec3 *out)
{
    double v[3];
    char *p = (char *)text, *end;
    for (int i = 0; i < 3; i++) {
        errno = 0;
        v[i] = strtod(p, &end);
        if (end == p || errno || !isfinite(v[i]) || v[i] <= 0 || v[i] > 1e4)
            return false;
        while (*end == ' ')
            end++;
        if (i < 2 && *end++ != ',')
            return false;
        p = end;
    }
    if (*p)
        return false;
    *out = sn_v3(v[0], v[1], v[2]);
    return true;
}

sn_status sn_actor_body_set(sn_world *w, sn_actor *a, const sn_body_spec *b, const char **bad)
{
    *bad = NULL;
    if (b->extent && !parse_extent(b->extent, &a->ph->bbox.extent)) {
        *bad = "extent";
        return SN_E_INVALID;
    }
    if (a->shape == SN_SHAPE_SPHERE)
        a->ph->bbox.extent = sn_v3(b->radius, b->radius, b->radius);
    else if (a->shape == SN_SHAPE_CYLINDER)
        a->ph->bbox.extent = sn_v3(b->radius, b->radius, b->height / 2);
    else if (a->shape == SN_SHAPE_PLANE)
        a->ph->bbox.extent = sn_v3(1000, 1000, 0);
    if (b->has_mass)
        a->ph->mass = b->mass;
    if (a->kind == SN_ACTOR_VEHICLE) {
        sn_vehicle_params vp = {0}; /* zeroed: compared byte by byte (sn_blobs_intern) */
        const sn_vec3 ex = a->ph->bbox.extent;
        /* CARLA's vehicle origin: the centre of the bottom face of the box. */
        a->ph->bbox.location = sn_v3(0, 0, ex.z);
        sn_vehicle_shape vs = {ex, a->ph->mass, b->cg, b->max_power, b->max_steer_deg, b->wheels};
        if ((*bad = sn_vehicle_params_make(&vp, &vs, w->gravity.z)))
            return SN_E_RANGE;
        a->ph->com = sn_v3(0, 0, b->cg);
        if (!(a->mv->vp = sn_blobs_intern(&w->blobs, &vp, sizeof vp)))
            return SN_E_NOMEM;
    }
    if (a->kind == SN_ACTOR_WALKER)
        a->mv->walk_speed = b->walk_speed;
    return SN_OK;
}
