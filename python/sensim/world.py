"""CARLA's carla.World with its settings, snapshots, listeners and the spectator."""
from __future__ import annotations

import ctypes
import atexit
import math
import os
import threading
import time
import weakref
from typing import TYPE_CHECKING, Callable, Iterable

from . import _lib, mcap, rays, walkers
from .spectator import SPECTATOR_ID, Spectator, compose
from ._common import _KIND_SENSOR, _KIND_VEHICLE, _KIND_WALKER, _check_seed, _err, _log
from ._lib import SensimError, check
from .actor import Actor, ActorList, Sensor, Vehicle, Walker
from .blueprints import ActorBlueprint, BlueprintLibrary
from . import _interrupt
from .data import _sensor_data, expire
from .debug import DebugHelper
from .geom import Location, Transform, Vector3D, VehicleControl
from .snapshot import ActorSnapshot, Timestamp, WorldSettings, WorldSnapshot  # noqa: F401
from .traffic import WorldTraffic, actor_class

if TYPE_CHECKING:
    from .client import Client
    from .weather import WeatherParameters

__all__ = ["World", "WorldSettings", "WorldSnapshot", "ActorSnapshot", "Timestamp", "AttachmentType"]


class AttachmentType:
    """CARLA's carla.AttachmentType; sensim mounts are rigid (SpringArm is accepted as Rigid)."""
    Rigid = 0
    SpringArm = 1
    SpringArmGhost = 2


