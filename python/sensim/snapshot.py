"""CARLA's carla.WorldSettings, carla.Timestamp, carla.WorldSnapshot and carla.ActorSnapshot."""
from __future__ import annotations

import ctypes
import time
from typing import Iterator

from . import _lib
from .geom import Transform, Vector3D

__all__ = ["WorldSettings", "Timestamp", "WorldSnapshot", "ActorSnapshot"]


class WorldSettings:
    """CARLA's carla.WorldSettings. What each field means here (docs/python.md, "Settings"):
    synchronous_mode (True: world.tick() steps; False: the world steps itself on its own thread
    at wall-clock pace), fixed_delta_seconds (the step; None keeps the current one, as sensim has
    no variable step), max_substep_delta_time and max_substeps (physics substeps; a longer step is
    run with more substeps, up to SN_LIMIT_SUBSTEPS). no_rendering_mode, substepping,
    deterministic_ragdolls, tile_stream_distance, actor_active_distance, spectator_as_ego are
    kept and have no effect (sensim renders only for cameras and always substeps)."""

    def __init__(self, synchronous_mode: bool = True, no_rendering_mode: bool = False,
                 fixed_delta_seconds: float | None = None, substepping: bool = True,
                 max_substep_delta_time: float = 0.01, max_substeps: int = 10,
                 max_culling_distance: float = 0.0, deterministic_ragdolls: bool = False,
                 tile_stream_distance: float = 3000.0, actor_active_distance: float = 2000.0,
                 spectator_as_ego: bool = True):
        self.synchronous_mode = synchronous_mode
        self.no_rendering_mode = no_rendering_mode
        self.fixed_delta_seconds = fixed_delta_seconds
        self.substepping = substepping
        self.max_substep_delta_time = max_substep_delta_time
        self.max_substeps = max_substeps
        self.max_culling_distance = max_culling_distance
        self.deterministic_ragdolls = deterministic_ragdolls
        self.tile_stream_distance = tile_stream_distance
        self.actor_active_distance = actor_active_distance
        self.spectator_as_ego = spectator_as_ego

    def _copy(self) -> "WorldSettings":
        s = WorldSettings()
        s.__dict__.update(self.__dict__)
        return s

    def __eq__(self, o) -> bool:
        return isinstance(o, WorldSettings) and vars(o) == vars(self)

    def __repr__(self) -> str:
        return (f"WorldSettings(synchronous_mode={self.synchronous_mode}, "
                f"fixed_delta_seconds={self.fixed_delta_seconds})")


class Timestamp:
    """CARLA's carla.Timestamp: frame (frame_count), elapsed_seconds and delta_seconds
    (simulated), platform_timestamp (the wall clock, time.time(), when the frame was read)."""

    def __init__(self, frame: int, elapsed_seconds: float, delta_seconds: float,
                 platform_timestamp: float | None = None):
        self.frame, self.frame_count = frame, frame
        self.elapsed_seconds, self.delta_seconds = elapsed_seconds, delta_seconds
        self.platform_timestamp = time.time() if platform_timestamp is None else platform_timestamp

    def __eq__(self, o) -> bool:
        return isinstance(o, Timestamp) and (o.frame, o.elapsed_seconds) == (self.frame, self.elapsed_seconds)

    def __repr__(self) -> str:
        return f"Timestamp(frame={self.frame}, elapsed_seconds={self.elapsed_seconds:.6f})"


class ActorSnapshot:
    """CARLA's carla.ActorSnapshot: an actor's state at the snapshot's frame."""

    def __init__(self, info: _lib.ActorInfo):
        self.id = int(info.id)
        self._t = Transform._from(info.transform)
        self._v = Vector3D._from(info.velocity)
        self._w = Vector3D._from(info.angular_velocity)
        self._a = Vector3D._from(info.acceleration)

    @classmethod
    def _of(cls, actor_id: int, transform: Transform) -> "ActorSnapshot":
        """An actor without an engine body (CARLA's spectator): its pose, no motion."""
        a = cls.__new__(cls)
        a.id, a._t = int(actor_id), transform
        a._v, a._w, a._a = Vector3D(), Vector3D(), Vector3D()
        return a

    def get_transform(self) -> Transform:
        return self._t

    def get_velocity(self) -> Vector3D:
        return self._v

    def get_angular_velocity(self) -> Vector3D:
        return self._w

    def get_acceleration(self) -> Vector3D:
        return self._a

    def __repr__(self) -> str:
        return f"ActorSnapshot(id={self.id})"


class WorldSnapshot:
    """CARLA's carla.WorldSnapshot: the frame, its Timestamp and every live actor's state at
    that frame (ActorSnapshot), read when the snapshot is made."""

    def __init__(self, frame: int, timestamp: Timestamp, actors: list[ActorSnapshot] | None = None):
        self.id = frame
        self.frame = frame
        self.timestamp = timestamp
        self._actors = {a.id: a for a in (actors or [])}

    @property
    def frame_count(self) -> int:
        return self.timestamp.frame_count

    @property
    def elapsed_seconds(self) -> float:
        return self.timestamp.elapsed_seconds

    @property
    def delta_seconds(self) -> float:
        return self.timestamp.delta_seconds

    @property
    def platform_timestamp(self) -> float:
        return self.timestamp.platform_timestamp

    def has_actor(self, actor_id: int) -> bool:
        return int(actor_id) in self._actors

    def find(self, actor_id: int) -> ActorSnapshot | None:
        return self._actors.get(int(actor_id))

    def __len__(self) -> int:
        return len(self._actors)

    def __iter__(self) -> Iterator[ActorSnapshot]:
        return iter(list(self._actors.values()))

    def __eq__(self, o) -> bool:
        return isinstance(o, WorldSnapshot) and o.id == self.id

    def __repr__(self) -> str:
        return f"WorldSnapshot(frame={self.frame}, actors={len(self._actors)})"

    @classmethod
    def _read(cls, e: int) -> "WorldSnapshot":
        """The engine's clock and every live actor's state now."""
        L = _lib.lib()
        with _lib.lock_of(e):
            c = L.sn_engine_clock(e).contents
            ts = Timestamp(int(c.frame), float(c.timestamp), float(c.dt))
            actors = []
            for i in range(L.sn_engine_actor_count(e)):
                info = _lib.ActorInfo(struct_size=ctypes.sizeof(_lib.ActorInfo))
                if L.sn_engine_actor_get(e, L.sn_engine_actor_id_at(e, i), ctypes.byref(info)) == 0:
                    actors.append(ActorSnapshot(info))
        return cls(ts.frame, ts, actors)
