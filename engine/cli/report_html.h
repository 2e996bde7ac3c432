/* report_html.h — writes the report page of a run (docs/views.md): summary, traffic health per
** minute, paths seen from above with collisions (counted per pair of kinds, the vehicles' listed),
** messages over time per sensor, a thumbnail strip per camera. */
#ifndef SN_CLI_REPORT_HTML_H
#define SN_CLI_REPORT_HTML_H

#include "run_data.h"

#include <stdio.h>

void sn_report_html(FILE *f, const run_data *d);

#endif
