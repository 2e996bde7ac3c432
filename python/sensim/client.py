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
import enum
import glob
import os
import tempfile
from typing import Callable, Iterable

from . import _lib
from . import _common
from ._common import _check_seed, _err, _log, _maps_dirs, _on_log  # noqa: F401 (kept importable from here)
from .command import run_batch
from ._lib import SensimError, check
# Every name this module had before it was split stays importable from it.
from .actor import (Actor, ActorList, Sensor, Vehicle, VehicleLightState, VehicleWheelLocation,  # noqa: F401
                     Walker, _TWO_WHEELERS, _value_str)
from .blueprints import (ActorAttribute, ActorAttributeType, ActorBlueprint, BlueprintLibrary,  # noqa: F401
                         _AttrSpec, _strings)
from .world import AttachmentType, Timestamp, World, WorldSettings, WorldSnapshot, _Listener  # noqa: F401

__all__ = ["Client", "World", "WorldSettings", "WorldSnapshot", "Timestamp", "BlueprintLibrary",
           "ActorBlueprint", "ActorAttribute", "ActorAttributeType", "Actor", "Vehicle", "Walker", "Sensor",
           "ActorList", "AttachmentType"]


def _override_value(v) -> str:
    """An override's value as text: an int enum (VehicleLightState, ...) by its number, which
    the scene reads, not its CARLA name."""
    return str(int(v)) if isinstance(v, enum.Enum) and isinstance(v, int) else str(v)


