"""Walkers that navigate, in CARLA's shape (docs/walkers.md, docs/python.md):
world.get_random_location_from_navigation(), world.set_pedestrians_cross_factor(p),
world.set_pedestrians_seed(seed), and the AI walker controller that
world.spawn_actor(bp_lib.find('controller.ai.walker'), carla.Transform(), walker) returns
(start, stop, go_to_location, set_max_speed). The controller is no engine actor: it is a
handle on the engine's navigation of its walker, with an id of its own that world.get_actor(s)
resolves, as CARLA's scripts expect."""
from __future__ import annotations

import ctypes
import math
from typing import TYPE_CHECKING

from . import _lib
from ._common import _check_seed, _err
from ._lib import SensimError, check
from .geom import Location, Transform

if TYPE_CHECKING:
    from .actor import Walker
    from .blueprints import ActorBlueprint
    from .world import World

__all__ = ["WalkerAIController", "AI_WALKER", "CONTROLLER_ID_BASE"]

AI_WALKER = "controller.ai.walker"
# Controller ids lie above every engine actor id (the engine counts up from 1).
CONTROLLER_ID_BASE = 1 << 30
_KIND_CONTROLLER = 4


def _fns(L) -> None:
    """Declares the navigation calls on the library once."""
    if getattr(L, "_walkers_declared", False):
        return
    P, E, st = ctypes.c_void_p, ctypes.POINTER(_lib.Error), ctypes.c_int
    for name, args in (("sn_engine_random_navigation_location", [P, ctypes.POINTER(_lib.Vec3), E]),
                       ("sn_engine_set_pedestrians_cross_factor", [P, ctypes.c_double, E]),
                       ("sn_engine_set_pedestrians_seed", [P, ctypes.c_uint64, E]),
                       ("sn_engine_walker_ai_start", [P, ctypes.c_uint32, E]),
                       ("sn_engine_walker_ai_stop", [P, ctypes.c_uint32, E]),
                       ("sn_engine_walker_ai_go_to_location", [P, ctypes.c_uint32, _lib.Vec3, E]),
                       ("sn_engine_walker_ai_set_max_speed", [P, ctypes.c_uint32, ctypes.c_double, E])):
        fn = getattr(L, name, None)
        if fn is None:
            raise SensimError(f"{_lib.library_path()} has no {name} (an older libsensim)", -6)
        fn.restype, fn.argtypes = st, args
    L._walkers_declared = True


def _lib_nav():
    L = _lib.lib()
    _fns(L)
    return L


# -- world calls (world.py delegates to these)

def random_location(world: "World") -> "Location | None":
    """CARLA's get_random_location_from_navigation: a point on the sidewalks, None when the map
    has none."""
    v, err = _lib.Vec3(), _err()
    st = _lib_nav().sn_engine_random_navigation_location(world._engine(), ctypes.byref(v), ctypes.byref(err))
    if st == -7:  # SN_E_NOT_FOUND: no sidewalks
        return None
    check(st, err)
    return Location(v.x, v.y, v.z)


def set_cross_factor(world: "World", percentage: float) -> None:
    err = _err()
    check(_lib_nav().sn_engine_set_pedestrians_cross_factor(world._engine(), float(percentage), ctypes.byref(err)),
          err)


def set_seed(world: "World", seed: int) -> None:
    err = _err()
    check(_lib_nav().sn_engine_set_pedestrians_seed(world._engine(), _check_seed(seed, "set_pedestrians_seed"), ctypes.byref(err)),
          err)


def controller_blueprint() -> "ActorBlueprint":
    """The controller's blueprint, for the world's blueprint library."""
    from .blueprints import ActorBlueprint
    return ActorBlueprint(AI_WALKER, _KIND_CONTROLLER,
                          "CARLA's AI walker controller: spawn it attached to a walker", {})


def spawn_controller(world: "World", attach_to: "Actor | None") -> "WalkerAIController":
    """world.spawn_actor of controller.ai.walker: a controller of the walker it is attached to."""
    from .actor import Walker
    if not isinstance(attach_to, Walker):
        raise SensimError(f"spawn_actor: {AI_WALKER} must be attached to a walker (attach_to=walker), "
                          f"not {attach_to!r}", -1)
    if not attach_to.is_alive:
        raise SensimError(f"spawn_actor: walker {attach_to.id} is not alive", -7)
    reg = _registry(world)
    reg["next"] += 1
    c = WalkerAIController(world, CONTROLLER_ID_BASE + reg["next"], attach_to)
    reg["by_id"][c.id] = c
    return c


def find_controller(world: "World", actor_id: int) -> "WalkerAIController | None":
    if actor_id < CONTROLLER_ID_BASE:
        return None
    c = _registry(world)["by_id"].get(actor_id)
    return c if c is not None and c.is_alive else None


def _registry(world: "World") -> dict:
    reg = getattr(world, "_walker_controllers", None)
    if reg is None or reg.get("gen") != getattr(world, "_gen", 0):
        reg = {"next": 0, "by_id": {}, "gen": getattr(world, "_gen", 0)}
        world._walker_controllers = reg
    return reg


class WalkerAIController:
    """CARLA's carla.WalkerAIController: start() joins its walker to the navigation (it stands
    until go_to_location), go_to_location(loc) routes it along sidewalks and crossings, and
    after each goal it walks on to random ones (CARLA's walker manager); set_max_speed(m/s);
    stop() leaves it standing. destroy() stops it and drops the handle."""

    type_id = AI_WALKER

    def __init__(self, world: "World", cid: int, walker: "Walker"):
        self._world = world
        self.id = cid
        self._walker = walker
        self._alive = True
        self.semantic_tags: list[int] = []
        self.attributes: dict[str, str] = {}
        self.role_name = ""

    def __repr__(self) -> str:
        return f"WalkerAIController(id={self.id}, walker={self._walker.id})"

    @property
    def parent(self) -> "Walker":
        return self._walker

    @property
    def is_alive(self) -> bool:
        return self._alive and self._world._e is not None and self._walker.is_alive

    def _call(self, fn: str, *args) -> None:
        if not self.is_alive:
            raise SensimError(f"{AI_WALKER} {self.id}: its walker is gone or it was destroyed", -7)
        err = _err()
        check(getattr(_lib_nav(), fn)(self._world._engine(), self._walker.id, *args, ctypes.byref(err)), err)

    def start(self) -> None:
        self._call("sn_engine_walker_ai_start")

    def stop(self) -> None:
        self._call("sn_engine_walker_ai_stop")

    def go_to_location(self, destination: Location) -> None:
        d = _lib.Vec3(float(destination.x), float(destination.y), float(destination.z))
        if not all(math.isfinite(x) for x in (d.x, d.y, d.z)):
            raise SensimError(f"go_to_location: {destination!r} is not finite", -1)
        self._call("sn_engine_walker_ai_go_to_location", d)

    def set_max_speed(self, speed: float = 1.4) -> None:
        self._call("sn_engine_walker_ai_set_max_speed", float(speed))

    def destroy(self) -> bool:
        if not self.is_alive:
            self._alive = False
            return False
        try:
            self.stop()
        finally:
            self._alive = False
            _registry(self._world)["by_id"].pop(self.id, None)
        return True

    # The controller sits on its walker (CARLA attaches it there).
    def get_location(self) -> Location:
        return self._walker.get_location()

    def get_transform(self) -> Transform:
        return self._walker.get_transform()
