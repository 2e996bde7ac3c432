"""N environments stepped at once, in Gymnasium's VectorEnv shape (issue 36 item 3).

    venv = SensimVectorEnv("scenes/crash.yaml", num_envs=4, observe=["crash"], max_steps=100)
    obs, infos = venv.reset(seed=0)          # env i gets seed 0 + i
    obs, rewards, terminated, truncated, infos = venv.step(actions)   # actions: (4, 3)

Each sub-environment is a SensimEnv with its own engine. A step is streamed through a C pool of
min(num_envs, cores) threads, the caller's included, each taking the next engine and running its
whole step before the next (the loop's order on every core; docs/c-api.md "Stepping many
engines"): on the caller, each environment's Python before its tick (its control), its engine
handed to the pool at once, then the autoresets while the pool steps; then, with the GIL given
up while it waits or steps an engine no pool thread took, each environment's Python after its
tick (observation, reward) as soon as its engine has stepped, while the others still step (a
call from there into another environment's world waits for that world's step). A libsensim
without the streamed calls steps them all in one sn_engines_step. Environments whose step() is not
SensimEnv's own, or a world in asynchronous mode, step as before: each on its own thread of a
Python pool (environment 0 on the caller's), as resets do. Engines share nothing that changes
their results: the same seeds and actions give byte-identical observations whether an
environment runs alone or beside others (python/tests/test_vector_env.py).

Batches follow Gymnasium 1.x: observations are the single observation space's entries stacked
on a first axis of num_envs; rewards, terminations and truncations are arrays of num_envs;
infos is a dict of arrays with a boolean mask "_key" saying which environments gave "key".
Autoreset is Gymnasium's default, next step: the step after an environment's episode ends
resets it (its reward 0, not terminated, not truncated, the reset's observation and info).
Gymnasium is used when it is importable (the class derives from gymnasium.vector.VectorEnv and
its spaces are batched with gymnasium.vector.utils.batch_space); otherwise the spaces are the
stand-ins of sensim.env with the same fields.
"""
from __future__ import annotations

import ctypes
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, Sequence

import numpy as np

from . import _lib
from . import env as _env
from .env import SensimEnv
from .world import _step_batch, _step_stream

try:  # optional, as in sensim.env
    import gymnasium as _gym
    from gymnasium.vector import VectorEnv as _VectorEnv
    from gymnasium.vector.utils import batch_space as _batch_space
    try:
        from gymnasium.vector import AutoresetMode as _AutoresetMode
        _NEXT_STEP: Any = _AutoresetMode.NEXT_STEP
    except ImportError:  # pragma: no cover - gymnasium < 1.1
        _NEXT_STEP = "NextStep"
except ImportError:  # pragma: no cover - depends on the machine
    _gym = None
    _VectorEnv = object
    _batch_space = None
    _NEXT_STEP = "NextStep"

__all__ = ["SensimVectorEnv"]


def _batch(space, n: int):
    if _batch_space is not None:
        return _batch_space(space, n)
    if isinstance(space, _env.Dict):
        return _env.Dict({k: _batch(s, n) for k, s in space.spaces.items()})
    return _env.Box(np.broadcast_to(space.low, (n,) + space.shape), np.broadcast_to(space.high, (n,) + space.shape),
                    (n,) + space.shape, space.dtype)


# what a value of an info is, by its type: "b" bool, "i" integer, "f" float, "o" anything else;
# looked up once per type, not by a chain of isinstance per value and key every step
_KINDS: dict[type, str] = {}


def _kind(v) -> str:
    t = type(v)
    k = _KINDS.get(t)
    if k is None:
        k = ("b" if isinstance(v, (bool, np.bool_)) else "i" if isinstance(v, (int, np.integer))
             else "f" if isinstance(v, (float, np.floating)) else "o")
        _KINDS[t] = k
    return k


