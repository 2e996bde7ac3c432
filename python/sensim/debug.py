"""CARLA's world.debug (carla.DebugHelper) and carla.Color, and the names CARLA scripts use that
sensim accepts without an effect (carla.MapLayer)."""
from __future__ import annotations

import enum

from ._common import CarlaEnum

__all__ = ["Color", "DebugHelper", "MapLayer", "CityObjectLabel", "LabelledPoint"]


class Color:
    """CARLA's carla.Color (0-255 channels)."""
    __slots__ = ("r", "g", "b", "a")

    def __init__(self, r: int = 0, g: int = 0, b: int = 0, a: int = 255):
        self.r, self.g, self.b, self.a = int(r), int(g), int(b), int(a)

    def __eq__(self, o) -> bool:
        return isinstance(o, Color) and (self.r, self.g, self.b, self.a) == (o.r, o.g, o.b, o.a)

    def __repr__(self) -> str:
        return f"Color({self.r}, {self.g}, {self.b}, {self.a})"


class MapLayer(CarlaEnum, enum.IntFlag):
    """CARLA's carla.MapLayer: accepted by load_world and load/unload_map_layer; sensim's map
    layers are not separable (a load or unload changes nothing, docs/python.md)."""
    NONE = 0
    Buildings = 0x1
    Decals = 0x1 << 1
    Foliage = 0x1 << 2
    Ground = 0x1 << 3
    ParkedVehicles = 0x1 << 4
    Particles = 0x1 << 5
    Props = 0x1 << 6
    StreetLights = 0x1 << 7
    Walls = 0x1 << 8
    All = 0xFFFF


class CityObjectLabel(CarlaEnum, enum.IntEnum):
    """CARLA 0.9.15's semantic tags (the values of sensim's tag table)."""
    NONE = 0
    Roads = 1
    Sidewalks = 2
    Buildings = 3
    Walls = 4
    Fences = 5
    Poles = 6
    TrafficLight = 7
    TrafficSigns = 8
    Vegetation = 9
    Terrain = 10
    Sky = 11
    Pedestrians = 12
    Rider = 13
    Car = 14
    Truck = 15
    Bus = 16
    Train = 17
    Motorcycle = 18
    Bicycle = 19
    Static = 20
    Dynamic = 21
    Other = 22
    Water = 23
    RoadLines = 24
    Ground = 25
    Bridge = 26
    RailTrack = 27
    GuardRail = 28
    Any = 0xFF


class LabelledPoint:
    """CARLA's carla.LabelledPoint: a location and its semantic label."""

    def __init__(self, location, label: int = 0):
        self.location, self.label = location, label


def _num(v) -> str:
    return repr(float(v))


def _xyz(v) -> list:
    return [_num(v.x), _num(v.y), _num(v.z)]


def _rgba(c) -> list:
    c = c if c is not None else Color(255, 0, 0)
    return [str(int(c.r)), str(int(c.g)), str(int(c.b)), str(int(c.a))]


_TEXT_MAX = 1024  # bytes a string may have (sensor.other.debug's limit); longer ones are cut


