"""The vector environment (issue 36 item 3): N engines stepped at once on threads give the same
bytes as each run alone, their steps really overlap, Gymnasium's batches and next-step autoreset."""
import hashlib
import os
import threading
import time

import numpy as np
import pytest

import sensim
from sensim.env import SensimEnv
from sensim.vector import SensimVectorEnv

from conftest import SCENES, scene_file

# A hero driving toward a wall with a camera and a collision sensor (every observation kind),
# and other cars so that physics has contacts to reorder (ODE's random generator is used).
VEC_SCENE = """
settings: {fixed_delta_seconds: 0.05, seed: 3}
actors:
  - {name: ground, blueprint: static.ground, attributes: {semantic_tag: Roads, texture: checker}}
  - {name: hero, blueprint: vehicle.sedan, transform: {location: [0, 0, 0]}, velocity: [6, 0, 0]}
  - {name: other, blueprint: vehicle.sedan, transform: {location: [8, 4, 0]}, velocity: [3, -1, 0]}
  - {name: third, blueprint: vehicle.sedan, transform: {location: [4, -5, 0]}, velocity: [2, 1.5, 0]}
  - {name: wall, blueprint: static.prop.box, transform: {location: [20, 0, 1.5]}, attributes: {extent: "0.5,5,1.5"}}
sensors:
  - {name: cam, blueprint: sensor.camera.rgb, attach_to: hero, transform: {location: [1.5, 0, 2.4]},
     attributes: {image_size_x: 64, image_size_y: 40}}
  - {name: crash, blueprint: sensor.other.collision, attach_to: hero}
"""
N, STEPS = 3, 45


@pytest.fixture(scope="module")
def vec_scene(out):
    return scene_file(out, "vec.yaml", VEC_SCENE)


def _actions(i):
    rng = np.random.default_rng(100 + i)
    return [np.array([rng.uniform(0, 1), rng.uniform(-0.5, 0.5), rng.uniform(0, 0.2)]) for _ in range(STEPS)]


def _digest(obs):
    h = hashlib.sha256()
    for k in sorted(obs):
        h.update(np.ascontiguousarray(obs[k]).tobytes())
    return h.hexdigest()


def _alone(scene, i, max_steps, share_map=True, steps=STEPS):
    """Environment i run by itself: a digest per step (with next-step autoreset as the vector
    environment does it), rewards, ends."""
    env = SensimEnv(scene, observe=["cam", "crash"], max_steps=max_steps, share_map=share_map)
    obs, _ = env.reset(seed=10 + i)
    out, again = [_digest(obs)], False
    for a in _actions(i)[:steps]:
        if again:
            obs, _ = env.reset()
            r, term, trunc = 0.0, False, False
        else:
            obs, r, term, trunc, _ = env.step(a)
        again = term or trunc
        out.append((_digest(obs), r, term, trunc))
    env.close()
    return out


@pytest.fixture(scope="module")
def alone_runs(vec_scene):
    return [_alone(vec_scene, i, 20) for i in range(N)]


