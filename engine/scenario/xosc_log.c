/* xosc_log.c — the storyboard log (element transitions, conditions that fire) and the names
** of kinds, states, transitions, conditions, rules and edges it writes. */
#include "scenario.h"
#include "xosc_pos.h"

#include <math.h>

static const char *const KIND_NAMES[] = {"Storyboard", "Story", "Act", "ManeuverGroup", "Maneuver", "Event", "Action"};
static const char *const STATE_NAMES[] = {"standbyState", "runningState", "completeState"};
/* "reset": completeState back to standbyState (an event or maneuver group that runs again);
** the standard names no transition for it. */
static const char *const TRANS_NAMES[] = {"startTransition", "endTransition", "stopTransition", "skipTransition", "reset"};
static const char *const COND_NAMES[] = {"SimulationTimeCondition", "StoryboardElementStateCondition",
                                         "ParameterCondition", "SpeedCondition", "RelativeSpeedCondition",
                                         "AccelerationCondition", "ReachPositionCondition", "DistanceCondition",
                                         "RelativeDistanceCondition", "TimeHeadwayCondition",
                                         "TimeToCollisionCondition", "TraveledDistanceCondition",
                                         "StandStillCondition", "CollisionCondition", "EndOfRoadCondition",
                                         "OffroadCondition", "TrafficSignalCondition",
                                         "TrafficSignalControllerCondition", "AngleCondition",
                                         "RelativeAngleCondition"};
static const char *const RULE_NAMES[] = {"greaterThan", "lessThan", "equalTo", "greaterOrEqual", "lessOrEqual", "notEqualTo"};
static const char *const EDGE_NAMES[] = {"none", "rising", "falling", "risingOrFalling"};

const char *sn_xelem_kind_name(sn_xelem_kind k) { return KIND_NAMES[k]; }
const char *sn_xstate_name(sn_xstate s) { return STATE_NAMES[s]; }
const char *sn_xcond_kind_name(sn_xcond_kind k) { return COND_NAMES[k]; }
const char *sn_xrule_name(sn_xrule r) { return RULE_NAMES[r]; }

bool sn_xrule_eval(sn_xrule r, double a, double b)
{
    switch (r) {
    case SN_XR_GT: return a > b;
    case SN_XR_LT: return a < b;
    case SN_XR_EQ: return fabs(a - b) <= 1e-9 * fmax(1, fabs(b));
    case SN_XR_GE: return a >= b;
    case SN_XR_LE: return a <= b;
    case SN_XR_NE: return fabs(a - b) > 1e-9 * fmax(1, fabs(b));
    }
    return false;
}

/* ---- the log ---- */

static void log_head(sn_xrun *r, uint32_t n_more, const char *event)
{
    sn_pack_buf *b = &r->log;
    sn_pack_map(b, 6 + n_more);
    sn_pack_cstr(b, "frame"), sn_pack_uint(b, r->frame);
    sn_pack_cstr(b, "timestamp"), sn_pack_double(b, r->t);
    sn_pack_cstr(b, "sensor"), sn_pack_cstr(b, "storyboard");
    sn_pack_cstr(b, "type"), sn_pack_cstr(b, SN_STORYBOARD_TYPE); /* a stream's header, as the sensors' */
    sn_pack_cstr(b, "sensor_id"), sn_pack_uint(b, 0);
    sn_pack_cstr(b, "event"), sn_pack_cstr(b, event);
    r->n_log++;
}

void sn_xpl_log_transition(sn_xrun *r, int el, sn_xstate from, sn_xstate to, int trans)
{
    sn_pack_buf *b = &r->log;
    log_head(r, 5, "transition");
    sn_pack_cstr(b, "element"), sn_pack_cstr(b, r->x->elems[el].name);
    sn_pack_cstr(b, "kind"), sn_pack_cstr(b, KIND_NAMES[r->x->elems[el].kind]);
    sn_pack_cstr(b, "from"), sn_pack_cstr(b, STATE_NAMES[from]);
    sn_pack_cstr(b, "to"), sn_pack_cstr(b, STATE_NAMES[to]);
    sn_pack_cstr(b, "transition"), sn_pack_cstr(b, TRANS_NAMES[trans]);
}

void sn_xpl_log_condition(sn_xrun *r, const sn_xcond *c, int owner)
{
    sn_pack_buf *b = &r->log;
    log_head(r, 8, "condition");
    sn_pack_cstr(b, "element"), sn_pack_cstr(b, c->name);
    sn_pack_cstr(b, "kind"), sn_pack_cstr(b, COND_NAMES[c->kind]);
    sn_pack_cstr(b, "edge"), sn_pack_cstr(b, EDGE_NAMES[c->edge]);
    sn_pack_cstr(b, "measured"), sn_pack_double(b, c->measured);
    sn_pack_cstr(b, "rule"), sn_pack_cstr(b, RULE_NAMES[c->rule]);
    sn_pack_cstr(b, "value"), sn_pack_double(b, c->value);
    sn_pack_cstr(b, "delay"), sn_pack_double(b, c->delay);
    sn_pack_cstr(b, "trigger_of"), sn_pack_cstr(b, r->x->elems[owner].name);
}

void sn_xpl_warn_once(sn_xrun *r, const char *line)
{
    if (r->warn)
        r->warn(r->warn_user, line);
}
