"""An RL environment with Gymnasium's interface, built from a scene.

    env = SensimEnv("scenes/crash.yaml", observe=["crash"], hero="hero", max_steps=100)
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(np.array([0.5, 0.0, 0.0]))

reset() restores the scene in place (sn_engine_reset: no file read again, no plugin loaded
again), so an episode starts in milliseconds. Gymnasium is used when it is importable
(the class then derives from gymnasium.Env and its spaces are gymnasium.spaces); otherwise
the spaces are small stand-ins with the same fields (shape, dtype, low, high, sample).

Observation: a dict with "state" (the hero's x, y, z, pitch, yaw, roll, vx, vy, vz, float64)
and one entry per observed sensor: a camera's H x W x 4 uint8 image (a copy: observations
outlive the step), a collision sensor's summed impulse this step (N s, float64 [1]), a DVS's
event count this step (int64 [1]). Action: the hero's [throttle, steer, brake].
Deterministic: the same seeds and actions give byte-identical observations, whatever else
runs in the process.
"""
from __future__ import annotations

import math
from typing import Any, Callable, Sequence

import numpy as np

from . import _lib
from ._common import _check_seed
from .actor import Vehicle
from .client import Client, World
from .data import CollisionEvent, DVSEventArray, Image, SensorData
from .geom import VehicleControl


def _clip(x: float, lo: float, hi: float) -> float:
    """np.clip's result for one float, bit for bit (NaN kept, -0.0 raised to a bound of 0.0),
    without its per-call cost: three scalar np.clip a step were most of a vector step's Python."""
    if x != x:
        return x
    t = x if x > lo else lo
    return t if t < hi else hi

try:  # optional: the interface is Gymnasium's either way
    import gymnasium as _gym
    from gymnasium import spaces as _spaces
except ImportError:  # pragma: no cover - depends on the machine
    _gym = None
    _spaces = None

__all__ = ["SensimEnv", "Box", "Dict", "forward_progress"]


class Box:
    """A stand-in for gymnasium.spaces.Box (used when gymnasium is not installed)."""

    def __init__(self, low, high, shape=None, dtype=np.float32, seed=None):
        self.dtype = np.dtype(dtype)
        self.shape = tuple(shape) if shape is not None else np.shape(low)
        self.low = np.broadcast_to(np.asarray(low, self.dtype), self.shape)
        self.high = np.broadcast_to(np.asarray(high, self.dtype), self.shape)
        self._rng = np.random.default_rng(seed)

    def __repr__(self) -> str:
        return f"Box({self.low.min()}, {self.high.max()}, {self.shape}, {self.dtype})"

    def seed(self, seed=None):
        self._rng = np.random.default_rng(seed)

    def sample(self) -> np.ndarray:
        if self.dtype.kind in "iu":
            return self._rng.integers(self.low, self.high, endpoint=True).astype(self.dtype)
        lo = np.where(np.isfinite(self.low), self.low, -1e3)
        hi = np.where(np.isfinite(self.high), self.high, 1e3)
        return self._rng.uniform(lo, hi).astype(self.dtype)

    def contains(self, x) -> bool:
        x = np.asarray(x)
        return x.shape == self.shape and bool(np.all(x >= self.low) and np.all(x <= self.high))


class Dict:
    """A stand-in for gymnasium.spaces.Dict."""

    def __init__(self, spaces: dict):
        self.spaces = dict(spaces)

    def __getitem__(self, k):
        return self.spaces[k]

    def __repr__(self) -> str:
        return f"Dict({self.spaces!r})"

    def sample(self) -> dict:
        return {k: s.sample() for k, s in self.spaces.items()}

    def contains(self, x) -> bool:
        return isinstance(x, dict) and x.keys() == self.spaces.keys() and \
            all(s.contains(x[k]) for k, s in self.spaces.items())


def _box(low, high, shape, dtype):
    if _spaces is not None:
        return _spaces.Box(low=low, high=high, shape=shape, dtype=dtype)
    return Box(low, high, shape, dtype)


def _dict(d):
    return _spaces.Dict(d) if _spaces is not None else Dict(d)


def forward_progress(env: "SensimEnv", obs: dict, info: dict) -> float:
    """The default reward: metres the hero moved along its heading this step, minus 10 for a
    collision this step (the impulse's size does not matter)."""
    s = obs["state"]
    if s.dtype == np.float64:
        # math on floats: libm's cos and sin as numpy's scalar path calls them here, at a
        # twentieth of the cost of numpy's scalar ufuncs (a step's rewards the same bit for bit)
        yaw = math.radians(float(s[4]))
        v = float(s[6]) * math.cos(yaw) + float(s[7]) * math.sin(yaw)
        return v * env.dt - (10.0 if info["collisions"] else 0.0)
    yaw = np.radians(s[4])  # a subclass's state of another dtype: its arithmetic, as before
    v = s[6] * np.cos(yaw) + s[7] * np.sin(yaw)
    return float(v * env.dt) - (10.0 if info["collisions"] else 0.0)