@pytest.mark.parametrize("streamed", [True, False])
def test_vector_env_gives_each_env_its_alone_bytes(vec_scene, alone_runs, streamed):
    """Three engines stepping at once on a C pool, in one process: each one's observations,
    rewards and ends are byte-identical to that environment run alone (seeds 10 + i), through
    episode ends (max_steps 20: next-step autoreset), whether the batch is streamed (each
    environment's reset or control and observation on the caller while the others step) or one
    sn_engines_step call."""
    alone = alone_runs
    venv = SensimVectorEnv(vec_scene, N, observe=["cam", "crash"], max_steps=20)
    if streamed and venv._steps_pool is None:
        venv.close()
        pytest.skip("one core: no C pool to stream through")
    venv._stream = streamed and venv._steps_pool is not None
    obs, infos = venv.reset(seed=10)
    got = [[_digest({k: v[i] for k, v in obs.items()})] for i in range(N)]
    acts = [_actions(i) for i in range(N)]
    for s in range(STEPS):
        obs, r, term, trunc, infos = venv.step(np.stack([acts[i][s] for i in range(N)]))
        assert obs["cam"].shape == (N, 40, 64, 4) and r.shape == (N,) and term.dtype == bool
        for i in range(N):
            got[i].append((_digest({k: v[i] for k, v in obs.items()}), r[i], term[i], trunc[i]))
    venv.close()
    for i in range(N):
        assert got[i] == alone[i], f"environment {i} differs from its run alone"
    ends = sum(1 for i in range(N) for x in alone[i][1:] if x[2] or x[3])
    assert ends >= N, "the episodes should end within the run (autoreset is part of what is compared)"
    # different seeds and actions: the environments are not copies of each other
    assert len({alone[i][-1][0] for i in range(N)}) == N


# On a map: the vector environment makes its engines with the map cache on (share_map), so they
# read one parsed map, one road mesh and its physics data; a camera sees the roads.
MAP_SCENE = """
map: {map}
settings: {{fixed_delta_seconds: 0.05, seed: 3}}
actors:
  - {{name: hero, blueprint: vehicle.sedan, transform: {{location: [20, -1.75, 0.5]}}, velocity: [8, 0, 0]}}
sensors:
  - {{name: cam, blueprint: sensor.camera.rgb, attach_to: hero, transform: {{location: [1.5, 0, 2.4]}},
     attributes: {{image_size_x: 64, image_size_y: 40}}}}
  - {{name: crash, blueprint: sensor.other.collision, attach_to: hero}}
"""


def _cache_hits():
    import ctypes
    hits = ctypes.c_uint64()
    sensim._lib.lib().sn_map_cache_stats(None, ctypes.byref(hits), None)
    return hits.value


def test_vector_env_on_a_shared_map_gives_each_env_its_alone_bytes(out):
    """Engines sharing a map (the cache's one road mesh and trimesh data, through resets: max_steps
    10 over 23 steps, two resets and a step after) give byte-identical observations to each
    environment run alone with its own map (share_map=False: built again at every reset); the
    cache is back off after (it was off), and the loads did share (cache hits)."""
    scene = scene_file(out, "vec_map.yaml", MAP_SCENE.format(map=os.path.abspath(os.path.join(SCENES, "..", "maps",
                                                                                              "highway.xodr"))))
    L = sensim._lib.lib()
    assert not L.sn_map_cache_enabled()
    # 23 steps, not 45: two resets show the map shared through resets as well as four did, and
    # each reset alone builds the map again (most of the test's time)
    steps = 23
    alone = [_alone(scene, i, 10, share_map=False, steps=steps) for i in range(2)]  # its own map, rebuilt at resets
    assert all(sum(x[2] or x[3] for x in a[1:]) == 2 for a in alone), "two episode ends: two resets"
    hits = _cache_hits()
    venv = SensimVectorEnv(scene, 2, observe=["cam", "crash"], max_steps=10)
    assert not L.sn_map_cache_enabled(), "the vector environment turns the cache off again"
    assert _cache_hits() == hits + 1, "the second engine should share the first one's map"
    obs, _ = venv.reset(seed=10)
    got = [[_digest({k: v[i] for k, v in obs.items()})] for i in range(2)]
    acts = [_actions(i) for i in range(2)]
    for s in range(steps):
        obs, r, term, trunc, _ = venv.step(np.stack([acts[i][s] for i in range(2)]))
        for i in range(2):
            got[i].append((_digest({k: v[i] for k, v in obs.items()}), r[i], term[i], trunc[i]))
    venv.close()
    for i in range(2):
        assert got[i] == alone[i], f"environment {i} on the shared map differs from its run alone"
    assert np.asarray(obs["cam"]).std() > 0, "the camera should see the road"


