#include "error.h"

#include "util.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

sn_status sn_fail(sn_error *err, sn_status status, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
        /* an error is one line: a key or a path holding a line break would split it */
        for (char *p = err->msg; *p; p++)
            if ((unsigned char)*p < 0x20)
                *p = ' ';
        err->status = status;
    }
    return status;
}

sn_status sn_error_prefix(sn_error *err, const char *where)
{
    if (!err)
        return SN_E_INVALID;
    char tmp[SN_ERROR_MAX];
    sn_format(tmp, sizeof tmp, "%s: %s", where, err->msg);
    memcpy(err->msg, tmp, sizeof tmp);
    return err->status;
}

