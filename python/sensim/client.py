"""The closed loop in CARLA's shape: Client, World, the blueprint library, actors, listen, tick.

    import sensim as carla
    client = carla.Client("localhost", 2000)        # host and port are accepted and ignored
    world = client.load_world("maps/town.xodr")     # or client.load_scene("scenes/crash.yaml")
    bp = world.get_blueprint_library().find("vehicle.sedan")
    car = world.spawn_actor(bp, world.get_map().get_spawn_points()[0])
    cam = world.spawn_actor(lib.find("sensor.camera.rgb"), carla.Transform(carla.Location(1.5, 0, 2.4)),
                            attach_to=car)
    cam.listen(lambda image: image.save_to_disk("out/%06d.png" % image.frame))
    car.apply_control(carla.VehicleControl(throttle=0.5))
    frame = world.tick()                            # listeners run here, on this thread

There is no server: the engine runs in this process, always in synchronous mode; world.tick()
steps it once (the GIL is released while it steps) and calls the listeners of the sensors that
produced data, in the engine's fixed order, before it returns.
"""
from __future__ import annotations

import ctypes
import glob
import os
import tempfile
from typing import Callable, Iterable

from . import _lib
from ._common import _err, _log, _maps_dirs, _on_log  # noqa: F401 (kept importable from here)
from ._lib import SensimError, check
# Every name this module had before it was split stays importable from it.
from .actor import (Actor, ActorList, Sensor, Vehicle, VehicleLightState, VehicleWheelLocation,  # noqa: F401
                     Walker, _TWO_WHEELERS, _value_str)
from .blueprints import (ActorAttribute, ActorAttributeType, ActorBlueprint, BlueprintLibrary,  # noqa: F401
                         _AttrSpec, _strings)
from .world import AttachmentType, Timestamp, World, WorldSettings, WorldSnapshot, _Listener, _Spectator  # noqa: F401

__all__ = ["Client", "World", "WorldSettings", "WorldSnapshot", "Timestamp", "BlueprintLibrary",
           "ActorBlueprint", "ActorAttribute", "ActorAttributeType", "Actor", "Vehicle", "Walker", "Sensor",
           "ActorList", "AttachmentType"]


