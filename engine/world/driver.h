/* driver.h — world drivers: what advances the world state each frame.
**
** A frame of dt runs every driver's begin, then n_sub substeps in which every driver's
** substep runs in order, then every driver's end. Two drivers exist:
**   kinematic  actors whose poses are set from outside (replay, the API, scripts): each frame
**              it moves them from their pose to their target (or along their velocity),
**              placing their kinematic ODE bodies at each substep so they push dynamic ones;
**   physics    ODE: vehicle and walker forces, collision detection, QuickStep, contacts.
** Each driver writes the state (sn_actor_state) of the actors it owns in end(); nothing
** outside the drivers reads an ODE body. */
#ifndef SN_WORLD_DRIVER_H
#define SN_WORLD_DRIVER_H

#include "world.h"

#include <setjmp.h>

typedef struct sn_driver {
    const char *name;
    /* Before the first substep: plan the frame. */
    sn_status (*begin)(sn_world *w, double dt, sn_error *err);
    /* One substep of length h: index 0..n_sub-1. */
    sn_status (*substep)(sn_world *w, int index, int n_sub, double h, sn_error *err);
    /* After the last substep: write the state of the actors this driver owns. */
    void (*end)(sn_world *w, double dt);
} sn_driver;

extern const sn_driver sn_kinematic_driver;
extern const sn_driver sn_physics_driver;

/* contacts.c */
void sn_near_callback(void *data, dGeomID g1, dGeomID g2);
void sn_gather_contacts(sn_world *w, double h);
int sn_pair_cmp(const void *x, const void *y);

/* physics.c: the guard around ODE calls (its error handler longjmps to `guard`), and the
** world's own state of ODE's random generator (w->ode_seed), brought in and taken out; worlds
** that must take turns (ode_share.c) hold the process-wide lock in between. */
void sn_ode_enter(jmp_buf *guard, const sn_world *w);
unsigned long sn_ode_leave(void);

/* ode_share.c: whether ODE's random generator is this thread's own (libsensim's dRand took);
** the process-wide lock a world takes around a whole step's ODE calls when its generator is
** not per thread, true when taken (never twice on one thread); sn_ode_shared_reset drops it
** after a longjmp out of ODE; ODE's generator's state on this thread (ours, or ODE's global
** one where ours did not take). */
bool sn_ode_private_rand(void);
bool sn_ode_shared_enter(const sn_world *w);
void sn_ode_shared_leave(bool locked);
void sn_ode_shared_reset(void);
/* dCollide, holding the process-wide lock for the call when either geom is a trimesh (ODE's
** trimesh colliders share one global cache in Debian's build): every engine-side dCollide. */
int sn_ode_collide(dGeomID g1, dGeomID g2, int flags, dContactGeom *contact, int skip);
void sn_ode_rand_set(unsigned long seed);
unsigned long sn_ode_rand_get(void);
const char *sn_ode_message(void);

/* Reads a body's pose and velocities into a state of the actor's origin (physics.c); `com`
** is the body's offset from the origin in the actor frame (sn_actor.com). */
void sn_state_from_body(sn_actor_state *st, dBodyID b, sn_vec3 com);
/* Places a body at a state's pose and velocities (of the origin). */
void sn_body_from_state(dBodyID b, const sn_actor_state *st, sn_vec3 com);
/* Whether b already holds what sn_body_from_state(b, st, com) would set (position, quaternion,
** velocities, compared exactly): placing it again would change nothing but mark its geoms moved. */
bool sn_body_at_state(dBodyID b, const sn_actor_state *st, sn_vec3 com);

#endif
