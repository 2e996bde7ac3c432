"""CARLA's physics-control classes: VehiclePhysicsControl, WheelPhysicsControl, GearPhysicsControl.

sensim's vehicle model (engine/world/vehicle.c) has a mass, an engine of peak power and
low-speed force, a steering lock, a tyre friction and a drag coefficient. apply_physics_control
maps CARLA's fields onto them (to_engine, below; sn_engine_set_vehicle_physics) and keeps the
whole object: get_physics_control returns what was set. Before any apply, get_physics_control
describes the running model in CARLA's fields, so that applying it back changes nothing
(docs/python.md, "Physics control")."""
from __future__ import annotations

import copy
import math

from .geom import Vector2D, Vector3D

__all__ = ["VehiclePhysicsControl", "WheelPhysicsControl", "GearPhysicsControl"]


class GearPhysicsControl:
    def __init__(self, ratio: float = 1.0, down_ratio: float = 0.5, up_ratio: float = 0.65):
        self.ratio, self.down_ratio, self.up_ratio = float(ratio), float(down_ratio), float(up_ratio)


class WheelPhysicsControl:
    """CARLA's carla.WheelPhysicsControl (0.9.15 fields)."""

    def __init__(self, tire_friction: float = 3.5, damping_rate: float = 0.25, max_steer_angle: float = 70.0,
                 radius: float = 30.0, max_brake_torque: float = 1500.0, max_handbrake_torque: float = 3000.0,
                 lat_stiff_max_load: float = 2.0, lat_stiff_value: float = 17.0, long_stiff_value: float = 1000.0,
                 position: Vector3D | None = None):
        self.tire_friction, self.damping_rate, self.max_steer_angle = tire_friction, damping_rate, max_steer_angle
        self.radius, self.max_brake_torque, self.max_handbrake_torque = radius, max_brake_torque, max_handbrake_torque
        self.lat_stiff_max_load, self.lat_stiff_value = lat_stiff_max_load, lat_stiff_value
        self.long_stiff_value = long_stiff_value
        self.position = position if position is not None else Vector3D()


class VehiclePhysicsControl:
    """CARLA's carla.VehiclePhysicsControl (0.9.15 fields)."""

    def __init__(self, torque_curve=None, max_rpm: float = 5000.0, moi: float = 1.0,
                 damping_rate_full_throttle: float = 0.15, damping_rate_zero_throttle_clutch_engaged: float = 2.0,
                 damping_rate_zero_throttle_clutch_disengaged: float = 0.35, use_gear_autobox: bool = True,
                 gear_switch_time: float = 0.5, clutch_strength: float = 10.0, final_ratio: float = 4.0,
                 forward_gears=None, mass: float = 1000.0, drag_coefficient: float = 0.3,
                 center_of_mass: Vector3D | None = None, steering_curve=None, wheels=None,
                 use_sweep_wheel_collision: bool = False):
        self.torque_curve = list(torque_curve) if torque_curve else [Vector2D(0, 500), Vector2D(5000, 500)]
        self.max_rpm, self.moi = max_rpm, moi
        self.damping_rate_full_throttle = damping_rate_full_throttle
        self.damping_rate_zero_throttle_clutch_engaged = damping_rate_zero_throttle_clutch_engaged
        self.damping_rate_zero_throttle_clutch_disengaged = damping_rate_zero_throttle_clutch_disengaged
        self.use_gear_autobox, self.gear_switch_time = use_gear_autobox, gear_switch_time
        self.clutch_strength, self.final_ratio = clutch_strength, final_ratio
        self.forward_gears = list(forward_gears) if forward_gears else [GearPhysicsControl()]
        self.mass, self.drag_coefficient = float(mass), drag_coefficient
        self.center_of_mass = center_of_mass if center_of_mass is not None else Vector3D()
        self.steering_curve = list(steering_curve) if steering_curve else [Vector2D(x, y) for x, y in STEERING_CURVE]
        self.wheels = list(wheels) if wheels else [WheelPhysicsControl() for _ in range(4)]
        self.use_sweep_wheel_collision = use_sweep_wheel_collision


