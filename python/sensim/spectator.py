"""CARLA's spectator (world.get_spectator()): an actor without a body whose transform a script
sets and reads back, and which sensors may be attached to (they follow it). There is no window:
nothing renders the spectator's view but a camera attached to it, and world.debug's shapes are
drawn for it into the --mcap output (debug.py)."""
from __future__ import annotations

import math

from .geom import BoundingBox, Location, Rotation, Transform, Vector3D, _matrix

__all__ = ["Spectator", "SPECTATOR_ID", "compose"]

# Above every engine actor id, below the AI walker controllers' (walkers.CONTROLLER_ID_BASE).
SPECTATOR_ID = (1 << 30) - 1


def _copy(t: Transform) -> Transform:
    return Transform(Location(t.location.x, t.location.y, t.location.z),
                     Rotation(t.rotation.pitch, t.rotation.yaw, t.rotation.roll))


def compose(parent: Transform, child: Transform) -> Transform:
    """The world pose of `child`, given relative to `parent` (CARLA's attachment rule)."""
    a, b = _matrix(parent.rotation), _matrix(child.rotation)
    m = [[sum(a[r][k] * b[k][c] for k in range(3)) for c in range(3)] for r in range(3)]
    loc = parent.transform(child.location)
    pitch = math.degrees(math.asin(max(-1.0, min(1.0, m[2][0]))))
    yaw = math.degrees(math.atan2(m[1][0], m[0][0]))
    roll = math.degrees(math.atan2(-m[2][1], m[2][2]))
    return Transform(loc, Rotation(pitch, yaw, roll))


class Spectator:
    """CARLA's spectator actor: type_id 'spectator', a fixed id, a transform that round-trips
    (get_transform returns a copy of what set_transform was given), zero velocities, no box.
    Sensors spawned with attach_to=spectator stand at spectator pose x mount and move with
    every set_transform / set_location."""

    type_id = "spectator"
    attributes: dict = {}
    semantic_tags: list = []
    parent = None
    is_active = True
    actor_state = 1  # CARLA's ActorState.Active

    def __init__(self, world):
        self._world = world
        self.id = SPECTATOR_ID
        self._t = Transform()
        self._attached: list = []  # (sensor, mount)
        self.bounding_box = BoundingBox()

    def __repr__(self) -> str:
        return f"Actor(id={self.id}, type=spectator)"

    @property
    def is_alive(self) -> bool:
        return self._world._e is not None

    def get_world(self):
        return self._world

    def get_transform(self) -> Transform:
        return _copy(self._t)

    def get_location(self) -> Location:
        return self.get_transform().location

    def set_transform(self, transform: Transform) -> None:
        t = transform
        if not all(math.isfinite(v) for v in (t.location.x, t.location.y, t.location.z, t.rotation.pitch,
                                              t.rotation.yaw, t.rotation.roll)):
            raise ValueError("spectator.set_transform: the transform must be finite")
        self._t = _copy(t)
        self._move_attached()

    def set_location(self, location: Location) -> None:
        self.set_transform(Transform(location, self._t.rotation))

    def get_velocity(self) -> Vector3D:
        return Vector3D()

    get_angular_velocity = get_acceleration = get_velocity

    def set_target_velocity(self, velocity) -> None:
        """Accepted: the spectator has no body (it moves by set_transform)."""

    set_target_angular_velocity = set_simulate_physics = set_enable_gravity = set_target_velocity

    def destroy(self) -> bool:
        """CARLA's spectator cannot be destroyed: False."""
        return False

    def _attach(self, sensor, mount: Transform) -> None:
        self._attached.append((sensor, _copy(mount)))

    def _move_attached(self) -> None:
        live = []
        for s, mount in self._attached:
            if s.is_alive:
                s.set_transform(compose(self._t, mount))
                live.append((s, mount))
        self._attached = live
