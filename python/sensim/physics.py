"""CARLA's physics-control classes: VehiclePhysicsControl, WheelPhysicsControl, GearPhysicsControl.

sensim's vehicle model takes its mass, power and steering lock from the blueprint at spawn;
get_physics_control reports them (and CARLA's defaults for the rest). apply_physics_control
keeps what it is given (get_physics_control returns it) and does not change the running model
(docs/python.md, "Physics control")."""
from __future__ import annotations

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
        self.steering_curve = list(steering_curve) if steering_curve else [Vector2D(0, 1), Vector2D(120, 0.3)]
        self.wheels = list(wheels) if wheels else [WheelPhysicsControl() for _ in range(4)]
        self.use_sweep_wheel_collision = use_sweep_wheel_collision
