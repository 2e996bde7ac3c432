/* ode_share.c — what ODE keeps process-wide, made per thread or taken in turns, so that engines
** step at once on several threads (issue 36 item 3) and stay byte-identical to each run alone.
**
** - ODE's random generator (dRand: QuickStep reorders constraints with it) is one global
**   variable. libsensim defines dRand, dRandGetSeed and dRandSetSeed itself with a per-thread
**   state, the same LCG (ODE 0.16's misc.cpp: seed = 1664525 seed + 1013904223 mod 2^32); ODE
**   calls them through its PLT, so its dRandInt and dRandReal use ours. Whether that took is
**   checked once at start (ode_private_rand); where it did not (libode loaded ahead of us, a
**   static link), every world's step takes the process-wide lock as before.
** - The trimesh colliders' cache (g_ccTrimeshCollidersCache: Debian's ODE is built without
**   per-thread caches) is global: every dCollide with a trimesh (the map's roads) takes the lock
**   for that call alone (sn_ode_collide), not for the world's whole step, so that the rest of
**   the engines' physics (QuickStep, the other pairs, the wheels on other geoms) runs at once.
** - The default threading implementation is shared: every world gets its own self-threaded one
**   (physics.c). */
#define _GNU_SOURCE /* dladdr */
#include "driver.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#define ODE_RAND_EXPORT __attribute__((visibility("default")))

static _Thread_local uint32_t rand_state;

ODE_RAND_EXPORT unsigned long dRand(void)
{
    rand_state = 1664525u * rand_state + 1013904223u;
    return rand_state;
}

ODE_RAND_EXPORT unsigned long dRandGetSeed(void) { return rand_state; }

ODE_RAND_EXPORT void dRandSetSeed(unsigned long s) { rand_state = (uint32_t)s; }

static pthread_once_t check_once = PTHREAD_ONCE_INIT;
static bool private_rand;
/* ODE's own generator, where ours did not take */
static unsigned long (*ode_get)(void) = dRandGetSeed;
static void (*ode_set)(unsigned long) = dRandSetSeed;

/* ODE's own dRandInt, called from here, must advance this thread's state and leave ODE's
** global one alone. */
static void check(void)
{
    Dl_info info;
    void *h = NULL;
    if (dladdr((void *)dWorldCreate, &info) && info.dli_fname)
        h = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
    unsigned long (*get)(void) = h ? (unsigned long (*)(void))dlsym(h, "dRandGetSeed") : NULL;
    void (*set)(unsigned long) = h ? (void (*)(unsigned long))dlsym(h, "dRandSetSeed") : NULL;
    if (h)
        dlclose(h); /* libode stays: we link it */
    if (!get || !set || get == dRandGetSeed)
        return;
    ode_get = get, ode_set = set;
    uint32_t keep = rand_state;
    unsigned long global = ode_get();
    rand_state = 12345u;
    (void)dRandInt(1000);
    private_rand = rand_state == (uint32_t)(1664525u * 12345u + 1013904223u) && ode_get() == global;
    rand_state = keep;
}

bool sn_ode_private_rand(void)
{
    pthread_once(&check_once, check);
    return private_rand;
}

static pthread_mutex_t shared_lock = PTHREAD_MUTEX_INITIALIZER;
/* this thread holds shared_lock: for a whole step (no private generator), or for one trimesh
** collision (sn_ode_collide; a longjmp out of ODE leaves through sn_ode_shared_reset) */
static _Thread_local bool held;

bool sn_ode_shared_enter(const sn_world *w)
{
    (void)w;
    bool lock = !held && !sn_ode_private_rand();
    if (lock) {
        pthread_mutex_lock(&shared_lock);
        held = true;
    }
    return lock;
}

void sn_ode_shared_leave(bool locked)
{
    if (locked) {
        held = false;
        pthread_mutex_unlock(&shared_lock);
    }
}

void sn_ode_shared_reset(void)
{
    if (held) {
        held = false;
        pthread_mutex_unlock(&shared_lock);
    }
}

int sn_ode_collide(dGeomID g1, dGeomID g2, int flags, dContactGeom *contact, int skip)
{
    bool lock = !held && (dGeomGetClass(g1) == dTriMeshClass || dGeomGetClass(g2) == dTriMeshClass);
    if (!lock)
        return dCollide(g1, g2, flags, contact, skip);
    pthread_mutex_lock(&shared_lock);
    held = true;
    int n = dCollide(g1, g2, flags, contact, skip);
    held = false;
    pthread_mutex_unlock(&shared_lock);
    return n;
}

void sn_ode_rand_set(unsigned long seed)
{
    if (sn_ode_private_rand())
        rand_state = (uint32_t)seed;
    else
        ode_set(seed);
}

unsigned long sn_ode_rand_get(void) { return sn_ode_private_rand() ? rand_state : ode_get(); }