# CARLA's default steering curve (km/h, fraction of max_steer_angle): sensim's (vehicle.c).
STEERING_CURVE = ((0.0, 1.0), (20.0, 0.9), (60.0, 0.8), (120.0, 0.7))
STEERING_CURVE_MAX, FORCE_CURVE_MAX = 16, 64
# CARLA's tire_friction of 3.5 (its default) is sensim's mu of 1.0 (its default).
FRICTION_SCALE = 3.5
# The flat torque curve and gearing get_physics_control reports before any apply.
_DEFAULT_RPM, _DEFAULT_FINAL, _DEFAULT_RADIUS_CM = 5000.0, 4.0, 30.0


def _rad_per_s(rpm: float) -> float:
    return rpm * 2 * math.pi / 60


def _torque_at(curve, rpm: float) -> float:
    pts = sorted((float(p.x), float(p.y)) for p in curve)
    if rpm <= pts[0][0]:
        return pts[0][1]
    for (x0, y0), (x1, y1) in zip(pts, pts[1:]):
        if rpm <= x1:
            return y0 + (y1 - y0) * (rpm - x0) / (x1 - x0) if x1 > x0 else y1
    return pts[-1][1]


def _drive(pc: VehiclePhysicsControl):
    """The fields that make the driving force: torque curve, max_rpm, gears, final ratio, the
    driven wheels' radius (compared with what get_physics_control reported)."""
    return ([(float(p.x), float(p.y)) for p in pc.torque_curve], float(pc.max_rpm),
            [float(g.ratio) for g in pc.forward_gears], float(pc.final_ratio),
            [float(w.radius) for w in (list(pc.wheels)[2:] or list(pc.wheels))])


def force_curve(pc: VehiclePhysicsControl, radius: float) -> list:
    """The driven wheels' force (N) against speed (m/s), FORCE_CURVE_MAX points: at each speed
    the best forward gear's torque x ratio x final_ratio / radius, the engine at the speed's
    rpm on the torque curve (an ideal automatic gearbox: CARLA's use_gear_autobox), no gear
    above max_rpm; 0 beyond top gear's max_rpm. A speed whose rpm lies below the curve's first
    point gets the first point's torque (the clutch slips off the line)."""
    gears = sorted({float(g.ratio) for g in pc.forward_gears if float(g.ratio) > 0}, reverse=True)
    if not gears:
        raise ValueError("apply_physics_control: no forward gear with a ratio > 0")
    final = float(pc.final_ratio)
    if not (math.isfinite(final) and final > 0):
        raise ValueError(f"apply_physics_control: final_ratio {pc.final_ratio} must be > 0")
    max_rpm = float(pc.max_rpm)
    k = 60 / (2 * math.pi) * final / radius  # rpm per (m/s) per unit gear ratio
    v_top = max_rpm / (k * gears[-1])
    n = FORCE_CURVE_MAX - 1
    out = []
    for i in range(n):
        v = v_top * i / (n - 1)
        best = 0.0
        for g in gears:
            rpm = v * k * g
            if rpm <= max_rpm * (1 + 1e-12):
                best = max(best, _torque_at(pc.torque_curve, rpm) * g * final / radius)
        out.append((v, max(best, 0.0)))
    out.append((v_top * (1 + 1e-9) + 1e-9, 0.0))  # the rev limit: no force beyond
    return out


def steering_curve(pc: VehiclePhysicsControl) -> list:
    """CARLA's steering curve as (km/h, fraction) points: sorted, a repeated speed keeps its
    last fraction."""
    pts = {}
    for p in pc.steering_curve:
        pts[float(p.x)] = float(p.y)
    out = sorted(pts.items())
    if not out:
        raise ValueError("apply_physics_control: steering_curve is empty")
    if len(out) > STEERING_CURVE_MAX:
        raise ValueError(f"apply_physics_control: steering_curve has {len(out)} points; sensim takes {STEERING_CURVE_MAX}")
    return out


