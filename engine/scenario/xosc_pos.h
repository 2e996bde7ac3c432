/* xosc_pos.h — where an OpenSCENARIO position is (xosc_pos.c): positions resolved to poses and
** lane places, and the longitudinal distance between entities. The run's state is xosc_run.h's. */
#ifndef SN_SCENARIO_XOSC_POS_H
#define SN_SCENARIO_XOSC_POS_H

#include "xosc_run.h"

#include "../map/lanemap.h"

/* Resolves a position to (x, y, z, h); lane positions also give road, lane, s and offset (t
** from the lane centre, travel-left), with *on_lane true. false: r->why says what failed. */
bool sn_xmove_resolve(sn_xrun *r, const sn_xpos *p, double out[4], int32_t *road, int *lane, double *s, double *off,
                      bool *on_lane);
/* The longitudinal distance from a to b, positive when b is ahead (along the road when road_cs
** and both are on one road, else in a's frame; freespace: between the boxes). */
double sn_xent_long(const sn_xrun *r, int a, int b, bool freespace, bool road_cs);
/* Centre t of lane `lane` of road index ri at s (and its section in *sec_out, when not NULL);
** false when the lane does not exist there. */
bool sn_xlane_centre(const sn_xrun *r, int32_t ri, int lane, double s, uint32_t *sec_out, double *tc);
/* The angle (rad) between the centre of lane `lane` of section sec at s, a point t off the
** reference line, and the reference line: atan2(dt/ds, 1 - curvature t), non-zero where lane
** widths or the lane offset change along s. */
double sn_xlane_lean(const sn_odr_road *rd, const sn_odr_section *sec, int lane, double s, double t);

/* Road index ri of the run's map (positions and motions both walk it). */
static inline const sn_odr_road *sn_xrun_road(const sn_xrun *r, int32_t ri) { return &r->map->odr->roads[ri]; }

#endif