class Client:
    """CARLA's carla.Client, in process. It owns one World at a time: loading another closes it.

    Keyword arguments (sensim's): plugin_dir (searched before $SENSIM_PLUGIN_PATH, which is searched
    before the folder next to the library; default $SENSIM_PLUGIN_DIR), threads (worker threads, 0 = every core; outputs do not
    depend on it), quiet (no warnings about refused plugins)."""

    def __init__(self, host: str = "localhost", port: int = 2000, worker_threads: int = 0, *,
                 plugin_dir: str | None = None, threads: int = 0, quiet: bool = False):
        if not isinstance(port, int) or isinstance(port, bool) or not 0 <= port <= 65535:
            raise TypeError(f"Client: port must be an int within [0, 65535], not {port!r}")
        if not isinstance(worker_threads, int) or worker_threads < 0:
            raise TypeError(f"Client: worker_threads must be an int >= 0, not {worker_threads!r}")
        self.host, self.port = str(host), port
        self._timeout = 5.0
        _lib.lib()  # fail here, naming the paths tried, rather than at the first load
        # the engine then searches $SENSIM_PLUGIN_PATH and, last, the folder of the libsensim it
        # runs from (<build>/plugins, <libdir>/sensim/plugins): the CLI's order
        self._plugin_dir = plugin_dir if plugin_dir is not None else os.environ.get("SENSIM_PLUGIN_DIR") or None
        self._threads = threads
        self._quiet = quiet
        self._world: World | None = None
        self._replayer = {"time_factor": 1.0, "ignore_hero": False, "ignore_spectator": True}
        self._tmp: tempfile.TemporaryDirectory | None = None

    # -- CARLA's connection calls: no server, nothing to wait for
    def set_timeout(self, seconds: float) -> None:
        """Accepted for CARLA scripts; nothing here waits on a network (wait_for_tick has its own)."""
        self._timeout = float(seconds)

    def get_client_version(self) -> str:
        # libsensim's own string (meson.build's project version, checked there): no copy to drift
        return _lib.lib().sn_version().decode()

    get_server_version = get_client_version

    def _options(self, seed: int | None = None) -> _lib.EngineOptions:
        o = _lib.EngineOptions()
        o.plugin_dir = _lib.cstr(self._plugin_dir)
        o.threads = self._threads
        o.seed_set = seed is not None
        o.seed = _check_seed(seed, "seed") if seed is not None else 0
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
            self._world._gone = "the client loaded another world"
        self._world = world
        mcap_path = _common.CARLA_MODE.get("mcap")
        if mcap_path and not world._replay:
            # `python3 -m sensim.carla --mcap FILE`: every world the script gets is written, the
            # first to FILE, later ones (after a load_world) to FILE-2.mcap, FILE-3.mcap, ...
            n = _common.CARLA_MODE["mcap_worlds"] = _common.CARLA_MODE.get("mcap_worlds", 0) + 1
            root, ext = os.path.splitext(mcap_path)
            world.record_mcap(mcap_path if n == 1 else f"{root}-{n}{ext or '.mcap'}", overwrite=True)
        if _common.CARLA_MODE["asynchronous"] and not world._replay:
            # `python3 -m sensim.carla`: a new world runs by itself, as a CARLA server's does
            s = world.get_settings()
            s.synchronous_mode = False
            world.apply_settings(s)
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
            overrides = [f"{k}={_override_value(v)}" for k, v in overrides.items()]
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

    def load_scenario(self, path: str, parameters: dict | None = None, overrides: Iterable[str] | dict | None = None,
                      seed: int | None = None) -> "World":
        """An ASAM OpenSCENARIO file (.xosc), or a scene wrapping one (`scenario:`), as the world
        (docs/openscenario.md). parameters: {NAME: VALUE} for the file's top-level
        ParameterDeclarations (as --set parameters.NAME=VALUE; an undeclared name raises);
        overrides: more --set paths ({"settings.fixed_delta_seconds": 0.01}). Each world.tick()
        plays one step of the storyboard; world.get_scenario() says whether it has ended. An
        entity with an external controller is the caller's once activated: drive it between ticks
        (actor.set_target_transform, or set_simulate_physics and apply_control)."""
        if isinstance(overrides, dict):
            overrides = [f"{k}={_override_value(v)}" for k, v in overrides.items()]
        sets = list(overrides or [])
        for name, value in (parameters or {}).items():
            if not isinstance(name, str) or not name or any(c in name for c in "=.\0"):
                raise ValueError(f"load_scenario: parameter name {name!r} is not a parameter's name")
            if isinstance(value, bool):
                value = "true" if value else "false"
            sets.append(f"parameters.{name}={value}")
        return self.load_scene(path, sets, seed)

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
        # CARLA's names: '/Game/Carla/Maps/Town01', 'Town10HD_Opt', 'Carla/Maps/Town01'
        name = os.path.basename(name.rstrip("/"))
        if name.endswith("_Opt"):
            name = name[:-4]
        tried = []
        for d in _maps_dirs():
            for cand in (name, name + ".xodr", name.lower() + ".xodr"):
                p = os.path.join(d, cand)
                tried.append(p)
                if os.path.isfile(p):
                    return os.path.abspath(p)
        raise SensimError(f"load_world: no map '{name}'; tried: {', '.join(dict.fromkeys(tried))}", -7)

    def get_available_maps(self) -> list[str]:
        """The OpenDRIVE files load_world finds by name (paths: load_world takes them, or their
        base names, as CARLA's take '/Game/Carla/Maps/Town01' or 'Town01')."""
        return sorted({os.path.abspath(p) for d in _maps_dirs() for p in glob.glob(os.path.join(d, "*.xodr"))})

    def _default_town(self) -> str:
        """$SENSIM_TOWN (a name found on $SENSIM_MAPS, or a path), else the project's own town."""
        town = os.environ.get("SENSIM_TOWN")
        if town:
            return self._find_map(town)
        for d in _common._town_dirs():
            p = os.path.join(d, "town.xodr")
            if os.path.isfile(p):
                return os.path.abspath(p)
        raise SensimError("get_world: no town: set SENSIM_TOWN, or install sensim (its town is installed "
                          "with the package)", -7)

    def reload_world(self, reset_settings: bool = True) -> "World":
        """The current world loaded again from its file (as CARLA, a new world)."""
        self._not_in_step("reload_world")
        w = self.get_world()
        return self.load_scene(w._path, w._overrides, w._seed)

    def get_trafficmanager(self, client_connection: int = 8000) -> "TrafficManager":
        """CARLA's Traffic Manager of a port, in process (sensim/traffic.py, docs/traffic.md)."""
        from .traffic import TrafficManager
        return TrafficManager(self, client_connection)

    def get_world(self) -> "World":
        """The current world. Before any load, as a CARLA server always has a town: the town
        named by $SENSIM_TOWN, else the project's own town (installed with the package).
        load_world() without a name still gives an empty world on a flat ground."""
        if self._world is None or self._world._e is None:
            return self.load_world(self._default_town())
        return self._world

    # -- the recorder (sensim/sensim.h's recording calls; the recorder plugin writes the files)
    def start_recorder(self, name: str, additional_data: bool = False) -> str:
        """Records the current world from its next tick (CARLA's start_recorder(name,
        additional_data)): a relative name is written under the current folder."""
        if not isinstance(name, (str, os.PathLike)) or not os.fspath(name):
            raise TypeError(f"start_recorder: name must be a file name, not {name!r}")
        return self.get_world()._start_recorder(name, bool(additional_data))

    def stop_recorder(self) -> None:
        if self._world is not None:
            self._world._stop_recorder()

    def replay_file(self, name: str, start: float = 0.0, duration: float = 0.0, follow_id: int = 0,
                    replay_sensors: bool = False, replay_weather: bool = False, offset=None,
                    map_override: str = "", *, time_factor: float | None = None, ignore_hero: bool | None = None,
                    scene: str | None = None) -> str:
        """CARLA 0.9.16's replay_file(name, start, duration, follow_id, replay_sensors,
        replay_weather, offset, map_override): loads the recording as the world; each frame of
        the world (world.tick(), or its own thread in asynchronous mode) then moves the recorded
        actors to their recorded poses. start < 0 counts from the end; duration 0 plays to the
        end. replay_weather is always on (the weather is recorded); offset must be the identity
        and map_override empty (sensim replays on the recording's map). The time factor and
        ignore-hero flag set with set_replayer_* apply. Returns CARLA's info text."""
        self._not_in_step("replay_file")
        if offset is not None and (offset.location.length() > 0 or (offset.rotation.pitch, offset.rotation.yaw,
                                                                    offset.rotation.roll) != (0, 0, 0)):
            raise SensimError("replay_file: offset is not supported (sensim replays where it was recorded)", -1)
        if map_override:
            raise SensimError("replay_file: map_override is not supported (the recording names its map)", -1)
        tf = self._replayer["time_factor"] if time_factor is None else float(time_factor)
        hero = self._replayer["ignore_hero"] if ignore_hero is None else bool(ignore_hero)
        e = self._new_engine()
        o = _lib.ReplayOptions(ctypes.sizeof(_lib.ReplayOptions), float(start), float(duration), tf, int(follow_id),
                               hero, bool(replay_sensors), False, _lib.cstr(scene))
        err = _err()
        st = _lib.lib().sn_engine_load_replay(e, _lib.cstr(os.fspath(name)), ctypes.byref(o), ctypes.byref(err))
        if st:
            _lib.lib().sn_engine_destroy(e)
            check(st, err)
        w = self._replace(World(self, e, None, [], None, replay=os.fspath(name)))
        if _common.CARLA_MODE["asynchronous"]:
            s = w.get_settings()
            s.synchronous_mode = False
            w.apply_settings(s)  # a replay started from a CARLA script plays by itself
        return f"Replaying file '{name}' from {start} s (duration {duration or 'all'})"

    def set_replayer_time_factor(self, time_factor: float = 1.0) -> None:
        """The speed of the next replay_file (CARLA's; 1 = recorded speed)."""
        if not float(time_factor) > 0:
            raise SensimError(f"set_replayer_time_factor: {time_factor} must be > 0", -2)
        self._replayer["time_factor"] = float(time_factor)

    def set_replayer_ignore_hero(self, ignore_hero: bool) -> None:
        self._replayer["ignore_hero"] = bool(ignore_hero)

    def set_replayer_ignore_spectator(self, ignore_spectator: bool) -> None:
        """Accepted: sensim records no spectator."""
        self._replayer["ignore_spectator"] = bool(ignore_spectator)

    def stop_replayer(self, keep_actors: bool = False) -> None:
        """Ends the replay: the world stops moving the recorded actors (keep_actors: they stay,
        as CARLA's; otherwise they are destroyed)."""
        w = self._world
        if w is None or not w._replay:
            return
        w._stop_async()
        if not keep_actors:
            for a in w.get_actors():
                if not a.type_id.startswith(("sensor.", "static.", "traffic.")):
                    try:
                        a.destroy()
                    except SensimError:
                        pass

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

    def apply_batch(self, commands, do_tick: bool = False) -> None:
        """CARLA's apply_batch: the carla.command list run in order (errors are dropped, as CARLA's)."""
        run_batch(self, commands, do_tick, False)

    def apply_batch_sync(self, commands, do_tick: bool = False) -> list:
        """CARLA's apply_batch_sync: the commands run in order, one Response each (error, actor_id),
        then one tick when do_tick."""
        return run_batch(self, commands, do_tick, True)

    def generate_opendrive_world(self, opendrive: str, parameters=None, reset_settings: bool = True) -> "World":
        """CARLA's: a world on an OpenDRIVE text (written to a scratch file, then load_world)."""
        return self.load_world(self._scratch("opendrive.xodr", opendrive))

    def get_required_files(self, folder: str = "", download: bool = True) -> list:
        return []  # everything is local


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
