/* walker_hold.c — a walking walker on a map is held on the map's surface by its controller.
**
** CARLA's AI walkers are placed by their navigation, not rested on contacts: each tick the
** crowd's agent position on the navigation mesh becomes the walker's transform
** (LibCarla/source/carla/client/detail/WalkerNavigation.cpp, Tick: ApplyWalkerState with
** Navigation::GetWalkerTransform, LibCarla/source/carla/nav/Navigation.cpp), so its height is
** the mesh's under it. sensim's walkers were boxes held up by box-trimesh contacts
** with the road meshes, up to 8 a pair, solved by QuickStep every substep: the town's scene of
** 100 vehicles and 50 walkers spent about 60 % of its frame there (docs/performance.md). Now a
** walking walker over a map surface within a step's reach stands on it: its soles are put at the
** highest surface a vertical ray meets under its centre, it feels no gravity and its vertical
** speed is zero, and it makes no contacts with the map's surfaces or with ground planes. Its box
** keeps every other contact (vehicles, walkers, props, walls), so it is struck, seen by rays and
** cameras as before. A fallen walker, one with no surface in reach (off the map, in the air) and
** every walker of a world without a map are rigid bodies on contacts as before. */
#include "driver.h"
#include "world.h"

#include "../map/road_mesh.h"

#include <math.h>
#include <stdlib.h>

/* How far above and below its soles a walker finds the surface it stands on (m): two kerbs up
** (CARLA's character movement steps up 45 cm; sensim's sidewalks stand 15 cm high), as far down
** (a kerb down, ramps). Beyond that it falls or is stopped as a rigid body. */
#define SN_WALKER_REACH (2 * SN_ROAD_KERB)

/* The triangle a walker stands on, in the world frame: while the vertical line through the
** walker still meets it within reach, the map's meshes are not traced again (a walker crosses
** a triangle in several seconds). Map surfaces do not overlap within a walker's reach but where
** a junction's connecting roads lie on each other, a few millimetres apart at most: there the
** walker keeps the one it stood on. Valid for the statics of static_gen. */
struct sn_walker_ground {
    uint64_t gen;
    bool valid;
    double x0, y0, z0, ax, ay, az, bx, by, bz; /* a vertex and the two edges from it */
};

typedef struct hold_query {
    bool hit;
    double depth; /* the nearest hit's distance along the ray */
    dGeomID geom; /* and its mesh and triangle */
    int tri;
} hold_query;

static void hold_callback(void *data, dGeomID ray, dGeomID g)
{
    hold_query *q = data;
    const sn_actor *s = dGeomGetData(g);
    if (!s || s->id != 0 || !s->ground) /* the map's surfaces alone: not kerb faces, not props */
        return;
    dContactGeom c;
    if (sn_ode_collide(ray, g, 1, &c, sizeof c) == 1 && (!q->hit || c.depth < q->depth)) {
        q->hit = true;
        q->depth = c.depth;
        q->geom = g;
        q->tri = c.side2;
    }
}

/* The height of cached triangle c at (x, y), if the vertical line there meets it (edges
** included) and it is not vertical. */
static bool ground_at(const struct sn_walker_ground *c, double x, double y, double *z)
{
    const double det = c->ax * c->by - c->ay * c->bx;
    if (fabs(det) < 1e-12)
        return false;
    const double px = x - c->x0, py = y - c->y0;
    const double u = (px * c->by - py * c->bx) / det, v = (c->ax * py - c->ay * px) / det;
    if (u < 0 || v < 0 || u + v > 1)
        return false;
    *z = c->z0 + u * c->az + v * c->bz;
    return true;
}

static void remember(struct sn_walker_ground *c, dGeomID g, int tri, uint64_t gen)
{
    dVector3 a, b, d;
    dGeomTriMeshGetTriangle(g, tri, &a, &b, &d);
    c->x0 = a[0], c->y0 = a[1], c->z0 = a[2];
    c->ax = b[0] - a[0], c->ay = b[1] - a[1], c->az = b[2] - a[2];
    c->bx = d[0] - a[0], c->by = d[1] - a[1], c->bz = d[2] - a[2];
    c->gen = gen;
    c->valid = true;
}

/* The map surface under (x, y) between top and top - 2 * SN_WALKER_REACH: the highest a vertical
** ray meets, through the static broadphase. */
static bool trace_ground(sn_world *w, double x, double y, double top, hold_query *q)
{
    dGeomRaySet(w->ray, x, y, top, 0, 0, -1);
    dGeomRaySetLength(w->ray, 2 * SN_WALKER_REACH);
    dGeomRaySetClosestHit(w->ray, 1);
    dReal rb[6];
    dGeomGetAABB(w->ray, rb);
    const uint32_t *cand;
    size_t n = sn_sbp_query(w, rb, dGeomGetCategoryBits(w->ray), dGeomGetCollideBits(w->ray), &cand);
    if (n == SN_SBP_NONE)
        dSpaceCollide2(w->ray, (dGeomID)w->static_space, q, hold_callback);
    else
        for (size_t k = 0; k < n; k++)
            hold_callback(q, w->ray, w->sbp.g[cand[k]].geom);
    return q->hit;
}

/* Whether a walking walker stands on a map surface this substep (a->held), and if so puts it
** there. Called before the substep's collision detection; contacts.c skips its contacts with
** the map's surfaces and ground planes while held. */
void sn_walker_hold(sn_world *w, sn_actor *a)
{
    a->held = false;
    if (!w->roads || !w->n_road_geoms || a->fallen)
        return;
    dBodyID b = a->ph->body;
    const dReal *p = dBodyGetPosition(b);
    const double half = a->ph->bbox.extent.z, soles = p[2] - half, top = soles + SN_WALKER_REACH;
    if (!a->mv->ground)
        a->mv->ground = calloc(1, sizeof *a->mv->ground); /* NULL: traced every substep */
    struct sn_walker_ground *c = a->mv->ground;
    double floor_z = -INFINITY, z;
    bool hit = false;
    if (c && c->valid && c->gen == w->static_gen && ground_at(c, p[0], p[1], &z) && z <= top &&
        z >= top - 2 * SN_WALKER_REACH) {
        floor_z = z, hit = true;
    } else {
        hold_query q = {0};
        if ((hit = trace_ground(w, p[0], p[1], top, &q))) {
            floor_z = top - q.depth;
            if (c)
                remember(c, q.geom, q.tri, w->static_gen);
        }
    }
    /* A ground plane (up-facing) higher than the map's surface there is the floor instead. */
    for (size_t k = 0; k < w->n_planes; k++) {
        const sn_vec3 nrm = w->planes[k]->ph->plane_normal;
        if (nrm.z < 0.7)
            continue;
        double z = (w->planes[k]->ph->plane_offset - nrm.x * p[0] - nrm.y * p[1]) / nrm.z;
        if (z <= top && z >= soles - SN_WALKER_REACH && z > floor_z)
            floor_z = z;
    }
    if (!hit) /* no map surface under it: a rigid body on its contacts */
        return;
    a->held = true;
    const dReal *v = dBodyGetLinearVel(b);
    dBodySetPosition(b, p[0], p[1], floor_z + half);
    dBodySetLinearVel(b, v[0], v[1], 0);
}
