/* carla_vehicles.c — CARLA 0.9.15's vehicle and walker blueprint ids (docs/python.md, "Blueprints").
** Extents are CARLA's bounding-box half extents; base_type, special_type, generation,
** number_of_wheels and has_lights its blueprint attributes. The physics (mass, power, steering) is
** sensim's model by base type; the look is the shaped model of the base type at the id's size. */
#include "library.h"

#include "../core/util.h"

#include <string.h>

static const char *const rec_colors[] = {"17,37,103", "75,75,75", "255,255,255", "140,0,0", "0,0,0", "200,200,200", NULL};
static const char *const textures[] = {"none", "checker", NULL};
static const char *const rec_speed[] = {"1.4", "2.8", NULL}; /* CARLA's walking, running */
static const char *const rec_speed_kid[] = {"0.9", "1.8", NULL};
/* liveries: the colours traffic gives them (docs/traffic.md, "Which blueprints") */
static const char *const rec_police[] = {"20,20,25", "240,240,240", NULL};
static const char *const rec_taxi[] = {"240,190,20", NULL};
static const char *const rec_ambulance[] = {"240,240,240", NULL};
static const char *const rec_fire[] = {"180,20,20", NULL};
#define ATTR_COMMON(color, tag, ext) ATTR_COMMON_R(color, rec_colors, tag, ext)
#define ATTR_COMMON_R(color, rec, tag, ext) \
    {"role_name", SN_ATTR_STRING, "", NULL, NULL, false, 0, 0, NULL, "CARLA role name, e.g. hero"}, \
    {"color", SN_ATTR_RGB, color, rec, NULL, false, 0, 0, NULL, "base colour 'r,g,b'"}, \
    {"semantic_tag", SN_ATTR_STRING, tag, NULL, NULL, false, 0, 0, NULL, "semantic tag: a name of CARLA's semantic segmentation table (docs/semantic-tags.md)"}, \
    {"texture", SN_ATTR_ENUM, "none", NULL, textures, false, 0, 0, NULL, "surface pattern: none or checker"}, \
    {"checker_size", SN_ATTR_FLOAT, "1.0", NULL, NULL, true, 0.01, 1000, "m", "edge of a checker cell"}, \
    {"extent", SN_ATTR_STRING, ext, NULL, NULL, false, 0, 0, "m", "half extents 'x,y,z' (CARLA's bounding box)"}, \
    {"reflectivity", SN_ATTR_FLOAT, "-1", NULL, NULL, true, -1, 1, NULL, "diffuse reflectivity 0..1; -1: the tag's"}
#define ATTR_VEHICLE(mass, power, steer, cg, base, special, gen, wheels, lights) \
    {"mass", SN_ATTR_FLOAT, mass, NULL, NULL, true, 20, 100000, "kg", "vehicle mass"}, \
    {"max_power", SN_ATTR_FLOAT, power, NULL, NULL, true, 50, 2000000, "W", "engine power"}, \
    {"max_steer_angle", SN_ATTR_FLOAT, steer, NULL, NULL, true, 1, 80, "deg", "front wheel angle at steer 1 and standstill"}, \
    {"center_of_mass_height", SN_ATTR_FLOAT, cg, NULL, NULL, true, 0.01, 100, "m", "centre of mass above the origin"}, \
    {"base_type", SN_ATTR_STRING, base, NULL, NULL, false, 0, 0, NULL, "CARLA's base_type: car, van, truck, bus, motorcycle, bicycle"}, \
    {"special_type", SN_ATTR_STRING, special, NULL, NULL, false, 0, 0, NULL, "CARLA's special_type: emergency, taxi, electric or empty"}, \
    {"generation", SN_ATTR_INT, gen, NULL, NULL, true, 1, 2, NULL, "CARLA's generation of the model (1 or 2)"}, \
    {"number_of_wheels", SN_ATTR_INT, wheels, NULL, NULL, true, 2, 4, NULL, "CARLA's number_of_wheels"}, \
    {"has_lights", SN_ATTR_BOOL, lights, NULL, NULL, false, 0, 0, NULL, "CARLA's has_lights"}, \
    {"has_dynamic_doors", SN_ATTR_BOOL, "false", NULL, NULL, false, 0, 0, NULL, "CARLA's has_dynamic_doors (no doors here)"}, \
    {"sticky_control", SN_ATTR_BOOL, "true", NULL, NULL, false, 0, 0, NULL, "CARLA's sticky_control (controls are held)"}, \
    {"terramechanics", SN_ATTR_BOOL, "false", NULL, NULL, false, 0, 0, NULL, "CARLA's terramechanics (accepted)"}, \
    {"object_type", SN_ATTR_STRING, "", NULL, NULL, false, 0, 0, NULL, "CARLA's object_type"}

