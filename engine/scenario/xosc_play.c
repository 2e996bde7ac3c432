/* xosc_play.c — the storyboard: element states and transitions as OpenSCENARIO 1.2 defines
** them (standbyState, runningState, completeState; start, end, stop and skip transitions),
** triggers (condition groups: an OR of ANDs) with edges and delays, and the storyboard log.
**
** A step: entities move to the new time (xosc_move.c); action instances that finished end;
** the storyboard's StopTrigger, then each Act's Start/StopTrigger and each standby Event's
** StartTrigger are evaluated on the state at the new time, in document order; what starts acts
** from the next step on. Completion goes up the tree (actions -> event -> maneuver -> group ->
** act -> story) in the same step. Triggers are evaluated only while their element waits on them,
** so an edge is an edge seen while waiting. */
#include "xosc_pos.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- states ---- */

static void transition(sn_xrun *r, int el, sn_xstate to, int trans)
{
    sn_xelem *e = &r->x->elems[el];
    sn_xstate from = e->state;
    e->state = to;
    e->trans_seq[trans] = ++r->seq;
    sn_xpl_log_transition(r, el, from, to, trans);
}

static bool start_actions(sn_xrun *r, int ev);
static void lightq_drop(sn_xrun *r, uint32_t k);

/* Every element below el (and el) that is not complete stops: stopTransition to completeState. */
static void stop_tree(sn_xrun *r, int el)
{
    sn_xelem *e = &r->x->elems[el];
    for (uint32_t k = 0; k < e->n_children; k++)
        stop_tree(r, e->children[k]);
    if (e->kind == SN_XK_ACTION && e->state == SN_XST_RUNNING) {
        for (uint32_t i = 0; i < r->x->n_ents; i++)
            sn_xmove_stop(r, (int)i, el);
        for (uint32_t k = 0; k < r->n_lightq; k++)
            if (r->lightq[k].elem == el)
                lightq_drop(r, k--);
        e->running = 0;
    }
    if (r->x->elems[el].state != SN_XST_COMPLETE)
        transition(r, el, SN_XST_COMPLETE, SN_XTR_STOP);
}

/* An element enters runningState; its children follow as the standard says: maneuver groups,
** maneuvers and stories run with their parent; acts and events wait in standby for a trigger. */
static bool start_elem(sn_xrun *r, int el)
{
    transition(r, el, SN_XST_RUNNING, SN_XTR_START);
    sn_xelem *e = &r->x->elems[el];
    e->exec++;
    for (uint32_t k = 0; k < e->n_children; k++) {
        int c = e->children[k];
        sn_xelem *ce = &r->x->elems[c];
        ce->exec = ce->kind == SN_XK_EVENT || ce->kind == SN_XK_MGROUP ? ce->exec : 0;
        if (ce->state != SN_XST_STANDBY) /* a group that runs again: its children start afresh */
            transition(r, c, SN_XST_STANDBY, SN_XTR_RESET);
        if (ce->kind == SN_XK_MGROUP || ce->kind == SN_XK_MANEUVER || (ce->kind == SN_XK_ACT && ce->start < 0) ||
            ce->kind == SN_XK_STORY) {
            if (!start_elem(r, c))
                return false;
        }
    }
    if (e->kind == SN_XK_EVENT)
        return start_actions(r, el);
    return true;
}

/* ---- actions ---- */

static const sn_xelem *mgroup_of(const sn_xrun *r, int action)
{
    int e = r->x->elems[action].parent;                  /* event */
    int m = r->x->elems[e].parent;                       /* maneuver */
    return &r->x->elems[r->x->elems[m].parent];          /* group */
}

/* A TrafficAction: the engine plays the swarm, source or sink from now on (xosc_traffic.c); a
** TrafficStopAction stops those of its trafficName. The action itself ends at once. */
static bool traffic_action(sn_xrun *r, const sn_xaction *a)
{
    if (a->tr_kind == SN_XTF_STOP) {
        for (uint32_t k = 0; k < r->n_traffic; k++) {
            const sn_xaction *b = &r->x->actions[r->traffic[k].action];
            if (b->signal && strcmp(b->signal, a->signal) == 0)
                r->traffic[k].active = false;
        }
        return true;
    }
    sn_xtraffic t = {.action = (int)(a - r->x->actions), .active = true};
    if (a->tr_kind != SN_XTF_SWARM) {
        double out[4], s, off;
        int32_t road;
        int lane;
        bool on_lane;
        if (!sn_xmove_resolve(r, &a->pos, out, &road, &lane, &s, &off, &on_lane))
            return !(r->failed = true);
        t.x = out[0], t.y = out[1], t.z = out[2], t.h = out[3];
    }
    sn_xtraffic *nw = realloc(r->traffic, (r->n_traffic + 1) * sizeof *nw);
    if (!nw) {
        return sn_xrun_fail(r, a->line, "TrafficAction: out of memory");
    }
    r->traffic = nw;
    r->traffic[r->n_traffic++] = t;
    return true;
}

