"""CARLA's traffic classes: TrafficManager, TrafficLight, TrafficLightState, TrafficSign, Landmark, and
the traffic calls of Vehicle, World and Client (sensim.h's sn_engine_tm_* and traffic-light calls).

    tm = client.get_trafficmanager(8000)
    tm.global_percentage_speed_difference(30)       # every vehicle of port 8000, now and later
    car.set_autopilot(True, tm.get_port())
    tm.vehicle_percentage_speed_difference(car, 50)  # this one: half its lane's limit
    tm.force_lane_change(car, True)                  # True: to the right (CARLA's)
    light = car.get_traffic_light()                  # the light whose trigger volume it is in, or None
    if light and light.state == carla.TrafficLightState.Red: ...

There is no server: a Traffic Manager is the engine's settings named by a port (docs/traffic.md).
"""
from __future__ import annotations

import ctypes
import enum
import math
from typing import TYPE_CHECKING, Iterable

from . import _lib
from ._common import CarlaEnum, _check_seed, _err, _log
from ._lib import SensimError, check
from .actor import Actor
from .geom import BoundingBox, Location, Rotation, Transform, Vector3D

if TYPE_CHECKING:
    from .actor import Vehicle
    from .map import Waypoint

__all__ = ["TrafficManager", "TrafficLight", "TrafficLightState", "TrafficSign", "Landmark", "LandmarkType"]

# sensim.h's sn_tm_param
(_DISTANCE, _PERCENTAGE, _DESIRED, _IGN_LIGHTS, _IGN_SIGNS, _IGN_VEHICLES, _IGN_WALKERS, _AUTO_LC, _LC_LEFT,
 _LC_RIGHT, _KEEP_RIGHT, _UPDATE_LIGHTS, _SYNC, _HYBRID, _HYBRID_RADIUS, _RESPAWN, _OSM) = range(17)
_TURNS = {"straight": 0, "left": 1, "right": 2}


class TrafficLightState(CarlaEnum, enum.IntEnum):
    """CARLA's carla.TrafficLightState, the same values."""
    Red = 0
    Yellow = 1
    Green = 2
    Off = 3
    Unknown = 4

    def __str__(self) -> str:  # CARLA prints the name
        return self.name


class LandmarkType:
    """CARLA's carla.LandmarkType: OpenDRIVE signal type codes (the ones CARLA names)."""
    Danger = "101"
    LanesMerging = "121"
    CautionPedestrian = "133"
    CautionBicycle = "138"
    LevelCrossing = "150"
    StopSign = "206"
    YieldSign = "205"
    MandatoryTurnDirection = "209"
    MandatoryLeftRightDirection = "211"
    TwoChoiceTurnDirection = "214"
    Roundabout = "215"
    PassRightLeft = "222"
    AccessForbidden = "250"
    AccessForbiddenMotorvehicles = "251"
    AccessForbiddenTrucks = "253"
    AccessForbiddenBicycle = "254"
    AccessForbiddenWeight = "263"
    AccessForbiddenWidth = "264"
    AccessForbiddenHeight = "265"
    AccessForbiddenWrongDirection = "267"
    ForbiddenUTurn = "272"
    MaximumSpeed = "274"
    ForbiddenOvertakingMotorvehicles = "276"
    ForbiddenOvertakingTrucks = "277"
    AbsoluteNoStop = "283"
    RestrictedStop = "286"
    HasWayNextIntersection = "301"
    PriorityWay = "306"
    PriorityWayEnd = "307"
    CityBegin = "310"
    CityEnd = "311"
    Highway = "330"
    DeadEnd = "357"
    RecomendedSpeed = "380"
    RecomendedSpeedEnd = "381"
    LightPost = "1000001"


class Landmark:
    """CARLA's carla.Landmark, as far as sensim knows a signal: id (the OpenDRIVE signal id, a
    string), road_id, type ('1000001' for a traffic light), name. world.get_traffic_light takes it
    (or anything with such an `id`)."""

    def __init__(self, id: str, road_id: int = -1, type: str = LandmarkType.LightPost, name: str = ""):
        self.id, self.road_id, self.type, self.name = str(id), int(road_id), str(type), name

    def __repr__(self) -> str:
        return f"Landmark(id={self.id}, road_id={self.road_id}, type={self.type})"