class Client:
    """CARLA's carla.Client, in process. It owns one World at a time: loading another closes it.

    Keyword arguments (sensim's): plugin_dir (searched before $SENSIM_PLUGIN_PATH; default the
    folder next to the library), threads (worker threads, 0 = every core; outputs do not
    depend on it), quiet (no warnings about refused plugins)."""

    def __init__(self, host: str = "localhost", port: int = 2000, worker_threads: int = 0, *,
                 plugin_dir: str | None = None, threads: int = 0, quiet: bool = False):
        _lib.lib()  # fail here, naming the paths tried, rather than at the first load
        self._plugin_dir = plugin_dir if plugin_dir is not None else _lib.plugin_dir()
        self._threads = threads
        self._quiet = quiet
        self._world: World | None = None
        self._tmp: tempfile.TemporaryDirectory | None = None

    # -- CARLA's connection calls: no server, nothing to wait for
    def set_timeout(self, seconds: float) -> None:
        """Accepted for CARLA scripts; nothing here waits on a network."""

    def get_client_version(self) -> str:
        return "0.1.0"

    get_server_version = get_client_version

    def _options(self, seed: int | None = None) -> _lib.EngineOptions:
        o = _lib.EngineOptions()
        o.plugin_dir = _lib.cstr(self._plugin_dir)
        o.threads = self._threads
        o.seed_set = seed is not None
        o.seed = seed or 0
        o.quiet_plugins = self._quiet
        o.log = _on_log
        return o

    def _new_engine(self, seed: int | None = None) -> int:
        err = _err()
        e = _lib.lib().sn_engine_create(ctypes.byref(self._options(seed)), ctypes.byref(err))
        if not e:
            raise SensimError(err.msg.decode(), err.status)
        return e

    def _not_in_step(self, what: str) -> None:
        if self._world is not None:
            self._world._not_in_step(what)

    def _replace(self, world: "World") -> "World":
        if self._world is not None:
            self._world.close()
        self._world = world
        return world

    def _scratch(self, name: str, text: str) -> str:
        if self._tmp is None:
            self._tmp = tempfile.TemporaryDirectory(prefix="sensim-")
        path = os.path.join(self._tmp.name, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def load_scene(self, path: str, overrides: Iterable[str] | dict | None = None,
                   seed: int | None = None) -> "World":
        """A scene file as the world (sensim's; CARLA has none). overrides are
        `sensim run --set` paths: ["actors.hero.control.throttle=0.7"] or {path: value}."""
        self._not_in_step("load_scene")
        if isinstance(overrides, dict):
            overrides = [f"{k}={v}" for k, v in overrides.items()]
        sets = [_lib.cstr(s) for s in (overrides or [])]
        e = self._new_engine(seed)
        err = _err()
        arr = (ctypes.c_char_p * max(1, len(sets)))(*sets)
        st = _lib.lib().sn_engine_load_scene_with_overrides(e, _lib.cstr(os.fspath(path)), arr, len(sets),
                                                             ctypes.byref(err))
        if st:
            _lib.lib().sn_engine_destroy(e)
            check(st, err)
        return self._replace(World(self, e, os.fspath(path), list(overrides or []), seed))

    def load_world(self, map_name: str | None = None, reset_settings: bool = True,
                   map_layers: int = 0, *, seed: int | None = None) -> "World":
        """A world on a map: an OpenDRIVE file (a path, or a name found in $SENSIM_MAPS or
        maps/: "town" or "town.xodr"), or, with no name, an empty world on a flat ground. A
        .yaml name loads that scene (as load_scene)."""
        self._not_in_step("load_world")
        if map_name and map_name.endswith((".yaml", ".yml", ".json")):
            return self.load_scene(map_name, seed=seed)
        if not map_name:
            text = ("# Client.load_world(): an empty world on a flat ground\nsettings: {fixed_delta_seconds: 0.05}\n"
                    "actors:\n  - {name: ground, blueprint: static.ground, attributes: {semantic_tag: Ground}}\n")
        else:
            path = self._find_map(map_name)
            # A terrain plane 2 cm under the roads carries what leaves them (the map's road mesh
            # covers its lanes only), as the ground around CARLA's roads does.
            text = (f"# Client.load_world({map_name!r})\nsettings: {{fixed_delta_seconds: 0.05}}\nmap: {path!r}\n"
                    "actors:\n  - {name: ground, blueprint: static.ground, transform: {location: [0, 0, -0.02]},"
                    " attributes: {semantic_tag: Terrain}}\n")
        return self.load_scene(self._scratch("world.yaml", text), seed=seed)

    def _find_map(self, name: str) -> str:
        if os.path.isfile(name):
            return os.path.abspath(name)
        tried = []
        for d in _maps_dirs():
            for cand in (name, name + ".xodr", name.lower() + ".xodr"):
                p = os.path.join(d, cand)
                tried.append(p)
                if os.path.isfile(p):
                    return os.path.abspath(p)
        raise SensimError(f"load_world: no map '{name}'; tried: {', '.join(dict.fromkeys(tried))}", -7)

    def get_available_maps(self) -> list[str]:
        """The OpenDRIVE files load_world finds by name."""
        return sorted({p for d in _maps_dirs() for p in glob.glob(os.path.join(d, "*.xodr"))})

    def reload_world(self, reset_settings: bool = True) -> "World":
        """The current world loaded again from its file (as CARLA, a new world)."""
        self._not_in_step("reload_world")
        w = self.get_world()
        return self.load_scene(w._path, w._overrides, w._seed)

    def get_world(self) -> "World":
        """The current world; an empty one when nothing was loaded yet."""
        if self._world is None or self._world._e is None:
            return self.load_world()
        return self._world

    # -- the recorder (sensim/sensim.h's recording calls; the recorder plugin writes the files)
    def start_recorder(self, filename: str, additional_data: bool = False) -> str:
        """Records the current world from its next tick (CARLA's start_recorder)."""
        return self.get_world()._start_recorder(filename, additional_data)

    def stop_recorder(self) -> None:
        if self._world is not None:
            self._world._stop_recorder()

    def replay_file(self, name: str, start: float = 0.0, duration: float = 0.0, follow_id: int = 0,
                    replay_sensors: bool = False, *, time_factor: float = 1.0, ignore_hero: bool = False,
                    scene: str | None = None) -> "World":
        """Loads a recording to replay as the world: each world.tick() then moves the recorded
        actors to their recorded poses (CARLA replays on the server's clock; here you tick).
        start < 0 counts from the end; duration 0 plays to the end. Returns the new world."""
        self._not_in_step("replay_file")
        e = self._new_engine()
        o = _lib.ReplayOptions(ctypes.sizeof(_lib.ReplayOptions), start, duration, time_factor, follow_id,
                               ignore_hero, replay_sensors, False, _lib.cstr(scene))
        err = _err()
        st = _lib.lib().sn_engine_load_replay(e, _lib.cstr(name), ctypes.byref(o), ctypes.byref(err))
        if st:
            _lib.lib().sn_engine_destroy(e)
            check(st, err)
        return self._replace(World(self, e, None, [], None, replay=name))

    def _query(self, filename: str, fn: str, *args) -> str:
        L = _lib.lib()
        err = _err()
        r = L.sn_recording_open(_lib.cstr(filename), ctypes.byref(self._options()), ctypes.byref(err))
        if not r:
            check(err.status or -5, err)
        try:
            return _memstream(lambda f: getattr(L, fn)(r, f, *args, ctypes.byref(err)), err)
        finally:
            L.sn_recording_close(r)

    def show_recorder_file_info(self, filename: str, show_all: bool = False) -> str:
        """CARLA's text: the header, and every frame's events with show_all."""
        return self._query(filename, "sn_recording_print_info", show_all, False)

    def show_recorder_collisions(self, filename: str, category1: str = "a", category2: str = "a") -> str:
        """Collisions between actor categories: h hero, v vehicle, w walker, t traffic light,
        o other, a any (CARLA's letters)."""
        return self._query(filename, "sn_recording_print_collisions", category1.encode()[:1],
                           category2.encode()[:1], False)

    def show_recorder_actors_blocked(self, filename: str, min_time: float = 30.0, min_distance: float = 100.0) -> str:
        """Actors that moved less than min_distance centimetres (CARLA's unit) in min_time seconds."""
        return self._query(filename, "sn_recording_print_blocked", float(min_time), float(min_distance) / 100.0, False)

    def apply_batch_sync(self, commands, do_tick: bool = False):
        raise NotImplementedError("apply_batch_sync: sensim has no command batches; call the actor methods "
                                  "(they cost no round trip in process)")

    apply_batch = apply_batch_sync


def _memstream(write: Callable, err: _lib.Error) -> str:
    """What a C call writes to a FILE*, as a string (open_memstream)."""
    libc = ctypes.CDLL(None)
    libc.open_memstream.restype = ctypes.c_void_p
    libc.open_memstream.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_size_t)]
    libc.fclose.argtypes = [ctypes.c_void_p]
    libc.free.argtypes = [ctypes.c_void_p]
    buf, size = ctypes.c_void_p(), ctypes.c_size_t()
    f = libc.open_memstream(ctypes.byref(buf), ctypes.byref(size))
    if not f:
        raise SensimError("open_memstream failed", -3)
    try:
        st = write(f)
    finally:
        libc.fclose(f)
        text = ctypes.string_at(buf, size.value).decode("utf-8", "replace") if buf.value else ""
        libc.free(buf)
    check(st, err)
    return text
