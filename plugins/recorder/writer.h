/* writer.h — the recorder sensor (sensor.other.recorder): observes every frame, writes the file. */
#ifndef SN_RECORDER_WRITER_H
#define SN_RECORDER_WRITER_H

#include <sensim/plugin.h>

extern const sn_sensor_class rec_writer_class;

#endif