def to_engine(pc: VehiclePhysicsControl) -> dict:
    """CARLA's fields on sensim's model:
    - max_power: the largest torque x angular speed on the torque curve (x rpm, y N m) up to max_rpm;
    - max_force: the curve's largest torque x first gear's ratio x final_ratio / the driven (rear)
      wheels' mean radius (cm, as CARLA 0.9.15);
    - force_curve: the driving force against speed through every forward gear (force_curve()),
      unless the torque curve, gears, final ratio and radius are what get_physics_control
      reported (then the running power law stays: applying get_physics_control changes nothing);
    - max_steer_angle: the front wheels' largest; steering_curve as it is; tire_friction: the
      wheels' mean / 3.5;
    - center_of_mass: moved from the blueprint's by it (CARLA's COMNudge);
    - mass and drag_coefficient as they are. The other fields are kept, not modelled."""
    if not pc.torque_curve:
        raise ValueError("apply_physics_control: torque_curve is empty")
    max_rpm = float(pc.max_rpm)
    if not (math.isfinite(max_rpm) and max_rpm > 0):
        raise ValueError(f"apply_physics_control: max_rpm {pc.max_rpm} must be > 0")
    rpms = sorted({min(float(p.x), max_rpm) for p in pc.torque_curve if float(p.x) >= 0} | {max_rpm})
    power = max(_torque_at(pc.torque_curve, r) * _rad_per_s(r) for r in rpms)
    torque = max(_torque_at(pc.torque_curve, r) for r in rpms)
    wheels = list(pc.wheels)
    if not wheels:
        raise ValueError("apply_physics_control: no wheels")
    driven = wheels[2:] or wheels
    radius = sum(float(w.radius) for w in driven) / len(driven) / 100.0
    if not (radius > 0):
        raise ValueError("apply_physics_control: the wheels' radius must be > 0 (centimetres)")
    gear = float(pc.forward_gears[0].ratio) if pc.forward_gears else 1.0
    reported = getattr(pc, "_reported", None)
    com = pc.center_of_mass
    return {"mass": float(pc.mass), "max_power": power,
            "max_force": torque * gear * float(pc.final_ratio) / radius,
            "max_steer_angle": max(float(w.max_steer_angle) for w in wheels[:2]),
            "tire_friction": sum(float(w.tire_friction) for w in wheels) / len(wheels) / FRICTION_SCALE,
            "drag_coefficient": float(pc.drag_coefficient),
            "center_of_mass": (float(com.x), float(com.y), float(com.z)),
            "steering_curve": steering_curve(pc),
            "force_curve": [] if reported is not None and reported == _drive(pc) else force_curve(pc, radius)}


def from_engine(p, n_wheels: int, center_of_mass: Vector3D) -> VehiclePhysicsControl:
    """The running model in CARLA's fields: a flat torque curve to 5000 rpm giving max_power,
    a first gear giving max_force through a final ratio of 4 and 30 cm wheels."""
    w = _rad_per_s(_DEFAULT_RPM)
    torque = p.max_power / w if p.max_power > 0 else 0.0
    gear = p.max_force * (_DEFAULT_RADIUS_CM / 100) / (torque * _DEFAULT_FINAL) if torque > 0 else 1.0
    wheels = [WheelPhysicsControl(tire_friction=p.tire_friction * FRICTION_SCALE,
                                  max_steer_angle=p.max_steer_angle if i < 2 else 0.0,
                                  radius=_DEFAULT_RADIUS_CM) for i in range(max(2, n_wheels))]
    steer = [Vector2D(x, y) for x, y in (list(p.steering_curve)[:p.n_steering_curve] or STEERING_CURVE)]
    pc = VehiclePhysicsControl(torque_curve=[Vector2D(0, torque), Vector2D(_DEFAULT_RPM, torque)],
                               max_rpm=_DEFAULT_RPM, final_ratio=_DEFAULT_FINAL,
                               forward_gears=[GearPhysicsControl(ratio=gear)], mass=p.mass,
                               drag_coefficient=p.drag_coefficient, center_of_mass=center_of_mass,
                               steering_curve=steer, wheels=wheels)
    pc._reported = _drive(pc)  # applied back unchanged: the running power law stays (to_engine)
    return pc


def kept(pc: VehiclePhysicsControl) -> VehiclePhysicsControl:
    return copy.deepcopy(pc)
