/* png_share.c — the table of shared PNGs (png_share.h): one per process, under one lock. */
#include "png_share.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Tickets in the table: more than the image writers ever have pending (their queues), and a
** byte budget for PNGs published but not yet taken (a consumer that never comes for some). */
#define ENTRIES 64
#define BUDGET (64u << 20)

enum { E_EMPTY, E_PENDING, E_READY, E_FAILED };

typedef struct entry {
    uint64_t id;
    int state;
    bool waited;     /* a consumer waits for it: not evicted */
    bool dropped;    /* nobody will take it: freed when published */
    uint8_t *png;
    size_t n;
} entry;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t published = PTHREAD_COND_INITIALIZER;
static entry table[ENTRIES];
static uint64_t next_id = 1;
static int wanted;
static size_t held; /* bytes of PNG in READY entries */

static _Thread_local struct {
    uint64_t ticket;
    const void *msg;
    size_t size;
    sn_converter conv;
} announced;

static void clear(entry *e)
{
    if (e->state == E_READY)
        held -= e->n;
    free(e->png);
    *e = (entry){0};
}

static entry *find(uint64_t id)
{
    for (int i = 0; id && i < ENTRIES; i++)
        if (table[i].state != E_EMPTY && table[i].id == id)
            return &table[i];
    return NULL;
}

/* The oldest entry that may go (made or failed, nobody waiting), or NULL. */
static entry *oldest_done(void)
{
    entry *o = NULL;
    for (int i = 0; i < ENTRIES; i++) {
        entry *e = &table[i];
        if ((e->state == E_READY || e->state == E_FAILED) && !e->waited && (!o || e->id < o->id))
            o = e;
    }
    return o;
}

void sn_png_share_want(int delta)
{
    pthread_mutex_lock(&mu);
    wanted += delta;
    if (!wanted) /* nobody left to take what is there */
        for (int i = 0; i < ENTRIES; i++)
            if (table[i].state == E_READY || table[i].state == E_FAILED)
                clear(&table[i]);
    pthread_mutex_unlock(&mu);
}

uint64_t sn_png_share_open(void)
{
    uint64_t id = 0;
    pthread_mutex_lock(&mu);
    if (wanted > 0) {
        entry *e = NULL;
        for (int i = 0; !e && i < ENTRIES; i++)
            if (table[i].state == E_EMPTY)
                e = &table[i];
        if (!e && (e = oldest_done()))
            clear(e);
        if (e) {
            e->id = id = next_id++;
            e->state = E_PENDING;
        }
    }
    pthread_mutex_unlock(&mu);
    return id;
}

void sn_png_share_publish(uint64_t ticket, const uint8_t *png, size_t n)
{
    if (!ticket)
        return;
    uint8_t *copy = png && n ? malloc(n) : NULL;
    if (copy)
        memcpy(copy, png, n);
    pthread_mutex_lock(&mu);
    entry *e = find(ticket);
    if (e && e->state == E_PENDING) {
        e->png = copy, e->n = copy ? n : 0;
        e->state = copy ? E_READY : E_FAILED;
        copy = NULL;
        if (e->state == E_READY)
            held += e->n;
        if (e->dropped || !wanted)
            clear(e);
        for (entry *o; held > BUDGET && (o = oldest_done()) && o != e;)
            clear(o);
        pthread_cond_broadcast(&published);
    }
    pthread_mutex_unlock(&mu);
    free(copy);
}

void sn_png_share_announce(uint64_t ticket, const void *msg, size_t size, sn_converter c)
{
    announced.ticket = ticket, announced.msg = msg, announced.size = size, announced.conv = c;
}

uint64_t sn_png_share_current(const void *msg, size_t size, sn_converter *c)
{
    if (!announced.ticket || announced.msg != msg || announced.size != size)
        return 0;
    *c = announced.conv;
    return announced.ticket;
}

bool sn_png_share_take(uint64_t ticket, uint8_t **png, size_t *n)
{
    bool ok = false;
    pthread_mutex_lock(&mu);
    entry *e = find(ticket);
    if (e) {
        e->waited = true;
        while (e->state == E_PENDING)
            pthread_cond_wait(&published, &mu);
        if ((ok = e->state == E_READY)) {
            *png = e->png, *n = e->n;
            held -= e->n;
            e->png = NULL;
            e->state = E_FAILED; /* cleared below without freeing what was handed over */
        }
        clear(e);
    }
    pthread_mutex_unlock(&mu);
    return ok;
}

void sn_png_share_drop(uint64_t ticket)
{
    pthread_mutex_lock(&mu);
    entry *e = find(ticket);
    if (e && e->state != E_PENDING)
        clear(e);
    else if (e) /* the writer still publishes it */
        e->waited = false, e->dropped = true;
    pthread_mutex_unlock(&mu);
}