def _merge_infos(infos: list[dict]) -> dict:
    """Gymnasium's vector infos: one array per key over the environments, and "_key" saying
    which environments gave it (bools as a bool array, integers as int64, integers and floats
    as float64, anything else as objects; an environment without the key gives False, 0, 0.0 or
    None). Every step makes one, so each value's kind is looked up by its type (_kind)."""
    n = len(infos)
    out: dict[str, Any] = {}
    first = infos[0]
    if all(info.keys() == first.keys() for info in infos):  # the usual case: every env gave every key
        keys: list = list(first)
        haves, every = None, [True] * n
    else:
        keys = []
        for info in infos:
            keys += [k for k in info if k not in keys]
        haves = {k: [k in info for info in infos] for k in keys}
    for k in keys:
        if haves is None:
            hl, have = every, np.array(every)  # np.ones(n, bool), without its Python wrapper
            vals = [info[k] for info in infos]
            types = set(map(type, vals))
            # a kind is its type's (_kind): once every type is known, no call per value
            kinds = {_KINDS[t] for t in types} if types <= _KINDS.keys() else {_kind(v) for v in vals}
        else:
            hl = haves[k]
            have = np.array(hl)
            vals = [info.get(k) for info in infos]
            kinds = {_kind(v) for v, h in zip(vals, hl) if h}
        if kinds == {"b"}:
            arr = np.array([bool(v) if h else False for v, h in zip(vals, hl)])
        elif kinds == {"i"} and haves is None and types == {int}:  # int() would return each as it is
            arr = np.array(vals, np.int64)
        elif kinds == {"i"}:
            arr = np.array([int(v) if h else 0 for v, h in zip(vals, hl)], np.int64)
        elif kinds <= {"i", "f"}:
            arr = np.array([float(v) if h else 0.0 for v, h in zip(vals, hl)], np.float64)
        else:
            arr = np.empty(n, object)
            for i, (v, h) in enumerate(zip(vals, hl)):
                arr[i] = v if h else None
        out[k], out["_" + k] = arr, have
    return out


