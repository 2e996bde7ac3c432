/* scaffold.c — `sensim new-sensor`: the templates of sdk/templates/sensor, embedded at build
** time, with @NAME@ and @BLUEPRINT@ filled in. */
#include "scaffold.h"

#include "../core/util.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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
        return sn_fail(err, SN_E_IO, "new-sensor: cannot create %s: %s", path, strerror(errno));
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
        return sn_fail(err, SN_E_IO, "new-sensor: cannot write %s: %s", path, strerror(errno));
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
            return sn_fail(err, SN_E_INVALID,
                           "new-sensor: '%s' is not a blueprint id like sensor.other.my_sensor", arg);
        sn_format(name, sizeof name, "%s", last + 1);
        sn_format(bp, sizeof bp, "%s", arg);
    } else {
        if (!valid_ident(arg, strlen(arg)))
            return sn_fail(err, SN_E_INVALID,
                           "new-sensor: '%s' is not a valid name (lower case letters, digits and _, starting "
                           "with a letter, at most 48)", arg);
        sn_format(name, sizeof name, "%s", arg);
        sn_format(bp, sizeof bp, "sensor.other.%s", arg);
    }
    char path[4096];
    if (!dir)
        dir = name;
    sn_format(dir_out, dir_out_size, "%s", dir);
    struct stat st;
    if (stat(dir, &st) == 0) {
        if (!S_ISDIR(st.st_mode) || !dir_is_empty(dir))
            return sn_fail(err, SN_E_INVALID, "new-sensor: %s already exists and is not an empty folder; "
                                              "nothing was written", dir);
    } else if (mkdir(dir, 0777) != 0) {
        return sn_fail(err, SN_E_IO, "new-sensor: cannot create folder %s: %s", dir, strerror(errno));
    }
    for (const sn_embedded *t = sn_sensor_templates; t->name; t++) {
        /* template file names: sensor.c -> NAME.c, test_sensor.c -> test_NAME.c */
        char file[128];
        if (!strcmp(t->name, "sensor.c"))
            sn_format(file, sizeof file, "%s.c", name);
        else if (!strcmp(t->name, "test_sensor.c"))
            sn_format(file, sizeof file, "test_%s.c", name);
        else
            sn_format(file, sizeof file, "%s", t->name);
        if (snprintf(path, sizeof path, "%s/%s", dir, file) >= (int)sizeof path)
            return sn_fail(err, SN_E_INVALID, "new-sensor: folder name too long");
        sn_status s = write_filled(path, t->text, name, bp, err);
        if (s)
            return s;
    }
    return SN_OK;
}
