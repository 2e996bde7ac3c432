/* xosc_parse_signal.c — traffic signals: the TrafficSignalControllers, TrafficSignalAction
** (InfrastructureAction) and the signal conditions. */
#include "xosc_parse.h"

#include <string.h>

static int sigctl_index(P *p, N n, const char *attr_name)
{
    char v[VAL];
    if (!sn_xp_attr(p, n, attr_name, true, v))
        return -1;
    for (uint32_t k = 0; k < p->x->n_sigctl; k++)
        if (strcmp(p->x->sigctl[k].name, v) == 0)
            return (int)k;
    sn_xp_fail(p, n, "%s '%s' names no TrafficSignalController of the RoadNetwork", attr_name, v);
    return -1;
}

int sn_xp_parse_signal_controllers(P *p, N n)
{
    SN_XML_EACH(c, n) {
        if (!sn_xml_is(c, "TrafficSignalController"))
            return sn_xp_unknown(p, c, n), -1;
        GROW(p->x->sigctl, p->x->n_sigctl, "traffic signal controllers");
        sn_xsigctl *ctl = &p->x->sigctl[p->x->n_sigctl++];
        ctl->line = sn_xml_line(c);
        ctl->reference = -1;
        if (!(ctl->name = sn_xp_dup_attr(p, c, "name", true)) || !sn_xp_num(p, c, "delay", false, 0, 0, 1e9, &ctl->delay))
            return -1;
        for (uint32_t k = 0; k + 1 < p->x->n_sigctl; k++)
            if (strcmp(p->x->sigctl[k].name, ctl->name) == 0)
                return sn_xp_fail(p, c, "a second TrafficSignalController named '%s'", ctl->name), -1;
        if (sn_xp_has_attr(c, "reference")) {
            int r = sigctl_index(p, c, "reference");
            if (r < 0)
                return -1;
            p->x->sigctl[p->x->n_sigctl - 1].reference = r; /* earlier controllers only: no loops */
        }
        ctl = &p->x->sigctl[p->x->n_sigctl - 1];
        SN_XML_EACH(ph, c) {
            if (!sn_xml_is(ph, "Phase"))
                return sn_xp_unknown(p, ph, c), -1;
            GROW(ctl->phases, ctl->n_phases, "phases");
            sn_xphase *f = &ctl->phases[ctl->n_phases++];
            if (!(f->name = sn_xp_dup_attr(p, ph, "name", true)) || !sn_xp_num(p, ph, "duration", true, 0, 0, 1e9, &f->duration))
                return -1;
            SN_XML_EACH(st, ph) {
                if (sn_xml_is(st, "TrafficSignalGroupState")) {
                    sn_xp_warn(p, st, "ignored (sensim sets signals by their id)");
                    continue;
                }
                if (!sn_xml_is(st, "TrafficSignalState"))
                    return sn_xp_unknown(p, st, ph), -1;
                GROW(f->states, f->n, "signal states");
                sn_xsigstate *ss = &f->states[f->n++];
                if (!(ss->id = sn_xp_dup_attr(p, st, "trafficSignalId", true)) || !(ss->state = sn_xp_dup_attr(p, st, "state", true)))
                    return -1;
            }
        }
        double cycle = 0;
        for (uint32_t k = 0; k < ctl->n_phases; k++)
            cycle += ctl->phases[k].duration;
        if (ctl->n_phases && !(cycle > 0))
            return sn_xp_fail(p, c, "its phases last 0 s in all: a cycle needs time"), -1;
    }
    return 0;
}

bool sn_xp_parse_signal_cond(P *p, N e, sn_xcond *c)
{
    if (sn_xml_is(e, "TrafficSignalCondition")) {
        c->kind = SN_XC_SIGNAL;
        c->sigctl = -1;
        return (c->param = sn_xp_dup_attr(p, e, "name", true)) && (c->svalue = sn_xp_dup_attr(p, e, "state", true));
    }
    c->kind = SN_XC_SIGNAL_CTL;
    if ((c->sigctl = sigctl_index(p, e, "trafficSignalControllerRef")) < 0 || !(c->svalue = sn_xp_dup_attr(p, e, "phase", true)))
        return false;
    const sn_xsigctl *ctl = &p->x->sigctl[c->sigctl];
    for (uint32_t k = 0; k < ctl->n_phases; k++)
        if (strcmp(ctl->phases[k].name, c->svalue) == 0)
            return true;
    return sn_xp_fail(p, e, "phase '%s' is no phase of controller '%s'", c->svalue, ctl->name);
}

int sn_xp_parse_infrastructure(P *p, N n)
{
    N t = sn_xp_choice(p, n);
    if (!t)
        return -1;
    if (!sn_xml_is(t, "TrafficSignalAction"))
        return sn_xp_unknown(p, t, n), -1;
    N d = sn_xp_choice(p, t);
    if (!d)
        return -1;
    if (sn_xml_is(d, "TrafficSignalStateAction")) {
        int i = sn_xp_new_action(p, d, SN_XA_SIGNAL_STATE);
        if (i < 0)
            return -1;
        sn_xaction *a = &p->x->actions[i];
        return (a->signal = sn_xp_dup_attr(p, d, "name", true)) && (a->sstate = sn_xp_dup_attr(p, d, "state", true)) ? i : -1;
    }
    if (sn_xml_is(d, "TrafficSignalControllerAction")) {
        int i = sn_xp_new_action(p, d, SN_XA_SIGNAL_CONTROLLER);
        if (i < 0)
            return -1;
        int k = sigctl_index(p, d, "trafficSignalControllerRef");
        sn_xaction *a = &p->x->actions[i];
        if (k < 0 || !(a->sstate = sn_xp_dup_attr(p, d, "phase", true)))
            return -1;
        a->ref = k; /* the controller */
        const sn_xsigctl *ctl = &p->x->sigctl[k];
        for (uint32_t j = 0; j < ctl->n_phases; j++)
            if (strcmp(ctl->phases[j].name, a->sstate) == 0)
                return i;
        return sn_xp_fail(p, d, "phase '%s' is no phase of controller '%s'", a->sstate, ctl->name), -1;
    }
    return sn_xp_unknown(p, d, t), -1;
}
