/* vehicle.c — the vehicle model: a rigid chassis on four ray-cast wheels.
**
** Each wheel is a ray from its mount point down the chassis' -z axis. Where it meets the
** ground (planes, analytically) or a static prop (ODE ray), a spring-damper pushes the chassis
** up along the ground normal, and the tyre adds a longitudinal force (engine on the rear
** wheels, brakes on all, hand brake on the rear) and a lateral force that removes part of the
** sideways slip each substep, the pair kept inside the friction circle mu * load. The engine
** delivers at most max_force and max_power; aerodynamic drag and rolling resistance slow the
** car. Wheels never create ODE contacts, so driving on the ground is not a collision. */
#include "driver.h"
#include "world.h"

#include <math.h>
#include <string.h>

/* The parameters CARLA's vehicles are tuned by, derived from the box and a few attributes (the
** spawn used to do this; docs/world.md "Vehicles"). */
const char *sn_vehicle_params_make(sn_vehicle_params *p, const sn_vehicle_shape *vs, double gravity_z)
{
    const sn_vec3 ex = vs->extent;
    const double mass = vs->mass, cg = vs->cg;
    if (cg >= 2 * ex.z)
        return "center_of_mass_height";
    p->cg = cg;
    p->max_power = vs->max_power;
    p->max_steer = vs->max_steer_deg * SN_DEG;
    p->max_force = mass * 4.0; /* about 0.4 g off the line */
    p->drag_area = 0.35 * (2 * ex.y) * (2 * ex.z);
    p->wheelbase = 1.2 * ex.x;
    p->track = 1.7 * ex.y;
    p->clearance = fmin(0.3, 0.4 * ex.z);
    p->rest_compression = 0.1; /* static sag: 1.6 Hz ride */
    p->ray_length = p->clearance + p->rest_compression;
    p->static_load = mass * -gravity_z / 4;
    p->spring_k = p->static_load / p->rest_compression;
    p->damper_c = 2 * 0.5 * sqrt(p->spring_k * mass / 4);
    /* Roll: springs plus a front anti-roll bar of 0.2 spring rates, tyre forces 5 cm
    ** above the contact: a sedan rolls about 4 deg/g, a truck tips near t / 2h. */
    p->arb_front = 0.2 * p->spring_k;
    p->arb_rear = 0;
    p->roll_centre = 0.05;
    /* Cornering stiffness per unit load (1/rad): softer at the front, so the car
    ** understeers, (1/10 - 1/13) rad/g = 1.3 deg/g with the weight evenly split. */
    p->corner_front = 10;
    p->corner_rear = 13;
    p->mu = 1.0;
    /* Brakes that cannot lift the rear: at most 0.8 of the deceleration at which the load on
    ** the rear wheels reaches 0 (g l_f / h); above mu for every four-wheeler shipped. */
    p->brake_mu = fmin(p->mu, 0.8 * (p->wheelbase / 2) / cg);
    if (vs->wheels != 2 && vs->wheels != 4)
        return "number_of_wheels";
    if (vs->wheels == 2) {
        /* A two-wheeler leans into a turn until the tyre force points through its centre of
        ** mass: no roll moment. The body stays upright (the lean is not drawn), the lateral
        ** forces act at the centre of mass, and a stabiliser (the rider's balance) holds it
        ** up against gravity, kerbs and knocks: 2 Hz, critically damped, about the box's
        ** roll inertia, plus what cancels gravity's m g h toppling moment. */
        double inertia = mass * (ex.y * ex.y + ex.z * ex.z) / 3, omega = 2 * SN_PI * 2.0;
        p->stab_k = inertia * omega * omega + mass * -gravity_z * cg;
        p->stab_c = 2 * sqrt(p->stab_k * inertia);
        p->lat_height = cg;
        /* The rider also keeps the nose within SN_PITCH_GUARD (a wheel thrown up a kerb, a
        ** wheelie): the same rule about the box's pitch inertia. */
        double pitch_inertia = mass * (ex.x * ex.x + ex.z * ex.z) / 3;
        p->pitch_k = pitch_inertia * omega * omega + mass * -gravity_z * cg;
        p->pitch_c = 2 * sqrt(p->pitch_k * pitch_inertia);
    } else if (p->track / (2 * cg) < 0.8) {
        /* Roll stability control (trucks' RSC, mandatory on EU heavy vehicles): a vehicle
        ** that would tip before its tyres slide keeps below 0.8 of its tipping threshold. */
        p->max_lat = 0.6 * p->track / (2 * cg) * -gravity_z;
    }
    return NULL;
}

/* CARLA's default steering curve (UE4's PhysX 4W vehicles, which CARLA's cars are): the
** fraction of max_steer_angle reached at full steer against forward speed in km/h. */
static const double steer_curve[][2] = {{0, 1.0}, {20, 0.9}, {60, 0.8}, {120, 0.7}};

