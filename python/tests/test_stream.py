"""sensim.read against the C reader (`sensim dump --json`), message for message."""
import base64
import glob
import json
import math
import os

import pytest

import sensim
from conftest import run


def same(a, b, where):
    """`a` from sensim.read, `b` from dump --json (bins as {"$bin_bytes": N, ..., "$bin": base64})."""
    if isinstance(b, dict) and "$bin_bytes" in b:
        assert a == base64.b64decode(b["$bin"]) and len(a) == b["$bin_bytes"], where
    elif isinstance(b, dict):
        assert isinstance(a, dict) and list(a) == list(b), where
        for k in b:
            same(a[k], b[k], f"{where}.{k}")
    elif isinstance(b, list):
        assert isinstance(a, list) and len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b)):
            same(x, y, f"{where}[{i}]")
    elif isinstance(a, float):
        # dump prints float32 values with 9 digits: equal as float32, doubles exactly
        assert math.isclose(a, b, rel_tol=1e-7, abs_tol=0), where
    else:
        assert a == b and type(a) is type(b), where


def streams(*dirs):
    return [p for d in dirs for p in sorted(glob.glob(os.path.join(d, "*.msgpack")))]


def test_every_stream_equals_the_c_dump(crash_dir, camera_dir, dvs_dir):
    paths = streams(crash_dir, camera_dir, dvs_dir)
    assert {os.path.basename(p) for p in paths} == {"crash.msgpack", "depth.msgpack", "rgb.msgpack", "inst.msgpack",
                                                     "dvs.msgpack", "dvs_sub.msgpack", "actors.msgpack"}
    for path in paths:
        lines = run("dump", "--json", path).stdout.splitlines()
        msgs = sensim.read_all(path)
        assert len(msgs) == len(lines) > 0, path
        for i, (m, line) in enumerate(zip(msgs, lines)):
            same(m, json.loads(line), f"{os.path.basename(path)}#{i}")


def test_header_keys(camera_dir):
    m = next(sensim.read(os.path.join(camera_dir, "depth.msgpack")))
    assert (m["frame"], m["sensor"], m["type"]) == (1, "depth", "sensor.camera.depth")
    assert m["timestamp"] == pytest.approx(0.05)
    assert m["transform"] == {"location": [0, 0, 1.5], "rotation": [0, 0, 0]}


def test_read_is_lazy(dvs_dir):
    it = sensim.read(os.path.join(dvs_dir, "dvs_sub.msgpack"))
    first = next(it)  # the rest is not read yet
    assert first["frame"] == 2
    it.close()


def test_cut_short_stream(dvs_dir, tmp_path):
    path = os.path.join(dvs_dir, "dvs_sub.msgpack")
    whole = sensim.read_all(path)
    data = open(path, "rb").read()
    cut = tmp_path / "cut.msgpack.part"
    cut.write_bytes(data[:len(data) - 100])
    with pytest.raises(sensim.StreamError, match="cut short"):
        sensim.read_all(str(cut))
    assert [m["frame"] for m in sensim.read(str(cut), partial=True)] == [m["frame"] for m in whole[:-1]]


def test_not_a_stream(tmp_path):
    bad = tmp_path / "bad.msgpack"
    bad.write_bytes(b"\x01\x02")  # two integers, not maps
    with pytest.raises(sensim.StreamError, match="a message is a map"):
        sensim.read_all(str(bad))