static const sn_attr_def audi_a2[] = {ATTR_COMMON("200,200,200", "Car", "1.8527,0.8943,0.7745"), ATTR_VEHICLE("1500", "120000", "70", "0.55", "car", "", "1", "4", "false")};
static const sn_attr_def audi_etron[] = {ATTR_COMMON("200,200,200", "Car", "2.4279,1.0164,0.8247"), ATTR_VEHICLE("1500", "120000", "70", "0.55", "car", "electric", "1", "4", "true")};
static const sn_attr_def audi_tt[] = {ATTR_COMMON("200,200,200", "Car", "2.0906,0.9971,0.6926"), ATTR_VEHICLE("1500", "120000", "70", "0.55", "car", "", "1", "4", "true")};
static const sn_attr_def bmw_grandtourer[] = {ATTR_COMMON("200,200,200", "Car", "2.3055,1.1209,0.8336"), ATTR_VEHICLE("1500", "120000", "70", "0.55", "car", "", "1", "4", "false")};
static const sn_attr_def chevrolet_impala[] = {ATTR_COMMON("200,200,200", "Car", "2.6787,1.0166,0.7053"), ATTR_VEHICLE("1500", "120000", "70", "0.55", "car", "", "1", "4", "true")};
static const sn_attr_def citroen_c3[] = {ATTR_COMMON("200,200,200", "Car", "1.9938,0.9254,0.8086"), ATTR_VEHICLE("1500", "120000", "70", "0.55", "car", "", "1", "4", "false")};
static const sn_attr_def dodge_charger_2020[] = {ATTR_COMMON("200,200,200", "Car", "2.5039,0.9408,0.7674"), ATTR_VEHICLE("1500", "120000", "70", "0.55", "car", "", "2", "4", "true")};
static const sn_attr_def dodge_charger_police[] = {ATTR_COMMON_R("200,200,200", rec_police, "Car", "2.4871,1.0192,0.7711"), ATTR_VEHICLE("1500", "120000", "70", "0.55", "car", "emergency", "1", "4", "true")};
static const sn_attr_def dodge_charger_police_2020[] = {ATTR_COMMON_R("200,200,200", rec_police, "Car", "2.6188,0.9649,0.8192"), ATTR_VEHICLE("1500", "120000", "70", "0.55", "car", "emergency", "2", "4", "true")};
static const sn_attr_def ford_crown[] = {ATTR_COMMON_R("200,200,200", rec_taxi, "Car", "2.6828,0.9004,0.7875"), ATTR_VEHICLE("1500", "120000", "70", "0.55", "car", "taxi", "2", "4", "true")};
static const sn_attr_def ford_mustang[] = {ATTR_COMMON("200,200,200", "Car", "2.3588,0.9474,0.6505"), ATTR_VEHICLE("1500", "120000", "70", "0.55", "car", "", "1", "4", "true")};
static const sn_attr_def jeep_wrangler_rubicon[] = {ATTR_COMMON("200,200,200", "Car", "1.9331,0.9526,0.9390"), ATTR_VEHICLE("1500", "120000", "70", "0.55", "car", "", "1", "4", "true")};
static const sn_attr_def lincoln_mkz_2017[] = {ATTR_COMMON("200,200,200", "Car", "2.4508,1.0642,0.7554"), ATTR_VEHICLE("1500", "120000", "70", "0.55", "car", "", "1", "4", "true")};
static const sn_attr_def lincoln_mkz_2020[] = {ATTR_COMMON("200,200,200", "Car", "2.4462,0.9184,0.7451"), ATTR_VEHICLE("1500", "120000", "70", "0.55", "car", "", "2", "4", "true")};
static const sn_attr_def mercedes_coupe[] = {ATTR_COMMON("200,200,200", "Car", "2.5134,1.0758,0.8253"), ATTR_VEHICLE("1500", "120000", "70", "0.55", "car", "", "1", "4", "true")};
static const sn_attr_def mercedes_coupe_2020[] = {ATTR_COMMON("200,200,200", "Car", "2.3368,0.9059,0.7210"), ATTR_VEHICLE("1500", "120000", "70", "0.55", "car", "", "2", "4", "true")};
static const sn_attr_def micro_microlino[] = {ATTR_COMMON("200,200,200", "Car", "1.1036,0.7405,0.6880"), ATTR_VEHICLE("1500", "120000", "70", "0.55", "car", "electric", "2", "4", "true")};
static const sn_attr_def mini_cooper_s[] = {ATTR_COMMON("200,200,200", "Car", "1.9029,0.9851,0.7375"), ATTR_VEHICLE("1500", "120000", "70", "0.55", "car", "", "1", "4", "true")};
static const sn_attr_def mini_cooper_s_2021[] = {ATTR_COMMON("200,200,200", "Car", "2.2763,1.0485,0.8836"), ATTR_VEHICLE("1500", "120000", "70", "0.55", "car", "", "2", "4", "true")};
static const sn_attr_def nissan_micra[] = {ATTR_COMMON("200,200,200", "Car", "1.8167,0.9226,0.7506"), ATTR_VEHICLE("1500", "120000", "70", "0.55", "car", "", "1", "4", "false")};
static const sn_attr_def nissan_patrol[] = {ATTR_COMMON("200,200,200", "Car", "2.3023,0.9658,0.9274"), ATTR_VEHICLE("1500", "120000", "70", "0.55", "car", "", "1", "4", "false")};
static const sn_attr_def nissan_patrol_2021[] = {ATTR_COMMON("200,200,200", "Car", "2.7829,1.0750,1.0226"), ATTR_VEHICLE("1500", "120000", "70", "0.55", "car", "", "2", "4", "true")};
static const sn_attr_def seat_leon[] = {ATTR_COMMON("200,200,200", "Car", "2.0964,0.9081,0.7369"), ATTR_VEHICLE("1500", "120000", "70", "0.55", "car", "", "1", "4", "false")};
static const sn_attr_def tesla_model3[] = {ATTR_COMMON("200,200,200", "Car", "2.3959,1.0817,0.7438"), ATTR_VEHICLE("1500", "120000", "70", "0.55", "car", "electric", "1", "4", "true")};
static const sn_attr_def toyota_prius[] = {ATTR_COMMON("200,200,200", "Car", "2.2568,1.0034,0.7624"), ATTR_VEHICLE("1500", "120000", "70", "0.55", "car", "electric", "1", "4", "false")};
static const sn_attr_def tesla_cybertruck[] = {ATTR_COMMON("200,200,200", "Truck", "3.1368,1.1948,1.0491"), ATTR_VEHICLE("8000", "300000", "45", "1.2", "truck", "electric", "1", "4", "true")};
static const sn_attr_def carlamotors_carlacola[] = {ATTR_COMMON("200,200,200", "Truck", "2.6019,1.3135,1.2337"), ATTR_VEHICLE("8000", "300000", "45", "1.2", "truck", "", "1", "4", "false")};
static const sn_attr_def carlamotors_european_hgv[] = {ATTR_COMMON("200,200,200", "Truck", "3.9679,1.4455,1.7310"), ATTR_VEHICLE("8000", "300000", "45", "1.2", "truck", "", "2", "4", "true")};
static const sn_attr_def carlamotors_firetruck[] = {ATTR_COMMON_R("200,200,200", rec_fire, "Truck", "4.2340,1.4455,1.9137"), ATTR_VEHICLE("8000", "300000", "45", "1.2", "truck", "emergency", "2", "4", "true")};
static const sn_attr_def ford_ambulance[] = {ATTR_COMMON_R("200,200,200", rec_ambulance, "Car", "3.1828,1.1756,1.2157"), ATTR_VEHICLE("2500", "110000", "60", "0.8", "van", "emergency", "2", "4", "true")};
static const sn_attr_def mercedes_sprinter[] = {ATTR_COMMON("200,200,200", "Car", "2.9576,0.9942,1.2803"), ATTR_VEHICLE("2500", "110000", "60", "0.8", "van", "", "2", "4", "true")};
static const sn_attr_def volkswagen_t2[] = {ATTR_COMMON("200,200,200", "Car", "2.2402,1.0347,1.0189"), ATTR_VEHICLE("2500", "110000", "60", "0.8", "van", "", "1", "4", "false")};
static const sn_attr_def volkswagen_t2_2021[] = {ATTR_COMMON("200,200,200", "Car", "2.2211,0.8873,0.9936"), ATTR_VEHICLE("2500", "110000", "60", "0.8", "van", "", "2", "4", "true")};
static const sn_attr_def mitsubishi_fusorosa[] = {ATTR_COMMON("200,200,200", "Bus", "5.1363,1.9721,2.1264"), ATTR_VEHICLE("12000", "250000", "45", "1.2", "bus", "", "2", "4", "true")};
static const sn_attr_def bh_crossbike[] = {ATTR_COMMON("30,110,60", "Bicycle", "0.7547,0.4330,0.8062"), ATTR_VEHICLE("90", "400", "40", "0.8", "bicycle", "", "1", "2", "false")};
static const sn_attr_def diamondback_century[] = {ATTR_COMMON("180,40,40", "Bicycle", "0.8281,0.2912,0.8099"), ATTR_VEHICLE("90", "400", "40", "0.8", "bicycle", "", "1", "2", "false")};
static const sn_attr_def gazelle_omafiets[] = {ATTR_COMMON("20,20,20", "Bicycle", "0.9217,0.3295,0.8879"), ATTR_VEHICLE("95", "300", "40", "0.8", "bicycle", "", "1", "2", "false")};
static const sn_attr_def harley_davidson_low_rider[] = {ATTR_COMMON("60,60,70", "Motorcycle", "1.1751,0.3831,0.8247"), ATTR_VEHICLE("380", "60000", "35", "0.6", "motorcycle", "", "1", "2", "false")};
static const sn_attr_def kawasaki_ninja[] = {ATTR_COMMON("40,160,40", "Motorcycle", "1.0218,0.3985,0.7616"), ATTR_VEHICLE("280", "90000", "35", "0.6", "motorcycle", "", "1", "2", "false")};
static const sn_attr_def yamaha_yzf[] = {ATTR_COMMON("30,60,170", "Motorcycle", "1.0954,0.4330,0.7652"), ATTR_VEHICLE("270", "90000", "35", "0.6", "motorcycle", "", "1", "2", "false")};
static const sn_attr_def vespa_zx125[] = {ATTR_COMMON("200,200,190", "Motorcycle", "0.9086,0.4330,0.7950"), ATTR_VEHICLE("200", "9000", "40", "0.6", "motorcycle", "", "1", "2", "false")};