/* Tyre load sensitivity: a wheel's friction falls by LOAD_SENSITIVITY of mu per static load
** of extra load (rises as much when lighter). With more roll stiffness at the front, the
** front axle loses more grip in a turn and saturates first: the car pushes, it does not spin. */
#define LOAD_SENSITIVITY 0.2

/* Two-wheelers: the pitch (rad) beyond which the rider's guard pushes the nose back. */
#define SN_PITCH_GUARD (15 * SN_DEG)

/* y at x on a polyline of n points with ascending x: linear between points, the end values
** beyond them (or `after` past the last point). */
static double curve_at(const double (*c)[2], size_t n, double x, double after)
{
    if (x <= c[0][0])
        return c[0][1];
    for (size_t i = 1; i < n; i++)
        if (x <= c[i][0]) {
            double span = c[i][0] - c[i - 1][0];
            return span > 0 ? c[i - 1][1] + (x - c[i - 1][0]) / span * (c[i][1] - c[i - 1][1]) : c[i][1];
        }
    return after;
}

double sn_vehicle_steer_limit(const sn_actor *a, double forward_speed)
{
    const sn_vehicle_params *p = a->mv->vp;
    double kmh = fabs(forward_speed) * 3.6;
    const double(*c)[2] = p->n_steer ? (const double(*)[2])p->steer_curve : steer_curve;
    size_t n = p->n_steer ? p->n_steer : sizeof steer_curve / sizeof steer_curve[0];
    return p->max_steer * curve_at(c, n, kmh, c[n - 1][1]);
}


double sn_vehicle_brake_decel(const sn_actor *a, double gravity)
{
    const sn_vehicle_params *p = a->mv->vp;
    return p->brake_mu < p->mu ? 0.65 * p->brake_mu * gravity : 0.9 * p->mu * gravity;
}

static double clampd(double v, double lo, double hi) { return v < lo ? lo : v > hi ? hi : v; }
static double sgn(double v) { return v > 0 ? 1 : v < 0 ? -1 : 0; }

typedef struct wheel_query {
    bool hit, skip_ground; /* skip_ground: the map's surfaces are passed over (a cached triangle holds) */
    double depth;
    sn_vec3 normal;
    dGeomID geom; /* what was hit, and its triangle for a trimesh (-1 otherwise) */
    int tri;
} wheel_query;

static bool is_ground(dGeomID g)
{
    const sn_actor *a = dGeomGetData(g);
    return a && a->ground;
}

static void wheel_callback(void *data, dGeomID ray, dGeomID g)
{
    wheel_query *q = data;
    if (q->skip_ground && is_ground(g))
        return;
    dContactGeom c;
    if (sn_ode_collide(ray, g, 1, &c, sizeof c) == 1 && (!q->hit || c.depth < q->depth)) {
        q->hit = true;
        q->depth = c.depth;
        q->normal = sn_v3(c.normal[0], c.normal[1], c.normal[2]);
        q->geom = g;
        q->tri = dGeomGetClass(g) == dTriMeshClass ? c.side2 : -1; /* the trimesh is the second geom */
    }
}

/* A cached triangle's vertex and two edges from it, with the arithmetic cache_tri used when it
** stored them as doubles (before mem57): the corners widen exactly, so the same bits. */
typedef struct wheel_tri_at {
    sn_vec3 v0, e1, e2;
} wheel_tri_at;

static wheel_tri_at tri_at(const struct sn_wheel_tri *c)
{
    const sn_vec3 a = sn_v3(c->p[0][0], c->p[0][1], c->p[0][2]);
    const sn_vec3 b = sn_v3(c->p[1][0], c->p[1][1], c->p[1][2]);
    const sn_vec3 d = sn_v3(c->p[2][0], c->p[2][1], c->p[2][2]);
    return (wheel_tri_at){a, sn_v3(b.x - a.x, b.y - a.y, b.z - a.z), sn_v3(d.x - a.x, d.y - a.y, d.z - a.z)};
}

/* The ray o + t dir (dir unit), 0 <= t <= len, against a cached triangle (Moller-Trumbore). */
static bool tri_ray(const wheel_tri_at *c, sn_vec3 o, sn_vec3 dir, double len, double *t_out)
{
    const sn_vec3 p = sn_v3_cross(dir, c->e2);
    const double det = sn_v3_dot(c->e1, p);
    if (fabs(det) < 1e-12)
        return false;
    const double inv = 1.0 / det;
    const sn_vec3 s = sn_v3_sub(o, c->v0);
    const double u = sn_v3_dot(s, p) * inv;
    if (u < 0 || u > 1)
        return false;
    const sn_vec3 q = sn_v3_cross(s, c->e1);
    const double v = sn_v3_dot(dir, q) * inv;
    if (v < 0 || u + v > 1)
        return false;
    const double t = sn_v3_dot(c->e2, q) * inv;
    if (t < 0 || t > len)
        return false;
    *t_out = t;
    return true;
}

_Static_assert(sizeof(struct sn_wheel_tri) == 9 * sizeof(float) + 8, "the memo lives in the padding");

