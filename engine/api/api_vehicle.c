/* api_vehicle.c — ray queries from the API (CARLA's world.cast_ray, project_point,
** ground_projection) and a vehicle's physics control (CARLA's apply_physics_control) on the
** running vehicle model (world/vehicle.c). */
#include "../core/error.h"
#include "../sim/engine.h"
#include "../sim/host_query.h"

#include <math.h>
#include <string.h>

static sn_status loaded(sn_engine *e, const char *what, sn_error *err)
{
    if (!e)
        return sn_fail(err, SN_E_INVALID, "%s: NULL engine", what);
    if (!e->loaded || e->broken)
        return sn_fail(err, SN_E_STATE, "%s: no scene loaded", what);
    return SN_OK;
}

sn_status sn_engine_ray_batch(sn_engine *e, const sn_ray_query *q, const sn_ray *rays, uint32_t n,
                              sn_ray_result *out, sn_error *err)
{
    SN_ERR_LOCAL(err);
    sn_status st = loaded(e, "ray_batch", err);
    if (st)
        return st;
    if (!q || (n && (!rays || !out)))
        return sn_fail(err, SN_E_INVALID, "ray_batch: NULL query, rays or results");
    sn_rayscene *rs = sn_engine_rays(e, err);
    if (!rs)
        return err->status ? err->status : SN_E_NOMEM;
    /* a query laid out by the 1.2-1.5 headers (no ray_ignore, overlap_size): copied into a full one */
    sn_ray_query full;
    if (q->struct_size >= SN_RAY_QUERY_SIZE_1_5 && q->struct_size < sizeof full) {
        memset(&full, 0, sizeof full);
        memcpy(&full, q, q->struct_size);
        full.struct_size = sizeof full;
        full.overlap_size = sizeof(sn_overlap);
        q = &full;
    }
    if ((st = sn_rays_trace(rs, &e->world, q, rays, n, out, err)))
        sn_error_prefix(err, "ray_batch");
    return st;
}

sn_status sn_engine_ray_batch_compact(sn_engine *e, const sn_ray_query *q, const sn_ray *rays, uint32_t n,
                                      const sn_ray_compact *out, sn_error *err)
{
    SN_ERR_LOCAL(err);
    sn_status st = loaded(e, "ray_batch_compact", err);
    if (st)
        return st;
    sn_rayscene *rs = sn_engine_rays(e, err);
    if (!rs)
        return err->status ? err->status : SN_E_NOMEM;
    sn_ray_query full; /* a query laid out by the 1.2-1.5 headers, as ray_batch takes it */
    if (q && q->struct_size >= SN_RAY_QUERY_SIZE_1_5 && q->struct_size < sizeof full) {
        memset(&full, 0, sizeof full);
        memcpy(&full, q, q->struct_size);
        full.struct_size = sizeof full;
        full.overlap_size = sizeof(sn_overlap);
        q = &full;
    }
    if ((st = sn_rays_trace_compact(rs, &e->world, q, rays, n, out, err)))
        sn_error_prefix(err, "ray_batch_compact");
    return st;
}

static sn_status vehicle(sn_engine *e, uint32_t id, const char *what, sn_actor **out, sn_error *err)
{
    sn_status st = loaded(e, what, err);
    if (st)
        return st;
    sn_actor *a = sn_world_find(&e->world, id);
    if (!a)
        return sn_fail(err, SN_E_NOT_FOUND, "%s: no live actor has id %u", what, id);
    if (a->kind != SN_ACTOR_VEHICLE || !a->mv->vp)
        return sn_fail(err, SN_E_INVALID, "%s: '%s' (%s) is no vehicle", what, a->name, a->type_id);
    *out = a;
    return SN_OK;
}

/* The frontal area the drag coefficient multiplies: the box's width times its height. */
static double frontal_area(const sn_actor *a)
{
    return 4 * a->ph->bbox.extent.y * a->ph->bbox.extent.z;
}

