/* replay.h — replaying a recording through a plugin's log reader (sn_engine_load_replay, in
** sensim.h). The frame reaches a replay only through e->replay_hooks (sim/engine.h). */
#ifndef SN_RECORDING_REPLAY_H
#define SN_RECORDING_REPLAY_H

typedef struct sn_replay sn_replay;

#endif
