"""libsensim through ctypes: finding the library, the C structs, the function prototypes.

The structs mirror sdk/include/sensim/*.h member for member; their layouts are frozen and
pinned by tests/unit/test_layout.c, and python/tests/test_layout.py compares these against a
C program compiled from the same headers. Nothing here is public: the CARLA-shaped classes
in client.py, data.py and map.py are.
"""
from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import glob
import os
import threading
import sysconfig
from ctypes import (CFUNCTYPE, POINTER, Structure, c_bool, c_char, c_char_p, c_double, c_int, c_int32,
                    c_int64, c_size_t, c_uint8, c_uint32, c_uint64, c_void_p)

__all__ = ["SensimError", "lib", "library_path", "plugin_dir"]


class SensimError(RuntimeError):
    """An engine call failed. str() is the engine's sentence (sn_error.msg); `status` its code
    (sensim.h's sn_status: -1 invalid, -2 range, -4 state, -5 io, -7 not found, -8 plugin...)."""

    def __init__(self, msg: str, status: int = -1):
        super().__init__(msg)
        self.status = status


# ---- structs (sensim/types.h, attr.h, sensim.h, map.h) ----

class Vec3(Structure):
    _fields_ = [("x", c_double), ("y", c_double), ("z", c_double)]


class Rot(Structure):
    _fields_ = [("pitch", c_double), ("yaw", c_double), ("roll", c_double)]


class Xform(Structure):
    _fields_ = [("location", Vec3), ("rotation", Rot)]


class BBox(Structure):
    _fields_ = [("location", Vec3), ("extent", Vec3)]


class VehControl(Structure):
    _fields_ = [("throttle", c_double), ("steer", c_double), ("brake", c_double), ("hand_brake", c_bool),
                ("reverse", c_bool)]


class WalkControl(Structure):
    _fields_ = [("direction", Vec3), ("speed", c_double)]


WEATHER_FIELDS = ("cloudiness", "precipitation", "precipitation_deposits", "wind_intensity", "sun_azimuth_angle",
                  "sun_altitude_angle", "fog_density", "fog_distance", "fog_falloff", "wetness",
                  "scattering_intensity", "mie_scattering_scale", "rayleigh_scattering_scale", "dust_storm")


class Weather(Structure):
    """sensim/types.h sn_weather: CARLA's WeatherParameters, 14 doubles in CARLA's order."""
    _fields_ = [(n, c_double) for n in WEATHER_FIELDS]


class AutopilotOptions(Structure):
    _fields_ = [("struct_size", c_uint32), ("target_speed", c_double), ("distance_to_leading_vehicle", c_double),
                ("vehicle_percentage_speed_difference", c_double), ("ignore_lights_percentage", c_double),
                ("tm_port", c_uint32)]


class Ray(Structure):  # sensim/query.h sn_ray
    _fields_ = [("origin", Vec3), ("direction", Vec3), ("max_distance", c_double)]


class RayHit(Structure):  # sensim/types.h sn_ray_hit (ABI 1.5)
    _fields_ = [("struct_size", c_uint32), ("distance", c_double), ("point", Vec3), ("normal", Vec3),
                ("actor_id", c_uint32), ("semantic_tag", c_uint8), ("velocity", Vec3), ("reflectivity", c_double)]


class RayResult(Structure):  # sensim/query.h sn_ray_result
    _fields_ = [("n_hits", c_uint32), ("n_found", c_uint32), ("hit", RayHit)]


class RayQuery(Structure):  # sensim/query.h sn_ray_query
    _fields_ = [("struct_size", c_uint32), ("ray_size", c_uint32), ("result_size", c_uint32), ("hit_size", c_uint32),
                ("mode", c_int), ("ignore_ids", POINTER(c_uint32)), ("n_ignore", c_uint32), ("tag_mask", c_uint32),
                ("kind_mask", c_uint32), ("hits", POINTER(RayHit)), ("max_hits", c_uint32),
                ("ray_ignore", c_void_p), ("overlap_size", c_uint32)]  # ABI 1.6


class RayCompact(Structure):  # sensim/query.h sn_ray_compact: one caller array per field in the mask
    _fields_ = [("struct_size", c_uint32), ("fields", c_uint32), ("hit", c_void_p), ("distance", c_void_p),
                ("actor_id", c_void_p), ("semantic_tag", c_void_p), ("normal", c_void_p), ("reflectivity", c_void_p)]


