/* stream.h — a sensor's messages to their consumers: its stream file, its listeners, its images (stream.c). */
#ifndef SN_SIM_STREAM_H
#define SN_SIM_STREAM_H

#include "ctx.h"

sn_status sn_stream_open(sn_sensor *s, const char *dir, sn_error *err);
/* Whether s writes a stream file when outputs are open: not the recorder (its file is its
** recording), not with the scene's settings.streams false (--no-streams), not a scene sensor
** with stream: false (issue 33 item 6). */
bool sn_stream_wanted(const sn_sensor *s);
/* Whether anything takes s's messages now: its stream file, a listener of its own or of every
** sensor, its `save:` images. A message nobody takes is not serialised (serialize_all). */
bool sn_stream_consumed(const sn_sensor *s);
/* The finished message (e->out_data) to s's consumers; a large one's buffer goes to the writer. */
sn_status sn_stream_emit(sn_sensor *s, sn_error *err);
/* Writes what is queued for s, closes its file; the first error if err. */
sn_status sn_stream_close(sn_sensor *s, sn_error *err);
/* Closes s's file unchecked and removes it (a run that never started). */
void sn_stream_discard(sn_sensor *s);

#endif
