/* xosc_signal.c — traffic signals in a scenario: RoadNetwork/TrafficSignals controllers cycling
** through their phases (each phase a list of signal states, for its duration, from the
** controller's delay after its reference's start), TrafficSignalStateAction and
** TrafficSignalControllerAction, and the two conditions. The states live here; the engine
** (xosc_engine.c) passes each change to the map's light of that OpenDRIVE signal id and answers
** for signals the storyboard never set. */
#include "xosc_run.h"

#include "../core/util.h"

#include <strings.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EPS 1e-9

static bool word_is(const char *a, const char *b)
{
    while (*a == ' ')
        a++;
    size_t n = strlen(b);
    if (strncasecmp(a, b, n) != 0)
        return false;
    for (a += n; *a == ' '; a++)
        ;
    return *a == 0;
}

int sn_xsig_colour(const char *state)
{
    if (word_is(state, "red"))
        return 0;
    if (word_is(state, "yellow") || word_is(state, "amber"))
        return 1;
    if (word_is(state, "green"))
        return 2;
    if (word_is(state, "off"))
        return 3;
    /* esmini's lamp list: red;yellow;green, each on or off */
    char lamp[3][8];
    int n = 0;
    const char *p = state;
    while (n < 3) {
        const char *q = strchr(p, ';');
        size_t len = q ? (size_t)(q - p) : strlen(p);
        if (len >= sizeof lamp[0])
            return -1;
        memcpy(lamp[n], p, len);
        lamp[n++][len] = 0;
        if (!q)
            break;
        p = q + 1;
    }
    if (n != 3 || strchr(p, ';'))
        return -1;
    int on = -1;
    for (int k = 0; k < 3; k++) {
        if (word_is(lamp[k], "on")) {
            if (on < 0)
                on = k; /* red and yellow together (a European red-amber) reads as red */
        } else if (!word_is(lamp[k], "off")) {
            return -1;
        }
    }
    return on < 0 ? 3 : on;
}

static sn_xsig *find(sn_xrun *r, const char *id)
{
    for (uint32_t k = 0; k < r->n_sig; k++)
        if (strcmp(r->sig[k].id, id) == 0)
            return &r->sig[k];
    return NULL;
}

static bool set_state(sn_xrun *r, const char *id, const char *state, int line)
{
    sn_xsig *s = find(r, id);
    if (!s) {
        sn_xsig *nw = realloc(r->sig, (r->n_sig + 1) * sizeof *nw);
        if (!nw) {
            snprintf(r->why, sizeof r->why, "%s:%d: out of memory", r->x->path, line);
            return !(r->failed = true);
        }
        r->sig = nw;
        s = &r->sig[r->n_sig];
        memset(s, 0, sizeof *s);
        if (!(s->id = sn_strdup(id))) {
            snprintf(r->why, sizeof r->why, "%s:%d: out of memory", r->x->path, line);
            return !(r->failed = true);
        }
        r->n_sig++;
    }
    if (strcmp(s->state, state) != 0) {
        snprintf(s->state, sizeof s->state, "%s", state);
        s->dirty = true;
    }
    return true;
}

static bool enter_phase(sn_xrun *r, int k, int phase, double t0)
{
    const sn_xsigctl *c = &r->x->sigctl[k];
    const sn_xphase *ph = &c->phases[phase];
    r->ctl[k].phase = phase;
    r->ctl[k].t_next = t0 + ph->duration;
    for (uint32_t j = 0; j < ph->n; j++)
        if (!set_state(r, ph->states[j].id, ph->states[j].state, c->line))
            return false;
    return true;
}

bool sn_xsig_init(sn_xrun *r)
{
    uint32_t n = r->x->n_sigctl;
    if (!n)
        return true;
    if (!(r->ctl = calloc(n, sizeof *r->ctl))) {
        snprintf(r->why, sizeof r->why, "%s: out of memory", r->x->path);
        return false;
    }
    /* a controller starts its delay after its reference's start (references are earlier ones) */
    for (uint32_t k = 0; k < n; k++) {
        const sn_xsigctl *c = &r->x->sigctl[k];
        r->ctl[k].phase = -1;
        r->ctl[k].t_next = c->delay + (c->reference >= 0 ? r->ctl[c->reference].t_next : 0);
    }
    return true;
}

void sn_xsig_step(sn_xrun *r)
{
    for (uint32_t k = 0; k < r->x->n_sigctl; k++) {
        const sn_xsigctl *c = &r->x->sigctl[k];
        if (!c->n_phases)
            continue;
        /* phases whose start has come, in order (a step may pass a short one) */
        for (int guard = 0; r->t >= r->ctl[k].t_next - EPS && guard < 100000; guard++)
            if (!enter_phase(r, (int)k, (r->ctl[k].phase + 1) % (int)c->n_phases, r->ctl[k].t_next))
                return;
    }
}

bool sn_xsig_action(sn_xrun *r, const sn_xaction *a)
{
    if (a->kind == SN_XA_SIGNAL_STATE)
        return set_state(r, a->signal, a->sstate, a->line);
    const sn_xsigctl *c = &r->x->sigctl[a->ref];
    for (uint32_t j = 0; j < c->n_phases; j++)
        if (strcmp(c->phases[j].name, a->sstate) == 0)
            return enter_phase(r, a->ref, (int)j, r->t); /* the phase from now, its full duration */
    return true;
}

bool sn_xsig_cond(sn_xrun *r, sn_xcond *c)
{
    if (c->kind == SN_XC_SIGNAL_CTL) {
        int ph = r->ctl ? r->ctl[c->sigctl].phase : -1;
        c->measured = ph;
        return ph >= 0 && strcmp(r->x->sigctl[c->sigctl].phases[ph].name, c->svalue) == 0;
    }
    char now[64] = "";
    const sn_xsig *s = find(r, c->param);
    if (s)
        snprintf(now, sizeof now, "%s", s->state);
    else if (!r->signal_state || !r->signal_state(r->user, c->param, now, sizeof now))
        return false;
    int a = sn_xsig_colour(now), b = sn_xsig_colour(c->svalue);
    c->measured = a;
    return a >= 0 && b >= 0 ? a == b : strcmp(now, c->svalue) == 0;
}

void sn_xsig_free(sn_xrun *r)
{
    for (uint32_t k = 0; k < r->n_sig; k++)
        free(r->sig[k].id);
    free(r->sig);
    free(r->ctl);
    r->sig = NULL;
    r->ctl = NULL;
    r->n_sig = 0;
}
