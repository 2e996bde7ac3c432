"""The shipped CARLA-style examples run, and write what they say; pip install works offline."""
import glob
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

import sensim

from conftest import read_png

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = os.path.join(HERE, "..", "examples")
MAPS = os.environ.get("SENSIM_MAPS", os.path.join(HERE, "..", "..", "maps"))
PKG = os.path.dirname(os.path.dirname(os.path.abspath(sensim.__file__)))


def _run(script, *args, env=None, python=sys.executable):
    e = dict(os.environ, PYTHONPATH=PKG, **(env or {}))
    p = subprocess.run([python, os.path.join(EXAMPLES, script), *args], capture_output=True, text=True, env=e)
    assert p.returncode == 0, p.stderr
    return p.stdout


def test_examples_differ_from_carla_only_in_the_import():
    for path in glob.glob(os.path.join(EXAMPLES, "*.py")):
        text = open(path).read()
        assert "import sensim as carla" in text and "sensim." not in text.replace("import sensim as carla", ""), path


def test_camera_collision_example(out):
    d = os.path.join(out, "example_camera")
    shutil.rmtree(d, ignore_errors=True)
    stdout = _run("camera_collision.py", "--map", os.path.join(MAPS, "town.xodr"), "--out", d, "--frames", "60")
    assert stdout.startswith("frame 60:")
    pngs = sorted(os.listdir(os.path.join(d, "rgb")))
    assert pngs == ["%06d.png" % f for f in range(1, 61)]
    img = read_png(os.path.join(d, "rgb", "000010.png"))  # the truck ahead, ground and sky
    assert img.shape == (180, 320, 3) and len(np.unique(img.reshape(-1, 3), axis=0)) > 3
    log = open(os.path.join(d, "collisions.txt")).read().splitlines()
    # the hero (throttle 0.8) reaches the truck parked 15 m ahead within 3 s
    assert log and all("vehicle.sedan hit vehicle.truck" in line for line in log)
    first = int(log[0].split()[1].rstrip(":"))
    assert 20 < first < 60


def test_dvs_depth_example(out):
    d = os.path.join(out, "example_collect")
    shutil.rmtree(d, ignore_errors=True)
    _run("dvs_depth_collect.py", "--map", os.path.join(MAPS, "town.xodr"), "--out", d, "--frames", "6")
    depth = [np.load(os.path.join(d, "depth_%06d.npy" % f)) for f in range(1, 7)]
    assert all(x.shape == (120, 160) and x.dtype == np.float32 for x in depth)
    # the ground seen from 2.4 m up: the bottom row is nearer than the middle rows
    assert depth[0][-1].mean() < depth[0][70].mean() < 1000
    dvs = sorted(glob.glob(os.path.join(d, "dvs_*.npy")))
    assert dvs, "no events from a moving camera"
    ev = np.load(dvs[-1])
    assert ev.ndim == 2 and ev.shape[1] == 4 and len(ev) > 0
    assert ev[:, 0].max() < 160 and ev[:, 1].max() < 120 and set(np.unique(ev[:, 3])) <= {0, 1}


def test_pip_install_offline_into_a_venv(tmp_path):
    """python3 -m venv --system-site-packages + pip install --no-index --no-build-isolation, from a
    copy of python/ (pip leaves build files next to the sources)."""
    try:
        import setuptools  # noqa: F401
    except ImportError:
        pytest.skip("setuptools is not installed: pip cannot build offline (docs/python.md)")
    src = tmp_path / "src"
    shutil.copytree(PKG, src, ignore=shutil.ignore_patterns("tests", "build", "*.egg-info", "__pycache__"))
    venv = tmp_path / "venv"
    # venv and pip run no C code of ours: not under the sanitizer's preloaded runtime (LD_PRELOAD,
    # set by meson for the sanitize build), which made them 2-3 times slower. --without-pip: the
    # venv's python runs the system's pip (--system-site-packages) rather than a copy ensurepip
    # installs (the most of the test's time); it installs into the venv all the same.
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", str(venv)], check=True,
                   env=env)
    py = str(venv / "bin" / "python")
    p = subprocess.run([py, "-m", "pip", "install", "-q", "--no-index", "--no-build-isolation", str(src)],
                       capture_output=True, text=True, env=env)
    if p.returncode and "No module named pip" in p.stderr:
        pytest.skip("no pip for the venv's python (the system's python3-pip is not installed)")
    assert p.returncode == 0, p.stderr
    # the dependencies pip records are the reader's two (a plain venv online fetches them)
    p = subprocess.run([py, "-m", "pip", "show", "sensim"], capture_output=True, text=True, env=env)
    requires = [ln for ln in p.stdout.splitlines() if ln.startswith("Requires:")]
    assert requires and sorted(x.strip() for x in requires[0][9:].split(",")) == ["msgpack", "numpy"], p.stdout
    code = ("import sensim, sys; c = sensim.Client(quiet=True); w = c.load_world(); print(sensim.__file__); "
            "print(w.tick()); print(c.get_client_version())")
    p = subprocess.run([py, "-c", code], capture_output=True, text=True, cwd=str(tmp_path),
                       env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"})
    assert p.returncode == 0, p.stderr
    lines = p.stdout.split()
    assert lines[0].startswith(str(venv)) and lines[1] == "1"
    assert lines[2] == sensim.__version__  # the installed package finds libsensim's version
