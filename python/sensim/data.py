"""CARLA's sensor data classes, built from the engine's message during a listener's call.

As CARLA's, every data object owns its bytes: the message is copied once out of the engine's
buffer (one memcpy of its size) and the arrays (a camera's pixels, a lidar's points, a DVS's
events) are numpy views on that copy, so an object kept after its callback (queue.put(image))
stays valid and writable. `sensor.listen(cb, zero_copy=True)` is the opt-in that skips the copy:
its arrays are views on the engine's buffer, valid only during the callback, and reading them
through the object afterwards raises SensimError (docs/python.md, "Sensor data").
"""
from __future__ import annotations

import ctypes
import os
import struct
import zlib
from typing import Iterator

import numpy as np

from . import _lib
from ._lib import SensimError
from ._msg import unpack
from .arrays import EVENT_DTYPE
from .geom import Location, Transform, Vector3D

__all__ = ["ColorConverter", "SensorData", "Image", "CollisionEvent", "DVSEvent", "DVSEventArray",
           "V2XData", "V2XEvent", "LaneInvasionEvent", "LaneMarkingCrossing", "RssResponse", "write_png"]


class ColorConverter:
    """CARLA's carla.ColorConverter: how save_to_disk and convert turn a camera image to colours."""
    Raw = "raw"
    Depth = "depth"
    LogarithmicDepth = "logarithmic_depth"
    CityScapesPalette = "cityscapes"


# CARLA's CityScapesPalette.h, tags 0-28 (engine/data/image.c has the same; black beyond).
_PALETTE = np.array([
    (0, 0, 0), (128, 64, 128), (244, 35, 232), (70, 70, 70), (102, 102, 156), (190, 153, 153),
    (153, 153, 153), (250, 170, 30), (220, 220, 0), (107, 142, 35), (152, 251, 152), (70, 130, 180),
    (220, 20, 60), (255, 0, 0), (0, 0, 142), (0, 0, 70), (0, 60, 100), (0, 80, 100),
    (0, 0, 230), (119, 11, 32), (110, 190, 160), (170, 120, 50), (55, 90, 80), (45, 60, 150),
    (157, 234, 50), (81, 0, 81), (150, 100, 100), (230, 150, 140), (180, 165, 180)], np.uint8)


def convert_bgra(bgra: np.ndarray, converter: str) -> np.ndarray:
    """H x W x 4 BGRA to H x W x 3 RGB by a converter, with the engine's arithmetic (float32, as
    engine/data/image.c), so saved files match the scene's `save:` images pixel for pixel."""
    if converter in (None, ColorConverter.Raw):
        return np.ascontiguousarray(bgra[:, :, 2::-1])
    if converter == ColorConverter.CityScapesPalette:
        tag = bgra[:, :, 2]
        return _PALETTE[np.where(tag < len(_PALETTE), tag, 0)]
    if converter in (ColorConverter.Depth, ColorConverter.LogarithmicDepth):
        n = _depth_n(bgra)
        if converter == ColorConverter.Depth:
            g = (n * np.float32(255.0) + np.float32(0.5)).astype(np.uint8)
        else:
            v = np.float32(1.0) + _logf(n) / np.float32(5.70378)
            v = np.clip(v, np.float32(0.005), np.float32(1.0))
            g = (v * np.float32(255) + np.float32(0.5)).astype(np.uint8)
        return np.repeat(g[:, :, None], 3, axis=2)
    raise ValueError(f"unknown color converter {converter!r} (raw, depth, logarithmic_depth, cityscapes)")


def _depth_n(bgra: np.ndarray) -> np.ndarray:
    """The normalised depth of each pixel's 24-bit code, in float32 as engine/data/image.h."""
    d = bgra[:, :, 2].astype(np.uint32) + 256 * bgra[:, :, 1].astype(np.uint32) + \
        65536 * bgra[:, :, 0].astype(np.uint32)
    return d.astype(np.float32) / np.float32(16777215.0)


def _logf(n: np.ndarray) -> np.ndarray:
    """logf as C computes it, as near as numpy gets: the double logarithm rounded to float32."""
    with np.errstate(divide="ignore"):
        return np.log(n.astype(np.float64)).astype(np.float32)