class SensimVectorEnv(_VectorEnv):
    """num_envs copies of one scene's environment (or the environments env_fns make), stepped
    concurrently: one C call a step, on min(num_envs, cores) threads (the module's docstring).

    scene: the scene file, with num_envs and SensimEnv's keyword arguments (observe, hero,
    reward, terminated, max_steps, overrides, threads: each engine's own threads, default 1,
    plugin_dir); or env_fns: callables that each return a SensimEnv (Gymnasium's
    AsyncVectorEnv's argument), whose spaces must be equal.

    share_map (default True): the environments are made with the process's map cache on
    (sn_map_cache_enable, docs/batch.md "Runs that share a map"; turned off again after, when
    it was off), so engines on the same map file share one parsed map, one road mesh and its
    physics data, read by every engine's step, instead of a copy each: less memory and cache
    per environment, outputs byte-identical (python/tests/test_vector_env.py)."""

    def __init__(self, scene: str | None = None, num_envs: int | None = None, *,
                 env_fns: Sequence[Callable[[], SensimEnv]] | None = None, share_map: bool = True, **env_kwargs):
        if (scene is None) == (env_fns is None):
            raise ValueError("SensimVectorEnv: give a scene (with num_envs) or env_fns, not both")
        if env_fns is None:
            if num_envs is None or int(num_envs) < 1:
                raise ValueError(f"SensimVectorEnv: num_envs must be >= 1, not {num_envs!r}")
            env_fns = [lambda: SensimEnv(scene, share_map=share_map, **env_kwargs)] * int(num_envs)
        elif not env_fns:
            raise ValueError("SensimVectorEnv: env_fns is empty")
        self.envs: list[SensimEnv] = []
        try:
            with _lib.map_cache_on(share_map):  # engines keep what they share (resets too)
                for fn in env_fns:
                    self.envs.append(fn())
        except BaseException:
            for e in self.envs:
                e.close()
            raise
        self.num_envs = len(self.envs)
        first = self.envs[0]
        for i, e in enumerate(self.envs[1:], 1):
            if repr(e.observation_space) != repr(first.observation_space) or \
               repr(e.action_space) != repr(first.action_space):
                self.close()
                raise ValueError(f"SensimVectorEnv: environment {i}'s spaces differ from environment 0's")
        self.single_observation_space = first.observation_space
        self.single_action_space = first.action_space
        self.observation_space = _batch(first.observation_space, self.num_envs)
        self.action_space = _batch(first.action_space, self.num_envs)
        self.metadata = {"autoreset_mode": _NEXT_STEP, "render_modes": []}
        self.render_mode = None
        self.spec = None
        self.closed = False
        self._autoreset = np.zeros(self.num_envs, bool)
        self._step_thread = 0  # the thread inside a batched step, 0 if none
        self._close_pending = False  # close() asked from inside that step
        # held through a batched step: close() on another thread waits for it rather than free
        # the C pool and the engines under it (re-entrant: an on_tick callback may close)
        self._stepping = threading.RLock()
        self._pool = ThreadPoolExecutor(max_workers=max(1, self.num_envs - 1), thread_name_prefix="sensim-env")
        # the C pool the steps run on (None: on the caller alone, or no sn_engines_step in an older
        # libsensim, where step() uses the Python pool)
        L = _lib.lib().raw
        self._batch = hasattr(L, "sn_engines_step") and all(type(e).step is SensimEnv.step for e in self.envs)
        self._steps_pool = None
        self._stream = False
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
        if self._batch and min(self.num_envs, cores) > 1:
            err = _lib.Error()
            self._steps_pool = L.sn_step_pool_create(min(self.num_envs, cores), ctypes.byref(err))
            if not self._steps_pool:
                self.close()
                _lib.check(err.status or -3, err)
        # streamed (sn_engines_step_next): this thread's Python around each step overlaps the others'
        self._stream = self._steps_pool is not None and hasattr(L, "sn_engines_step_wait")

    # -- batching
    def _stack(self, observations: list[dict]) -> dict:
        # np.array of the equal-shaped arrays is np.stack's result at a third of its overhead
        # (a step's observations are small: its fixed cost is most of the wrapper's time)
        return {k: np.array([o[k] for o in observations]) for k in observations[0]}

    def _run(self, fn: Callable[[int], Any]) -> list:
        """fn(i) for every environment, each on its own thread (environment 0 on this one); the
        first environment's error is raised."""
        if self.closed:
            raise RuntimeError("SensimVectorEnv: closed")
        if self.num_envs == 1:
            return [fn(0)]
        # environment 0 on this thread, which would otherwise only wait: one hand-over fewer
        futures = [self._pool.submit(fn, i) for i in range(1, self.num_envs)]
        out, error = [], None
        try:
            out.append(fn(0))
        except BaseException as e:
            error = e
        for f in futures:  # every step ends before an error is raised
            try:
                out.append(f.result())
            except BaseException as e:
                error = error or e
        if error is not None:
            raise error
        return out

    # -- Gymnasium's interface
    def reset(self, *, seed: int | Sequence[int | None] | None = None,
              options: dict | None = None) -> tuple[dict, dict]:
        """Resets every environment (or those options["reset_mask"] marks). seed: an int gives
        environment i the seed seed + i; a list gives each its own; None keeps each one's."""
        if isinstance(seed, (bool, np.bool_, str, bytes)) or not (
                seed is None or isinstance(seed, (int, np.integer)) or hasattr(seed, "__len__")):
            raise TypeError(f"reset: seed is an int, a list of {self.num_envs} ints (or None), or None; "
                            f"not {seed!r}")
        if seed is None or isinstance(seed, (int, np.integer)):
            seeds = [None if seed is None else int(seed) + i for i in range(self.num_envs)]
        else:
            seeds = list(seed)
            if len(seeds) != self.num_envs:
                raise ValueError(f"reset: {len(seeds)} seeds for {self.num_envs} environments")
        options = dict(options or {})
        mask = options.pop("reset_mask", None)
        mask = np.ones(self.num_envs, bool) if mask is None else np.asarray(mask, bool)
        if mask.shape != (self.num_envs,):
            raise ValueError(f"reset: reset_mask must have shape ({self.num_envs},)")
        if not mask.all() and not hasattr(self, "_last_obs"):
            raise ValueError("reset: a reset_mask needs an earlier full reset")
        opts = options or None

        def one(i):
            if mask[i]:
                return self.envs[i].reset(seed=seeds[i], options=opts)
            return self._last_obs[i], {}
        results = self._run(one)
        obs = [r[0] for r in results]
        self._last_obs = obs
        self._autoreset[mask] = False
        return self._stack(obs), _merge_infos([r[1] for r in results])

    def step(self, actions) -> tuple[dict, np.ndarray, np.ndarray, np.ndarray, dict]:
        """Steps every environment with its row of actions (num_envs x 3: throttle, steer,
        brake; None steps them all without control). An environment whose episode ended at
        the last step is reset instead (Gymnasium's next-step autoreset)."""
        acts = [None] * self.num_envs if actions is None else np.asarray(actions, np.float64)
        if actions is not None:
            want = (self.num_envs,) + tuple(self.single_action_space.shape)
            if acts.shape != want:
                raise ValueError(f"step: actions must have shape {want}, not {acts.shape}")
            # a row the engine would refuse (a NaN: infinities are clipped) refused before any
            # environment steps: raised from inside the batch it would leave the others a step
            # ahead; an environment about to autoreset ignores its row
            bad = np.isnan(acts.reshape(self.num_envs, -1)).any(axis=1) & ~self._autoreset
            if bad.any():
                i = int(np.flatnonzero(bad)[0])
                raise ValueError(f"step: the action of environment {i} is NaN: {acts[i].tolist()}")

        if self.closed:
            raise RuntimeError("SensimVectorEnv: closed")
        if self._batch and all(e.world._async is None for e in self.envs):
            if self._step_thread == threading.get_ident():
                raise _lib.SensimError("step: called from a callback of this vector environment's step (a "
                                       "reward, termination or on_tick callback): step after it returns", -4)
            with self._stepping:
                if self.closed:  # by another thread meanwhile
                    raise RuntimeError("SensimVectorEnv: closed")
                self._step_thread = threading.get_ident()
                try:
                    results = self._step_batched(acts)
                finally:
                    self._step_thread = 0
                    if self._close_pending:  # close() from a callback of this step: now it has ended
                        self._close_all()
        else:
            def one(i):
                if self._autoreset[i]:
                    o, info = self.envs[i].reset()
                    return o, 0.0, False, False, info
                return self.envs[i].step(acts[i])
            results = self._run(one)
        obs = [r[0] for r in results]
        self._last_obs = obs
        rewards = np.array([r[1] for r in results], np.float64)
        terminated = np.array([r[2] for r in results], bool)
        truncated = np.array([r[3] for r in results], bool)
        self._autoreset = terminated | truncated
        return self._stack(obs), rewards, terminated, truncated, _merge_infos([r[4] for r in results])

    def _step_batched(self, acts) -> list:
        """step()'s results through the C pool: streamed (sensim.world._step_stream) where the
        library can, each environment's reset or control handed over as soon as it is applied
        and its observation and reward read as soon as its step ends, while the other engines
        step; else through one sn_engines_step (sensim.world._step_batch), the resets and
        controls before it and the observations after. All of it on this thread; the first
        environment's error is raised after every environment has stepped."""
        n = self.num_envs
        results: list = [None] * n
        errors: list = [None] * n

        # the autoresets one after another here, beside the engines that step when streamed: at
        # once on the Python pool they cost more CPU (rev59 measured 1.06-1.38x for four) for a
        # wall time that only free cores lower
        def prepare(i):  # the world to step, or None
            e = self.envs[i]
            try:
                if self._autoreset[i]:
                    o, info = e.reset()
                    results[i] = (o, 0.0, False, False, info)
                    return None
                e._control(acts[i])
                return e.world
            except BaseException as ex:
                errors[i] = ex
                return None

        def finish(i, ex):
            try:
                if ex is not None:
                    raise ex
                results[i] = self.envs[i]._after_tick()
            except BaseException as ex2:
                errors[i] = ex2

        if self._stream:
            # the environments that step first, so that the autoresets (on this thread, the GIL
            # given up in the C reset) run while the pool steps them
            order = [i for i in range(n) if not self._autoreset[i]] + [i for i in range(n) if self._autoreset[i]]
            _step_stream(self._steps_pool, [e.world for e in self.envs], order, prepare, finish)
        else:
            ticking = [i for i in range(n) if prepare(i) is not None]
            if ticking:
                for i, ex in zip(ticking, _step_batch(self._steps_pool, [self.envs[i].world for i in ticking])):
                    finish(i, ex)
        for ex in errors:
            if ex is not None:
                raise ex
        return results

    def call(self, name: str, *args, **kwargs) -> tuple:
        """Each environment's method `name` called (or its attribute read) in turn."""
        out = []
        for e in self.envs:
            v = getattr(e, name)
            out.append(v(*args, **kwargs) if callable(v) else v)
        return tuple(out)

    def get_attr(self, name: str) -> tuple:
        return tuple(getattr(e, name) for e in self.envs)

    def set_attr(self, name: str, values) -> None:
        if not isinstance(values, (list, tuple)):
            values = [values] * self.num_envs
        if len(values) != self.num_envs:
            raise ValueError(f"set_attr: {len(values)} values for {self.num_envs} environments")
        for e, v in zip(self.envs, values):
            setattr(e, name, v)

    def render(self):
        return None

    def close(self, **kwargs) -> None:
        """Closes every environment. Refused inside a listener of a step of this vector's (it
        would free the engines and the C pool under that step); from the step's own callbacks on
        its thread (reward, termination, on_tick: other engines may still be stepping) done when
        the step ends, its results whole; from another thread it waits for the step to end."""
        if getattr(self, "closed", False):
            return
        me = threading.get_ident()
        locks = [getattr(getattr(e, "world", None), "_lock", None) for e in self.envs]
        if any(type(lk) is _lib.GuestLock and lk.guest == me for lk in locks):
            raise _lib.SensimError("close: called inside a listener of this vector environment's step: close "
                                   "it after step() returns", -4)
        if getattr(self, "_step_thread", 0) == me:
            self._close_pending = True
            return
        if hasattr(self, "_stepping"):
            with self._stepping:
                self._close_all()
        else:  # the constructor failed before the lock
            self._close_all()

    def _close_all(self) -> None:
        if self.closed:
            return
        self.closed = True
        if hasattr(self, "_pool"):
            self._pool.shutdown(wait=True)
        if getattr(self, "_steps_pool", None):
            _lib.lib().raw.sn_step_pool_destroy(self._steps_pool)
            self._steps_pool = None
        for e in self.envs:
            e.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def __repr__(self) -> str:
        return f"SensimVectorEnv(num_envs={self.num_envs})"
