/* export_cmd.h — `sensim export mcap` and the MCAP of `sensim run --mcap` (export_cmd.c). */
#ifndef SN_CLI_EXPORT_CMD_H
#define SN_CLI_EXPORT_CMD_H

#include <sensim/mcap.h>

/* sensim export mcap RUN_DIR --out FILE [--map XODR] [--depth-converter C] [--raw-images] */
int sn_cmd_export(int argc, char **argv);
/* After sn_engine_open_outputs: adds an actors stream (sensor.other.actors, "actors") when the
** scene has none, starts the run's MCAP at path (the scene's map included) and listens to every
** sensor; threads as --threads (0: one per core); overwrite as --overwrite (else an existing
** file at path is refused). NULL with err on failure. */
sn_mcap *sn_cli_mcap_start(sn_engine *e, const char *path, int threads, bool overwrite, sn_error *err);
/* Adds an actors stream (sensor.other.actors, "actors") when the loaded scene has none live:
** every run keeps the little it takes to view it later (sensim export mcap draws its boxes and
** transform tree from it, issue 33 item 2). */
sn_status sn_cli_add_actors(sn_engine *e, sn_error *err);
/* After the run: the MCAP into place when run_ok, else left partial (said on stderr). Returns 1
** (and prints the error) when a whole run's MCAP could not be finished, else 0. */
int sn_cli_mcap_end(sn_mcap *m, bool run_ok);

#endif