/* A cached triangle's unit normal, pointing up. Derived at each use instead of stored (the same
** arithmetic as when it was stored, so the same bits): 24 bytes a wheel less on a map. */
static sn_vec3 tri_normal(const wheel_tri_at *c)
{
    sn_vec3 n = sn_v3_cross(c->e1, c->e2);
    double l = sqrt(sn_v3_dot(n, n));
    return sn_v3_scale(n, (n.z < 0 ? -1 : 1) / l);
}

/* One coordinate as a float, and whether it widens back to x itself. Rounded through a volatile:
** GCC 12.2's SLP vectoriser drops the rounding of a plain (double)(float)x in such loops at -O2
** (docs/performance.md, mem55). */
static bool as_float(double x, float *out)
{
    volatile float f = (float)x;
    *out = f;
    return (double)*out == x;
}

/* Remembers the map-surface triangle a wheel's ray met; invalid where it is degenerate, or where
** a corner is not a float (ODE's road trimeshes hold floats, so never on a map: a guard). */
static void cache_tri(struct sn_wheel_tri *c, dGeomID g, int tri)
{
    dVector3 a, b, d;
    dGeomTriMeshGetTriangle(g, tri, &a, &b, &d);
    bool exact = true;
    for (int i = 0; i < 3; i++) {
        exact &= as_float(a[i], &c->p[0][i]);
        exact &= as_float(b[i], &c->p[1][i]);
        exact &= as_float(d[i], &c->p[2][i]);
    }
    const wheel_tri_at at = tri_at(c);
    sn_vec3 n = sn_v3_cross(at.e1, at.e2);
    c->valid = exact && sqrt(sn_v3_dot(n, n)) > 1e-12;
}

/* The nearest static prop or building along dir (unit) from o within len, if nearer than what
** *hit and *dist already hold: the ODE ray against those of the n statics cand (from the
** static broadphase, in its order) whose boxes meet the ray's, as dSpaceCollide2 on the static
** space would call it; against that space itself when n is SN_SBP_NONE. */
static void static_ray(sn_world *w, const uint32_t *cand, size_t n, sn_vec3 o, sn_vec3 dir, double len, bool skip_ground,
                       bool *hit, double *dist, sn_vec3 *normal, wheel_query *got)
{
    wheel_query q = {0};
    q.skip_ground = skip_ground;
    dGeomRaySet(w->ray, o.x, o.y, o.z, dir.x, dir.y, dir.z);
    dGeomRaySetLength(w->ray, len);
    dGeomRaySetClosestHit(w->ray, 1);
    if (n == SN_SBP_NONE) {
        dSpaceCollide2(w->ray, (dGeomID)w->static_space, &q, wheel_callback);
    } else {
        dReal rb[6];
        dGeomGetAABB(w->ray, rb);
        for (size_t k = 0; k < n; k++)
            if (sn_sbp_boxes_meet(w->sbp.g[cand[k]].box, rb))
                wheel_callback(&q, w->ray, w->sbp.g[cand[k]].geom);
    }
    if (q.hit && (!*hit || q.depth < *dist)) {
        *hit = true;
        *dist = q.depth;
        *normal = sn_v3_dot(q.normal, dir) > 0 ? sn_v3_scale(q.normal, -1) : q.normal;
    }
    *got = q;
}

/* fmin/fmax without the libm call; operands are never NaN here. */
static inline double minv(double a, double b) { return b < a ? b : a; }
static inline double maxv(double a, double b) { return b > a ? b : a; }

/* The driven wheels' force at a wheel speed: apply_physics_control's force curve (CARLA's
** torque curve through its gears), else the power law. */
static double engine_force(const sn_vehicle_params *p, double speed)
{
    if (p->n_force)
        return curve_at((const double(*)[2])p->force_curve, p->n_force, fabs(speed), 0);
    return minv(p->max_force, p->max_power / maxv(fabs(speed), 1.0));
}

/* One tyre: its heading projected on the ground (wf, unit) and its side (ws = n x wf). */
typedef struct tyre_frame {
    sn_vec3 wf, ws;
} tyre_frame;

static tyre_frame tyre_frame_of(sn_vec3 heading, sn_vec3 n)
{
    tyre_frame f;
    f.wf = sn_v3_norm(sn_v3_sub(heading, sn_v3_scale(n, sn_v3_dot(heading, n))));
    f.ws = sn_v3_cross(n, f.wf); /* unit: n and wf are unit and orthogonal */
    return f;
}

/* Wheel i's mount offset from the chassis' bottom centre is sx * half_wb + sy * half_tr. */
static const double wheel_sx[4] = {1, 1, -1, -1}, wheel_sy[4] = {-1, 1, -1, 1};

