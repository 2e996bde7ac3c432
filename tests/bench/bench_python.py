"""Python's costs, printed as figures and ratios (targets from issue 21):
1. the overhead per tick of the Python loop against the same loop in C (bench_python_loop.c)
   on scenes/intersection.yaml with listeners on its three cameras (target <= 1.10x);
2. the RL environment's reset (sn_engine_reset) on the demo scene (target <= 10 ms), and a
   reload from the file for comparison; the same for the town with its traffic (CPU time);
3. steps/s of 8 environments in one process, against one.
Usage (meson test --benchmark python): bench_python.py LOOP_EXE SCENES_DIR PLUGIN_DIR"""
import os
import subprocess
import sys
import time

import numpy as np

import sensim
from sensim.env import SensimEnv

loop_exe, scenes, plugin_dir = sys.argv[1:4]
scene = os.path.join(scenes, "intersection.yaml")
FRAMES = 200


def c_loop():
    out = subprocess.run([loop_exe, scene, str(FRAMES), plugin_dir], capture_output=True, text=True, check=True)
    return float(out.stdout.split()[0])


def py_loop():
    client = sensim.Client(plugin_dir=plugin_dir, quiet=True)
    world = client.load_scene(scene)
    sink = [0]

    def on_image(img):  # what a user's listener does at least: the image's pixels as numpy
        sink[0] += int(img.raw_data[0]) + img.width

    for name in ("hero_rgb", "hero_depth", "hero_semantic"):
        world.find_actor(name).listen(on_image)
    t0 = time.perf_counter()
    for _ in range(FRAMES):
        world.tick()
    dt = (time.perf_counter() - t0) / FRAMES
    world.close()
    return dt


# interleaved, best of 5 each: both see the same machine load
c_best, py_best = min(c_loop() for _ in range(5)), min(py_loop() for _ in range(5))
print(f"tick, intersection.yaml with 3 camera listeners: C {c_best * 1e3:.3f} ms, Python {py_best * 1e3:.3f} ms, "
      f"ratio {py_best / c_best:.3f}x (target <= 1.10x)")

env = SensimEnv(scene, observe=["hero_collision"], plugin_dir=plugin_dir)
env.reset()
for _ in range(20):
    env.step(None)
times = []
for k in range(20):
    t0 = time.perf_counter()
    env.world.reset()
    times.append(time.perf_counter() - t0)
    for _ in range(5):
        env.step(None)
reset_ms = 1e3 * float(np.median(times))
t0 = time.perf_counter()
for _ in range(5):
    sensim.Client(plugin_dir=plugin_dir, quiet=True).load_scene(scene).close()
load_ms = 1e3 * (time.perf_counter() - t0) / 5
print(f"reset, intersection.yaml (the demo scene): {reset_ms:.3f} ms median (target <= 10 ms); "
      f"a new engine loading the file: {load_ms:.3f} ms, ratio {load_ms / reset_ms:.1f}x")
env.close()

# the demo's town (40 cars and 20 walkers of traffic: their routes are planned again at each
# reset; the walkers' navigation graph is the map's and kept across it), CPU time of each reset
town = os.path.join(scenes, "town.yaml")
world = sensim.Client(plugin_dir=plugin_dir, quiet=True, threads=1).load_scene(town)
cpu = []
for k in range(10):
    t0 = time.process_time()
    world.reset(k + 1)
    cpu.append(time.process_time() - t0)
world.close()
t0 = time.process_time()
for _ in range(3):
    sensim.Client(plugin_dir=plugin_dir, quiet=True, threads=1).load_scene(town).close()
town_load = 1e3 * (time.process_time() - t0) / 3
town_reset = 1e3 * float(np.median(cpu))
print(f"reset, town.yaml (40 cars, 20 walkers): {town_reset:.2f} ms of CPU median; a new engine loading the file: "
      f"{town_load:.2f} ms, ratio {town_load / town_reset:.1f}x")


def steps_per_s(n, steps=100):
    envs = [SensimEnv(scene, observe=["hero_collision"], plugin_dir=plugin_dir, threads=1) for _ in range(n)]
    for e in envs:
        e.reset(seed=1)
    t0 = time.perf_counter()
    for _ in range(steps):
        for e in envs:
            e.step(np.array([0.3, 0.0, 0.0]))
    rate = n * steps / (time.perf_counter() - t0)
    for e in envs:
        e.close()
    return rate


one, eight = steps_per_s(1), steps_per_s(8)
print(f"env steps/s, intersection.yaml: 1 env {one:.0f}, 8 envs in one process {eight:.0f} in all "
      f"({eight / 8:.0f} each), ratio {eight / one:.2f}x of one env's rate")
