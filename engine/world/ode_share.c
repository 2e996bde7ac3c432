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
**   per-thread caches) is global: a world with road meshes collides under the lock.
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

bool sn_ode_shared_enter(const sn_world *w)
{
    bool lock = w->n_road_geoms > 0 || !sn_ode_private_rand();
    if (lock)
        pthread_mutex_lock(&shared_lock);
    return lock;
}

void sn_ode_shared_leave(bool locked)
{
    if (locked)
        pthread_mutex_unlock(&shared_lock);
}

void sn_ode_rand_set(unsigned long seed)
{
    if (sn_ode_private_rand())
        rand_state = (uint32_t)seed;
    else
        ode_set(seed);
}

unsigned long sn_ode_rand_get(void) { return sn_ode_private_rand() ? rand_state : ode_get(); }
