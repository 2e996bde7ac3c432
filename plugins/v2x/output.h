/* output.h — one report of a V2X sensor: `messages`, every reception since its last report. */
#ifndef SN_V2X_OUTPUT_H
#define SN_V2X_OUTPUT_H

#include "medium.h"

/* Writes station s's report. Encodes this frame's CAMs into the medium the first time they are
** reported (hence the medium is not const). */
sn_status sn_v2x_write_report(const sn_host *h, sn_writer *w, sn_v2x_medium *m, const sn_v2x_station *s);

#endif
