/* world.h — the actor registry, the world state and the physical world (ODE) the engine owns.
**
** Actors live in `actors`, sorted by id (ids only grow, so appending keeps the order).
** The world owns every actor and every ODE object; plugins only ever hold ids.
**
** World state is plain data (MuJoCo's mjData): each actor's pose, velocities, acceleration
** and previous pose live in sn_actor.st. Drivers (driver.h) advance them: the physics driver
** from ODE bodies, the kinematic driver from poses set from outside. Everything else reads
** st and never an ODE body. */
#ifndef SN_WORLD_WORLD_H
#define SN_WORLD_WORLD_H

#include "../core/mathx.h"
#include "../core/strmap.h"
#include "ogrid.h"
#include "dbp.h"
#include "sbp.h"
#include "vshare.h"

#include <ode/ode.h>
#include <stddef.h>
#include <sensim/attr.h>
#include <sensim/sensim.h>

typedef enum sn_shape { SN_SHAPE_NONE, SN_SHAPE_PLANE, SN_SHAPE_BOX, SN_SHAPE_SPHERE, SN_SHAPE_CYLINDER } sn_shape;

/* Vehicle model parameters (a ray-cast suspension; see vehicle.c). */
typedef struct sn_vehicle_params {
    double max_power;     /* W */
    double max_force;     /* N, engine force cap at low speed */
    double max_steer;     /* rad */
    double drag_area;     /* Cd * A, m^2 */
    double wheelbase, track, clearance;
    double spring_k, damper_c, rest_compression, ray_length;
    double arb_front, arb_rear; /* anti-roll bars, N/m of compression difference */
    double roll_centre;   /* m above the contact patch where tyre forces act */
    double corner_front, corner_rear; /* cornering stiffness per unit load, 1/rad */
    double static_load;   /* N per wheel at rest (load sensitivity's reference) */
    double mu;            /* tyre friction coefficient */
    /* Brakes grip at most brake_mu of a wheel's load: min(mu, 0.8 l_f / h), so braking cannot
    ** lift the rear wheels (l_f: centre of mass to front axle, h: its height). Four-wheelers: mu. */
    double brake_mu;
    /* Roll stability control: the front wheels turn at most as far as gives max_lat m/s^2 of
    ** steady lateral acceleration at the current speed (0: no limit; vehicles that would tip
    ** before they slide, t/2h < 0.8). */
    double max_lat;
    /* Two-wheelers (number_of_wheels 2): lateral tyre forces act at the centre of mass (the
    ** rider's lean, not drawn, takes their roll moment) and a roll stabiliser of stab_k N m/rad
    ** and stab_c N m s/rad holds the body upright. 0 for four-wheelers. */
    double stab_k, stab_c;
    double pitch_k, pitch_c; /* two-wheelers: the rider's guard beyond SN_PITCH_GUARD of pitch (N m/rad, N m s/rad) */
    double lat_height; /* m above the contact patch where two-wheelers' lateral forces act (the centre of mass) */
    double cg;         /* m, the blueprint's centre of mass above the box's bottom (center_of_mass moves from it) */
    /* apply_physics_control's curves (sn_vehicle_physics): 0 points, the defaults */
    uint32_t n_steer, n_force;
    double steer_curve[SN_STEERING_CURVE_MAX][2]; /* km/h, fraction */
    double force_curve[SN_FORCE_CURVE_MAX][2];    /* m/s, N */
} sn_vehicle_params;

typedef struct sn_autopilot {
    sn_vec3 *route; /* owned */
    uint32_t n_route, next;
    double target_speed;
    bool loop, done;
    double speed_integral;
    struct sn_mapdrive *map; /* owned: a map autopilot (traffic/traffic.h) instead of the route */
} sn_autopilot;
/* Frees a map autopilot and the percentages' block it owns (traffic/traffic.c; NULL: nothing). */
void sn_mapdrive_free(struct sn_mapdrive *md);

