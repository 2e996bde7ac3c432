"""The costs of CARLA compatibility (issue 32), printed as ratios with absolutes beside them:
1. owned sensor data (the message copied out of the engine's buffer) against the zero-copy opt-in,
   per tick, for a 1280x720 camera and a 1.3 M points/s lidar (20 Hz: 65 000 points a tick);
2. the asynchronous mode's tick rate (its own thread, as fast as it steps) against world.tick();
3. apply_batch_sync of 100 SpawnActor against 100 spawn_actor calls.
Usage (meson test --benchmark carla): bench_carla.py MAPS_DIR PLUGIN_DIR"""
import os
import sys
import time

import sensim
from sensim import command

maps, plugin_dir = sys.argv[1:3]
TOWN = os.path.join(maps, "town.xodr")


def sensors_world(zero_copy):
    client = sensim.Client(plugin_dir=plugin_dir, quiet=True)
    w = client.load_world(TOWN)
    lib = w.get_blueprint_library()
    cam = lib.find("sensor.camera.rgb")
    cam.set_attribute("image_size_x", "1280")
    cam.set_attribute("image_size_y", "720")
    lid = lib.find("sensor.lidar.ray_cast")
    lid.set_attribute("points_per_second", "1300000")
    lid.set_attribute("rotation_frequency", "20")
    lid.set_attribute("channels", "64")
    sink = [0]

    def on_data(d):  # what a listener does at least: touch the array
        sink[0] += len(d.raw_data)

    for bp, z in ((cam, 2.0), (lid, 2.5)):
        w.spawn_actor(bp, sensim.Transform(sensim.Location(0, 0, z))).listen(on_data, zero_copy=zero_copy)
    return client, w


def per_tick(zero_copy, frames=30):
    client, w = sensors_world(zero_copy)
    w.tick()
    t0 = time.perf_counter()
    for _ in range(frames):
        w.tick()
    dt = (time.perf_counter() - t0) / frames
    w.close()
    return dt


own, zc = [], []
for _ in range(3):  # interleaved: both see the same machine load
    own.append(per_tick(False))
    zc.append(per_tick(True))
print(f"owned data vs zero-copy, 1280x720 camera + 1.3 M pts/s lidar: owned {min(own) * 1e3:.2f} ms/tick, "
      f"zero-copy {min(zc) * 1e3:.2f} ms/tick, ratio {min(own) / min(zc):.3f}x")

# The copy alone, as the listener makes it (bytearray + memmove of the message), per tick of both
# sensors' message sizes, against that tick's zero-copy time.
import ctypes  # noqa: E402
sizes = (1280 * 720 * 4 + 400, 65000 * 16 + 400)
src = [ctypes.create_string_buffer(n) for n in sizes]
t0 = time.perf_counter()
for _ in range(50):
    for b, n in zip(src, sizes):
        own_b = bytearray(n)
        ctypes.memmove((ctypes.c_ubyte * n).from_buffer(own_b), b, n)
copy = (time.perf_counter() - t0) / 50
print(f"the copy alone ({sum(sizes) / 1e6:.1f} MB a tick): {copy * 1e3:.3f} ms/tick, "
      f"{copy / min(zc) * 100:.2f} % of a zero-copy tick")


def sync_rate(frames=200):
    client = sensim.Client(plugin_dir=plugin_dir, quiet=True)
    w = client.load_world(TOWN)
    t0 = time.perf_counter()
    for _ in range(frames):
        w.tick()
    r = frames / (time.perf_counter() - t0)
    w.close()
    return r


def async_rate(seconds=1.5):
    os.environ["SENSIM_ASYNC_SPEED"] = "0"  # as fast as it steps
    client = sensim.Client(plugin_dir=plugin_dir, quiet=True)
    w = client.load_world(TOWN)
    s = w.get_settings()
    s.synchronous_mode = False
    f0, t0 = w.frame, time.perf_counter()
    w.apply_settings(s)
    time.sleep(seconds)
    r = (w.frame - f0) / (time.perf_counter() - t0)
    w.close()
    return r


sr, ar = max(sync_rate() for _ in range(3)), max(async_rate() for _ in range(3))
print(f"asynchronous mode vs world.tick(), town.xodr: async {ar:.0f} ticks/s, sync {sr:.0f} ticks/s, "
      f"ratio {ar / sr:.3f}x")


def spawns(batch):
    client = sensim.Client(plugin_dir=plugin_dir, quiet=True)
    w = client.load_world(TOWN)
    bp = w.get_blueprint_library().find("vehicle.tesla.model3")
    pts = [sensim.Transform(sensim.Location(20 * (i % 10), 1000 + 10 * (i // 10), 0.5)) for i in range(100)]
    t0 = time.perf_counter()
    if batch:
        r = client.apply_batch_sync([command.SpawnActor(bp, p) for p in pts])
        assert not any(x.error for x in r)
    else:
        for p in pts:
            w.spawn_actor(bp, p)
    dt = time.perf_counter() - t0
    w.close()
    return dt


b, s = min(spawns(True) for _ in range(3)), min(spawns(False) for _ in range(3))
print(f"apply_batch_sync of 100 spawns vs 100 spawn_actor calls: batch {b * 1e3:.2f} ms, single {s * 1e3:.2f} ms, "
      f"ratio {b / s:.3f}x")
