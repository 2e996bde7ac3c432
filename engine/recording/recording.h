/* recording.h — an open recording: a plugin's log reader and its instance. */
#ifndef SN_RECORDING_RECORDING_H
#define SN_RECORDING_RECORDING_H

#include "../plugin/library.h"

#include <sensim/sensim.h>

struct sn_engine;

struct sn_recording {
    const sn_log_reader *rd; /* the host copy in its plugin file */
    void *self;
    char *path;
    sn_library *own_lib;     /* when opened standalone (sn_recording_open) */
    bool all_contacts;       /* queries show every recorded contact, not CARLA's subset */
};

/* Opens `path` with the readers of an already loaded library (a replaying engine's). */
sn_recording *sn_recording_open_with(const sn_library *lib, const char *path, sn_error *err);

/* Moves a finished recording (sn_engine_record) from its staging file to its name, when the
** run recorded frames and did not fail; a failed run's stays staged (named on stderr) and the
** file it would replace stays as it was. Called once the recorder's instance is destroyed. */
void sn_recording_commit(struct sn_engine *e);

#endif
