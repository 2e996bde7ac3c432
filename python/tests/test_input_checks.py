"""Values are checked in Python before ctypes sees them (issue 33 item 24): ctypes would cut a
text at its first NUL, send None and b"x" as "None" and "b'x'", and wrap a seed of -1 to 2^64-1."""
import os

import pytest

import sensim

SCENES = os.environ.get("SENSIM_SCENES", os.path.join(os.path.dirname(__file__), "..", "..", "scenes"))


def test_sensor_call_arguments_are_texts(client):
    world = client.load_scene(os.path.join(SCENES, "crash.yaml"))
    crash = world.find_actor("crash")
    with pytest.raises(ValueError, match="NUL"):
        crash.send("a\0b")
    with pytest.raises(TypeError, match="NoneType"):
        crash.send(None)
    with pytest.raises(TypeError, match="bytes"):
        crash.send(b"x")
    with pytest.raises(TypeError):
        crash.call(5)
    # A well-formed call reaches the engine, which names the method the sensor lacks.
    with pytest.raises(sensim.SensimError):
        crash.send("hello")


def test_seeds_are_checked_not_wrapped(client):
    with pytest.raises(ValueError, match="outside"):
        client.load_scene(os.path.join(SCENES, "crash.yaml"), seed=-1)
    with pytest.raises(TypeError):
        client.load_scene(os.path.join(SCENES, "crash.yaml"), seed=1.5)
    world = client.load_scene(os.path.join(SCENES, "crash.yaml"), seed=2 ** 64 - 1)
    assert world.get_seed() == 2 ** 64 - 1
    with pytest.raises(ValueError, match="outside"):
        world.reset(seed=2 ** 64)
    with pytest.raises(TypeError):
        world.reset(seed=True)
    world.reset(seed=3)
    assert world.get_seed() == 3


def test_start_recorder_refuses_a_number_before_recording(client, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    client.load_scene(os.path.join(SCENES, "crash.yaml"))
    with pytest.raises(TypeError):
        client.start_recorder(5)
    assert not os.path.exists(tmp_path / "5")
