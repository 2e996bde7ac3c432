/* outfile.h — one output file written whole or not at all (docs/cli.md, "Existing output
** files"): the bytes go to a hidden staging file beside it (mkstemp: exclusive), put in place
** only when whole. An existing file is refused unless the command was given --overwrite; then it
** is replaced by rename(2) at the end, so a failure leaves it as it was. Without --overwrite,
** link(2) puts the file in place, failing (not replacing) when the name was taken meanwhile.
** Used by `sensim convert --video/--gif` and `sensim report`. */
#ifndef SN_CLI_OUTFILE_H
#define SN_CLI_OUTFILE_H

#include <sensim/sensim.h>

#include <stdarg.h>

typedef struct sn_outfile {
    char final[4096]; /* where the file goes */
    char stage[4200]; /* the staging file while open; "" once committed or dropped */
    int fd;           /* the staging file's descriptor (-1 when not open); closed by commit/drop */
    bool overwrite;   /* replace an existing regular file at commit */
} sn_outfile;

/* Fills err ("where: what", as the library does) and returns status. */
sn_status sn_cli_fail(sn_error *err, sn_status status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* SN_OK when path may be written: absent, or (with overwrite) a regular file that is not a link.
** Else SN_E_INVALID: "PATH exists; sensim does not replace it without --overwrite", or what
** stands there. Checked before any work by every command that writes one file. */
sn_status sn_outfile_check(const char *path, bool overwrite, sn_error *err);
/* sn_outfile_check, then creates the staging file (SN_E_IO when the folder cannot take it). */
sn_status sn_outfile_open(sn_outfile *o, const char *path, bool overwrite, sn_error *err);
/* Closes the descriptor if still open and puts the staging file at the final name. */
sn_status sn_outfile_commit(sn_outfile *o, sn_error *err);
/* Removes the staging file (NULL-safe, idempotent): nothing of a failed output is left. */
void sn_outfile_drop(sn_outfile *o);

#endif
