/* file_copy.h — bytes of one file appended to a FILE being written, copied by the kernel
** (copy_file_range): no mapping and no copy through user memory, so a big PNG goes into an MCAP
** file at the cost of `dd` writing it. */
#ifndef SN_VIEWS_FILE_COPY_H
#define SN_VIEWS_FILE_COPY_H

#include <sensim/sensim.h>

#include <stdio.h>

/* Appends n bytes of the file `in` from offset `off` to `out` at its position (out is flushed
** first and its position kept in step). Falls back to pread and fwrite where the kernel cannot
** copy between the two (another file system, a pipe, an old kernel). SN_E_IO when the bytes are
** not all there (the file shrank) or cannot be written. */
sn_status sn_file_copy(FILE *out, int in, uint64_t off, size_t n, sn_error *err);

#endif
