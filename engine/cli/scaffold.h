/* scaffold.h — `sensim new-sensor`: writes a plugin folder that builds and loads as written. */
#ifndef SN_SCAFFOLD_H
#define SN_SCAFFOLD_H

#include <sensim/sensim.h>

/*
** Writes DIR (default ./NAME) with NAME.c, test_NAME.c, meson.build, scene.yaml, README.md.
** NAME is a C identifier in lower case ("lane_watch", blueprint sensor.other.lane_watch) or a
** whole blueprint id "sensor.FAMILY.NAME". Refuses a DIR that exists and is not empty.
** The folder used is copied to dir_out (caller's buffer).
*/
#include <stddef.h>
sn_status sn_scaffold_sensor(const char *name, const char *dir, char *dir_out, size_t dir_out_size, sn_error *err);

#endif
