/* contacts.c — ODE's near callback, contact joints with feedback, and the per-frame sum of
** impulses per ordered actor pair that collision events are made of.
**
** Every contact of a substep gets a joint with feedback; after the step the feedback
** (force over the substep) times the substep length is added to the pair's impulse. Storage
** that cannot grow sets contacts_lost, which the step turns into an error: a silently
** dropped contact would change the output. */
#include "driver.h"

#include "../core/util.h"
#include "../map/road_mesh.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CONTACT_BLOCK 1024
#define MAX_CONTACTS_PER_PAIR 8

static sn_contact_rec *next_contact(sn_world *w)
{
    size_t block = w->n_contacts / CONTACT_BLOCK;
    if (block >= w->n_blocks) {
        sn_contact_rec **nb = realloc(w->blocks, (w->n_blocks + 1) * sizeof *nb);
        if (!nb)
            return NULL;
        w->blocks = nb;
        if (!(w->blocks[w->n_blocks] = malloc(CONTACT_BLOCK * sizeof(sn_contact_rec))))
            return NULL;
        w->n_blocks++;
    }
    return &w->blocks[block][w->n_contacts++ % CONTACT_BLOCK];
}

static bool is_drivable(uint8_t tag)
{
    return tag == SN_TAG_ROADS || tag == SN_TAG_SIDEWALK || tag == SN_TAG_GROUND ||
           tag == SN_TAG_TERRAIN || tag == SN_TAG_ROAD_LINE || tag == SN_TAG_BRIDGE;
}

/* Whether geom g's box lies wholly on the open side of ground plane pl, by more than rounding:
** then ODE's collider would report no contact. Sweep and prune hands every geom to a plane
** (its box is infinite), and a car's chassis never touches the ground it drives on (it stands
** on ray-cast wheels), so this test instead of dCollide is most of those calls' cost saved. */
static bool above_plane(const sn_actor *pl, dGeomID g)
{
    dReal b[6];
    dGeomGetAABB(g, b); /* up to date: the broadphase computed it */
    const sn_vec3 n = pl->ph->plane_normal;
    /* The box's corner deepest along -n. */
    double low = n.x * (n.x > 0 ? b[0] : b[1]) + n.y * (n.y > 0 ? b[2] : b[3]) + n.z * (n.z > 0 ? b[4] : b[5]);
    double gap = low - pl->ph->plane_offset;
    return isfinite(gap) && gap > 1e-6 * (1 + fabs(pl->ph->plane_offset) + fabs(low));
}

/* Sweep and prune calls the ground plane with every geom every substep, and nearly all lie
** wholly above it: whether this pair is such a one (or a held walker against a plane). */
static bool plane_pair_skipped(const sn_world *w, dGeomID g1, dGeomID g2)
{
    for (size_t k = 0; k < w->n_planes; k++) {
        const sn_actor *pl = w->planes[k];
        if ((g1 == pl->ph->geom && above_plane(pl, g2)) || (g2 == pl->ph->geom && above_plane(pl, g1)))
            return true;
        /* A walker held on the map's surface (walker_hold.c) stands, it does not rest on planes. */
        if ((g1 == pl->ph->geom || g2 == pl->ph->geom) && pl->ph->plane_normal.z >= 0.7) {
            const sn_actor *o = dGeomGetData(g1 == pl->ph->geom ? g2 : g1);
            if (o && o->held)
                return true;
        }
    }
    return false;
}

/* Whether two actors' geoms g1 (of a1) and g2 (of a2) make no contact by sensim's rules,
** before ODE is asked where they touch. */
static bool actor_pair_skipped(const sn_actor *a1, const sn_actor *a2, dGeomID g1, dGeomID g2)
{
    /* Vehicles meet each other only with their crash boxes (wheel contact height to roof:
    ** bumpers meet bumpers, no car drives under another one's chassis), everything else only
    ** with their chassis (above the clearance). Both geoms carry the same actor, so events
    ** name the same two actors whichever geom touched. */
    bool crash1 = g1 == a1->ph->crash, crash2 = g2 == a2->ph->crash;
    if (crash1 != crash2 || (!crash1 && a1->kind == SN_ACTOR_VEHICLE && a2->kind == SN_ACTOR_VEHICLE))
        return true;
    /* A walking pedestrian steps over the map's kerbs (15 cm): its box is not stopped by a kerb
    ** face but lifted by the sidewalk's surface it enters (roads.c stand-ins: id 0, not ground). */
    if ((a1->kind == SN_ACTOR_WALKER && !a1->fallen && a2->id == 0 && !a2->ground && a2->kind == SN_ACTOR_STATIC) ||
        (a2->kind == SN_ACTOR_WALKER && !a2->fallen && a1->id == 0 && !a1->ground && a1->kind == SN_ACTOR_STATIC))
        return true;
    /* A walker held on the map's surface (walker_hold.c) makes no contacts with it. */
    if ((a1->held && a2->id == 0 && a2->ground) || (a2->held && a1->id == 0 && a1->ground))
        return true;
    /* A fallen walker apart from the vehicles lies below their floors (driver_physics.c). */
    if ((a1->down && a2->kind == SN_ACTOR_VEHICLE) || (a2->down && a1->kind == SN_ACTOR_VEHICLE))
        return true;
    return false;
}

