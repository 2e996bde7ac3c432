"""CARLA's carla.World with its settings, snapshots, listeners and the spectator."""
from __future__ import annotations

import ctypes
import os
import weakref
from typing import TYPE_CHECKING, Callable, Iterable

from . import _lib
from ._common import _KIND_SENSOR, _KIND_VEHICLE, _KIND_WALKER, _err, _log
from ._lib import SensimError, check
from .actor import Actor, ActorList, Sensor, Vehicle, Walker
from .blueprints import ActorBlueprint, BlueprintLibrary
from .data import _sensor_data
from .geom import Location, Transform

if TYPE_CHECKING:
    from .client import Client
    from .weather import WeatherParameters

__all__ = ["World", "WorldSettings", "WorldSnapshot", "Timestamp", "AttachmentType"]


class AttachmentType:
    """CARLA's carla.AttachmentType; sensim mounts are rigid (SpringArm is accepted as Rigid)."""
    Rigid = 0
    SpringArm = 1
    SpringArmGhost = 2


class WorldSettings:
    """CARLA's carla.WorldSettings. sensim always runs synchronously at fixed_delta_seconds
    (set by the scene; changeable before the first tick); the other fields are kept for
    scripts that set them."""

    def __init__(self, synchronous_mode: bool = True, no_rendering_mode: bool = False,
                 fixed_delta_seconds: float | None = None, substepping: bool = True,
                 max_substep_delta_time: float = 0.01, max_substeps: int = 10):
        self.synchronous_mode = synchronous_mode
        self.no_rendering_mode = no_rendering_mode
        self.fixed_delta_seconds = fixed_delta_seconds
        self.substepping = substepping
        self.max_substep_delta_time = max_substep_delta_time
        self.max_substeps = max_substeps

    def __repr__(self) -> str:
        return (f"WorldSettings(synchronous_mode={self.synchronous_mode}, "
                f"fixed_delta_seconds={self.fixed_delta_seconds})")


class Timestamp:
    """CARLA's carla.Timestamp."""

    def __init__(self, frame: int, elapsed_seconds: float, delta_seconds: float):
        self.frame, self.frame_count = frame, frame
        self.elapsed_seconds, self.delta_seconds = elapsed_seconds, delta_seconds
        self.platform_timestamp = elapsed_seconds  # simulated: no wall clock reaches data

    def __repr__(self) -> str:
        return f"Timestamp(frame={self.frame}, elapsed_seconds={self.elapsed_seconds:.6f})"


class WorldSnapshot:
    """CARLA's carla.WorldSnapshot: the frame and the time (actor states: world.get_actors())."""

    def __init__(self, frame: int, timestamp: Timestamp):
        self.id = frame
        self.frame = frame
        self.timestamp = timestamp