class World(WorldTraffic):
    """CARLA's carla.World: one engine with its scene. Made by Client's load calls."""

    def __init__(self, client: Client, engine: int, path: str | None, overrides: list, seed: int | None,
                 replay: str | None = None):
        self._client = client
        self._e = engine
        self._gone = "it was closed"  # why _e is None once it is (_engine's error)
        self._clock_of, self._clock_view = None, None  # _clock's view and the engine it is of
        self._lock = threading.RLock()  # held by every call into this world's engine (_lib.lock_of)
        _lib.bind_engine(engine, self._lock)
        self._path, self._overrides, self._seed, self._replay = path, overrides, seed, replay
        self._actors: dict[int, Actor] = {}
        self._listeners: dict[str, "_Listener"] = {}
        self._retired: list["_Listener"] = []  # stopped during a step: their trampolines live until it ends
        self._pending_error: BaseException | None = None
        self._ticking = False  # inside sn_engine_step: close() and load_world() are refused
        self._bplib: BlueprintLibrary | None = None
        self._map = None
        self._spawned_api = False
        self._recorder: str | None = None
        self._spectator = Spectator(self)
        self._gen = 0  # counts resets and rebuilds: handles into the old world go stale
        self.id = engine  # unique while it lives, as CARLA's world id
        self._settings = WorldSettings(fixed_delta_seconds=self._clock().dt)
        self._on_tick: dict[int, Callable] = {}
        self._next_cb = 1
        self._ticked = threading.Condition(threading.Lock())  # notified after every step
        self._tick_waiters = 0  # threads in wait_for_tick (changed under _ticked)
        self._last_snapshot: WorldSnapshot | None = None
        self._async: threading.Thread | None = None
        self._async_stop = threading.Event()
        self._async_error: BaseException | None = None
        self._constant: dict[int, Vector3D] = {}  # enable_constant_velocity, held before each step
        self._ackermann: dict[int, object] = {}   # apply_ackermann_control targets
        self.debug = DebugHelper(self)
        self._mcap = None  # the sn_mcap record_mcap writes (mcap.py)
        # the debug stream world.debug draws into: a scene's sensor.other.debug, or record_mcap's
        self._debug_name = next((a.name for a in self.get_actors() if a.type_id == "sensor.other.debug"), None)

    # -- lifetime
    def _not_in_step(self, what: str) -> None:
        # The engine would be freed under the step that called this listener (issue 33 item
        # 15; the world's lock is re-entrant on the stepping thread): refused, as reset() is; the
        # error is raised again by tick().
        lk = getattr(self, "_lock", None)
        if getattr(self, "_ticking", False) and (threading.current_thread() is getattr(self, "_ticking_thread", None) or
                                                 (type(lk) is _lib.GuestLock and lk.guest == threading.get_ident())):
            raise SensimError(f"{what}: called inside a listener of this world, during its tick: close or "
                              "replace the world after tick() returns", -4)

    def close(self) -> None:
        """Destroys the engine; every actor handle of this world goes dead. Refused inside a
        listener of this world (during its tick)."""
        self._not_in_step("close")
        self._stop_async()
        with self._lock:  # waits for a step on another thread to end
            self._close_locked()

    def _close_locked(self) -> None:
        if self._e is not None:
            _lib.lib().sn_engine_destroy(self._e)
            _lib.unbind_engine(self._e)
            self._e = None
            self._listeners.clear()
            self._retired.clear()
            self._actors.clear()
        if getattr(self, "_mcap", None) is not None:
            mcap.close(self)  # after the engine: no message comes in any more

    def record_mcap(self, path, overwrite: bool = False, threads: int = 0) -> str:
        """sensim's: writes this world's run from the next frame on as an MCAP file for Foxglove,
        as `sensim run --mcap` does (docs/mcap.md), world.debug's shapes on /debug. Adds the
        sensors "actors" (sensor.other.actors) and "debug" (sensor.other.debug) when the world
        has none. The file becomes `path` when the world closes (close(), load_world, the
        interpreter's exit); an existing file is refused unless overwrite. Returns the path
        being written (path.partial-PID-N)."""
        self._not_in_step("record_mcap")
        part = mcap.start(self, path, overwrite, threads)
        self._debug_name = next(a.name for a in self.get_actors() if a.type_id == "sensor.other.debug")
        return part

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def _engine(self) -> int:
        if self._e is None:
            raise SensimError(f"this world has no engine any more: {self._gone}", -4)
        return self._e

    def __repr__(self) -> str:
        return f"World(id={self.id}, scene={self._path or self._replay!r})"

    # -- the clock and settings
    def _clock(self) -> _lib.Clock:
        """The engine's clock, read in place: sn_engine_clock's struct lives as long as its engine,
        so the view is made once per engine (a C call for every frame or dt read was a fifth of a
        vector environment's calls a step)."""
        e = self._engine()
        if e != self._clock_of:
            self._clock_view = _lib.lib().sn_engine_clock(e).contents
            self._clock_of = e
        return self._clock_view

    def get_settings(self) -> WorldSettings:
        s = self._settings._copy()
        s.fixed_delta_seconds = self._clock().dt
        return s

    def apply_settings(self, settings: WorldSettings) -> int:
        """CARLA's apply_settings, at any time: fixed_delta_seconds, max_substep_delta_time and
        max_substeps take effect from the next frame (sn_engine_set_step; a step longer than
        max_substep_delta_time x max_substeps runs more substeps, with one warning);
        synchronous_mode False starts the world's own thread, True stops it. fixed_delta_seconds
        None keeps the current step (sensim has no variable step). Returns the frame the
        settings take effect at."""
        dt = settings.fixed_delta_seconds
        if dt is not None and not isinstance(dt, (int, float)):
            raise TypeError(f"apply_settings: fixed_delta_seconds must be a number or None, not {type(dt).__name__}")
        sync = bool(settings.synchronous_mode)
        self._stop_async()  # the step changes between frames, never under the world's own thread
        cur = self._clock()
        msub = float(settings.max_substep_delta_time or 0)
        nsub = int(settings.max_substeps or 0)
        want = float(dt) if dt else cur.dt
        if self._replay and abs(want - cur.dt) > 1e-12:
            raise SensimError("apply_settings: a replay runs at its recording's step", -4)
        if not self._replay:
            if nsub < 0:
                raise SensimError(f"apply_settings: max_substeps {nsub} must be within [1, 16] (CARLA's range)", -2)
            err = _err()
            check(_lib.lib().sn_engine_set_step(self._engine(), want, msub, nsub, ctypes.byref(err)), err)
        self._settings = settings._copy()
        self._settings.fixed_delta_seconds = want
        if not sync:
            self._start_async()
        return self._clock().frame + 1

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
        _lib.bind_engine(fresh, self._lock)
        self._gen += 1

    # -- stepping: synchronous (tick) or on the world's own thread (asynchronous mode)
    def _step(self) -> int:
        """One frame: the engine steps (listeners run inside, on this thread), then the on_tick
        callbacks get the frame's snapshot. Errors of listeners and callbacks are raised here."""
        err = _err()
        with _interrupt.sigint_guard():
            if self._constant or self._ackermann:
                self._before_step()
            with self._lock:  # the engine read and stepped under one hold: no close() in between
                e = self._engine()
                self._ticking, self._ticking_thread = True, threading.current_thread()
                try:
                    st = _lib.lib().sn_engine_step(e, ctypes.byref(err))
                finally:
                    self._ticking = False
            return self._stepped(st, err)

    def _stepped(self, st: int, err) -> int:
        """After the engine's step: its listeners' error or its own raised, then the on_tick
        callbacks; the new frame number."""
        if self._pending_error is not None:
            e, self._pending_error = self._pending_error, None
            raise e
        self._retired.clear()  # no emit walks this engine's listener lists any more
        check(st, err)
        cbs = list(self._on_tick.values())  # once: another thread may add one meanwhile
        snap = self._snapshot() if cbs else None
        with self._ticked:
            self._last_snapshot = snap
            if self._tick_waiters:  # Condition.notify_all is Python: skipped when nobody waits
                self._ticked.notify_all()
        for cb in cbs:
            with _interrupt.listener_scope():
                cb(snap)
        return snap.frame if snap is not None else self._clock().frame

    def _before_step(self) -> None:
        """Constant velocities and Ackermann targets, applied before each step."""
        for aid, v in list(self._constant.items()):
            a = self.get_actor(aid)
            if a is None:
                del self._constant[aid]
                continue
            a.set_target_velocity(a.get_transform().transform_vector(v))
        for aid, c in list(self._ackermann.items()):
            a = self.get_actor(aid)
            if a is None:
                del self._ackermann[aid]
                continue
            fwd = a.get_transform().get_forward_vector()
            speed = a.get_velocity().dot(fwd)
            err = c.speed - speed
            lock = math.radians(float(a.attributes.get("max_steer_angle", 70)))
            steer = max(-1.0, min(1.0, c.steer / lock)) if lock > 0 else 0.0
            throttle = max(0.0, min(1.0, 0.5 * err)) if c.speed >= 0 else 0.0
            brake = max(0.0, min(1.0, -0.5 * err)) if err < -0.1 else 0.0
            a.apply_control(VehicleControl(throttle=throttle, steer=steer, brake=brake))
            self._ackermann[aid] = c  # apply_control clears nothing here: the target holds

    def _snapshot(self) -> WorldSnapshot:
        s = WorldSnapshot._read(self._engine())
        # CARLA's snapshot holds the spectator too (get_actors() lists it)
        s._actors[SPECTATOR_ID] = ActorSnapshot._of(SPECTATOR_ID, self._spectator.get_transform())
        return s

    def tick(self, seconds: float = 10.0) -> int:
        """Steps the world one frame (fixed_delta_seconds), runs the listeners of this frame's
        data and the on_tick callbacks, returns the new frame number. An exception raised in a
        listener is raised here; Ctrl+C during the step raises KeyboardInterrupt. In
        asynchronous mode it waits for the world's next frame instead (at most `seconds`)."""
        if self._async is not None:
            return self.wait_for_tick(seconds).frame
        return self._step()

    def wait_for_tick(self, seconds: float = 10.0) -> WorldSnapshot:
        """Asynchronous mode: waits (at most `seconds`) for the world's next frame and returns its
        snapshot. Synchronous mode: nobody else ticks in process, so this ticks, then returns it."""
        if self._async is None:
            self.tick()
            return self.get_snapshot()
        with self._ticked:
            frame = self._clock().frame
            end = time.monotonic() + seconds
            self._tick_waiters += 1
            try:
                while self._clock().frame <= frame:
                    self._raise_async_error()
                    left = end - time.monotonic()
                    if left <= 0 or self._async is None:
                        raise SensimError(f"wait_for_tick: no frame within {seconds} s", -4)
                    self._ticked.wait(min(left, 0.1))
            finally:
                self._tick_waiters -= 1
        return self.get_snapshot()

    def get_snapshot(self) -> WorldSnapshot:
        """The current frame's snapshot (every live actor's state)."""
        self._raise_async_error()
        return self._snapshot()

    def on_tick(self, callback: Callable) -> int:
        """CARLA's on_tick: callback(WorldSnapshot) after every frame, on the thread that steps;
        returns an id for remove_on_tick."""
        i = self._next_cb
        self._next_cb += 1
        self._on_tick[i] = callback
        return i

    def remove_on_tick(self, callback_id: int) -> None:
        self._on_tick.pop(int(callback_id), None)

    def _start_async(self) -> None:
        if self._async is not None:
            return
        self._async_stop.clear()
        self._async_error = None
        if type(self._lock) is not _lib.FairLock:  # counts its waiters while the thread runs
            self._lock = _lib.FairLock(self._lock)
            if self._e is not None:
                _lib.bind_engine(self._e, self._lock)
        t = threading.Thread(target=_run_async, args=(weakref.ref(self), self._async_stop),
                             name=f"sensim-world-{self.id}", daemon=True)
        self._async = t
        _ASYNC_WORLDS.add(self)
        t.start()

    def _stop_async(self) -> None:
        t = getattr(self, "_async", None)
        if t is None:
            return
        self._async_stop.set()
        if t is not threading.current_thread():
            t.join()
        self._async = None
        _ASYNC_WORLDS.discard(self)
        if type(self._lock) is _lib.FairLock:  # the same RLock, bare again: synchronous calls cost no more
            self._lock = self._lock.real
            if self._e is not None:
                _lib.bind_engine(self._e, self._lock)

    def _raise_async_error(self) -> None:
        if self._async_error is not None:
            e, self._async_error = self._async_error, None
            raise e

    @property
    def frame(self) -> int:
        with self._lock:  # in a vector's streamed batch: once this world's step has ended
            return self._clock().frame

    def reset(self, seed: int | None = None) -> None:
        """Back to the scene's first frame in place (sn_engine_reset; sensim's): no file is read
        again, no plugin loaded again. Actors spawned through the API are gone, scene sensors
        come back with their listeners registered again. seed None keeps the run's seed."""
        err = _err()
        L = _lib.lib()
        if not hasattr(L, "sn_engine_reset"):
            raise SensimError(f"reset: {_lib.library_path()} has no sn_engine_reset (an older libsensim)", -6)
        s = ctypes.c_uint64(_check_seed(seed, "reset")) if seed is not None else None
        st = L.sn_engine_reset(self._engine(), ctypes.byref(s) if s is not None else None, ctypes.byref(err))
        if st:
            _lib.unbind_engine(self._e)
            self._e = None  # a failed reset leaves no scene: the engine is freed with the World
            self._gone = "its reset failed"
            check(st, err)
        self._actors.clear()
        self._map = None  # the map is parsed again with the scene: old Map handles go stale
        self._gen += 1
        self._spawned_api = False
        self._recorder = None
        old, self._listeners = self._listeners, {}
        for name, lst in old.items():
            if lst.callback is not None and L.sn_engine_find_actor(self._e, name.encode()):
                self._listen(name, lst.callback, lst.zero_copy)

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

    def get_scenario(self) -> dict:
        """sn_engine_scenario: the OpenSCENARIO storyboard of the world (client.load_scenario):
        loaded (the world plays one), ended (its StopTrigger fired or every story completed),
        completed (ended by its own rules), time (when it ended, else now), ended_by
        ("StopTrigger", "all stories complete", "" while running), stop_condition (the
        StopTrigger's condition that fired) and log_messages (storyboard.msgpack's so far)."""
        s = _lib.ScenarioInfo(struct_size=ctypes.sizeof(_lib.ScenarioInfo))
        err = _err()
        check(_lib.lib().sn_engine_scenario(self._engine(), ctypes.byref(s), ctypes.byref(err)), err)
        out = {k: getattr(s, k) for k, _ in _lib.ScenarioInfo._fields_ if k != "struct_size"}
        for k in ("ended_by", "stop_condition"):
            out[k] = (out[k] or b"").decode()
        return out

    def get_traffic_health(self) -> dict:
        """sn_engine_traffic_health (docs/traffic.md, "Traffic health"): {"totals": {...},
        "windows": [{...}, ...]}, a window per simulated minute (the last one so far), each with
        start, duration, vehicles, standing, crawling, flipped, red_light_crossings,
        autopilot_collisions, deadlocks_resolved and lane_changes."""
        L, err = _lib.lib(), _err()

        def as_dict(h):
            return {k: getattr(h, k) for k, _ in _lib.TrafficHealth._fields_ if k != "struct_size"}
        t = _lib.TrafficHealth(struct_size=ctypes.sizeof(_lib.TrafficHealth))
        check(L.sn_engine_traffic_health(self._engine(), ctypes.byref(t), ctypes.byref(err)), err)
        windows = []
        for i in range(L.sn_engine_traffic_health_windows(self._engine())):
            w = _lib.TrafficHealth(struct_size=ctypes.sizeof(_lib.TrafficHealth))
            check(L.sn_engine_traffic_health_window(self._engine(), i, ctypes.byref(w), ctypes.byref(err)), err)
            windows.append(as_dict(w))
        return {"totals": as_dict(t), "windows": windows}

    # -- blueprints and the map
    def get_blueprint_library(self) -> "BlueprintLibrary":
        if self._bplib is None:
            err = _err()
            h = _lib.lib().sn_engine_blueprints(self._engine(), ctypes.byref(err))
            if not h:
                check(err.status or -1, err)
            self._bplib = BlueprintLibrary._from_handle(h)
            self._bplib._bps.append(walkers.controller_blueprint())  # controller.ai.walker
        return self._bplib

    def _record_dtypes(self, type_id: str) -> dict:
        """{bin key: numpy dtype} of the records blueprint `type_id` declares (SDK 1.6)."""
        cache = self.__dict__.setdefault("_rec_dtypes", {})
        if type_id not in cache:
            try:
                cache[type_id] = self.get_blueprint_library().find(type_id).record_dtypes
            except Exception:
                cache[type_id] = {}
        return cache[type_id]

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

    def load_map_layer(self, map_layers) -> None:
        """Accepted (carla.MapLayer): sensim's map has no separable layers."""

    def unload_map_layer(self, map_layers) -> None:
        """Accepted (carla.MapLayer): sensim's map has no separable layers."""

    def get_level_bbs(self, actor_type=None) -> list:
        """CARLA's level bounding boxes: sensim has no level meshes beyond actors; [] (documented)."""
        return []

    def get_environment_objects(self, object_type=None) -> list:
        """CARLA's environment objects: [] (sensim's scenery is actors or map geometry)."""
        return []

    def enable_environment_objects(self, env_objects_ids, enable: bool) -> None:
        """Accepted; nothing to toggle."""

    def cast_ray(self, initial_location, final_location) -> list:
        """CARLA's cast_ray: every surface between the two points, nearest first (rays.py)."""
        return rays.cast_ray(self, initial_location, final_location)

    def project_point(self, location, direction, search_distance: float = 10000.0):
        """CARLA's project_point: the first surface along direction (LabelledPoint) or None."""
        return rays.project_point(self, location, direction, search_distance)

    def cast_rays(self, origins, directions, max_distance=10000.0, fields=None, any_hit: bool = False) -> dict:
        """N rays at once from N x 3 numpy arrays: {field: array}, one call into the engine with
        the GIL released (rays.cast_rays; sensim's own, CARLA has no batch)."""
        return rays.cast_rays(self, origins, directions, max_distance, fields, any_hit)

    def ground_projection(self, location, search_distance: float = 10000.0):
        """CARLA's ground_projection: the first surface straight down (LabelledPoint) or None."""
        return rays.ground_projection(self, location, search_distance)

    # -- walkers' navigation (walkers.py)
    def get_random_location_from_navigation(self) -> "Location | None":
        """A point on the map's sidewalks, from the pedestrians' seed; None without sidewalks."""
        return walkers.random_location(self)

    def set_pedestrians_cross_factor(self, percentage: float) -> None:
        """The share (0..1) of walkers started from now on that may cross roads anywhere."""
        walkers.set_cross_factor(self, percentage)

    def set_pedestrians_seed(self, seed: int) -> None:
        walkers.set_seed(self, seed)

    def get_spectator(self) -> "Spectator":
        """CARLA's spectator (spectator.py): its transform round-trips, sensors attached to it
        follow it; get_actor(spectator.id) finds it."""
        return self._spectator

    # -- actors
    def _wrap(self, aid: int) -> "Actor | None":
        if aid == SPECTATOR_ID:
            return self._spectator
        if aid >= walkers.CONTROLLER_ID_BASE:  # an AI walker controller (walkers.py)
            return walkers.find_controller(self, aid)
        a = self._actors.get(aid)
        if a is not None:
            return a
        info = _lib.ActorInfo(struct_size=ctypes.sizeof(_lib.ActorInfo))
        if _lib.lib().sn_engine_actor_get(self._engine(), aid, ctypes.byref(info)) != 0:
            return None
        cls = {_KIND_VEHICLE: Vehicle, _KIND_WALKER: Walker, _KIND_SENSOR: Sensor}.get(info.kind, Actor)
        if info.type_id.startswith(b"traffic."):  # CARLA's TrafficLight / TrafficSign (traffic.py)
            cls = actor_class(info.type_id.decode())
        a = cls(self, info)
        self._actors[aid] = a
        return a

    def get_actor(self, actor_id: int) -> "Actor | None":
        return self._wrap(int(actor_id))

    def get_actors(self, actor_ids: Iterable[int] | None = None) -> "ActorList":
        """Live actors in ascending id order, sensors included (filter('vehicle.*') etc.), then
        CARLA's spectator (type_id 'spectator')."""
        L, e = _lib.lib(), self._engine()
        ids = list(actor_ids) if actor_ids is not None else \
            [L.sn_engine_actor_id_at(e, i) for i in range(L.sn_engine_actor_count(e))] + [SPECTATOR_ID]
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
        if blueprint.id == walkers.AI_WALKER:
            return walkers.spawn_controller(self, attach_to)
        if attach_to is self._spectator:  # it has no engine actor: the sensor follows it (spectator.py)
            a = self.spawn_actor(blueprint, compose(self._spectator.get_transform(), transform), name=name)
            self._spectator._attach(a, transform)
            return a
        attrs = [(k, v) for k, v in blueprint._values.items()]
        arr = (_lib.Attribute * max(1, len(attrs)))(*[_lib.Attribute(k.encode(), str(v).encode()) for k, v in attrs])
        d = _lib.ActorDesc(ctypes.sizeof(_lib.ActorDesc), blueprint.id.encode(), _lib.cstr(name),
                           transform._c(), attach_to.id if attach_to is not None else 0, 0, arr, len(attrs))
        out = ctypes.c_uint32()
        err = _err()
        with self._lock:
            st = _lib.lib().sn_engine_spawn(self._engine(), ctypes.byref(d), ctypes.byref(out), ctypes.byref(err))
        check(st, err)
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
    def _listen(self, name: str, callback: Callable, zero_copy: bool = False) -> None:
        lst = self._listeners.get(name)
        if lst is None:
            lst = _Listener(self, name)
            err = _err()
            check(_lib.lib().sn_engine_listen(self._engine(), name.encode(), lst.c_fn, None, ctypes.byref(err)), err)
            self._listeners[name] = lst
            lst.actor_id = _lib.lib().sn_engine_find_actor(self._e, name.encode())
        lst.callback = callback
        lst.zero_copy = bool(zero_copy)

    def _listen_extra(self, name: str, fn: Callable) -> None:
        """fn(data) for each message of sensor `name`, after its listen() callback if any and
        whether or not it has one (G-buffer textures: gbuffer.py). Dropped with the sensor."""
        lst = self._listeners.get(name)
        if lst is None:
            lst = _Listener(self, name)
            err = _err()
            check(_lib.lib().sn_engine_listen(self._engine(), name.encode(), lst.c_fn, None, ctypes.byref(err)), err)
            self._listeners[name] = lst
            lst.actor_id = _lib.lib().sn_engine_find_actor(self._e, name.encode())
        lst.extra.append(fn)

    def _unlisten(self, name: str) -> None:
        # The engine drops its listener (no more calls into Python for this stream); the
        # trampoline is kept until the world closes: stop() may run inside that very callback.
        lst = self._listeners.get(name)
        if lst is not None and lst.extra:  # G-buffer textures still listen: the stream stays
            lst.callback = None
            return
        lst = self._listeners.pop(name, None)
        if lst is not None:
            lst.callback = None
            err = _err()
            check(_lib.lib().sn_engine_unlisten(self._engine(), name.encode(), lst.c_fn, None, ctypes.byref(err)), err)
            self._retire(lst)

    def _retire(self, lst: "_Listener") -> None:
        # Kept while a step may be walking the listener list (stop() or destroy() inside this
        # very callback); outside a step nothing calls it any more: kept until close, a loop of
        # listen/stop (or destroy) grew the world by one trampoline (~2 kB) a sensor.
        if self._ticking:
            self._retired.append(lst)

    def _forget_destroyed(self) -> None:
        """Drops the listeners of sensors that are gone (destroyed, or with their parent): their
        names are never alive again (a run's sensor names are not reused), and a loop spawning a
        listening sensor per episode kept one entry (and its trampoline) per episode."""
        L = _lib.lib()
        info = _lib.ActorInfo(struct_size=ctypes.sizeof(_lib.ActorInfo))
        for name, lst in list(self._listeners.items()):
            if lst.actor_id and L.sn_engine_actor_get(self._e, lst.actor_id, ctypes.byref(info)) != 0:
                del self._listeners[name]
                lst.callback = None
                lst.extra = []
                self._retire(lst)

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
    """The ctypes callback of one sensor stream: builds the CARLA data object (its own copy of
    the message; with zero_copy, views on the engine's buffer cut off after the call) and hands
    it to the Python callback."""

    def __init__(self, world: World, name: str):
        self.callback: Callable | None = None
        self.actor_id = 0  # the sensor's, when it was alive at listen (ids are never reused)
        self.extra: list[Callable] = []  # _listen_extra's, called after the callback
        self.zero_copy = False
        wref = weakref.ref(world)

        def on_message(msgp, user):
            cb, w = self.callback, wref()
            if (cb is None and not self.extra) or w is None or w._pending_error is not None:
                return
            lk = w._lock
            if type(lk) is _lib.GuestLock:  # stepped in a batch on a C thread: this thread may call in
                me = threading.get_ident()
                prev, lk.guest = lk.guest, me
                _lib.GuestLock.guests[me] = _lib.GuestLock.guests.get(me, 0) + 1
            try:
                d = _sensor_data(w, msgp.contents, self.zero_copy and not self.extra)
                try:
                    with _interrupt.listener_scope():
                        if cb is not None:
                            cb(d)
                        for fn in self.extra:
                            fn(d)
                finally:
                    if self.zero_copy:
                        expire(d)
            except BaseException as ex:  # raised again by tick(), on the caller's stack
                w._pending_error = ex
            finally:
                if type(lk) is _lib.GuestLock:
                    lk.guest = prev
                    left = _lib.GuestLock.guests.pop(me) - 1
                    if left:
                        _lib.GuestLock.guests[me] = left

        self.c_fn = _lib.LISTEN_FN(on_message)