def _write_file(path: str, data: bytes) -> None:
    d = os.path.dirname(path)
    if d:
        os.makedirs(d, exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


def write_png(path: str, rgb: np.ndarray) -> None:
    """An 8-bit RGB PNG with the standard library (zlib), creating folders as needed."""
    h, w, _ = rgb.shape
    rows = np.empty((h, 1 + 3 * w), np.uint8)
    rows[:, 0] = 0  # filter type None on every row
    rows[:, 1:] = rgb.reshape(h, 3 * w)

    def chunk(tag: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + tag + body + struct.pack(">I", zlib.crc32(tag + body) & 0xFFFFFFFF)

    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)) + \
        chunk(b"IDAT", zlib.compress(rows.tobytes(), 6)) + chunk(b"IEND", b"")
    _write_file(path, png)


class SensorData:
    """CARLA's carla.SensorData: frame, timestamp (simulated seconds), transform (the sensor's,
    world frame) and, sensim's, the decoded message as `data` (bins as memoryviews)."""

    def __init__(self, world, msg: dict):
        self._world = world
        self.data = msg
        self.frame: int = msg["frame"]
        self.frame_number = self.frame
        self.timestamp: float = msg["timestamp"]
        self.transform = Transform._from_msg(msg["transform"])
        self.sensor: str = msg["sensor"]
        self.type_id: str = msg["type"]
        self.sensor_id: int = msg["sensor_id"]

    def __repr__(self) -> str:
        return f"{type(self).__name__}(frame={self.frame}, timestamp={self.timestamp:.6f}, sensor={self.sensor})"

    def __getitem__(self, key: str):
        return self.data[key]

    def __getattr__(self, name: str):
        # reached only for attributes the object lacks: those expire() removed
        if self.__dict__.get("_expired"):
            raise SensimError(f"{type(self).__name__}.{name}: a zero-copy data object (listen(..., "
                              "zero_copy=True)) is valid only during its callback; listen without "
                              "zero_copy to keep data", -4)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")


class Image(SensorData):
    """CARLA's carla.Image: raw_data is width x height x 4 bytes, B G R A (CARLA's order), a
    view on the engine's buffer valid during the callback. `array` is the same as H x W x 4."""

    def __init__(self, world, msg: dict, key: str = "raw_data"):
        super().__init__(world, msg)
        self.width: int = msg["width"]
        self.height: int = msg["height"]
        self.fov: float = float(msg.get("fov", 0.0))
        self.raw_data = np.frombuffer(msg[key], np.uint8)
        if self.raw_data.size != self.width * self.height * 4:
            raise ValueError(f"{self.sensor}: raw_data holds {self.raw_data.size} bytes, not {self.width}x{self.height}x4")

    @property
    def array(self) -> np.ndarray:
        return self.raw_data.reshape(self.height, self.width, 4)

    def __len__(self) -> int:
        return self.width * self.height

    def convert(self, color_converter: str) -> np.ndarray:
        """CARLA's convert: the image's own pixels become the converter's colours, in place
        (B, G, R, A with A 255). Returns the converted image as H x W x 3 RGB (sensim's)."""
        rgb = convert_bgra(self.array, color_converter)
        if color_converter not in (None, ColorConverter.Raw):
            if not self.raw_data.flags.writeable:  # a zero-copy view: the engine's buffer stays as it is
                self.raw_data = self.raw_data.copy()
            a = self.array
            a[:, :, 0], a[:, :, 1], a[:, :, 2], a[:, :, 3] = rgb[:, :, 2], rgb[:, :, 1], rgb[:, :, 0], 255
        return rgb

    def _rgb(self, color_converter: str) -> np.ndarray:
        return convert_bgra(self.array, color_converter)

    def save_to_disk(self, path: str, color_converter: str = ColorConverter.Raw) -> str:
        """Writes the image in the format of the path's extension, as a scene's `save:` does:
        ".png" (added when the path has none), ".ppm", ".pgm" (a depth camera's depth at 16
        bits, or a segmentation camera's tags with Raw) or ".pfm" (a depth camera's metres, Raw)
        — docs/sensors/cameras.md, "Saving images". A "%d"-style pattern gets the frame.
        Returns the path written."""
        if "%" in path:
            path = path % self.frame
        ext = os.path.splitext(path)[1].lower()
        if not ext:
            path, ext = path + ".png", ".png"
        if ext == ".png":
            write_png(path, self._rgb(color_converter))
        elif ext in (".ppm", ".pgm", ".pfm"):
            _write_file(path, self._netpbm(ext, color_converter))
        else:
            raise ValueError(f"{path}: unknown image format {ext!r} (.png, .ppm, .pgm or .pfm)")
        return path

    def _netpbm(self, ext: str, converter: str) -> bytes:
        """The bytes engine/data/netpbm.c writes for this image."""
        h, w = self.height, self.width
        depth = self.type_id == "sensor.camera.depth"
        seg = self.type_id in ("sensor.camera.semantic_segmentation", "sensor.camera.instance_segmentation")
        raw = converter in (None, ColorConverter.Raw)
        if ext == ".ppm":
            return b"P6\n%d %d\n255\n" % (w, h) + self._rgb(converter).tobytes()
        if ext == ".pgm" and depth and converter != ColorConverter.CityScapesPalette:
            n = _depth_n(self.array)
            if converter == ColorConverter.LogarithmicDepth:
                n = np.clip(np.float32(1.0) + _logf(n) / np.float32(5.70378), np.float32(0.005), np.float32(1.0))
            v = (n * np.float32(65535.0) + np.float32(0.5)).astype(np.uint16)
            return b"P5\n%d %d\n65535\n" % (w, h) + v.astype(">u2").tobytes()
        if ext == ".pgm" and seg and raw:
            return b"P5\n%d %d\n255\n" % (w, h) + np.ascontiguousarray(self.array[:, :, 2]).tobytes()
        if ext == ".pfm" and depth and raw:
            metres = self.data.get("depth")
            if metres is not None and len(metres) == w * h * 4:
                m = np.frombuffer(metres, "<f4").reshape(h, w)
            else:
                m = _depth_n(self.array) * np.float32(1000.0)
            return b"Pf\n%d %d\n-1.0\n" % (w, h) + np.ascontiguousarray(m[::-1]).astype("<f4").tobytes()
        raise ValueError(f"a {ext} holds a depth camera's depth or a segmentation camera's tags "
                         f"(docs/sensors/cameras.md), not {self.type_id} with {converter}")


