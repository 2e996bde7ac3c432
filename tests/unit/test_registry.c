/* The actor registry's lookup by id (engine/world/actor.c): sn_world_find goes straight to
** index id - first id when the ids there are dense and searches below it otherwise. Checked
** against a plain list through removals at the front, middle and end, ids handed in with
** gaps, and ids that were never used or are gone: every id answers its own actor or NULL. */
#include "../../engine/core/rng.h"
#include "../../engine/world/world.h"
#include "../check.h"

#include <stdlib.h>

#define MAX_IDS 600

static sn_actor *by_id[MAX_IDS]; /* what the registry should answer, NULL where none */

static void check_all(sn_world *w, const char *when)
{
    for (uint32_t id = 0; id < MAX_IDS; id++) {
        sn_actor *got = sn_world_find(w, id);
        CHECK(got == by_id[id], "%s: id %u: %p, expected %p", when, id, (void *)got, (void *)by_id[id]);
        if (got)
            CHECK(got->id == id, "%s: id %u found actor %u", when, id, got->id);
    }
}

static void add(sn_world *w, uint32_t id)
{
    sn_actor *a = sn_world_add(w, SN_ACTOR_STATIC, id);
    CHECK(a != NULL, "add %u", id);
    if (a && a->id < MAX_IDS)
        by_id[a->id] = a;
}

static void drop(sn_world *w, uint32_t id)
{
    sn_world_remove(w, id);
    by_id[id] = NULL;
}

int main(void)
{
    sn_world w;
    sn_error err = {0};
    CHECK(sn_world_init(&w, 1, &err) == SN_OK, "init: %s", err.msg);
    check_all(&w, "empty");
    for (int i = 0; i < 100; i++) /* dense: ids in turn */
        add(&w, 0);
    check_all(&w, "dense");
    drop(&w, w.actors[0]->id); /* the front: every guess is one too high */
    drop(&w, 50);
    drop(&w, w.actors[w.n_actors - 1]->id);
    check_all(&w, "after removals");
    add(&w, 300); /* a gap: ids above it sit far below id - first */
    for (int i = 0; i < 20; i++)
        add(&w, 0);
    add(&w, 500);
    check_all(&w, "with gaps");
    sn_rng g;
    sn_rng_seed(&g, 7);
    for (int k = 0; k < 60; k++) { /* removals anywhere, then more ids */
        uint32_t id = (uint32_t)(sn_rng_uniform(&g) * MAX_IDS);
        if (by_id[id])
            drop(&w, id);
        if (k % 10 == 0)
            add(&w, 0);
    }
    check_all(&w, "random removals");
    while (w.n_actors)
        drop(&w, w.actors[0]->id);
    check_all(&w, "all removed");
    sn_world_free(&w);
    return CHECK_DONE();
}
