"""Helpers the closed-loop modules share: the error struct, the engine's log hook, the map folders."""
from __future__ import annotations

import logging
import os

from . import _lib

_log = logging.getLogger("sensim")
_KIND_STATIC, _KIND_VEHICLE, _KIND_WALKER, _KIND_SENSOR = 0, 1, 2, 3


def _err() -> _lib.Error:
    return _lib.Error()


@_lib.LOG_FN
def _on_log(level, line, user):
    # The engine's warnings (a refused plugin, a map's warnings) go to Python's logging.
    _log.log({0: logging.DEBUG, 1: logging.INFO, 2: logging.WARNING}.get(level, logging.ERROR),
             "%s", line.decode("utf-8", "replace"))


def _maps_dirs() -> list[str]:
    """Where load_world looks for a map given by name: $SENSIM_MAPS (colon-separated), the
    current folder's maps/, and the source tree's maps/ when the package runs from it."""
    dirs = [d for d in os.environ.get("SENSIM_MAPS", "").split(":") if d]
    dirs.append(os.path.join(os.getcwd(), "maps"))
    tree = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    dirs.append(os.path.join(tree, "maps"))
    dirs.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "maps"))  # installed with the package
    return dirs


def _town_dirs() -> list[str]:
    """Where the project's own town is: next to the package (installed), the source tree's maps/."""
    here = os.path.dirname(os.path.abspath(__file__))
    return [os.path.join(here, "maps"), os.path.join(os.path.dirname(os.path.dirname(here)), "maps")]


# `python3 -m sensim.carla` / sensim.carla.install(): CARLA's defaults where they differ from
# sensim's (a new world runs asynchronously, as a CARLA server's does).
CARLA_MODE = {"asynchronous": False}