#define ATTR_WALKER(color, ext, rec, age) ATTR_COMMON(color, "Pedestrian", ext), \
    {"mass", SN_ATTR_FLOAT, "80", NULL, NULL, true, 10, 500, "kg", "walker mass"}, \
    {"speed", SN_ATTR_FLOAT, "1.4", rec, NULL, true, 0, 10, "m/s", "walking speed; recommended: walking, running (CARLA's)"}, \
    {"age", SN_ATTR_STRING, age, NULL, NULL, false, 0, 0, NULL, "CARLA's age: adult or child"}, \
    {"gender", SN_ATTR_STRING, "female", NULL, NULL, false, 0, 0, NULL, "CARLA's gender"}, \
    {"is_invincible", SN_ATTR_BOOL, "true", NULL, NULL, false, 0, 0, NULL, "CARLA's is_invincible (accepted)"}, \
    {"can_use_wheelchair", SN_ATTR_BOOL, "false", NULL, NULL, false, 0, 0, NULL, "CARLA's (accepted)"}, \
    {"generation", SN_ATTR_INT, "2", NULL, NULL, true, 1, 2, NULL, "CARLA's generation"}
/* CARLA's pedestrians: each id its own shirt colour (its `color` default; skin, hair, trousers and
** build follow the id: render/shapes.h sn_model_look). Children: 0009-0014, 0048, 0049. */
static const sn_attr_def walker_0001[] = {ATTR_WALKER("60,130,70", "0.1877,0.1877,0.9300", rec_speed, "adult")};
static const sn_attr_def walker_0002[] = {ATTR_WALKER("120,30,40", "0.1877,0.1877,0.9300", rec_speed, "adult")};
static const sn_attr_def walker_0003[] = {ATTR_WALKER("30,90,170", "0.1877,0.1877,0.9300", rec_speed, "adult")};
static const sn_attr_def walker_0004[] = {ATTR_WALKER("130,60,140", "0.1877,0.1877,0.9300", rec_speed, "adult")};
static const sn_attr_def walker_0005[] = {ATTR_WALKER("250,200,210", "0.1877,0.1877,0.9300", rec_speed, "adult")};
static const sn_attr_def walker_0006[] = {ATTR_WALKER("240,240,235", "0.1877,0.1877,0.9300", rec_speed, "adult")};
static const sn_attr_def walker_0007[] = {ATTR_WALKER("200,90,60", "0.1877,0.1877,0.9300", rec_speed, "adult")};
static const sn_attr_def walker_0008[] = {ATTR_WALKER("70,80,60", "0.1877,0.1877,0.9300", rec_speed, "adult")};
static const sn_attr_def walker_0009[] = {ATTR_WALKER("40,40,45", "0.2500,0.2500,0.5500", rec_speed_kid, "child")};
static const sn_attr_def walker_0010[] = {ATTR_WALKER("90,150,200", "0.2500,0.2500,0.5500", rec_speed_kid, "child")};
static const sn_attr_def walker_0011[] = {ATTR_WALKER("20,110,110", "0.2500,0.2500,0.5500", rec_speed_kid, "child")};
static const sn_attr_def walker_0012[] = {ATTR_WALKER("230,160,30", "0.1877,0.1877,0.6500", rec_speed_kid, "child")};
static const sn_attr_def walker_0013[] = {ATTR_WALKER("170,170,160", "0.1877,0.1877,0.6500", rec_speed_kid, "child")};
static const sn_attr_def walker_0014[] = {ATTR_WALKER("220,20,60", "0.1877,0.1877,0.6500", rec_speed_kid, "child")};
static const sn_attr_def walker_0015[] = {ATTR_WALKER("60,130,70", "0.1877,0.1877,0.9300", rec_speed, "adult")};
static const sn_attr_def walker_0016[] = {ATTR_WALKER("120,30,40", "0.1877,0.1877,0.9300", rec_speed, "adult")};
static const sn_attr_def walker_0017[] = {ATTR_WALKER("30,90,170", "0.1877,0.1877,0.9300", rec_speed, "adult")};
static const sn_attr_def walker_0018[] = {ATTR_WALKER("130,60,140", "0.1877,0.1877,0.9300", rec_speed, "adult")};
static const sn_attr_def walker_0019[] = {ATTR_WALKER("250,200,210", "0.1877,0.1877,0.9300", rec_speed, "adult")};
static const sn_attr_def walker_0020[] = {ATTR_WALKER("240,240,235", "0.1877,0.1877,0.9300", rec_speed, "adult")};
static const sn_attr_def walker_0021[] = {ATTR_WALKER("200,90,60", "0.1877,0.1877,0.9300", rec_speed, "adult")};
static const sn_attr_def walker_0022[] = {ATTR_WALKER("70,80,60", "0.1877,0.1877,0.9300", rec_speed, "adult")};
static const sn_attr_def walker_0023[] = {ATTR_WALKER("40,40,45", "0.1877,0.1877,0.9300", rec_speed, "adult")};
static const sn_attr_def walker_0024[] = {ATTR_WALKER("90,150,200", "0.1877,0.1877,0.9300", rec_speed, "adult")};
static const sn_attr_def walker_0025[] = {ATTR_WALKER("20,110,110", "0.1877,0.1877,0.9300", rec_speed, "adult")};
static const sn_attr_def walker_0026[] = {ATTR_WALKER("230,160,30", "0.1877,0.1877,0.9300", rec_speed, "adult")};
static const sn_attr_def walker_0027[] = {ATTR_WALKER("170,170,160", "0.1877,0.1877,0.9300", rec_speed, "adult")};
static const sn_attr_def walker_0028[] = {ATTR_WALKER("220,20,60", "0.1877,0.1877,0.9300", rec_speed, "adult")};
static const sn_attr_def walker_0029[] = {ATTR_WALKER("60,130,70", "0.1877,0.1877,0.9300", rec_speed, "adult")};
static const sn_attr_def walker_0030[] = {ATTR_WALKER("120,30,40", "0.1877,0.1877,0.9300", rec_speed, "adult")};
static const sn_attr_def walker_0031[] = {ATTR_WALKER("30,90,170", "0.1877,0.1877,0.9300", rec_speed, "adult")};
static const sn_attr_def walker_0032[] = {ATTR_WALKER("130,60,140", "0.1877,0.1877,0.9300", rec_speed, "adult")};
static const sn_attr_def walker_0033[] = {ATTR_WALKER("250,200,210", "0.1877,0.1877,0.9300", rec_speed, "adult")};
static const sn_attr_def walker_0034[] = {ATTR_WALKER("240,240,235", "0.1877,0.1877,0.9300", rec_speed, "adult")};
static const sn_attr_def walker_0035[] = {ATTR_WALKER("200,90,60", "0.1877,0.1877,0.9300", rec_speed, "adult")};
static const sn_attr_def walker_0036[] = {ATTR_WALKER("70,80,60", "0.1877,0.1877,0.9300", rec_speed, "adult")};
static const sn_attr_def walker_0037[] = {ATTR_WALKER("40,40,45", "0.1877,0.1877,0.9300", rec_speed, "adult")};
static const sn_attr_def walker_0038[] = {ATTR_WALKER("90,150,200", "0.1877,0.1877,0.9300", rec_speed, "adult")};
static const sn_attr_def walker_0039[] = {ATTR_WALKER("20,110,110", "0.1877,0.1877,0.9300", rec_speed, "adult")};
static const sn_attr_def walker_0040[] = {ATTR_WALKER("230,160,30", "0.1877,0.1877,0.9300", rec_speed, "adult")};
static const sn_attr_def walker_0041[] = {ATTR_WALKER("170,170,160", "0.1877,0.1877,0.9300", rec_speed, "adult")};
static const sn_attr_def walker_0042[] = {ATTR_WALKER("220,20,60", "0.1877,0.1877,0.9300", rec_speed, "adult")};
static const sn_attr_def walker_0043[] = {ATTR_WALKER("60,130,70", "0.1877,0.1877,0.9300", rec_speed, "adult")};
static const sn_attr_def walker_0044[] = {ATTR_WALKER("120,30,40", "0.1877,0.1877,0.9300", rec_speed, "adult")};
static const sn_attr_def walker_0045[] = {ATTR_WALKER("30,90,170", "0.1877,0.1877,0.9300", rec_speed, "adult")};
static const sn_attr_def walker_0046[] = {ATTR_WALKER("130,60,140", "0.1877,0.1877,0.9300", rec_speed, "adult")};
static const sn_attr_def walker_0047[] = {ATTR_WALKER("250,200,210", "0.1877,0.1877,0.9300", rec_speed, "adult")};
static const sn_attr_def walker_0048[] = {ATTR_WALKER("240,240,235", "0.2500,0.2500,0.5500", rec_speed_kid, "child")};
static const sn_attr_def walker_0049[] = {ATTR_WALKER("200,90,60", "0.2500,0.2500,0.5500", rec_speed_kid, "child")};
static const sn_attr_def walker_0050[] = {ATTR_WALKER("70,80,60", "0.1877,0.1877,0.9300", rec_speed, "adult")};
static const sn_attr_def walker_0051[] = {ATTR_WALKER("40,40,45", "0.1877,0.1877,0.9300", rec_speed, "adult")};

