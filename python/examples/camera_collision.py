#!/usr/bin/env python3
"""Spawn a vehicle, attach an RGB camera and a collision sensor, tick in synchronous mode, save
the images and log the collisions — a CARLA script whose only change is the import line.

    python3 camera_collision.py --map maps/town.xodr --out out/example --frames 60

A parked truck stands 15 m ahead of the hero's spawn point, so the run ends in a collision.
"""
import argparse
import os

import sensim as carla  # the only change from CARLA: `import carla`


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--host", default="localhost")
    ap.add_argument("--port", type=int, default=2000)
    ap.add_argument("--map", default="maps/town.xodr")
    ap.add_argument("--out", default="_out")
    ap.add_argument("--frames", type=int, default=60)
    args = ap.parse_args()

    client = carla.Client(args.host, args.port)
    client.set_timeout(10.0)
    world = client.load_world(args.map)
    original = world.get_settings()
    settings = world.get_settings()
    settings.synchronous_mode = True
    settings.fixed_delta_seconds = 0.05
    world.apply_settings(settings)

    actors = []
    try:
        lib = world.get_blueprint_library()
        spawn = world.get_map().get_spawn_points()[0]
        hero_bp = lib.filter("vehicle.*")[0]
        hero_bp.set_attribute("role_name", "hero")
        hero = world.spawn_actor(hero_bp, spawn)
        actors.append(hero)

        ahead = carla.Transform(spawn.location + spawn.get_forward_vector() * 15.0, spawn.rotation)
        truck = world.try_spawn_actor(lib.find("vehicle.truck"), ahead)
        if truck is not None:
            actors.append(truck)

        cam_bp = lib.find("sensor.camera.rgb")
        cam_bp.set_attribute("image_size_x", "320")
        cam_bp.set_attribute("image_size_y", "180")
        cam_bp.set_attribute("fov", "90")
        camera = world.spawn_actor(cam_bp, carla.Transform(carla.Location(x=1.5, z=2.4)), attach_to=hero)
        actors.append(camera)
        camera.listen(lambda image: image.save_to_disk(os.path.join(args.out, "rgb", "%06d.png" % image.frame)))

        collision = world.spawn_actor(lib.find("sensor.other.collision"), carla.Transform(), attach_to=hero)
        actors.append(collision)
        os.makedirs(args.out, exist_ok=True)
        log = open(os.path.join(args.out, "collisions.txt"), "w")

        def on_collision(event):
            impulse = event.normal_impulse
            log.write("frame %d: %s hit %s, impulse %.1f N s\n"
                      % (event.frame, event.actor.type_id, event.other_actor.type_id
                         if event.other_actor else "?", impulse.length()))

        collision.listen(on_collision)

        hero.apply_control(carla.VehicleControl(throttle=0.8, steer=0.0))
        for _ in range(args.frames):
            frame = world.tick()
        v = hero.get_velocity()
        print("frame %d: hero at %s, %.1f m/s" % (frame, hero.get_location(), v.length()))
        camera.stop()
        collision.stop()
        log.close()
    finally:
        for a in reversed(actors):
            a.destroy()
        world.apply_settings(original)


if __name__ == "__main__":
    main()
