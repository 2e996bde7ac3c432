"""IMU, GNSS, obstacle and radar streams of scenes/sensors.yaml read back (docs/sensors/radar.md)."""
import math
import os
import struct

import numpy as np

import sensim
from conftest import SCENES, run


def test_radar_records(sensors_dir):
    msgs = sensim.read_all(os.path.join(sensors_dir, "radar.msgpack"))
    assert len(msgs) == 40
    closing = 0
    for m in msgs:
        d = sensim.radar_detections(m)
        assert d.dtype == sensim.RADAR_DTYPE and d.dtype.itemsize == 16 and not d.flags.owndata
        assert len(d) <= 300  # (int)(6000 * 0.05) rays
        for i in (0, len(d) - 1) if len(d) else ():
            assert tuple(d[i]) == struct.unpack_from("<4f", m["raw_data"], 16 * i)
        assert (np.abs(d["azimuth"]) <= math.radians(10) + 1e-6).all()
        assert (np.abs(d["altitude"]) <= math.radians(5) + 1e-6).all()
        p = sensim.radar_points(m)
        assert p.shape == (len(d), 3) and np.allclose(np.linalg.norm(p, axis=1), d["depth"], rtol=1e-6)
        closing += int((d["velocity"] < -10).sum())  # the oncoming car: 18 m/s closing speed
    assert closing > 100


def test_imu_gnss_obstacle(sensors_dir):
    imu = sensim.read_all(os.path.join(sensors_dir, "imu.msgpack"))
    assert len(imu) == 40 and all(len(m["accelerometer"]) == 3 for m in imu)
    assert abs(np.mean([m["accelerometer"][2] for m in imu[5:]]) - 9.81) < 0.5
    assert abs(imu[-1]["compass"] - math.pi / 2) < 1e-6  # heading east (+x)
    gnss = sensim.read_all(os.path.join(sensors_dir, "gnss.msgpack"))
    assert len(gnss) == 20  # sensor_tick 0.1 at 0.05 s frames
    assert gnss[-1]["longitude"] > gnss[0]["longitude"] > 11.5  # driving east
    obstacle = sensim.read_all(os.path.join(sensors_dir, "obstacle.msgpack"))
    assert obstacle and all(m["other_actor"]["type_id"] == "vehicle.sedan" for m in obstacle)
    assert obstacle[0]["actor"]["type_id"] == "sensor.other.obstacle"
    assert [m["distance"] for m in obstacle] == sorted((m["distance"] for m in obstacle), reverse=True)


def test_actors_stream(out):
    """`--mcap` adds the actors stream: every actor each frame, poses the engine's own (the IMU,
    mounted 1 m above the hero's origin, is exactly there in every message)."""
    d = os.path.join(out, "sensors_mcap")
    run("run", os.path.join(SCENES, "sensors.yaml"), "--out", d, "--mcap", os.path.join(out, "sensors.mcap"), "--overwrite",
        "--quiet")  # --overwrite: the test folder is kept between runs of the suite
    assert os.path.getsize(os.path.join(out, "sensors.mcap")) > 0
    msgs = sensim.read_all(os.path.join(d, "actors.msgpack"))
    imu = sensim.read_all(os.path.join(d, "imu.msgpack"))
    assert len(msgs) == len(imu) == 40
    for m, s in zip(msgs, imu):
        a = sensim.actors(m)
        assert a.dtype == sensim.ACTOR_DTYPE and a.dtype.itemsize == 112 and not a.flags.owndata
        assert list(a["id"]) == sorted(a["id"]) and len(m["type_ids"]) == len(m["names"]) == len(a)
        hero = a[m["names"].index("hero")]
        assert m["type_ids"][m["names"].index("hero")] == "vehicle.sedan" and hero["kind"] == 1
        imu_rec = a[m["names"].index("imu")]
        assert imu_rec["parent_id"] == hero["id"] and imu_rec["kind"] == 3
        assert tuple(imu_rec["location"]) == tuple(s["transform"]["location"])
        p, y, r = np.radians(hero["rotation"])
        up = np.array([-(np.cos(r) * np.sin(p) * np.cos(y) + np.sin(r) * np.sin(y)),
                       np.cos(y) * np.sin(r) - np.cos(r) * np.sin(p) * np.sin(y), np.cos(r) * np.cos(p)])
        assert np.allclose(hero["location"] + up, s["transform"]["location"], atol=1e-9)
