/* recorder.c — the recorder plugin: the sensor that writes recordings and the reader that
** reads them back (the engine's `sensim replay` and `sensim recorder` use the reader and know
** no file layout). The format: FORMAT.md. */
#include "writer.h"

static const sn_sensor_class *const classes[] = {&rec_writer_class};

/* The reader (log_reader) arrived with ABI 1.2, and no host older than that can load this
** library: every host refuses a descriptor of a newer minor than its own (SN_ABI_HEADER
** stamps the SDK's, docs/plugins.md), so the SDK's entry, which takes any minor of the
** host's major, is the recorder's too. */
SN_PLUGIN_EXPORT(library, "recorder", "1.0.0", classes)
