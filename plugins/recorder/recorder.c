/* recorder.c — the recorder plugin: the sensor that writes recordings and the reader that
** reads them back (the engine's `sensim replay` and `sensim recorder` use the reader and know
** no file layout). The format: FORMAT.md. */
#include "writer.h"

static const sn_sensor_class *const classes[] = {&rec_writer_class};

static const sn_plugin_lib library = {
    .hdr = SN_ABI_HEADER(sn_plugin_lib),
    .name = "recorder",
    .version = "1.0.0",
    .n_classes = 1,
    .classes = classes,
};

SN_PLUGIN_ENTRY
{
    /* The reader arrived with ABI 1.2: an older host would not know the member. */
    return host_abi_major == SN_ABI_MAJOR && host_abi_minor >= 2 ? &library : NULL;
}