def test_vector_env_steps_overlap(vec_scene):
    """The engines' steps run at the same time: a listener inside each engine's step waits at a
    barrier for the other's; steps serialised by a lock (the GIL held, one process-wide lock)
    would never both reach it and the barrier would break after its timeout."""
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("one core: the C pool steps the engines one after another")
    venv = SensimVectorEnv(vec_scene, 2, observe=["crash"], max_steps=50)
    venv.reset(seed=1)
    barrier = threading.Barrier(2, timeout=20)
    met = []

    def cb(_img):
        met.append(barrier.wait())
    for e in venv.envs:
        e.world.find_actor("cam").listen(cb)
    for _ in range(3):
        venv.step(np.zeros((2, 3)))
    venv.close()
    assert len(met) == 6 and sorted(met) == [0, 0, 0, 1, 1, 1]


@pytest.mark.parametrize("streamed", [False, True])
def test_vector_env_steps_in_one_c_call(vec_scene, streamed):
    """The engines step on a C pool of min(num_envs, cores) threads, in one sn_engines_step or
    streamed: a listener there (on a pool thread) calls into its own engine while the batch holds
    its lock (a GuestLock lets it in), close() from it is refused as in a plain tick, and an
    environment whose step() is its own still steps, through the Python pool. A
    listener's call into another environment's world is refused either way (the batch holds
    every world from its start to its end)."""
    cores = len(os.sched_getaffinity(0))
    venv = SensimVectorEnv(vec_scene, 3, observe=["crash"], max_steps=50)
    assert venv._batch and (venv._steps_pool is not None) == (cores > 1)
    assert venv._stream == (cores > 1)
    venv._stream = streamed and venv._stream
    venv.reset(seed=1)
    seen = []
    for e in venv.envs:
        w = e.world
        w.find_actor("cam").listen(lambda _img, w=w: seen.append(w.find_actor("hero").get_transform().location.x))
    for _ in range(2):
        venv.step(np.zeros((3, 3)))
    assert len(seen) == 6 and all(x > 0 for x in seen)  # the hero drives +x at 6 m/s
    for k in (1, 2):  # a world handed over after (2) or before (1) the listener's: refused alike
        other = venv.envs[k].world
        venv.envs[0].world.find_actor("cam").listen(lambda _img: other.find_actor("hero"))
        with pytest.raises(sensim.SensimError, match="another world stepped in the same batch"):
            venv.step(np.zeros((3, 3)))  # refused, not a deadlock: the batch holds the other world
        venv.envs[0].world.find_actor("cam").stop()
    venv.envs[1].world.find_actor("cam").listen(lambda _img: venv.envs[1].world.close())
    with pytest.raises(sensim.SensimError, match="inside a listener"):
        venv.step(np.zeros((3, 3)))
    venv.close()

    class Own(SensimEnv):
        def step(self, action):
            return super().step(action)
    venv = SensimVectorEnv(env_fns=[lambda: Own(vec_scene, observe=["crash"])] * 2)
    assert not venv._batch
    venv.reset(seed=1)
    obs, *_ = venv.step(np.zeros((2, 3)))
    assert obs["state"].shape == (2, 9) and list(venv.get_attr("_steps")) == [1, 1]
    venv.close()