#define BP(id_, kind_, attrs_, doc_) \
    {id_, kind_, doc_, attrs_, (uint32_t)SN_COUNT(attrs_), sizeof(sn_attr_def), SN_SHAPE_BOX, NULL, NULL, NULL}

static const sn_blueprint carla_bps[] = {
    BP("vehicle.audi.a2", SN_ACTOR_VEHICLE, audi_a2, "a CARLA car (its bounding box, four ray-cast wheels)"),
    BP("vehicle.audi.etron", SN_ACTOR_VEHICLE, audi_etron, "a CARLA car (its bounding box, four ray-cast wheels)"),
    BP("vehicle.audi.tt", SN_ACTOR_VEHICLE, audi_tt, "a CARLA car (its bounding box, four ray-cast wheels)"),
    BP("vehicle.bmw.grandtourer", SN_ACTOR_VEHICLE, bmw_grandtourer, "a CARLA car (its bounding box, four ray-cast wheels)"),
    BP("vehicle.chevrolet.impala", SN_ACTOR_VEHICLE, chevrolet_impala, "a CARLA car (its bounding box, four ray-cast wheels)"),
    BP("vehicle.citroen.c3", SN_ACTOR_VEHICLE, citroen_c3, "a CARLA car (its bounding box, four ray-cast wheels)"),
    BP("vehicle.dodge.charger_2020", SN_ACTOR_VEHICLE, dodge_charger_2020, "a CARLA car (its bounding box, four ray-cast wheels)"),
    BP("vehicle.dodge.charger_police", SN_ACTOR_VEHICLE, dodge_charger_police, "a CARLA car (its bounding box, four ray-cast wheels)"),
    BP("vehicle.dodge.charger_police_2020", SN_ACTOR_VEHICLE, dodge_charger_police_2020, "a CARLA car (its bounding box, four ray-cast wheels)"),
    BP("vehicle.ford.crown", SN_ACTOR_VEHICLE, ford_crown, "a CARLA car (its bounding box, four ray-cast wheels)"),
    BP("vehicle.ford.mustang", SN_ACTOR_VEHICLE, ford_mustang, "a CARLA car (its bounding box, four ray-cast wheels)"),
    BP("vehicle.jeep.wrangler_rubicon", SN_ACTOR_VEHICLE, jeep_wrangler_rubicon, "a CARLA car (its bounding box, four ray-cast wheels)"),
    BP("vehicle.lincoln.mkz_2017", SN_ACTOR_VEHICLE, lincoln_mkz_2017, "a CARLA car (its bounding box, four ray-cast wheels)"),
    BP("vehicle.lincoln.mkz_2020", SN_ACTOR_VEHICLE, lincoln_mkz_2020, "a CARLA car (its bounding box, four ray-cast wheels)"),
    BP("vehicle.mercedes.coupe", SN_ACTOR_VEHICLE, mercedes_coupe, "a CARLA car (its bounding box, four ray-cast wheels)"),
    BP("vehicle.mercedes.coupe_2020", SN_ACTOR_VEHICLE, mercedes_coupe_2020, "a CARLA car (its bounding box, four ray-cast wheels)"),
    BP("vehicle.micro.microlino", SN_ACTOR_VEHICLE, micro_microlino, "a CARLA car (its bounding box, four ray-cast wheels)"),
    BP("vehicle.mini.cooper_s", SN_ACTOR_VEHICLE, mini_cooper_s, "a CARLA car (its bounding box, four ray-cast wheels)"),
    BP("vehicle.mini.cooper_s_2021", SN_ACTOR_VEHICLE, mini_cooper_s_2021, "a CARLA car (its bounding box, four ray-cast wheels)"),
    BP("vehicle.nissan.micra", SN_ACTOR_VEHICLE, nissan_micra, "a CARLA car (its bounding box, four ray-cast wheels)"),
    BP("vehicle.nissan.patrol", SN_ACTOR_VEHICLE, nissan_patrol, "a CARLA car (its bounding box, four ray-cast wheels)"),
    BP("vehicle.nissan.patrol_2021", SN_ACTOR_VEHICLE, nissan_patrol_2021, "a CARLA car (its bounding box, four ray-cast wheels)"),
    BP("vehicle.seat.leon", SN_ACTOR_VEHICLE, seat_leon, "a CARLA car (its bounding box, four ray-cast wheels)"),
    BP("vehicle.tesla.model3", SN_ACTOR_VEHICLE, tesla_model3, "a CARLA car (its bounding box, four ray-cast wheels)"),
    BP("vehicle.toyota.prius", SN_ACTOR_VEHICLE, toyota_prius, "a CARLA car (its bounding box, four ray-cast wheels)"),
    BP("vehicle.tesla.cybertruck", SN_ACTOR_VEHICLE, tesla_cybertruck, "a CARLA truck (its bounding box, four ray-cast wheels)"),
    BP("vehicle.carlamotors.carlacola", SN_ACTOR_VEHICLE, carlamotors_carlacola, "a CARLA truck (its bounding box, four ray-cast wheels)"),
    BP("vehicle.carlamotors.european_hgv", SN_ACTOR_VEHICLE, carlamotors_european_hgv, "a CARLA truck (its bounding box, four ray-cast wheels)"),
    BP("vehicle.carlamotors.firetruck", SN_ACTOR_VEHICLE, carlamotors_firetruck, "a CARLA truck (its bounding box, four ray-cast wheels)"),
    BP("vehicle.ford.ambulance", SN_ACTOR_VEHICLE, ford_ambulance, "a CARLA van (its bounding box, four ray-cast wheels)"),
    BP("vehicle.mercedes.sprinter", SN_ACTOR_VEHICLE, mercedes_sprinter, "a CARLA van (its bounding box, four ray-cast wheels)"),
    BP("vehicle.volkswagen.t2", SN_ACTOR_VEHICLE, volkswagen_t2, "a CARLA van (its bounding box, four ray-cast wheels)"),
    BP("vehicle.volkswagen.t2_2021", SN_ACTOR_VEHICLE, volkswagen_t2_2021, "a CARLA van (its bounding box, four ray-cast wheels)"),
    BP("vehicle.mitsubishi.fusorosa", SN_ACTOR_VEHICLE, mitsubishi_fusorosa, "a CARLA bus (its bounding box, four ray-cast wheels)"),
    BP("vehicle.bh.crossbike", SN_ACTOR_VEHICLE, bh_crossbike, "a CARLA bicycle and its cyclist (its bounding box, four ray-cast wheels)"),
    BP("vehicle.diamondback.century", SN_ACTOR_VEHICLE, diamondback_century, "a CARLA bicycle and its cyclist (its bounding box, four ray-cast wheels)"),
    BP("vehicle.gazelle.omafiets", SN_ACTOR_VEHICLE, gazelle_omafiets, "a CARLA bicycle and its cyclist (its bounding box, four ray-cast wheels)"),
    BP("vehicle.harley-davidson.low_rider", SN_ACTOR_VEHICLE, harley_davidson_low_rider, "a CARLA motorcycle and its rider (its bounding box, four ray-cast wheels)"),
    BP("vehicle.kawasaki.ninja", SN_ACTOR_VEHICLE, kawasaki_ninja, "a CARLA motorcycle and its rider (its bounding box, four ray-cast wheels)"),
    BP("vehicle.yamaha.yzf", SN_ACTOR_VEHICLE, yamaha_yzf, "a CARLA motorcycle and its rider (its bounding box, four ray-cast wheels)"),
    BP("vehicle.vespa.zx125", SN_ACTOR_VEHICLE, vespa_zx125, "a CARLA motorcycle and its rider (its bounding box, four ray-cast wheels)"),
    BP("walker.pedestrian.0001", SN_ACTOR_WALKER, walker_0001, "a CARLA pedestrian"),
    BP("walker.pedestrian.0002", SN_ACTOR_WALKER, walker_0002, "a CARLA pedestrian"),
    BP("walker.pedestrian.0003", SN_ACTOR_WALKER, walker_0003, "a CARLA pedestrian"),
    BP("walker.pedestrian.0004", SN_ACTOR_WALKER, walker_0004, "a CARLA pedestrian"),
    BP("walker.pedestrian.0005", SN_ACTOR_WALKER, walker_0005, "a CARLA pedestrian"),
    BP("walker.pedestrian.0006", SN_ACTOR_WALKER, walker_0006, "a CARLA pedestrian"),
    BP("walker.pedestrian.0007", SN_ACTOR_WALKER, walker_0007, "a CARLA pedestrian"),
    BP("walker.pedestrian.0008", SN_ACTOR_WALKER, walker_0008, "a CARLA pedestrian"),
    BP("walker.pedestrian.0009", SN_ACTOR_WALKER, walker_0009, "a CARLA pedestrian"),
    BP("walker.pedestrian.0010", SN_ACTOR_WALKER, walker_0010, "a CARLA pedestrian"),
    BP("walker.pedestrian.0011", SN_ACTOR_WALKER, walker_0011, "a CARLA pedestrian"),
    BP("walker.pedestrian.0012", SN_ACTOR_WALKER, walker_0012, "a CARLA pedestrian"),
    BP("walker.pedestrian.0013", SN_ACTOR_WALKER, walker_0013, "a CARLA pedestrian"),
    BP("walker.pedestrian.0014", SN_ACTOR_WALKER, walker_0014, "a CARLA pedestrian"),
    BP("walker.pedestrian.0015", SN_ACTOR_WALKER, walker_0015, "a CARLA pedestrian"),
    BP("walker.pedestrian.0016", SN_ACTOR_WALKER, walker_0016, "a CARLA pedestrian"),
    BP("walker.pedestrian.0017", SN_ACTOR_WALKER, walker_0017, "a CARLA pedestrian"),
    BP("walker.pedestrian.0018", SN_ACTOR_WALKER, walker_0018, "a CARLA pedestrian"),
    BP("walker.pedestrian.0019", SN_ACTOR_WALKER, walker_0019, "a CARLA pedestrian"),
    BP("walker.pedestrian.0020", SN_ACTOR_WALKER, walker_0020, "a CARLA pedestrian"),
    BP("walker.pedestrian.0021", SN_ACTOR_WALKER, walker_0021, "a CARLA pedestrian"),
    BP("walker.pedestrian.0022", SN_ACTOR_WALKER, walker_0022, "a CARLA pedestrian"),
    BP("walker.pedestrian.0023", SN_ACTOR_WALKER, walker_0023, "a CARLA pedestrian"),
    BP("walker.pedestrian.0024", SN_ACTOR_WALKER, walker_0024, "a CARLA pedestrian"),
    BP("walker.pedestrian.0025", SN_ACTOR_WALKER, walker_0025, "a CARLA pedestrian"),
    BP("walker.pedestrian.0026", SN_ACTOR_WALKER, walker_0026, "a CARLA pedestrian"),
    BP("walker.pedestrian.0027", SN_ACTOR_WALKER, walker_0027, "a CARLA pedestrian"),
    BP("walker.pedestrian.0028", SN_ACTOR_WALKER, walker_0028, "a CARLA pedestrian"),
    BP("walker.pedestrian.0029", SN_ACTOR_WALKER, walker_0029, "a CARLA pedestrian"),
    BP("walker.pedestrian.0030", SN_ACTOR_WALKER, walker_0030, "a CARLA pedestrian"),
    BP("walker.pedestrian.0031", SN_ACTOR_WALKER, walker_0031, "a CARLA pedestrian"),
    BP("walker.pedestrian.0032", SN_ACTOR_WALKER, walker_0032, "a CARLA pedestrian"),
    BP("walker.pedestrian.0033", SN_ACTOR_WALKER, walker_0033, "a CARLA pedestrian"),
    BP("walker.pedestrian.0034", SN_ACTOR_WALKER, walker_0034, "a CARLA pedestrian"),
    BP("walker.pedestrian.0035", SN_ACTOR_WALKER, walker_0035, "a CARLA pedestrian"),
    BP("walker.pedestrian.0036", SN_ACTOR_WALKER, walker_0036, "a CARLA pedestrian"),
    BP("walker.pedestrian.0037", SN_ACTOR_WALKER, walker_0037, "a CARLA pedestrian"),
    BP("walker.pedestrian.0038", SN_ACTOR_WALKER, walker_0038, "a CARLA pedestrian"),
    BP("walker.pedestrian.0039", SN_ACTOR_WALKER, walker_0039, "a CARLA pedestrian"),
    BP("walker.pedestrian.0040", SN_ACTOR_WALKER, walker_0040, "a CARLA pedestrian"),
    BP("walker.pedestrian.0041", SN_ACTOR_WALKER, walker_0041, "a CARLA pedestrian"),
    BP("walker.pedestrian.0042", SN_ACTOR_WALKER, walker_0042, "a CARLA pedestrian"),
    BP("walker.pedestrian.0043", SN_ACTOR_WALKER, walker_0043, "a CARLA pedestrian"),
    BP("walker.pedestrian.0044", SN_ACTOR_WALKER, walker_0044, "a CARLA pedestrian"),
    BP("walker.pedestrian.0045", SN_ACTOR_WALKER, walker_0045, "a CARLA pedestrian"),
    BP("walker.pedestrian.0046", SN_ACTOR_WALKER, walker_0046, "a CARLA pedestrian"),
    BP("walker.pedestrian.0047", SN_ACTOR_WALKER, walker_0047, "a CARLA pedestrian"),
    BP("walker.pedestrian.0048", SN_ACTOR_WALKER, walker_0048, "a CARLA pedestrian"),
    BP("walker.pedestrian.0049", SN_ACTOR_WALKER, walker_0049, "a CARLA pedestrian"),
    BP("walker.pedestrian.0050", SN_ACTOR_WALKER, walker_0050, "a CARLA pedestrian"),
    BP("walker.pedestrian.0051", SN_ACTOR_WALKER, walker_0051, "a CARLA pedestrian"),
};

