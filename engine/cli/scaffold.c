/* scaffold.c — `sensim new-sensor`: the templates of sdk/templates/sensor, embedded at build
** time, with @NAME@ and @BLUEPRINT@ filled in. */
#include "scaffold.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Local stand-ins for the engine's sn_fail and sn_format: the program links only libsensim's public API. */
SN_PRINTF(3, 4) static sn_status fail(sn_error *err, sn_status status, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
        err->status = status;
    }
    return status;
}

/* snprintf where cutting a long text short is intended (no -Wformat-truncation). */
SN_PRINTF(3, 4) static void format(char *buf, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, n, fmt, ap);
    va_end(ap);
}

typedef struct sn_embedded {
    const char *name, *text;
} sn_embedded;
extern const sn_embedded sn_sensor_templates[]; /* generated: templates.c */

static bool valid_ident(const char *s, size_t n)
{
    if (n == 0 || n > 48 || !(s[0] >= 'a' && s[0] <= 'z'))
        return false;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
            return false;
    return true;
}

/* Writes `text` to path with every @NAME@ and @BLUEPRINT@ replaced. */
static sn_status write_filled(const char *path, const char *text, const char *name, const char *bp, sn_error *err)
{
    FILE *f = fopen(path, "wx"); /* never overwrite */
    if (!f)
        return fail(err, SN_E_IO, "new-sensor: cannot create %s: %s", path, strerror(errno));
    for (const char *p = text; *p;) {
        if (!strncmp(p, "@NAME@", 6)) {
            fputs(name, f);
            p += 6;
        } else if (!strncmp(p, "@BLUEPRINT@", 11)) {
            fputs(bp, f);
            p += 11;
        } else {
            fputc(*p++, f);
        }
    }
    if (fclose(f))
        return fail(err, SN_E_IO, "new-sensor: cannot write %s: %s", path, strerror(errno));
    return SN_OK;
}

static bool dir_is_empty(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return false;
    struct dirent *e;
    bool empty = true;
    while (empty && (e = readdir(d)))
        empty = !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..");
    closedir(d);
    return empty;
}

sn_status sn_scaffold_sensor(const char *arg, const char *dir, char *dir_out, size_t dir_out_size, sn_error *err)
{
    char name[64], bp[128];
    const char *last = strrchr(arg, '.');
    if (last) {
        /* a whole blueprint id: sensor.FAMILY.NAME */
        const char *fam = arg + 7;
        if (strncmp(arg, "sensor.", 7) || fam >= last || !valid_ident(fam, (size_t)(last - fam)) ||
            !valid_ident(last + 1, strlen(last + 1)))
            return fail(err, SN_E_INVALID,
                           "new-sensor: '%s' is not a blueprint id like sensor.other.my_sensor", arg);
        format(name, sizeof name, "%s", last + 1);
        format(bp, sizeof bp, "%s", arg);
    } else {
        if (!valid_ident(arg, strlen(arg)))
            return fail(err, SN_E_INVALID,
                           "new-sensor: '%s' is not a valid name (lower case letters, digits and _, starting "
                           "with a letter, at most 48)", arg);
        format(name, sizeof name, "%s", arg);
        format(bp, sizeof bp, "sensor.other.%s", arg);
    }
    char path[4096];
    if (!dir)
        dir = name;
    format(dir_out, dir_out_size, "%s", dir);
    struct stat st;
    if (stat(dir, &st) == 0) {
        if (!S_ISDIR(st.st_mode) || !dir_is_empty(dir))
            return fail(err, SN_E_INVALID, "new-sensor: %s already exists and is not an empty folder; "
                                              "nothing was written", dir);
    } else if (mkdir(dir, 0777) != 0) {
        return fail(err, SN_E_IO, "new-sensor: cannot create folder %s: %s", dir, strerror(errno));
    }
    for (const sn_embedded *t = sn_sensor_templates; t->name; t++) {
        /* template file names: sensor.c -> NAME.c, test_sensor.c -> test_NAME.c */
        char file[128];
        if (!strcmp(t->name, "sensor.c"))
            format(file, sizeof file, "%s.c", name);
        else if (!strcmp(t->name, "test_sensor.c"))
            format(file, sizeof file, "test_%s.c", name);
        else
            format(file, sizeof file, "%s", t->name);
        if (snprintf(path, sizeof path, "%s/%s", dir, file) >= (int)sizeof path)
            return fail(err, SN_E_INVALID, "new-sensor: folder name too long");
        sn_status s = write_filled(path, t->text, name, bp, err);
        if (s)
            return s;
    }
    return SN_OK;
}