def test_vector_env_close_during_a_step(vec_scene):
    """close() during a batched step: from a listener of the batch it is refused (SensimError,
    raised by step(), as a world's close() there), never freeing the C pool the batch runs on;
    from another thread it waits for the step to end, then closes."""
    venv = SensimVectorEnv(vec_scene, 2, observe=["crash"], max_steps=50)
    venv.reset(seed=1)
    venv.envs[1].world.find_actor("cam").listen(lambda _img: venv.close())
    with pytest.raises(sensim.SensimError, match="inside a listener"):
        venv.step(np.zeros((2, 3)))
    assert not venv.closed
    venv.envs[1].world.find_actor("cam").stop()
    closer = threading.Thread(target=venv.close)
    started = threading.Event()

    def slow(_img):
        if not started.is_set():
            started.set()
            closer.start()
            closer.join(0.5)  # close() would have freed the pool, the worlds under this step
    venv.envs[0].world.find_actor("cam").listen(slow)
    obs, *_ = venv.step(np.zeros((2, 3)))
    closer.join(20)
    assert obs["state"].shape == (2, 9) and venv.closed and not closer.is_alive()
    with pytest.raises(RuntimeError, match="closed"):
        venv.step(np.zeros((2, 3)))
    # from an on_tick callback (on the caller, while the other engine may still step): closed
    # when the step ends, its results whole; no deadlock, nothing freed under the batch
    venv = SensimVectorEnv(vec_scene, 2, observe=["crash"], max_steps=50)
    venv.reset(seed=1)
    venv.envs[0].world.on_tick(lambda _snap: venv.close())
    obs, rewards, *_ = venv.step(np.zeros((2, 3)))
    assert obs["state"].shape == (2, 9) and rewards.shape == (2,) and venv.closed
    with pytest.raises(RuntimeError, match="closed"):
        venv.step(np.zeros((2, 3)))


@pytest.mark.parametrize("streamed", [True, False])
def test_vector_env_callbacks_see_the_other_worlds_stepped(vec_scene, streamed):
    """An environment's callbacks on the caller (here on_tick) may read another environment of
    the same step: streamed, the caller runs them while other engines still step, so such a call
    waits for that engine's step to end (or steps it there) before it goes in, never calling
    into an engine being stepped; it sees the other world stepped, as in one call. The engine a
    pool thread steps is held in its step (its listener sleeps) so that the caller's finishes
    first. A vector step from such a callback is refused, not run inside the step."""
    if streamed and len(os.sched_getaffinity(0)) < 2:
        pytest.skip("one core: no C pool, nothing steps beside the caller")
    venv = SensimVectorEnv(vec_scene, 2, observe=["crash"], max_steps=50)
    venv._stream = streamed and venv._stream
    venv.reset(seed=1)
    me = threading.get_ident()
    seen = []
    for i, e in enumerate(venv.envs):
        other = venv.envs[1 - i].world
        e.world.find_actor("cam").listen(lambda _img: threading.get_ident() != me and time.sleep(0.5))
        e.world.on_tick(lambda snap, i=i, other=other: seen.append((i, snap.frame, other.get_snapshot().frame)))
    for step in range(1, 3):
        venv.step(np.zeros((2, 3)))
        got = sorted(seen[-2:])
        assert [g[0] for g in got] == [0, 1] and all(g[1] == g[2] for g in got), got  # both worlds stepped
    assert seen[-1][2] == seen[0][2] + 1
    venv.envs[0].world.on_tick(lambda _snap: venv.step(np.zeros((2, 3))))
    with pytest.raises(sensim.SensimError, match="called from a callback of this vector environment's step"):
        venv.step(np.zeros((2, 3)))
    venv.close()


def test_engines_step_refuses_bad_arguments():
    """sn_engines_step's refusals reach Python as a status and a sentence, not a crash."""
    import ctypes
    L = sensim._lib.lib().raw
    err = sensim._lib.Error()
    assert L.sn_engines_step(None, None, 2, None, None, ctypes.byref(err)) == -1
    assert b"NULL engines" in err.msg
    two = (ctypes.c_void_p * 2)(None, None)
    assert L.sn_engines_step(None, two, 2, None, None, ctypes.byref(err)) == -1 and b"engine 0 is NULL" in err.msg
    assert not L.sn_step_pool_create(-3, ctypes.byref(err)) and err.status == -2


