/* classes.h — state shared by a sensor class: plugin.h's class_create, class_tick, class_destroy (classes.c). */
#ifndef SN_SIM_CLASSES_H
#define SN_SIM_CLASSES_H

#include "ctx.h"

/* Gives s its class context, creating the class state at the class's first instance. */
sn_status sn_class_attach(struct sn_engine *e, sn_sensor *s, sn_error *err);
/* The class context of blueprint bp (a sensor class), creating its state when it has none yet:
** what sn_class_attach gives an instance, and what the V2X host calls (host_v2x.c) lend. */
sn_status sn_class_of(struct sn_engine *e, const sn_blueprint *bp, sn_sensor **out, sn_error *err);
/* class_tick(phase, after) of every class that has one and asks for the phase. */
sn_status sn_classes_tick(struct sn_engine *e, sn_phase phase, bool after, sn_error *err);
/* class_destroy of every class, after their instances are gone. */
void sn_classes_destroy(struct sn_engine *e);

#endif