/* How an actor moves (CARLA's set_simulate_physics): physics-driven bodies are stepped by ODE;
** kinematic ones follow poses set from outside and still push physics-driven ones. */
typedef enum sn_drive { SN_DRIVE_PHYSICS = 0, SN_DRIVE_KINEMATIC = 1 } sn_drive;

/* One actor's state, world frame, of its origin. Written by the drivers after each frame
** (and by spawn and teleports); read by everything else. */
typedef struct sn_actor_state {
    sn_vec3 pos;
    sn_quat rot;       /* unit; Euler angles only at the edges */
    sn_vec3 vel;       /* m/s */
    sn_vec3 ang_vel;   /* rad/s */
    sn_vec3 acc;       /* m/s^2, (vel - prev_vel) / dt over the last frame */
    sn_vec3 prev_pos;  /* pose at the end of the previous frame: render_at interpolates */
    sn_quat prev_rot;
    sn_vec3 prev_vel;
    sn_vec3 ang_acc;      /* rad/s^2, (ang_vel - prev_ang_vel) / dt over the last frame */
    sn_vec3 prev_ang_vel;
    /* Distance rolled along the actor's forward axis (vehicles: signed) or walked (walkers), m,
    ** integrated from the velocity each frame: it turns the drawn wheels and swings the legs
    ** (render/shapes.h). prev_travel: at the end of the previous frame. */
    double travel, prev_travel;
} sn_actor_state;

/* A kinematic actor's motion (sn_actor_motion.kin). */
typedef struct sn_kinematic {
    /* The pose to reach at the end of the next frame; without one it holds still, or moves at
    ** st.vel when that was set from outside (kin_scripted). */
    bool has_target, kin_scripted;
    /* coarse: its mover (hybrid mode, traffic/hybrid.c) lets it skip the substeps' placements
    ** when no dynamic body can reach it this frame; skip: this frame it does (driver_kinematic.c) */
    bool coarse, skip;
    sn_vec3 target_pos;
    sn_quat target_rot;
    sn_vec3 kin_from_pos, kin_to_pos; /* this frame's motion, set by the kinematic driver */
    sn_quat kin_from_rot, kin_to_rot;
} sn_kinematic;

/* What only vehicles and walkers have (sn_actor.mv): the other actors (a collision sensor per
** vehicle, a city's props) do without it. A walker's control takes the room of a vehicle's
** model; the autopilot and kinematic state are allocated when first used. */
typedef struct sn_actor_motion {
    sn_autopilot *ap;   /* owned, from the first autopilot (sn_actor_autopilot); has_autopilot says if it drives */
    /* Kinematic driving's state, allocated at the first switch to it (sn_world_set_drive), owned;
    ** NULL before: most vehicles are never kinematic. */
    struct sn_kinematic *kin;
    union {
        struct { /* walkers */
            sn_vec3 walk_dir;
            double walk_speed;
            double pushed;      /* a standing walker: vehicles' impulse (N*s) over the frames of contact before this one */
            double fallen_for;  /* a fallen walker: seconds since it fell (at frame ends) */
            /* The map-surface triangle a held walker last stood on (walker_hold.c): owned,
            ** allocated at its first hold, NULL before and when out of memory (then traced). */
            struct sn_walker_ground *ground;
        };
        struct { /* vehicles */
            /* The model's parameters, shared read-only by the cars of one model (w->blobs,
            ** vshare.h); all zero until spawn sets them. */
            const sn_vehicle_params *vp;
            /* The map-surface triangle each wheel's ray last met (vehicle.c). While the ray
            ** still meets it, the road meshes are not traced again: a wheel stays on one
            ** triangle for many substeps, and tracing trimeshes was half of a frame of traffic.
            ** Four, owned, allocated with a vehicle's body in a world with a map
            ** (sn_wheel_cache_alloc), NULL otherwise: only the map's surfaces are cached, and
            ** 0.4 KiB a vehicle was a tenth of its memory without one. The normal is derived
            ** from the edges where a hit needs it (80 bytes a wheel, not 104), and the edges
            ** from the corners: ODE gives a road trimesh's corners as floats widened to doubles
            ** (OPCODE keeps its vertices as floats), so three float corners hold the same bits
            ** as the doubles did (44 bytes a wheel, not 80: issue 36 item 6, mem57). */
            struct sn_wheel_tri {
                bool valid;
                sn_sclear_memo clear; /* where no kerb or prop stood near its ray (sclear.h); in the padding */
                float p[3][3];        /* the corners as ODE gave them (world frame) */
            } *wheel_tri;
        };
    };
} sn_actor_motion;

