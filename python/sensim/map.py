"""CARLA's carla.Map and carla.Waypoint over sensim/map.h (an OpenDRIVE file as lanes).

    m = world.get_map()                       # the scene's map, or sensim.Map.open("maps/town.xodr")
    wp = m.get_waypoint(car.get_location(), project_to_road=True, lane_type=sensim.LaneType.Driving)
    ahead = wp.next(2.0)                      # one waypoint per branch through junctions
"""
from __future__ import annotations

import ctypes
import enum
import os

from . import _lib
from ._common import CarlaEnum
from ._lib import SensimError, check
from .geom import BoundingBox, GeoLocation, Location, Transform, Vector3D

__all__ = ["Map", "Waypoint", "Junction", "LaneType", "LaneMarkingType", "LaneMarkingColor", "LaneChange", "LaneMarking"]


class LaneType(CarlaEnum, enum.IntFlag):
    """CARLA's carla.LaneType: the same bit values, so masks combine with |."""
    NONE = 1 << 0
    Driving = 1 << 1
    Stop = 1 << 2
    Shoulder = 1 << 3
    Biking = 1 << 4
    Sidewalk = 1 << 5
    Border = 1 << 6
    Restricted = 1 << 7
    Parking = 1 << 8
    Bidirectional = 1 << 9
    Median = 1 << 10
    Special1 = 1 << 11
    Special2 = 1 << 12
    Special3 = 1 << 13
    RoadWorks = 1 << 14
    Tram = 1 << 15
    Rail = 1 << 16
    Entry = 1 << 17
    Exit = 1 << 18
    OffRamp = 1 << 19
    OnRamp = 1 << 20
    Any = 0xFFFFFFFE


class LaneMarkingType(CarlaEnum, enum.IntEnum):
    Other = 0
    Broken = 1
    Solid = 2
    SolidSolid = 3
    SolidBroken = 4
    BrokenSolid = 5
    BrokenBroken = 6
    BottsDots = 7
    Grass = 8
    Curb = 9
    NONE = 10


class LaneMarkingColor(CarlaEnum, enum.IntEnum):
    Standard = 0
    White = 0
    Blue = 1
    Green = 2
    Red = 3
    Yellow = 4
    Other = 5


class LaneChange(CarlaEnum, enum.IntEnum):
    NONE = 0
    Right = 1
    Left = 2
    Both = 3


class LaneMarking:
    """CARLA's carla.LaneMarking: type, color, lane_change, width (m)."""
    __slots__ = ("type", "color", "lane_change", "width")

    def __init__(self, c: _lib.LaneMarkingC):
        self.type = LaneMarkingType(c.type)
        self.color = LaneMarkingColor(c.color)
        self.lane_change = LaneChange(c.lane_change)
        self.width = c.width

    def __repr__(self) -> str:
        return f"LaneMarking(type={self.type.name}, color={self.color.name}, width={self.width:.3f})"


def _err() -> _lib.Error:
    return _lib.Error()


