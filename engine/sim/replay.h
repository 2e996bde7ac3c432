/* replay.h — replaying a recording through a plugin's log reader (sn_engine_load_replay). */
#ifndef SN_SIM_REPLAY_H
#define SN_SIM_REPLAY_H

#include <sensim/sensim.h>

struct sn_engine;
typedef struct sn_replay sn_replay;

/* Before a step's schedule: reads the recording up to this frame's time, spawns, destroys and
** sets the kinematic targets and controls. */
sn_status sn_replay_before_step(struct sn_engine *e, sn_error *err);
/* After the world advanced: restores the recorded velocities (the kinematic driver derives them
** from the displacement otherwise). */
void sn_replay_after_advance(struct sn_engine *e);
void sn_replay_free(sn_replay *rp);

#endif
