/* views_module.h — the views of a run (`convert --video/--gif`, `report`) live in a module,
** libsensim-views.so, that the program loads only for those commands. The module links
** FFmpeg's libraries (about 125 shared objects with their dependencies), and loading them cost
** every start of `sensim` about 30 ms — a batch of thousands of short runs paid it each time. */
#ifndef SN_CLI_VIEWS_MODULE_H
#define SN_CLI_VIEWS_MODULE_H

#include <sensim/sensim.h>

#include <stdbool.h>

/* Bumped when the table changes: a module from another build is refused, not called. */
#define SN_VIEWS_ABI 1

typedef struct sn_views_api {
    int abi; /* SN_VIEWS_ABI */
    /* Both return the process's exit status and print their own one-line errors. */
    int (*convert_video)(const char *stream, const char *mp4, const char *gif, sn_color_converter conv,
                         bool overwrite);
    int (*report)(int argc, char **argv);
} sn_views_api;

/* The module's one exported symbol. The table is static: nobody frees it. */
SN_EXPORT const sn_views_api *sn_views_module(void);

/* In the program: loads the module once (next to the program in a build tree, else in the
** installed library folder, else by the program's run path). NULL after printing
** `sensim: error: <what>: ...` when it cannot be loaded. The module stays loaded until exit. */
const sn_views_api *sn_views_load(const char *what);

#endif