/* A LightStateAction's light on entity i now. */
static void light_apply(sn_xrun *r, int i, const sn_xaction *a)
{
    sn_xent *e = &r->ents[i];
    if (r->x->ents[i].kind != SN_XEN_VEHICLE || !a->light) {
        char line[512];
        snprintf(line, sizeof line, "%s:%d: LightStateAction: %s: not played", r->x->path, a->line,
                 a->light ? "only vehicles have lights" : "a light CARLA's vehicles do not have");
        sn_xpl_warn_once(r, line);
        return;
    }
    e->lights = a->value != 0 ? e->lights | a->light : e->lights & ~a->light;
    e->lights_dirty = true;
}

static bool global_action(sn_xrun *r, const sn_xaction *a)
{
    char buf[1024], why[256];
    switch (a->kind) {
    case SN_XA_ENVIRONMENT:
        r->weather = a->weather;
        r->weather_set = true;
        return true;
    case SN_XA_PARAM_SET:
        if (!sn_xparam_subst(&r->x->params, a->svalue, buf, sizeof buf, why, sizeof why)) {
            return sn_xrun_fail(r, a->line, "ParameterAction: %s", why);
        }
        return sn_xparam_set(&r->x->params, a->param, buf, a->line, true);
    case SN_XA_PARAM_MODIFY: {
        sn_xparam *q = sn_xparam_find(&r->x->params, a->param);
        double v;
        char *end;
        if (!q || !sn_xparam_subst(&r->x->params, q->value, buf, sizeof buf, why, sizeof why) ||
            (v = strtod(buf, &end), *end || end == buf)) {
            return sn_xrun_fail(r, a->line, "ModifyAction: parameter '%s' is not a number", a->param);
        }
        v = a->multiply ? v * a->value : v + a->value;
        snprintf(buf, sizeof buf, "%.17g", v);
        return sn_xparam_set(&r->x->params, a->param, buf, a->line, true);
    }
    case SN_XA_SIGNAL_STATE:
    case SN_XA_SIGNAL_CONTROLLER:
        return sn_xsig_action(r, a);
    case SN_XA_TRAFFIC:
        return traffic_action(r, a);
    case SN_XA_ADD_ENTITY:
    case SN_XA_DELETE_ENTITY: {
        /* esmini's activateObject/deactivateObject (Entities.cpp): adding an entity that is in,
        ** or deleting one that is out, does nothing but say so */
        sn_xent *e = &r->ents[a->ref];
        bool add = a->kind == SN_XA_ADD_ENTITY;
        if (e->absent != add) {
            char line[512];
            snprintf(line, sizeof line, "%s:%d: %s: entity '%s' is %s the scenario already: nothing done", r->x->path,
                     a->line, add ? "AddEntityAction" : "DeleteEntityAction", r->x->ents[a->ref].name,
                     add ? "in" : "out of");
            sn_xpl_warn_once(r, line);
            return true;
        }
        e->absent = !add;
        /* added: at its Position (relative ones see where it was when it left), its speed kept */
        return !add || sn_xmove_place(r, a->ref, &a->pos);
    }
    case SN_XA_NOOP:
        return true;
    default:
        return true;
    }
}

/* Pending light k leaves the queue, in order. */
static void lightq_drop(sn_xrun *r, uint32_t k)
{
    memmove(&r->lightq[k], &r->lightq[k + 1], (r->n_lightq - k - 1) * sizeof *r->lightq);
    r->n_lightq--;
}

/* A pending light replaced by a new LightStateAction on the same light: its action stops. */
static void action_over_light(sn_xrun *r, uint32_t k)
{
    int el = r->lightq[k].elem;
    lightq_drop(r, k);
    if (el >= 0 && r->x->elems[el].running && --r->x->elems[el].running == 0 &&
        r->x->elems[el].state == SN_XST_RUNNING)
        transition(r, el, SN_XST_COMPLETE, SN_XTR_STOP);
}