/* One substep's view of a chassis: its axes and velocities, and where the wheels are mounted.
** A wheel's mount is base + sx * hwb + sy * htr (wheel_sx, wheel_sy). */
typedef struct chassis {
    sn_vec3 fwd, right, up, down, lin, ang;
    sn_vec3 hwb, htr; /* half the wheelbase along fwd, half the track along right */
    sn_vec3 base;     /* the mounts' centre */
    double len;       /* a wheel ray's length */
    double mount_z;   /* the mounts' height above the centre of mass, along up */
} chassis;

static chassis chassis_of(const sn_actor *a)
{
    const sn_vehicle_params *p = a->mv->vp;
    dBodyID b = a->ph->body;
    const dReal *R = dBodyGetRotation(b), *P = dBodyGetPosition(b);
    const dReal *lvp = dBodyGetLinearVel(b), *avp = dBodyGetAngularVel(b);
    chassis k;
    /* The chassis axes are the columns of R (ODE's rows are 4 wide). */
    k.fwd = sn_v3(R[0], R[4], R[8]);
    k.right = sn_v3(R[1], R[5], R[9]);
    k.up = sn_v3(R[2], R[6], R[10]);
    k.down = sn_v3_scale(k.up, -1);
    k.lin = sn_v3(lvp[0], lvp[1], lvp[2]);
    k.ang = sn_v3(avp[0], avp[1], avp[2]);
    k.len = p->ray_length;
    k.mount_z = -a->ph->com.z + p->clearance; /* from the centre of mass */
    k.hwb = sn_v3_scale(k.fwd, p->wheelbase / 2);
    k.htr = sn_v3_scale(k.right, p->track / 2);
    k.base = sn_v3_add(sn_v3(P[0], P[1], P[2]), sn_v3_scale(k.up, k.mount_z));
    if (a->ph->com.x != 0 || a->ph->com.y != 0) /* a centre of mass moved off the middle: the mounts stay */
        k.base = sn_v3_sub(k.base, sn_v3_add(sn_v3_scale(k.fwd, a->ph->com.x), sn_v3_scale(k.right, a->ph->com.y)));
    return k;
}

/* Turns the front wheels toward steer (in [-1, 1]) and returns their heading. steer 1 is
** max_steer_angle, less at speed by CARLA's steering curve; the wheels turn at a bounded rate
** (half a second lock to lock). */
static sn_vec3 steer_wheels(sn_actor *a, const chassis *k, double steer, double h)
{
    const sn_vehicle_params *p = a->mv->vp;
    double target = steer != 0 ? steer * sn_vehicle_steer_limit(a, sn_v3_dot(k->lin, k->fwd)) : steer; /* ±0, as ±0 times the limit */
    /* Roll stability control clamps the angle (steer keeps its meaning below the clamp): the
    ** steady lateral acceleration v^2 tan(delta) / L stays within max_lat (understeer keeps
    ** the real one lower still). */
    if (p->max_lat > 0) {
        double v = sn_v3_dot(k->lin, k->fwd), rsc = v * v > 1e-6 ? atan(p->max_lat * p->wheelbase / (v * v)) : target;
        target = clampd(target, -rsc, rsc);
    }
    double rate = 4.0 * p->max_steer * h;
    a->ph->steer_angle += clampd(target - a->ph->steer_angle, -rate, rate);
    if (a->ph->steer_angle == 0)
        return k->fwd; /* straight ahead needs no sincos */
    return sn_v3_add(sn_v3_scale(k->fwd, cos(a->ph->steer_angle)), sn_v3_scale(k->right, sin(a->ph->steer_angle)));
}

/* Where each wheel touches: the distance along its ray, the normal facing the ray, and the
** plane it stands on (src; -1 for a static prop), by which an axle's two wheels on one plane
** share a tyre frame. */
typedef struct wheel_contacts {
    bool touch[4];
    double dist[4];
    int src[4];
    sn_vec3 nrm[4];
} wheel_contacts;

/* The ground planes. A plane n . x = d meets the ray from mount o along -up at
** t = (d - n . o) / (n . -up), and n . o splits into per-vehicle terms. */
static void contacts_on_planes(const sn_world *w, const chassis *k, wheel_contacts *wc)
{
    for (size_t j = 0; j < w->n_planes; j++) {
        const sn_actor *pl = w->planes[j];
        const sn_vec3 n = pl->ph->plane_normal;
        double denom = sn_v3_dot(n, k->down);
        if (denom >= -1e-9)
            continue; /* the wheels run parallel to the plane or away from it */
        double inv = 1.0 / denom, nb = pl->ph->plane_offset - sn_v3_dot(n, k->base);
        double na = sn_v3_dot(n, k->hwb), nt = sn_v3_dot(n, k->htr);
        for (int i = 0; i < 4; i++) {
            double t = (nb - (wheel_sx[i] * na + wheel_sy[i] * nt)) * inv;
            if (t >= 0 && t <= k->len && (!wc->touch[i] || t < wc->dist[i])) {
                wc->touch[i] = true;
                wc->dist[i] = t;
                wc->nrm[i] = n;
                wc->src[i] = (int)j;
            }
        }
    }
}