class DebugHelper:
    """CARLA's world.debug: draw_point/line/arrow/box/string (and draw_hud_*). There is no window
    to draw in: each call is kept in `shapes` (kind, arguments, the frame it was drawn at,
    life_time) for the script or a test to read, and, when the world has a debug stream
    (sensor.other.debug: world.record_mcap() adds one, a scene may have one), drawn into it on
    the next frame: the MCAP file shows it on /debug as Foxglove scene entities with their
    lifetimes, a run's report on its top view (docs/python.md, docs/mcap.md)."""

    def __init__(self, world):
        self._world = world
        self.shapes: list[dict] = []

    def _add(self, kind: str, life_time: float, args: list, **kw) -> None:
        try:
            frame = self._world._clock().frame
        except Exception:
            frame = 0
        self.shapes.append({"kind": kind, "frame": frame, "life_time": float(life_time), **kw})
        if len(self.shapes) > 100000:  # a script drawing every frame forever: keep the newest
            del self.shapes[:50000]
        name = getattr(self._world, "_debug_name", None)
        if name is None or getattr(self._world, "_e", None) is None:
            return
        import ctypes
        from . import _lib
        from ._common import _err
        argv = [a.encode() for a in args]
        arr = (ctypes.c_char_p * len(argv))(*argv)
        err = _err()
        st = _lib.lib().sn_engine_call(self._world._engine(), name.encode(), f"draw_{kind}".encode(),
                                       len(argv), arr, ctypes.byref(err))
        if st == -7:  # the script destroyed the debug sensor (with every sensor, say): shapes are kept only
            self._world._debug_name = None
            return
        _lib.check(st, err)

    def draw_point(self, location, size: float = 0.1, color: Color = Color(255, 0, 0), life_time: float = -1.0,
                   persistent_lines: bool = True) -> None:
        self._add("point", life_time, _xyz(location) + [_num(size)] + _rgba(color) + [_num(life_time)],
                  location=location, size=size, color=color)

    def draw_line(self, begin, end, thickness: float = 0.1, color: Color = Color(255, 0, 0),
                  life_time: float = -1.0, persistent_lines: bool = True) -> None:
        self._add("line", life_time, _xyz(begin) + _xyz(end) + [_num(thickness)] + _rgba(color) + [_num(life_time)],
                  begin=begin, end=end, thickness=thickness, color=color)

    def draw_arrow(self, begin, end, thickness: float = 0.1, arrow_size: float = 0.1,
                   color: Color = Color(255, 0, 0), life_time: float = -1.0, persistent_lines: bool = True) -> None:
        self._add("arrow", life_time, _xyz(begin) + _xyz(end) + [_num(thickness), _num(arrow_size)] + _rgba(color)
                  + [_num(life_time)], begin=begin, end=end, thickness=thickness, arrow_size=arrow_size, color=color)

    def draw_box(self, box, rotation, thickness: float = 0.1, color: Color = Color(255, 0, 0),
                 life_time: float = -1.0, persistent_lines: bool = True) -> None:
        """CARLA's: a wireframe of `box` (its location the centre in the world, its extent the
        half sizes) turned by `rotation` (box.rotation is not used, as in CARLA)."""
        r = rotation
        self._add("box", life_time, _xyz(box.location) + _xyz(box.extent) + [_num(r.pitch), _num(r.yaw), _num(r.roll)]
                  + [_num(thickness)] + _rgba(color) + [_num(life_time)],
                  box=box, rotation=rotation, thickness=thickness, color=color)

    def draw_string(self, location, text: str, draw_shadow: bool = False, color: Color = Color(255, 0, 0),
                    life_time: float = -1.0, persistent_lines: bool = True) -> None:
        t = str(text).replace("\0", "").encode()[:_TEXT_MAX].decode("utf-8", "ignore")
        self._add("string", life_time, _xyz(location) + [t] + _rgba(color) + [_num(life_time)],
                  location=location, text=str(text), color=color)

    def draw_hud_point(self, location, size: float = 0.1, color: Color = Color(255, 0, 0),
                       life_time: float = -1.0, persistent_lines: bool = True) -> None:
        self.draw_point(location, size, color, life_time)

    def draw_hud_line(self, begin, end, thickness: float = 0.1, color: Color = Color(255, 0, 0),
                      life_time: float = -1.0, persistent_lines: bool = True) -> None:
        self.draw_line(begin, end, thickness, color, life_time)

    def draw_hud_arrow(self, begin, end, thickness: float = 0.1, arrow_size: float = 0.1,
                       color: Color = Color(255, 0, 0), life_time: float = -1.0, persistent_lines: bool = True) -> None:
        self.draw_arrow(begin, end, thickness, arrow_size, color, life_time)

    def draw_hud_box(self, box, rotation, thickness: float = 0.1, color: Color = Color(255, 0, 0),
                     life_time: float = -1.0, persistent_lines: bool = True) -> None:
        self.draw_box(box, rotation, thickness, color, life_time)
