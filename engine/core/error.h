/* error.h — filling sn_error: "<where>: <what>" in one human sentence. */
#ifndef SN_CORE_ERROR_H
#define SN_CORE_ERROR_H

#include <sensim/sensim.h>

/* Sets err (if not NULL) and returns `status`, so callers can `return sn_fail(...)`. */
sn_status sn_fail(sn_error *err, sn_status status, const char *fmt, ...) SN_PRINTF(3, 4);
/* Prefixes an existing message with "where: ". */
sn_status sn_error_prefix(sn_error *err, const char *where);

/* At the public boundary err may be NULL: point it at a local so the code below need not ask. */
#define SN_ERR_LOCAL(err)   \
    sn_error err##_local_;  \
    if (!(err))             \
        (err) = &err##_local_

#endif
