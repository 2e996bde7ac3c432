"""CARLA's value classes: Vector3D, Location, Rotation, Transform, BoundingBox, VehicleControl,
WalkerControl. Axes are CARLA's (x forward, y right, z up); angles in degrees; yaw turns +x
toward +y, pitch raises +x toward +z, roll lowers +y toward -z (sensim/math.h has the matrix).
"""
from __future__ import annotations

import math

from . import _lib

__all__ = ["Vector3D", "Location", "Rotation", "Transform", "BoundingBox", "VehicleControl",
           "WalkerControl", "Vector2D"]


class Vector3D:
    """A vector in metres (or m/s, m/s^2); arithmetic as CARLA's."""
    __slots__ = ("x", "y", "z")

    def __init__(self, x: float = 0.0, y: float = 0.0, z: float = 0.0):
        self.x, self.y, self.z = float(x), float(y), float(z)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(x={self.x:.6f}, y={self.y:.6f}, z={self.z:.6f})"

    def __eq__(self, o) -> bool:
        return isinstance(o, Vector3D) and (self.x, self.y, self.z) == (o.x, o.y, o.z)

    def __iter__(self):
        return iter((self.x, self.y, self.z))

    def __add__(self, o):
        return type(self)(self.x + o.x, self.y + o.y, self.z + o.z)

    def __sub__(self, o):
        return type(self)(self.x - o.x, self.y - o.y, self.z - o.z)

    def __mul__(self, k: float):
        return type(self)(self.x * k, self.y * k, self.z * k)

    __rmul__ = __mul__

    def __truediv__(self, k: float):
        return type(self)(self.x / k, self.y / k, self.z / k)

    def length(self) -> float:
        return math.sqrt(self.x * self.x + self.y * self.y + self.z * self.z)

    def squared_length(self) -> float:
        return self.x * self.x + self.y * self.y + self.z * self.z

    def make_unit_vector(self) -> "Vector3D":
        n = self.length()
        return type(self)(self.x / n, self.y / n, self.z / n) if n > 0 else type(self)()

    def dot(self, o) -> float:
        return self.x * o.x + self.y * o.y + self.z * o.z

    def cross(self, o) -> "Vector3D":
        return Vector3D(self.y * o.z - self.z * o.y, self.z * o.x - self.x * o.z, self.x * o.y - self.y * o.x)

    def distance(self, o) -> float:
        return (self - o).length()

    def distance_2d(self, o) -> float:
        return math.hypot(self.x - o.x, self.y - o.y)

    def _c(self) -> _lib.Vec3:
        return _lib.Vec3(self.x, self.y, self.z)

    @classmethod
    def _from(cls, v: _lib.Vec3):
        return cls(v.x, v.y, v.z)


class Location(Vector3D):
    """A point in metres, world frame unless said otherwise."""
    __slots__ = ()


class Vector2D:
    __slots__ = ("x", "y")

    def __init__(self, x: float = 0.0, y: float = 0.0):
        self.x, self.y = float(x), float(y)

    def __repr__(self) -> str:
        return f"Vector2D(x={self.x:.6f}, y={self.y:.6f})"


def _matrix(r: "Rotation"):
    """UE's rotation matrix of CARLA angles (sensim/math.h): columns forward, right, up."""
    cp, sp = math.cos(math.radians(r.pitch)), math.sin(math.radians(r.pitch))
    cy, sy = math.cos(math.radians(r.yaw)), math.sin(math.radians(r.yaw))
    cr, sr = math.cos(math.radians(r.roll)), math.sin(math.radians(r.roll))
    return ((cp * cy, sr * sp * cy - cr * sy, -(cr * sp * cy + sr * sy)),
            (cp * sy, sr * sp * sy + cr * cy, cy * sr - cr * sp * sy),
            (sp, -sr * cp, cr * cp))


class Rotation:
    """Pitch, yaw, roll in degrees. Note CARLA's constructor order: Rotation(pitch, yaw, roll)."""
    __slots__ = ("pitch", "yaw", "roll")

    def __init__(self, pitch: float = 0.0, yaw: float = 0.0, roll: float = 0.0):
        self.pitch, self.yaw, self.roll = float(pitch), float(yaw), float(roll)

    def __repr__(self) -> str:
        return f"Rotation(pitch={self.pitch:.6f}, yaw={self.yaw:.6f}, roll={self.roll:.6f})"

    def __eq__(self, o) -> bool:
        return isinstance(o, Rotation) and (self.pitch, self.yaw, self.roll) == (o.pitch, o.yaw, o.roll)

    def get_forward_vector(self) -> Vector3D:
        m = _matrix(self)
        return Vector3D(m[0][0], m[1][0], m[2][0])

    def get_right_vector(self) -> Vector3D:
        m = _matrix(self)
        return Vector3D(m[0][1], m[1][1], m[2][1])

    def get_up_vector(self) -> Vector3D:
        m = _matrix(self)
        return Vector3D(m[0][2], m[1][2], m[2][2])

    def _c(self) -> _lib.Rot:
        return _lib.Rot(self.pitch, self.yaw, self.roll)

    @classmethod
    def _from(cls, r: _lib.Rot):
        return cls(r.pitch, r.yaw, r.roll)