def _step_batch(pool: int | None, worlds: list[World]) -> list[BaseException | None]:
    """One step of every world with one C call (sn_engines_step on `pool`; the GIL given up once
    for all, each engine's step whole on one of the pool's threads), each world's tick otherwise:
    before-step work, its lock held through the batch (a GuestLock lets the thread that steps it
    call in from its listeners), its errors and on_tick callbacks after. Returns each world's
    error or None; every world is stepped whatever another raised. The worlds are synchronous
    and distinct."""
    n = len(worlds)
    out: list[BaseException | None] = [None] * n
    err = _err()
    sts, errs, engines = (ctypes.c_int * n)(*[1] * n), (_lib.Error * n)(), (ctypes.c_void_p * n)()
    guests = [_lib.GuestLock(w._lock) for w in worlds]
    held = 0
    with _interrupt.sigint_guard():
        for w in worlds:
            if w._constant or w._ackermann:
                w._before_step()
        try:
            me = threading.current_thread()
            for i, (w, g) in enumerate(zip(worlds, guests)):
                g.real.acquire()
                held += 1
                engines[i] = w._engine()
                w._lock = g
                _lib.bind_engine(w._e, g)
                w._ticking, w._ticking_thread = True, me
            _lib.lib().raw.sn_engines_step(pool, engines, n, sts, errs, ctypes.byref(err))
        finally:
            for w, g in zip(worlds[:held], guests):
                w._ticking = False
                w._lock = g.real
                if w._e is not None:
                    _lib.bind_engine(w._e, g.real)
                g.real.release()
        for i, w in enumerate(worlds):
            try:
                if sts[i] == 1:  # the batch was refused before this engine stepped
                    check(-1, err)
                w._stepped(sts[i], errs[i])
            except BaseException as ex:
                out[i] = ex
    return out


