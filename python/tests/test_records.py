"""A sensor of one's own that declares its record layouts (SDK 1.6, sensim/records.h): listen()
hands its bins as numpy structured arrays (data.records), the blueprint carries the dtypes, and
the stream's dump decodes them, all with no code of the user's (tests/sdk16/records_probe.c)."""
import json
import os
import subprocess

import numpy as np
import pytest

import sensim

PROBE_DIR = os.environ.get("SENSIM_RECORDS_PROBE_DIR")
pytestmark = pytest.mark.skipif(not PROBE_DIR, reason="SENSIM_RECORDS_PROBE_DIR not set (meson test sets it)")


def scene(tmp_path):
    p = tmp_path / "records.yaml"
    p.write_text("settings: {frames: 2}\nsensors:\n  - {name: echo, blueprint: sensor.test.records}\n")
    return str(p)


def test_listen_decodes_declared_records(tmp_path):
    c = sensim.Client(quiet=True, plugin_dir=PROBE_DIR)
    world = c.load_scene(scene(tmp_path))
    got = []
    world.find_actor("echo").listen(lambda d: got.append({k: np.array(v) for k, v in d.records.items()}))
    world.tick()
    world.tick()
    world.close()
    assert len(got) == 2
    e = got[1]["echoes"]
    assert e.dtype.names == ("range", "bearing", "actor", "level", "flags", "trend", "beam", "offset", "stamp", "delta")
    assert e.dtype.itemsize == 48 and len(e) == 3
    assert list(e["range"]) == [20.0, 21.0, 22.0]
    assert list(e["bearing"]) == [0.0, 0.25, 0.5]
    assert list(e["actor"]) == [100, 101, 102] and list(e["level"]) == [0, -1, -2]
    assert list(e["trend"]) == [-1, -1, -1] and list(e["beam"]) == [0, 7, 14] and list(e["offset"]) == [0, -1000, -2000]
    assert list(e["stamp"]) == [20000000000] * 3 and list(e["delta"]) == [-2] * 3
    p = got[1]["points"]
    assert list(p["x"]) == [2.0, 2.0] and list(p["y"]) == [0.0, 1.0] and list(p["z"]) == [0.0, -1.0]


def test_blueprint_carries_dtypes(tmp_path):
    c = sensim.Client(quiet=True, plugin_dir=PROBE_DIR)
    world = c.load_scene(scene(tmp_path))
    dt = world.get_blueprint_library().find("sensor.test.records").record_dtypes
    world.close()
    assert set(dt) == {"echoes", "points"}
    assert dt["echoes"].fields["offset"][1] == 24 and dt["echoes"].metadata["units"]["offset"] == "mm"
    assert dt["points"].metadata["record"] == "test_point"


def test_dump_decode(tmp_path):
    out = tmp_path / "out"
    subprocess.run([os.environ["SENSIM"], "run", scene(tmp_path), "--plugin-dir", PROBE_DIR, "--out", str(out),
                    "--quiet"], check=True)
    lines = subprocess.run([os.environ["SENSIM"], "dump", str(out / "echo.msgpack"), "--decode", "--plugin-dir",
                            PROBE_DIR], check=True, capture_output=True, text=True).stdout.splitlines()
    m = json.loads(lines[0])
    assert m["echoes"]["$records"] == "test_echo" and m["echoes"]["count"] == 3
    assert m["echoes"]["records"][2] == {"range": 12, "bearing": 0.5, "actor": 102, "level": -2, "flags": 2,
                                         "trend": -1, "beam": 14, "offset": -2000, "stamp": 10000000000, "delta": -1}
    # without the plugin on the search path the bin stays bytes
    plain = json.loads(subprocess.run([os.environ["SENSIM"], "dump", str(out / "echo.msgpack"), "--decode"],
                                      check=True, capture_output=True, text=True,
                                      env=dict(os.environ, SENSIM_PLUGIN_PATH="")).stdout.splitlines()[0])
    assert plain["echoes"] == {"$bin_bytes": 144}
