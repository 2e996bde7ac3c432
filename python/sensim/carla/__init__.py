"""CARLA's scripts on sensim, unchanged: `python3 -m sensim.carla SCRIPT [ARGS...]`, or
`sensim.carla.install()` inside a program.

install() makes `import carla` (and `carla.command`, `from carla import ...`) give sensim, and
sets CARLA's defaults where they differ from sensim's: a world loaded afterwards runs
asynchronously (it steps itself on its own thread at wall-clock pace, as a CARLA server does)
until the script asks for synchronous mode. `agents` (CARLA's navigation package) stays the
user's: the script's own sys.path finds it, as with CARLA.
"""
from __future__ import annotations

import sys

__all__ = ["install", "uninstall"]


def install(asynchronous: bool = True) -> None:
    """`import carla` gives sensim from now on. asynchronous: worlds loaded from now on start in
    CARLA's asynchronous mode (False keeps sensim's synchronous default)."""
    import sensim
    from sensim import _common, command

    sys.modules["carla"] = sensim
    sys.modules["carla.command"] = command
    sys.modules["carla.libcarla"] = sensim
    sys.modules["carla.libcarla.command"] = command
    _common.CARLA_MODE["asynchronous"] = bool(asynchronous)


def uninstall() -> None:
    """Undoes install()."""
    from sensim import _common

    for k in ("carla", "carla.command", "carla.libcarla", "carla.libcarla.command"):
        sys.modules.pop(k, None)
    _common.CARLA_MODE["asynchronous"] = False
    _common.CARLA_MODE.pop("mcap", None)