def _step_stream(pool: int, worlds: list[World], order: Iterable[int], prepare: Callable, finish: Callable) -> None:
    """One step of some of `worlds` streamed through `pool` (sn_engines_step_begin/add/next), this
    thread's own work around each step overlapping the others' steps: prepare(i), for each i of
    `order` in turn, returns worlds[i] to step (or None: nothing to step), which is handed to the
    pool at once, a pool thread stepping it while the next prepare runs; finish(i, exc) runs here
    as soon as world i's step has ended (exc: its error, or None), while the others still step.
    This thread holds every world of `worlds` for the whole batch, as _step_batch does (a
    GuestLock owned by this thread): another thread's call waits for the batch, a listener's call
    into another world of the batch is refused. Its own calls into a world (prepare's, finish's,
    the callbacks they run) go in once that world's step has ended, waiting for it or stepping it
    here (sn_engines_step_wait), so that finish(i) sees every other world as the one-call batch
    shows it: stepped. Every world handed over is stepped and finished whatever raised; an error
    escaping prepare or finish is raised after the batch. The worlds are synchronous and
    distinct."""
    L = _lib.lib().raw
    err = _err()
    check(L.sn_engines_step_begin(pool, ctypes.byref(err)), err)
    me_t, me = threading.current_thread(), threading.get_ident()
    held: list = []  # (world, its GuestLock)
    added: list = []  # (i, world, its GuestLock), by the pool's index
    escaped: BaseException | None = None

    def finish_safely(i, ex):
        nonlocal escaped
        try:
            finish(i, ex)
        except BaseException as ex2:
            escaped = escaped or ex2

    with _interrupt.sigint_guard():
        try:
            for w in worlds:
                g = _lib.GuestLock(w._lock, me, pool)
                g.real.acquire()
                held.append((w, g))
                w._lock = g
                if w._e is not None:
                    _lib.bind_engine(w._e, g)
            for i in order:
                try:
                    w = prepare(i)
                    if w is None:
                        continue
                    if w._constant or w._ackermann:
                        w._before_step()
                    g, engine = w._lock, w._engine()
                    # ticking before the hand-over: a pool thread may run its listeners at once
                    g.index, w._ticking, w._ticking_thread = len(added), True, me_t
                    st_add = L.sn_engines_step_add(pool, engine, ctypes.byref(err))
                    if st_add:
                        g.index, w._ticking = None, False
                        check(st_add, err)
                    added.append((i, w, g))
                except BaseException as ex:
                    finish_safely(i, ex)
        finally:
            # every world handed over is reported, the pool free again, every world released
            idx, st, one = ctypes.c_size_t(), ctypes.c_int(), _lib.Error()
            while L.sn_engines_step_next(pool, ctypes.byref(idx), ctypes.byref(st), ctypes.byref(one)):
                i, w, g = added[idx.value]
                g.done = True
                w._ticking = False
                try:
                    w._stepped(st.value, one)
                except BaseException as ex:
                    finish_safely(i, ex)
                else:
                    finish_safely(i, None)
            for w, g in held:
                w._lock = g.real
                if w._e is not None:
                    _lib.bind_engine(w._e, g.real)
                g.real.release()
    if escaped is not None:
        raise escaped


