/* manifest.c — DIR/manifest.jsonl: one JSON object per run (id, index, scene, seed, overrides,
** status, exit, signal, error, wall_s, frames, outputs with sizes and SHA-256), appended as
** runs end so an interrupted batch keeps what it did; then joined (last record per id wins,
** in run order) so a finished batch, or shards merged, read the same whatever the timing. */
#define _XOPEN_SOURCE 700 /* nftw */
#include "batch.h"
#include "json_out.h"
#include "sha256.h"
#include "cli_input.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A manifest to read, if it is a regular file (cli_input.h): NULL with *what saying what it is
** for a FIFO or folder; NULL with errno otherwise. */
static FILE *open_manifest(const char *path, const char **what) { return sn_cli_open_input(path, what); }

/* Every file under dir/rel, sorted by name at each level, as {"path","bytes","sha256"}; not a
** failed run's sensim-partial-* folder. */
static void outputs(FILE *f, const char *dir, const char *rel, bool *first)
{
    char path[4200];
    snprintf(path, sizeof path, "%s%s%s", dir, rel[0] ? "/" : "", rel);
    struct dirent **list;
    int n = scandir(path, &list, NULL, alphasort);
    for (int i = 0; i < n; i++) {
        const char *name = list[i]->d_name;
        char sub[4200], full[4200];
        bool fits = snprintf(sub, sizeof sub, "%s%s%s", rel, rel[0] ? "/" : "", name) < (int)sizeof sub &&
                    snprintf(full, sizeof full, "%s/%s", dir, sub) < (int)sizeof full;
        struct stat st;
        /* a failed run's staging folder (random name) holds partial outputs, not outputs: the
        ** manifest stays a function of the spec */
        bool staging = !rel[0] && strncmp(name, "sensim-partial-", 15) == 0;
        if (fits && !staging && strcmp(name, ".") && strcmp(name, "..") && lstat(full, &st) == 0) {
            if (S_ISDIR(st.st_mode)) {
                outputs(f, dir, sub, first);
            } else if (S_ISREG(st.st_mode)) {
                char hex[65];
                uint64_t size = 0;
                if (!sn_cli_sha256_file(full, hex, &size))
                    snprintf(hex, sizeof hex, "unreadable");
                fprintf(f, "%s{\"path\":", *first ? "" : ",");
                sn_json_str(f, sub);
                fprintf(f, ",\"bytes\":%llu,\"sha256\":\"%s\"}", (unsigned long long)size, hex);
                *first = false;
            }
        }
        free(list[i]);
    }
    if (n >= 0)
        free(list);
}

void manifest_write(FILE *f, const sn_batch_run *run, const batch_result *r, const char *run_dir)
{
    fprintf(f, "{\"id\":");
    sn_json_str(f, run->id);
    fprintf(f, ",\"index\":%zu,\"scene\":", run->index);
    sn_json_str(f, run->scene);
    if (run->seed_set)
        fprintf(f, ",\"seed\":%llu", (unsigned long long)run->seed);
    else
        fprintf(f, ",\"seed\":null");
    fprintf(f, ",\"overrides\":[");
    for (size_t i = 0; i < run->n_overrides; i++) {
        if (i)
            fputc(',', f);
        sn_json_str(f, run->overrides[i]);
    }
    fprintf(f, "],\"status\":\"%s\",\"exit\":%d,\"signal\":", r->status, r->exit_code);
    if (r->signal)
        fprintf(f, "%d", r->signal);
    else
        fprintf(f, "null");
    fprintf(f, ",\"error\":");
    if (r->error[0])
        sn_json_str(f, r->error);
    else
        fprintf(f, "null");
    fprintf(f, ",\"frames\":%llu,\"outputs\":[", (unsigned long long)r->frames);
    bool first = true;
    outputs(f, run_dir, "", &first);
    /* wall time last: the one field that differs between two runs of the same batch */
    fprintf(f, "],\"wall_s\":%.3f}\n", r->wall);
    fflush(f);
}

/* A record's id and index, from the fixed order manifest_write uses. */
static bool record_key(const char *line, char *id, size_t n, size_t *index)
{
    const char *p = strstr(line, "{\"id\":\"");
    if (!p)
        return false;
    p += 7;
    const char *q = strchr(p, '"');
    if (!q || (size_t)(q - p) >= n)
        return false;
    memcpy(id, p, (size_t)(q - p));
    id[q - p] = 0;
    return sscanf(q, "\",\"index\":%zu", index) == 1;
}

