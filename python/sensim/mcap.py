"""A world's run as an MCAP file for Foxglove, from Python (C: sensim/mcap.h, docs/mcap.md):
what `sensim run --mcap FILE` writes, for a world a script drives. world.record_mcap(path)
starts it: the world gets an actors stream (sensor.other.actors, named "actors": the boxes and
the transform tree) and a debug stream (sensor.other.debug, named "debug": what world.debug
draws, on /debug), and every message of every sensor goes into the file from then on. The file
becomes `path` when the world closes (world.close(), a load_world, the interpreter's exit);
until then it is path.partial-PID-N beside it."""
from __future__ import annotations

import atexit
import ctypes
import os
import weakref

from . import _lib
from ._common import _err
from ._lib import SensimError, check

__all__ = ["McapOptions", "start", "close"]


class McapOptions(ctypes.Structure):
    """sn_mcap_options (sensim/mcap.h)."""
    _fields_ = [("struct_size", ctypes.c_uint32), ("zstd_level", ctypes.c_int), ("depth_converter", ctypes.c_char_p),
                ("raw_images", ctypes.c_bool), ("chunk_bytes", ctypes.c_uint32), ("threads", ctypes.c_int),
                ("overwrite", ctypes.c_bool)]


_declared = False
_open: "weakref.WeakSet" = weakref.WeakSet()  # worlds writing a file, closed at exit


def _declare():
    global _declared
    if _declared:
        return
    L, P, E, st = _lib.lib(), ctypes.c_void_p, ctypes.POINTER(_lib.Error), ctypes.c_int
    for name, res, args in (("sn_mcap_create", P, [ctypes.c_char_p, ctypes.POINTER(McapOptions), E]),
                            ("sn_mcap_add_map", st, [P, P, E]), ("sn_mcap_add_layouts", st, [P, P, E]),
                            ("sn_mcap_close", st, [P, ctypes.c_bool, E]),
                            ("sn_mcap_partial_path", ctypes.c_char_p, [P]),
                            ("sn_engine_listen_all", st, [P, P, P, E])):
        fn = getattr(L, name)
        fn.restype, fn.argtypes = res, args
    _declared = True


def _sensor(world, blueprint: str, name: str) -> None:
    """The world's sensor of that blueprint, spawned (at the origin, named `name`) when it has none."""
    if any(a.type_id == blueprint for a in world.get_actors()):
        return
    world.spawn_actor(world.get_blueprint_library().find(blueprint), _origin(), name=name)


def _origin():
    from .geom import Transform
    return Transform()


def start(world, path, overwrite: bool = False, threads: int = 0) -> str:
    """Starts writing world's run to `path` (see the module's doc). Returns the partial file's path."""
    if world._mcap is not None:
        raise SensimError("record_mcap: this world already writes an MCAP file", -4)
    path = os.fspath(path)
    if not isinstance(threads, int) or not -1 <= threads <= 256:
        raise SensimError(f"record_mcap: threads {threads!r} must be -1..256", -2)
    _declare()
    L, e = _lib.lib(), world._engine()
    _sensor(world, "sensor.other.actors", "actors")
    _sensor(world, "sensor.other.debug", "debug")
    o = McapOptions(ctypes.sizeof(McapOptions), 0, None, False, 0, threads, bool(overwrite))
    err = _err()
    m = L.sn_mcap_create(path.encode(), ctypes.byref(o), ctypes.byref(err))
    if not m:
        check(-1 if not err.status else err.status, err)
    lib = L.sn_engine_blueprints(e, ctypes.byref(err))
    st = L.sn_mcap_add_layouts(m, lib, ctypes.byref(err)) if lib else 0
    if lib:
        L.sn_blueprints_close(lib)
    if st == 0:
        st = L.sn_mcap_add_map(m, L.sn_engine_map(e), ctypes.byref(err))
    if st == 0:
        fn = ctypes.cast(L.raw.sn_mcap_listen, ctypes.c_void_p)
        st = L.sn_engine_listen_all(e, fn, m, ctypes.byref(err))
    if st != 0:
        part = L.sn_mcap_partial_path(m)
        L.sn_mcap_close(m, False, None)
        if part:
            try:
                os.unlink(part)
            except OSError:
                pass
        check(st, err)
    world._mcap = m
    _open.add(world)
    return L.sn_mcap_partial_path(m).decode()


def close(world, commit: bool = True) -> None:
    """After the world's engine is destroyed: the file is finished and renamed to its path."""
    m, world._mcap = world._mcap, None
    if m is None:
        return
    _open.discard(world)
    err = _err()
    st = _lib.lib().sn_mcap_close(m, bool(commit), ctypes.byref(err))
    if commit:
        check(st, err)


@atexit.register
def _close_all() -> None:
    for w in list(_open):
        try:
            w.close()
        except Exception:
            pass
