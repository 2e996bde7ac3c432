/* batch_cmd.h — the `sensim batch` subcommand, called from main.c. */
#ifndef SN_CLI_BATCH_CMD_H
#define SN_CLI_BATCH_CMD_H

extern const char SN_HELP_BATCH[];
/* sensim batch ... (argv[1] == "batch"); returns the exit status. */
int sn_cli_batch(int argc, char **argv);
/* sensim batch merge ... */
int sn_cli_batch_merge(int argc, char **argv);

#include <sensim/sensim.h>
/* What `sensim run` steps: sn_engine_run(e, 0)'s steps and finish, one at a time: under `sensim
** batch` (SENSIM_PROGRESS_FD set by it) reporting "frames_done frames_planned" lines on that
** descriptor about ten times a second, from which the batch's progress bar estimates; on SIGINT
** or SIGTERM stopping after the frame in progress as a failed run (sn_cli_interrupted() then
** gives the signal) (progress.c). */
sn_status sn_cli_run_frames(sn_engine *e, sn_error *err);
/* The signal that interrupted the last sn_cli_run_frames, 0 if none. */
int sn_cli_interrupted(void);
/* `sensim run ARGS...` (argv[1] == "run") in this process; returns its exit status. */
int sn_cli_run_main(int argc, char **argv);

#endif
