/* builtin.c — the built-in actor blueprints: ground, props, buildings, vehicles, walkers. */
#include "library.h"

#include "../core/util.h"

#include <string.h>

#define NONE_REC NULL
static const char *const rec_colors[] = {"200,30,30", "30,30,200", "230,230,230", "40,40,40", NULL};

#define ATTR_ROLE {"role_name", SN_ATTR_STRING, "", NULL, NULL, false, 0, 0, NULL, "CARLA role name, e.g. hero"}
#define ATTR_COLOR(d) {"color", SN_ATTR_RGB, d, rec_colors, NULL, false, 0, 0, NULL, "base colour 'r,g,b'"}
static const char *const textures[] = {"none", "checker", NULL};
#define ATTR_TEXTURE(d) {"texture", SN_ATTR_ENUM, d, NULL, textures, false, 0, 0, NULL, \
                         "surface pattern in camera images: none or checker (cells of checker_size)"}, \
    {"checker_size", SN_ATTR_FLOAT, "1.0", NULL, NULL, true, 0.01, 1000, "m", "edge of a checker cell"}
#define ATTR_TAG(d) {"semantic_tag", SN_ATTR_STRING, d, NULL, NULL, false, 0, 0, NULL, \
                     "semantic tag: one of CARLA's semantic tags (docs/semantic-tags.md; case-insensitive) or its number 0-28"}
/* Negative: the semantic tag's (sn_tag_reflectivity); spawn writes the value it resolved to. */
#define ATTR_REFL {"reflectivity", SN_ATTR_FLOAT, "-1", NULL, NULL, true, -1, 1, NULL, \
                   "diffuse reflectivity 0..1 that ray hits report (lidar intensity); -1: the semantic tag's"}
#define ATTR_EXTENT(d, what) {"extent", SN_ATTR_STRING, d, NULL, NULL, false, 0, 0, "m", \
                              "half extents 'x,y,z' of the " what}

static const sn_attr_def ground_attrs[] = {
    ATTR_ROLE, ATTR_COLOR("110,110,110"), ATTR_TAG("Roads"), ATTR_TEXTURE("checker"),
    ATTR_REFL,
};
static const sn_attr_def box_attrs[] = {
    ATTR_ROLE, ATTR_COLOR("180,180,180"), ATTR_TAG("Static"), ATTR_TEXTURE("none"), ATTR_EXTENT("0.5,0.5,0.5", "box"),
    ATTR_REFL,
};
static const sn_attr_def building_attrs[] = {
    ATTR_ROLE, ATTR_COLOR("150,140,130"), ATTR_TAG("Building"), ATTR_TEXTURE("none"), ATTR_EXTENT("10,10,10", "building"),
    ATTR_REFL,
};
static const sn_attr_def sphere_attrs[] = {
    ATTR_ROLE, ATTR_COLOR("180,180,180"), ATTR_TAG("Static"), ATTR_TEXTURE("none"),
    {"radius", SN_ATTR_FLOAT, "0.5", NULL, NULL, true, 0.01, 1000, "m", "sphere radius"},
    ATTR_REFL,
};
static const sn_attr_def cylinder_attrs[] = {
    ATTR_ROLE, ATTR_COLOR("180,180,180"), ATTR_TAG("Pole"), ATTR_TEXTURE("none"),
    {"radius", SN_ATTR_FLOAT, "0.2", NULL, NULL, true, 0.01, 1000, "m", "cylinder radius"},
    {"height", SN_ATTR_FLOAT, "3.0", NULL, NULL, true, 0.01, 1000, "m", "cylinder height (along z)"},
    ATTR_REFL,
};
/* CARLA's vehicle attributes, so CARLA scripts' filters (number_of_wheels, base_type, generation) see sensim's own ids */
#define ATTR_CARLA(base) \
    {"base_type", SN_ATTR_STRING, base, NULL, NULL, false, 0, 0, NULL, "CARLA's base_type"}, \
    {"special_type", SN_ATTR_STRING, "", NULL, NULL, false, 0, 0, NULL, "CARLA's special_type"}, \
    {"generation", SN_ATTR_INT, "2", NULL, NULL, true, 1, 2, NULL, "CARLA's generation"}, \
    {"number_of_wheels", SN_ATTR_INT, "4", NULL, NULL, true, 2, 4, NULL, "CARLA's number_of_wheels"}, \
    {"has_lights", SN_ATTR_BOOL, "true", NULL, NULL, false, 0, 0, NULL, "CARLA's has_lights"}
