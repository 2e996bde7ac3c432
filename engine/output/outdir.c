/* outdir.c — atomic output commit (docs/cli.md, "Outputs").
**
** A run writes everything (streams and images) into a fresh staging folder inside --out,
** OUT/sensim-partial-XXXXXX, made by mkdtemp (mkdir: exclusive, never through a link). Only
** when the whole run succeeded are its entries moved into OUT, after a first pass has checked
** that every destination is absent or of the same kind (a regular file for a file, a real
** folder for a folder: never a link, never a folder named like a stream). A failed run leaves
** OUT as it was, plus the staging folder with its partial outputs. */
#include "outdir.h"

#include "../core/error.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define PATHN 4096

/* What may stand at `dest` for an entry of kind `dir`: absent, or the same kind, not a link. */
sn_status sn_outdir_check_dest(const char *dest, bool dir, sn_error *err)
{
    struct stat st;
    if (lstat(dest, &st) != 0)
        return errno == ENOENT ? SN_OK : sn_fail(err, SN_E_IO, "%s: cannot inspect: %s", dest, strerror(errno));
    if (S_ISLNK(st.st_mode))
        return sn_fail(err, SN_E_IO, "%s is a symbolic link; sensim writes no output through or over a link", dest);
    if (dir && !S_ISDIR(st.st_mode))
        return sn_fail(err, SN_E_IO, "%s exists and is not a folder; an output folder goes there", dest);
    if (!dir && !S_ISREG(st.st_mode))
        return sn_fail(err, SN_E_IO, "%s exists and is not a regular file (%s); an output file goes there", dest,
                       S_ISDIR(st.st_mode) ? "a folder" : "a device, socket or pipe");
    return SN_OK;
}

/* Walks src (a staging folder) against dest: check only (move false), or move. */
static sn_status walk(const char *src, const char *dest, bool move, int depth, sn_error *err)
{
    if (depth > 64)
        return sn_fail(err, SN_E_IO, "%s: output folders nested deeper than 64", src);
    DIR *d = opendir(src);
    if (!d)
        return sn_fail(err, SN_E_IO, "%s: cannot read: %s", src, strerror(errno));
    sn_status st = SN_OK;
    struct dirent *de;
    while (!st && (de = readdir(d))) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        char s[PATHN], t[PATHN];
        if (snprintf(s, sizeof s, "%s/%s", src, de->d_name) >= (int)sizeof s ||
            snprintf(t, sizeof t, "%s/%s", dest, de->d_name) >= (int)sizeof t) {
            st = sn_fail(err, SN_E_IO, "%s/%s: path too long", dest, de->d_name);
            break;
        }
        struct stat ss;
        if (lstat(s, &ss) != 0) {
            st = sn_fail(err, SN_E_IO, "%s: cannot inspect: %s", s, strerror(errno));
            break;
        }
        bool dir = S_ISDIR(ss.st_mode);
        if ((st = sn_outdir_check_dest(t, dir, err)))
            break;
        if (!move) {
            if (dir)
                st = walk(s, t, false, depth + 1, err);
            continue;
        }
        struct stat ts;
        if (dir && lstat(t, &ts) == 0) { /* an existing folder (checked real): merge into it */
            if (!(st = walk(s, t, true, depth + 1, err)) && rmdir(s) != 0)
                st = sn_fail(err, SN_E_IO, "%s: cannot remove: %s", s, strerror(errno));
        } else if (rename(s, t) != 0) {
            st = sn_fail(err, SN_E_IO, "%s: cannot move into place as %s: %s", s, t, strerror(errno));
        }
    }
    closedir(d);
    return st;
}

sn_status sn_outdir_stage(const char *out, char **stage, sn_error *err)
{
    size_t n = strlen(out) + 32;
    char *p = malloc(n);
    if (!p)
        return sn_fail(err, SN_E_NOMEM, "out of memory");
    snprintf(p, n, "%s/sensim-partial-XXXXXX", out);
    if (!mkdtemp(p)) {
        sn_status st = sn_fail(err, SN_E_IO, "%s: cannot create the run's staging folder: %s", out, strerror(errno));
        free(p);
        return st;
    }
    *stage = p;
    return SN_OK;
}

sn_status sn_outdir_commit(const char *stage, const char *out, sn_error *err)
{
    sn_status st = walk(stage, out, false, 0, err); /* nothing moves unless everything can */
    if (!st)
        st = walk(stage, out, true, 0, err);
    if (!st && rmdir(stage) != 0)
        st = sn_fail(err, SN_E_IO, "%s: cannot remove the staging folder: %s", stage, strerror(errno));
    return st;
}

sn_status sn_outdir_lock(const char *out, int *fd, sn_error *err)
{
    *fd = open(out, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (*fd < 0)
        return sn_fail(err, SN_E_IO, "%s: cannot open the output folder: %s", out, strerror(errno));
    if (flock(*fd, LOCK_EX | LOCK_NB) == 0)
        return SN_OK;
    int e = errno;
    close(*fd);
    *fd = -1;
    if (e == EWOULDBLOCK)
        return sn_fail(err, SN_E_IO, "%s is in use by another sensim run (two runs into one folder would mix "
                       "their outputs); wait for it or choose another --out", out);
    return sn_fail(err, SN_E_IO, "%s: cannot lock the output folder: %s", out, strerror(e));
}
