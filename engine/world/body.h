/* body.h — an actor's body from what its blueprint's attributes say: shape, mass, and a
** vehicle's model parameters (vehicle.c). The spawn (sim/spawn.c) reads the values and words
** the errors; the world builds the body. */
#ifndef SN_WORLD_BODY_H
#define SN_WORLD_BODY_H

#include "world.h"

/* The attributes a body is built from, as resolved for one spawn. Only the fields of the
** actor's shape and kind are read. */
typedef struct sn_body_spec {
    const char *extent;    /* attribute extent, "x,y,z" half sizes in metres; NULL: none */
    double radius, height; /* spheres (radius) and cylinders (radius, height), m */
    bool has_mass;         /* whether the blueprint has a mass attribute */
    double mass;           /* kg */
    /* vehicles: center_of_mass_height (m), max_power (W), max_steer_angle (degrees),
    ** number_of_wheels */
    double cg, max_power, max_steer_deg;
    int wheels;
    double walk_speed; /* walkers: speed, m/s */
} sn_body_spec;

/* Gives a (of shape a->shape, kind a->kind) its box, mass, and for a vehicle CARLA's origin
** (the centre of the box's bottom face), its centre of mass and its model parameters, interned
** in w->blobs; a walker its speed. SN_OK, else *bad names the attribute that cannot be built:
** "extent" (SN_E_INVALID: not three half extents each in (0, 10000]), "center_of_mass_height"
** or "number_of_wheels" (SN_E_RANGE: sn_vehicle_params_make), or NULL with SN_E_NOMEM. */
sn_status sn_actor_body_set(sn_world *w, sn_actor *a, const sn_body_spec *b, const char **bad);

#endif
