/* crosswalk.h — the map's crosswalks as segments a walker crosses a street along. */
#ifndef SN_TRAFFIC_CROSSWALK_H
#define SN_TRAFFIC_CROSSWALK_H

#include "../map/lanemap.h"

/* One crosswalk: its two ends, each on the sidewalk beside the road (world frame). */
typedef struct sn_crosswalk {
    sn_vec3 end[2];
} sn_crosswalk;

/* Every object of type "crosswalk" of the map, in road order, into a malloc'd array the caller
** frees (*out NULL when there are none). false when out of memory. */
bool sn_crosswalks_build(const sn_map *m, sn_crosswalk **out, size_t *n);

#endif
