/* shapes.h — vehicles and walkers as procedural meshes inside their bounding boxes.
**
** Physics keeps the boxes; cameras and ray queries (lidar, radar, depth, sweeps) see these
** meshes instead (docs/shapes.md). A model is a fixed list of closed convex parts — body,
** glass cabin, roof, wheels with rims, lamps for vehicles; torso, head, arms and legs for
** walkers — laid out from the actor's half extents, so every vertex stays inside the box. Its
** articulation comes from the world's state: the front wheels turn by the vehicle's wheel
** angle (sn_actor.steer_angle), every wheel rolls by the distance travelled (st.travel) over
** its radius, a walker's legs and arms swing with the distance walked, wider the faster it
** goes. Every part carries the actor's semantic tag and instance id, as CARLA tags vehicles
** (Car, Truck, Bus: every part) and walkers (Pedestrian).
**
** Coordinates: metres from the centre of the actor's box, actor axes (x forward, y right, z up).
*/
#ifndef SN_SHAPES_H
#define SN_SHAPES_H

#include "mesh.h"

typedef enum sn_model {
    SN_MODEL_NONE, /* drawn as its shape (props, buildings, the ground) */
    SN_MODEL_SEDAN,
    SN_MODEL_VAN,
    SN_MODEL_TRUCK,
    SN_MODEL_BUS,
    SN_MODEL_WALKER,
    SN_MODEL_BIKE,      /* a bicycle and its cyclist */
    SN_MODEL_MOTORBIKE, /* a motorcycle and its rider */
    SN_MODEL_COMPACT,   /* a hatchback: short tail, steep rear glass */
    SN_MODEL_SUV,       /* tall body, high floor, upright cabin */
    SN_MODEL_POLICE,    /* a sedan with a red and blue light bar on its roof */
    SN_MODEL_TAXI,      /* a sedan with a roof sign */
    SN_MODEL_COUNT
} sn_model;

/* What a part is made of: its colour in camera images (sn_material_rgb). */
typedef enum sn_material {
    SN_MAT_BODY,     /* the actor's `color` */
    SN_MAT_GLASS,
    SN_MAT_TYRE,
    SN_MAT_RIM,
    SN_MAT_TRIM,     /* bumpers, chassis */
    SN_MAT_HEADLAMP,
    SN_MAT_TAILLAMP,
    SN_MAT_CARGO,    /* a truck's load box */
    SN_MAT_SKIN,
    SN_MAT_TROUSERS,
    SN_MAT_RIDER,      /* a rider's jacket and arms: tagged Rider, as CARLA tags riders */
    SN_MAT_RIDER_SKIN, /* a cyclist's head */
    SN_MAT_RIDER_LEGS,
    SN_MAT_HELMET,     /* a motorcyclist's head */
    SN_MAT_BAR_RED,    /* a police light bar's halves */
    SN_MAT_BAR_BLUE,
    SN_MAT_TAXI_SIGN,
    SN_MAT_HAIR,       /* a walker's hair */
    SN_MAT_SHOES,
    SN_MAT_COUNT
} sn_material;

/* The semantic tag of a part of material mat on an actor tagged actor_tag: Rider for the rider
** materials (CARLA 0.9.14+ tags the person on a bicycle or motorcycle Rider and the machine
** Bicycle or Motorcycle), the actor's tag for every other part. */
uint8_t sn_material_tag(sn_material mat, uint8_t actor_tag);

/* An actor's articulation at one instant. */
typedef struct sn_model_state {
    sn_vec3 ext;      /* half extents of the box */
    double steer;     /* front wheel angle, rad, + towards +y (right) */
    double max_steer; /* the largest |steer| the vehicle reaches (its max_steer_angle), rad */
    double travel;    /* distance rolled forward (vehicles) or walked (walkers), m */
    double speed;     /* m/s: a walker's stride widens with it */
    uint32_t look;    /* a walker's build, from its blueprint id (sn_model_look): same id, same figure */
} sn_model_state;

/* The model an actor is drawn with: vehicles by blueprint (vehicle.sedan, .van, .truck, .bus,
** CARLA's ids by kind: compact, sedan, SUV, van, truck, bus, police car, taxi, bicycles and
** motorcycles, docs/shapes.md; any other vehicle.* as a sedan), walker.* as a walker; NONE
** for everything else (actors made without a blueprint included) and for every actor while
** w->box_shapes is set. */
sn_model sn_model_of(const sn_world *w, const sn_actor *a);
/* The model's triangles and parts; v is NULL (vertices are per actor, sn_model_pose). Cached
** once; thread-safe. NULL for SN_MODEL_NONE. */
const sn_mesh *sn_model_mesh(sn_model m);
/* Actor a's articulation at fraction alpha of the last frame (1 = now). */
void sn_model_state_of(const sn_actor *a, double alpha, sn_model_state *s);
/* The model posed: v[0 .. sn_model_mesh(m)->n_v), caller's buffer. */
void sn_model_pose(sn_model m, const sn_model_state *s, float (*v)[3]);
/* The colour of material mat on an actor whose colour is actor_rgb. */
void sn_material_rgb(sn_material mat, const uint8_t actor_rgb[3], uint8_t out[3]);
/* A blueprint id's look: a hash of the id (FNV-1a), 0 for NULL. A walker's height within its
** box, build, skin tone, hair and trousers follow it: the same id always looks the same. */
uint32_t sn_model_look(const char *type_id);
/* The colour of material mat on actor a: sn_material_rgb, except a walker's skin, hair,
** trousers and shoes, which follow its look (docs/shapes.md, "Walkers"). */
void sn_actor_material_rgb(const sn_actor *a, sn_material mat, uint8_t out[3]);
/* For tests: the part of wheel k (0 front left, 1 front right, 2 rear left, 3 rear right; left
** is -y; two-wheelers: 0 front, 1 rear, as CARLA's VehicleWheelLocation) of a vehicle model,
** -1 for others. Its first two vertices are the centres of its inner and outer faces (the axle). */
int sn_model_wheel_part(sn_model m, int k);

/* Wheel radius of a vehicle model for half extents ext (m): travel / radius is its spin. */
double sn_vehicle_wheel_radius(sn_model m, sn_vec3 ext);

#endif