/* An action instance on entity i; *done when it is over at once. */
static bool private_action(sn_xrun *r, int i, int el, const sn_xaction *a, bool *done)
{
    sn_xent *e = &r->ents[i];
    /* a new action of the same domain overrides the running one on this entity */
    int old = -2;
    if ((a->kind == SN_XA_SPEED || a->kind == SN_XA_SPEED_PROFILE || a->kind == SN_XA_LONG_DIST ||
         a->kind == SN_XA_SYNC) && e->lon)
        old = e->lon_elem;
    else if ((a->kind == SN_XA_LANE_CHANGE || a->kind == SN_XA_LANE_OFFSET || a->kind == SN_XA_LAT_DIST) && e->lat)
        old = e->lat_elem;
    else if (a->kind == SN_XA_TRAJECTORY && e->traj)
        old = e->traj_elem;
    else if (a->kind == SN_XA_ACQUIRE && e->acq_elem != -2)
        old = e->acq_elem;
    if (old != -2 && old != el) {
        sn_xmove_stop(r, i, old);
        if (old >= 0 && r->x->elems[old].running && --r->x->elems[old].running == 0 &&
            r->x->elems[old].state == SN_XST_RUNNING)
            transition(r, old, SN_XST_COMPLETE, SN_XTR_STOP);
    }
    if (a->kind == SN_XA_ASSIGN_CONTROLLER) { /* the next ActivateControllerAction activates this one */
        *done = true;
        r->x->ents[i].external = a->value == 1;
        r->x->ents[i].unplayed_controller = a->value == 0;
        return true;
    }
    if (a->kind == SN_XA_CONTROLLER) {
        *done = true;
        if (r->x->ents[i].unplayed_controller) /* warned at load: the storyboard keeps it */
            return true;
        if (a->lon != a->lat) {
            return sn_xrun_fail(r, a->line,
                                "ActivateControllerAction: entity '%s': sensim's autopilot (or the "
                                "user's external controller) drives both ways: lateral and longitudinal must be equal",
                                r->x->ents[i].name);
        }
        if (a->lon && e->mode != SN_XM_EXTERNAL) {
            sn_xmove_stop(r, i, e->lon_elem);
            sn_xmove_stop(r, i, e->lat_elem);
            e->mode = SN_XM_EXTERNAL;
            if (r->activate)
                r->activate(r->user, i);
        }
        return true;
    }
    if (a->kind == SN_XA_LIGHT) {
        /* without a transitionTime the light switches now; with one, when the action ends */
        for (uint32_t k = 0; k < r->n_lightq; k++) /* a new one on the same light replaces a pending one */
            if (r->lightq[k].entity == i && r->lightq[k].a->light == a->light) {
                action_over_light(r, k);
                k--;
            }
        *done = !(a->dyn.value > 0);
        if (*done) {
            light_apply(r, i, a);
            return true;
        }
        sn_xlightq *nw = realloc(r->lightq, (r->n_lightq + 1) * sizeof *nw);
        if (!nw) {
            return sn_xrun_fail(r, a->line, "LightStateAction: out of memory");
        }
        r->lightq = nw;
        r->lightq[r->n_lightq++] = (sn_xlightq){i, el, r->t + a->dyn.value, a};
        return true;
    }
    if (a->kind == SN_XA_TELEPORT && r->x->ents[i].kind == SN_XEN_MISC && r->frame > 0) {
        char line[512];
        snprintf(line, sizeof line, "%s:%d: TeleportAction: '%s' is a MiscObject, a static prop: it stays where Init put it",
                 r->x->path, a->line, r->x->ents[i].name);
        sn_xpl_warn_once(r, line);
        *done = true;
        return true;
    }
    return sn_xmove_start(r, i, el, a, done);
}

static void action_over(sn_xrun *r, int el);

static bool start_actions(sn_xrun *r, int ev)
{
    sn_xelem *e = &r->x->elems[ev];
    for (uint32_t k = 0; k < e->n_children; k++) {
        int el = e->children[k];
        sn_xelem *ae = &r->x->elems[el];
        transition(r, el, SN_XST_RUNNING, SN_XTR_START);
        const sn_xaction *a = &r->x->actions[ae->action];
        if (a->kind == SN_XA_NOOP) {
            char line[512];
            snprintf(line, sizeof line, "%s:%d: %s: not played (docs/openscenario.md)", r->x->path, a->line, a->noop_what);
            sn_xpl_warn_once(r, line);
        }
        if (ae->global) {
            if (!global_action(r, a))
                return false;
            transition(r, el, SN_XST_COMPLETE, SN_XTR_END);
            continue;
        }
        const sn_xelem *g = mgroup_of(r, el);
        ae->running = 0;
        for (uint32_t j = 0; j < g->n_actors; j++) {
            bool done;
            if (!private_action(r, g->actors[j], el, a, &done))
                return false;
            if (!done)
                ae->running++;
        }
        if (!ae->running)
            transition(r, el, SN_XST_COMPLETE, SN_XTR_END);
    }
    return true;
}