struct sn_blueprint;

typedef struct sn_actor sn_actor;

/* What a sensor never has: render attributes, shape, ODE objects and controls (sn_actor.ph).
** Every other actor has its own, in the actor's allocation after the record; every sensor
** points at one shared read-only part (sn_actor_no_phys: zeros, reflectivity -1), so a read
** for any actor gives what it gave when the fields were the sensor's own, and a write for a
** sensor faults instead of changing every sensor's. 5 000 sensors spent 0.9 MiB on them. */
typedef struct sn_actor_phys {
    double checker_size; /* metres per checker cell */
    double reflectivity; /* 0..1, what ray hits report (attribute reflectivity); < 0: the tag's */
    sn_bbox bbox;      /* location: box centre from the origin, actor frame (vehicles (0,0,extent.z)) */
    sn_vec3 com;       /* the ODE body (centre of mass) from the origin, actor frame */
    double mass;

    dBodyID body;       /* vehicles and walkers */
    dGeomID geom;       /* a vehicle's chassis box (above the clearance) */
    dGeomID crash;      /* vehicles: the box other vehicles meet, wheel contact height to roof */

    /* A ground plane's equation, or the controls of an actor that moves: never both. */
    union {
        struct {
            sn_vec3 plane_normal; /* ground planes: n . x = plane_offset */
            double plane_offset;
        };
        struct {
            sn_vehicle_control control; /* vehicles (walkers: zero) */
            double steer_angle;         /* vehicles: current wheel angle, rad */
            uint32_t light_state;       /* vehicles: sn_vehicle_light bits (CARLA's VehicleLightState) */
        };
    };
} sn_actor_phys;

/* Every sensor's sn_actor.ph. */
extern const sn_actor_phys sn_actor_no_phys;

/* Laid out without holes (small members together): a city has one per vehicle and one per
** sensor, and 5 000 of each were the largest part of the engine's memory beyond ODE's. Ordered
** by how often a frame reads them (issue 36 item 6, tm55): the first 64 bytes hold what every
** per-actor pass tests (id, kind, parent, drive, the flags) and the pointers the controllers
** follow (ph, mv, role_name), the state follows (its pose and rotation in the next 64), what
** describes the actor last: with the flags at the end, a pass over hundreds of actors read one
** more cold line of each for one bool. */
struct sn_actor {
    uint32_t id;
    sn_actor_kind kind;
    uint32_t parent;    /* 0 = free */
    sn_shape shape;
    uint32_t n_values;  /* the blueprint's attributes: `values` holds n_values (+1) */
    sn_drive drive;
    uint8_t tag;
    uint8_t color[3];
    bool checker;        /* render a checker texture (attribute texture: checker) */
    bool values_shared;  /* `values` is a block of w->vshare (vshare.h), not the actor's own */
    bool name_kept;      /* `name` is the caller's and outlives the actor (a scene entry's), not a copy */
    bool rel_q_ok;
    bool has_autopilot;
    bool fallen;        /* a walker struck hard: a passive body from then on */
    bool crushing;      /* a vehicle whose crash box touches another vehicle's this substep */
    bool down;          /* a fallen walker apart from every vehicle: vehicles pass over it */
    bool held;          /* a walking walker standing on the map's surface this substep (walker_hold.c) */
    bool ground;        /* a stand-in for the map's surfaces (roads.c): contacts are support, never a collision */
    bool rides;         /* a static whose geom rides on a body (counted in sn_world.n_riders) */
    bool hero;          /* a vehicle whose role_name is "hero" (set where role_name is, at spawn): the
                        ** per-frame passes test it here, not by strcmp on a string of its own */

