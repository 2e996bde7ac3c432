/* recording.h — an open recording: a plugin's log reader and its instance. */
#ifndef SN_API_RECORDING_H
#define SN_API_RECORDING_H

#include "../plugin/library.h"

#include <sensim/sensim.h>

struct sn_recording {
    const sn_log_reader *rd; /* the host copy in its plugin file */
    void *self;
    char *path;
    sn_library *own_lib;     /* when opened standalone (sn_recording_open) */
    bool all_contacts;       /* queries show every recorded contact, not CARLA's subset */
};

/* Opens `path` with the readers of an already loaded library (a replaying engine's). */
sn_recording *sn_recording_open_with(const sn_library *lib, const char *path, sn_error *err);

#endif
