/* batch_cmd.h — the `sensim batch` subcommand, called from main.c. */
#ifndef SN_CLI_BATCH_CMD_H
#define SN_CLI_BATCH_CMD_H

extern const char SN_HELP_BATCH[];
/* sensim batch ... (argv[1] == "batch"); returns the exit status. */
int sn_cli_batch(int argc, char **argv);
/* sensim batch merge ... */
int sn_cli_batch_merge(int argc, char **argv);

#endif