STEERING_CURVE_MAX, FORCE_CURVE_MAX = 16, 64  # sensim.h SN_STEERING_CURVE_MAX, SN_FORCE_CURVE_MAX


class VehiclePhysics(Structure):  # sensim.h sn_vehicle_physics
    _fields_ = [("struct_size", c_uint32), ("mass", c_double), ("max_power", c_double), ("max_force", c_double),
                ("max_steer_angle", c_double), ("tire_friction", c_double), ("drag_coefficient", c_double),
                ("center_of_mass", Vec3), ("n_steering_curve", c_uint32),
                ("steering_curve", (c_double * 2) * STEERING_CURVE_MAX), ("n_force_curve", c_uint32),
                ("force_curve", (c_double * 2) * FORCE_CURVE_MAX)]


class ActorInfo(Structure):
    _fields_ = [("struct_size", c_uint32), ("id", c_uint32), ("parent_id", c_uint32), ("kind", c_int),
                ("type_id", c_char_p), ("name", c_char_p), ("role_name", c_char_p), ("semantic_tag", c_uint8),
                ("bounding_box", BBox), ("transform", Xform), ("velocity", Vec3), ("angular_velocity", Vec3),
                ("acceleration", Vec3), ("control", VehControl), ("wheel_steer_angle", c_double),
                ("light_state", c_uint32)]


class Clock(Structure):
    _fields_ = [("frame", c_uint64), ("timestamp", c_double), ("dt", c_double), ("time_ns", c_int64),
                ("dt_ns", c_int64)]


class Error(Structure):
    _fields_ = [("status", c_int), ("msg", c_char * 1024)]


LOG_FN = CFUNCTYPE(None, c_int, c_char_p, c_void_p)


class EngineOptions(Structure):
    _fields_ = [("plugin_dir", c_char_p), ("threads", c_int), ("seed_set", c_bool), ("seed", c_uint64),
                ("quiet_plugins", c_bool), ("log", LOG_FN), ("log_user", c_void_p)]


class Message(Structure):
    _fields_ = [("sensor", c_char_p), ("type_id", c_char_p), ("sensor_id", c_uint32), ("frame", c_uint64),
                ("timestamp", c_double), ("data", c_void_p), ("size", c_size_t)]


LISTEN_FN = CFUNCTYPE(None, POINTER(Message), c_void_p)


class Attribute(Structure):
    _fields_ = [("key", c_char_p), ("value", c_char_p)]


class ActorDesc(Structure):
    _fields_ = [("struct_size", c_uint32), ("blueprint", c_char_p), ("name", c_char_p), ("transform", Xform),
                ("parent_id", c_uint32), ("id", c_uint32), ("attributes", POINTER(Attribute)),
                ("n_attributes", c_uint32)]


class Value(Structure):
    _fields_ = [("type", c_int), ("b", c_bool), ("i", c_int64), ("f", c_double), ("s", c_char_p),
                ("rgb", c_uint8 * 3)]


class AttrDef(Structure):
    _fields_ = [("name", c_char_p), ("type", c_int), ("default", c_char_p), ("recommended", POINTER(c_char_p)),
                ("choices", POINTER(c_char_p)), ("has_range", c_bool), ("min", c_double), ("max", c_double),
                ("unit", c_char_p), ("doc", c_char_p)]


class RecField(Structure):  # sensim/records.h (SDK 1.6)
    _fields_ = [("name", c_char_p), ("type", c_int), ("offset", c_uint32), ("unit", c_char_p)]


class RecLayout(Structure):
    _fields_ = [("key", c_char_p), ("name", c_char_p), ("size", c_uint32), ("fields", c_void_p),
                ("n_fields", c_uint32), ("field_size", c_uint32), ("doc", c_char_p)]


class BlueprintInfo(Structure):
    _fields_ = [("struct_size", c_uint32), ("id", c_char_p), ("kind", c_int), ("doc", c_char_p),
                ("plugin", c_char_p), ("n_attrs", c_uint32), ("attrs", POINTER(POINTER(AttrDef))),
                ("n_records", c_uint32), ("records", c_void_p), ("rec_layout_size", c_uint32)]


class RunStats(Structure):
    _fields_ = [("struct_size", c_uint32), ("frames", c_uint64), ("sim_time", c_double), ("messages", c_uint64),
                ("sensors", c_uint32), ("live_actors", c_uint32), ("live_sensors", c_uint32),
                ("time_world", c_double), ("time_sensors", c_double), ("time_output", c_double),
                ("frames_planned", c_uint64), ("time_serialize", c_double), ("time_write", c_double)]


