/*
** compact.h — the compact report layout (report_layout: compact, docs/sensors/v2x.md): the
** receptions as columns of fixed-size little-endian binary values, one write per column, in
** place of CARLA's map per message (some 55 values each). For a receiver that hears hundreds
** of CAMs a tick, where copying CARLA's maps is most of the work.
*/
#ifndef SN_V2X_COMPACT_H
#define SN_V2X_COMPACT_H

#include "medium.h"

/* Bytes of one CAM record in the `cam` column: thirteen int32 then eight bytes (the page's table). */
#define SN_V2X_CAM_RECORD 60

/* Writes station s's report in the compact layout; `buf` is the caller's scratch, reused. The
** frame's CAM records are encoded at the first report and kept in m for the others. */
sn_status sn_v2x_write_compact(const sn_host *h, sn_writer *w, sn_v2x_medium *m, const sn_v2x_station *s,
                               sn_pack_buf *buf);

#endif