sn_status sn_engine_get_vehicle_physics(const sn_engine *e, uint32_t id, sn_vehicle_physics *out, sn_error *err)
{
    SN_ERR_LOCAL(err);
    sn_actor *a;
    sn_status st = vehicle((sn_engine *)e, id, "get_vehicle_physics", &a, err);
    if (st)
        return st;
    if (!out || out->struct_size < SN_VEHICLE_PHYSICS_SIZE_0)
        return sn_fail(err, SN_E_INVALID, "get_vehicle_physics: out->struct_size must be sizeof(sn_vehicle_physics)");
    const sn_vehicle_params *p = a->mv->vp;
    out->mass = a->ph->mass;
    out->max_power = p->max_power;
    out->max_force = p->max_force;
    out->max_steer_angle = p->max_steer / SN_DEG;
    out->tire_friction = p->mu;
    out->drag_coefficient = p->drag_area / frontal_area(a);
    if (out->struct_size >= sizeof *out) {
        out->center_of_mass = sn_v3(a->ph->com.x, a->ph->com.y, a->ph->com.z - p->cg);
        out->n_steering_curve = p->n_steer;
        memcpy(out->steering_curve, p->steer_curve, sizeof out->steering_curve);
        out->n_force_curve = p->n_force;
        memcpy(out->force_curve, p->force_curve, sizeof out->force_curve);
    }
    return SN_OK;
}

static bool in(double v, double lo, double hi) { return isfinite(v) && v >= lo && v <= hi; }

/* The centre of mass inside the box (above the wheels' contact, below the roof), the curves'
** sizes, ranges and order: NULL when good, else what is wrong. */
static const char *check_curves(const sn_actor *a, const sn_vehicle_physics *c)
{
    const sn_vec3 e = a->ph->bbox.extent, m = c->center_of_mass;
    double z = a->mv->vp->cg + m.z;
    if (!in(m.x, -e.x, e.x) || !in(m.y, -e.y, e.y) || !in(z, 0.01, 2 * e.z))
        return "center_of_mass must stay inside the vehicle's box (x within +-extent.x, y within +-extent.y, "
               "its height above 1 cm and below the roof)";
    if (c->n_steering_curve > SN_STEERING_CURVE_MAX)
        return "steering_curve has more than SN_STEERING_CURVE_MAX (16) points";
    for (uint32_t i = 0; i < c->n_steering_curve; i++)
        if (!in(c->steering_curve[i][0], 0, 1000) || !in(c->steering_curve[i][1], 0, 1) ||
            (i && !(c->steering_curve[i][0] > c->steering_curve[i - 1][0])))
            return "steering_curve's points must be (km/h in [0, 1000], ascending; fraction in [0, 1])";
    if (c->n_force_curve > SN_FORCE_CURVE_MAX)
        return "force_curve has more than SN_FORCE_CURVE_MAX (64) points";
    for (uint32_t i = 0; i < c->n_force_curve; i++)
        if (!in(c->force_curve[i][0], 0, 1000) || !in(c->force_curve[i][1], 0, 1e6) ||
            (i && !(c->force_curve[i][0] > c->force_curve[i - 1][0])))
            return "force_curve's points must be (m/s in [0, 1000], ascending; N in [0, 1e6])";
    return NULL;
}

