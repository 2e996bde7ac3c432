"""World.reset and the RL environment: a reset episode is byte-identical to a fresh one, several
environments in one process step as they do alone, Gymnasium's interface."""
import hashlib
import os

import numpy as np
import pytest

import sensim
from sensim.env import SensimEnv

from conftest import SCENES, scene_file

# A hero driving toward a wall, a camera on it, a collision sensor: every observation kind.
ENV_SCENE = """
settings: {fixed_delta_seconds: 0.05, seed: 3}
actors:
  - {name: ground, blueprint: static.ground, attributes: {semantic_tag: Roads, texture: checker}}
  - {name: hero, blueprint: vehicle.sedan, transform: {location: [0, 0, 0]}, velocity: [6, 0, 0]}
  - {name: wall, blueprint: static.prop.box, transform: {location: [20, 0, 1.5]}, attributes: {extent: "0.5,5,1.5"}}
sensors:
  - {name: cam, blueprint: sensor.camera.rgb, attach_to: hero, transform: {location: [1.5, 0, 2.4]},
     attributes: {image_size_x: 48, image_size_y: 32}}
  - {name: crash, blueprint: sensor.other.collision, attach_to: hero}
"""


def _episode(env, seed, actions):
    h = hashlib.sha256()
    obs, info = env.reset(seed=seed)
    for k in sorted(obs):
        h.update(obs[k].tobytes())
    rewards = []
    for a in actions:
        obs, r, term, trunc, info = env.step(a)
        for k in sorted(obs):
            h.update(obs[k].tobytes())
        rewards.append(r)
        if term or trunc:
            break
    return h.hexdigest(), rewards, term, trunc


def _actions(n, seed=1):
    rng = np.random.default_rng(seed)
    return [np.array([rng.uniform(0, 1), rng.uniform(-0.2, 0.2), 0.0]) for _ in range(n)]


@pytest.fixture(scope="module")
def env_scene(out):
    return scene_file(out, "env.yaml", ENV_SCENE)


def test_world_reset_restores_the_first_frame(client):
    world = client.load_scene(os.path.join(SCENES, "crash.yaml"))
    events = []
    world.find_actor("crash").listen(lambda ev: events.append((ev.frame, tuple(ev.normal_impulse))))
    for _ in range(60):
        world.tick()
    world.spawn_actor(world.get_blueprint_library().find("vehicle.sedan"), sensim.Transform(sensim.Location(300, 0, 1)))
    world.tick()
    first = list(events)
    events.clear()
    world.reset()
    assert world.frame == 0 and len(world.get_actors().filter("vehicle.*")) == 1
    for _ in range(60):  # the listener was registered again by name
        world.tick()
    assert events == first and len(first) == 1


def test_env_episode_after_reset_equals_a_fresh_env(env_scene):
    acts = _actions(60)
    a = SensimEnv(env_scene, observe=["cam", "crash"], max_steps=60)
    first = _episode(a, 7, acts)
    again = _episode(a, 7, acts)  # after a reset in place
    b = SensimEnv(env_scene, observe=["cam", "crash"], max_steps=60)
    fresh = _episode(b, 7, acts)
    assert first == again == fresh
    assert first[2] is True  # it hit the wall: terminated
    assert min(first[1]) < -9 and first[1][-1] < -9  # the collision step carries the -10 penalty
    a.close()
    b.close()


def test_envs_in_one_process_step_as_they_do_alone(env_scene):
    acts = [_actions(40, s) for s in range(4)]
    alone = []
    for s in range(4):
        e = SensimEnv(env_scene, observe=["cam", "crash"], max_steps=40)
        alone.append(_episode(e, 100 + s, acts[s]))
        e.close()
    envs = [SensimEnv(env_scene, observe=["cam", "crash"], max_steps=40) for _ in range(4)]
    hashes = [hashlib.sha256() for _ in envs]
    for e, h, s in zip(envs, hashes, range(4)):
        obs, _ = e.reset(seed=100 + s)
        for k in sorted(obs):
            h.update(obs[k].tobytes())
    done = [False] * 4
    rewards = [[] for _ in envs]
    for t in range(40):  # interleaved: one step of each in turn
        for i, e in enumerate(envs):
            if done[i]:
                continue
            obs, r, term, trunc, _ = e.step(acts[i][t])
            for k in sorted(obs):
                hashes[i].update(obs[k].tobytes())
            rewards[i].append(r)
            done[i] = term or trunc
    for i in range(4):
        assert (hashes[i].hexdigest(), rewards[i]) == alone[i][:2]