class World:
    """CARLA's carla.World: one engine with its scene. Made by Client's load calls."""

    def __init__(self, client: Client, engine: int, path: str | None, overrides: list, seed: int | None,
                 replay: str | None = None):
        self._client = client
        self._e = engine
        self._path, self._overrides, self._seed, self._replay = path, overrides, seed, replay
        self._actors: dict[int, Actor] = {}
        self._listeners: dict[str, "_Listener"] = {}
        self._retired: list["_Listener"] = []  # stopped listeners' trampolines, alive until close
        self._pending_error: BaseException | None = None
        self._ticking = False  # inside sn_engine_step: close() and load_world() are refused
        self._bplib: BlueprintLibrary | None = None
        self._map = None
        self._spawned_api = False
        self._recorder: str | None = None
        self._spectator = _Spectator()
        self._gen = 0  # counts resets and rebuilds: handles into the old world go stale
        self.id = engine  # unique while it lives, as CARLA's world id

    # -- lifetime
    def _not_in_step(self, what: str) -> None:
        # The engine would be freed under the tick that called this listener (issue 33 item
        # 15): refused, as reset() is; the error is raised again by tick().
        if getattr(self, "_ticking", False):
            raise SensimError(f"{what}: called inside a listener of this world, during its tick: close or "
                              "replace the world after tick() returns", -4)

    def close(self) -> None:
        """Destroys the engine; every actor handle of this world goes dead. Refused inside a
        listener of this world (during its tick)."""
        self._not_in_step("close")
        if self._e is not None:
            _lib.lib().sn_engine_destroy(self._e)
            self._e = None
            self._listeners.clear()
            self._retired.clear()
            self._actors.clear()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def _engine(self) -> int:
        if self._e is None:
            raise SensimError("this world was closed (another was loaded)", -4)
        return self._e

    def __repr__(self) -> str:
        return f"World(id={self.id}, scene={self._path or self._replay!r})"

    # -- the clock and settings
    def _clock(self) -> _lib.Clock:
        return _lib.lib().sn_engine_clock(self._engine()).contents

    def get_settings(self) -> WorldSettings:
        return WorldSettings(True, False, self._clock().dt)

    def apply_settings(self, settings: WorldSettings) -> int:
        """fixed_delta_seconds: only before the first tick and before actors are spawned through
        the API (the scene is built again with the new step). synchronous_mode=False is refused:
        sensim steps only when told. Returns the frame."""
        if settings.synchronous_mode is False:
            _log.warning("sensim always runs synchronously: world.tick() steps the world")
        dt = settings.fixed_delta_seconds
        if dt is not None and abs(dt - self._clock().dt) > 1e-12:
            if self._clock().frame > 0 or self._spawned_api or self._replay:
                raise SensimError("apply_settings: fixed_delta_seconds changes only before the first tick and "
                                  "before spawning (the clock's step is fixed for a run)", -4)
            self._rebuild([*self._overrides, f"settings.fixed_delta_seconds={float(dt)!r}"])
        return self._clock().frame

    def _rebuild(self, overrides: list[str]) -> None:
        """The same scene built again in this World object, with other overrides."""
        self._not_in_step("apply_settings")
        fresh = self._client._new_engine(self._seed)
        err = _err()
        sets = [_lib.cstr(s) for s in overrides]
        arr = (ctypes.c_char_p * max(1, len(sets)))(*sets)
        st = _lib.lib().sn_engine_load_scene_with_overrides(fresh, _lib.cstr(self._path), arr, len(sets),
                                                            ctypes.byref(err))
        if st:
            _lib.lib().sn_engine_destroy(fresh)
            check(st, err)
        self.close()
        self._e, self._overrides, self._bplib, self._map = fresh, overrides, None, None
        self._gen += 1

    def tick(self, seconds: float = 10.0) -> int:
        """Steps the world one frame (fixed_delta_seconds), runs the listeners of this frame's
        data, returns the new frame number. An exception raised in a listener is raised here."""
        err = _err()
        e = self._engine()
        self._ticking = True
        try:
            st = _lib.lib().sn_engine_step(e, ctypes.byref(err))
        finally:
            self._ticking = False
        if self._pending_error is not None:
            e, self._pending_error = self._pending_error, None
            raise e
        check(st, err)
        return self._clock().frame

    def wait_for_tick(self, seconds: float = 10.0) -> WorldSnapshot:
        """In process there is nobody else to tick: this ticks, then returns the snapshot."""
        self.tick()
        return self.get_snapshot()

    def get_snapshot(self) -> WorldSnapshot:
        c = self._clock()
        return WorldSnapshot(c.frame, Timestamp(c.frame, c.timestamp, c.dt))

    @property
    def frame(self) -> int:
        return self._clock().frame

    def reset(self, seed: int | None = None) -> None:
        """Back to the scene's first frame in place (sn_engine_reset; sensim's): no file is read
        again, no plugin loaded again. Actors spawned through the API are gone, scene sensors
        come back with their listeners registered again. seed None keeps the run's seed."""
        err = _err()
        L = _lib.lib()
        if not hasattr(L, "sn_engine_reset"):
            raise SensimError(f"reset: {_lib.library_path()} has no sn_engine_reset (an older libsensim)", -6)
        s = ctypes.c_uint64(seed) if seed is not None else None
        st = L.sn_engine_reset(self._engine(), ctypes.byref(s) if s is not None else None, ctypes.byref(err))
        if st:
            self._e = None  # a failed reset leaves no scene: the engine is freed with the World
            check(st, err)
        self._actors.clear()
        self._map = None  # the map is parsed again with the scene: old Map handles go stale
        self._gen += 1
        self._spawned_api = False
        self._recorder = None
        old, self._listeners = self._listeners, {}
        for name, lst in old.items():
            if lst.callback is not None and L.sn_engine_find_actor(self._e, name.encode()):
                self._listen(name, lst.callback)

    # -- weather (CARLA's world.set_weather / get_weather)
    def get_weather(self) -> "WeatherParameters":
        from .weather import WeatherParameters
        w, err = _lib.Weather(), _err()
        check(_lib.lib().sn_engine_get_weather(self._engine(), ctypes.byref(w), ctypes.byref(err)), err)
        return WeatherParameters._from(w)

    def set_weather(self, weather: "WeatherParameters") -> None:
        """Changes the weather now: cameras draw it from the next tick, a recording records it.
        A value outside its range raises SensimError naming the field."""
        err = _err()
        check(_lib.lib().sn_engine_set_weather(self._engine(), ctypes.byref(weather._c()), ctypes.byref(err)), err)

    def get_seed(self) -> int:
        """The seed of the run (the scene's, or the one given to load or reset)."""
        return int(_lib.lib().sn_engine_seed(self._engine()))

    def get_stats(self) -> dict:
        """sn_engine_stats: frames, sim_time, messages, sensors, live_actors, live_sensors and the
        wall-clock seconds spent in time_world, time_sensors, time_output (of which time_serialize
        serialising messages: 0 when nothing consumes them) and time_write (the stream writer
        thread's, off the frame loop)."""
        s = _lib.RunStats(struct_size=ctypes.sizeof(_lib.RunStats))
        err = _err()
        check(_lib.lib().sn_engine_stats(self._engine(), ctypes.byref(s), ctypes.byref(err)), err)
        return {k: getattr(s, k) for k, _ in _lib.RunStats._fields_ if k != "struct_size"}

    # -- blueprints and the map
    def get_blueprint_library(self) -> "BlueprintLibrary":
        if self._bplib is None:
            err = _err()
            h = _lib.lib().sn_engine_blueprints(self._engine(), ctypes.byref(err))
            if not h:
                check(err.status or -1, err)
            self._bplib = BlueprintLibrary._from_handle(h)
        return self._bplib

    def get_map(self):
        """The scene's road map (carla.Map); SensimError when the scene names none."""
        from .map import Map
        if self._map is None:
            h = _lib.lib().sn_engine_map(self._engine())
            if not h:
                raise SensimError("get_map: this world has no map (a scene's `map:` key, or "
                                  "client.load_world('maps/town.xodr'))", -7)
            self._map = Map._borrowed(h, self)
        return self._map

    def get_spectator(self) -> "Actor":
        """A stand-in for CARLA's spectator: it keeps the transform it is given (no view here)."""
        return self._spectator

    # -- actors
    def _wrap(self, aid: int) -> "Actor | None":
        a = self._actors.get(aid)
        if a is not None:
            return a
        info = _lib.ActorInfo(struct_size=ctypes.sizeof(_lib.ActorInfo))
        if _lib.lib().sn_engine_actor_get(self._engine(), aid, ctypes.byref(info)) != 0:
            return None
        cls = {_KIND_VEHICLE: Vehicle, _KIND_WALKER: Walker, _KIND_SENSOR: Sensor}.get(info.kind, Actor)
        a = cls(self, info)
        self._actors[aid] = a
        return a

    def get_actor(self, actor_id: int) -> "Actor | None":
        return self._wrap(int(actor_id))

    def get_actors(self, actor_ids: Iterable[int] | None = None) -> "ActorList":
        """Live actors in ascending id order, sensors included (filter('vehicle.*') etc.)."""
        L, e = _lib.lib(), self._engine()
        ids = list(actor_ids) if actor_ids is not None else \
            [L.sn_engine_actor_id_at(e, i) for i in range(L.sn_engine_actor_count(e))]
        return ActorList(a for a in (self._wrap(i) for i in ids) if a is not None)

    def find_actor(self, name: str) -> "Actor | None":
        """A live actor by its scene name (sensim's)."""
        aid = _lib.lib().sn_engine_find_actor(self._engine(), name.encode())
        return self._wrap(aid) if aid else None

    def spawn_actor(self, blueprint: "ActorBlueprint", transform: Transform, attach_to: "Actor | None" = None,
                    attachment_type: int = AttachmentType.Rigid, *, name: str | None = None) -> "Actor":
        """Spawns now (CARLA's spawn_actor); raises SensimError with the engine's reason (a
        collision at the spawn point names what it overlaps). With attach_to, `transform` is the
        mount relative to the parent's origin. `name` (sensim's) names a sensor's stream."""
        attrs = [(k, v) for k, v in blueprint._values.items()]
        arr = (_lib.Attribute * max(1, len(attrs)))(*[_lib.Attribute(k.encode(), str(v).encode()) for k, v in attrs])
        d = _lib.ActorDesc(ctypes.sizeof(_lib.ActorDesc), blueprint.id.encode(), _lib.cstr(name),
                           transform._c(), attach_to.id if attach_to is not None else 0, 0, arr, len(attrs))
        out = ctypes.c_uint32()
        err = _err()
        check(_lib.lib().sn_engine_spawn(self._engine(), ctypes.byref(d), ctypes.byref(out), ctypes.byref(err)), err)
        self._spawned_api = True
        return self._wrap(out.value)

    def try_spawn_actor(self, blueprint: "ActorBlueprint", transform: Transform,
                        attach_to: "Actor | None" = None, attachment_type: int = AttachmentType.Rigid,
                        **kw) -> "Actor | None":
        """As spawn_actor, None instead of an exception (the reason is logged at debug level)."""
        try:
            return self.spawn_actor(blueprint, transform, attach_to, attachment_type, **kw)
        except SensimError as e:
            _log.debug("try_spawn_actor: %s", e)
            return None

    # -- listeners: one C trampoline per sensor name, kept alive by the World
    def _listen(self, name: str, callback: Callable) -> None:
        lst = self._listeners.get(name)
        if lst is None:
            lst = _Listener(self, name)
            err = _err()
            check(_lib.lib().sn_engine_listen(self._engine(), name.encode(), lst.c_fn, None, ctypes.byref(err)), err)
            self._listeners[name] = lst
        lst.callback = callback

    def _unlisten(self, name: str) -> None:
        # The engine drops its listener (no more calls into Python for this stream); the
        # trampoline is kept until the world closes: stop() may run inside that very callback.
        lst = self._listeners.pop(name, None)
        if lst is not None:
            lst.callback = None
            self._retired.append(lst)
            err = _err()
            check(_lib.lib().sn_engine_unlisten(self._engine(), name.encode(), lst.c_fn, None, ctypes.byref(err)), err)

    # -- the recorder
    def _start_recorder(self, filename: str, additional_data: bool) -> str:
        if self._recorder is not None:
            raise SensimError(f"start_recorder: already recording to {self._recorder}", -4)
        o = _lib.RecordOptions(ctypes.sizeof(_lib.RecordOptions), _lib.cstr(filename), additional_data, 0)
        err = _err()
        check(_lib.lib().sn_engine_record(self._engine(), ctypes.byref(o), ctypes.byref(err)), err)
        self._recorder = os.fspath(filename)
        return self._recorder

    def _stop_recorder(self) -> None:
        if self._recorder is None or self._e is None:
            return
        err = _err()
        check(_lib.lib().sn_engine_stop_recording(self._e, ctypes.byref(err)), err)
        self._recorder = None


class _Listener:
    """The ctypes callback of one sensor stream: builds the CARLA data object (views on the
    engine's buffer, valid during the call) and hands it to the Python callback."""

    def __init__(self, world: World, name: str):
        self.callback: Callable | None = None
        wref = weakref.ref(world)

        def on_message(msgp, user):
            cb, w = self.callback, wref()
            if cb is None or w is None or w._pending_error is not None:
                return
            try:
                cb(_sensor_data(w, msgp.contents))
            except BaseException as ex:  # raised again by tick(), on the caller's stack
                w._pending_error = ex

        self.c_fn = _lib.LISTEN_FN(on_message)


class _Spectator:
    id = 0
    type_id = "spectator"

    def __init__(self):
        self._t = Transform()

    def get_transform(self) -> Transform:
        return self._t

    def set_transform(self, t: Transform) -> None:
        self._t = t

    def get_location(self) -> Location:
        return self._t.location
