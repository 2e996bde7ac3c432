/* infile.c — inputs opened only when they are regular files (infile.h). */
#include "infile.h"

#include "error.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

FILE *sn_open_input(const char *path, const char *what, sn_error *err)
{
    /* O_NONBLOCK: a FIFO opens at once instead of waiting for a writer; cleared again below */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return sn_fail(err, SN_E_IO, "%s: cannot open %s: %s", path, what, strerror(errno)), NULL;
    struct stat st;
    if (fstat(fd, &st) != 0) {
        sn_fail(err, SN_E_IO, "%s: cannot open %s: %s", path, what, strerror(errno));
        close(fd);
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        const char *kind = S_ISDIR(st.st_mode) ? "a folder" : S_ISFIFO(st.st_mode) ? "a FIFO" : "not a regular file";
        close(fd);
        return sn_fail(err, SN_E_IO, "%s: not a %s: it is %s", path, what, kind), NULL;
    }
    int fl = fcntl(fd, F_GETFL);
    FILE *f = fl >= 0 && fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) == 0 ? fdopen(fd, "rb") : NULL;
    if (!f) {
        sn_fail(err, SN_E_IO, "%s: cannot open %s: %s", path, what, strerror(errno));
        close(fd);
    }
    return f;
}