<<<<<<< HEAD


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
        if self._ticking:
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


# ---- actors ----

class Actor:
    """CARLA's carla.Actor: a handle by id; every getter reads the engine now."""

    def __init__(self, world: World, info: _lib.ActorInfo):
        self._world = world
        self.id: int = info.id
        self.type_id: str = info.type_id.decode()
        self.name: str = (info.name or b"").decode()
        self.role_name: str = (info.role_name or b"").decode()
        self.semantic_tags: list[int] = [info.semantic_tag]
        self.bounding_box = BoundingBox(Location._from(info.bounding_box.location),
                                        Vector3D._from(info.bounding_box.extent))
        self._parent_id: int = info.parent_id

    def __repr__(self) -> str:
        return f"{type(self).__name__}(id={self.id}, type={self.type_id})"

    def __eq__(self, o) -> bool:
        return isinstance(o, Actor) and o.id == self.id and o._world is self._world

    def __hash__(self) -> int:
        return hash(self.id)

    def _info(self) -> _lib.ActorInfo:
        info = _lib.ActorInfo(struct_size=ctypes.sizeof(_lib.ActorInfo))
        if _lib.lib().sn_engine_actor_get(self._world._engine(), self.id, ctypes.byref(info)) != 0:
            raise SensimError(f"actor {self.id} ({self.type_id}) is not alive", -7)
        return info

    @property
    def is_alive(self) -> bool:
        info = _lib.ActorInfo(struct_size=ctypes.sizeof(_lib.ActorInfo))
        return self._world._e is not None and \
            _lib.lib().sn_engine_actor_get(self._world._e, self.id, ctypes.byref(info)) == 0

    @property
    def parent(self) -> "Actor | None":
        return self._world._wrap(self._parent_id) if self._parent_id else None

    @property
    def attributes(self) -> dict[str, str]:
        """What the actor was spawned with, CARLA-style strings, defaults included."""
        out = {}
        L, e = _lib.lib(), self._world._engine()
        name, v = ctypes.c_char_p(), _lib.Value()
        i = 0
        while L.sn_engine_actor_attribute_at(e, self.id, i, ctypes.byref(name), ctypes.byref(v), None) == 0:
            out[name.value.decode()] = _value_str(v)
            i += 1
        return out

    def get_world(self) -> World:
        return self._world

    def get_transform(self) -> Transform:
        return Transform._from(self._info().transform)

    def get_location(self) -> Location:
        return Location._from(self._info().transform.location)

    def get_velocity(self) -> Vector3D:
        return Vector3D._from(self._info().velocity)

    def get_angular_velocity(self) -> Vector3D:
        return Vector3D._from(self._info().angular_velocity)

    def get_acceleration(self) -> Vector3D:
        return Vector3D._from(self._info().acceleration)

    def _call(self, fn: str, *args) -> None:
        err = _err()
        check(getattr(_lib.lib(), fn)(self._world._engine(), self.id, *args, ctypes.byref(err)), err)

    def set_transform(self, transform: Transform) -> None:
        """Teleports (velocities kept); for an attached actor, its new mount."""
        self._call("sn_engine_set_transform", ctypes.byref(transform._c()))

    def set_location(self, location: Location) -> None:
        t = self.get_transform()
        self.set_transform(Transform(location, t.rotation))

    def set_target_velocity(self, velocity: Vector3D) -> None:
        self._call("sn_engine_set_velocity", velocity._c(), self._info().angular_velocity)

    def set_target_angular_velocity(self, angular_velocity: Vector3D) -> None:
        self._call("sn_engine_set_velocity", self._info().velocity, angular_velocity._c())

    def set_simulate_physics(self, enabled: bool = True) -> None:
        self._call("sn_engine_set_simulate_physics", bool(enabled))

    def set_target_transform(self, transform: Transform) -> None:
        """A kinematic actor's pose at the end of the next tick (sensim's)."""
        self._call("sn_engine_set_target_transform", ctypes.byref(transform._c()))

    def destroy(self) -> bool:
        """Destroys the actor and everything attached to it; False if it was already gone."""
        if not self.is_alive:
            return False
        self._call("sn_engine_destroy_actor")
        self._world._actors.pop(self.id, None)
        return True


