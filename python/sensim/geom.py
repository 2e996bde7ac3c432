"""CARLA's value classes: Vector3D, Location, Rotation, Transform, BoundingBox, VehicleControl,
WalkerControl. Axes are CARLA's (x forward, y right, z up); angles in degrees; yaw turns +x
toward +y, pitch raises +x toward +z, roll lowers +y toward -z (sensim/math.h has the matrix).
"""
from __future__ import annotations

import math

from . import _lib

__all__ = ["Vector3D", "Location", "Rotation", "Transform", "BoundingBox", "VehicleControl",
           "WalkerControl", "Vector2D", "GeoLocation", "VehicleAckermannControl"]


class Vector3D:
    """A vector in metres (or m/s, m/s^2); arithmetic as CARLA's."""
    __slots__ = ("x", "y", "z")

    def __init__(self, x=0.0, y: float = 0.0, z: float = 0.0):
        if isinstance(x, Vector3D):  # CARLA's Location(vector3d), Vector3D(location)
            x, y, z = x.x, x.y, x.z
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

    def __ne__(self, o) -> bool:
        return not self.__eq__(o)

    __hash__ = None  # mutable, as CARLA's

    def __mul__(self, k):
        if isinstance(k, Vector3D):  # component-wise, as CARLA's
            return type(self)(self.x * k.x, self.y * k.y, self.z * k.z)
        return type(self)(self.x * k, self.y * k, self.z * k)

    __rmul__ = __mul__

    def __truediv__(self, k):
        if isinstance(k, Vector3D):
            return type(self)(self.x / k.x, self.y / k.y, self.z / k.z)
        return type(self)(self.x / k, self.y / k, self.z / k)

    def __neg__(self):
        return type(self)(-self.x, -self.y, -self.z)

    def __abs__(self):
        return type(self)(abs(self.x), abs(self.y), abs(self.z))

    def get_vector_angle(self, o) -> float:
        """The angle to another vector, radians (CARLA's)."""
        n = self.length() * o.length()
        return math.acos(max(-1.0, min(1.0, self.dot(o) / n))) if n > 0 else 0.0

    def dot_2d(self, o) -> float:
        return self.x * o.x + self.y * o.y

    def length_2d(self) -> float:
        return math.hypot(self.x, self.y)

    def squared_length_2d(self) -> float:
        return self.x * self.x + self.y * self.y

    def distance_squared(self, o) -> float:
        return (self - o).squared_length()

    def distance_squared_2d(self, o) -> float:
        return (self.x - o.x) ** 2 + (self.y - o.y) ** 2

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
    """CARLA's carla.Vector2D with its operators."""
    __slots__ = ("x", "y")

    def __init__(self, x: float = 0.0, y: float = 0.0):
        self.x, self.y = float(x), float(y)

    def __repr__(self) -> str:
        return f"Vector2D(x={self.x:.6f}, y={self.y:.6f})"

    def __eq__(self, o) -> bool:
        return isinstance(o, Vector2D) and (self.x, self.y) == (o.x, o.y)

    def __ne__(self, o) -> bool:
        return not self.__eq__(o)

    __hash__ = None

    def __add__(self, o):
        return Vector2D(self.x + o.x, self.y + o.y)

    def __sub__(self, o):
        return Vector2D(self.x - o.x, self.y - o.y)

    def __mul__(self, k):
        return Vector2D(self.x * k.x, self.y * k.y) if isinstance(k, Vector2D) else Vector2D(self.x * k, self.y * k)

    __rmul__ = __mul__

    def __truediv__(self, k):
        return Vector2D(self.x / k.x, self.y / k.y) if isinstance(k, Vector2D) else Vector2D(self.x / k, self.y / k)

    def __abs__(self):
        return Vector2D(abs(self.x), abs(self.y))

    def length(self) -> float:
        return math.hypot(self.x, self.y)

    def squared_length(self) -> float:
        return self.x * self.x + self.y * self.y

    def make_unit_vector(self) -> "Vector2D":
        n = self.length()
        return Vector2D(self.x / n, self.y / n) if n > 0 else Vector2D()

    def dot(self, o) -> float:
        return self.x * o.x + self.y * o.y

    def distance(self, o) -> float:
        return math.hypot(self.x - o.x, self.y - o.y)

    def distance_squared(self, o) -> float:
        return (self.x - o.x) ** 2 + (self.y - o.y) ** 2

    def get_vector_angle(self, o) -> float:
        n = self.length() * o.length()
        return math.acos(max(-1.0, min(1.0, self.dot(o) / n))) if n > 0 else 0.0


