/* scenario.h — an OpenSCENARIO scenario in the engine (xosc_engine.c): a scene that names one
** (`scenario:`, or a .xosc run directly) gets its map, its entities as actors spawned from the
** same descriptors as a scene's, and its storyboard as a controller in step 3 of the frame. */
#ifndef SN_SCENARIO_SCENARIO_H
#define SN_SCENARIO_SCENARIO_H

#include <sensim/sensim.h>

struct sn_engine;
typedef struct sn_scenario sn_scenario;

/* Parses the scene's scenario (e->scene.scenario_path) with its parameter overrides; when the
** scene names no map, the scenario's LogicFile becomes the scene's map. */
sn_status sn_scenario_open(struct sn_engine *e, sn_error *err);
/* Once the map is loaded: plays the Init and spawns every entity as a kinematic actor. */
sn_status sn_scenario_spawn(struct sn_engine *e, sn_error *err);
/* Step 3: the storyboard to this frame's time; the entities' poses become their targets. */
sn_status sn_scenario_step(struct sn_engine *e, sn_error *err);
/* Whether the storyboard has ended (its StopTrigger fired, or every story completed). */
bool sn_scenario_ended(const struct sn_engine *e);
/* The `type` of the storyboard log's messages (a stream's header keys, with sensor "storyboard"
** and sensor_id 0: no sensor's), which views tell from sensors' streams by it. */
#define SN_STORYBOARD_TYPE "scenario.storyboard"
/* Writes dir/storyboard.msgpack; *json (owned by the scenario) receives run.json's members. */
sn_status sn_scenario_finish(struct sn_engine *e, const char *dir, const char **json, sn_error *err);
void sn_scenario_free(sn_scenario *s); /* NULL-safe */

#endif