/* Static props: for a wheel whose ray box meets the static space's box, the ODE ray against
** the statics near it. One broadphase query serves the four wheels: a box around their rays,
** a little wider than ODE's boxes of them (rounding), and each ray then meets only the statics
** whose boxes meet its own; with none near, no ray is set. */
static void contacts_on_statics(sn_world *w, sn_actor *a, const chassis *k, wheel_contacts *wc)
{
    if (dSpaceGetNumGeoms(w->static_space) == 0)
        return;
    const double len = k->len;
    const sn_vec3 down = k->down;
    dReal box[6], near[6] = {INFINITY, -INFINITY, INFINITY, -INFINITY, INFINITY, -INFINITY};
    dGeomGetAABB((dGeomID)w->static_space, box);
    sn_vec3 o[4];
    dReal rbox[4][6]; /* each ray's box */
    bool in[4], any = false;
    for (int i = 0; i < 4; i++) {
        o[i] = sn_v3_add(k->base, sn_v3_add(sn_v3_scale(k->hwb, wheel_sx[i]), sn_v3_scale(k->htr, wheel_sy[i])));
        sn_vec3 e = sn_v3_add(o[i], sn_v3_scale(down, len));
        const double lo[3] = {minv(o[i].x, e.x), minv(o[i].y, e.y), minv(o[i].z, e.z)};
        const double hi[3] = {maxv(o[i].x, e.x), maxv(o[i].y, e.y), maxv(o[i].z, e.z)};
        for (int j = 0; j < 3; j++)
            rbox[i][2 * j] = lo[j], rbox[i][2 * j + 1] = hi[j];
        in[i] = lo[0] <= box[1] && hi[0] >= box[0] && lo[1] <= box[3] && hi[1] >= box[2] && lo[2] <= box[5] &&
                hi[2] >= box[4];
        any |= in[i];
        for (int j = 0; in[i] && j < 3; j++) {
            near[2 * j] = minv(near[2 * j], lo[j]);
            near[2 * j + 1] = maxv(near[2 * j + 1], hi[j]);
        }
    }
    /* The map surface each wheel stood on, while its ray still meets that triangle; props
    ** and kerbs are always traced. The one approximation: where two map surfaces overlap
    ** within a wheel's ray (0.5 m: junction roads at slightly different heights, a ramp
    ** merging over a road) the wheel keeps to the one it stood on until it leaves that
    ** triangle (tracing every overlap each substep cost as much again: bench_traffic).
    ** Rays that point up (a car on its roof) trace everything. With the triangle met and no
    ** kerb, prop or building near the ray (sclear.h), ODE's answer for the rest is known
    ** to be no hit: no ODE call (most wheels, most substeps), and with all four wheels so,
    ** no broadphase query either. (Its answer would hold the cached triangle's own mesh,
    ** whose box holds the point the ray meets: the loop below runs as it did with it.) */
    double t[4];
    bool cached[4] = {false, false, false, false}, skip[4] = {false, false, false, false}, need = false;
    wheel_tri_at at[4]; /* the cached triangles' vertex and edges, widened once for the ray and the normal */
    if (any && !w->sbp.ode_only && sn_sbp_sync(w)) {
        const sn_sclear *grid = sn_sbp_clear(w, false);
        for (int i = 0; i < 4; i++) {
            struct sn_wheel_tri *c = a->mv->wheel_tri ? &a->mv->wheel_tri[i] : NULL; /* NULL: no map */
            cached[i] = in[i] && c && down.z < -0.1 && c->valid && (at[i] = tri_at(c), tri_ray(&at[i], o[i], down, len, &t[i]));
            skip[i] = cached[i] && sn_sclear_clear(grid, rbox[i], &c->clear);
            need |= in[i] && !skip[i];
        }
    } else if (any) { /* ODE's scan (benchmarks), or out of memory for the grid: every wheel traced */
        for (int i = 0; i < 4; i++) {
            struct sn_wheel_tri *c = a->mv->wheel_tri ? &a->mv->wheel_tri[i] : NULL;
            cached[i] = in[i] && c && down.z < -0.1 && c->valid && (at[i] = tri_at(c), tri_ray(&at[i], o[i], down, len, &t[i]));
            need |= in[i];
        }
    }
    const uint32_t *cand = NULL;
    size_t n = any && !need; /* no query needed: it would have found the triangles' meshes */
    if (need) {
        for (int j = 0; j < 6; j++)
            near[j] += (j & 1 ? 1 : -1) * (1e-6 + 1e-9 * fabs(near[j]));
        n = sn_sbp_query(w, near, dGeomGetCategoryBits(w->ray), dGeomGetCollideBits(w->ray), &cand);
    }
    for (int i = 0; i < 4 && n; i++) {
        if (!in[i])
            continue;
        double d0 = wc->dist[i];
        bool d0_touch = wc->touch[i];
        struct sn_wheel_tri *c = a->mv->wheel_tri ? &a->mv->wheel_tri[i] : NULL; /* NULL: no map */
        if (cached[i] && (!wc->touch[i] || t[i] < wc->dist[i])) {
            wc->touch[i] = true;
            wc->dist[i] = t[i];
            const sn_vec3 cn = tri_normal(&at[i]);
            wc->nrm[i] = sn_v3_dot(cn, down) > 0 ? sn_v3_scale(cn, -1) : cn; /* facing the ray, as ODE's */
        }
        if (!skip[i]) {
            wheel_query q;
            static_ray(w, cand, n, o[i], down, len, cached[i], &wc->touch[i], &wc->dist[i], &wc->nrm[i], &q);
            if (c && !cached[i])
                c->valid = false;
            if (c && !cached[i] && q.hit && q.tri >= 0 && is_ground(q.geom))
                cache_tri(c, q.geom, q.tri);
        }
        if (wc->dist[i] != d0 || wc->touch[i] != d0_touch)
            wc->src[i] = -1;
    }
}

