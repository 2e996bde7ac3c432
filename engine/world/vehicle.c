/* vehicle.c — the vehicle model: a rigid chassis on four ray-cast wheels.
**
** Each wheel is a ray from its mount point down the chassis' -z axis. Where it meets the
** ground (planes, analytically) or a static prop (ODE ray), a spring-damper pushes the chassis
** up along the ground normal, and the tyre adds a longitudinal force (engine on the rear
** wheels, brakes on all, hand brake on the rear) and a lateral force that removes part of the
** sideways slip each substep, the pair kept inside the friction circle mu * load. The engine
** delivers at most max_force and max_power; aerodynamic drag and rolling resistance slow the
** car. Wheels never create ODE contacts, so driving on the ground is not a collision. */
#include "world.h"

#include <math.h>
#include <string.h>

/* Fraction of the contact-to-centre-of-mass height at which tyre forces act. */
#define ROLL_INFLUENCE_LIFT 0.8

static double clampd(double v, double lo, double hi) { return v < lo ? lo : v > hi ? hi : v; }
static double sgn(double v) { return v > 0 ? 1 : v < 0 ? -1 : 0; }

typedef struct wheel_query {
    bool hit;
    double depth;
    sn_vec3 normal;
} wheel_query;

static void wheel_callback(void *data, dGeomID ray, dGeomID g)
{
    wheel_query *q = data;
    dContactGeom c;
    if (dCollide(ray, g, 1, &c, sizeof c) == 1 && (!q->hit || c.depth < q->depth)) {
        q->hit = true;
        q->depth = c.depth;
        q->normal = sn_v3(c.normal[0], c.normal[1], c.normal[2]);
    }
}

/* Distance along dir (unit) from o to the nearest ground or static surface within len. */
static bool wheel_ray(sn_world *w, const dReal *box, sn_vec3 o, sn_vec3 dir, double len, double *dist, sn_vec3 *normal)
{
    bool hit = false;
    for (size_t i = 0; i < w->n_planes; i++) {
        const sn_actor *pl = w->planes[i];
        sn_vec3 n = pl->plane_normal;
        double denom = sn_v3_dot(n, dir);
        if (denom >= -1e-9)
            continue;
        double t = (pl->plane_offset - sn_v3_dot(n, o)) / denom;
        if (t >= 0 && t <= len && (!hit || t < *dist)) {
            hit = true;
            *dist = t;
            *normal = n;
        }
    }
    /* Static props and buildings: only when the ray's box reaches their space at all. */
    sn_vec3 e = sn_v3_add(o, sn_v3_scale(dir, len));
    if (box && fmin(o.x, e.x) <= box[1] && fmax(o.x, e.x) >= box[0] &&
        fmin(o.y, e.y) <= box[3] && fmax(o.y, e.y) >= box[2] && fmin(o.z, e.z) <= box[5] &&
        fmax(o.z, e.z) >= box[4]) {
        wheel_query q = {0};
        dGeomRaySet(w->ray, o.x, o.y, o.z, dir.x, dir.y, dir.z);
        dGeomRaySetLength(w->ray, len);
        dGeomRaySetClosestHit(w->ray, 1);
        dSpaceCollide2(w->ray, (dGeomID)w->static_space, &q, wheel_callback);
        if (q.hit && (!hit || q.depth < *dist)) {
            hit = true;
            *dist = q.depth;
            *normal = sn_v3_dot(q.normal, dir) > 0 ? sn_v3_scale(q.normal, -1) : q.normal;
        }
    }
    return hit;
}

