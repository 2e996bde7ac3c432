#!/usr/bin/env python3
"""A data-collection loop: a DVS camera and a depth camera on a moving vehicle, every frame's
events and depth saved as .npy files — a CARLA script whose only change is the import line.

    python3 dvs_depth_collect.py --map maps/town.xodr --out out/collect --frames 20
"""
import argparse
import os
import queue

import numpy as np

import sensim as carla  # the only change from CARLA: `import carla`


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--map", default="maps/town.xodr")
    ap.add_argument("--out", default="_out")
    ap.add_argument("--frames", type=int, default=20)
    args = ap.parse_args()

    client = carla.Client("localhost", 2000)
    world = client.load_world(args.map)
    settings = world.get_settings()
    settings.synchronous_mode = True
    settings.fixed_delta_seconds = 0.05
    world.apply_settings(settings)

    lib = world.get_blueprint_library()
    spawn = world.get_map().get_spawn_points()[0]
    vehicle = world.spawn_actor(lib.find("vehicle.sedan"), spawn)
    mount = carla.Transform(carla.Location(x=1.5, z=2.4))

    dvs_bp = lib.find("sensor.camera.dvs")
    depth_bp = lib.find("sensor.camera.depth")
    for bp in (dvs_bp, depth_bp):
        bp.set_attribute("image_size_x", "160")
        bp.set_attribute("image_size_y", "120")
    dvs = world.spawn_actor(dvs_bp, mount, attach_to=vehicle)
    depth = world.spawn_actor(depth_bp, mount, attach_to=vehicle)

    # CARLA's synchronous-mode pattern: listeners fill queues, the loop drains them per frame.
    # The data are views valid during the callback only, so the callbacks copy.
    dvs_q, depth_q = queue.Queue(), queue.Queue()
    dvs.listen(lambda ev: dvs_q.put((ev.frame, ev.to_array())))
    depth.listen(lambda im: depth_q.put((im.frame, np.frombuffer(im.raw_data, dtype=np.uint8)
                                         .reshape(im.height, im.width, 4).copy())))

    os.makedirs(args.out, exist_ok=True)
    vehicle.apply_control(carla.VehicleControl(throttle=0.6))
    try:
        for _ in range(args.frames):
            frame = world.tick()
            while not dvs_q.empty():
                f, events = dvs_q.get()
                np.save(os.path.join(args.out, "dvs_%06d.npy" % f), events)
            while not depth_q.empty():
                f, bgra = depth_q.get()
                # CARLA's depth encoding: metres = 1000 * (R + 256 G + 65536 B) / (2^24 - 1)
                code = bgra[:, :, 2].astype(np.float64) + 256.0 * bgra[:, :, 1] + 65536.0 * bgra[:, :, 0]
                np.save(os.path.join(args.out, "depth_%06d.npy" % f), (1000.0 * code / 16777215.0).astype(np.float32))
        print("frame %d: %d files in %s" % (frame, len(os.listdir(args.out)), args.out))
    finally:
        dvs.destroy()
        depth.destroy()
        vehicle.destroy()


if __name__ == "__main__":
    main()