class Waypoint:
    """CARLA's carla.Waypoint: a point on a lane's centre, with the lane's description."""

    def __init__(self, m: "Map", c: _lib.WaypointC):
        self._map, self._c = m, c
        self.id: int = c.id
        self.road_id: int = c.road_id
        self.section_id: int = c.section_id
        self.lane_id: int = c.lane_id
        self.s: float = c.s
        self.transform = Transform._from(c.transform)
        self.lane_width: float = c.lane_width
        self.lane_type = LaneType(c.lane_type)
        self.junction_id: int = c.junction_id
        self.is_junction: bool = c.is_junction
        self.is_intersection = self.is_junction
        self.lane_change = LaneChange(c.lane_change)
        self.left_lane_marking = LaneMarking(c.left_marking)
        self.right_lane_marking = LaneMarking(c.right_marking)

    def __repr__(self) -> str:
        return (f"Waypoint(road_id={self.road_id}, section_id={self.section_id}, lane_id={self.lane_id}, "
                f"s={self.s:.3f}, {self.transform!r})")

    def __eq__(self, o) -> bool:
        return isinstance(o, Waypoint) and o.id == self.id

    def __hash__(self) -> int:
        return hash(self.id)

    def _walk(self, fn: str, distance: float) -> list["Waypoint"]:
        return self._map._many(fn, ctypes.byref(self._c), float(distance))

    def next(self, distance: float) -> list["Waypoint"]:
        """The waypoints `distance` m ahead along the lane, one per branch through junctions."""
        return self._walk("sn_map_next", distance)

    def previous(self, distance: float) -> list["Waypoint"]:
        return self._walk("sn_map_previous", distance)

    def next_until_lane_end(self, distance: float) -> list["Waypoint"]:
        return self._walk("sn_map_next_until_lane_end", distance)

    def previous_until_lane_start(self, distance: float) -> list["Waypoint"]:
        """Waypoints every `distance` m back to the start of this lane on its road (CARLA's)."""
        return self._walk("sn_map_previous_until_lane_start", distance)

    def get_junction(self) -> "Junction | None":
        """CARLA's: the junction this waypoint is in, None outside junctions."""
        return Junction(self._map, self.junction_id) if self.is_junction else None

    def _side(self, fn: str) -> "Waypoint | None":
        out, err = _lib.WaypointC(), _err()
        st = getattr(_lib.lib(), fn)(self._map._handle(), ctypes.byref(self._c), ctypes.byref(out), ctypes.byref(err))
        if st == -7:  # SN_E_NOT_FOUND: no lane on that side, as CARLA's None
            return None
        check(st, err)
        return Waypoint(self._map, out)

    def get_left_lane(self) -> "Waypoint | None":
        """The lane to the left of the direction of travel (any type), None when there is none."""
        return self._side("sn_map_left_lane")

    def get_right_lane(self) -> "Waypoint | None":
        return self._side("sn_map_right_lane")


class Junction:
    """CARLA's carla.Junction: id, bounding_box (axis-aligned around its lanes) and
    get_waypoints(lane_type), each of its connecting roads' lanes as a (start, end) pair of
    waypoints along the lane's direction of travel."""

    def __init__(self, m: "Map", id: int):
        self._map, self.id = m, int(id)
        box, n, err = _lib.BBox(), ctypes.c_size_t(), _err()
        check(_lib.lib().sn_map_junction(m._handle(), self.id, int(LaneType.Any), ctypes.byref(box), None, 0,
                                         ctypes.byref(n), ctypes.byref(err)), err)
        self.bounding_box = BoundingBox(Location._from(box.location), Vector3D._from(box.extent))

    def __repr__(self) -> str:
        return f"Junction(id={self.id})"

    def get_waypoints(self, lane_type: "LaneType | int") -> list[tuple[Waypoint, Waypoint]]:
        wps = self._map._many("sn_map_junction", self.id, int(lane_type), ctypes.byref(_lib.BBox()))
        return [(wps[i], wps[i + 1]) for i in range(0, len(wps) - 1, 2)]