    /* Shape, body and controls: the actor's own after the record, or for a sensor the shared
    ** read-only sn_actor_no_phys (sn_world_add). Never NULL. */
    sn_actor_phys *ph;
    /* Vehicles and walkers: their model, controllers and kinematic motion, in the actor's own
    ** allocation after ph; NULL for every other kind (sn_world_add). */
    struct sn_actor_motion *mv;
    char *role_name;     /* owned (sn_actor_strdup) */

    sn_actor_state st;

    const char *type_id; /* blueprint id, owned by the blueprint library */
    char *name;          /* owned (sn_actor_strdup) unless name_kept, "" if unnamed */
    void *sensor; /* engine's sensor instance when kind == SN_ACTOR_SENSOR */

    /* What it was spawned from, kept for life so any part can describe it. */
    const struct sn_blueprint *bp;
    sn_value *values; /* resolved attributes in the blueprint's order; owned (one block), or shared
                      ** read-only with actors of equal values (values_shared) */

    sn_transform rel;   /* relative to the parent when attached, else the world pose of a static;
                        ** written through sn_actor_set_rel only */
    sn_quat rel_q;      /* rel.rotation converted, when rel_q_ok (actor.c) */
};

_Static_assert(offsetof(struct sn_actor, st) == 64, "sn_actor: the per-frame flags and pointers in 64 bytes, the state next");

/* One contact of one substep, kept so joint feedback can be read after the step. */
typedef struct sn_contact_rec {
    sn_actor *a, *b; /* a is geom 1's actor (body 1 side) */
    dJointFeedback fb;
    sn_vec3 pos, normal; /* normal as ODE gives it: pushes a away from b */
    bool a_dynamic, b_dynamic;
    bool flipped; /* a has no body: ODE put b's body first, so fb.f1 acts on b */
} sn_contact_rec;

/* The accumulated collision of ordered pair (self, other) over one frame. */
typedef struct sn_pair {
    uint32_t self, other;
    sn_vec3 impulse;
    double strongest;
    sn_vec3 pos, normal;
} sn_pair;

