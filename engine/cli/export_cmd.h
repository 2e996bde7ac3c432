/* export_cmd.h — `sensim export mcap` and the MCAP of `sensim run --mcap` (export_cmd.c). */
#ifndef SN_CLI_EXPORT_CMD_H
#define SN_CLI_EXPORT_CMD_H

#include <sensim/mcap.h>

/* sensim export mcap RUN_DIR --out FILE [--map XODR] [--depth-converter C] [--raw-images] */
int sn_cmd_export(int argc, char **argv);
/* Adds a sensor.other.actors named "actors" to a loaded scene that has none live. */
sn_status sn_cli_mcap_actors(sn_engine *e, sn_error *err);
/* Starts the run's MCAP at path (the scene's map included) and listens to every sensor;
** threads as --threads (0: one per core). */
sn_mcap *sn_cli_mcap_start(sn_engine *e, const char *path, int threads, sn_error *err);

#endif
