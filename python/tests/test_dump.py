"""`sensim dump`: one spelling of a bin in every mode, and --decode's records against the bytes
(numpy views of the same messages) and against the geometry (the lidar's wall at x = 10 m)."""
import json
import os

import numpy as np

import sensim
from conftest import SCENES, run
from test_lidar import _run as lidar_dir


def dump(path, *flags):
    return [json.loads(line) for line in run("dump", path, *flags).stdout.splitlines()]


def bins(obj):
    """Every object of a dumped message that stands for a bin (holds any key starting "$bin")."""
    if isinstance(obj, dict):
        if any(k.startswith("$bin") or k == "bin" for k in obj):
            yield obj
        else:
            for v in obj.values():
                yield from bins(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from bins(v)


def check_spelling(path):
    """Plain, --json, --decode and both: a bin is {"$bin_bytes": N, ...} first, whatever the mode;
    "$bin" (base64) only with --json, "records" only with --decode."""
    raw = sensim.read_all(path)
    for flags in [(), ("--json",), ("--decode",), ("--json", "--decode")]:
        msgs = dump(path, *flags)
        if flags == ("--decode",):
            decoded = msgs  # what is returned: the dump is not run again for it
        assert len(msgs) == len(raw) > 0, (path, flags)
        found = [b for m in msgs for b in bins(m)]
        assert found, (path, flags)
        for b in found:
            assert list(b)[0] == "$bin_bytes", (path, flags, list(b))
            assert ("$bin" in b) == ("--json" in flags), (path, flags, list(b))
            assert set(b) <= {"$bin_bytes", "$records", "count", "trailing_bytes", "records", "$bin"}, b
            if "$records" in b and "records" in b:
                assert len(b["records"]) == b["count"]
    return decoded


def fields(recs, name):
    return np.array([r[name] for r in recs])


def test_lidar_points_decoded(out):
    d = lidar_dir(out)
    for m, j in zip(sensim.read_all(os.path.join(d, "lidar.msgpack")), check_spelling(os.path.join(d, "lidar.msgpack"))):
        b = j["raw_data"]
        p = sensim.lidar_points(m)
        assert b["$records"] == "sn_point_xyzi" and b["count"] == len(p) > 100 and b["$bin_bytes"] == 16 * len(p)
        for i, k in enumerate("x y z intensity".split()):
            assert (fields(b["records"], k).astype(np.float32) == p[:, i]).all(), k
        assert np.allclose(fields(b["records"], "x"), 10, atol=1e-4)  # the wall's face
    for m, j in zip(sensim.read_all(os.path.join(d, "sem.msgpack")), check_spelling(os.path.join(d, "sem.msgpack"))):
        b = j["raw_data"]
        s = sensim.semantic_lidar_points(m)
        assert b["$records"] == "sn_semantic_point" and b["count"] == len(s)
        assert set(fields(b["records"], "object_idx")) == {1} and set(fields(b["records"], "object_tag")) == {4}
        assert (fields(b["records"], "cos_inc_angle").astype(np.float32) == s["cos_inc_angle"]).all()


def test_radar_detections_decoded(out):
    d = os.path.join(out, "dump_sensors")
    run("run", os.path.join(SCENES, "sensors.yaml"), "--out", d, "--frames", "3", "--quiet")
    path = os.path.join(d, "radar.msgpack")
    n = 0
    for m, j in zip(sensim.read_all(path), check_spelling(path)):
        b = j["raw_data"]
        det = sensim.radar_detections(m)
        assert b["$records"] == "sn_radar_detection" and b["count"] == len(det)
        for k in ("velocity", "azimuth", "altitude", "depth"):
            assert (fields(b["records"], k).astype(np.float32) == det[k]).all(), k
        n += len(det)
    assert n > 0


def test_dvs_events_and_labels_decoded(dvs_dir):
    path = os.path.join(dvs_dir, "dvs_sub.msgpack")  # with event_labels
    n = 0
    for m, j in zip(sensim.read_all(path), check_spelling(path)):
        ev, lab = sensim.events(m), sensim.labels(m)
        b = j["events"]
        assert b["$records"] == "sn_dvs_event" and b["count"] == len(ev) and b["$bin_bytes"] == 13 * len(ev)
        for k in ("x", "y", "t", "pol"):
            assert (fields(b["records"], k) == ev[k]).all(), k
        assert j["labels"]["$records"] == "sn_dvs_label" and j["labels"]["count"] == len(ev)
        assert (fields(j["labels"]["records"], "id") == lab["id"]).all()
        assert (fields(j["labels"]["records"], "tag") == lab["tag"]).all()
        n += len(ev)
    assert n > 0


def test_pixels_are_named_not_listed(camera_dir):
    for name in ("rgb", "depth", "inst"):
        path = os.path.join(camera_dir, name + ".msgpack")
        for j in check_spelling(path):
            b = j["raw_data"]
            assert b["$records"] == "bgra8" and b["count"] == j["width"] * j["height"] and "records" not in b
            if name == "depth":
                assert j["depth"]["$records"] == "f32" and j["depth"]["count"] == j["width"] * j["height"]


def test_unknown_bins_and_trailing_bytes(out):
    """A bin of no known layout, nested, is its size only; a radar bin that is not a whole number
    of records says how many bytes are left over, and decodes the whole ones."""
    import msgpack
    path = os.path.join(out, "odd_bins.msgpack")
    rec = np.array([(-1.5, 0.25, 0.0, 12.0)], dtype="<f4").tobytes()
    with open(path, "wb") as f:
        f.write(msgpack.packb({"type": "sensor.other.radar", "raw_data": rec + b"\x01\x02\x03\x04",
                               "extra": {"blob": b"abc"}}, use_bin_type=True))
    (j,) = check_spelling(path)
    assert j["raw_data"] == {"$bin_bytes": 20, "$records": "sn_radar_detection", "count": 1, "trailing_bytes": 4,
                             "records": [{"velocity": -1.5, "azimuth": 0.25, "altitude": 0, "depth": 12}]}
    assert j["extra"] == {"blob": {"$bin_bytes": 3}}
