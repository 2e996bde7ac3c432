/* report_cmd.h — `sensim report RUN_DIR --out REPORT.html` (public API only). */
#ifndef SN_CLI_REPORT_CMD_H
#define SN_CLI_REPORT_CMD_H

int sn_cmd_report(int argc, char **argv);

#endif
