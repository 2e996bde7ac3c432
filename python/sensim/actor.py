"""CARLA's actors: Actor, Vehicle, Walker, Sensor, ActorList and the vehicle's enums (module `actor`: the
package's `sensim.actors` is the reader of actor streams)."""
from __future__ import annotations

import ctypes
import enum
import fnmatch
from typing import TYPE_CHECKING, Callable

from . import _lib
from ._common import _err
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
        check(getattr(_lib.lib(), fn)(self._world._engine(), self.id, *args, ctypes.byref(err)), err)

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

    def destroy(self) -> bool:
        """Destroys the actor and everything attached to it; False if it was already gone."""
        if not self.is_alive:
            return False
        self._call("sn_engine_destroy_actor")
        self._world._actors.pop(self.id, None)
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


class VehicleLightState(enum.IntFlag):
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


class VehicleWheelLocation(enum.IntEnum):
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
        self._call("sn_engine_apply_control", ctypes.byref(control._c()))

    def get_control(self) -> VehicleControl:
        c = self._info().control
        return VehicleControl(c.throttle, c.steer, c.brake, c.hand_brake, c.reverse)

    def set_autopilot(self, enabled: bool = True, tm_port: int = 8000, *, target_speed: float = -1.0,
                      distance_to_leading_vehicle: float = float("nan"),
                      vehicle_percentage_speed_difference: float = float("nan"),
                      ignore_lights_percentage: float = float("nan")) -> None:
        """CARLA's set_autopilot: on a map, follow the lanes through junctions on a seeded random
        route, keep a gap, stop at red lights; off, keep the last control. tm_port is accepted for
        CARLA scripts and ignored (the traffic manager is in-process). The keyword knobs are
        the Traffic Manager's per-vehicle settings (NaN: its default); target_speed < 0 drives
        at the lane's limit."""
        del tm_port
        o = _lib.AutopilotOptions(ctypes.sizeof(_lib.AutopilotOptions), target_speed, distance_to_leading_vehicle,
                                  vehicle_percentage_speed_difference, ignore_lights_percentage)
        self._call("sn_engine_set_autopilot", bool(enabled), ctypes.byref(o))

    def get_speed_limit(self) -> float:
        """CARLA's get_speed_limit (km/h): the last speed-limit sign the vehicle passed, else its
        lane's or road's <speed> record, else 30 (docs/traffic.md "Speed limits")."""
        kmh = ctypes.c_double(0.0)
        self._call("sn_engine_vehicle_speed_limit", ctypes.byref(kmh))
        return kmh.value


class Walker(Actor):
    """CARLA's carla.Walker."""

    def apply_control(self, control: WalkerControl) -> None:
        self._call("sn_engine_apply_walker_control", ctypes.byref(control._c()))


class Sensor(Actor):
    """CARLA's carla.Sensor: listen(callback) gets one data object per measurement, during
    world.tick(), on the thread that ticks. Pixel and event arrays are views on the engine's
    buffer, valid only during the callback: copy what you keep (np.array(image.raw_data))."""

    @property
    def is_listening(self) -> bool:
        lst = self._world._listeners.get(self.name)
        return lst is not None and lst.callback is not None

    def listen(self, callback: Callable) -> None:
        if not self.is_alive:
            raise SensimError(f"listen: sensor {self.id} is not alive", -7)
        self._world._listen(self.name, callback)

    def stop(self) -> None:
        self._world._unlisten(self.name)

    def call(self, method: str, *args: str) -> None:
        """Calls a sensor method by name (sensim's; e.g. a custom V2X sensor's "send")."""
        argv = (ctypes.c_char_p * max(1, len(args)))(*[str(a).encode() for a in args])
        err = _err()
        check(_lib.lib().sn_engine_call(self._world._engine(), self.name.encode(), method.encode(), len(args),
                                        argv, ctypes.byref(err)), err)

    def send(self, data: str) -> None:
        """CARLA's custom V2X send(data)."""
        self.call("send", data)


class ActorList(list):
    """CARLA's carla.ActorList: a list with filter and find."""

    def filter(self, wildcard_pattern: str) -> "ActorList":
        return ActorList(a for a in self if fnmatch.fnmatchcase(a.type_id, wildcard_pattern))

    def find(self, actor_id: int) -> "Actor | None":
        return next((a for a in self if a.id == actor_id), None)