def _value_str(v: _lib.Value) -> str:
    t = v.type
    if t == 0:
        return "true" if v.b else "false"
    if t == 1:
        return str(v.i)
    if t == 2:
        return repr(v.f) if v.f != int(v.f) else str(int(v.f))
    if t == 4:
        return f"{v.rgb[0]},{v.rgb[1]},{v.rgb[2]}"
    return (v.s or b"").decode()


# CARLA's two-wheelers: wheel 1 is their rear wheel (VehicleWheelLocation.Back_Wheel).
_TWO_WHEELERS = frozenset({"vehicle.bh.crossbike", "vehicle.diamondback.century", "vehicle.gazelle.omafiets",
                           "vehicle.harley-davidson.low_rider", "vehicle.kawasaki.ninja", "vehicle.yamaha.yzf",
                           "vehicle.vespa.zx125"})


class VehicleLightState(enum.IntFlag):
    """CARLA's carla.VehicleLightState: a vehicle's lights as bits (docs/vehicle-lights.md)."""
    NONE = 0
    Position = 0x1
    LowBeam = 0x1 << 1
    HighBeam = 0x1 << 2
    Brake = 0x1 << 3
    RightBlinker = 0x1 << 4
    LeftBlinker = 0x1 << 5
    Reverse = 0x1 << 6
    Fog = 0x1 << 7
    Interior = 0x1 << 8
    Special1 = 0x1 << 9
    Special2 = 0x1 << 10
    All = 0xFFFFFFFF


