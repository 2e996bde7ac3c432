/* vehicle_lights.h — CARLA's carla.VehicleLightState names (sensim/types.h sn_vehicle_light),
** for the scene's `light_state` key and messages. */
#ifndef SN_WORLD_VEHICLE_LIGHTS_H
#define SN_WORLD_VEHICLE_LIGHTS_H

#include <stdbool.h>
#include <stdint.h>

/* The bits of one CARLA name ("LowBeam", "NONE" or "None", "All"); false for an unknown name. */
bool sn_vehicle_light_bits(const char *name, uint32_t *bits);
/* The names, comma-separated, for error messages. */
const char *sn_vehicle_light_names(void);

#endif