typedef struct sn_world {
    dWorldID world;
    dSpaceID space;        /* top: dynamic geoms, planes and statics; pairs from dbp (dbp.h) */
    /* Static box/sphere/cylinder geoms, nested in space as one geom: the top broadphase meets
    ** it as one, and the near callback asks sbp for the statics a geom may touch. */
    dSpaceID static_space;
    dJointGroupID contact_group;
    dGeomID ray;           /* a scratch ray for queries */

    sn_actor **actors;
    size_t n_actors, cap_actors;
    sn_strmap names; /* actor name -> actor, for named actors */
    sn_actor **bodies; /* actors with an ODE body (vehicles, walkers), in id order: the drivers' loops */
    size_t n_bodies, cap_bodies;
    sn_actor **planes; /* ground planes, for the wheels' analytic ray test */
    size_t n_planes, cap_planes;
    uint32_t next_id;

    /* per substep */
    sn_contact_rec **blocks; /* fixed blocks so feedback addresses never move */
    size_t n_blocks, n_contacts;
    /* per frame */
    sn_pair *pairs;
    size_t n_pairs, cap_pairs;
    uint32_t *pair_hash;     /* open addressing: index+1 into pairs, 0 = empty */
    size_t hash_cap;

    double substep_dt;
    bool any_crushing;      /* some vehicle's crushing mark is set this substep */
    size_t n_kinematic;     /* kinematic bodies this frame (counted by the kinematic driver's begin) */
    size_t n_kin_skipped;   /* of those, the coarse ones out of ODE's frame (driver_kinematic.c's mark_skips) */
    bool kin_idle;          /* every kinematic body skipped and nothing dynamic: their ODE flags left as they were */
    /* Statics whose geoms ride on a body. With none, every body's geoms are its actor's own
    ** (geom, and crash for vehicles), and the broadphase need not walk ODE's lists (dbp.c). */
    size_t n_riders;
    sn_vec3 gravity;        /* m/s^2: the one value ODE, the vehicle model and the host use */
    unsigned long ode_seed; /* ODE's random generator is global: each world keeps its own state */
    dThreadingImplementationID ode_threading; /* its own: ODE's default one is shared (ode_share.c) */
    bool contacts_lost;     /* a contact or collision pair could not be stored this frame */
    bool poisoned;          /* ODE failed mid-step: its spaces may be locked, so teardown leaks them */
    uint64_t motion_gen;    /* bumped when bodies move or go (advance, teleport, remove): ogrid */
    sn_ogrid ogrid;         /* bodies' bounding spheres for the spawn-overlap check */
    sn_sbp sbp;             /* static geoms' boxes for every query against static_space (sbp.h) */
    sn_dbp dbp;             /* the top space's pairs each substep (dbp.h) */
    sn_vshare vshare;       /* actors' attribute blocks shared by content (vshare.h) */
    sn_blobs blobs;         /* vehicle models' parameters shared by content (vshare.h) */
    /* The map's surfaces (map/road_mesh.h), world frame, owned; NULL without a map. Not
    ** actors: physics meets them as ODE trimeshes in static_space (one per chunk, marks
    ** excepted), whose geom data are stand-ins (road_as, one per category, id 0, kind static)
    ** that carry the tag; rays and the renderer read the chunks. Set once (roads.c). */
    struct sn_road_mesh *roads;
    sn_actor *road_as;
    dTriMeshDataID *road_data;
    dGeomID *road_geoms;
    size_t n_road_geoms;
    /* road_data's trimesh data belong to the map cache (frame/map_cache.h), which built them
    ** once on its own copy of the same mesh, and `roads` is then that copy (read-only, every
    ** engine of the process reads the same bytes): this world destroys its geoms, not them,
    ** and does not free roads. */
    bool road_data_shared;
    struct sn_geom_pool *geom_pool; /* the engine's, lent: the road geoms kept for the next world (geom_pool.h); NULL: none */
    /* Bumped by every change of geometry or pose (spawn, remove, teleport, advance), and
    ** static_gen by changes of static actors: the ray index rebuilds only when they move. */
    uint64_t gen, static_gen;
    /* Draw and trace vehicles and walkers as their boxes, not their models (render/shapes.h):
    ** for benchmarks against the boxes. Bump gen when it changes. */
    bool box_shapes;
} sn_world;

/* ODE category bits. A vehicle's chassis (SN_CAT_CHASSIS) meets everything but vehicles; its
** crash box (SN_CAT_CRASH) meets only other vehicles' crash boxes (contacts.c filters too). */
#define SN_CAT_CRASH 2u
#define SN_CAT_CHASSIS 4u
#define SN_GRAVITY 9.81 /* m/s^2, CARLA's (UE's default of 980 cm/s^2) */

sn_status sn_world_init(sn_world *w, uint64_t seed, sn_error *err);
void sn_world_free(sn_world *w);

/* The map's surfaces into the world (roads.c): takes `roads` (freed with the world, and on
** failure); the static geometry it adds is there for physics, rays and the renderer. */
struct sn_road_mesh;
sn_status sn_world_set_roads(sn_world *w, struct sn_road_mesh *roads, sn_error *err);
/* The same with the trimesh data of every chunk but paint, in chunk order, built already by
** sn_world_road_data_build on `own`, a mesh equal to `roads` (shared, read-only: ODE shares
** trimesh data between geoms). With data, `roads` is freed at once and the world reads `own`
** instead (w->roads == own), so engines sharing a map read one copy of its mesh; the caller
** keeps own and data alive as long as this world has them. data NULL: sn_world_set_roads. */
sn_status sn_world_set_roads_shared(sn_world *w, struct sn_road_mesh *roads, const struct sn_road_mesh *own,
                                    const dTriMeshDataID *data, sn_error *err);