# Worlds whose own thread runs: stopped before the interpreter tears down.
_ASYNC_WORLDS: "weakref.WeakSet[World]" = weakref.WeakSet()


@atexit.register
def _stop_all_async() -> None:
    for w in list(_ASYNC_WORLDS):
        w._stop_async()


def _async_speed() -> float:
    """$SENSIM_ASYNC_SPEED: simulated seconds per wall-clock second of the asynchronous mode
    (1: wall-clock pace, the default; 0: as fast as it steps)."""
    try:
        v = float(os.environ.get("SENSIM_ASYNC_SPEED", "1"))
    except ValueError:
        v = 1.0
    return v if v >= 0 else 1.0


def _run_async(wref, stop: threading.Event) -> None:
    """The asynchronous mode's thread: steps the world at wall-clock pace until stopped."""
    speed = _async_speed()
    next_t = time.monotonic()
    while not stop.is_set():
        w = wref()
        if w is None or w._e is None:
            return
        try:
            w._step()
            dt = w._clock().dt
        except BaseException as ex:  # raised again in the script's thread by its next call
            w._async_error = ex
            _log.error("asynchronous mode stopped: %s", ex)
            w._async = None
            _ASYNC_WORLDS.discard(w)
            with w._ticked:
                w._ticked.notify_all()
            return
        lk = w._lock
        del w
        if type(lk) is _lib.FairLock:
            # A call from another thread waits for the lock: it goes first, as a CARLA server
            # answers a client between ticks; without this, Python's unfair lock lets this
            # thread, behind pace, take it again at once and the call wait several steps.
            lk.wait_unwaited()
        del lk
        if speed > 0:
            next_t += dt / speed
            stop.wait(max(0.0, next_t - time.monotonic()))
            if next_t < time.monotonic() - 1.0:  # fell behind: do not race to catch up
                next_t = time.monotonic()