sn_status sn_engine_set_vehicle_physics(sn_engine *e, uint32_t id, const sn_vehicle_physics *in_p, sn_error *err)
{
    SN_ERR_LOCAL(err);
    sn_actor *a;
    sn_status st = vehicle(e, id, "set_vehicle_physics", &a, err);
    if (st)
        return st;
    if (!in_p || in_p->struct_size < SN_VEHICLE_PHYSICS_SIZE_0)
        return sn_fail(err, SN_E_INVALID, "set_vehicle_physics: struct_size must be sizeof(sn_vehicle_physics)");
    const sn_vehicle_physics *c = in_p;
    const bool full = c->struct_size >= sizeof *c; /* the centre of mass and the curves too */
    /* Ranges wide enough for any road vehicle, narrow enough that ODE stays sane. */
    const char *bad = !in(c->mass, 1, 1e5)                  ? "mass must be in [1, 100000] kg"
                      : !in(c->max_power, 0, 1e7)           ? "max_power must be in [0, 1e7] W"
                      : !in(c->max_force, 0, 1e6)           ? "max_force must be in [0, 1e6] N"
                      : !in(c->max_steer_angle, 0, 89)      ? "max_steer_angle must be in [0, 89] degrees"
                      : !in(c->tire_friction, 0.01, 10)     ? "tire_friction must be in [0.01, 10]"
                      : !in(c->drag_coefficient, 0, 10)     ? "drag_coefficient must be in [0, 10]"
                                                            : NULL;
    if (!bad && full)
        bad = check_curves(a, c);
    if (bad)
        return sn_fail(err, SN_E_RANGE, "set_vehicle_physics: '%s' (%s): %s", a->name, a->type_id, bad);
    sn_vehicle_params vp = *a->mv->vp; /* interned and shared: changed in a copy */
    sn_vec3 com = a->ph->com;
    if (full) {
        com = sn_v3(c->center_of_mass.x, c->center_of_mass.y, vp.cg + c->center_of_mass.z);
        vp.n_steer = c->n_steering_curve;
        memset(vp.steer_curve, 0, sizeof vp.steer_curve); /* interned by its bytes */
        memcpy(vp.steer_curve, c->steering_curve, c->n_steering_curve * sizeof c->steering_curve[0]);
        vp.n_force = c->n_force_curve;
        memset(vp.force_curve, 0, sizeof vp.force_curve);
        memcpy(vp.force_curve, c->force_curve, c->n_force_curve * sizeof c->force_curve[0]);
    }
    double g = -e->world.gravity.z;
    vp.max_power = c->max_power;
    vp.max_force = c->max_force;
    vp.max_steer = c->max_steer_angle * SN_DEG;
    vp.brake_mu = vp.brake_mu < vp.mu ? fmin(c->tire_friction, vp.brake_mu) : c->tire_friction;
    vp.mu = c->tire_friction;
    vp.drag_area = c->drag_coefficient * frontal_area(a);
    if (c->mass != a->ph->mass) {
        /* The suspension keeps its static sag and damping ratio (spawn.c's rules) at the new mass. */
        double k = c->mass / a->ph->mass;
        vp.static_load = c->mass * g / 4;
        vp.spring_k = vp.static_load / vp.rest_compression;
        vp.damper_c = 2 * 0.5 * sqrt(vp.spring_k * c->mass / 4);
        vp.arb_front *= k;
        vp.arb_rear *= k;
        vp.stab_k *= k;
        vp.stab_c *= k;
        vp.pitch_k *= k;
        vp.pitch_c *= k;
    }
    if (com.z != a->ph->com.z) {
        /* what the height of the centre of mass sets (vehicle.c, sn_vehicle_params_make): the
        ** brakes' lift limit and, for a vehicle that would tip before it slides, roll control */
        double h = com.z;
        vp.brake_mu = fmin(vp.mu, 0.8 * (vp.wheelbase / 2) / h);
        if (vp.stab_k == 0)
            vp.max_lat = vp.track / (2 * h) < 0.8 ? 0.6 * vp.track / (2 * h) * g : 0;
    }
    const sn_vehicle_params *np = sn_blobs_intern(&e->world.blobs, &vp, sizeof vp);
    if (!np)
        return sn_fail(err, SN_E_NOMEM, "set_vehicle_physics: out of memory");
    a->mv->vp = np;
    if (com.x != a->ph->com.x || com.y != a->ph->com.y || com.z != a->ph->com.z)
        sn_world_set_com(&e->world, a, com);
    if (c->mass != a->ph->mass) {
        a->ph->mass = c->mass;
        if (a->ph->body) {
            dMass m;
            const sn_vec3 x = a->ph->bbox.extent;
            dMassSetBoxTotal(&m, c->mass, 2 * x.x, 2 * x.y, 2 * x.z);
            dBodySetMass(a->ph->body, &m);
        }
    }
    return SN_OK;
}
