/* postfx_tables.c — pfx_init's tables, once per process for each key (postfx_tables.h). One
** mutex guards the cache; a miss computes outside it (two cameras may both compute the same
** tables, and the second's copy is dropped). Bounded: past MAX_ENTRIES keys the oldest entry
** goes. */
#include "postfx_tables.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ENTRIES 16
#define KEY_N 9

typedef struct entry {
    double key[KEY_N];
    float dec[256];
    uint8_t tone8[PFX_LUT];
    uint32_t *tcell; /* NULL: none (the square-root path) */
    size_t n_cell;
    uint32_t tbase, ttop, tshift;
    double wb[9];
    pfx_meter meter;
} entry;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static entry *ents[MAX_ENTRIES];
static unsigned n_ents, oldest;
static unsigned long hits;

/* Every attribute the tables read (pfx_tone_curve's five, the gamma, the meter's calibration,
** the white balance's two), compared by their bits. */
static void key_of(const pfx_params *p, double k[KEY_N])
{
    const double v[KEY_N] = {p->slope, p->toe,   p->shoulder, p->black_clip, p->white_clip,
                             p->gamma, p->calibration, p->temp,  p->tint};
    memcpy(k, v, sizeof v);
}

static size_t cells_of(const pfx *x) { return x->tcell ? ((size_t)(x->ttop - x->tbase) >> x->tshift) + 1 : 0; }

static entry *find(const double k[KEY_N])
{
    for (unsigned i = 0; i < n_ents; i++)
        if (memcmp(ents[i]->key, k, sizeof ents[i]->key) == 0)
            return ents[i];
    return NULL;
}

static void entry_free(entry *e)
{
    if (e)
        free(e->tcell);
    free(e);
}

/* The cached tables into x (under mu); false: out of memory for x's cells. */
static bool copy_out(const entry *e, pfx *x)
{
    uint32_t *c = NULL;
    if (e->tcell && !(c = malloc(e->n_cell * sizeof *c)))
        return false;
    if (c)
        memcpy(c, e->tcell, e->n_cell * sizeof *c);
    memcpy(x->dec, e->dec, sizeof x->dec);
    memcpy(x->tone8, e->tone8, sizeof x->tone8);
    x->tcell = c, x->tbase = e->tbase, x->ttop = e->ttop, x->tshift = e->tshift;
    memcpy(x->wb, e->wb, sizeof x->wb);
    x->meter = e->meter;
    return true;
}

/* A new entry holding x's computed tables (NULL: out of memory). */
static entry *entry_of(const pfx *x, const double k[KEY_N])
{
    entry *e = calloc(1, sizeof *e);
    if (!e)
        return NULL;
    memcpy(e->key, k, sizeof e->key);
    if ((e->n_cell = cells_of(x)) && !(e->tcell = malloc(e->n_cell * sizeof *e->tcell))) {
        free(e);
        return NULL;
    }
    if (e->tcell)
        memcpy(e->tcell, x->tcell, e->n_cell * sizeof *e->tcell);
    memcpy(e->dec, x->dec, sizeof e->dec);
    memcpy(e->tone8, x->tone8, sizeof e->tone8);
    e->tbase = x->tbase, e->ttop = x->ttop, e->tshift = x->tshift;
    memcpy(e->wb, x->wb, sizeof e->wb);
    e->meter = x->meter;
    return e;
}

void pfx_tables_fill(pfx *x)
{
    double k[KEY_N];
    key_of(&x->p, k);
    pthread_mutex_lock(&mu);
    const entry *hit = find(k);
    const bool copied = hit && copy_out(hit, x);
    hits += copied;
    pthread_mutex_unlock(&mu);
    if (copied)
        return;
    pfx_tables_compute(x);
    if (hit)
        return; /* cached, but no memory for x's copy: x computed its own */
    entry *e = entry_of(x, k), *dead = NULL;
    if (!e)
        return;
    pthread_mutex_lock(&mu);
    if (find(k)) { /* another camera cached the same tables meanwhile */
        dead = e;
    } else if (n_ents < MAX_ENTRIES) {
        ents[n_ents++] = e;
    } else {
        dead = ents[oldest];
        ents[oldest] = e;
        oldest = (oldest + 1) % MAX_ENTRIES;
    }
    pthread_mutex_unlock(&mu);
    entry_free(dead);
}

unsigned long pfx_tables_hits(void)
{
    pthread_mutex_lock(&mu);
    unsigned long h = hits;
    pthread_mutex_unlock(&mu);
    return h;
}

/* The plugin unloaded (dlclose) or the process ending: the cache's memory back. */
__attribute__((destructor)) static void tables_drop(void)
{
    pthread_mutex_lock(&mu);
    for (unsigned i = 0; i < n_ents; i++)
        entry_free(ents[i]);
    n_ents = 0, oldest = 0;
    pthread_mutex_unlock(&mu);
}