void sn_vehicle_apply(sn_world *w, sn_actor *a, double h)
{
    const sn_vehicle_params *p = &a->vp;
    dBodyID b = a->body;
    const dReal *R = dBodyGetRotation(b), *P = dBodyGetPosition(b);
    sn_mat3 m = {{R[0], R[1], R[2], R[4], R[5], R[6], R[8], R[9], R[10]}};
    sn_vec3 pos = sn_v3(P[0], P[1], P[2]);
    sn_vec3 fwd = sn_mat3_col(&m, 0), right = sn_mat3_col(&m, 1), up = sn_mat3_col(&m, 2);
    sn_vehicle_control c = a->control;
    c.throttle = clampd(c.throttle, 0, 1);
    c.brake = clampd(c.brake, 0, 1);
    c.steer = clampd(c.steer, -1, 1);

    /* Steering turns the front wheels at a bounded rate (about a quarter second lock to lock). */
    double target = c.steer * p->max_steer, rate = 4.0 * p->max_steer * h;
    a->steer_angle += clampd(target - a->steer_angle, -rate, rate);

    double mq = a->mass / 4;
    dReal sbox[6];
    bool statics = dSpaceGetNumGeoms(w->static_space) > 0;
    if (statics)
        dGeomGetAABB((dGeomID)w->static_space, sbox);
    double cs = cos(a->steer_angle), sn = sin(a->steer_angle);
    sn_vec3 steered = sn_v3_add(sn_v3_scale(fwd, cs), sn_v3_scale(right, sn));
    sn_vec3 down = sn_v3_scale(up, -1);
    double mount_z = -a->bbox.extent.z + p->clearance;
    /* Pass 1: where each wheel touches and how far its spring is compressed. */
    bool touch[4];
    double comp[4];
    sn_vec3 cps[4], nrm[4];
    for (int i = 0; i < 4; i++) {
        bool front = i < 2, left = (i & 1) == 0;
        sn_vec3 local = sn_v3((front ? 1 : -1) * p->wheelbase / 2, (left ? -1 : 1) * p->track / 2, mount_z);
        sn_vec3 mount = sn_v3_add(pos, sn_mat3_apply(&m, local));
        double dist = 0;
        touch[i] = wheel_ray(w, statics ? sbox : NULL, mount, down, p->ray_length, &dist, &nrm[i]);
        comp[i] = touch[i] ? p->ray_length - dist : 0;
        cps[i] = sn_v3_add(mount, sn_v3_scale(down, dist));
    }
    /* Pass 2: spring, damper and anti-roll bar loads; tyre forces within the friction circle. */
    const dReal *lvp = dBodyGetLinearVel(b), *avp = dBodyGetAngularVel(b);
    sn_vec3 lin = sn_v3(lvp[0], lvp[1], lvp[2]), ang = sn_v3(avp[0], avp[1], avp[2]);
    sn_vec3 force = sn_v3(0, 0, 0), torque = sn_v3(0, 0, 0);
    for (int i = 0; i < 4; i++) {
        if (!touch[i])
            continue; /* wheel in the air */
        bool front = i < 2;
        sn_vec3 n = nrm[i], cp = cps[i];
        sn_vec3 v = sn_v3_add(lin, sn_v3_cross(ang, sn_v3_sub(cp, pos)));
        double arb = p->spring_k * (comp[i] - comp[i ^ 1]); /* i ^ 1: the other wheel of the axle */
        double load = p->spring_k * comp[i] + arb - p->damper_c * sn_v3_dot(v, n);
        if (load <= 0)
            continue;
        /* Tyre frame on the ground plane. */
        sn_vec3 wf = front ? steered : fwd;
        wf = sn_v3_norm(sn_v3_sub(wf, sn_v3_scale(n, sn_v3_dot(wf, n))));
        sn_vec3 ws = sn_v3_cross(n, wf); /* unit: n and wf are unit and orthogonal */
        double vl = sn_v3_dot(v, wf), vs = sn_v3_dot(v, ws);
        double stop = mq * fabs(vl) / h; /* the force that would stop this wheel in one substep */
        double flong = 0, grip = 1;
        if (!front && c.throttle > 0) {
            double engine = fmin(p->max_force, p->max_power / fmax(fabs(vl), 1.0));
            flong += (c.reverse ? -1 : 1) * c.throttle * engine / 2;
        }
        if (c.brake > 0)
            flong -= sgn(vl) * fmin(c.brake * p->mu * load, stop);
        if (c.hand_brake && !front) {
            flong -= sgn(vl) * fmin(p->mu * load, stop);
            grip = 0.5;
        }
        flong -= sgn(vl) * fmin(0.015 * load, stop); /* rolling resistance */
        double flat = -0.5 * grip * mq * vs / h;
        double fmax_ = p->mu * load, ft = sqrt(flong * flong + flat * flat);
        if (ft > fmax_) {
            flong *= fmax_ / ft;
            flat *= fmax_ / ft;
        }
        /* The suspension pushes at the contact point; tyre forces act partway up toward the
        ** centre of mass ("roll influence"), because a box's centre of mass sits higher than
        ** a car's, and real cars slide well before they roll over. */
        sn_vec3 fs = sn_v3_scale(n, load);
        sn_vec3 ftv = sn_v3_add(sn_v3_scale(wf, flong), sn_v3_scale(ws, flat));
        sn_vec3 tp = sn_v3_add(cp, sn_v3_scale(up, ROLL_INFLUENCE_LIFT * sn_v3_dot(sn_v3_sub(pos, cp), up)));
        force = sn_v3_add(force, sn_v3_add(fs, ftv));
        torque = sn_v3_add(torque, sn_v3_add(sn_v3_cross(sn_v3_sub(cp, pos), fs), sn_v3_cross(sn_v3_sub(tp, pos), ftv)));
    }
    /* One call for the four wheels: the sum of forces at points is a force and a torque. */
    dBodyAddForce(b, force.x, force.y, force.z);
    dBodyAddTorque(b, torque.x, torque.y, torque.z);
    sn_vec3 drag = sn_v3_scale(lin, -0.5 * 1.2 * p->drag_area * sn_v3_len(lin));
    dBodyAddForce(b, drag.x, drag.y, drag.z);
}