def test_vector_env_interface(vec_scene):
    venv = SensimVectorEnv(vec_scene, 2, observe=["cam", "crash"], max_steps=2)
    assert venv.num_envs == 2
    assert venv.single_observation_space["cam"].shape == (40, 64, 4)
    assert venv.observation_space["cam"].shape == (2, 40, 64, 4)
    assert venv.action_space.shape == (2, 3)
    obs, infos = venv.reset(seed=[5, None])
    assert set(obs) == {"state", "cam", "crash"} and obs["state"].shape == (2, 9)
    assert list(infos["seed"]) == [5, 3] and infos["_seed"].all()   # None keeps the scene's seed
    for k in range(2):
        obs, r, term, trunc, infos = venv.step(np.tile([0.5, 0.0, 0.0], (2, 1)))
    assert trunc.all() and not term.any()                          # max_steps 2
    obs, r, term, trunc, infos = venv.step(np.zeros((2, 3)))       # next step: reset
    assert (r == 0).all() and not trunc.any() and list(infos["steps"]) == [0, 0]
    assert venv.get_attr("max_steps") == (2, 2)
    with pytest.raises(ValueError):
        venv.step(np.zeros((3, 3)))
    with pytest.raises(ValueError, match=r"shape \(2, 3\)"):
        venv.step(np.zeros((2, 4)))
    # a row the engine refuses is refused before any environment steps: none gets ahead
    frames = [e.world.frame for e in venv.envs]
    with pytest.raises(ValueError, match="action of environment 1 is NaN"):
        venv.step(np.array([[0.5, 0, 0], [np.nan, 0, 0]]))
    assert [e.world.frame for e in venv.envs] == frames
    venv.step(np.array([[np.inf, 0, 0], [0.5, -np.inf, 0]]))  # clipped, as one environment clips them
    assert [e.world.frame for e in venv.envs] == [f + 1 for f in frames]
    with pytest.raises(ValueError):
        venv.reset(seed=[1, 2, 3])
    for bad in ("7", True, 1.5):
        with pytest.raises(TypeError, match="reset: seed is an int"):
            venv.reset(seed=bad)
    venv.close()
    venv.close()
    with pytest.raises(ValueError):
        SensimVectorEnv(vec_scene, 0)
    with pytest.raises(ValueError):
        SensimVectorEnv(vec_scene, 1, observe=["nope"])


def test_world_calls_wait_for_their_own_step_only(vec_scene):
    """Issue 33 item 16 with one lock per engine: a call into world A from a second thread while
    A steps waits for A's step, while world B's calls go on meanwhile."""
    client_a, client_b = sensim.Client(quiet=True), sensim.Client(quiet=True)
    a, b = client_a.load_scene(vec_scene), client_b.load_scene(vec_scene)
    inside, release = threading.Event(), threading.Event()
    order = []

    def cb(_img):
        inside.set()
        release.wait(20)
        order.append("a step ends")
    a.find_actor("cam").listen(cb)
    t = threading.Thread(target=a.tick)
    t.start()
    try:
        assert inside.wait(20)
        tb = threading.Thread(target=lambda: (b.tick(), order.append("b ticked")))
        tb.start()
        tb.join(20)
        assert not tb.is_alive(), "world B's tick waited for world A's step"
        waiter = threading.Thread(target=lambda: (a.get_actors(), order.append("a call returns")))
        waiter.start()
        waiter.join(0.3)
        assert waiter.is_alive()           # waits for A's step
    finally:
        release.set()
    t.join(20)
    waiter.join(20)
    assert order == ["b ticked", "a step ends", "a call returns"]
    a.close()
    b.close()