def _static_stand_in(world, ref: dict):
    """What CARLA gives for a hit on something that is no actor (UCarlaEpisode::SerializeActor):
    an actor with id 0 whose type_id is 'static.' and its semantic tag's name in lower case without
    a final 's' ('static.building', 'static.sidewalk'), 'static.unknown' without a tag. sensim's
    actor 0 is the map: its surfaces, kerbs and scenery (world/roads.c)."""
    from .actor import Actor
    from .debug import CityObjectLabel
    tag = int(ref.get("semantic_tag") or 0)
    try:
        name = CityObjectLabel(tag).name.lower() if tag not in (0, 22) else "unknown"  # NONE, Other
    except ValueError:
        name = "unknown"
    name = name[:-1] if name.endswith("s") else name
    info = _lib.ActorInfo(struct_size=ctypes.sizeof(_lib.ActorInfo), id=0, type_id=b"static." + name.encode(),
                          semantic_tag=tag)
    return Actor(world, info)


class CollisionEvent(SensorData):
    """CARLA's carla.CollisionEvent: actor (the sensor's parent), other_actor (None when it is
    no longer alive; `other_actor_id` and `other_type_id` say what it was; the map's surfaces,
    kerbs and scenery, actor 0, give CARLA's stand-in with id 0 and type_id 'static.*'),
    normal_impulse (N s)."""

    def __init__(self, world, msg: dict):
        super().__init__(world, msg)
        a, o = msg.get("actor") or {}, msg.get("other_actor") or {}
        self.actor = world._wrap(a["id"]) if a.get("id") else None
        self.other_actor_id: int = o.get("id", 0)
        self.other_type_id: str = o.get("type_id", "")
        self.other_actor = world._wrap(self.other_actor_id) if self.other_actor_id else _static_stand_in(world, o)
        if self.other_actor_id == 0:
            self.other_type_id = self.other_actor.type_id
        self.normal_impulse = Vector3D(*msg["normal_impulse"])
        self.location = Location(*msg["location"]) if "location" in msg else None


class DVSEvent:
    """CARLA's carla.DVSEvent: x, y (pixels), t (ns), pol (True: brighter)."""
    __slots__ = ("x", "y", "t", "pol")

    def __init__(self, x: int, y: int, t: int, pol: bool):
        self.x, self.y, self.t, self.pol = x, y, t, pol

    def __repr__(self) -> str:
        return f"Event(x={self.x}, y={self.y}, t={self.t}, pol={self.pol})"


