/* cli_input.h — every file a command reads, opened only when it is a regular file (the CLI's
** twin of the engine's sn_open_input, which the program, using only the public API, cannot
** call): a FIFO would block the open or the read for ever (`sensim report` on a folder whose
** stats.json is a FIFO hung), a folder or a device is no input. And the one rule by which
** `export mcap` and `report` find the run's map (issue 33 items 19, 22). */
#ifndef SN_CLI_INPUT_H
#define SN_CLI_INPUT_H

#include <sensim/map.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* `path` opened for reading if it is a regular file; NULL otherwise, with *what (when what is
** not NULL) "a FIFO", "a folder" or "not a regular file" for such paths, else NULL and errno
** set by the failed open. The caller fcloses the result. Never blocks. */
FILE *sn_cli_open_input(const char *path, const char **what);

/* The map of run folder `run_dir` for command `cmd` ("export", "report"): `given` (--map) when
** not NULL, whose failure is then the command's (exit 2). Else the map run.json names, into
** buf[cap], if it loads; a run.json that is no JSON, or names a map that is gone, a FIFO, a
** folder or no OpenDRIVE, gives one warning on stderr and NULL: the output has no lanes. NULL
** without a word when run.json is absent or names no map. */
const char *sn_cli_run_map(const char *cmd, const char *run_dir, const char *given, char *buf, size_t cap);
/* The same for a run's noted map (no --map), loaded: the map run.json names (its path in buf[cap])
** or NULL, with the same warnings. The caller closes it (sn_map_close): a command that uses the
** map takes this one instead of loading it a second time. */
sn_map *sn_cli_run_map_open(const char *cmd, const char *run_dir, char *buf, size_t cap);

#endif