def _collided(env: "SensimEnv", obs: dict, info: dict) -> bool:
    return bool(info["collisions"])


_Base = _gym.Env if _gym is not None else object

# where the state's x, y, z, pitch, yaw, roll, vx, vy, vz lie in an ActorInfo, one after another
_STATE_OFFSET = _lib.ActorInfo.transform.offset
assert _lib.ActorInfo.velocity.offset == _STATE_OFFSET + 6 * 8 and _lib.ActorInfo.transform.size == 6 * 8


class SensimEnv(_Base):
    """A scene as an episodic environment (Gymnasium's reset/step).

    scene: the scene file; observe: names of the scene's sensors to observe; hero: the
    vehicle the action drives (its scene name); reward(env, obs, info) -> float (default
    forward_progress); terminated(env, obs, info) -> bool (default: a collision this step);
    max_steps: the episode's length before truncation (default 1000);
    overrides: `--set` paths applied at load; threads, plugin_dir: the engine's; share_map
    (default True): the engine is made with the process's map cache on (sensim._lib.map_cache_on),
    so its resets copy the map's road mesh and reuse its physics data instead of building them
    again, and other environments made so on the same map file share them."""

    metadata = {"render_modes": []}

    def __init__(self, scene: str, observe: Sequence[str] = (), hero: str = "hero",
                 reward: Callable[["SensimEnv", dict, dict], float] = forward_progress,
                 terminated: Callable[["SensimEnv", dict, dict], bool] = _collided,
                 max_steps: int | None = None, overrides: Sequence[str] = (), threads: int = 1,
                 plugin_dir: str | None = None, share_map: bool = True):
        if isinstance(overrides, (str, bytes)):
            raise TypeError(f"SensimEnv: overrides is a list of 'PATH=VALUE' strings, not the string {overrides!r}")
        if isinstance(observe, (str, bytes)):
            raise TypeError(f"SensimEnv: observe is a list of sensor names, not the string {observe!r}")
        if max_steps is not None:
            if isinstance(max_steps, (bool, np.bool_)) or not isinstance(max_steps, (int, np.integer, float)) \
                    or (isinstance(max_steps, float) and not max_steps.is_integer()):
                raise TypeError(f"SensimEnv: max_steps is an episode's length in steps, an int, not {max_steps!r}")
            if max_steps < 1:
                raise ValueError(f"SensimEnv: max_steps is an episode's length in steps, at least 1, not {max_steps!r}")
        self.client = Client(threads=threads, plugin_dir=plugin_dir, quiet=True)
        with _lib.map_cache_on(share_map):
            self.world: World = self.client.load_scene(scene, list(overrides))
        self.hero_name = hero
        self.observe = list(observe)
        self.reward_fn, self.terminated_fn = reward, terminated
        self.max_steps = int(max_steps if max_steps is not None else 1000)
        # the actor the action drives, an entry of the scene (it may spawn later: the state is
        # zeros and actions wait until it does): a misspelt name would train on zeros for good
        self._check_hero(hero)
        self.dt = self.world.get_settings().fixed_delta_seconds
        self._steps = 0
        self._episode_seed: tuple | None = None  # (world._gen, its engine seed), read once a world (_observe)
        self._fresh = True
        self._rng: np.random.Generator | None = None
        self._frame_data: dict[str, list[SensorData]] = {}
        self._obs_spec: dict[str, tuple] = {}
        spaces = {"state": _box(-np.inf, np.inf, (9,), np.float64)}
        for name in self.observe:
            a = self.world.find_actor(name)
            if a is None:
                raise ValueError(f"observe: the scene has no sensor '{name}' alive at its start")
            attrs = a.attributes
            if a.type_id == "sensor.other.collision":
                self._obs_spec[name] = ("impulse",)
                spaces[name] = _box(0.0, np.inf, (1,), np.float64)
            elif a.type_id.startswith("sensor.camera.dvs"):
                self._obs_spec[name] = ("events",)
                spaces[name] = _box(0, np.iinfo(np.int64).max, (1,), np.int64)
            elif a.type_id.startswith("sensor.camera"):
                h, w = int(attrs["image_size_y"]), int(attrs["image_size_x"])
                self._obs_spec[name] = ("image", h, w)
                spaces[name] = _box(0, 255, (h, w, 4), np.uint8)
            else:
                raise ValueError(f"observe: no observation is defined for {a.type_id} ('{name}'); "
                                 "subclass SensimEnv and override _observe")
        self.observation_space = _dict(spaces)
        self.action_space = _box(np.array([0.0, -1.0, 0.0]), np.array([1.0, 1.0, 1.0]), (3,), np.float32)
        self._listen()

    def _check_hero(self, hero: str) -> None:
        """ValueError (the environment closed) unless `hero` names an entry of the scene that the
        action can drive: a vehicle, unless a subclass drives it its own way (_control)."""
        h = self.world.find_actor(hero)
        L = _lib.lib()
        if h is not None:
            bp = h.type_id
        elif isinstance(hero, str) and hasattr(L, "sn_engine_scene_blueprint"):  # one that spawns later
            bp = (L.sn_engine_scene_blueprint(self.world._engine(), hero.encode()) or b"").decode()
        else:
            bp = None
        own_control = type(self)._control is not SensimEnv._control
        if bp and (own_control or bp.startswith("vehicle.")):
            return
        vehicles = sorted(a.name for a in self.world.get_actors() if isinstance(a, Vehicle) and a.name)
        self.close()
        what = f"a {bp}, not a vehicle" if bp else "no actor of the scene"
        raise ValueError(f"SensimEnv: hero {hero!r} is {what} (its vehicles now: "
                         f"{', '.join(vehicles[:8]) or 'none'}{', ...' if len(vehicles) > 8 else ''})")

    # -- listeners collect this step's data; images are copied, as obs outlive the callback
    def _listen(self) -> None:
        for name in self.observe:
            kind = self._obs_spec[name][0]
            self._frame_data[name] = []
            sensor = self.world.find_actor(name)

            def cb(data, name=name, kind=kind):
                if kind == "image":
                    self._frame_data[name].append(np.array(data.array))
                elif kind == "events":
                    self._frame_data[name].append(len(data))
                else:
                    self._frame_data[name].append(data.normal_impulse.length())
            sensor.listen(cb)

    def _observe(self) -> tuple[dict, dict]:
        hero = self.world.find_actor(self.hero_name)
        if hero is not None:
            # the transform and velocity are the state's nine doubles in its order: one copy out
            # of the struct, not nine fields read through their ctypes views
            state = np.frombuffer(hero._info(), np.float64, 9, _STATE_OFFSET).copy()
        else:
            state = np.zeros(9, np.float64)
        obs: dict[str, Any] = {"state": state}
        collisions = []
        for name, spec in self._obs_spec.items():
            got = self._frame_data[name]
            if spec[0] == "image":
                prev = getattr(self, "_last_images", {}).get(name)
                img = got[-1] if got else (prev if prev is not None else np.zeros((spec[1], spec[2], 4), np.uint8))
                self.__dict__.setdefault("_last_images", {})[name] = img
                obs[name] = img
            elif spec[0] == "events":
                obs[name] = np.array([sum(got)], np.int64)
            else:
                obs[name] = np.array([sum(got)], np.float64)
                collisions += [(name, x) for x in got]
            got.clear()
        gen = self.world._gen
        if self._episode_seed is None or self._episode_seed[0] != gen:  # only a reset or rebuild changes it
            self._episode_seed = (gen, self.world.get_seed())
        seed = self._episode_seed[1]
        info = {"frame": self.world.frame, "collisions": collisions, "seed": seed, "steps": self._steps}
        return obs, info

    # -- Gymnasium's interface
    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        """Back to the scene's first frame in place. seed: this episode's engine seed (later
        resets without one draw theirs from a generator seeded with it); never seeded, every
        episode runs with the scene's seed."""
        if seed is not None:
            if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
                raise TypeError(f"reset: a seed is an int in 0..2^64-1, not {seed!r}")
            episode_seed = _check_seed(int(seed), "reset")
            self._rng = np.random.default_rng(episode_seed)
        elif self._rng is not None:
            episode_seed = int(self._rng.integers(0, 2**63 - 1))
        else:
            episode_seed = None
        if not (self._fresh and episode_seed is None):
            self.world.reset(episode_seed)
        self._fresh = False
        self._steps = 0
        self._last_images = {}
        for got in self._frame_data.values():
            got.clear()
        return self._observe()

    def step(self, action) -> tuple[dict, float, bool, bool, dict]:
        self._control(action)
        self.world.tick()
        return self._after_tick()

    # step's halves around the tick: SensimVectorEnv runs them around one batch of ticks
    def _control(self, action) -> None:
        if action is not None:
            a = np.asarray(action, np.float64)
            if a.shape != (3,):
                raise ValueError(f"step: an action is [throttle, steer, brake], shape (3,), not {a.shape}")
            hero = self.world.find_actor(self.hero_name)
            if hero is not None:
                hero.apply_control(VehicleControl(throttle=_clip(float(a[0]), 0.0, 1.0),
                                                  steer=_clip(float(a[1]), -1.0, 1.0),
                                                  brake=_clip(float(a[2]), 0.0, 1.0)))

    def _after_tick(self) -> tuple[dict, float, bool, bool, dict]:
        self._steps += 1
        obs, info = self._observe()
        reward = float(self.reward_fn(self, obs, info))
        terminated = bool(self.terminated_fn(self, obs, info))
        truncated = self._steps >= self.max_steps and not terminated
        return obs, reward, terminated, truncated, info

    def close(self) -> None:
        self.world.close()

    def render(self):
        return None
