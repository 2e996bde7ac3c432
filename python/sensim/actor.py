"""CARLA's actors: Actor, Vehicle, Walker, Sensor, ActorList and the vehicle's enums (module `actor`: the
package's `sensim.actors` is the reader of actor streams)."""
from __future__ import annotations

import ctypes
import enum
import fnmatch
import math
from typing import TYPE_CHECKING, Callable

from . import _lib
from ._common import CarlaEnum, _check_text, _err
from ._lib import SensimError, check
from .geom import BoundingBox, Location, Transform, Vector3D, VehicleControl, WalkerControl

if TYPE_CHECKING:
    from .world import World

__all__ = ["Actor", "Vehicle", "Walker", "Sensor", "ActorList", "VehicleLightState", "VehicleWheelLocation"]


class Actor:
    """CARLA's carla.Actor: a handle by id; every getter reads the engine now."""

    def __init__(self, world: World, info: _lib.ActorInfo):
        self._world = world
        self.id: int = info.id
        self.type_id: str = info.type_id.decode()
        self.name: str = (info.name or b"").decode()
        self.role_name: str = (info.role_name or b"").decode()
        self.semantic_tags: list[int] = [info.semantic_tag]
        self.bounding_box = BoundingBox(Location._from(info.bounding_box.location),
                                        Vector3D._from(info.bounding_box.extent))
        self._parent_id: int = info.parent_id

    def __repr__(self) -> str:
        return f"{type(self).__name__}(id={self.id}, type={self.type_id})"

    def __eq__(self, o) -> bool:
        return isinstance(o, Actor) and o.id == self.id and o._world is self._world

    def __hash__(self) -> int:
        return hash(self.id)

    def _info(self) -> _lib.ActorInfo:
        info = _lib.ActorInfo(struct_size=ctypes.sizeof(_lib.ActorInfo))
        if _lib.lib().sn_engine_actor_get(self._world._engine(), self.id, ctypes.byref(info)) != 0:
            raise SensimError(f"actor {self.id} ({self.type_id}) is not alive", -7)
        return info

    @property
    def is_alive(self) -> bool:
        info = _lib.ActorInfo(struct_size=ctypes.sizeof(_lib.ActorInfo))
        return self._world._e is not None and \
            _lib.lib().sn_engine_actor_get(self._world._e, self.id, ctypes.byref(info)) == 0

    @property
    def parent(self) -> "Actor | None":
        return self._world._wrap(self._parent_id) if self._parent_id else None

    @property
    def attributes(self) -> dict[str, str]:
        """What the actor was spawned with, CARLA-style strings, defaults included."""
        out = {}
        L, e = _lib.lib(), self._world._engine()
        name, v = ctypes.c_char_p(), _lib.Value()
        i = 0
        while L.sn_engine_actor_attribute_at(e, self.id, i, ctypes.byref(name), ctypes.byref(v), None) == 0:
            out[name.value.decode()] = _value_str(v)
            i += 1
        return out

    def get_world(self) -> World:
        return self._world

    def get_transform(self) -> Transform:
        return Transform._from(self._info().transform)

    def get_location(self) -> Location:
        return Location._from(self._info().transform.location)

    def get_velocity(self) -> Vector3D:
        return Vector3D._from(self._info().velocity)

    def get_angular_velocity(self) -> Vector3D:
        return Vector3D._from(self._info().angular_velocity)

    def get_acceleration(self) -> Vector3D:
        return Vector3D._from(self._info().acceleration)

    def _call(self, fn: str, *args) -> None:
        err = _err()
        with self._world._lock:  # the engine read and used under one hold: no close() in between
            st = getattr(_lib.lib(), fn)(self._world._engine(), self.id, *args, ctypes.byref(err))
        check(st, err)

    def set_transform(self, transform: Transform) -> None:
        """Teleports (velocities kept); for an attached actor, its new mount."""
        self._call("sn_engine_set_transform", ctypes.byref(transform._c()))

    def set_location(self, location: Location) -> None:
        t = self.get_transform()
        self.set_transform(Transform(location, t.rotation))

    def set_target_velocity(self, velocity: Vector3D) -> None:
        self._call("sn_engine_set_velocity", velocity._c(), self._info().angular_velocity)

    def set_target_angular_velocity(self, angular_velocity: Vector3D) -> None:
        self._call("sn_engine_set_velocity", self._info().velocity, angular_velocity._c())

    def set_simulate_physics(self, enabled: bool = True) -> None:
        self._call("sn_engine_set_simulate_physics", bool(enabled))

    def set_target_transform(self, transform: Transform) -> None:
        """A kinematic actor's pose at the end of the next tick (sensim's)."""
        self._call("sn_engine_set_target_transform", ctypes.byref(transform._c()))

    # -- forces, as CARLA's: each changes the velocity now by what it would give over one step
    def _mass(self) -> float:
        try:
            return float(self.attributes.get("mass", 0)) or 1.0
        except ValueError:
            return 1.0

    def add_impulse(self, impulse: Vector3D) -> None:
        """An impulse (N s) at the centre of mass: the velocity changes by impulse / mass now."""
        info = self._info()
        v = Vector3D._from(info.velocity) + Vector3D(impulse) * (1.0 / self._mass())
        self._call("sn_engine_set_velocity", v._c(), info.angular_velocity)

    def add_force(self, force: Vector3D) -> None:
        """A force (N) over the next step: the velocity changes by force x dt / mass now."""
        dt = self._world._clock().dt
        self.add_impulse(Vector3D(force) * dt)

    def _inertia(self) -> float:
        e = self.bounding_box.extent
        return self._mass() * (4 * (e.x * e.x + e.y * e.y)) / 12.0 or 1.0  # a box about z, (2a)^2+(2b)^2

    def add_angular_impulse(self, angular_impulse: Vector3D) -> None:
        """An angular impulse (N m s, degrees as CARLA's angular velocities): the angular velocity
        changes by it over the box's moment of inertia about z (a solid box)."""
        info = self._info()
        w = Vector3D._from(info.angular_velocity) + Vector3D(angular_impulse) * (1.0 / self._inertia())
        self._call("sn_engine_set_velocity", info.velocity, w._c())

    def add_torque(self, torque: Vector3D) -> None:
        self.add_angular_impulse(Vector3D(torque) * self._world._clock().dt)

    def enable_constant_velocity(self, velocity: Vector3D) -> None:
        """Holds this velocity (the actor's own frame, as CARLA's) before every step until disabled."""
        self._world._constant[self.id] = Vector3D(velocity)

    def disable_constant_velocity(self) -> None:
        self._world._constant.pop(self.id, None)

    def set_enable_gravity(self, enabled: bool) -> None:
        """Accepted; gravity applies to every physics body in sensim (docs/python.md)."""
        self._gravity = bool(enabled)

    @property
    def is_active(self) -> bool:
        return self.is_alive

    @property
    def is_dormant(self) -> bool:
        return False

    @property
    def actor_state(self) -> str:
        return "Active" if self.is_alive else "Invalid"

    def get_component_names(self) -> list[str]:
        return []

    def destroy(self) -> bool:
        """Destroys the actor and everything attached to it; False if it was already gone."""
        if not self.is_alive:
            return False
        if self.id in getattr(self._world, "_gbuffers", {}):  # its G-buffer companions go with it
            from . import gbuffer
            gbuffer.destroy(self)
        self._call("sn_engine_destroy_actor")
        self._world._actors.pop(self.id, None)
        with self._world._lock:
            if self._world._e is not None:
                self._world._forget_destroyed()  # its sensors' and its attached sensors' listeners
        return True


