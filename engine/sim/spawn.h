/* spawn.h — spawning and destroying actors and sensors from any source: scene, API, recording (spawn.c). */
#ifndef SN_SIM_SPAWN_H
#define SN_SIM_SPAWN_H

#include "ctx.h"

#include <sensim/sensim.h>

/* A scene actor waiting for its spawn_at or destroy_at. */
typedef struct sn_pending_actor {
    const sn_scene_entity *entity;
    uint32_t actor_id; /* 0 until spawned */
    bool spawned, destroyed;
} sn_pending_actor;

/* Why sn_spawn_actor refused an actor, beside its status and sentence: callers decide on this,
** never on the wording of the message. */
typedef enum sn_spawn_refusal {
    SN_SPAWN_ACCEPTED = 0, /* spawned, or failed for another reason (the status says which) */
    SN_SPAWN_OVERLAP,      /* CARLA's "collision at spawn position": it would touch what stands there */
} sn_spawn_refusal;

/* What an actor is spawned from, whatever the source: a scene entry, the API, a recording.
** The attribute values are typed and resolved against the blueprint already. */
typedef struct sn_spawn_desc {
    const sn_blueprint *bp;
    sn_value *values;        /* bp order, one heap block; sn_spawn_actor takes ownership */
    const char *name;        /* NULL or "" for none; must not name a live actor */
    sn_transform transform;  /* world pose, or relative to the parent's origin */
    uint32_t parent;         /* 0 = free-standing */
    uint32_t id;             /* requested id; 0 = the next one */
    const sn_scene_entity *src; /* the scene entry (for file:line:col in errors), or NULL */
    bool name_kept;          /* name outlives the actor (a scene entry's): the actor keeps it, no copy */
    const char *role;        /* a sensor's role_name when its blueprint has none (the host keeps it), or NULL */
    sn_spawn_refusal refused; /* out: set by sn_spawn_actor */
    bool lift_static;        /* lifted out of static geometry however far it takes (an OpenSCENARIO entity:
                             ** its box is level, the road under it may be superelevated or sloped) */
    bool overlap_ok;         /* spawned overlapping what stands there (an OpenSCENARIO entity the Init
                             ** does not place: at the origin with the others until the storyboard
                             ** moves it, kinematic) */
} sn_spawn_desc;

/* Checks what every spawn shares (finite transform, live parent, free name and id). */
sn_status sn_spawn_check(struct sn_engine *e, const sn_spawn_desc *d, sn_error *err);
/* Spawns a non-sensor actor from a descriptor; takes d->values in every case. */
sn_status sn_spawn_actor(struct sn_engine *e, sn_spawn_desc *d, sn_actor **out, sn_error *err);
/* Spawns a prepared sensor record (values resolved) at d's transform, parent and id. */
sn_status sn_spawn_sensor(struct sn_engine *e, sn_sensor *s, const sn_spawn_desc *d, sn_error *err);
/* Charges a sensor's images (image_size_x * image_size_y, 32 bytes a pixel) to the engine's
** budget: SN_E_RANGE naming SN_LIMIT_IMAGE_PIXELS or SN_LIMIT_SENSOR_MEMORY when over. */
sn_status sn_sensor_budget(struct sn_engine *e, sn_sensor *s, const char *where, sn_error *err);
/* Gives a sensor's share back (destroyed, or refused). */
void sn_sensor_unbudget(struct sn_engine *e, sn_sensor *s);
/* Spawns a scene sensor entry when due. */
sn_status sn_spawn_scene_sensor(struct sn_engine *e, sn_sensor *s, sn_error *err);
/* Destroys an actor and its children; SN_E_NOMEM when a DESTROYED event could not be queued
** (the actors are gone all the same). */
sn_status sn_destroy_actor(struct sn_engine *e, uint32_t id);
sn_status sn_queue_event(struct sn_engine *e, sn_event_type type, uint32_t actor, uint32_t parent);

#endif