/* The trimesh data of every chunk of m but paint (they point into m's arrays: m outlives them);
** *n of them. NULL when out of memory. Freed with sn_world_road_data_free. */
dTriMeshDataID *sn_world_road_data_build(const struct sn_road_mesh *m, size_t *n);
void sn_world_road_data_free(dTriMeshDataID *d, size_t n);
/* Releases them (sn_world_free calls it). */
void sn_world_free_roads(sn_world *w);
/* Gives a vehicle its wheels' triangle cache when the world has roads (else nothing to cache);
** false when out of memory. */
bool sn_wheel_cache_alloc(sn_world *w, sn_actor *a);

/* Registry. */
/* A new zeroed actor with id `id` (0 = the next one). NULL when out of memory or when `id`
** is not above every id used so far (ids are never reused). */
sn_actor *sn_world_add(sn_world *w, sn_actor_kind kind, uint32_t id);
/* An actor's copy of a name or role name, freed with sn_actor_strfree: "" (or NULL) is one
** shared empty string, not an allocation. NULL when out of memory. */
char *sn_actor_strdup(const char *s);
void sn_actor_strfree(char *s);
/* Sets an actor's relative transform (sn_actor.rel) and forgets its converted rotation. */
void sn_actor_set_rel(sn_actor *a, const sn_transform *rel);
/* A vehicle's or walker's autopilot state, allocated zeroed at the first call; NULL when out of
** memory. */
sn_autopilot *sn_actor_autopilot(sn_actor *a);
/* Gives a registered actor its name and indexes it; false when out of memory. Copied, or not
** when `kept`: the caller's name outlives the actor (a scene entry's name lives in the scene's
** pool until the scene, after its world, is freed). */
bool sn_world_set_name_kept(sn_world *w, sn_actor *a, const char *name, bool kept);
void sn_world_remove(sn_world *w, uint32_t id);             /* frees the actor and its ODE objects */
sn_actor *sn_world_find(const sn_world *w, uint32_t id);
sn_actor *sn_world_find_name(const sn_world *w, const char *name);
/* Makes geoms/bodies for an actor whose shape, bbox and mass are set, and sets its state to
** the pose world_tf at rest (previous pose = this one). */
sn_status sn_world_materialize(sn_world *w, sn_actor *a, const sn_transform *world_tf, sn_error *err);
/* What a vehicle's or walker's box would overlap if spawned at tf (world pose of its origin):
** the actor overlapped deepest (more than 1 cm), by how much (m), and the lowest origin
** height that clears every overlap (NAN if none within 10 km). */
typedef struct sn_spawn_overlap {
    sn_actor *other;
    double depth, clear_z;
} sn_spawn_overlap;
bool sn_world_spawn_overlap(sn_world *w, const sn_actor *a, const sn_transform *tf, sn_spawn_overlap *out);
/* The same check the other way round, for a static actor just materialized: the vehicle or
** walker whose box it overlaps deepest (more than 1 cm), so the order of a scene's entries
** does not decide whether an overlap is refused (clear_z NAN: lifting a prop means nothing). */
bool sn_world_static_overlap(sn_world *w, const sn_actor *s, sn_spawn_overlap *out);
/* Teleports an actor that is not attached: pose now and as the previous pose, velocities kept. */
void sn_world_teleport(sn_world *w, sn_actor *a, sn_vec3 pos, sn_quat rot);
/* Sets linear (m/s) and angular (rad/s) velocity, world frame. */
void sn_world_set_velocity(sn_world *w, sn_actor *a, sn_vec3 v, sn_vec3 ang);
/* Switches between physics and kinematic driving (CARLA's set_simulate_physics); false (nothing
** changed) when out of memory. */
bool sn_world_set_drive(sn_world *w, sn_actor *a, sn_drive d);
/* Re-derives the state of attached actors from their parents (after any pose change). */
void sn_world_update_attached(sn_world *w);
/* The same for one actor whose parent is up to date (a new one). */
void sn_actor_update_attached(const sn_world *w, sn_actor *a);

