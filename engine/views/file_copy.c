/* file_copy.c — sn_file_copy of file_copy.h. */
#define _GNU_SOURCE /* copy_file_range */
#include "file_copy.h"

#include "../core/error.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

/* The portable way: through a small buffer (the kernel's copy and ours). */
static sn_status copy_buffered(FILE *out, int in, uint64_t off, size_t n, sn_error *err)
{
    static _Thread_local unsigned char buf[1u << 16];
    while (n) {
        size_t want = n < sizeof buf ? n : sizeof buf;
        ssize_t got = pread(in, buf, want, (off_t)off);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return sn_fail(err, SN_E_IO, "cannot read a file to copy: %s", got ? strerror(errno) : "it is shorter");
        if (fwrite(buf, 1, (size_t)got, out) != (size_t)got)
            return sn_fail(err, SN_E_IO, "cannot write: %s", strerror(errno ? errno : EIO));
        off += (uint64_t)got, n -= (size_t)got;
    }
    return SN_OK;
}

sn_status sn_file_copy(FILE *out, int in, uint64_t off, size_t n, sn_error *err)
{
    if (!n)
        return SN_OK;
    if (fflush(out) != 0)
        return sn_fail(err, SN_E_IO, "cannot write: %s", strerror(errno));
    int fd = fileno(out);
    bool copied = false; /* some bytes went by the kernel's copy: out's position moved under stdio */
    while (n) {
        off_t from = (off_t)off;
        ssize_t k = copy_file_range(in, &from, fd, NULL, n, 0);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            /* EXDEV, EINVAL (a pipe, a file system without it), ENOSYS, EOPNOTSUPP: the buffer
            ** does it; 0 (the file shrank) is reported by the buffered copy's read */
            if (k < 0 && errno != EXDEV && errno != EINVAL && errno != ENOSYS && errno != EOPNOTSUPP && errno != EBADF)
                return sn_fail(err, SN_E_IO, "cannot copy a file: %s", strerror(errno));
            break;
        }
        copied = true;
        off += (uint64_t)k, n -= (size_t)k;
    }
    /* stdio keeps its own idea of the position: set it from the descriptor's */
    if (copied && fseeko(out, 0, SEEK_CUR) != 0)
        return sn_fail(err, SN_E_IO, "cannot write: %s", strerror(errno));
    return n ? copy_buffered(out, in, off, n, err) : SN_OK;
}