def test_ode_random_generator_is_per_thread():
    """libsensim's dRand replaces ODE's process-wide generator with one per thread (ode_share.c):
    ODE's own dRandInt advances this thread's state, never ODE's global one nor another thread's.
    Engines on two threads then reorder their constraints each with its own sequence."""
    import ctypes
    from sensim import _lib
    L = _lib.lib().raw
    ode = ctypes.CDLL(next(l.split()[-1] for l in open("/proc/self/maps") if "libode" in l))
    for f in (L.dRandGetSeed, ode.dRandGetSeed):
        f.restype = ctypes.c_ulong
    L.dRandSetSeed.argtypes = [ctypes.c_ulong]
    ode.dRandInt.argtypes, ode.dRandInt.restype = [ctypes.c_int], ctypes.c_int
    glob = ode.dRandGetSeed()
    L.dRandSetSeed(12345)
    other = []
    t = threading.Thread(target=lambda: (L.dRandSetSeed(7), ode.dRandInt(10), other.append(L.dRandGetSeed())))
    t.start()
    t.join()
    ode.dRandInt(1000)
    assert L.dRandGetSeed() == (1664525 * 12345 + 1013904223) % 2**32
    assert other == [(1664525 * 7 + 1013904223) % 2**32]
    assert ode.dRandGetSeed() == glob


def _merge_infos_reference(infos):
    """The batched infos as first written (an isinstance chain per value): the step's faster
    _merge_infos must give the same keys, dtypes, values and masks."""
    n = len(infos)
    out, keys = {}, []
    for info in infos:
        keys += [k for k in info if k not in keys]
    for k in keys:
        have = np.array([k in info for info in infos])
        vals = [info.get(k) for info in infos]
        given = [v for v, h in zip(vals, have) if h]
        if all(isinstance(v, (bool, np.bool_)) for v in given):
            arr = np.array([bool(v) if h else False for v, h in zip(vals, have)])
        elif all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in given):
            arr = np.array([int(v) if h else 0 for v, h in zip(vals, have)], np.int64)
        elif all(isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool) for v in given):
            arr = np.array([float(v) if h else 0.0 for v, h in zip(vals, have)], np.float64)
        else:
            arr = np.empty(n, object)
            for i, (v, h) in enumerate(zip(vals, have)):
                arr[i] = v if h else None
        out[k], out["_" + k] = arr, have
    return out


def test_merge_infos_and_stack_match_their_reference():
    from sensim.vector import _merge_infos
    values = [True, False, np.bool_(True), 1, 0, 2**62, -2**63, np.int32(3), np.int64(-2), 2.5, np.float32(1.5),
              np.float64(3.25), "s", None, [], [("crash", 1.0)], (1,), {"a": 1}]
    rng = np.random.default_rng(7)
    for _ in range(3000):
        n = int(rng.integers(1, 6))
        keys = [f"k{j}" for j in range(int(rng.integers(1, 5)))]
        infos = []
        for _i in range(n):
            order = list(rng.permutation(keys)) if rng.random() < 0.3 else keys
            infos.append({k: values[rng.integers(len(values))] for k in order if rng.random() < 0.85})
        if rng.random() < 0.5:  # one kind a key, as a step's infos are
            for k in keys:
                v = values[rng.integers(len(values))]
                for d in infos:
                    if k in d:
                        d[k] = v
        got, want = _merge_infos(infos), _merge_infos_reference(infos)
        assert list(got) == list(want)
        for k in want:
            assert got[k].dtype == want[k].dtype and got[k].shape == want[k].shape, (k, infos)
            if want[k].dtype == object:
                assert all(type(a) is type(b) and a == b for a, b in zip(got[k], want[k])), (k, infos)
            else:
                assert got[k].tobytes() == want[k].tobytes(), (k, infos)
    obs = [{"state": rng.random(9), "img": rng.integers(0, 255, (4, 6, 4), np.uint8), "n": np.array([i], np.int64)}
           for i in range(3)]
    stacked = SensimVectorEnv._stack(None, obs)
    for k in obs[0]:
        want = np.stack([o[k] for o in obs])
        assert stacked[k].dtype == want.dtype and stacked[k].shape == want.shape
        assert stacked[k].tobytes() == want.tobytes()