void manifest_completed(const char *path, const sn_batch *b, bool *done)
{
    const char *what;
    FILE *f = open_manifest(path, &what); /* not a file: nothing done yet (writing it then fails) */
    if (!f)
        return;
    size_t n = sn_batch_count(b);
    char *line = NULL, id[512];
    size_t cap = 0, index;
    ssize_t len;
    while ((len = getline(&line, &cap, f)) > 0) {
        /* a line without its newline was cut (the batch was killed while writing it): not done */
        if (line[len - 1] != '\n' || !record_key(line, id, sizeof id, &index) || index >= n)
            continue;
        sn_batch_run r = {.struct_size = sizeof r};
        if (sn_batch_get(b, index, &r, NULL) != SN_OK || strcmp(r.id, id) != 0)
            continue; /* the spec changed since: that record is not this run */
        done[index] = strstr(line, ",\"status\":\"ok\",") != NULL; /* the last record wins */
    }
    free(line);
    fclose(f);
}

typedef struct rec {
    char *line;
    size_t index, order;
    char id[512];
} rec;

static int by_index(const void *a, const void *b)
{
    const rec *x = a, *y = b;
    if (x->index != y->index)
        return x->index < y->index ? -1 : 1;
    int c = strcmp(x->id, y->id);
    if (c)
        return c;
    return x->order < y->order ? -1 : x->order > y->order;
}

bool manifest_join(const char *const *inputs, size_t n, const char *out, char *err, size_t errn)
{
    rec *recs = NULL;
    size_t count = 0, cap = 0;
    bool ok = true;
    for (size_t i = 0; i < n && ok; i++) {
        const char *what;
        FILE *f = open_manifest(inputs[i], &what);
        if (!f) {
            snprintf(err, errn, "%s: %s%s", inputs[i], what ? "not a manifest file: it is " : "cannot read manifest: ",
                     what ? what : strerror(errno));
            ok = false;
            break;
        }
        char *line = NULL;
        size_t lcap = 0;
        ssize_t len;
        for (size_t ln = 1; (len = getline(&line, &lcap, f)) > 0; ln++) {
            if (count == cap) {
                cap = cap ? 2 * cap : 256;
                rec *grown = realloc(recs, cap * sizeof *recs);
                if (!grown) {
                    ok = false;
                    snprintf(err, errn, "out of memory");
                    break;
                }
                recs = grown;
            }
            rec *r = &recs[count];
            if (!record_key(line, r->id, sizeof r->id, &r->index) || line[len - 1] != '\n') {
                snprintf(err, errn, "%s:%zu: not a manifest record (cut short or edited?)", inputs[i], ln);
                ok = false;
                break;
            }
            r->line = line;
            r->order = count++;
            line = NULL;
            lcap = 0;
        }
        free(line);
        fclose(f);
    }
    if (ok && count)
        qsort(recs, count, sizeof *recs, by_index);
    /* a fresh temporary (mkstemp: exclusive, never through a link), renamed over `out` */
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp-XXXXXX", out);
    int fd = ok ? mkstemp(tmp) : -1;
    if (fd >= 0)
        fchmod(fd, 0644);
    FILE *o = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (ok && !o) {
        snprintf(err, errn, "%s: cannot write: %s", tmp, strerror(errno));
        if (fd >= 0) {
            close(fd);
            remove(tmp);
        }
        ok = false;
    }
    for (size_t i = 0; o && i < count; i++)
        if (i + 1 == count || recs[i + 1].index != recs[i].index || strcmp(recs[i + 1].id, recs[i].id))
            fputs(recs[i].line, o); /* the last record of each run */
    if (o && (fclose(o) != 0 || rename(tmp, out) != 0)) {
        snprintf(err, errn, "%s: cannot write: %s", out, strerror(errno));
        remove(tmp);
        ok = false;
    }
    for (size_t i = 0; i < count; i++)
        free(recs[i].line);
    free(recs);
    return ok;
}

bool manifest_trim(const char *path, char *err, size_t errn)
{
    int fd = open(path, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT)
            return true;
        snprintf(err, errn, "%s: cannot open the manifest: %s", path, strerror(errno));
        return false;
    }
    struct stat st;
    bool ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
    if (!ok)
        snprintf(err, errn, "%s: the manifest is not a regular file", path);
    off_t end = ok ? st.st_size : 0, keep = 0;
    /* from the end back to the last newline: what follows it is a cut record */
    char buf[4096];
    for (off_t at = end; ok && at > 0 && keep == 0;) {
        size_t n = at > (off_t)sizeof buf ? sizeof buf : (size_t)at;
        at -= (off_t)n;
        if (pread(fd, buf, n, at) != (ssize_t)n) {
            snprintf(err, errn, "%s: cannot read: %s", path, strerror(errno));
            ok = false;
            break;
        }
        for (size_t i = n; i-- > 0;)
            if (buf[i] == '\n') {
                keep = at + (off_t)i + 1;
                break;
            }
    }
    if (ok && keep != end && ftruncate(fd, keep) != 0) {
        snprintf(err, errn, "%s: cannot drop its cut last line: %s", path, strerror(errno));
        ok = false;
    }
    close(fd);
    return ok;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path) == 0 || errno == ENOENT ? 0 : -1;
}

bool batch_rmtree(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return errno == ENOENT;
    return nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS) == 0;
}