def test_env_interface(env_scene):
    env = SensimEnv(env_scene, observe=["cam", "crash"], max_steps=5)
    assert set(env.observation_space.spaces) == {"state", "cam", "crash"}
    assert env.observation_space["cam"].shape == (32, 48, 4)
    assert env.action_space.shape == (3,)
    obs, info = env.reset()
    assert info["frame"] == 0 and info["seed"] == 3  # never seeded: the scene's seed
    assert env.observation_space.contains(obs)
    assert obs["state"][6] == pytest.approx(6.0)  # the scene's initial velocity
    for i in range(5):
        obs, r, term, trunc, info = env.step(env.action_space.sample())
        assert obs["cam"].flags.owndata or obs["cam"].base is not None
    assert trunc and not term and info["frame"] == 5
    env.reset(seed=11)
    assert env.world.get_seed() == 11
    env.reset()
    s2 = env.world.get_seed()
    env.reset(seed=11)
    env.reset()
    assert env.world.get_seed() == s2  # later seeds come from a generator seeded by reset(seed=)
    with pytest.raises(ValueError, match="no sensor 'nope'"):
        SensimEnv(env_scene, observe=["nope"])
    env.close()


def test_env_refuses_bad_arguments_before_they_act(env_scene, out):
    """What a typo or a wrong shape would otherwise do quietly: train on a state of zeros (a
    misspelt hero), drop an action's extra entries, read a bool as seed 1."""
    with pytest.raises(ValueError, match=r"hero 'heor' is no actor of the scene.*its vehicles now: hero"):
        SensimEnv(env_scene, hero="heor")
    with pytest.raises(ValueError, match=r"hero 'wall' is a static.prop.box, not a vehicle"):
        SensimEnv(env_scene, hero="wall")
    with pytest.raises(TypeError, match="overrides is a list"):
        SensimEnv(env_scene, overrides="settings.seed=4")
    with pytest.raises(TypeError, match="observe is a list"):
        SensimEnv(env_scene, observe="cam")
    for bad, kind in ((0, ValueError), (-5, ValueError), (2.5, TypeError), (True, TypeError)):
        with pytest.raises(kind, match="max_steps"):
            SensimEnv(env_scene, max_steps=bad)
    # a hero that spawns later is the scene's: zeros and waiting actions until it does
    late_scene = ENV_SCENE.replace("sensors:", "  - {name: late, blueprint: vehicle.sedan, transform: "
                                   "{location: [0, 8, 0]}, velocity: [4, 0, 0], spawn_at: 0.1}\nsensors:")
    late = SensimEnv(scene_file(out, "env_late.yaml", late_scene), hero="late", max_steps=200.0)
    obs, _ = late.reset()
    assert not obs["state"].any() and late.max_steps == 200
    for _ in range(3):
        obs = late.step(np.array([1.0, 0.0, 0.0]))[0]
    assert obs["state"][6] > 0  # spawned at 0.1 s with its scene velocity
    late.close()
    env = SensimEnv(env_scene, observe=["crash"], max_steps=np.int64(4))
    env.reset(seed=np.uint32(7))
    assert env.world.get_seed() == 7
    for bad, kind in ((True, TypeError), ("7", TypeError), (1.0, TypeError), (-1, ValueError), (2**64, ValueError)):
        with pytest.raises(kind, match="reset: .*seed"):
            env.reset(seed=bad)
    assert env.world.get_seed() == 7  # nothing was reset
    frame = env.world.frame
    for bad in (np.zeros(4), np.zeros(2), np.zeros((1, 3)), 0.5):
        with pytest.raises(ValueError, match=r"shape \(3,\)"):
            env.step(bad)
    assert env.world.frame == frame  # nothing stepped
    env.close()
    with pytest.raises(sensim.SensimError, match="no engine any more: it was closed"):
        env.step(np.zeros(3))