class ScenarioInfo(Structure):
    _fields_ = [("struct_size", c_uint32), ("loaded", c_bool), ("ended", c_bool), ("completed", c_bool),
                ("time", c_double), ("ended_by", c_char_p), ("stop_condition", c_char_p), ("log_messages", c_uint64)]


class TrafficHealth(Structure):
    _fields_ = [("struct_size", c_uint32), ("start", c_double), ("duration", c_double), ("vehicles", c_uint32),
                ("standing", c_uint32), ("crawling", c_uint32), ("flipped", c_uint32),
                ("red_light_crossings", c_uint32), ("autopilot_collisions", c_uint32),
                ("deadlocks_resolved", c_uint32), ("lane_changes", c_uint32)]


class RecordOptions(Structure):
    _fields_ = [("struct_size", c_uint32), ("file", c_char_p), ("additional_data", c_bool), ("date", c_int64)]


class ReplayOptions(Structure):
    _fields_ = [("struct_size", c_uint32), ("start", c_double), ("duration", c_double), ("time_factor", c_double),
                ("follow_id", c_uint32), ("ignore_hero", c_bool), ("replay_sensors", c_bool),
                ("branch_hero", c_bool), ("scene", c_char_p)]


class LaneMarkingC(Structure):
    _fields_ = [("type", c_uint8), ("color", c_uint8), ("lane_change", c_uint8), ("width", c_double)]


class WaypointC(Structure):
    _fields_ = [("id", c_uint64), ("road_id", c_int32), ("section_id", c_int32), ("lane_id", c_int32),
                ("s", c_double), ("transform", Xform), ("lane_width", c_double), ("lane_type", c_uint32),
                ("junction_id", c_int32), ("is_junction", c_bool), ("lane_change", c_uint8),
                ("left_marking", LaneMarkingC), ("right_marking", LaneMarkingC)]


class MapInfo(Structure):
    _fields_ = [("struct_size", c_uint32), ("name", c_char_p), ("path", c_char_p), ("rev_major", c_uint32),
                ("rev_minor", c_uint32), ("roads", c_uint32), ("junction_roads", c_uint32),
                ("junctions", c_uint32), ("lanes", c_uint32), ("driving_km", c_double), ("signals", c_uint32),
                ("traffic_lights", c_uint32), ("objects", c_uint32), ("crosswalks", c_uint32),
                ("has_geo_reference", c_bool), ("geo_reference", Vec3), ("bounds_min", Vec3),
                ("bounds_max", Vec3), ("warnings", c_uint32)]


class TrafficLightInfo(Structure):
    _fields_ = [("struct_size", c_uint32), ("id", c_uint32), ("opendrive_id", c_int32), ("road_id", c_int32),
                ("junction_id", c_int32), ("pole_index", c_uint32), ("state", c_int), ("frozen", c_bool),
                ("green_time", c_double), ("yellow_time", c_double), ("red_time", c_double),
                ("elapsed_time", c_double), ("n_stops", c_uint32), ("n_affected_lanes", c_uint32)]


# Every struct the layout test compares, by its C name.
STRUCTS = {"sn_vec3": Vec3, "sn_rotation": Rot, "sn_transform": Xform, "sn_bbox": BBox,
           "sn_vehicle_control": VehControl, "sn_walker_control": WalkControl, "sn_actor_info": ActorInfo,
           "sn_clock": Clock, "sn_error": Error, "sn_engine_options": EngineOptions, "sn_message": Message,
           "sn_attribute": Attribute, "sn_actor_desc": ActorDesc, "sn_value": Value, "sn_attr_def": AttrDef,
            "sn_blueprint_info": BlueprintInfo, "sn_rec_layout": RecLayout, "sn_rec_field": RecField,
            "sn_run_stats": RunStats, "sn_scenario_info": ScenarioInfo,
           "sn_traffic_health": TrafficHealth, "sn_record_options": RecordOptions,
           "sn_replay_options": ReplayOptions, "sn_lane_marking": LaneMarkingC, "sn_waypoint": WaypointC,
           "sn_map_info": MapInfo, "sn_weather": Weather,
           "sn_traffic_light_info": TrafficLightInfo, "sn_autopilot_options": AutopilotOptions,
           "sn_vehicle_physics": VehiclePhysics, "sn_ray_compact": RayCompact}


