/* replay.c — placeholder */
#include "engine.h"
#include "../core/error.h"
sn_status sn_engine_load_replay(sn_engine *e, const char *recording, const sn_replay_options *o, sn_error *err)
{
    (void)e, (void)recording, (void)o;
    return sn_fail(err, SN_E_UNSUPPORTED, "replay: not yet");
}
uint32_t sn_engine_replay_actor(const sn_engine *e, uint32_t id) { (void)e; return id; }
