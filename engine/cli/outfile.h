/* outfile.h — one output file written whole or not at all, never over an existing file: the
** bytes go to a hidden staging file beside it (mkstemp: exclusive), which link(2) then puts
** in place (failing, not replacing, when the name was taken meanwhile) before it is removed.
** Used by `sensim convert --video/--gif` and `sensim report`. */
#ifndef SN_CLI_OUTFILE_H
#define SN_CLI_OUTFILE_H

#include <sensim/sensim.h>

#include <stdarg.h>

typedef struct sn_outfile {
    char final[4096]; /* where the file goes */
    char stage[4200]; /* the staging file while open; "" once committed or dropped */
    int fd;           /* the staging file's descriptor (-1 when not open); closed by commit/drop */
} sn_outfile;

/* Fills err ("where: what", as the library does) and returns status. */
sn_status sn_cli_fail(sn_error *err, sn_status status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Refuses a path that exists (SN_E_INVALID: "PATH exists; sensim does not replace it") or whose
** folder cannot take a new file (SN_E_IO), and creates the staging file. */
sn_status sn_outfile_open(sn_outfile *o, const char *path, sn_error *err);
/* Closes the descriptor if still open and puts the staging file at the final name. */
sn_status sn_outfile_commit(sn_outfile *o, sn_error *err);
/* Removes the staging file (NULL-safe, idempotent): nothing of a failed output is left. */
void sn_outfile_drop(sn_outfile *o);

#endif