# ---- finding the library ----

def _candidates() -> list[str]:
    """Where libsensim may be, in the order tried: $SENSIM_LIBRARY (alone when set), the prefix
    this package is installed under, the build folders of the source tree it sits in, the
    linker's cache."""
    here = os.path.dirname(os.path.abspath(__file__))
    out = []
    env = os.environ.get("SENSIM_LIBRARY")
    if env:  # asked for by name: that file or an error, never another library silently
        return [env]
    # <prefix>/lib/python3/dist-packages/sensim or <prefix>/lib/python3.X/site-packages/sensim
    parts = here.split(os.sep)
    if "lib" in parts or "lib64" in parts:
        i = max(k for k, p in enumerate(parts) if p in ("lib", "lib64"))
        prefix = os.sep.join(parts[:i]) or os.sep
        arch = sysconfig.get_config_var("MULTIARCH") or ""
        for libdir in ([os.path.join("lib", arch)] if arch else []) + ["lib64", "lib"]:
            out.append(os.path.join(prefix, libdir, "libsensim.so.0"))
    # python/sensim in a source tree: <tree>/build*/engine/libsensim.so, "build" first
    tree = os.path.dirname(os.path.dirname(here))
    builds = sorted(glob.glob(os.path.join(tree, "build*", "engine", "libsensim.so")),
                    key=lambda p: (os.path.basename(os.path.dirname(os.path.dirname(p))) != "build", p))
    out += builds
    found = ctypes.util.find_library("sensim")
    if found:
        out.append(found)
    return out


def _load():
    tried = []
    for path in _candidates():
        if os.sep in path and not os.path.exists(path):
            tried.append(f"{path} (missing)")
            continue
        try:
            return ctypes.CDLL(path), path
        except OSError as e:
            tried.append(f"{path} ({e})")
    raise SensimError("libsensim not found; tried: " + ("; ".join(tried) or "nothing") +
                      ". Set SENSIM_LIBRARY to the file (e.g. build/engine/libsensim.so), "
                      "or `meson install` sensim", -5)


def _plugin_dir(path: str) -> str | None:
    """The plugins that go with the library: a build tree's <build>/plugins, an install's
    <libdir>/sensim/plugins (the engine finds the same folder from libsensim's own path)."""
    d = os.path.dirname(os.path.realpath(path))
    for cand in (os.path.join(os.path.dirname(d), "plugins"), os.path.join(d, "sensim", "plugins")):
        if os.path.isdir(cand):
            return cand
    return None


_lib = None
_path = None


# Locks around the calls into libsensim: a World belongs to one thread at a time, and a call
# from a second thread while its step runs (world.tick() on another thread, the asynchronous
# mode's thread) waits for the step to end instead of reaching ODE's locked space mid-step
# (issue 33, item 16). One lock per engine (its World's, bound with bind_engine), so that
# engines of different Worlds step at once on different threads with the GIL released (the
# vector environment, issue 36 item 3); engine_lock for every call that names no bound engine
# (maps, blueprints, recordings, an engine not yet in a World). Re-entrant: listeners run
# inside the step, on the stepping thread, and call in.
engine_lock = threading.RLock()
_engine_locks: dict[int, "threading.RLock"] = {}


def bind_engine(e: int, lock) -> None:
    """Calls naming engine e hold `lock` (its World's) from now on."""
    _engine_locks[e] = lock


def unbind_engine(e: int) -> None:
    _engine_locks.pop(e, None)


def lock_of(e) -> "threading.RLock":
    """The lock calls naming engine e hold."""
    return _engine_locks.get(e, engine_lock) if type(e) is int else engine_lock


