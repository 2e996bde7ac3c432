"""The recorder from Python: start_recorder/stop_recorder write a recording the CLI reads the
same way; show_recorder_* print what `sensim recorder` prints; replay_file replays the poses."""
import os

import pytest

import sensim

from conftest import SCENES, run


def test_record_query_and_replay(client, out):
    rec = os.path.join(out, "py_crash.sensimrec")
    world = client.load_scene(os.path.join(SCENES, "crash.yaml"))
    client.start_recorder(rec, additional_data=True)
    hero = world.get_actors().filter("vehicle.*")[0]
    poses = {}
    for _ in range(60):
        f = world.tick()
        poses[f] = hero.get_location()
    client.stop_recorder()
    world.tick()  # the recorder is gone: nothing more is written

    info = client.show_recorder_file_info(rec)
    assert info == run("recorder", "info", rec).stdout
    assert "Frames: 60" in info or "60" in info
    coll = client.show_recorder_collisions(rec, "v", "a")
    assert coll == run("recorder", "collisions", rec, "--type1", "v", "--type2", "a").stdout
    assert str(hero.id) in coll and "static.prop.box" in coll
    blocked = client.show_recorder_actors_blocked(rec, 1.0, 50)  # centimetres, as CARLA's
    assert blocked == run("recorder", "blocked", rec, "--min-time", "1", "--min-distance", "50").stdout

    client.replay_file(rec)
    replay = client.get_world()
    car = replay.get_actors().filter("vehicle.*")
    assert len(car) == 1
    for _ in range(50):
        f = replay.tick()
        loc = car[0].get_location()
        assert tuple(loc) == pytest.approx(tuple(poses[f]), abs=1e-6), f"frame {f}"

    with pytest.raises(sensim.SensimError) as e:
        client.show_recorder_file_info(os.path.join(out, "nope.sensimrec"))
    assert "nope.sensimrec" in str(e.value)
