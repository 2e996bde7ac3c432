"""Streams for the reader's tests, made by running real scenes with the sensim program.

Environment (set by meson test): SENSIM the program, SENSIM_SCENES the scenes folder,
SENSIM_TEST_OUT a scratch folder, SENSIM_PLUGIN_DIR the built plugins."""
import os
import subprocess

import pytest

SENSIM = os.environ.get("SENSIM", "sensim")
SCENES = os.environ.get("SENSIM_SCENES", os.path.join(os.path.dirname(__file__), "..", "..", "scenes"))


def run(*args, check=True):
    """Runs the sensim program; returns the completed process."""
    cmd = [SENSIM, *args]
    plugin_dir = os.environ.get("SENSIM_PLUGIN_DIR")
    if plugin_dir and args[0] == "run":
        cmd += ["--plugin-dir", plugin_dir]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if check and p.returncode != 0:
        raise AssertionError(f"{' '.join(cmd)} exited {p.returncode}: {p.stderr}")
    return p


@pytest.fixture(scope="session")
def out(tmp_path_factory):
    base = os.environ.get("SENSIM_TEST_OUT")
    if base:
        os.makedirs(base, exist_ok=True)
        return base
    return str(tmp_path_factory.mktemp("sensim"))


# A wall whose face is 11.5 m ahead fills the view of every camera (tests/integration/test_camera.c).
CAMERA_SCENE = """
settings: {frames: 2}
actors:
  - {name: wall, blueprint: static.prop.box, transform: {location: [12, 0, 1.5]},
     attributes: {extent: "0.5,50,50", semantic_tag: wall, color: "40,120,200"}}
sensors:
  - {name: depth, blueprint: sensor.camera.depth, transform: {location: [0, 0, 1.5]},
     attributes: {image_size_x: 320, image_size_y: 240, depth_float: true}}
  - {name: rgb, blueprint: sensor.camera.rgb, transform: {location: [0, 0, 1.5]},
     attributes: {image_size_x: 64, image_size_y: 48}}
  - {name: inst, blueprint: sensor.camera.instance_segmentation, transform: {location: [0, 0, 1.5]},
     attributes: {image_size_x: 64, image_size_y: 48}}
"""


@pytest.fixture(scope="session")
def camera_dir(out):
    scene = os.path.join(out, "camera.yaml")
    with open(scene, "w") as f:
        f.write(CAMERA_SCENE)
    d = os.path.join(out, "camera")
    run("run", scene, "--out", d, "--quiet")
    return d


@pytest.fixture(scope="session")
def crash_dir(out):
    d = os.path.join(out, "crash")
    run("run", os.path.join(SCENES, "crash.yaml"), "--out", d, "--quiet")
    return d


@pytest.fixture(scope="session")
def dvs_dir(out):
    d = os.path.join(out, "dvs")
    run("run", os.path.join(SCENES, "dvs.yaml"), "--out", d, "--frames", "5", "--quiet")
    return d


@pytest.fixture(scope="session")
def sensors_dir(out):
    """scenes/sensors.yaml run once, for test_sensors.py and test_sensor_data.py."""
    d = os.path.join(out, "sensors")
    run("run", os.path.join(SCENES, "sensors.yaml"), "--out", d, "--quiet")
    return d


@pytest.fixture(scope="session")
def batch_dir(out):
    spec = os.path.join(out, "spec.yaml")
    with open(spec, "w") as f:
        f.write(f"""runs:
  - id: speed
    scene: {os.path.join(os.path.abspath(SCENES), "crash.yaml")}
    vary: {{actors.hero.velocity: [[8, 0, 0], [12, 0, 0]]}}
  - id: broken
    scene: {os.path.join(os.path.abspath(SCENES), "crash.yaml")}
    set: {{actors.hero.control.throttle: 7}}
""")
    d = os.path.join(out, "batch")
    p = run("batch", spec, "--out", d, "-j", "2", "--overwrite", check=False)  # a scratch folder kept across runs
    assert p.returncode == 1, p.stderr  # one run is made to fail
    return d


# ---- the closed-loop API (libsensim through ctypes): SENSIM_LIBRARY, SENSIM_PLUGIN_DIR ----

def scene_file(out, name, text):
    """Writes a scene into the scratch folder; returns its path."""
    path = os.path.join(out, name)
    with open(path, "w") as f:
        f.write(text)
    return path


@pytest.fixture
def client():
    import sensim
    c = sensim.Client(quiet=True, threads=2)
    yield c
    if c._world is not None:
        c._world.close()


def read_png(path):
    """The pixels of an 8-bit RGB PNG (any filter), H x W x 3 — to compare images written by the
    engine (stb + libdeflate) and by Python (zlib) by content, not by bytes."""
    import struct
    import zlib

    import numpy as np
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", path
    i, idat, w, h = 8, b"", None, None
    while i < len(data):
        n, tag = struct.unpack(">I4s", data[i:i + 8])
        body = data[i + 8:i + 8 + n]
        if tag == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
            assert (depth, ctype) == (8, 2), "not 8-bit RGB"
        elif tag == b"IDAT":
            idat += body
        i += 12 + n
    raw = np.frombuffer(zlib.decompress(idat), np.uint8).reshape(h, 1 + 3 * w)
    out = np.zeros((h, 3 * w), np.int32)
    prev = np.zeros(3 * w, np.int32)
    for y in range(h):
        f, line = raw[y, 0], raw[y, 1:].astype(np.int32)
        # None, Sub and Up whole rows at once; Average and Paeth pixel by pixel, on Python ints
        # (numpy element access made a 320 x 180 picture take a second under the sanitizer)
        if f == 0:
            cur = line
        elif f == 1:
            cur = np.cumsum(line.reshape(w, 3), axis=0).reshape(-1) & 255
        elif f == 2:
            cur = (line + prev) & 255
        else:
            ln, pv, cur = line.tolist(), prev.tolist(), [0] * (3 * w)
            for x in range(3 * w):
                a = cur[x - 3] if x >= 3 else 0
                b = pv[x]
                c = pv[x - 3] if x >= 3 else 0
                if f == 3:
                    p = (a + b) // 2
                else:
                    pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                    p = a if pa <= pb and pa <= pc else b if pb <= pc else c
                cur[x] = (ln[x] + p) & 255
            cur = np.array(cur, np.int32)
        out[y] = cur
        prev = cur
    return out.reshape(h, w, 3).astype(np.uint8)