class GeoLocation:
    """CARLA's carla.GeoLocation: latitude, longitude (degrees), altitude (m)."""
    __slots__ = ("latitude", "longitude", "altitude")

    def __init__(self, latitude: float = 0.0, longitude: float = 0.0, altitude: float = 0.0):
        self.latitude, self.longitude, self.altitude = float(latitude), float(longitude), float(altitude)

    def __eq__(self, o) -> bool:
        return isinstance(o, GeoLocation) and (self.latitude, self.longitude, self.altitude) == \
            (o.latitude, o.longitude, o.altitude)

    def __repr__(self) -> str:
        return f"GeoLocation(latitude={self.latitude:.6f}, longitude={self.longitude:.6f}, altitude={self.altitude:.6f})"


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

    def get_inverse_matrix(self) -> list[list[float]]:
        """The 4x4 matrix from the world into this pose's frame (get_matrix's inverse)."""
        m = _matrix(self.rotation)
        loc = (self.location.x, self.location.y, self.location.z)
        rt = [[m[c][r] for c in range(3)] for r in range(3)]
        t = [-sum(rt[r][k] * loc[k] for k in range(3)) for r in range(3)]
        return [rt[r] + [t[r]] for r in range(3)] + [[0.0, 0.0, 0.0, 1.0]]

    def transform_vector(self, v: Vector3D) -> Vector3D:
        """A direction of this frame in the world (rotation only; CARLA's)."""
        m = _matrix(self.rotation)
        return Vector3D(*(m[k][0] * v.x + m[k][1] * v.y + m[k][2] * v.z for k in range(3)))

    def inverse_transform_vector(self, v: Vector3D) -> Vector3D:
        m = _matrix(self.rotation)
        return Vector3D(*(m[0][c] * v.x + m[1][c] * v.y + m[2][c] * v.z for c in range(3)))

    def __ne__(self, o) -> bool:
        return not self.__eq__(o)

    def _c(self) -> _lib.Xform:
        return _lib.Xform(self.location._c(), self.rotation._c())

    @classmethod
    def _from(cls, t: _lib.Xform):
        return cls(Location._from(t.location), Rotation._from(t.rotation))

    @classmethod
    def _from_msg(cls, t: dict):
        return cls(Location(*t["location"]), Rotation(*t["rotation"]))


class BoundingBox:
    """CARLA's carla.BoundingBox: centre (`location`, in the actor's frame for an actor's box),
    half `extent`, `rotation` of the box in that frame."""
    __slots__ = ("location", "extent", "rotation")

    def __init__(self, location: Location | None = None, extent: Vector3D | None = None,
                 rotation: Rotation | None = None):
        self.location = Location(location) if location is not None else Location()
        self.extent = Vector3D(extent) if extent is not None else Vector3D()
        self.rotation = rotation if rotation is not None else Rotation()

    def __repr__(self) -> str:
        return f"BoundingBox({self.location!r}, {self.extent!r})"

    def __eq__(self, o) -> bool:
        return isinstance(o, BoundingBox) and self.location == o.location and self.extent == o.extent \
            and self.rotation == o.rotation

    def __ne__(self, o) -> bool:
        return not self.__eq__(o)

    def _corners(self):
        e = self.extent
        return [Vector3D(sx * e.x, sy * e.y, sz * e.z) for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)]

    def get_local_vertices(self) -> list[Location]:
        """The eight corners in the box's parent frame (CARLA's order: x, then y, then z, - before +)."""
        box = Transform(self.location, self.rotation)
        return [box.transform(c) for c in self._corners()]

    def get_world_vertices(self, transform: "Transform") -> list[Location]:
        """The eight corners in the world, for an actor at `transform`."""
        return [transform.transform(v) for v in self.get_local_vertices()]

    def contains(self, world_point: Vector3D, transform: "Transform") -> bool:
        """Whether a world point is inside the box of an actor at `transform`."""
        local = Transform(self.location, self.rotation).inverse_transform(transform.inverse_transform(world_point))
        e = self.extent
        return abs(local.x) <= e.x and abs(local.y) <= e.y and abs(local.z) <= e.z


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


class VehicleAckermannControl:
    """CARLA's carla.VehicleAckermannControl: steer (front wheel angle, rad), steer_speed (rad/s),
    speed (m/s), acceleration (m/s^2), jerk (m/s^3). sensim turns it into a VehicleControl each
    tick by CARLA's Ackermann controller's intent (Vehicle.apply_ackermann_control)."""
    __slots__ = ("steer", "steer_speed", "speed", "acceleration", "jerk")

    def __init__(self, steer: float = 0.0, steer_speed: float = 0.0, speed: float = 0.0,
                 acceleration: float = 0.0, jerk: float = 0.0):
        self.steer, self.steer_speed, self.speed = float(steer), float(steer_speed), float(speed)
        self.acceleration, self.jerk = float(acceleration), float(jerk)

    def __eq__(self, o) -> bool:
        return isinstance(o, VehicleAckermannControl) and all(getattr(self, k) == getattr(o, k) for k in self.__slots__)

    def __repr__(self) -> str:
        return (f"VehicleAckermannControl(steer={self.steer}, steer_speed={self.steer_speed}, speed={self.speed}, "
                f"acceleration={self.acceleration}, jerk={self.jerk})")


class WalkerControl:
    """CARLA's carla.WalkerControl: walk along `direction` (horizontal part) at `speed` m/s."""
    __slots__ = ("direction", "speed", "jump")

    def __init__(self, direction: Vector3D | None = None, speed: float = 0.0, jump: bool = False):
        self.direction = direction if direction is not None else Vector3D(1, 0, 0)
        self.speed, self.jump = float(speed), bool(jump)

    def _c(self) -> _lib.WalkControl:
        return _lib.WalkControl(self.direction._c(), self.speed)