def _value_str(v: _lib.Value) -> str:
    t = v.type
    if t == 0:
        return "true" if v.b else "false"
    if t == 1:
        return str(v.i)
    if t == 2:
        return repr(v.f) if v.f != int(v.f) else str(int(v.f))
    if t == 4:
        return f"{v.rgb[0]},{v.rgb[1]},{v.rgb[2]}"
    return (v.s or b"").decode()


# CARLA's two-wheelers: wheel 1 is their rear wheel (VehicleWheelLocation.Back_Wheel).
_TWO_WHEELERS = frozenset({"vehicle.bh.crossbike", "vehicle.diamondback.century", "vehicle.gazelle.omafiets",
                           "vehicle.harley-davidson.low_rider", "vehicle.kawasaki.ninja", "vehicle.yamaha.yzf",
                           "vehicle.vespa.zx125"})


class VehicleLightState(CarlaEnum, enum.IntFlag):
    """CARLA's carla.VehicleLightState: a vehicle's lights as bits (docs/vehicle-lights.md)."""
    NONE = 0
    Position = 0x1
    LowBeam = 0x1 << 1
    HighBeam = 0x1 << 2
    Brake = 0x1 << 3
    RightBlinker = 0x1 << 4
    LeftBlinker = 0x1 << 5
    Reverse = 0x1 << 6
    Fog = 0x1 << 7
    Interior = 0x1 << 8
    Special1 = 0x1 << 9
    Special2 = 0x1 << 10
    All = 0xFFFFFFFF


