/* api_data.c — the public stream-file tools (sensim.h "Stream files"): `sensim dump` and
** `sensim convert` as library calls, over engine/data. */
#include "../data/dump.h"
#include "../data/image.h"

#include "../core/error.h"

sn_status sn_stream_dump_bins(const char *path, FILE *out, unsigned flags, sn_error *err)
{
    sn_error local;
    if (!err)
        err = &local; /* the data code reads back err->status */
    if (!path || !out)
        return sn_fail(err, SN_E_INVALID, "dump: %s is NULL", !path ? "the stream path" : "the output");
    if (flags & ~(unsigned)(SN_DUMP_BASE64 | SN_DUMP_DECODE))
        return sn_fail(err, SN_E_INVALID, "dump: unknown flags 0x%x", flags);
    return sn_dump_file(path, out, flags, err);
}

sn_status sn_stream_dump(const char *path, FILE *out, bool full, sn_error *err)
{
    return sn_stream_dump_bins(path, out, full ? SN_DUMP_BASE64 : 0, err);
}

/* The public enum is its own type so that engine/data may change without changing the API. */
static bool to_internal(sn_color_converter c, sn_converter *out)
{
    switch (c) {
    case SN_COLOR_RAW: *out = SN_CONV_RAW; return true;
    case SN_COLOR_DEPTH: *out = SN_CONV_DEPTH; return true;
    case SN_COLOR_LOGARITHMIC_DEPTH: *out = SN_CONV_LOG_DEPTH; return true;
    case SN_COLOR_CITYSCAPES: *out = SN_CONV_CITYSCAPES; return true;
    }
    return false;
}

bool sn_color_converter_parse(const char *name, sn_color_converter *out)
{
    sn_converter c;
    if (!name || !out || !sn_converter_parse(name, &c))
        return false;
    switch (c) {
    case SN_CONV_RAW: *out = SN_COLOR_RAW; return true;
    case SN_CONV_DEPTH: *out = SN_COLOR_DEPTH; return true;
    case SN_CONV_LOG_DEPTH: *out = SN_COLOR_LOGARITHMIC_DEPTH; return true;
    case SN_CONV_CITYSCAPES: *out = SN_COLOR_CITYSCAPES; return true;
    }
    return false;
}

sn_status sn_stream_save_images(const char *path, const char *dir, sn_color_converter conv, size_t *written,
                                sn_error *err)
{
    sn_error local;
    size_t n_local;
    if (!err)
        err = &local;
    if (!written)
        written = &n_local;
    *written = 0;
    sn_converter c;
    if (!path || !dir)
        return sn_fail(err, SN_E_INVALID, "convert: %s is NULL", !path ? "the stream path" : "the folder");
    if (!to_internal(conv, &c))
        return sn_fail(err, SN_E_INVALID, "convert: unknown converter %d", (int)conv);
    return sn_convert_stream(path, dir, c, written, err);
}
