/* hybrid.h — the Traffic Manager's hybrid physics mode (CARLA's set_hybrid_physics_mode and
** set_hybrid_physics_radius; docs/traffic.md, "Hybrid physics"): an autopilot vehicle farther than
** the radius from every hero vehicle (role_name "hero"), or every one when there is no hero, stops
** simulating physics and is moved along its path each frame instead. Engine-internal. */
#ifndef SN_TRAFFIC_HYBRID_H
#define SN_TRAFFIC_HYBRID_H

#include "traffic.h"

struct sn_engine;

/* The heroes' positions at the start of this frame's controllers (kept in e->traffic). */
void sn_hybrid_frame(struct sn_engine *e);
/* Turns a's physics off or back on as its Traffic Manager's mode and the heroes say (CARLA's
** ALSM::UpdateData); md->hybrid_off tells which. A vehicle its user made kinematic is left alone. */
void sn_hybrid_switch(struct sn_engine *e, sn_actor *a, sn_mapdrive *md);
/* Gives a its physics back (with the velocity it moved at) when the mode took it: its autopilot
** goes off (set_autopilot(false), apply_control). */
void sn_hybrid_release(struct sn_engine *e, sn_actor *a);
/* A vehicle without physics (md->hybrid_off): its pose at the end of this frame, vt * dt along its
** path (CARLA's MotionPlanStage: the target velocity times HYBRID_MODE_DT; here the frame's dt),
** or where it stands when vt is (nearly) 0. pts and along: the path's n points and their distances
** along it from the vehicle's centre. */
void sn_hybrid_move(sn_actor *a, const sn_mapdrive *md, const sn_vec3 *pts, const double *along, uint32_t n, double vt,
                    double dt);

#endif