/* Spring, damper and anti-roll bar loads, and the tyre forces within the friction circle, of
** the four wheels, summed to one force (*force) and its torque about the centre of mass
** (*torque). A wheel's contact point relative to the centre of mass is
** r = (mount_z - dist) * up + sx * hwb + sy * htr, so both ang x r (the contact point's
** velocity) and the torque sum of r x f split into a few cross products per vehicle instead
** of two per wheel. */
static void tyre_forces(const sn_actor *a, const chassis *k, const wheel_contacts *wc, const sn_vehicle_control *c,
                        sn_vec3 steered, double h, sn_vec3 *force_out, sn_vec3 *torque_out)
{
    const sn_vehicle_params *p = a->mv->vp;
    double comp[4];
    for (int i = 0; i < 4; i++)
        comp[i] = wc->touch[i] ? k->len - wc->dist[i] : 0;
    const sn_vec3 w_up = sn_v3_cross(k->ang, k->up), w_wb = sn_v3_cross(k->ang, k->hwb),
                  w_tr = sn_v3_cross(k->ang, k->htr);
    const double mq_h = a->ph->mass / 4 / h; /* a wheel's share of the mass, per substep */
    /* Sums for the torque: sum r x f = up x s_up + hwb x s_wb + htr x s_tr. */
    sn_vec3 force = sn_v3(0, 0, 0), s_up = force, s_wb = force, s_tr = force;
    tyre_frame fr = {{0, 0, 0}, {0, 0, 0}};
    int fr_src = -1;
    const bool straight = a->ph->steer_angle == 0; /* both axles head along fwd */
#pragma GCC unroll 4
    for (int i = 0; i < 4; i++) {
        if ((i & 1) == 0 && !straight)
            fr_src = -1; /* a new axle, a new heading */
        if (!wc->touch[i])
            continue; /* wheel in the air */
        bool front = i < 2;
        const sn_vec3 n = wc->nrm[i];
        const double sx = wheel_sx[i], sy = wheel_sy[i], above = k->mount_z - wc->dist[i]; /* r . up */
        /* The contact point's velocity: lin + ang x r. */
        sn_vec3 v = sn_v3_add(sn_v3_add(k->lin, sn_v3_scale(w_up, above)),
                              sn_v3_add(sn_v3_scale(w_wb, sx), sn_v3_scale(w_tr, sy)));
        double arb = (front ? p->arb_front : p->arb_rear) * (comp[i] - comp[i ^ 1]); /* i ^ 1: the axle's other wheel */
        double load = p->spring_k * comp[i] + arb - p->damper_c * sn_v3_dot(v, n);
        if (load <= 0)
            continue;
        /* The second wheel of an axle on the same plane reuses the first one's frame. */
        if (wc->src[i] < 0 || wc->src[i] != fr_src) {
            fr = tyre_frame_of(front ? steered : k->fwd, n);
            fr_src = wc->src[i];
        }
        double vl = sn_v3_dot(v, fr.wf), vs = sn_v3_dot(v, fr.ws);
        double stop = mq_h * fabs(vl); /* the force that would stop this wheel in one substep */
        double flong = 0, grip = 1;
        if (!front && c->throttle > 0) {
            double engine = engine_force(p, vl);
            flong += (c->reverse ? -1 : 1) * c->throttle * engine / 2;
        }
        if (c->brake > 0) {
            /* Where braking could lift the rear (brake_mu < mu: two-wheelers), a wheel brakes on
            ** at most its static load, so a load spike (a landing, the dive itself) cannot
            ** pitch the body over the front wheel (what a motorcycle's ABS does). */
            double bl = p->brake_mu < p->mu ? minv(load, p->static_load) : load;
            flong -= sgn(vl) * minv(c->brake * p->brake_mu * bl, stop);
        }
        if (c->hand_brake && !front) {
            flong -= sgn(vl) * minv(p->mu * load, stop);
            grip = 0.5;
        }
        flong -= sgn(vl) * minv(0.015 * load, stop); /* rolling resistance */
        /* A linear tyre: cornering stiffness (per unit load) times the slip angle; at low
        ** speed at most the force that removes half the side slip in one substep, which
        ** keeps a car at rest from jittering sideways. */
        double cs = (front ? p->corner_front : p->corner_rear) * load;
        /* atan2(+0, x) is +0 for every x but NaN: no call without side slip (driving straight). */
        double slip = vs != 0 || vl != vl ? atan2(fabs(vs), fabs(vl)) : 0;
        double flat = -sgn(vs) * minv(cs * slip, 0.5 * grip * mq_h * fabs(vs));
        double mu = p->mu * clampd(1 - LOAD_SENSITIVITY * (load / p->static_load - 1), 0.5, 1.3);
        /* Within the circle by more than rounding needs no square root (nearly always). */
        double fmax_ = mu * load, ft2 = flong * flong + flat * flat;
        double ft = ft2 < fmax_ * fmax_ * (1 - 1e-9) ? 0 : sqrt(ft2);
        if (ft > fmax_) {
            flong *= fmax_ / ft;
            flat *= fmax_ / ft;
        }
        /* The suspension pushes at the contact point; tyre forces act at the roll centre,
        ** roll_centre above it (what the suspension links carry instead of the springs). */
        sn_vec3 ftv = sn_v3_add(sn_v3_scale(fr.wf, flong), sn_v3_scale(fr.ws, flat));
        sn_vec3 f = sn_v3_add(sn_v3_scale(n, load), ftv);
        force = sn_v3_add(force, f);
        if (p->lat_height > 0) /* a two-wheeler: the lateral force at the centre of mass */
            s_up = sn_v3_add(s_up, sn_v3_add(sn_v3_scale(f, above),
                                             sn_v3_add(sn_v3_scale(fr.wf, flong * p->roll_centre),
                                                       sn_v3_scale(fr.ws, flat * p->lat_height))));
        else
            s_up = sn_v3_add(s_up, sn_v3_add(sn_v3_scale(f, above), sn_v3_scale(ftv, p->roll_centre)));
        s_wb = sx > 0 ? sn_v3_add(s_wb, f) : sn_v3_sub(s_wb, f);
        s_tr = sy > 0 ? sn_v3_add(s_tr, f) : sn_v3_sub(s_tr, f);
    }
    *force_out = force;
    *torque_out = sn_v3_add(sn_v3_cross(k->up, s_up), sn_v3_add(sn_v3_cross(k->hwb, s_wb), sn_v3_cross(k->htr, s_tr)));
}

