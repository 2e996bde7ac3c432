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

/*
** Locks OUT for the life of a run (flock on the folder itself, so nothing is left behind): a
** second run into the same OUT is refused while the first holds it. *fd gets the lock's
** descriptor (close it to release; the kernel releases it when the process dies, even by
** SIGKILL). SN_E_IO with "is in use by another sensim run" when taken.
*/
sn_status sn_outdir_lock(const char *out, int *fd, sn_error *err);

#endif