class Map:
    """CARLA's carla.Map. world.get_map() gives the scene's (owned by the engine: valid while
    its World lives); Map.open(path) or Map(name, xodr_text) open one of your own."""

    def __init__(self, name: str, xodr_content: str | None = None):
        if xodr_content is None:  # Map("path.xodr")
            self._init_open(name)
            return
        data = xodr_content.encode()
        err = _err()
        L = _lib.lib()
        L.sn_map_open_memory.restype = ctypes.c_void_p
        L.sn_map_open_memory.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.POINTER(_lib.Error)]
        h = L.sn_map_open_memory(data, len(data), name.encode(), ctypes.byref(err))
        if not h:
            check(err.status or -1, err)
        self._h, self._owner, self._owned = h, None, True

    def _init_open(self, path: str) -> None:
        err = _err()
        h = _lib.lib().sn_map_open(_lib.cstr(os.fspath(path)), ctypes.byref(err))
        if not h:
            check(err.status or -5, err)
        self._h, self._owner, self._owned = h, None, True

    @classmethod
    def open(cls, path: str) -> "Map":
        """An OpenDRIVE file of your own (closed when the Map is collected)."""
        m = cls.__new__(cls)
        m._init_open(path)
        return m

    @classmethod
    def _borrowed(cls, h: int, world) -> "Map":
        m = cls.__new__(cls)
        m._h, m._owner, m._owned = h, world, False
        m._gen = world._gen
        return m

    def __del__(self):
        if getattr(self, "_owned", False) and self._h:
            _lib.lib().sn_map_close(self._h)
            self._h = None

    def _handle(self) -> int:
        if self._owner is not None and (self._owner._e is None or self._owner._gen != self._gen):
            raise SensimError("this map's world was closed or reset: call world.get_map() again", -4)
        return self._h

    def _info(self) -> _lib.MapInfo:
        info, err = _lib.MapInfo(struct_size=ctypes.sizeof(_lib.MapInfo)), _err()
        check(_lib.lib().sn_map_info_get(self._handle(), ctypes.byref(info), ctypes.byref(err)), err)
        return info

    @property
    def name(self) -> str:
        return self._info().name.decode()

    def __repr__(self) -> str:
        return f"Map(name={self.name})"

    def _many(self, fn: str, *args) -> list[Waypoint]:
        """Calls a map query that fills a caller's array, growing it when it was too small."""
        cap = 64
        while True:
            buf, n, err = (_lib.WaypointC * cap)(), ctypes.c_size_t(), _err()
            check(getattr(_lib.lib(), fn)(self._handle(), *args, buf, cap, ctypes.byref(n), ctypes.byref(err)), err)
            if n.value <= cap:
                return [Waypoint(self, _lib.WaypointC.from_buffer_copy(buf[i])) for i in range(n.value)]
            cap = n.value

    def transform_to_geolocation(self, location: Location) -> GeoLocation:
        """CARLA's: a world location as latitude, longitude, altitude, as the GNSS sensor reads it:
        through the world's geo-reference (the scene's settings.georeference, else the map's
        header) for world.get_map(), the map header's for a map of one's own."""
        L = _lib.lib()
        self._handle()  # refuses a map whose world is gone
        if self._owner is not None:
            ref = L.sn_engine_georeference(self._owner._engine())
        else:
            info = self._info()
            ref = info.geo_reference if info.has_geo_reference else _lib.Vec3(0, 0, 0)
        g = L.sn_geolocation(ctypes.byref(ref), _lib.Vec3(location.x, location.y, location.z))
        return GeoLocation(g.x, g.y, g.z)

    def get_waypoint(self, location: Location, project_to_road: bool = True,
                     lane_type: int = LaneType.Driving) -> "Waypoint | None":
        """The waypoint on the centre of the lane that holds `location` (CARLA's); with
        project_to_road the nearest lane of `lane_type`. None when there is none (more than
        50 m from every lane, or off the road without project_to_road)."""
        out, err = _lib.WaypointC(), _err()
        st = _lib.lib().sn_map_waypoint(self._handle(), location._c(), bool(project_to_road), int(lane_type),
                                        ctypes.byref(out), ctypes.byref(err))
        if st == -7:
            return None
        check(st, err)
        return Waypoint(self, out)

    def get_waypoint_xodr(self, road_id: int, lane_id: int, s: float) -> "Waypoint | None":
        out, err = _lib.WaypointC(), _err()
        st = _lib.lib().sn_map_waypoint_xodr(self._handle(), road_id, lane_id, float(s), ctypes.byref(out),
                                             ctypes.byref(err))
        if st == -7:
            return None
        check(st, err)
        return Waypoint(self, out)

    def generate_waypoints(self, distance: float) -> list[Waypoint]:
        """Every `distance` m on every driving lane."""
        return self._many("sn_map_generate_waypoints", float(distance))

    def get_topology(self) -> list[tuple[Waypoint, Waypoint]]:
        """(start, end) of the driving lanes' segments from one junction or map edge to the next."""
        w = self._many("sn_map_topology")
        return [(w[i], w[i + 1]) for i in range(0, len(w), 2)]

    def get_spawn_points(self) -> list[Transform]:
        """On every driving lane outside junctions, every 20 m, 0.5 m above the road (docs/map.md)."""
        cap = 256
        while True:
            buf, n, err = (_lib.Xform * cap)(), ctypes.c_size_t(), _err()
            check(_lib.lib().sn_map_spawn_points(self._handle(), buf, cap, ctypes.byref(n), ctypes.byref(err)), err)
            if n.value <= cap:
                return [Transform._from(buf[i]) for i in range(n.value)]
            cap = n.value

    def to_opendrive(self) -> str:
        n = ctypes.c_size_t()
        return _lib.lib().sn_map_to_opendrive(self._handle(), ctypes.byref(n)).decode()
