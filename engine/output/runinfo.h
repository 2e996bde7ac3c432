/* runinfo.h — DIR/run.json, the run folder's own note of where it came from (docs/cli.md,
** "The run folder"): the scene and the OpenDRIVE map, as paths relative to the folder, the
** seed and the run's traffic health (docs/traffic.md). Written into the staging folder with the streams, so it is committed with them; read
** back by sn_run_map_path (sensim/map.h) for `sensim export mcap` and `sensim report`. */
#ifndef SN_SIM_RUNINFO_H
#define SN_SIM_RUNINFO_H

#include <sensim/sensim.h>

#include <stdint.h>

#define SN_RUNINFO_FILE "run.json"

#include <stdio.h>

/* A member of run.json written by its owner: the traffic health (traffic/health.h's
** sn_health_json over the engine's health), so this file needs no traffic header. */
typedef struct sn_runinfo_member {
    const char *key;
    void (*write)(const void *obj, FILE *f);
    const void *obj;
} sn_runinfo_member;

/* Writes stage/run.json for a run whose folder is run_dir (it exists). scene and map may be
** NULL (a scene from memory, a scene without a map); health, the run's traffic health
** (written by its owner), NULL for none. */
sn_status sn_runinfo_write(const char *stage, const char *run_dir, const char *scene, const char *map, uint64_t seed,
                           const sn_runinfo_member *health, sn_error *err);
/* The same with further members (a JSON fragment `"key":value,...`, NULL for none): a scenario's
** storyboard end. */
sn_status sn_runinfo_write_with(const char *stage, const char *run_dir, const char *scene, const char *map,
                                uint64_t seed, const sn_runinfo_member *health, const char *extra, sn_error *err);

/* `to` relative to the folder `from` (both are made absolute first; symbolic links resolved
** when they exist) into out[cap], or `to` made absolute when only the root is common to both;
** false when it does not fit or a path cannot be resolved. */
bool sn_path_relative(const char *from, const char *to, char *out, size_t cap);

#endif
