/* outdir.h — the run's staging folder inside --out and its commit (outdir.c). */
#ifndef SN_SIM_OUTDIR_H
#define SN_SIM_OUTDIR_H

#include <sensim/sensim.h>

/* Creates OUT/sensim-partial-XXXXXX (exclusive); *stage is malloc'd. */
sn_status sn_outdir_stage(const char *out, char **stage, sn_error *err);
/* Checks every destination, then moves the staging folder's entries into OUT and removes it. */
sn_status sn_outdir_commit(const char *stage, const char *out, sn_error *err);
/* SN_OK when `dest` is absent or a `dir`/regular file that is not a link. */
sn_status sn_outdir_check_dest(const char *dest, bool dir, sn_error *err);

#endif