/* A contact joint with feedback for each of the n points ODE found between a1's body b1 and
** a2's body b2 (dyn1, dyn2: whether each is dynamic), and its record for the impulse sums. */
static void add_contacts(sn_world *w, sn_actor *a1, sn_actor *a2, dBodyID b1, dBodyID b2, bool dyn1, bool dyn2,
                         const dContactGeom *cg, int n)
{
    /* Walkers on drivable ground: support, not a collision. Frictionless under a walking
    ** walker (the walker controller is the locomotion); a fallen one slides and stops with
    ** friction. (Vehicles stand on ray-cast wheels, so their chassis never rests.) */
    bool feet = (a1->kind == SN_ACTOR_WALKER && is_drivable(a2->tag) && a2->kind == SN_ACTOR_STATIC) ||
                (a2->kind == SN_ACTOR_WALKER && is_drivable(a1->tag) && a1->kind == SN_ACTOR_STATIC);
    bool fallen = a1->fallen || a2->fallen;
    /* The map's surfaces are the ground, as a ground plane is: what rests or scrapes on them
    ** is held up, not in a collision (roads.c). Their kerb faces are obstacles. */
    bool support = feet || a1->ground || a2->ground;
    for (int i = 0; i < n; i++) {
        sn_contact_rec *rec = next_contact(w);
        if (!rec) { /* out of memory: the step reports it; a dropped contact would change the output */
            w->contacts_lost = true;
            return;
        }
        dContact c;
        memset(&c, 0, sizeof c);
        c.surface.mode = dContactApprox1 | dContactSoftCFM | dContactSoftERP;
        c.surface.mu = feet && !fallen ? 0 : 0.8;
        c.surface.soft_cfm = 1e-5;
        c.surface.soft_erp = 0.3;
        c.geom = cg[i];
        /* A walking walker that meets a sidewalk's edge head-on: ODE's box-trimesh contact at
        ** the surface's edge can push it back level, so it would stand at the kerb. A contact
        ** within a kerb's height of its soles lifts it instead (it steps up). */
        if (feet && !fallen && fabs(cg[i].normal[2]) < 0.7) {
            const sn_actor *wk = a1->kind == SN_ACTOR_WALKER ? a1 : a2;
            const dReal *wp = wk->ph->body ? dBodyGetPosition(wk->ph->body) : NULL;
            if (wp && cg[i].pos[2] - (wp[2] - wk->ph->bbox.extent.z) < 2 * SN_ROAD_KERB) {
                c.geom.normal[0] = c.geom.normal[1] = 0;
                c.geom.normal[2] = wk == a1 ? 1 : -1;
            }
        }
        dJointID j = dJointCreateContact(w->world, w->contact_group, &c);
        dJointAttach(j, b1, b2);
        memset(&rec->fb, 0, sizeof rec->fb);
        dJointSetFeedback(j, &rec->fb);
        rec->a = a1;
        rec->b = a2;
        rec->a_dynamic = dyn1;
        rec->b_dynamic = dyn2;
        rec->flipped = !b1;
        rec->pos = sn_v3(cg[i].pos[0], cg[i].pos[1], cg[i].pos[2]);
        rec->normal = sn_v3(cg[i].normal[0], cg[i].normal[1], cg[i].normal[2]);
        if (support) /* support, not a collision: no feedback to read */
            rec->a = rec->b = NULL;
    }
}

void sn_near_callback(void *data, dGeomID g1, dGeomID g2)
{
    sn_world *w = data;
    if (plane_pair_skipped(w, g1, g2)) /* first, before any other lookup */
        return;
    const dGeomID statics = (dGeomID)w->static_space;
    if (g1 == statics || g2 == statics) {
        /* A geom against the static space: the statics its box touches, from the static
        ** broadphase in the order and argument order ODE's scan would give (sbp.h). Statics
        ** have no body, so a geom without a dynamic one makes no contact with any of them. */
        dGeomID g = g1 == statics ? g2 : g1;
        dBodyID b = dGeomGetBody(g);
        if (w->sbp.ode_only || (b && !dBodyIsKinematic(b)))
            sn_sbp_collide(w, g, g1 == statics, data, sn_near_callback);
        return;
    }
    if (dGeomIsSpace(g1) || dGeomIsSpace(g2)) {
        dSpaceCollide2(g1, g2, data, sn_near_callback);
        return;
    }
    dBodyID b1 = dGeomGetBody(g1), b2 = dGeomGetBody(g2);
    /* Kinematic bodies follow their set poses: like statics, they only push dynamic ones. */
    bool dyn1 = b1 && !dBodyIsKinematic(b1), dyn2 = b2 && !dBodyIsKinematic(b2);
    if ((!dyn1 && !dyn2) || b1 == b2)
        return; /* nothing dynamic, or two geoms of one body */
    sn_actor *a1 = dGeomGetData(g1), *a2 = dGeomGetData(g2);
    if (actor_pair_skipped(a1, a2, g1, g2))
        return;
    dContactGeom cg[MAX_CONTACTS_PER_PAIR];
    int n = sn_ode_collide(g1, g2, MAX_CONTACTS_PER_PAIR, cg, sizeof cg[0]);
    if (n <= 0)
        return;
    if (g1 == a1->ph->crash) /* two vehicles crushing each other: driver_physics.c limits their rise and tilt */
        a1->crushing = a2->crushing = w->any_crushing = true;
    add_contacts(w, a1, a2, b1, b2, dyn1, dyn2, cg, n);
}