class DVSEventArray(SensorData):
    """CARLA's carla.DVSEventArray. `events` is a numpy structured view (x, y, t ns, pol) on the
    engine's buffer, valid during the callback; to_array() and friends make new arrays."""

    def __init__(self, world, msg: dict):
        super().__init__(world, msg)
        self.width: int = msg["width"]
        self.height: int = msg["height"]
        self.fov: float = float(msg.get("fov", 0.0))
        b = msg["events"]
        if len(b) % EVENT_DTYPE.itemsize:
            raise ValueError(f"{self.sensor}: events hold {len(b)} bytes, not whole 13-byte records")
        self.events = np.frombuffer(b, EVENT_DTYPE)
        self.raw_data = np.frombuffer(b, np.uint8)

    def __len__(self) -> int:
        return len(self.events)

    def __iter__(self) -> Iterator[DVSEvent]:
        for x, y, t, p in self.events.tolist():
            yield DVSEvent(x, y, t, bool(p))

    def __getitem__(self, i):
        if isinstance(i, str):
            return self.data[i]
        x, y, t, p = self.events[i].tolist()
        return DVSEvent(x, y, t, bool(p))

    def to_array(self) -> np.ndarray:
        """N x 4 int64: x, y, t, pol (CARLA's to_array)."""
        e = self.events
        return np.stack([e["x"].astype(np.int64), e["y"].astype(np.int64), e["t"], e["pol"].astype(np.int64)], 1)

    def to_array_x(self) -> np.ndarray:
        return self.events["x"].copy()

    def to_array_y(self) -> np.ndarray:
        return self.events["y"].copy()

    def to_array_t(self) -> np.ndarray:
        return self.events["t"].copy()

    def to_array_pol(self) -> np.ndarray:
        return self.events["pol"].astype(bool)

    def to_image(self) -> np.ndarray:
        """H x W x 3 RGB: blue where the last event brightened, red where it darkened (as
        `sensim convert` draws event frames)."""
        img = np.zeros((self.height, self.width, 3), np.uint8)
        e = self.events
        img[e["y"][e["pol"] != 0], e["x"][e["pol"] != 0], 2] = 255
        img[e["y"][e["pol"] == 0], e["x"][e["pol"] == 0], 0] = 255
        return img


class V2XData:
    """One message received (CARLA's CAMData / CustomV2XData): power (dBm), and get() the
    message (a CAM as nested dicts; a custom message's header and data)."""

    def __init__(self, m: dict):
        self.power: float = m.get("power", 0.0)
        self.los: str = m.get("los", "")
        self.sender: str = m.get("sender", "")
        self._m = m

    def get(self) -> dict:
        return self._m.get("cam", self._m)

    def __repr__(self) -> str:
        return f"V2XData(sender={self.sender}, power={self.power:.2f})"


class V2XEvent(SensorData):
    """CARLA's CAMEvent / CustomV2XEvent: the messages received this frame, iterable."""

    def __init__(self, world, msg: dict):
        super().__init__(world, msg)
        self._msgs = [V2XData(m) for m in msg.get("messages", [])]

    def get_message_count(self) -> int:
        return len(self._msgs)

    def __len__(self) -> int:
        return len(self._msgs)

    def __iter__(self) -> Iterator[V2XData]:
        return iter(self._msgs)


class LaneMarkingCrossing:
    """One marking a lane invasion crossed: type, color, lane_change (CARLA's names), width."""

    def __init__(self, m: dict):
        self.type, self.color, self.lane_change = m.get("type"), m.get("color"), m.get("lane_change")
        self.width = m.get("width", 0.0)
        self.location = Location(*m["location"]) if "location" in m else None

    def __repr__(self) -> str:
        return f"LaneMarking(type={self.type}, color={self.color})"


class LaneInvasionEvent(SensorData):
    """CARLA's carla.LaneInvasionEvent: actor and crossed_lane_markings."""

    def __init__(self, world, msg: dict):
        super().__init__(world, msg)
        a = msg.get("actor") or {}
        self.actor = world._wrap(a["id"]) if isinstance(a, dict) and a.get("id") else None
        self.crossed_lane_markings = [LaneMarkingCrossing(m) for m in msg.get("crossed_lane_markings", [])]


class RssResponse(SensorData):
    """CARLA's carla.RssResponse (sensor.other.rss): the fields as plain dicts and lists
    (docs/sensors/rss.md): response_valid, proper_response, rss_state_snapshot, situation_snapshot,
    world_model, ego_dynamics_on_route; invalid_reason says why a response is not valid."""

    def __init__(self, world, msg: dict):
        super().__init__(world, msg)
        self.response_valid = bool(msg.get("response_valid", False))
        self.invalid_reason = msg.get("invalid_reason")
        self.proper_response = msg.get("proper_response")
        self.rss_state_snapshot = msg.get("rss_state_snapshot", [])
        self.situation_snapshot = msg.get("situation_snapshot", [])
        self.world_model = msg.get("world_model")
        self.ego_dynamics_on_route = msg.get("ego_dynamics_on_route")