class VehicleWheelLocation(enum.IntEnum):
    """CARLA's carla.VehicleWheelLocation."""
    FL_Wheel = 0
    FR_Wheel = 1
    BL_Wheel = 2
    BR_Wheel = 3
    Front_Wheel = 0
    Back_Wheel = 1


class Vehicle(Actor):
    """CARLA's carla.Vehicle."""

    def set_light_state(self, light_state) -> None:
        """CARLA's set_light_state: a VehicleLightState (or its bits as an int)."""
        self._call("sn_engine_set_vehicle_light_state", int(light_state) & 0xFFFFFFFF)

    def get_light_state(self) -> VehicleLightState:
        return VehicleLightState(self._info().light_state)

    def get_wheel_steer_angle(self, wheel_location) -> float:
        """CARLA's: the wheel's steer angle in degrees (front wheels turn, rear wheels stay at 0)."""
        front = int(wheel_location) in (0, 1) and not (self.type_id in _TWO_WHEELERS and int(wheel_location) == 1)
        return float(self._info().wheel_steer_angle) if front else 0.0

    def apply_control(self, control: VehicleControl) -> None:
        """Held until changed; values outside their ranges are refused. Turns autopilot off."""
        self._call("sn_engine_apply_control", ctypes.byref(control._c()))

    def get_control(self) -> VehicleControl:
        c = self._info().control
        return VehicleControl(c.throttle, c.steer, c.brake, c.hand_brake, c.reverse)

    def set_autopilot(self, enabled: bool = True, tm_port: int = 8000, *, target_speed: float = -1.0,
                      distance_to_leading_vehicle: float = float("nan"),
                      vehicle_percentage_speed_difference: float = float("nan"),
                      ignore_lights_percentage: float = float("nan")) -> None:
        """CARLA's set_autopilot: on a map, follow the lanes through junctions on a seeded random
        route, keep a gap, stop at red lights; off, keep the last control. tm_port is accepted for
        CARLA scripts and ignored (the traffic manager is in-process). The keyword knobs are
        the Traffic Manager's per-vehicle settings (NaN: its default); target_speed < 0 drives
        at the lane's limit."""
        del tm_port
        o = _lib.AutopilotOptions(ctypes.sizeof(_lib.AutopilotOptions), target_speed, distance_to_leading_vehicle,
                                  vehicle_percentage_speed_difference, ignore_lights_percentage)
        self._call("sn_engine_set_autopilot", bool(enabled), ctypes.byref(o))

    def get_speed_limit(self) -> float:
        return 0.0


