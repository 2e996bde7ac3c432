"""Collision events as a table (scenes/crash.yaml: a 1500 kg sedan into a wall)."""
import os

import numpy as np

import sensim
from conftest import SCENES, run


def test_crash_table(crash_dir):
    path = os.path.join(crash_dir, "crash.msgpack")
    t = sensim.collisions(path)
    assert t.dtype == sensim.COLLISION_DTYPE and len(t) >= 1
    assert (t["actor_id"] == 2).all() and (t["other_id"] == 3).all()  # hero into wall
    assert (t["other_tag"] == 4).all()                                 # Wall
    assert np.allclose(t["normal"], [-1, 0, 0], atol=1e-6)
    assert (np.diff(t["frame"]) > 0).all()  # at most one event per frame and pair
    msgs = sensim.read_all(path)
    assert t["frame"][0] == msgs[0]["frame"] and list(t["normal_impulse"][0]) == msgs[0]["normal_impulse"]
    # the wall's face is at x = 19.5: the contact is there
    assert np.allclose(t["location"][:, 0], 19.5, atol=0.05)


def test_impulse_grows_with_speed(out):
    """Summed, the impulse stops a 1500 kg car: about m * v, more for a faster car."""
    total = {}
    for v in (6, 12):
        d = os.path.join(out, f"crash{v}")
        run("run", os.path.join(SCENES, "crash.yaml"), "--out", d, "--quiet",
            "--set", f"actors.hero.velocity=[{v}, 0, 0]")
        total[v] = -sensim.collisions(os.path.join(d, "crash.msgpack"))["normal_impulse"][:, 0].sum()
        assert 0.8 * 1500 * v < total[v] < 2 * 1500 * v, (v, total[v])
    assert total[12] > 1.5 * total[6]