/* Queries. */
sn_transform sn_actor_world_transform(const sn_world *w, const sn_actor *a);
sn_vec3 sn_actor_velocity(const sn_actor *a);
/* Pose at fraction alpha in [0, 1] of the last frame: previous pose at 0, current at 1
** (position linear, rotation spherical-linear; attached actors ride on their parent's). */
void sn_actor_pose_at(const sn_world *w, const sn_actor *a, double alpha, sn_vec3 *pos, sn_quat *rot);
void sn_actor_fill_info(const sn_world *w, const sn_actor *a, sn_actor_info *out);
bool sn_world_ray_cast(sn_world *w, sn_vec3 origin, sn_vec3 dir, double max_dist, uint32_t ignore_id,
                       sn_ray_hit *hit);
bool sn_actor_is_descendant(const sn_world *w, uint32_t id, uint32_t ancestor);

/* One frame of `dt` in `n_sub` substeps through the drivers (driver.h); fills w->pairs with
** this frame's collisions and every actor's state. SN_E_PHYSICS when ODE reported an error,
** SN_E_NOMEM when contacts could not be stored. */
sn_status sn_world_advance(sn_world *w, double dt, int n_sub, sn_error *err);
/* What a vehicle's parameters are derived from: its blueprint's box and attributes. */
typedef struct sn_vehicle_shape {
    sn_vec3 extent;       /* the box's half sizes, m */
    double mass;          /* kg */
    double cg;            /* center_of_mass_height, m above the bottom face */
    double max_power;     /* W */
    double max_steer_deg; /* max_steer_angle, degrees */
    int wheels;           /* number_of_wheels: 2 or 4 */
} sn_vehicle_shape;
/* Fills *p (zeroed by the caller: it is interned byte by byte) with the suspension, tyres,
** brakes and stabilisers a vehicle of that shape gets under gravity_z (m/s^2, negative). NULL,
** or the attribute that is out of range: "center_of_mass_height" when the centre of mass is
** not below the box's top, "number_of_wheels" when it is neither 2 nor 4. */
const char *sn_vehicle_params_make(sn_vehicle_params *p, const sn_vehicle_shape *vs, double gravity_z);
/* Forces of one vehicle / walker for one substep. */
void sn_vehicle_apply(sn_world *w, sn_actor *a, double h);
void sn_walker_apply(sn_world *w, sn_actor *a, double h);
/* Before a substep's collisions: whether walking walker a stands on the map's surface
** (a->held: no gravity, no contacts with the map's surfaces and planes) and if so puts it
** there (walker_hold.c). */
void sn_walker_hold(sn_world *w, sn_actor *a);
/* The wheel angle (rad) that steer 1 gives at this forward speed (CARLA's steering curve). */
double sn_vehicle_steer_limit(const sn_actor *a, double forward_speed);
/* Moves a vehicle's centre of mass (its origin's frame) keeping its pose and velocities. */
void sn_world_set_com(sn_world *w, sn_actor *a, sn_vec3 com);
/* The deceleration (m/s^2, positive) that full brake gives a vehicle on flat ground, as far as
** its brakes allow: 0.9 mu g, and for a two-wheeler (brakes capped so it cannot pitch over,
** docs/world.md) 0.65 of brake_mu g (a bicycle 2.8, a sport motorcycle 5.2). A planner that
** brakes harder than this overshoots its stop line. */
double sn_vehicle_brake_decel(const sn_actor *a, double gravity);
/* Controllers, once per frame before physics. */
void sn_autopilot_update(sn_world *w, sn_actor *a, double dt);

/* A walker struck by vehicles with more than this impulse (N*s: an 80 kg pedestrian knocked
** to about 2 m/s, a car at walking pace) falls: it stops walking and becomes a passive body.
** The impulse is summed over the consecutive frames a moving vehicle pushes it, so a car that
** pushes it slowly knocks it down too (driver_physics.c). */
#define SN_WALKER_FALL_IMPULSE 150.0
/* A fallen walker meets vehicles for at most this long (s), then lies below their floors: a
** real impact, bumper to the head's strike, is over in 0.1-0.2 s, and a rigid box held by a
** car's flat front would otherwise ride it for as long as the car drives on. */
#define SN_WALKER_KNOCKDOWN_TIME 0.2

/* Semantic tags. */
bool sn_tag_parse(const char *text, uint8_t *out);

#endif
