/* frame.h — the top of the engine (frame/engine.c): create, build, step, unload, which call
** every subsystem. Nothing below it includes it but the parts that drive it again (api/,
** recording/replay.c, a test world). */
#ifndef SN_FRAME_FRAME_H
#define SN_FRAME_FRAME_H

#include "../sim/spawn.h"

#include <sensim/sensim.h>

struct sn_engine;

/* The two halves of sn_engine_step (a test world injects collisions between them):
** begin = clock, spawns/destroys/calls, world events, PRE ticks, controllers, physics;
** end = collision events, POST and OBSERVE ticks, serialization. */
sn_status sn_engine_step_begin(struct sn_engine *e, sn_error *err);
sn_status sn_engine_step_end(struct sn_engine *e, sn_error *err);
/* sn_engine_create without plugins from the search path when !search (a test world's). */
sn_engine *sn_engine_create_with(const sn_engine_options *opts, bool search, sn_error *err);
/* Builds e->scene (parsed already) into the world; on failure unloads everything. */
sn_status sn_engine_build_loaded(struct sn_engine *e, sn_error *err);
void sn_engine_unload(struct sn_engine *e);
/* scene_spawn.c: spawns a scene actor entry when due (resolving its attributes), with its
** velocity, control and autopilot (a map autopilot starts through traffic/). */
sn_status sn_spawn_scene_actor(struct sn_engine *e, sn_pending_actor *pa, sn_error *err);
/* A scene entry's attributes resolved against bp (plugin/attr.h's sn_attr_resolve), errors at
** their file:line:col; with `given` (may be NULL) which of bp's attributes it sets, NULL when
** none (both owned by the caller, free()). */
sn_status sn_scene_attrs_resolve(const struct sn_engine *e, const sn_blueprint *bp, const sn_scene_entity *ent,
                                 const char *const *extra, sn_value **out, bool **given, sn_error *err);

#endif