class GuestLock:
    """A World's lock while a batch steps its engine on a C thread (sensim.world._step_batch,
    sn_engines_step): the caller holds `real` for the whole batch, and the thread stepping the
    engine (its listeners, which may call into their engine) passes as `guest`, as the stepping
    thread passes the re-entrant lock in a plain tick; every other thread waits for `real`, but a
    guest of another world of the batch (a listener calling into another environment's world)
    is refused: it would wait for the whole batch, which waits for it. In a streamed batch
    (_step_stream) the batch's own thread (`owner`, holding `real`, re-entrant) runs environments'
    Python while other engines still step: its call into a world whose step has not ended waits
    for that step (sn_engines_step_wait) instead of calling into an engine being stepped."""
    __slots__ = ("real", "guest", "owner", "pool", "index", "done")
    guests: dict = {}  # thread id -> listeners of batch-stepped worlds running on it now

    def __init__(self, real, owner: int = 0, pool=None):
        self.real = real
        self.guest = 0  # a thread id; 0 is none
        self.owner = owner  # a streamed batch's thread, which holds real for the batch (0: none)
        self.pool = pool  # that batch's C pool
        self.index = None  # the engine's index in it, once handed over
        self.done = False  # its step has ended

    def __enter__(self):
        me = threading.get_ident()
        if self.guest != me:
            if me in GuestLock.guests:
                raise SensimError("a listener called into another world stepped in the same batch (a vector "
                                  "environment's step): call it after the step", -4)
            if self.owner == me and self.index is not None and not self.done:
                # the batch's own thread (an environment's callback) needs this world: once its step
                # has ended, stepping it here if no pool thread has taken it
                err = Error()
                check(lib().raw.sn_engines_step_wait(self.pool, self.index, ctypes.byref(err)), err)
                self.done = True
            self.real.acquire()
        return self

    def __exit__(self, *exc):
        if self.guest != threading.get_ident():
            self.real.release()
        return False


class FairLock:
    """A World's lock in asynchronous mode: the same re-entrant lock (`real`), counting the
    threads that wait for it, so that the asynchronous thread lets them in before its next step
    (sensim.world._run_async): Python's locks are not fair, and a thread woken by a release
    rarely wins against the releasing thread taking the lock again at once, so a script's call
    could wait several steps. Bound only while the asynchronous mode runs: the synchronous
    path keeps the bare RLock, its cost unchanged."""
    __slots__ = ("real", "waiting", "_cv")

    def __init__(self, real):
        self.real = real
        self.waiting = 0  # threads blocked in acquire now
        self._cv = threading.Condition(threading.Lock())  # notified when waiting drops to 0

    def acquire(self, blocking=True, timeout=-1):
        if self.real.acquire(False):  # free, or this thread's already (listeners, nested calls)
            return True
        if not blocking:
            return False
        with self._cv:
            self.waiting += 1
        try:
            return self.real.acquire(True, timeout)
        finally:
            with self._cv:
                self.waiting -= 1
                if not self.waiting:
                    self._cv.notify_all()

    def release(self):
        self.real.release()

    def __enter__(self):
        self.acquire()
        return self

    def __exit__(self, *exc):
        self.real.release()
        return False

    def wait_unwaited(self):
        """Returns once no thread waits for the lock (the asynchronous thread, between steps,
        holding nothing: the waiters get the lock, so this ends when each of them has it)."""
        with self._cv:
            while self.waiting:
                self._cv.wait()


# Calls that only read or set a few fields of an engine (no step, no I/O, no lock in C): made
# through a PyDLL handle, which keeps the GIL. ctypes' CDLL gives the GIL up around every call
# and takes it back after: an environment's step makes about eight such calls around its one
# sn_engine_step, and with N environments stepping on threads each give-up and take-back is a
# hand-over between threads when several step at once (a futex wait and a context switch,
# each costing more than the call): 4 environments made 6-7 voluntary context switches a
# vector step with CDLL for every call, 4.5-5 with these (docs/performance.md).
QUICK = frozenset({
    "sn_engine_find_actor", "sn_engine_actor_get", "sn_engine_clock", "sn_engine_seed",
    "sn_engine_apply_control", "sn_engine_apply_walker_control", "sn_engine_actor_count",
    "sn_engine_actor_id_at",
})


class _Locked:
    """The library with each function wrapped to hold its engine's lock (lock_of its first
    argument) while it runs (the GIL is released inside, the lock is not; QUICK calls keep the
    GIL). The raw CDLL is `raw`."""

    def __init__(self, raw, quick=None):
        self.raw = raw
        self.quick = quick  # the same library through ctypes.PyDLL, for QUICK

    def __getattr__(self, name):
        fn = getattr(self.quick if self.quick is not None and name in QUICK else self.raw, name)
        locked = _LockedFn(fn)
        self.__dict__[name] = locked
        return locked


class _LockedFn:
    """One library function called under its engine's lock. Its restype and argtypes are the ctypes
    function's own: setting them here sets them there (callers declare late functions so)."""
    __slots__ = ("_fn",)

    def __init__(self, fn):
        object.__setattr__(self, "_fn", fn)

    def __call__(self, *args):
        with lock_of(args[0]) if args else engine_lock:
            return self._fn(*args)

    def __getattr__(self, name):
        return getattr(self._fn, name)

    def __setattr__(self, name, value):
        setattr(self._fn, name, value)


