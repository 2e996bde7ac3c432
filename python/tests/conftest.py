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
    p = run("batch", spec, "--out", d, "-j", "2", check=False)
    assert p.returncode == 1, p.stderr  # one run is made to fail
    return d