static void action_over(sn_xrun *r, int el)
{
    if (el < 0)
        return;
    sn_xelem *e = &r->x->elems[el];
    if (e->state == SN_XST_RUNNING && e->running && --e->running == 0)
        transition(r, el, SN_XST_COMPLETE, SN_XTR_END);
}

/* Light transitions that end by now switch their lights; their actions end. */
static void lights_step(sn_xrun *r)
{
    for (uint32_t k = 0; k < r->n_lightq; k++)
        if (r->lightq[k].t_end <= r->t + 1e-9) {
            int el = r->lightq[k].elem;
            light_apply(r, r->lightq[k].entity, r->lightq[k].a);
            lightq_drop(r, k--);
            action_over(r, el);
        }
}

/* ---- the tree ---- */

static bool all_children_complete(const sn_xrun *r, int el)
{
    const sn_xelem *e = &r->x->elems[el];
    for (uint32_t k = 0; k < e->n_children; k++)
        if (r->x->elems[e->children[k]].state != SN_XST_COMPLETE)
            return false;
    return true;
}

/* Any event of the maneuver other than ev running. */
static bool sibling_running(const sn_xrun *r, int ev)
{
    const sn_xelem *m = &r->x->elems[r->x->elems[ev].parent];
    for (uint32_t k = 0; k < m->n_children; k++)
        if (m->children[k] != ev && r->x->elems[m->children[k]].state == SN_XST_RUNNING)
            return true;
    return false;
}

static bool run_event(sn_xrun *r, int ev)
{
    sn_xelem *e = &r->x->elems[ev];
    if (e->state == SN_XST_STANDBY) {
        bool go = e->start < 0 || sn_xpl_trigger_fires(r, e->start, ev);
        if (!go)
            return true;
        if (e->prio == SN_XPR_SKIP && sibling_running(r, ev)) {
            transition(r, ev, SN_XST_STANDBY, SN_XTR_SKIP);
            return true;
        }
        if (e->prio == SN_XPR_OVERRIDE) {
            const sn_xelem *m = &r->x->elems[e->parent];
            for (uint32_t k = 0; k < m->n_children; k++)
                if (m->children[k] != ev && r->x->elems[m->children[k]].state == SN_XST_RUNNING)
                    stop_tree(r, m->children[k]);
        }
        return start_elem(r, ev);
    }
    return true;
}

/* Completion upward from the maneuver level; groups run again up to maximumExecutionCount. */
static bool settle(sn_xrun *r, int el)
{
    sn_xelem *e = &r->x->elems[el];
    if (e->state != SN_XST_RUNNING)
        return true;
    if (e->kind == SN_XK_EVENT) {
        if (all_children_complete(r, el)) {
            transition(r, el, SN_XST_COMPLETE, SN_XTR_END);
            if (e->exec < e->max_exec) /* it may run again: back to standby, its actions too */
                transition(r, el, SN_XST_STANDBY, SN_XTR_RESET);
        }
        return true;
    }
    for (uint32_t k = 0; k < e->n_children; k++)
        if (!settle(r, e->children[k]))
            return false;
    bool done = true;
    for (uint32_t k = 0; k < e->n_children; k++) {
        const sn_xelem *c = &r->x->elems[e->children[k]];
        /* an event waiting to run again keeps its maneuver running */
        if (c->state != SN_XST_COMPLETE)
            done = false;
    }
    if (!done)
        return true;
    transition(r, el, SN_XST_COMPLETE, SN_XTR_END);
    if (e->kind == SN_XK_MGROUP && e->exec < e->max_exec) {
        for (uint32_t k = 0; k < e->n_children; k++) {
            int m = e->children[k];
            r->x->elems[m].state = SN_XST_STANDBY;
            const sn_xelem *me = &r->x->elems[m];
            for (uint32_t j = 0; j < me->n_children; j++) {
                r->x->elems[me->children[j]].state = SN_XST_STANDBY;
                r->x->elems[me->children[j]].exec = 0;
                const sn_xelem *ee = &r->x->elems[me->children[j]];
                for (uint32_t q = 0; q < ee->n_children; q++)
                    r->x->elems[ee->children[q]].state = SN_XST_STANDBY;
            }
        }
        transition(r, el, SN_XST_STANDBY, SN_XTR_RESET);
        return start_elem(r, el);
    }
    return true;
}

