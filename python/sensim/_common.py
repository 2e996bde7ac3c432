"""Helpers the closed-loop modules share: the error struct, the engine's log hook, the map folders."""
from __future__ import annotations

import logging
import os

from . import _lib

_log = logging.getLogger("sensim")
_KIND_STATIC, _KIND_VEHICLE, _KIND_WALKER, _KIND_SENSOR = 0, 1, 2, 3


def _err() -> _lib.Error:
    return _lib.Error()


# Values are checked here before ctypes sees them: ctypes would truncate a text at its first NUL,
# print None or b"x" as "None" and "b'x'", and wrap a seed of -1 to 2^64-1 (issue 33 item 24).
def _check_seed(seed, where: str) -> int:
    """A seed as the engine takes it: an int in 0..2^64-1 (a bool is refused)."""
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TypeError(f"{where}: a seed is an int in 0..2^64-1, not {seed!r}")
    if not 0 <= seed < 2 ** 64:
        raise ValueError(f"{where}: the seed {seed} is outside 0..2^64-1")
    return seed


def _check_text(text, where: str) -> bytes:
    """A text argument as UTF-8 bytes: a str without NUL characters."""
    if not isinstance(text, str):
        raise TypeError(f"{where}: expected a str, not {type(text).__name__} {text!r}")
    if "\0" in text:
        raise ValueError(f"{where}: the text holds a NUL character, which the engine cannot carry")
    return text.encode()


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


class CarlaEnum:
    """A mix-in for CARLA's enums: str() and format() give the member's name, as CARLA's
    (boost.python's) do — print(wp.lane_type) says Driving, not 2, which Python 3.11's IntEnum
    and IntFlag print; int(), ==, | and hashing stay the int's. A format spec (f"{x:d}",
    f"{x:.1f}") formats the number."""

    def __str__(self) -> str:
        name = self.name  # type: ignore[attr-defined]
        return name if name is not None else str(int(self))  # type: ignore[call-overload]

    def __format__(self, spec: str) -> str:
        if spec:  # a format spec formats the number (f"{x:d}", f"{x:.1f}"), as CARLA's
            return format(int(self), spec)  # type: ignore[call-overload]
        return str(self)
