"""Lidar points as numpy views (sensim/records.h): a wall whose face is x = 10 m."""
import os

import numpy as np

import sensim
from conftest import run

SCENE = """
settings: {frames: 2}
actors:
  - {name: wall, blueprint: static.prop.box, transform: {location: [10.5, 0, 0]},
     attributes: {extent: "0.5,50,50", semantic_tag: wall}}
sensors:
  - {name: lidar, blueprint: sensor.lidar.ray_cast,
     attributes: {channels: 8, range: 100, rotation_frequency: 20, points_per_second: 16000,
                  dropoff_general_rate: 0, dropoff_intensity_limit: 0}}
  - {name: sem, blueprint: sensor.lidar.ray_cast_semantic,
     attributes: {channels: 8, range: 100, rotation_frequency: 20, points_per_second: 16000,
                  motion_distortion: true}}
"""


def _run(out):
    d = os.path.join(out, "lidar")
    os.makedirs(d, exist_ok=True)
    scene = os.path.join(d, "lidar.yaml")
    with open(scene, "w") as f:
        f.write(SCENE)
    run("run", scene, "--out", d)
    return d


def test_points_view(out):
    d = _run(out)
    for m in sensim.read_all(os.path.join(d, "lidar.msgpack")):
        p = sensim.lidar_points(m)
        assert p.shape[1] == 4 and p.dtype == np.float32 and not p.flags.owndata
        assert len(p) == sum(m["point_count"]) > 100
        assert np.allclose(p[:, 0], 10, atol=1e-4)  # every point on the face
        r = np.linalg.norm(p[:, :3], axis=1)
        assert np.allclose(p[:, 3], np.exp(-0.004 * r), atol=1e-6)
        ch = sensim.point_channels(m)
        assert len(ch) == len(p) and (np.diff(ch) >= 0).all()


def test_semantic_view(out):
    d = _run(out)
    for m in sensim.read_all(os.path.join(d, "sem.msgpack")):
        s = sensim.semantic_lidar_points(m)
        assert s.dtype.itemsize == 24 and len(s) == sum(m["point_count"]) > 100
        assert (s["object_idx"] == 1).all() and (s["object_tag"] == 4).all()  # the wall, Wall
        r = np.sqrt(s["x"].astype(float) ** 2 + s["y"] ** 2 + s["z"] ** 2)
        assert np.allclose(s["cos_inc_angle"], s["x"] / r, atol=1e-5)
        t = sensim.point_times(m)
        assert len(t) == len(s) and t.max() <= m["frame"] * 50_000_000 < t.min() + 50_000_000