static bool walk_events(sn_xrun *r, int el)
{
    sn_xelem *e = &r->x->elems[el];
    if (e->kind == SN_XK_EVENT)
        return run_event(r, el);
    if (e->state != SN_XST_RUNNING)
        return true;
    for (uint32_t k = 0; k < e->n_children; k++)
        if (!walk_events(r, e->children[k]))
            return false;
    return true;
}

static void end_run(sn_xrun *r, const char *by, bool completed)
{
    r->ended = true;
    r->completed = completed;
    r->end_time = r->t;
    snprintf(r->ended_by, sizeof r->ended_by, "%s", by);
}

static bool settle_stories(sn_xrun *r)
{
    const sn_xelem *sb = &r->x->elems[0];
    for (uint32_t s = 0; s < sb->n_children; s++) {
        int st = sb->children[s];
        if (r->x->elems[st].state != SN_XST_RUNNING)
            continue;
        const sn_xelem *story = &r->x->elems[st];
        for (uint32_t a = 0; a < story->n_children; a++)
            if (!settle(r, story->children[a]))
                return false;
        if (all_children_complete(r, st))
            transition(r, st, SN_XST_COMPLETE, SN_XTR_END);
    }
    return true;
}

/* One evaluation of the storyboard at r->t: what finished settles, acts and events whose
** triggers fire start (or stop), what that finished settles, and last the StopTrigger, so a
** condition on an element's state sees the state of this step. */
static bool storyboard(sn_xrun *r)
{
    sn_xelem *sb = &r->x->elems[0];
    if (sb->state != SN_XST_RUNNING)
        return true;
    if (!settle_stories(r))
        return false;
    for (uint32_t s = 0; s < sb->n_children; s++) {
        int st = sb->children[s];
        if (r->x->elems[st].state != SN_XST_RUNNING)
            continue;
        const sn_xelem *story = &r->x->elems[st];
        for (uint32_t a = 0; a < story->n_children; a++) {
            int act = story->children[a];
            sn_xelem *ae = &r->x->elems[act];
            if (ae->state == SN_XST_STANDBY) {
                if (ae->start >= 0 && sn_xpl_trigger_fires(r, ae->start, act) &&
                    (!sn_xpl_select_actors(r, act, ae->start) || !start_elem(r, act)))
                    return false;
            } else if (ae->state == SN_XST_RUNNING && ae->stop >= 0 && sn_xpl_trigger_fires(r, ae->stop, act)) {
                stop_tree(r, act);
            }
            if (r->x->elems[act].state == SN_XST_RUNNING && !walk_events(r, act))
                return false;
        }
    }
    if (!settle_stories(r))
        return false;
    if (sb->stop >= 0 && sn_xpl_trigger_fires(r, sb->stop, 0)) {
        /* the condition that fired, for run.json */
        const sn_xtrigger *tr = &r->x->trigs[sb->stop];
        for (uint32_t g = 0; g < tr->n && !r->stop_condition[0]; g++)
            for (uint32_t k = 0; k < tr->groups[g].n; k++)
                if (r->x->conds[tr->groups[g].conds[k]].fired_once) {
                    snprintf(r->stop_condition, sizeof r->stop_condition, "%s", r->x->conds[tr->groups[g].conds[k]].name);
                    break;
                }
        stop_tree(r, 0);
        end_run(r, "StopTrigger", true);
        return !r->failed;
    }
    if (sb->stop < 0 && all_children_complete(r, 0)) {
        transition(r, 0, SN_XST_COMPLETE, SN_XTR_END);
        end_run(r, "all stories complete", true);
    }
    return !r->failed;
}

/* ---- collisions: boxes overlapping now ---- */

static void update_collisions(sn_xrun *r)
{
    uint32_t n = r->x->n_ents;
    if (!r->need_collide)
        return;
    double (*box)[4][2] = malloc(n * sizeof *box);
    if (!box)
        return;
    for (uint32_t i = 0; i < n; i++)
        sn_xmove_box(r, (int)i, box[i]);
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = i + 1; j < n; j++) {
            bool hit = r->ents[i].placed && r->ents[j].placed && !r->ents[i].absent && !r->ents[j].absent &&
                       sn_xbox_distance(box[i], box[j]) <= 0;
            r->collide[(size_t)i * n + j] = r->collide[(size_t)j * n + i] = hit;
        }
    free(box);
}