class Transform:
    """A pose: location and rotation (CARLA's carla.Transform)."""
    __slots__ = ("location", "rotation")

    def __init__(self, location: Location | None = None, rotation: Rotation | None = None):
        self.location = location if location is not None else Location()
        self.rotation = rotation if rotation is not None else Rotation()

    def __repr__(self) -> str:
        return f"Transform({self.location!r}, {self.rotation!r})"

    def __eq__(self, o) -> bool:
        return isinstance(o, Transform) and self.location == o.location and self.rotation == o.rotation

    def transform(self, point: Vector3D) -> Location:
        """A point of this frame in the world (CARLA's Transform.transform)."""
        m = _matrix(self.rotation)
        p = point
        return Location(*(m[k][0] * p.x + m[k][1] * p.y + m[k][2] * p.z + c
                          for k, c in enumerate((self.location.x, self.location.y, self.location.z))))

    def inverse_transform(self, point: Vector3D) -> Location:
        m = _matrix(self.rotation)
        d = (point.x - self.location.x, point.y - self.location.y, point.z - self.location.z)
        return Location(*(m[0][c] * d[0] + m[1][c] * d[1] + m[2][c] * d[2] for c in range(3)))

    def get_forward_vector(self) -> Vector3D:
        return self.rotation.get_forward_vector()

    def get_right_vector(self) -> Vector3D:
        return self.rotation.get_right_vector()

    def get_up_vector(self) -> Vector3D:
        return self.rotation.get_up_vector()

    def get_matrix(self) -> list[list[float]]:
        """The 4x4 homogeneous matrix of this pose."""
        m = _matrix(self.rotation)
        loc = (self.location.x, self.location.y, self.location.z)
        return [list(m[r]) + [loc[r]] for r in range(3)] + [[0.0, 0.0, 0.0, 1.0]]

    def _c(self) -> _lib.Xform:
        return _lib.Xform(self.location._c(), self.rotation._c())

    @classmethod
    def _from(cls, t: _lib.Xform):
        return cls(Location._from(t.location), Rotation._from(t.rotation))

    @classmethod
    def _from_msg(cls, t: dict):
        return cls(Location(*t["location"]), Rotation(*t["rotation"]))


class BoundingBox:
    """Centre offset from the actor's origin (actor frame) and half extents."""
    __slots__ = ("location", "extent", "rotation")

    def __init__(self, location: Location | None = None, extent: Vector3D | None = None):
        self.location = location if location is not None else Location()
        self.extent = extent if extent is not None else Vector3D()
        self.rotation = Rotation()

    def __repr__(self) -> str:
        return f"BoundingBox({self.location!r}, {self.extent!r})"


class VehicleControl:
    """CARLA's carla.VehicleControl: throttle 0..1, steer -1..1 (positive turns right), brake 0..1."""
    __slots__ = ("throttle", "steer", "brake", "hand_brake", "reverse", "manual_gear_shift", "gear")

    def __init__(self, throttle: float = 0.0, steer: float = 0.0, brake: float = 0.0, hand_brake: bool = False,
                 reverse: bool = False, manual_gear_shift: bool = False, gear: int = 0):
        self.throttle, self.steer, self.brake = float(throttle), float(steer), float(brake)
        self.hand_brake, self.reverse = bool(hand_brake), bool(reverse)
        # Accepted for CARLA scripts; sensim's vehicle model has no gearbox.
        self.manual_gear_shift, self.gear = bool(manual_gear_shift), int(gear)

    def __repr__(self) -> str:
        return (f"VehicleControl(throttle={self.throttle:.6f}, steer={self.steer:.6f}, brake={self.brake:.6f}, "
                f"hand_brake={self.hand_brake}, reverse={self.reverse})")

    def __eq__(self, o) -> bool:
        return isinstance(o, VehicleControl) and all(getattr(self, k) == getattr(o, k) for k in
                                                     ("throttle", "steer", "brake", "hand_brake", "reverse"))

    def _c(self) -> _lib.VehControl:
        return _lib.VehControl(self.throttle, self.steer, self.brake, self.hand_brake, self.reverse)


class WalkerControl:
    """CARLA's carla.WalkerControl: walk along `direction` (horizontal part) at `speed` m/s."""
    __slots__ = ("direction", "speed", "jump")

    def __init__(self, direction: Vector3D | None = None, speed: float = 0.0, jump: bool = False):
        self.direction = direction if direction is not None else Vector3D(1, 0, 0)
        self.speed, self.jump = float(speed), bool(jump)

    def _c(self) -> _lib.WalkControl:
        return _lib.WalkControl(self.direction._c(), self.speed)