def _L():
    L = _lib.lib()
    if not hasattr(L, "sn_engine_tm_set"):
        raise SensimError(f"{_lib.library_path()} has no Traffic Manager (an older libsensim)", -6)
    return L


# ---- traffic lights ----

class _TriggerVolume(ctypes.Structure):
    """sensim.h's sn_trigger_volume (a world-frame box)."""
    _fields_ = [("location", _lib.Vec3), ("extent", _lib.Vec3), ("rotation", _lib.Rot)]


class TrafficSign(Actor):
    """CARLA's carla.TrafficSign: an actor with a trigger_volume."""

    @property
    def trigger_volume(self) -> BoundingBox:
        return BoundingBox(Location(), Vector3D())


class TrafficLight(TrafficSign):
    """CARLA's carla.TrafficLight over sensim.h's sn_engine_traffic_light_* (docs/traffic.md): one
    controller of its junction's group at a time runs green, yellow, red; the others are red."""

    def _li(self) -> _lib.TrafficLightInfo:
        i, err = _lib.TrafficLightInfo(struct_size=ctypes.sizeof(_lib.TrafficLightInfo)), _err()
        check(_lib.lib().sn_engine_traffic_light_info(self._world._engine(), self.id, ctypes.byref(i),
                                                     ctypes.byref(err)), err)
        return i

    @property
    def state(self) -> TrafficLightState:
        return self.get_state()

    def get_state(self) -> TrafficLightState:
        s, err = ctypes.c_int(), _err()
        check(_lib.lib().sn_engine_traffic_light_get_state(self._world._engine(), self.id, ctypes.byref(s),
                                                          ctypes.byref(err)), err)
        return TrafficLightState(s.value)

    def set_state(self, state) -> None:
        """Shows `state` now; its group's cycle overrides it at the next stage unless frozen."""
        self._call("sn_engine_traffic_light_set_state", int(state))

    def freeze(self, freeze: bool) -> None:
        """Stops (or restarts) the cycle of its whole group, as CARLA's."""
        self._call("sn_engine_traffic_light_freeze", bool(freeze))

    def is_frozen(self) -> bool:
        return bool(self._li().frozen)

    def get_green_time(self) -> float:
        return self._li().green_time

    def get_yellow_time(self) -> float:
        return self._li().yellow_time

    def get_red_time(self) -> float:
        return self._li().red_time

    def _times(self, green=None, yellow=None, red=None) -> None:
        i = self._li()
        self._call("sn_engine_traffic_light_set_times", float(i.green_time if green is None else green),
                   float(i.yellow_time if yellow is None else yellow), float(i.red_time if red is None else red))

    def set_green_time(self, green_time: float) -> None:
        self._times(green=green_time)

    def set_yellow_time(self, yellow_time: float) -> None:
        self._times(yellow=yellow_time)

    def set_red_time(self, red_time: float) -> None:
        self._times(red=red_time)

    def get_elapsed_time(self) -> float:
        """Seconds its group has been in the current stage."""
        return self._li().elapsed_time

    def get_pole_index(self) -> int:
        return int(self._li().pole_index)

    def get_opendrive_id(self) -> str:
        return str(self._li().opendrive_id)

    def get_group_traffic_lights(self) -> list["TrafficLight"]:
        L, e, err = _lib.lib(), self._world._engine(), _err()
        n = ctypes.c_size_t()
        check(L.sn_engine_traffic_light_group(e, self.id, None, 0, ctypes.byref(n), ctypes.byref(err)), err)
        buf = (ctypes.c_uint32 * max(1, n.value))()
        check(L.sn_engine_traffic_light_group(e, self.id, buf, n.value, ctypes.byref(n), ctypes.byref(err)), err)
        return [a for a in (self._world._wrap(buf[i]) for i in range(n.value)) if a is not None]

    def reset_group(self) -> None:
        self._call("sn_engine_traffic_light_reset_group")

    def get_stop_waypoints(self) -> list["Waypoint"]:
        """Where the traffic it controls stops: one waypoint per lane, on its stop line."""
        from .map import Waypoint
        m = self._world.get_map()
        L, e, err, n = _lib.lib(), self._world._engine(), _err(), ctypes.c_size_t()
        check(L.sn_engine_traffic_light_stops(e, self.id, None, 0, ctypes.byref(n), ctypes.byref(err)), err)
        buf = (_lib.WaypointC * max(1, n.value))()
        check(L.sn_engine_traffic_light_stops(e, self.id, buf, n.value, ctypes.byref(n), ctypes.byref(err)), err)
        return [Waypoint(m, _lib.WaypointC.from_buffer_copy(buf[i])) for i in range(n.value)]

    def get_affected_lane_waypoints(self) -> list["Waypoint"]:
        """The lanes it governs, one waypoint each (until the engine's own list lands: its stop
        waypoints, which lie on those lanes)."""
        L = _lib.lib()
        if hasattr(L, "sn_engine_traffic_light_affected_lanes"):
            return self._waypoints("sn_engine_traffic_light_affected_lanes")
        return self.get_stop_waypoints()

    def _waypoints(self, fn: str) -> list["Waypoint"]:
        from .map import Waypoint
        m = self._world.get_map()
        L, e, err, n = _lib.lib(), self._world._engine(), _err(), ctypes.c_size_t()
        f = getattr(L, fn)
        f.restype = ctypes.c_int
        f.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.POINTER(_lib.WaypointC), ctypes.c_size_t,
                      ctypes.POINTER(ctypes.c_size_t), ctypes.POINTER(_lib.Error)]
        check(f(e, self.id, None, 0, ctypes.byref(n), ctypes.byref(err)), err)
        buf = (_lib.WaypointC * max(1, n.value))()
        check(f(e, self.id, buf, n.value, ctypes.byref(n), ctypes.byref(err)), err)
        return [Waypoint(m, _lib.WaypointC.from_buffer_copy(buf[i])) for i in range(n.value)]

    @property
    def trigger_volume(self) -> BoundingBox:
        """CARLA's: a box in the light's own frame where vehicles are at the light: the engine's
        first trigger volume (sn_engine_traffic_light_trigger_volumes), else CARLA's box for its
        first stop line, 1.5 to 4.5 m before it (TrafficLightComponent.cpp), 1 m high."""
        L = _lib.lib()
        if hasattr(L, "sn_engine_traffic_light_trigger_volumes"):
            f = L.sn_engine_traffic_light_trigger_volumes
            f.restype = ctypes.c_int
            f.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.POINTER(_TriggerVolume), ctypes.c_size_t,
                          ctypes.POINTER(ctypes.c_size_t), ctypes.POINTER(_lib.Error)]
            box, n, err = _TriggerVolume(), ctypes.c_size_t(), _err()
            check(f(self._world._engine(), self.id, ctypes.byref(box), 1, ctypes.byref(n), ctypes.byref(err)), err)
            if n.value == 0:
                return BoundingBox(Location(), Vector3D())
            t = self.get_transform()
            out = BoundingBox(t.inverse_transform(Location._from(box.location)), Vector3D._from(box.extent))
            out.rotation = Rotation(box.rotation.pitch - t.rotation.pitch, box.rotation.yaw - t.rotation.yaw,
                                    box.rotation.roll - t.rotation.roll)
            return out
        stops = self.get_stop_waypoints()
        if not stops:
            return BoundingBox(Location(), Vector3D())
        w = stops[0]
        f = w.transform.get_forward_vector()
        centre = w.transform.location - f * 3.0
        local = self.get_transform().inverse_transform(centre)
        box = BoundingBox(Location(local.x, local.y, local.z), Vector3D(1.5, 0.45 * w.lane_width, 1.0))
        box.rotation = Rotation(0, w.transform.rotation.yaw - self.get_transform().rotation.yaw, 0)
        return box

    def get_light_boxes(self) -> list[BoundingBox]:
        """The head's box (sensim draws one head per light)."""
        return [self.bounding_box]