static sn_pair *pair_get(sn_world *w, uint32_t self, uint32_t other)
{
    if (w->n_pairs * 2 + 2 > w->hash_cap) {
        size_t ncap = w->hash_cap ? w->hash_cap * 2 : 256;
        uint32_t *nh = calloc(ncap, sizeof *nh);
        if (!nh)
            return NULL;
        free(w->pair_hash);
        w->pair_hash = nh;
        w->hash_cap = ncap;
        for (size_t i = 0; i < w->n_pairs; i++) {
            uint64_t k = ((uint64_t)w->pairs[i].self << 32 | w->pairs[i].other) * 0x9e3779b97f4a7c15ull;
            size_t h = (size_t)(k >> 20) & (ncap - 1);
            while (nh[h])
                h = (h + 1) & (ncap - 1);
            nh[h] = (uint32_t)i + 1;
        }
    }
    uint64_t k = ((uint64_t)self << 32 | other) * 0x9e3779b97f4a7c15ull;
    size_t h = (size_t)(k >> 20) & (w->hash_cap - 1);
    while (w->pair_hash[h]) {
        sn_pair *p = &w->pairs[w->pair_hash[h] - 1];
        if (p->self == self && p->other == other)
            return p;
        h = (h + 1) & (w->hash_cap - 1);
    }
    if (!sn_grow((void **)&w->pairs, &w->cap_pairs, w->n_pairs + 1, sizeof *w->pairs))
        return NULL;
    sn_pair *p = &w->pairs[w->n_pairs++];
    memset(p, 0, sizeof *p);
    p->self = self;
    p->other = other;
    w->pair_hash[h] = (uint32_t)w->n_pairs;
    return p;
}

static void pair_add(sn_world *w, sn_actor *self, sn_actor *other, sn_vec3 impulse, sn_vec3 pos,
                     sn_vec3 normal)
{
    sn_pair *p = pair_get(w, self->id, other->id);
    if (!p) {
        w->contacts_lost = true;
        return;
    }
    p->impulse = sn_v3_add(p->impulse, impulse);
    double mag = sn_v3_len(impulse);
    if (mag >= p->strongest) {
        p->strongest = mag;
        p->pos = pos;
        p->normal = normal;
    }
}

/* Reads joint feedback of this substep's contacts into the frame's pairs. */
void sn_gather_contacts(sn_world *w, double h)
{
    for (size_t i = 0; i < w->n_contacts; i++) {
        sn_contact_rec *r = &w->blocks[i / CONTACT_BLOCK][i % CONTACT_BLOCK];
        if (!r->a)
            continue;
        /* f1 acts on body 1 (a), f2 on body 2 (b); a static side feels the reaction. ODE
        ** attaches a joint whose first body is none the other way round (dJOINT_REVERSE) and
        ** reports that body's force in f1: with a static a (the static space sorted first in
        ** sweep and prune), reading f1 as a's lost the whole impulse and the event. */
        sn_vec3 f1 = sn_v3(r->fb.f1[0], r->fb.f1[1], r->fb.f1[2]);
        sn_vec3 f2 = sn_v3(r->fb.f2[0], r->fb.f2[1], r->fb.f2[2]);
        if (r->flipped) {
            sn_vec3 t = f1;
            f1 = f2, f2 = t;
        }
        sn_vec3 on_a = r->a_dynamic ? f1 : sn_v3_scale(f2, -1);
        sn_vec3 on_b = r->b_dynamic ? f2 : sn_v3_scale(f1, -1);
        /* Actor 0 is the map (a kerb, roads.c): collisions are reported to the actor that hit it. */
        if (r->a->id)
            pair_add(w, r->a, r->b, sn_v3_scale(on_a, h), r->pos, r->normal);
        if (r->b->id)
            pair_add(w, r->b, r->a, sn_v3_scale(on_b, h), r->pos, sn_v3_scale(r->normal, -1));
    }
}

int sn_pair_cmp(const void *x, const void *y)
{
    const sn_pair *a = x, *b = y;
    if (a->self != b->self)
        return a->self < b->self ? -1 : 1;
    return a->other < b->other ? -1 : a->other > b->other;
}