const sn_blueprint *sn_carla_blueprints(size_t *n)
{
    *n = SN_COUNT(carla_bps);
    return carla_bps;
}

const char *sn_carla_base_type(const char *id)
{
    static const struct { const char *id, *base; } t[] = {
        {"vehicle.audi.a2", "car"},
        {"vehicle.audi.etron", "car"},
        {"vehicle.audi.tt", "car"},
        {"vehicle.bmw.grandtourer", "car"},
        {"vehicle.chevrolet.impala", "car"},
        {"vehicle.citroen.c3", "car"},
        {"vehicle.dodge.charger_2020", "car"},
        {"vehicle.dodge.charger_police", "car"},
        {"vehicle.dodge.charger_police_2020", "car"},
        {"vehicle.ford.crown", "car"},
        {"vehicle.ford.mustang", "car"},
        {"vehicle.jeep.wrangler_rubicon", "car"},
        {"vehicle.lincoln.mkz_2017", "car"},
        {"vehicle.lincoln.mkz_2020", "car"},
        {"vehicle.mercedes.coupe", "car"},
        {"vehicle.mercedes.coupe_2020", "car"},
        {"vehicle.micro.microlino", "car"},
        {"vehicle.mini.cooper_s", "car"},
        {"vehicle.mini.cooper_s_2021", "car"},
        {"vehicle.nissan.micra", "car"},
        {"vehicle.nissan.patrol", "car"},
        {"vehicle.nissan.patrol_2021", "car"},
        {"vehicle.seat.leon", "car"},
        {"vehicle.tesla.model3", "car"},
        {"vehicle.toyota.prius", "car"},
        {"vehicle.tesla.cybertruck", "truck"},
        {"vehicle.carlamotors.carlacola", "truck"},
        {"vehicle.carlamotors.european_hgv", "truck"},
        {"vehicle.carlamotors.firetruck", "truck"},
        {"vehicle.ford.ambulance", "van"},
        {"vehicle.mercedes.sprinter", "van"},
        {"vehicle.volkswagen.t2", "van"},
        {"vehicle.volkswagen.t2_2021", "van"},
        {"vehicle.mitsubishi.fusorosa", "bus"},
        {"vehicle.bh.crossbike", "bicycle"},
        {"vehicle.diamondback.century", "bicycle"},
        {"vehicle.gazelle.omafiets", "bicycle"},
        {"vehicle.harley-davidson.low_rider", "motorcycle"},
        {"vehicle.kawasaki.ninja", "motorcycle"},
        {"vehicle.yamaha.yzf", "motorcycle"},
        {"vehicle.vespa.zx125", "motorcycle"},
    };
    for (size_t i = 0; i < SN_COUNT(t); i++)
        if (!strcmp(t[i].id, id))
            return t[i].base;
    return NULL;
}
