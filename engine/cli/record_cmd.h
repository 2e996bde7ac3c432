/* record_cmd.h — `sensim recorder info|collisions|blocked` and `sensim replay` (public API only). */
#ifndef SN_CLI_RECORD_CMD_H
#define SN_CLI_RECORD_CMD_H

int sn_cmd_recorder(int argc, char **argv);
int sn_cmd_replay(int argc, char **argv);

#endif