/* A two-wheeler's balance, added to torque: a torque about its forward axis toward upright
** against gravity (a turn about +fwd lifts the right side: right . g_up is the roll's sine). */
static sn_vec3 add_balance(const sn_world *w, const sn_vehicle_params *p, const chassis *k, sn_vec3 torque)
{
    sn_vec3 gup = sn_v3_norm(sn_v3_scale(w->gravity, -1));
    double roll = asin(clampd(sn_v3_dot(k->right, gup), -1, 1));
    double roll_rate = sn_v3_dot(k->ang, k->fwd);
    torque = sn_v3_add(torque, sn_v3_scale(k->fwd, -(p->stab_k * roll + p->stab_c * roll_rate)));
    /* Beyond SN_PITCH_GUARD of pitch the rider pushes the nose back (a turn about +right
    ** lowers it); roads are less steep, so within it pitch is the suspension's alone. */
    double pitch = asin(clampd(sn_v3_dot(k->fwd, gup), -1, 1));
    double excess = pitch - clampd(pitch, -SN_PITCH_GUARD, SN_PITCH_GUARD);
    if (excess != 0)
        torque = sn_v3_add(torque, sn_v3_scale(k->right, p->pitch_k * excess - p->pitch_c * sn_v3_dot(k->ang, k->right)));
    return torque;
}

