"""The data classes of issue 20's sensors through listen(): the objects CARLA scripts get
(IMUMeasurement, GnssMeasurement, RadarMeasurement, ObstacleDetectionEvent, LidarMeasurement,
OpticalFlowImage), each checked against the same messages of the stream `sensim run` writes."""
import os

import numpy as np

import sensim
from conftest import SCENES


def test_sensors_scene_data_classes(client, sensors_dir):
    world = client.load_scene(os.path.join(SCENES, "sensors.yaml"))
    got = {}
    for name in ("imu", "gnss", "obstacle", "radar"):
        got[name] = []
        world.find_actor(name).listen(lambda d, n=name: got[n].append(
            (type(d).__name__, d.frame, d.data if not isinstance(d, sensim.RadarMeasurement) else bytes(d.data["raw_data"]),
             d)))
    for _ in range(40):
        world.tick()
    # the same scene written by `sensim run` (conftest's sensors_dir, shared with test_sensors.py):
    # listeners see the stream's messages
    d = sensors_dir
    for name, cls in (("imu", "IMUMeasurement"), ("gnss", "GnssMeasurement"), ("obstacle", "ObstacleDetectionEvent"),
                      ("radar", "RadarMeasurement")):
        stream = list(sensim.read(os.path.join(d, name + ".msgpack")))
        assert got[name], name
        assert all(c == cls for c, _, _, _ in got[name]), name
        assert [f for _, f, _, _ in got[name]] == [m["frame"] for m in stream], name
    imu = got["imu"][0][3]
    assert abs(imu.accelerometer.z - 9.81) < 0.5 and isinstance(imu.compass, float)
    gnss = got["gnss"][-1][3]
    s = list(sensim.read(os.path.join(d, "gnss.msgpack")))[-1]
    assert (gnss.latitude, gnss.longitude, gnss.altitude) == (s["latitude"], s["longitude"], s["altitude"])
    ob = got["obstacle"][0][3]
    assert ob.distance > 0 and ob.data["distance"] == ob.distance
    radar_stream = [bytes(m["raw_data"]) for m in sensim.read(os.path.join(d, "radar.msgpack"))]
    assert [b for _, _, b, _ in got["radar"]] == radar_stream


def test_lidar_and_flow_data_classes(client):
    world = client.load_world()
    lib = world.get_blueprint_library()
    box = lib.find("static.prop.box")
    box.set_attribute("extent", "0.5,5,2")
    world.spawn_actor(box, sensim.Transform(sensim.Location(10, 0, 2)))
    lidar_bp = lib.find("sensor.lidar.ray_cast")
    lidar_bp.set_attribute("points_per_second", "20000")
    lidar = world.spawn_actor(lidar_bp, sensim.Transform(sensim.Location(0, 0, 2)))
    flow_bp = lib.find("sensor.camera.optical_flow")
    flow_bp.set_attribute("image_size_x", "64")
    flow_bp.set_attribute("image_size_y", "48")
    flow = world.spawn_actor(flow_bp, sensim.Transform(sensim.Location(0, 0, 2)))
    seen = {}

    def on_lidar(m):
        assert isinstance(m, sensim.LidarMeasurement)
        pts = m.raw_data
        assert pts.shape[1] == 4 and pts.dtype == np.float32
        assert sum(m.get_point_count(c) for c in range(m.channels)) == len(m)
        # above the ground (2 m below the sensor), the points lie on the box's face 9.5 m ahead
        face = pts[(np.abs(pts[:, 1]) < 4) & (pts[:, 2] > -1.5)]
        seen["lidar"] = (len(m), float(np.median(face[:, 0])) if len(face) else None)

    def on_flow(m):
        assert isinstance(m, sensim.OpticalFlowImage)
        assert m.raw_data.shape == (48, 64, 2) and m.raw_data.dtype == np.float32
        seen["flow"] = float(np.abs(m.raw_data).max())

    lidar.listen(on_lidar)
    flow.listen(on_flow)
    for _ in range(3):
        world.tick()
    n, x = seen["lidar"]
    assert n > 0 and abs(x - 9.5) < 0.05
    assert seen["flow"] == 0.0  # a still camera over a still world