def test_env_info_and_reward_follow_the_engine(env_scene):
    """info's frame and seed are the engine's at every step (the seed read once an episode, the
    clock in place: py75), across resets seeded, reseeded from the generator and not seeded; the
    default reward is its formula (libm's cos and sin, numpy's scalar path on machines without
    AVX-512, within an ulp of it elsewhere)."""
    import math
    env = SensimEnv(env_scene, observe=["crash"], max_steps=40)
    for seed in (None, 5, None, 9):
        obs, info = env.reset(seed=seed)
        assert (info["frame"], info["seed"]) == (env.world.frame, env.world.get_seed()) == (0, info["seed"])
        for k, a in enumerate(_actions(12, seed=2)):
            prev = obs["state"]
            obs, r, term, trunc, info = env.step(a)
            assert (info["frame"], info["seed"], info["steps"]) == (k + 1, env.world.get_seed(), k + 1)
            assert env.world.frame == k + 1
            s = obs["state"]
            yaw = math.radians(s[4])
            want = (s[6] * math.cos(yaw) + s[7] * math.sin(yaw)) * env.dt - (10.0 if info["collisions"] else 0.0)
            assert r == want
            y = np.radians(s[4])
            assert r == pytest.approx(float((s[6] * np.cos(y) + s[7] * np.sin(y)) * env.dt) -
                                      (10.0 if info["collisions"] else 0.0), rel=1e-12, abs=1e-15)
            assert not np.array_equal(prev, s)  # the hero moves: the state is this step's
            if k == 6:  # the world reset behind the environment's back: info follows the engine
                env.world.reset(77)
                assert env.step(a)[4]["seed"] == 77 and env.world.get_seed() == 77
                break
            h = env.world.find_actor("hero")
            t, v = h.get_transform(), h.get_velocity()
            assert s.dtype == np.float64 and s.flags.owndata and list(s) == [
                t.location.x, t.location.y, t.location.z, t.rotation.pitch, t.rotation.yaw, t.rotation.roll, v.x, v.y, v.z]
    env.close()


def test_env_clips_actions_bit_for_bit_as_numpy(env_scene):
    """The action's clip is np.clip's to the bit (a plain min/max keeps -0.0, np.clip gives 0.0;
    a NaN stays NaN and reaches the engine's check), and out-of-range actions are clipped."""
    import math
    import struct

    from sensim.env import _clip
    bits = lambda x: struct.pack("<d", x)
    for x in (0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 2.0, -2.0, math.inf, -math.inf, math.nan, 5e-324, -5e-324,
              1.0000000000000002, -1.0000000000000002, 0.9999999999999999):
        for lo, hi in ((0, 1), (-1, 1)):
            assert bits(_clip(x, float(lo), float(hi))) == bits(float(np.clip(np.float64(x), lo, hi))), (x, lo, hi)
    env = SensimEnv(env_scene, observe=["crash"])
    env.reset()
    env.step(np.array([2.0, -3.0, -0.0]))
    c = env.world.find_actor("hero").get_control()
    assert (c.throttle, c.steer) == (1.0, -1.0) and bits(c.brake) == bits(0.0)
    env.close()


def test_step_puts_back_the_sigint_handler_it_found(env_scene):
    """A step swaps SIGINT's default handler for its own and puts the default back after (vec67
    does it through _signal, without signal.signal's enum wrapping); a handler the program set
    itself is left in place through the step, and Ctrl+C's stand-in reaches it, not the step's."""
    import signal

    from sensim import _interrupt
    env = SensimEnv(env_scene, observe=["crash"])
    env.reset()
    seen = []
    with _interrupt.sigint_guard():  # inside a step's guard: the step's handler is installed
        seen.append(signal.getsignal(signal.SIGINT))
    assert seen[0] is not signal.default_int_handler and callable(seen[0])
    env.step(np.array([0.5, 0.0, 0.0]))
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    got = []
    old = signal.signal(signal.SIGINT, lambda s, f: got.append(s))
    try:
        with _interrupt.sigint_guard():
            assert signal.getsignal(signal.SIGINT) is not signal.default_int_handler
            signal.raise_signal(signal.SIGINT)
        env.step(np.array([0.5, 0.0, 0.0]))
        assert got == [signal.SIGINT] and signal.getsignal(signal.SIGINT).__name__ == "<lambda>"
    finally:
        signal.signal(signal.SIGINT, old)
    with pytest.raises(KeyboardInterrupt):  # noted inside a guard, raised as it ends
        with _interrupt.sigint_guard():
            signal.raise_signal(signal.SIGINT)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    env.close()