static const char *const rec_mass_sedan[] = {"1200", "1500", "1800", NULL};
static const sn_attr_def sedan_attrs[] = {
    ATTR_ROLE, ATTR_COLOR("200,200,200"), ATTR_TAG("Car"), ATTR_TEXTURE("none"), ATTR_EXTENT("2.3,0.95,0.75", "body"),
    {"mass", SN_ATTR_FLOAT, "1500", rec_mass_sedan, NULL, true, 50, 100000, "kg", "vehicle mass"},
    {"max_power", SN_ATTR_FLOAT, "120000", NULL, NULL, true, 1000, 2000000, "W", "engine power"},
    {"max_steer_angle", SN_ATTR_FLOAT, "70", NULL, NULL, true, 1, 80, "deg",
     "front wheel angle at steer 1 and standstill (CARLA's default; less at speed by CARLA's steering curve)"},
    {"center_of_mass_height", SN_ATTR_FLOAT, "0.55", NULL, NULL, true, 0.01, 100, "m",
     "centre of mass above the origin (the bottom of the box), below the box's top"},
    ATTR_REFL,
    ATTR_CARLA("car"),
};
static const sn_attr_def truck_attrs[] = {
    ATTR_ROLE, ATTR_COLOR("60,90,150"), ATTR_TAG("Truck"), ATTR_TEXTURE("none"), ATTR_EXTENT("4.0,1.25,1.6", "body"),
    {"mass", SN_ATTR_FLOAT, "8000", NULL, NULL, true, 50, 100000, "kg", "vehicle mass"},
    {"max_power", SN_ATTR_FLOAT, "300000", NULL, NULL, true, 1000, 2000000, "W", "engine power"},
    {"max_steer_angle", SN_ATTR_FLOAT, "45", NULL, NULL, true, 1, 80, "deg",
     "front wheel angle at steer 1 and standstill (a truck's lock; less at speed by CARLA's steering curve)"},
    {"center_of_mass_height", SN_ATTR_FLOAT, "1.6", NULL, NULL, true, 0.01, 100, "m",
     "centre of mass above the origin (the bottom of the box), below the box's top"},
    ATTR_REFL,
    ATTR_CARLA("truck"),
};
static const sn_attr_def van_attrs[] = {
    ATTR_ROLE, ATTR_COLOR("230,230,230"), ATTR_TAG("Car"), ATTR_TEXTURE("none"), ATTR_EXTENT("2.6,1.0,1.05", "body"),
    {"mass", SN_ATTR_FLOAT, "2500", NULL, NULL, true, 50, 100000, "kg", "vehicle mass"},
    {"max_power", SN_ATTR_FLOAT, "110000", NULL, NULL, true, 1000, 2000000, "W", "engine power"},
    {"max_steer_angle", SN_ATTR_FLOAT, "60", NULL, NULL, true, 1, 80, "deg",
     "front wheel angle at steer 1 and standstill (less at speed by CARLA's steering curve)"},
    {"center_of_mass_height", SN_ATTR_FLOAT, "0.8", NULL, NULL, true, 0.01, 100, "m",
     "centre of mass above the origin (the bottom of the box), below the box's top"},
    ATTR_CARLA("van"),
};
static const sn_attr_def bus_attrs[] = {
    ATTR_ROLE, ATTR_COLOR("220,170,30"), ATTR_TAG("Bus"), ATTR_TEXTURE("none"), ATTR_EXTENT("6.0,1.27,1.6", "body"),
    {"mass", SN_ATTR_FLOAT, "12000", NULL, NULL, true, 50, 100000, "kg", "vehicle mass"},
    {"max_power", SN_ATTR_FLOAT, "250000", NULL, NULL, true, 1000, 2000000, "W", "engine power"},
    {"max_steer_angle", SN_ATTR_FLOAT, "45", NULL, NULL, true, 1, 80, "deg",
     "front wheel angle at steer 1 and standstill (less at speed by CARLA's steering curve)"},
    {"center_of_mass_height", SN_ATTR_FLOAT, "1.2", NULL, NULL, true, 0.01, 100, "m",
     "centre of mass above the origin (the bottom of the box), below the box's top"},
    ATTR_CARLA("bus"),
};
static const sn_attr_def walker_attrs[] = {
    ATTR_ROLE, ATTR_COLOR("220,20,60"), ATTR_TAG("Pedestrian"), ATTR_TEXTURE("none"), ATTR_EXTENT("0.25,0.25,0.9", "body"),
    {"mass", SN_ATTR_FLOAT, "80", NULL, NULL, true, 10, 500, "kg", "walker mass"},
    {"speed", SN_ATTR_FLOAT, "1.4", NULL, NULL, true, 0, 10, "m/s", "default walking speed for control.direction and routes"},
    ATTR_REFL,
};