class VehicleWheelLocation(CarlaEnum, enum.IntEnum):
    """CARLA's carla.VehicleWheelLocation."""
    FL_Wheel = 0
    FR_Wheel = 1
    BL_Wheel = 2
    BR_Wheel = 3
    Front_Wheel = 0
    Back_Wheel = 1


class Vehicle(Actor):
    """CARLA's carla.Vehicle."""

    def set_light_state(self, light_state) -> None:
        """CARLA's set_light_state: a VehicleLightState (or its bits as an int)."""
        self._call("sn_engine_set_vehicle_light_state", int(light_state) & 0xFFFFFFFF)

    def get_light_state(self) -> VehicleLightState:
        return VehicleLightState(self._info().light_state)

    def get_wheel_steer_angle(self, wheel_location) -> float:
        """CARLA's: the wheel's steer angle in degrees (front wheels turn, rear wheels stay at 0)."""
        front = int(wheel_location) in (0, 1) and not (self.type_id in _TWO_WHEELERS and int(wheel_location) == 1)
        return float(self._info().wheel_steer_angle) if front else 0.0

    def apply_control(self, control: VehicleControl) -> None:
        """Held until changed; values outside their ranges are refused. Turns autopilot off."""
        self._world._ackermann.pop(self.id, None)
        self._call("sn_engine_apply_control", ctypes.byref(control._c()))

    def get_control(self) -> VehicleControl:
        c = self._info().control
        return VehicleControl(c.throttle, c.steer, c.brake, c.hand_brake, c.reverse)

    def set_autopilot(self, enabled: bool = True, tm_port: int = 8000, *, target_speed: float = -1.0,
                      distance_to_leading_vehicle: float = float("nan"),
                      vehicle_percentage_speed_difference: float = float("nan"),
                      ignore_lights_percentage: float = float("nan")) -> None:
        """CARLA's set_autopilot(enabled, tm_port): on a map, follow the lanes through junctions
        on a seeded random route with the Traffic Manager of tm_port (client.get_trafficmanager);
        off, keep the last control. A vehicle off the road drives to the nearest lane (one
        warning). The keyword knobs (sensim's) are its own Traffic Manager settings (NaN: not
        set); target_speed (m/s) >= 0 is its desired speed. sensim/traffic.py."""
        from . import traffic
        traffic.set_autopilot(self, enabled, tm_port, target_speed, distance_to_leading_vehicle,
                              vehicle_percentage_speed_difference, ignore_lights_percentage)

    def get_speed_limit(self) -> float:
        """CARLA's get_speed_limit (km/h): the last speed-limit sign the vehicle passed, else its
        lane's or road's <speed> record, else 30 (docs/traffic.md "Speed limits")."""
        kmh = ctypes.c_double(0.0)
        self._call("sn_engine_vehicle_speed_limit", ctypes.byref(kmh))
        return kmh.value

    def get_traffic_light(self):
        """The TrafficLight whose trigger volume the vehicle is in, or None (CARLA's)."""
        from . import traffic
        return traffic.vehicle_traffic_light(self)

    def get_traffic_light_state(self):
        """Its light's state; Green when it is at none (CARLA's default)."""
        from .traffic import TrafficLightState
        light = self.get_traffic_light()
        return light.get_state() if light is not None else TrafficLightState.Green

    def is_at_traffic_light(self) -> bool:
        return self.get_traffic_light() is not None

    def apply_ackermann_control(self, control) -> None:
        """CARLA's Ackermann control: a target front-wheel angle (rad) and speed (m/s), held; each
        step a proportional controller turns it into throttle, brake and steer (sensim's
        controller, in the spirit of CARLA's AckermannController: not its PID constants)."""
        self._world._ackermann[self.id] = control

    def get_ackermann_controller_settings(self):
        return None

    def apply_physics_control(self, physics_control) -> None:
        """Applied to the running model from the next step (physics.to_engine maps CARLA's fields:
        mass, torque curve and max_rpm through every forward gear and the final ratio, the wheels'
        radius, friction and front max_steer_angle, drag_coefficient, center_of_mass,
        steering_curve); the rest is kept. get_physics_control returns what was set."""
        from . import physics
        v = physics.to_engine(physics_control)
        c = _lib.VehiclePhysics(ctypes.sizeof(_lib.VehiclePhysics), v["mass"], v["max_power"], v["max_force"],
                                v["max_steer_angle"], v["tire_friction"], v["drag_coefficient"])
        c.center_of_mass = _lib.Vec3(*v["center_of_mass"])
        c.n_steering_curve = len(v["steering_curve"])
        for i, (x, y) in enumerate(v["steering_curve"]):
            c.steering_curve[i][0], c.steering_curve[i][1] = x, y
        c.n_force_curve = len(v["force_curve"])
        for i, (x, y) in enumerate(v["force_curve"]):
            c.force_curve[i][0], c.force_curve[i][1] = x, y
        self._call("sn_engine_set_vehicle_physics", ctypes.byref(c))
        self._physics = physics.kept(physics_control)

    def _engine_physics(self):
        c = _lib.VehiclePhysics(struct_size=ctypes.sizeof(_lib.VehiclePhysics))
        self._call("sn_engine_get_vehicle_physics", ctypes.byref(c))
        return c

    def get_physics_control(self):
        """What apply_physics_control set (a copy), else the running model in CARLA's fields."""
        from . import physics
        pc = getattr(self, "_physics", None)
        if pc is not None:
            return physics.kept(pc)
        a = self.attributes
        p = self._engine_physics()
        com = Vector3D(p.center_of_mass.x, p.center_of_mass.y, p.center_of_mass.z)  # CARLA's COMNudge: 0 as spawned
        return physics.from_engine(p, int(a.get("number_of_wheels", 4)), com)

    def open_door(self, door_idx) -> None:
        """Accepted: sensim's vehicles have no doors (docs/python.md)."""

    def close_door(self, door_idx) -> None:
        """Accepted: sensim's vehicles have no doors."""

    def show_debug_telemetry(self, enabled: bool = True) -> None:
        """Accepted: nothing is drawn on a screen here."""

    def get_failure_state(self) -> int:
        return 0  # CARLA's VehicleFailureState.NONE