def lib():
    """The loaded libsensim with its prototypes declared (loaded on first use, so that the
    stream reader works without it); every call holds its engine's lock (lock_of)."""
    global _lib, _path
    if _lib is None:
        L, path = _load()
        _declare(L)
        quick = ctypes.PyDLL(path, handle=L._handle)
        for name in QUICK:
            if hasattr(L, name):
                raw, q = getattr(L, name), getattr(quick, name)
                q.restype, q.argtypes = raw.restype, raw.argtypes
        _lib, _path = _Locked(L, quick), path
    return _lib


def library_path() -> str:
    lib()
    return _path


def plugin_dir() -> str | None:
    """$SENSIM_PLUGIN_DIR, else the plugin folder next to the library found (the one the engine
    searches last, after $SENSIM_PLUGIN_PATH)."""
    return os.environ.get("SENSIM_PLUGIN_DIR") or _plugin_dir(library_path())


def _declare(L):
    E = POINTER(Error)
    P = c_void_p
    st = c_int

    def f(name, res, *args):
        fn = getattr(L, name)
        fn.restype, fn.argtypes = res, list(args)

    f("sn_version", c_char_p)
    f("sn_engine_create", P, POINTER(EngineOptions), E)
    f("sn_engine_destroy", None, P)
    f("sn_engine_load_scene", st, P, c_char_p, E)
    f("sn_engine_load_scene_with_overrides", st, P, c_char_p, POINTER(c_char_p), c_size_t, E)
    f("sn_engine_set_frames", None, P, c_uint64)
    f("sn_engine_open_outputs", st, P, c_char_p, E)
    f("sn_engine_listen", st, P, c_char_p, LISTEN_FN, P, E)
    f("sn_engine_unlisten", st, P, c_char_p, LISTEN_FN, P, E)
    f("sn_engine_step", st, P, E)
    f("sn_engine_run", st, P, c_uint64, E)
    f("sn_engine_finish", st, P, c_bool, E)
    f("sn_engine_clock", POINTER(Clock), P)
    f("sn_engine_set_step", st, P, c_double, c_double, c_uint32, E)
    f("sn_engine_find_actor", c_uint32, P, c_char_p)
    f("sn_engine_actor_get", st, P, c_uint32, POINTER(ActorInfo))
    f("sn_engine_actor_count", c_uint32, P)
    f("sn_engine_actor_id_at", c_uint32, P, c_uint32)
    f("sn_engine_actor_attribute", st, P, c_uint32, c_char_p, POINTER(Value), E)
    f("sn_engine_actor_attribute_at", st, P, c_uint32, c_uint32, POINTER(c_char_p), POINTER(Value), E)
    f("sn_engine_spawn", st, P, POINTER(ActorDesc), POINTER(c_uint32), E)
    f("sn_engine_destroy_actor", st, P, c_uint32, E)
    f("sn_engine_apply_control", st, P, c_uint32, POINTER(VehControl), E)
    f("sn_engine_set_vehicle_light_state", st, P, c_uint32, c_uint32, E)
    f("sn_engine_apply_walker_control", st, P, c_uint32, POINTER(WalkControl), E)
    f("sn_engine_set_autopilot", st, P, c_uint32, c_bool, POINTER(AutopilotOptions), E)
    if hasattr(L, "sn_engine_vehicle_speed_limit"):  # a libsensim before signs has none
        f("sn_engine_vehicle_speed_limit", st, P, c_uint32, POINTER(ctypes.c_double), E)
    f("sn_engine_ray_batch", st, P, POINTER(RayQuery), POINTER(Ray), c_uint32, POINTER(RayResult), E)
    if hasattr(L, "sn_engine_ray_batch_compact"):  # a libsensim before compact batches has none
        f("sn_engine_ray_batch_compact", st, P, POINTER(RayQuery), c_void_p, c_uint32, POINTER(RayCompact), E)
    f("sn_engine_get_vehicle_physics", st, P, c_uint32, POINTER(VehiclePhysics), E)
    f("sn_engine_set_vehicle_physics", st, P, c_uint32, POINTER(VehiclePhysics), E)
    if hasattr(L, "sn_engine_set_weather"):  # a libsensim before the weather has none
        f("sn_engine_set_weather", st, P, POINTER(Weather), E)
        f("sn_engine_get_weather", st, P, POINTER(Weather), E)
        f("sn_weather_preset_get", st, c_char_p, POINTER(Weather), E)
        f("sn_weather_preset_at", c_char_p, ctypes.c_uint)
    f("sn_engine_set_transform", st, P, c_uint32, POINTER(Xform), E)
    f("sn_engine_set_velocity", st, P, c_uint32, Vec3, Vec3, E)
    f("sn_engine_set_simulate_physics", st, P, c_uint32, c_bool, E)
    f("sn_engine_set_target_transform", st, P, c_uint32, POINTER(Xform), E)
    f("sn_engine_call", st, P, c_char_p, c_char_p, c_uint32, POINTER(c_char_p), E)
    f("sn_engine_stats", st, P, POINTER(RunStats), E)
    if hasattr(L, "sn_engine_scenario"):  # a libsensim before OpenSCENARIO has none
        f("sn_engine_scenario", st, P, POINTER(ScenarioInfo), E)
    if hasattr(L, "sn_engine_traffic_health"):  # a libsensim before traffic health has none
        f("sn_engine_traffic_health", st, P, POINTER(TrafficHealth), E)
        f("sn_engine_traffic_health_windows", c_uint32, P)
        f("sn_engine_traffic_health_window", st, P, c_uint32, POINTER(TrafficHealth), E)
    f("sn_engine_blueprints", P, P, E)
    f("sn_blueprints_open", P, POINTER(EngineOptions), E)
    f("sn_blueprints_close", None, P)
    f("sn_blueprints_count", c_size_t, P)
    f("sn_blueprints_get", st, P, c_size_t, POINTER(BlueprintInfo), E)
    f("sn_attr_type_name", c_char_p, c_int)
    f("sn_engine_record", st, P, POINTER(RecordOptions), E)
    f("sn_engine_stop_recording", st, P, E)
    f("sn_recording_open", P, c_char_p, POINTER(EngineOptions), E)
    f("sn_recording_close", None, P)
    f("sn_recording_print_info", st, P, P, c_bool, c_bool, E)
    f("sn_recording_print_collisions", st, P, P, c_char, c_char, c_bool, E)
    f("sn_recording_print_blocked", st, P, P, c_double, c_double, c_bool, E)
    f("sn_engine_load_replay", st, P, c_char_p, POINTER(ReplayOptions), E)
    f("sn_engine_replay_actor", c_uint32, P, c_uint32)
    f("sn_engine_map", P, P)
    f("sn_map_open", P, c_char_p, E)
    f("sn_map_close", None, P)
    f("sn_map_cache_enable", None, c_bool)
    f("sn_map_cache_enabled", c_bool)
    f("sn_map_cache_stats", None, P, P, P)
    f("sn_map_info_get", st, P, POINTER(MapInfo), E)
    f("sn_map_waypoint", st, P, Vec3, c_bool, c_uint32, POINTER(WaypointC), E)
    f("sn_map_waypoint_xodr", st, P, c_int32, c_int32, c_double, POINTER(WaypointC), E)
    for name in ("sn_map_next", "sn_map_previous", "sn_map_next_until_lane_end", "sn_map_previous_until_lane_start"):
        if hasattr(L, name):  # the last: a libsensim before it has none
            f(name, st, P, POINTER(WaypointC), c_double, POINTER(WaypointC), c_size_t, POINTER(c_size_t), E)
    f("sn_map_left_lane", st, P, POINTER(WaypointC), POINTER(WaypointC), E)
    f("sn_map_right_lane", st, P, POINTER(WaypointC), POINTER(WaypointC), E)
    f("sn_map_generate_waypoints", st, P, c_double, POINTER(WaypointC), c_size_t, POINTER(c_size_t), E)
    f("sn_map_topology", st, P, POINTER(WaypointC), c_size_t, POINTER(c_size_t), E)
    f("sn_map_spawn_points", st, P, POINTER(Xform), c_size_t, POINTER(c_size_t), E)
    f("sn_map_to_opendrive", c_char_p, P, POINTER(c_size_t))
    # The Traffic Manager and the traffic lights (api_tm.c, api_traffic.c); an older library lacks them.
    if hasattr(L, "sn_engine_tm_set"):
        f("sn_engine_tm_set", st, P, c_uint32, c_uint32, c_int, c_double, E)
        f("sn_engine_tm_get", st, P, c_uint32, c_uint32, c_int, POINTER(c_double), E)
        f("sn_engine_tm_force_lane_change", st, P, c_uint32, c_bool, E)
        f("sn_engine_tm_set_path", st, P, c_uint32, POINTER(Vec3), c_size_t, E)
        f("sn_engine_tm_set_route", st, P, c_uint32, POINTER(c_int), c_size_t, E)
        f("sn_engine_tm_set_random_device_seed", st, P, c_uint32, c_uint64, E)
        f("sn_engine_tm_shut_down", st, P, c_uint32, E)
        f("sn_engine_tm_port_of", c_uint32, P, c_uint32)
        f("sn_engine_vehicle_traffic_light", st, P, c_uint32, POINTER(c_uint32), E)
        f("sn_engine_traffic_lights_from_waypoint", st, P, POINTER(WaypointC), c_double, POINTER(c_uint32), c_size_t,
          POINTER(c_size_t), E)
    f("sn_engine_traffic_light_count", c_uint32, P)
    f("sn_engine_traffic_light_at", c_uint32, P, c_uint32)
    f("sn_engine_traffic_light_info", st, P, c_uint32, POINTER(TrafficLightInfo), E)
    f("sn_engine_traffic_light_get_state", st, P, c_uint32, POINTER(c_int), E)
    f("sn_engine_traffic_light_set_state", st, P, c_uint32, c_int, E)
    f("sn_engine_traffic_light_freeze", st, P, c_uint32, c_bool, E)
    f("sn_engine_traffic_light_set_times", st, P, c_uint32, c_double, c_double, c_double, E)
    f("sn_engine_traffic_light_reset_group", st, P, c_uint32, E)
    f("sn_engine_traffic_light_group", st, P, c_uint32, POINTER(c_uint32), c_size_t, POINTER(c_size_t), E)
    f("sn_engine_traffic_light_stops", st, P, c_uint32, POINTER(WaypointC), c_size_t, POINTER(c_size_t), E)
    if hasattr(L, "sn_engines_step"):  # several engines a step on a C pool (api_step_pool.c)
        f("sn_step_pool_create", P, c_int, E)
        f("sn_step_pool_destroy", None, P)
        f("sn_step_pool_threads", c_int, P)
        f("sn_engines_step", st, P, POINTER(c_void_p), c_size_t, POINTER(c_int), POINTER(Error), E)
    if hasattr(L, "sn_engines_step_wait"):  # the same batch streamed, engine by engine
        f("sn_engines_step_begin", st, P, E)
        f("sn_engines_step_add", st, P, P, E)
        f("sn_engines_step_next", c_bool, P, POINTER(c_size_t), POINTER(c_int), POINTER(Error))
        f("sn_engines_step_wait", st, P, c_size_t, E)
    # Added with the Python API (api_reset.c); an older library lacks them.
    if hasattr(L, "sn_engine_reset"):
        f("sn_engine_reset", st, P, POINTER(c_uint64), E)
        f("sn_engine_seed", c_uint64, P)
    if hasattr(L, "sn_engine_scene_blueprint"):  # a scene entry's blueprint, alive or not
        f("sn_engine_scene_blueprint", c_char_p, P, c_char_p)
    if hasattr(L, "sn_map_junction"):
        f("sn_map_junction", st, P, c_int32, c_uint32, POINTER(BBox), POINTER(WaypointC), c_size_t, POINTER(c_size_t), E)
    if hasattr(L, "sn_geolocation"):  # sn_geo_location is three doubles, as Vec3
        f("sn_geolocation", Vec3, POINTER(Vec3), Vec3)
        f("sn_engine_georeference", Vec3, P)


def check(status: int, err: Error) -> None:
    """Raises the engine's error for a failed call."""
    if status != 0:
        raise SensimError(err.msg.decode("utf-8", "replace") or f"status {status}", status)


def cstr(s) -> bytes | None:
    return None if s is None else os.fsencode(s) if isinstance(s, os.PathLike) else str(s).encode()


@contextlib.contextmanager
def map_cache_on(on: bool = True):
    """The process's map cache on for the block (sn_map_cache_enable, docs/batch.md "Runs that
    share a map") and off again after when it was off: engines made inside share a map file's
    parse, road mesh and its physics data, and keep them (through resets) after the block."""
    L = lib()
    turn = on and not L.sn_map_cache_enabled()
    if turn:
        L.sn_map_cache_enable(True)
    try:
        yield
    finally:
        if turn:
            L.sn_map_cache_enable(False)