/* CARLA's carla.TrafficLightState names, in its order (Red = 0 ... Unknown = 4). */
static const char *const tl_states[] = {"Red", "Yellow", "Green", "Off", "Unknown", NULL};
static const sn_attr_def traffic_light_attrs[] = {
    ATTR_ROLE, ATTR_TAG("TrafficLight"), ATTR_TEXTURE("none"), ATTR_EXTENT("0.15,0.25,0.5", "head (its colour is the state)"),
    {"state", SN_ATTR_ENUM, "Red", NULL, tl_states, false, 0, 0, NULL,
     "the state now (CARLA's TrafficLightState); the light's group changes it as it cycles"},
    {"green_time", SN_ATTR_FLOAT, "10", NULL, NULL, true, 0.001, 1e6, "s", "green stage (CARLA's default 10 s)"},
    {"yellow_time", SN_ATTR_FLOAT, "3", NULL, NULL, true, 0.001, 1e6, "s", "yellow stage (CARLA's default 3 s)"},
    {"red_time", SN_ATTR_FLOAT, "2", NULL, NULL, true, 0.001, 1e6, "s",
     "all-red stage after yellow before the group's next light turns green (CARLA's default 2 s)"},
    {"opendrive_id", SN_ATTR_STRING, "", NULL, NULL, false, 0, 0, NULL, "the map signal's id (\"\" when not from a map)"},
    ATTR_REFL,
};

#define BP(id_, kind_, shape_, attrs_, doc_) \
    {id_, kind_, doc_, attrs_, (uint32_t)SN_COUNT(attrs_), sizeof(sn_attr_def), shape_, NULL, NULL, NULL}

static const sn_blueprint builtins[] = {
    BP("static.ground", SN_ACTOR_STATIC, SN_SHAPE_PLANE, ground_attrs,
       "infinite ground plane through the transform's location, normal along its z axis"),
    BP("static.prop.box", SN_ACTOR_STATIC, SN_SHAPE_BOX, box_attrs, "a fixed box"),
    BP("static.prop.sphere", SN_ACTOR_STATIC, SN_SHAPE_SPHERE, sphere_attrs, "a fixed sphere"),
    BP("static.prop.cylinder", SN_ACTOR_STATIC, SN_SHAPE_CYLINDER, cylinder_attrs,
       "a fixed upright cylinder (poles, posts)"),
    BP("static.building", SN_ACTOR_STATIC, SN_SHAPE_BOX, building_attrs, "a fixed building block"),
    BP("vehicle.sedan", SN_ACTOR_VEHICLE, SN_SHAPE_BOX, sedan_attrs,
       "a passenger car on four ray-cast wheels, rear-wheel drive"),
    BP("vehicle.truck", SN_ACTOR_VEHICLE, SN_SHAPE_BOX, truck_attrs,
       "a box truck on four ray-cast wheels, rear-wheel drive"),
    BP("vehicle.van", SN_ACTOR_VEHICLE, SN_SHAPE_BOX, van_attrs,
       "a delivery van on four ray-cast wheels, rear-wheel drive"),
    BP("vehicle.bus", SN_ACTOR_VEHICLE, SN_SHAPE_BOX, bus_attrs,
       "a 12 m city bus on four ray-cast wheels, rear-wheel drive"),
    BP("traffic.traffic_light", SN_ACTOR_STATIC, SN_SHAPE_BOX, traffic_light_attrs,
       "a traffic light's head, coloured by its state; the map spawns one per signal, with a pole"),
    BP("walker.pedestrian", SN_ACTOR_WALKER, SN_SHAPE_BOX, walker_attrs,
       "a pedestrian that walks at a set speed and stays upright until struck hard"),
};

const sn_blueprint *sn_builtin_blueprints(size_t *n)
{
    *n = SN_COUNT(builtins);
    return builtins;
}