class OpticalFlowImage(SensorData):
    """CARLA's carla.OpticalFlowImage (sensor.camera.optical_flow): raw_data is width x height
    pairs of float32 (x, y), CARLA's units (docs/sensors/optical-flow.md), as an H x W x 2 view on the
    engine's buffer valid during the callback."""

    def __init__(self, world, msg: dict):
        super().__init__(world, msg)
        self.width: int = msg["width"]
        self.height: int = msg["height"]
        self.fov: float = float(msg.get("fov", 0.0))
        self.raw_data = np.frombuffer(msg["raw_data"], "<f4").reshape(self.height, self.width, 2)

    def __len__(self) -> int:
        return self.width * self.height


class LidarDetection:
    """CARLA's carla.LidarDetection: point (sensor frame) and intensity."""
    __slots__ = ("point", "intensity")

    def __init__(self, x: float, y: float, z: float, intensity: float):
        self.point = Location(float(x), float(y), float(z))
        self.intensity = float(intensity)


class LidarMeasurement(SensorData):
    """CARLA's carla.LidarMeasurement: channels, horizontal_angle, raw_data (x, y, z, intensity
    float32 per point, sensor frame) as an N x 4 view valid during the callback,
    get_point_count(channel); iterating gives LidarDetection objects."""

    def __init__(self, world, msg: dict):
        super().__init__(world, msg)
        self.channels: int = int(msg.get("channels", 0))
        self.horizontal_angle: float = float(msg.get("horizontal_angle", 0.0))
        self._counts = list(msg.get("point_count", []))
        self.raw_data = np.frombuffer(msg["raw_data"], "<f4").reshape(-1, 4)

    def get_point_count(self, channel: int) -> int:
        return int(self._counts[channel])

    def __len__(self) -> int:
        return len(self.raw_data)

    def __iter__(self):
        return (LidarDetection(*p) for p in self.raw_data)


class SemanticLidarMeasurement(SensorData):
    """CARLA's carla.SemanticLidarMeasurement: raw_data as a structured view (x, y, z,
    cos_inc_angle, object_idx, object_tag), valid during the callback."""

    def __init__(self, world, msg: dict):
        super().__init__(world, msg)
        from .arrays import SEMANTIC_POINT_DTYPE
        self.channels: int = int(msg.get("channels", 0))
        self.horizontal_angle: float = float(msg.get("horizontal_angle", 0.0))
        self._counts = list(msg.get("point_count", []))
        self.raw_data = np.frombuffer(msg["raw_data"], SEMANTIC_POINT_DTYPE)

    def get_point_count(self, channel: int) -> int:
        return int(self._counts[channel])

    def __len__(self) -> int:
        return len(self.raw_data)


class RadarDetection:
    """CARLA's carla.RadarDetection: velocity (m/s, negative closing), azimuth, altitude (rad),
    depth (m)."""
    __slots__ = ("velocity", "azimuth", "altitude", "depth")

    def __init__(self, velocity: float, azimuth: float, altitude: float, depth: float):
        self.velocity, self.azimuth, self.altitude, self.depth = float(velocity), float(azimuth), float(altitude), float(depth)


class RadarMeasurement(SensorData):
    """CARLA's carla.RadarMeasurement: raw_data as a structured view of the detections,
    get_detection_count(); iterating gives RadarDetection objects."""

    def __init__(self, world, msg: dict):
        super().__init__(world, msg)
        from .arrays import RADAR_DTYPE
        self.raw_data = np.frombuffer(msg["raw_data"], RADAR_DTYPE)

    def get_detection_count(self) -> int:
        return len(self.raw_data)

    def __len__(self) -> int:
        return len(self.raw_data)

    def __iter__(self):
        return (RadarDetection(*d) for d in self.raw_data)


class IMUMeasurement(SensorData):
    """CARLA's carla.IMUMeasurement: accelerometer (m/s^2), gyroscope (rad/s), compass (rad,
    north 0)."""

    def __init__(self, world, msg: dict):
        super().__init__(world, msg)
        self.accelerometer = Vector3D(*msg["accelerometer"])
        self.gyroscope = Vector3D(*msg["gyroscope"])
        self.compass: float = float(msg["compass"])