def actor_class(type_id: str):
    """The class of a traffic actor by its blueprint id."""
    return TrafficLight if type_id.startswith("traffic.traffic_light") else TrafficSign


# ---- the Traffic Manager ----

class TrafficManager:
    """CARLA's carla.TrafficManager on port `port`, for the client's current world. Settings are
    refused with SensimError when absurd (NaN, a negative distance, a percentage outside
    [0, 100] or [-100, 100]); calls with no meaning in process are accepted (docs/traffic.md)."""

    def __init__(self, client, port: int = 8000):
        port = int(port)
        if not 1024 <= port <= 65535:
            raise SensimError(f"get_trafficmanager: port {port} is outside 1024..65535 (CARLA's 8000)", -2)
        self._client, self._port = client, port
        self._warned: set[str] = set()
        self._respawn_bounds = (100.0, 1000.0)

    def __repr__(self) -> str:
        return f"TrafficManager(port={self._port})"

    def get_port(self) -> int:
        return self._port

    def _e(self) -> int:
        return self._client.get_world()._engine()

    def _set(self, actor, param: int, value) -> None:
        v = float(value)
        err = _err()
        vid = 0 if actor is None else int(getattr(actor, "id", actor))
        check(_L().sn_engine_tm_set(self._e(), self._port, vid, param, v, ctypes.byref(err)), err)

    def _get(self, actor, param: int) -> float:
        v, err = ctypes.c_double(), _err()
        vid = 0 if actor is None else int(getattr(actor, "id", actor))
        check(_L().sn_engine_tm_get(self._e(), self._port, vid, param, ctypes.byref(v), ctypes.byref(err)), err)
        return v.value

    def _noop(self, call: str, why: str) -> None:
        if call not in self._warned:
            self._warned.add(call)
            _log.info("TrafficManager.%s: accepted; %s (docs/traffic.md)", call, why)

    # -- per vehicle
    def distance_to_leading_vehicle(self, actor, distance: float) -> None:
        self._set(actor, _DISTANCE, distance)

    def vehicle_percentage_speed_difference(self, actor, percentage: float) -> None:
        """% below the lane's limit (negative: faster); replaces a desired speed."""
        self._set(actor, _PERCENTAGE, percentage)

    def set_desired_speed(self, actor, speed: float) -> None:
        """km/h, as CARLA's; replaces the vehicle's percentage."""
        self._set(actor, _DESIRED, speed)

    def ignore_lights_percentage(self, actor, perc: float) -> None:
        self._set(actor, _IGN_LIGHTS, perc)

    def ignore_signs_percentage(self, actor, perc: float) -> None:
        self._set(actor, _IGN_SIGNS, perc)

    def ignore_vehicles_percentage(self, actor, perc: float) -> None:
        self._set(actor, _IGN_VEHICLES, perc)

    def ignore_walkers_percentage(self, actor, perc: float) -> None:
        self._set(actor, _IGN_WALKERS, perc)

    def auto_lane_change(self, actor, enable: bool) -> None:
        self._set(actor, _AUTO_LC, bool(enable))

    def force_lane_change(self, actor, direction: bool) -> None:
        """One lane change: True to the right, False to the left (CARLA's)."""
        err = _err()
        check(_L().sn_engine_tm_force_lane_change(self._e(), int(actor.id), bool(direction), ctypes.byref(err)), err)

    def random_left_lanechange_percentage(self, actor, percentage: float) -> None:
        self._set(actor, _LC_LEFT, percentage)

    def random_right_lanechange_percentage(self, actor, percentage: float) -> None:
        self._set(actor, _LC_RIGHT, percentage)

    def keep_right_rule_percentage(self, actor, perc: float) -> None:
        self._set(actor, _KEEP_RIGHT, perc)

    def update_vehicle_lights(self, actor, do_update: bool) -> None:
        self._set(actor, _UPDATE_LIGHTS, bool(do_update))

    def set_path(self, actor, path: Iterable) -> None:
        """Locations to pass, in order: at each fork the branch leading nearest the next one."""
        pts = [p.location if isinstance(p, Transform) else p for p in path]
        arr = (_lib.Vec3 * max(1, len(pts)))(*[_lib.Vec3(float(p.x), float(p.y), float(p.z)) for p in pts])
        err = _err()
        check(_L().sn_engine_tm_set_path(self._e(), int(actor.id), arr, len(pts), ctypes.byref(err)), err)

    def set_route(self, actor, path: Iterable[str]) -> None:
        """Turns at the next junctions: 'Left', 'Right', 'Straight' (CARLA's RoadOption names)."""
        turns = []
        for s in path:
            k = str(s).lower()
            if k not in _TURNS:
                raise SensimError(f"set_route: '{s}' is none of 'Left', 'Right', 'Straight'", -2)
            turns.append(_TURNS[k])
        arr = (ctypes.c_int * max(1, len(turns)))(*turns)
        err = _err()
        check(_L().sn_engine_tm_set_route(self._e(), int(actor.id), arr, len(turns), ctypes.byref(err)), err)

    def collision_detection(self, reference_actor, other_actor, detect_collision: bool) -> None:
        self._noop("collision_detection", "the autopilot brakes for every body in its path")

    def vehicle_lane_offset(self, actor, offset: float) -> None:
        if not math.isfinite(float(offset)):
            raise SensimError("vehicle_lane_offset: the offset is not finite", -2)
        self._noop("vehicle_lane_offset", "autopilots keep to the lane's centre")

    # -- the Traffic Manager's own
    def set_global_distance_to_leading_vehicle(self, distance: float) -> None:
        self._set(None, _DISTANCE, distance)

    def global_percentage_speed_difference(self, percentage: float) -> None:
        self._set(None, _PERCENTAGE, percentage)

    def global_lane_offset(self, offset: float) -> None:
        if not math.isfinite(float(offset)):
            raise SensimError("global_lane_offset: the offset is not finite", -2)
        self._noop("global_lane_offset", "autopilots keep to the lane's centre")

    def set_synchronous_mode(self, mode: bool = True) -> None:
        """Accepted: the autopilots always run inside world.tick()."""
        self._set(None, _SYNC, bool(mode))

    def set_random_device_seed(self, value: int) -> None:
        v = _check_seed(value, "set_random_device_seed")
        err = _err()
        check(_L().sn_engine_tm_set_random_device_seed(self._e(), self._port, v, ctypes.byref(err)), err)

    def set_hybrid_physics_mode(self, enabled: bool = False) -> None:
        """CARLA's hybrid mode: this Traffic Manager's vehicles beyond the radius of every hero
        (role_name 'hero'; all of them without a hero) move along their paths without physics."""
        self._set(None, _HYBRID, bool(enabled))

    def set_hybrid_physics_radius(self, r: float = 70.0) -> None:
        self._set(None, _HYBRID_RADIUS, r)

    def set_respawn_dormant_vehicles(self, mode_switch: bool = False) -> None:
        """Accepted: no vehicle goes dormant (no large-map streaming here)."""
        self._set(None, _RESPAWN, bool(mode_switch))

    def set_boundaries_respawn_dormant_vehicles(self, lower_bound: float = 25.0, upper_bound: float = 100.0) -> None:
        lo, hi = float(lower_bound), float(upper_bound)
        if not (math.isfinite(lo) and math.isfinite(hi) and 0 <= lo <= hi):
            raise SensimError(f"set_boundaries_respawn_dormant_vehicles: [{lo}, {hi}] is no range of distances", -2)
        self._respawn_bounds = (lo, hi)

    def set_osm_mode(self, mode_switch: bool = True) -> None:
        self._set(None, _OSM, bool(mode_switch))

    def get_next_action(self, actor):
        """CARLA's: the next road option and its waypoint; here ('LaneFollow', the waypoint ahead)."""
        m = self._client.get_world().get_map()
        wp = m.get_waypoint(actor.get_location())
        ahead = wp.next(2.0) if wp is not None else []
        return ["LaneFollow", ahead[0] if ahead else wp]

    def get_all_actions(self, actor):
        return [self.get_next_action(actor)]

    def shut_down(self) -> None:
        """Its vehicles stop driving (their last control held); its settings are forgotten."""
        err = _err()
        w = self._client._world
        if w is None or w._e is None:
            return
        check(_L().sn_engine_tm_shut_down(w._e, self._port, ctypes.byref(err)), err)


