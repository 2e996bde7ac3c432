/* cli_input.c — see cli_input.h. */
#include "cli_input.h"

#include <sensim/map.h>
#include <sensim/sensim.h>

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

FILE *sn_cli_open_input(const char *path, const char **what)
{
    if (what)
        *what = NULL;
    /* O_NONBLOCK: a FIFO opens at once instead of waiting for a writer; cleared again below */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    struct stat st;
    int fl = fcntl(fd, F_GETFL);
    if (fstat(fd, &st) != 0 || fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        if (what)
            *what = S_ISFIFO(st.st_mode) ? "a FIFO" : S_ISDIR(st.st_mode) ? "a folder" : "not a regular file";
        close(fd);
        errno = EINVAL;
        return NULL;
    }
    FILE *f = fdopen(fd, "rb");
    if (!f)
        close(fd);
    return f;
}

sn_map *sn_cli_run_map_open(const char *cmd, const char *run_dir, char *buf, size_t cap)
{
    sn_error err = {0};
    sn_status st = sn_run_map_path(run_dir, buf, cap, &err);
    if (st == SN_E_NOT_FOUND)
        return NULL; /* no run.json, or no map in it: a run without a map */
    if (st) {
        fprintf(stderr, "sensim: warning: %s: %s; %s without the map's lanes (--map FILE gives them)\n", cmd, err.msg,
                cmd);
        return NULL;
    }
    /* a map that loads, whatever it is: gone, a FIFO, a folder, a device or no OpenDRIVE are
    ** all the same warning (sn_map_open never blocks on a FIFO) */
    sn_map *m = sn_map_open(buf, &err);
    if (!m)
        fprintf(stderr, "sensim: warning: %s: the run's map %s (from %s/run.json) cannot be read: %s; %s without "
                        "its lanes (--map FILE gives them)\n",
                cmd, buf, run_dir, err.msg, cmd);
    return m;
}

const char *sn_cli_run_map(const char *cmd, const char *run_dir, const char *given, char *buf, size_t cap)
{
    if (given)
        return given;
    sn_map *m = sn_cli_run_map_open(cmd, run_dir, buf, cap);
    sn_map_close(m);
    return m ? buf : NULL;
}
