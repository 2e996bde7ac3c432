/* map_cmd.h — `sensim map FILE` (public API only). */
#ifndef SN_CLI_MAP_CMD_H
#define SN_CLI_MAP_CMD_H

int sn_cmd_map(int argc, char **argv);

#endif