# ---- what Vehicle, World and Client call ----

def set_autopilot(vehicle: "Vehicle", enabled: bool, port: int, target_speed: float, distance: float,
                  percentage: float, ignore_lights: float) -> None:
    port = int(port)
    if enabled and not 1024 <= port <= 65535:
        raise SensimError(f"set_autopilot: tm_port {port} is outside 1024..65535 (CARLA's 8000)", -2)
    o = _lib.AutopilotOptions(ctypes.sizeof(_lib.AutopilotOptions), target_speed, distance, percentage,
                              ignore_lights, port if enabled else 0)
    vehicle._call("sn_engine_set_autopilot", bool(enabled), ctypes.byref(o))


def vehicle_traffic_light(vehicle: "Vehicle") -> "TrafficLight | None":
    light, err = ctypes.c_uint32(), _err()
    check(_L().sn_engine_vehicle_traffic_light(vehicle._world._engine(), vehicle.id, ctypes.byref(light),
                                               ctypes.byref(err)), err)
    return vehicle._world._wrap(light.value) if light.value else None


class WorldTraffic:
    """World's traffic-light calls (CARLA's carla.World), mixed into sensim.World."""

    def get_traffic_lights(self) -> list[TrafficLight]:
        """Every traffic light, in ascending id (sensim's; CARLA: get_actors().filter('traffic.traffic_light'))."""
        L, e = _lib.lib(), self._engine()
        ids = [L.sn_engine_traffic_light_at(e, i) for i in range(L.sn_engine_traffic_light_count(e))]
        return [a for a in (self._wrap(i) for i in ids) if a is not None]

    def get_traffic_light(self, landmark) -> "TrafficLight | None":
        """The light of a landmark (its OpenDRIVE signal id), None when it has none."""
        want = str(getattr(landmark, "id", landmark))
        for t in self.get_traffic_lights():
            if t.get_opendrive_id() == want:
                return t
        return None

    def get_traffic_lights_in_junction(self, junction_id: int) -> list[TrafficLight]:
        return [t for t in self.get_traffic_lights() if t._li().junction_id == int(junction_id)]

    def get_traffic_lights_from_waypoint(self, waypoint: "Waypoint", distance: float) -> list[TrafficLight]:
        """The lights whose stop lines lie ahead of the waypoint within `distance` m, every branch, nearest first."""
        L, e, err, n = _L(), self._engine(), _err(), ctypes.c_size_t()
        c = waypoint._c
        check(L.sn_engine_traffic_lights_from_waypoint(e, ctypes.byref(c), float(distance), None, 0, ctypes.byref(n),
                                                       ctypes.byref(err)), err)
        buf = (ctypes.c_uint32 * max(1, n.value))()
        check(L.sn_engine_traffic_lights_from_waypoint(e, ctypes.byref(c), float(distance), buf, n.value,
                                                       ctypes.byref(n), ctypes.byref(err)), err)
        return [a for a in (self._wrap(buf[i]) for i in range(n.value)) if a is not None]

    def freeze_all_traffic_lights(self, frozen: bool) -> None:
        err = _err()
        check(_lib.lib().sn_engine_traffic_light_freeze(self._engine(), 0, bool(frozen), ctypes.byref(err)), err)

    def reset_all_traffic_lights(self) -> None:
        """Every group from the start of its cycle (CARLA's)."""
        done = set()
        for t in self.get_traffic_lights():
            g = min(x.id for x in t.get_group_traffic_lights()) if t.get_group_traffic_lights() else t.id
            if g not in done:
                done.add(g)
                t.reset_group()