class Walker(Actor):
    """CARLA's carla.Walker."""

    def apply_control(self, control: WalkerControl) -> None:
        self._call("sn_engine_apply_walker_control", ctypes.byref(control._c()))

    # -- bones (skeleton.py): a skeleton of CARLA's bone names scaled to the walker
    def _pose(self):
        p = getattr(self, "_skeleton", None)
        if p is None:
            from .skeleton import WalkerPose
            e = self.bounding_box.extent
            p = self._skeleton = WalkerPose(2 * e.z, e.z)
        return p

    def get_bones(self):
        """CARLA's get_bones: WalkerBoneControlOut, every bone's world, component and relative transform."""
        return self._pose().bones(self.get_transform())

    def set_bones(self, control) -> None:
        """CARLA's set_bones (WalkerBoneControlIn): the custom pose of the named bones, relative to their parents."""
        self._pose().set_bones(control)

    def blend_pose(self, blend: float) -> None:
        """0 the animation's (rest) pose, 1 the custom pose of set_bones; between, a mix."""
        b = float(blend)
        if not math.isfinite(b):
            raise ValueError("blend_pose: the blend must be finite")
        self._pose().blend = min(1.0, max(0.0, b))

    def show_pose(self) -> None:
        self.blend_pose(1.0)

    def hide_pose(self) -> None:
        self.blend_pose(0.0)

    def get_pose_from_animation(self) -> None:
        self._pose().from_animation()

    def set_autopilot(self, enabled: bool = True, tm_port: int = 8000) -> None:
        """sensim's walker autopilot: on a map, the walker wanders the sidewalks to random goals
        (as the scene's traffic: walkers, CARLA's AI controller after its first goal); off, it
        stands. See docs/walkers.md."""
        del tm_port
        if not enabled:
            from .walkers import _lib_nav
            err = _err()
            check(_lib_nav().sn_engine_walker_ai_stop(self._world._engine(), self.id, ctypes.byref(err)), err)
            return
        o = _lib.AutopilotOptions(ctypes.sizeof(_lib.AutopilotOptions), -1.0, float("nan"), float("nan"),
                                  float("nan"))
        self._call("sn_engine_set_autopilot", True, ctypes.byref(o))