/* Runs for every vehicle every substep, so what the four wheels share is computed once: the
** plane terms of the ray test, the tyre frame of an axle whose two wheels stand on the same
** surface, and the cross products (tyre_forces). */
void sn_vehicle_apply(sn_world *w, sn_actor *a, double h)
{
    const sn_vehicle_params *p = a->mv->vp;
    sn_vehicle_control c = a->ph->control;
    c.throttle = clampd(c.throttle, 0, 1);
    c.brake = clampd(c.brake, 0, 1);
    c.steer = clampd(c.steer, -1, 1);
    const chassis k = chassis_of(a);
    const sn_vec3 steered = steer_wheels(a, &k, c.steer, h);

    wheel_contacts wc = {{false, false, false, false}, {0, 0, 0, 0}, {-1, -1, -1, -1}, {{0, 0, 0}}};
    contacts_on_planes(w, &k, &wc);
    contacts_on_statics(w, a, &k, &wc);

    sn_vec3 force, torque;
    tyre_forces(a, &k, &wc, &c, steered, h, &force, &torque);
    if (p->stab_k > 0)
        torque = add_balance(w, p, &k, torque);
    /* Explicit drag may not reverse the velocity within one step: a light, large body (50 kg,
    ** 40 m wide) at speed would otherwise oscillate to infinity and fail ODE's checks. (fmin's
    ** value without the libm call: the cap is positive, never NaN.) */
    double kdrag = 0.5 * 1.2 * p->drag_area * sn_v3_len(k.lin), kcap = 0.5 * a->ph->mass / h;
    kdrag = kdrag < kcap ? kdrag : kcap;
    sn_vec3 drag = sn_v3_scale(k.lin, -kdrag);
    /* One call for the four wheels and the drag: forces at points sum to a force and a torque.
    ** ODE's accumulator is +0 here (each step ends by zeroing it, nothing else adds to a
    ** vehicle), and +0 + (f + d) equals (+0 + f) + d in every case, signed zeros included:
    ** the same sum as a call for each. */
    dBodyAddForce(a->ph->body, force.x + drag.x, force.y + drag.y, force.z + drag.z);
    dBodyAddTorque(a->ph->body, torque.x, torque.y, torque.z);
}

void sn_walker_apply(sn_world *w, sn_actor *a, double h)
{
    (void)w;
    const dReal *lv = dBodyGetLinearVel(a->ph->body);
    sn_vec3 dir = sn_v3_norm(sn_v3(a->mv->walk_dir.x, a->mv->walk_dir.y, 0));
    sn_vec3 want = sn_v3_scale(dir, a->mv->walk_speed);
    sn_vec3 dv = sn_v3(want.x - lv[0], want.y - lv[1], 0);
    sn_vec3 f = sn_v3_scale(dv, 0.5 * a->ph->mass / h);
    double fmax_ = a->ph->mass * 4.0, fl = sn_v3_len(f); /* a brisk human acceleration */
    if (fl > fmax_)
        f = sn_v3_scale(f, fmax_ / fl);
    dBodyAddForce(a->ph->body, f.x, f.y, 0);
    if (a->mv->walk_speed > 0.05 && sn_v3_len(dir) > 0) {
        /* Face where you walk: the uprighting step keeps this yaw. */
        dMatrix3 r;
        dRFromAxisAndAngle(r, 0, 0, 1, atan2(dir.y, dir.x));
        dBodySetRotation(a->ph->body, r);
    }
}

void sn_autopilot_update(sn_world *w, sn_actor *a, double dt)
{
    (void)dt;
    sn_autopilot *ap = a->mv->ap;
    sn_transform t = sn_actor_world_transform(w, a);
    bool vehicle = a->kind == SN_ACTOR_VEHICLE;
    double reach = vehicle ? 3.0 : 0.6;
    /* At most one lap per frame: a looping route whose points all lie within reach (one point,
    ** or two 0.1 m apart) would otherwise be walked round forever. */
    for (size_t k = 0; !ap->done && k < ap->n_route; k++) {
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
            a->ph->control = (sn_vehicle_control){.brake = 1.0};
        else
            a->mv->walk_speed = 0;
        return;
    }
    sn_vec3 target = ap->route[ap->next];
    sn_vec3 d = sn_v3_sub(target, t.location);
    double dist = hypot(d.x, d.y);
    if (!vehicle) {
        if (dist < 1e-6) { /* standing on the target (a looped route within reach): no direction */
            a->mv->walk_speed = 0;
            return;
        }
        a->mv->walk_dir = sn_v3(d.x / dist, d.y / dist, 0);
        a->mv->walk_speed = ap->target_speed;
        return;
    }
    /* Pure pursuit toward the next point; speed by a PI loop, slower in sharp turns. */
    sn_mat3 m = sn_mat3_from_rotation(t.rotation);
    sn_vec3 local = sn_mat3_apply_t(&m, d);
    double alpha = atan2(local.y, local.x);
    double ld = fmax(dist, 4.0);
    double delta = atan(2.0 * a->mv->vp->wheelbase * sin(alpha) / ld);
    double v = sn_v3_dot(sn_actor_velocity(a), sn_mat3_col(&m, 0));
    double vt = ap->target_speed * fmax(0.3, cos(alpha));
    if (!ap->loop && ap->next + 1 == ap->n_route)
        vt = fmin(vt, sqrt(2.0 * 2.5 * fmax(dist - reach, 0)) + 0.5);
    double err = vt - v;
    ap->speed_integral = clampd(ap->speed_integral + err * dt, -5, 5);
    a->ph->control.steer = clampd(delta / sn_vehicle_steer_limit(a, v), -1, 1);
    a->ph->control.throttle = clampd(0.6 * err + 0.1 * ap->speed_integral, 0, 1);
    a->ph->control.brake = err < -1.0 ? clampd(-0.3 * err, 0, 1) : 0;
    a->ph->control.hand_brake = false;
    a->ph->control.reverse = false;
}