class Walker(Actor):
    """CARLA's carla.Walker."""

    def apply_control(self, control: WalkerControl) -> None:
        self._call("sn_engine_apply_walker_control", ctypes.byref(control._c()))


class Sensor(Actor):
    """CARLA's carla.Sensor: listen(callback) gets one data object per measurement, during
    world.tick(), on the thread that ticks. Pixel and event arrays are views on the engine's
    buffer, valid only during the callback: copy what you keep (np.array(image.raw_data))."""

    @property
    def is_listening(self) -> bool:
        lst = self._world._listeners.get(self.name)
        return lst is not None and lst.callback is not None

    def listen(self, callback: Callable) -> None:
        if not self.is_alive:
            raise SensimError(f"listen: sensor {self.id} is not alive", -7)
        self._world._listen(self.name, callback)

    def stop(self) -> None:
        self._world._unlisten(self.name)

    def call(self, method: str, *args: str) -> None:
        """Calls a sensor method by name (sensim's; e.g. a custom V2X sensor's "send")."""
        argv = (ctypes.c_char_p * max(1, len(args)))(*[str(a).encode() for a in args])
        err = _err()
        check(_lib.lib().sn_engine_call(self._world._engine(), self.name.encode(), method.encode(), len(args),
                                        argv, ctypes.byref(err)), err)

    def send(self, data: str) -> None:
        """CARLA's custom V2X send(data)."""
        self.call("send", data)


class ActorList(list):
    """CARLA's carla.ActorList: a list with filter and find."""

    def filter(self, wildcard_pattern: str) -> "ActorList":
        return ActorList(a for a in self if fnmatch.fnmatchcase(a.type_id, wildcard_pattern))

    def find(self, actor_id: int) -> "Actor | None":
        return next((a for a in self if a.id == actor_id), None)


# ---- the blueprint library ----

class ActorAttributeType:
    Bool, Int, Float, String, RGBColor, Enum = "bool", "int", "float", "string", "rgb", "enum"


class _AttrSpec:
    """An attribute definition copied out of the engine (its tables live only as long as it)."""
    __slots__ = ("type", "default", "recommended", "choices", "min", "max", "unit", "doc")

    def __init__(self, d: _lib.AttrDef | None):
        self.type = _lib.lib().sn_attr_type_name(d.type).decode() if d else "string"
        self.default = (d.default or b"").decode() if d else ""
        self.recommended = _strings(d.recommended) if d else []
        self.choices = _strings(d.choices) if d else []
        self.min = d.min if d and d.has_range else None
        self.max = d.max if d and d.has_range else None
        self.unit = (d.unit or b"").decode() if d else ""
        self.doc = (d.doc or b"").decode() if d else "the sensor's name in streams and listen (host's)"


class ActorAttribute:
    """One attribute of a blueprint: id, type, value (a string, CARLA's), recommended_values,
    and, sensim's, choices, min, max, unit, doc."""

    def __init__(self, spec: _AttrSpec, name: str, value: str):
        self.id = name
        self.type = spec.type
        self.recommended_values = list(spec.recommended)
        self.choices = list(spec.choices)
        self.min, self.max = spec.min, spec.max
        self.unit, self.doc = spec.unit, spec.doc
        self.is_modifiable = True
        self.value = value

    def __repr__(self) -> str:
        return f"ActorAttribute(id={self.id}, type={self.type}, value={self.value})"

    def __str__(self) -> str:
        return self.value

    def as_bool(self) -> bool:
        return self.value.lower() in ("true", "1")

    def as_int(self) -> int:
        return int(self.value)

    def as_float(self) -> float:
        return float(self.value)

    def as_str(self) -> str:
        return self.value

    def as_color(self) -> tuple[int, int, int]:
        return tuple(int(x) for x in self.value.split(","))


def _strings(p) -> list[str]:
    out = []
    if p:
        i = 0
        while p[i]:
            out.append(p[i].decode())
            i += 1
    return out


