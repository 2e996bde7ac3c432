/* foreign.h — other plugins' stations on the custom medium (foreign.c; host->v2x_*, sensim/v2x.h). */
#ifndef SN_V2X_FOREIGN_H
#define SN_V2X_FOREIGN_H

#include "medium.h"

/* A station for another plugin's sensor; `range` the custom sensor's first seven attributes
** (transmit_power .. filter_distance), whose ranges the settings must meet. */
sn_status sn_v2x_foreign_join(sn_v2x_medium *m, const sn_attr_def *range, uint32_t sensor_id, uint32_t parent_id,
                              const char *name, uint64_t seed, const sn_v2x_params *p, void **station, char *err,
                              size_t err_cap);
void sn_v2x_foreign_leave(sn_v2x_medium *m, sn_v2x_station *s);
/* Queues a copy of the payload for the next propagation. */
sn_status sn_v2x_foreign_send(sn_v2x_station *s, const void *payload, uint32_t size, char *err, size_t err_cap);
/* The inbox: host->v2x_received's answer. */
sn_status sn_v2x_foreign_received(const sn_v2x_station *s, sn_v2x_message *out, uint32_t cap, uint32_t *n_found);

#endif
