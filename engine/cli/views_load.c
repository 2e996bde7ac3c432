/* views_load.c — finds and loads libsensim-views.so on demand (views_module.h). */
#include "views_module.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define SN_VIEWS_SO "libsensim-views.so"

/* dlopen of `dir/rel/SN_VIEWS_SO`; NULL when the path is too long or nothing loads there. */
static void *open_in(const char *dir, const char *rel, char *why, size_t whyn)
{
    char path[PATH_MAX];
    int n = snprintf(path, sizeof path, "%s/%s%s" SN_VIEWS_SO, dir, rel, *rel ? "/" : "");
    if (n < 0 || (size_t)n >= sizeof path || access(path, F_OK) != 0)
        return NULL;
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h)
        snprintf(why, whyn, "%s", dlerror());
    return h;
}

const sn_views_api *sn_views_load(const char *what)
{
    static const sn_views_api *api;
    if (api)
        return api;
    char why[512] = "";
    void *h = NULL;
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0';
            /* a build tree keeps the module beside the program; an install in the library folder */
            if (!(h = open_in(exe, "", why, sizeof why)))
                h = open_in(exe, "../" SN_INSTALL_LIBDIR, why, sizeof why);
        }
    }
    if (!h && !why[0] && !(h = dlopen(SN_VIEWS_SO, RTLD_NOW | RTLD_LOCAL)))
        snprintf(why, sizeof why, "%s", dlerror());
    if (!h) {
        fprintf(stderr, "sensim: error: %s: cannot load the views module " SN_VIEWS_SO " (FFmpeg's libraries): %s\n",
                what, why);
        return NULL;
    }
    void *sym = dlsym(h, "sn_views_module");
    const sn_views_api *(*entry)(void) = NULL;
    memcpy(&entry, &sym, sizeof entry); /* object-to-function pointer, as POSIX allows */
    const sn_views_api *a = entry ? entry() : NULL;
    if (!a || a->abi != SN_VIEWS_ABI) {
        fprintf(stderr, "sensim: error: %s: %s is from another build of sensim (views ABI %d, expected %d)\n", what,
                SN_VIEWS_SO, a ? a->abi : -1, SN_VIEWS_ABI);
        return NULL;
    }
    return api = a;
}