class GnssMeasurement(SensorData):
    """CARLA's carla.GnssMeasurement: latitude, longitude (degrees), altitude (m)."""

    def __init__(self, world, msg: dict):
        super().__init__(world, msg)
        self.latitude: float = float(msg["latitude"])
        self.longitude: float = float(msg["longitude"])
        self.altitude: float = float(msg["altitude"])


class ObstacleDetectionEvent(SensorData):
    """CARLA's carla.ObstacleDetectionEvent: actor, other_actor (None when gone; the map's
    surfaces and scenery, actor 0, give CARLA's stand-in with id 0 and type_id 'static.*'),
    distance (m)."""

    def __init__(self, world, msg: dict):
        super().__init__(world, msg)
        a, o = msg.get("actor") or {}, msg.get("other_actor") or {}
        self.actor = world._wrap(a["id"]) if isinstance(a, dict) and a.get("id") else None
        self.other_actor = world._wrap(o["id"]) if isinstance(o, dict) and o.get("id") else \
            _static_stand_in(world, o) if isinstance(o, dict) and o.get("id") == 0 else None
        self.distance: float = float(msg["distance"])


def _sensor_data(world, m: _lib.Message, zero_copy: bool = False) -> SensorData:
    """The data object for one listener message: on its own copy of the message (a bytearray,
    so views on it are writable), or, zero_copy, on the engine's buffer (expire() it after the
    callback)."""
    if zero_copy:
        buf = memoryview((ctypes.c_ubyte * m.size).from_address(m.data)).cast("B")
        where = m.data
    else:
        own = bytearray(m.size)
        cbuf = (ctypes.c_ubyte * m.size).from_buffer(own)
        ctypes.memmove(cbuf, m.data, m.size)
        where = ctypes.addressof(cbuf)
        del cbuf  # the bytearray stays resizable-locked only by the views below
        buf = memoryview(own)
    msg = unpack(buf)
    d = _make(world, msg)
    d._buffer = (where, m.size)  # where the views point (the tests check they do)
    return d


class _Expired:
    """What a zero-copy data object's arrays read after its callback: an error, never the
    engine's reused (or freed) buffer."""


def expire(d: SensorData) -> None:
    """Cuts a zero-copy data object from the engine's buffer once its callback returned: each
    attribute that views the buffer is removed, and reading it raises (SensorData.__getattr__)."""
    for k, v in list(vars(d).items()):
        if isinstance(v, (np.ndarray, memoryview, dict, list)) and k != "_buffer":
            delattr(d, k)
    d._expired = True


def _make(world, msg: dict) -> SensorData:
    t = msg.get("type", "")
    if t == "sensor.camera.optical_flow":
        return OpticalFlowImage(world, msg)
    if t == "sensor.lidar.ray_cast":
        return LidarMeasurement(world, msg)
    if t == "sensor.lidar.ray_cast_semantic":
        return SemanticLidarMeasurement(world, msg)
    if t == "sensor.other.radar":
        return RadarMeasurement(world, msg)
    if t == "sensor.other.imu":
        return IMUMeasurement(world, msg)
    if t == "sensor.other.gnss":
        return GnssMeasurement(world, msg)
    if t == "sensor.other.obstacle":
        return ObstacleDetectionEvent(world, msg)
    if "raw_data" in msg and "width" in msg and t.startswith("sensor.camera"):
        return Image(world, msg)
    if t.startswith("sensor.camera.dvs"):
        return DVSEventArray(world, msg)
    if t == "sensor.other.collision":
        return CollisionEvent(world, msg)
    if t.startswith("sensor.other.v2x"):
        return V2XEvent(world, msg)
    if t == "sensor.other.lane_invasion":
        return LaneInvasionEvent(world, msg)
    if t == "sensor.other.rss":
        return RssResponse(world, msg)
    d = SensorData(world, msg)
    # a sensor of its own that declares its records (SDK 1.6): each such bin as a numpy
    # structured array in d.records (views on the message's bytes, as the bins are)
    dtypes = world._record_dtypes(t) if world is not None and hasattr(world, "_record_dtypes") else {}
    d.records = {k: np.frombuffer(msg[k], dt) for k, dt in dtypes.items()
                 if k in msg and isinstance(msg[k], (bytes, bytearray, memoryview)) and len(msg[k]) % dt.itemsize == 0}
    return d