/* ---- run ---- */

bool sn_xrun_init(sn_xrun *r, sn_xosc *x, const sn_map *map, double dt)
{
    memset(r, 0, sizeof *r);
    r->x = x;
    r->map = map;
    r->dt = dt;
    r->ents = calloc(x->n_ents ? x->n_ents : 1, sizeof *r->ents);
    r->collide = calloc((size_t)x->n_ents * x->n_ents + 1, sizeof *r->collide);
    if (!r->ents || !r->collide) {
        snprintf(r->why, sizeof r->why, "%s: out of memory", x->path);
        return false;
    }
    for (uint32_t i = 0; i < x->n_ents; i++)
        r->ents[i].lon_elem = r->ents[i].lat_elem = r->ents[i].traj_elem = r->ents[i].acq_elem = -2;
    /* an entity an AddEntityAction adds and the Init names not starts out of the scenario
    ** (esmini activates the Init's entities only, ScenarioReader::parseInit) */
    for (uint32_t i = 0; i < x->n_ents; i++)
        r->ents[i].absent = x->ents[i].added;
    for (uint32_t k = 0; k < x->n_inits; k++)
        r->ents[x->inits[k].entity].absent = false;
    if (!sn_xsig_init(r))
        return false;
    for (uint32_t i = 0; i < x->n_conds; i++) {
        r->need_collide |= x->conds[i].kind == SN_XC_COLLISION;
        r->need_offroad |= x->conds[i].kind == SN_XC_OFFROAD;
    }
    /* Init: teleports first (positions relative to other entities need theirs), then the rest */
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t k = 0; k < x->n_inits; k++) {
            const sn_xaction *a = &x->actions[x->inits[k].action];
            if ((a->kind == SN_XA_TELEPORT) != (pass == 0))
                continue;
            bool done;
            if (!private_action(r, x->inits[k].entity, -1, a, &done)) {
                if (!r->why[0])
                    snprintf(r->why, sizeof r->why, "%s:%d: Init: the action failed", x->path, a->line);
                return false;
            }
        }
    for (uint32_t k = 0; k < x->n_init_globals; k++)
        if (!global_action(r, &x->actions[x->init_globals[k]]))
            return false;
    /* an entity the Init does not place starts at the origin, heading 0, as in esmini (its first
    ** trajectory or teleport moves it; xosc_engine.c warns) */
    update_collisions(r);
    sn_xsig_step(r); /* controllers without a delay start their first phase at t = 0 */
    /* t = 0: the storyboard and its stories start; acts without a StartTrigger with them */
    transition(r, 0, SN_XST_RUNNING, SN_XTR_START);
    for (uint32_t s = 0; s < x->elems[0].n_children; s++) {
        int st = x->elems[0].children[s];
        transition(r, st, SN_XST_RUNNING, SN_XTR_START);
        for (uint32_t a = 0; a < x->elems[st].n_children; a++)
            if (x->elems[x->elems[st].children[a]].start < 0 && !start_elem(r, x->elems[st].children[a]))
                return false;
    }
    return storyboard(r);
}

bool sn_xrun_step(sn_xrun *r)
{
    if (r->ended)
        return true;
    r->frame++;
    r->t = (double)r->frame * r->dt;
    int ended[256];
    uint32_t n_ended;
    if (!sn_xmove_advance(r, ended, 256, &n_ended))
        return false;
    for (uint32_t k = 0; k < n_ended; k++)
        action_over(r, ended[k]);
    lights_step(r);
    update_collisions(r);
    sn_xsig_step(r);
    if (r->failed)
        return false;
    return storyboard(r);
}

void sn_xrun_free(sn_xrun *r)
{
    if (r->ents)
        for (uint32_t i = 0; i < r->x->n_ents; i++) {
            free(r->ents[i].tv);
            free(r->ents[i].tcum);
            free(r->ents[i].th);
            free(r->ents[i].tp);
            free(r->ents[i].tt);
            free(r->ents[i].route);
            free(r->ents[i].jseg);
        }
    free(r->ents);
    free(r->collide);
    sn_xsig_free(r);
    free(r->traffic);
    free(r->lightq);
    sn_pack_free(&r->log);
    memset(r, 0, sizeof *r);
}
