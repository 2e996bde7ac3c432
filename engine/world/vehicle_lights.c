/* vehicle_lights.c — CARLA's VehicleLightState names (LibCarla/source/carla/rpc/VehicleLightState.h). */
#include "vehicle_lights.h"

#include <sensim/types.h>
#include <string.h>

static const struct { const char *name; uint32_t bits; } names[] = {
    {"NONE", SN_LIGHT_NONE},           {"None", SN_LIGHT_NONE},
    {"Position", SN_LIGHT_POSITION},   {"LowBeam", SN_LIGHT_LOW_BEAM},
    {"HighBeam", SN_LIGHT_HIGH_BEAM},  {"Brake", SN_LIGHT_BRAKE},
    {"RightBlinker", SN_LIGHT_RIGHT_BLINKER}, {"LeftBlinker", SN_LIGHT_LEFT_BLINKER},
    {"Reverse", SN_LIGHT_REVERSE},     {"Fog", SN_LIGHT_FOG},
    {"Interior", SN_LIGHT_INTERIOR},   {"Special1", SN_LIGHT_SPECIAL1},
    {"Special2", SN_LIGHT_SPECIAL2},   {"All", (uint32_t)SN_LIGHT_ALL},
};

bool sn_vehicle_light_bits(const char *name, uint32_t *bits)
{
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(name, names[i].name)) {
            *bits = names[i].bits;
            return true;
        }
    return false;
}

const char *sn_vehicle_light_names(void)
{
    return "NONE, Position, LowBeam, HighBeam, Brake, RightBlinker, LeftBlinker, Reverse, Fog, Interior, Special1, "
           "Special2, All";
}