class ActorBlueprint:
    """CARLA's carla.ActorBlueprint. set_attribute values are checked by the engine at spawn,
    with its message; unknown attribute names are refused here (IndexError, as CARLA)."""

    def __init__(self, bp_id: str, kind: int, doc: str, defs: dict[str, _AttrSpec]):
        self.id = bp_id
        self.kind = kind
        self.doc = doc
        self.tags = bp_id.split(".")
        self._defs = defs
        self._values: dict[str, str] = {}

    def __repr__(self) -> str:
        return f"ActorBlueprint(id={self.id}, tags={self.tags})"

    def __iter__(self) -> Iterator[ActorAttribute]:
        return iter(self.get_attribute(k) for k in self._defs)

    def __len__(self) -> int:
        return len(self._defs)

    def has_tag(self, tag: str) -> bool:
        return tag in self.tags

    def match_tags(self, wildcard_pattern: str) -> bool:
        return fnmatch.fnmatchcase(self.id, wildcard_pattern) or \
            any(fnmatch.fnmatchcase(t, wildcard_pattern) for t in self.tags)

    def has_attribute(self, id: str) -> bool:
        return id in self._defs

    def get_attribute(self, id: str) -> ActorAttribute:
        if id not in self._defs:
            raise IndexError(f"blueprint '{self.id}' has no attribute '{id}'")
        spec = self._defs[id]
        return ActorAttribute(spec, id, self._values.get(id, spec.default))

    def set_attribute(self, id: str, value) -> None:
        if id not in self._defs:
            raise IndexError(f"blueprint '{self.id}' has no attribute '{id}' (it has: {', '.join(self._defs)})")
        if isinstance(value, bool):
            value = "true" if value else "false"
        self._values[id] = str(value)

    def _copy(self) -> "ActorBlueprint":
        b = ActorBlueprint(self.id, self.kind, self.doc, self._defs)
        b._values = dict(self._values)
        return b


class BlueprintLibrary:
    """CARLA's carla.BlueprintLibrary: find(id), filter(wildcard), iteration. find and indexing
    hand out copies, so attributes set on one blueprint do not leak into the next find."""

    def __init__(self, bps: list[ActorBlueprint]):
        self._bps = bps

    @classmethod
    def _from_handle(cls, h: int) -> "BlueprintLibrary":
        """Copies every blueprint out of an sn_blueprints list, then closes it."""
        L = _lib.lib()
        bps = []
        err = _err()
        try:
            for i in range(L.sn_blueprints_count(h)):
                b = _lib.BlueprintInfo(struct_size=ctypes.sizeof(_lib.BlueprintInfo))
                check(L.sn_blueprints_get(h, i, ctypes.byref(b), ctypes.byref(err)), err)
                defs = {b.attrs[k].contents.name.decode(): _AttrSpec(b.attrs[k].contents) for k in range(b.n_attrs)}
                if b.kind == _KIND_SENSOR:
                    defs.setdefault("role_name", _AttrSpec(None))  # handled by the host, not listed
                bps.append(ActorBlueprint(b.id.decode(), b.kind, (b.doc or b"").decode(), defs))
        finally:
            L.sn_blueprints_close(h)
        return cls(bps)

    def __len__(self) -> int:
        return len(self._bps)

    def __iter__(self) -> Iterator[ActorBlueprint]:
        return iter([b._copy() for b in self._bps])

    def __getitem__(self, i: int) -> ActorBlueprint:
        return self._bps[i]._copy()

    def __repr__(self) -> str:
        return f"BlueprintLibrary({[b.id for b in self._bps]})"

    def find(self, id: str) -> ActorBlueprint:
        for b in self._bps:
            if b.id == id:
                return b._copy()
        raise IndexError(f"no blueprint '{id}' (see `sensim blueprints`)")

    def filter(self, wildcard_pattern: str) -> "BlueprintLibrary":
        return BlueprintLibrary([b for b in self._bps if b.match_tags(wildcard_pattern)])

    def filter_by_attribute(self, name: str, value: str) -> "BlueprintLibrary":
        return BlueprintLibrary([b for b in self._bps if b.has_attribute(name)
                                 and b.get_attribute(name).value == value])
=======
>>>>>>> main