void sn_walker_apply(sn_world *w, sn_actor *a, double h)
{
    (void)w;
    const dReal *lv = dBodyGetLinearVel(a->body);
    sn_vec3 dir = sn_v3_norm(sn_v3(a->walk_dir.x, a->walk_dir.y, 0));
    sn_vec3 want = sn_v3_scale(dir, a->walk_speed);
    sn_vec3 dv = sn_v3(want.x - lv[0], want.y - lv[1], 0);
    sn_vec3 f = sn_v3_scale(dv, 0.5 * a->mass / h);
    double fmax_ = a->mass * 4.0, fl = sn_v3_len(f); /* a brisk human acceleration */
    if (fl > fmax_)
        f = sn_v3_scale(f, fmax_ / fl);
    dBodyAddForce(a->body, f.x, f.y, 0);
    if (a->walk_speed > 0.05 && sn_v3_len(dir) > 0) {
        /* Face where you walk: the uprighting step keeps this yaw. */
        dMatrix3 r;
        dRFromAxisAndAngle(r, 0, 0, 1, atan2(dir.y, dir.x));
        dBodySetRotation(a->body, r);
    }
}

void sn_autopilot_update(sn_world *w, sn_actor *a, double dt)
{
    (void)dt;
    sn_autopilot *ap = &a->ap;
    sn_transform t = sn_actor_world_transform(w, a);
    bool vehicle = a->kind == SN_ACTOR_VEHICLE;
    double reach = vehicle ? 3.0 : 0.6;
    while (!ap->done) {
        sn_vec3 d = sn_v3_sub(ap->route[ap->next], t.location);
        if (hypot(d.x, d.y) > reach)
            break;
        if (++ap->next >= ap->n_route) {
            if (ap->loop)
                ap->next = 0;
            else
                ap->done = true;
        }
    }
    if (ap->done) {
        if (vehicle)
            a->control = (sn_vehicle_control){.brake = 1.0};
        else
            a->walk_speed = 0;
        return;
    }
    sn_vec3 target = ap->route[ap->next];
    sn_vec3 d = sn_v3_sub(target, t.location);
    double dist = hypot(d.x, d.y);
    if (!vehicle) {
        a->walk_dir = sn_v3(d.x / dist, d.y / dist, 0);
        a->walk_speed = ap->target_speed;
        return;
    }
    /* Pure pursuit toward the next point; speed by a PI loop, slower in sharp turns. */
    sn_mat3 m = sn_mat3_from_rotation(t.rotation);
    sn_vec3 local = sn_mat3_apply_t(&m, d);
    double alpha = atan2(local.y, local.x);
    double ld = fmax(dist, 4.0);
    double delta = atan(2.0 * a->vp.wheelbase * sin(alpha) / ld);
    double v = sn_v3_dot(sn_actor_velocity(a), sn_mat3_col(&m, 0));
    double vt = ap->target_speed * fmax(0.3, cos(alpha));
    if (!ap->loop && ap->next + 1 == ap->n_route)
        vt = fmin(vt, sqrt(2.0 * 2.5 * fmax(dist - reach, 0)) + 0.5);
    double err = vt - v;
    ap->speed_integral = clampd(ap->speed_integral + err * dt, -5, 5);
    a->control.steer = clampd(delta / a->vp.max_steer, -1, 1);
    a->control.throttle = clampd(0.6 * err + 0.1 * ap->speed_integral, 0, 1);
    a->control.brake = err < -1.0 ? clampd(-0.3 * err, 0, 1) : 0;
    a->control.hand_brake = false;
    a->control.reverse = false;
}
