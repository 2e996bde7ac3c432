/* infile.h — opening a file the user names as input (scene, recording, map, batch spec). */
#ifndef SN_CORE_INFILE_H
#define SN_CORE_INFILE_H

#include <sensim/sensim.h>
#include <stdio.h>

/*
** Opens `path` for reading ("rb") if it is a regular file. A folder, FIFO, device or socket is
** refused without blocking (opening a FIFO for reading waits for a writer: a recording or spec
** given as one hung the program): SN_E_IO with "PATH: cannot open WHAT: ..." or "PATH: not a
** WHAT: it is a folder / a FIFO / not a regular file". The caller fcloses the result.
*/
FILE *sn_open_input(const char *path, const char *what, sn_error *err);

#endif