class _Flag(int):
    """A bool that can also be called for itself: CARLA made some properties methods between
    releases (Sensor.is_listening), and scripts of either release read it their way. An int
    (0 or 1) as bool is, so `if`, `not`, `==`, sum and int() treat it as a bool does; only
    `is True` and json (1, not true) tell it apart."""

    __slots__ = ()

    def __new__(cls, v: bool):
        return super().__new__(cls, bool(v))

    def __call__(self) -> bool:
        return bool(self)

    def __repr__(self) -> str:
        return repr(bool(self))

    __str__ = __repr__


class Sensor(Actor):
    """CARLA's carla.Sensor: listen(callback) gets one data object per measurement, during
    world.tick(), on the thread that steps (the world's own thread in asynchronous mode). The
    data objects own their bytes, as CARLA's (listen(cb, zero_copy=True) is the opt-out)."""

    @property
    def is_listening(self) -> "_Flag":
        """Whether a callback listens: a property in CARLA up to 0.9.13, a method from 0.9.14
        (sensor.is_listening()); this answers both ways."""
        lst = self._world._listeners.get(self.name)
        return _Flag(lst is not None and lst.callback is not None)

    def listen(self, callback: Callable, *, zero_copy: bool = False) -> None:
        """callback(data) for each measurement. The data object owns its bytes (keep it as long
        as you like); zero_copy=True (sensim's opt-in) skips that copy: its arrays are views on
        the engine's buffer, valid only during the callback (reading them later raises)."""
        if not self.is_alive:
            raise SensimError(f"listen: sensor {self.id} is not alive", -7)
        if not callable(callback):
            raise TypeError(f"listen: callback must be callable, not {type(callback).__name__}")
        self._world._listen(self.name, callback, zero_copy)

    def stop(self) -> None:
        self._world._unlisten(self.name)

    def call(self, method: str, *args: str) -> None:
        """Calls a sensor method by name (sensim's; e.g. a custom V2X sensor's "send")."""
        what = f"{self.name}.{method}"
        m = _check_text(method, what)
        argv = (ctypes.c_char_p * max(1, len(args)))(*[_check_text(a, what) for a in args])
        err = _err()
        check(_lib.lib().sn_engine_call(self._world._engine(), self.name.encode(), m, len(args),
                                        argv, ctypes.byref(err)), err)

    def listen_to_gbuffer(self, gbuffer_id, callback: Callable) -> None:
        """CARLA's: callback(image) for each frame's G-buffer texture `gbuffer_id`
        (carla.GBufferTextureID), made from sensim's renderer (gbuffer.py, docs/python.md)."""
        from . import gbuffer
        gbuffer.listen(self, gbuffer_id, callback)

    def stop_gbuffer(self, gbuffer_id) -> None:
        from . import gbuffer
        gbuffer.stop(self, gbuffer_id)

    def is_listening_gbuffer(self, gbuffer_id) -> bool:
        from . import gbuffer
        return gbuffer.is_listening(self, gbuffer_id)

    def send(self, data: str) -> None:
        """CARLA's custom V2X send(data)."""
        self.call("send", data)


class ActorList(list):
    """CARLA's carla.ActorList: a list with filter and find."""

    def filter(self, wildcard_pattern: str) -> "ActorList":
        return ActorList(a for a in self if fnmatch.fnmatchcase(a.type_id, wildcard_pattern))

    def find(self, actor_id: int) -> "Actor | None":
        return next((a for a in self if a.id == actor_id), None)
