/* outfile.c — see outfile.h. */
#include "outfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

sn_status sn_cli_fail(sn_error *err, sn_status status, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
        err->status = status;
    }
    return status;
}

sn_status sn_outfile_check(const char *path, bool overwrite, sn_error *err)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return SN_OK;
    if (!overwrite)
        return sn_cli_fail(err, SN_E_INVALID, "%s exists; sensim does not replace it without --overwrite", path);
    if (!S_ISREG(st.st_mode))
        return sn_cli_fail(err, SN_E_INVALID, "%s is %s; --overwrite replaces only a regular file", path,
                           S_ISLNK(st.st_mode) ? "a link" : S_ISDIR(st.st_mode) ? "a folder" : "not a regular file");
    return SN_OK;
}

sn_status sn_outfile_open(sn_outfile *o, const char *path, bool overwrite, sn_error *err)
{
    memset(o, 0, sizeof *o);
    o->fd = -1;
    if (!*path || strlen(path) >= sizeof o->final)
        return sn_cli_fail(err, SN_E_INVALID, "'%s': not a usable output file name", path);
    sn_status st = sn_outfile_check(path, overwrite, err);
    if (st)
        return st;
    o->overwrite = overwrite;
    strcpy(o->final, path);
    /* the staging file sits in the same folder, so link(2) needs no copy across file systems */
    const char *slash = strrchr(path, '/');
    int dir_len = slash ? (int)(slash - path + 1) : 0;
    snprintf(o->stage, sizeof o->stage, "%.*s.%s.sensim-XXXXXX", dir_len, path, slash ? slash + 1 : path);
    o->fd = mkstemp(o->stage);
    if (o->fd < 0) {
        int e = errno;
        o->stage[0] = 0;
        return sn_cli_fail(err, SN_E_IO, "%s: cannot create a file there: %s", path, strerror(e));
    }
    /* mkstemp makes 0600; the output gets what any new file would (0666 less the umask) */
    mode_t mask = umask(0);
    umask(mask);
    fchmod(o->fd, 0666 & ~mask);
    return SN_OK;
}

sn_status sn_outfile_commit(sn_outfile *o, sn_error *err)
{
    if (o->fd >= 0 && close(o->fd) != 0) {
        int e = errno;
        o->fd = -1;
        sn_outfile_drop(o);
        return sn_cli_fail(err, SN_E_IO, "%s: cannot write: %s", o->final, strerror(e));
    }
    o->fd = -1;
    if (o->overwrite) { /* checked again: what stands there now must still be a plain file */
        sn_status st = sn_outfile_check(o->final, true, err);
        if (!st && rename(o->stage, o->final) != 0)
            st = sn_cli_fail(err, SN_E_IO, "%s: %s", o->final, strerror(errno));
        if (st)
            sn_outfile_drop(o);
        else
            o->stage[0] = 0; /* renamed: nothing to remove */
        return st;
    }
    if (link(o->stage, o->final) != 0) {
        int e = errno;
        sn_outfile_drop(o);
        return sn_cli_fail(err, e == EEXIST ? SN_E_INVALID : SN_E_IO, "%s: %s", o->final,
                           e == EEXIST ? "appeared while it was written; left as it is" : strerror(e));
    }
    unlink(o->stage);
    o->stage[0] = 0;
    return SN_OK;
}

void sn_outfile_drop(sn_outfile *o)
{
    if (!o)
        return;
    if (o->fd >= 0)
        close(o->fd);
    o->fd = -1;
    if (o->stage[0])
        unlink(o->stage);
    o->stage[0] = 0;
}
