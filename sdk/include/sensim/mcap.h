/*
** sensim/mcap.h — a run as an MCAP file for Foxglove (docs/mcap.md): every sensor a channel
** with Foxglove's well-known schemas (protobuf), the actors as 3-D boxes, the transform tree,
** the map's lanes as lines.
**
**   sn_mcap_export("out/demo", "demo.mcap", NULL, NULL, &err);   // a run's output folder
**
** or while a run goes (what `sensim run --mcap` does):
**
**   sn_mcap *m = sn_mcap_create("run.mcap", NULL, &err);
**   sn_mcap_add_map(m, sn_engine_map(e), &err);      // optional
**   sn_engine_listen_all(e, sn_mcap_listen, m, &err);
**   st = sn_engine_run(e, 0, &err);
**   sn_mcap_close(m, st == SN_OK, &err);             // renamed into place only when complete
**
** Both read the same messages (the streams' bytes), so the run with --mcap and the export of
** its folder give the same file byte for byte. Actors' boxes and poses come from a
** sensor.other.actors stream (`--mcap` adds one). Files are written to PATH.partial-PID-N
** beside PATH and put at PATH only when whole: a killed run never leaves a half MCAP at PATH. An
** existing PATH is refused unless sn_mcap_options.overwrite (NULL options: refused).
*/
#ifndef SENSIM_MCAP_H
#define SENSIM_MCAP_H

#include <sensim/sensim.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sn_mcap sn_mcap;

/* Set struct_size = sizeof(sn_mcap_options); zero means the defaults. */
typedef struct sn_mcap_options {
    uint32_t struct_size;
    int zstd_level;              /* chunk compression, 1..19; 0 = 1 (fast: images are PNG already); -1: none */
    const char *depth_converter; /* depth cameras: "depth", "logarithmic_depth" (NULL, the default) or "raw" */
    bool raw_images;             /* cameras as foxglove.RawImage (rgb8) instead of PNG CompressedImage */
    uint32_t chunk_bytes;        /* a chunk is closed once its records reach this size; 0 = 4 MiB */
    int threads;                 /* threads making images (PNG); 0 = one per core; -1 = none (the
                                    caller's thread). The file is the same whatever the number. */
    bool overwrite;              /* replace an existing regular file at the path (renamed over it when
                                    whole); false: an existing path is refused (SN_E_INVALID) at create.
                                    (It sits in what was padding: sizeof is unchanged.) */
} sn_mcap_options;

/* Starts an MCAP file that becomes `path` at sn_mcap_close(m, true). o may be NULL. */
SN_API sn_mcap *sn_mcap_create(const char *path, const sn_mcap_options *o, sn_error *err);
/* The map's lanes and marks as lines (topic /map), written with the first frame. NULL map: nothing. */
SN_API sn_status sn_mcap_add_map(sn_mcap *m, const sn_map *map, sn_error *err);
/* The record layouts the sensor classes of `lib` declare (SDK 1.6, sensim/records.h), copied: a
** sensor's declared bins become a foxglove.PointCloud when the record has f32 or f64 fields x, y
** and z (its other fields beside them), and records inside the JSON message otherwise.
** sn_mcap_export does it with the plugins of the search path. */
SN_API sn_status sn_mcap_add_layouts(sn_mcap *m, const sn_blueprints *lib, sn_error *err);
/* One stream message (as a listener gets it, or as read from a stream file). Messages of a
** frame may come in any order: they are written ordered by sensor id when the frame ends. */
SN_API sn_status sn_mcap_add_message(sn_mcap *m, const sn_message *msg, sn_error *err);
/* sn_mcap_add_message as an sn_listen_fn (user = the sn_mcap); its first failure is kept and
** returned by sn_mcap_close. */
SN_API void sn_mcap_listen(const sn_message *msg, void *user);
/* With `commit`: writes the last frame, the summary and the footer and renames the file to its
** path (never over a link or a folder). Without: leaves the partial file (sn_mcap_partial_path)
** as it is. Frees m either way (NULL-safe). */
SN_API sn_status sn_mcap_close(sn_mcap *m, bool commit, sn_error *err);
/* The file being written (PATH.partial-PID-N), valid until sn_mcap_close. */
SN_API const char *sn_mcap_partial_path(const sn_mcap *m);
/* Bytes written to the file so far. */
SN_API uint64_t sn_mcap_bytes(const sn_mcap *m);

/*
** Exports a run's output folder: every DIR/<sensor>.msgpack, merged in frame order, plus the
** map's lines when map_path is given. SN_E_INVALID for a folder without streams or a corrupt
** stream (naming file and byte); out is written whole or not at all.
*/
SN_API sn_status sn_mcap_export(const char *run_dir, const char *out, const char *map_path,
                                const sn_mcap_options *o, sn_error *err);
/* As sn_mcap_export with the map already loaded (NULL: none), so that a caller that had to load it
** anyway (the command line checks that a run's noted map loads) does not parse it twice. The
** caller keeps the map and closes it after the call. */
SN_API sn_status sn_mcap_export_map(const char *run_dir, const char *out, const sn_map *map,
                                    const sn_mcap_options *o, sn_error *err);

#ifdef __cplusplus
}
#endif

#endif
