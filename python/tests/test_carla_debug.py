"""CARLA's world.debug drawn into an MCAP file from Python (world.record_mcap, and
`python3 -m sensim.carla --mcap FILE`): each shape a foxglove.SceneUpdate entity on /debug with its
lifetime, read back with an independent reader (mcap_read.py: the file's records, zstd, protobuf)."""
import math
import os
import subprocess
import sys
import textwrap

import pytest

import sensim
from mcap_read import duration_ns, messages, one, pb, pose, rotate, vec3

DT = 0.05


def _world(client):
    w = client.load_world()
    s = w.get_settings()
    s.synchronous_mode, s.fixed_delta_seconds = True, DT
    w.apply_settings(s)
    return w


def _debug_updates(path):
    ms = messages(path)
    ups = [m for m in ms if m["topic"] == "/debug"]
    assert all(m["schema"] == "foxglove.SceneUpdate" for m in ups)
    return ms, ups


def _entities(update):
    return [pb(e) for e in pb(update["data"]).get(2, [])]


def _color(prim, field):
    c = pb(one(prim, field))
    return tuple(round(one(c, i, 0.0) * 255) for i in (1, 2, 3, 4))


def test_debug_shapes_in_mcap(tmp_path):
    path = str(tmp_path / "debug.mcap")
    c = sensim.Client()
    w = _world(c)
    assert w.record_mcap(path).startswith(path + ".partial-")
    assert {a.type_id for a in w.get_actors()} >= {"sensor.other.actors", "sensor.other.debug"}
    L, Col = sensim.Location, sensim.Color
    w.debug.draw_point(L(1, 2, 3), 0.2, Col(0, 255, 0), 0.0)              # for ever
    w.debug.draw_line(L(0, 0, 1), L(4, -3, 1), 0.05, Col(0, 0, 255), 2.5)  # 2.5 s
    w.debug.draw_arrow(L(1, 1, 0), L(4, 5, 2), 0.1, 0.4)                   # one frame (CARLA's default)
    w.tick()                                                               # frame 1: three shapes
    w.tick()                                                               # frame 2: nothing drawn
    box = sensim.BoundingBox(L(5, -2, 1), sensim.Vector3D(2, 1, 0.5))
    w.debug.draw_box(box, sensim.Rotation(10, 30, 0), 0.05, Col(255, 0, 255, 128), 1.0)
    w.debug.draw_string(L(0, 0, 2), "héllo", color=Col(255, 255, 255), life_time=-1.0)
    w.tick()                                                               # frame 3: two shapes
    assert not os.path.exists(path)  # whole only when the world closes
    w.close()
    ms, ups = _debug_updates(path)
    assert len(ups) == 2, "an update only on the frames something was drawn"
    assert [u["log_time"] for u in ups] == [round(1 * DT * 1e9), round(3 * DT * 1e9)]
    assert {m["topic"] for m in ms} >= {"/actors", "/tf", "/debug"}
    e1, e3 = _entities(ups[0]), _entities(ups[1])
    assert [one(e, 3).decode() for e in e1] == ["1/0", "1/1", "1/2"]
    assert [one(e, 3).decode() for e in e3] == ["3/0", "3/1"]
    for e in e1 + e3:
        assert one(e, 2) == b"world"
    # lifetimes: 0 for ever, seconds as given, CARLA's one frame (life_time < 0) as the step
    assert [duration_ns(one(e, 4)) for e in e1] == [0, 2_500_000_000, round(DT * 1e9)]
    assert [duration_ns(one(e, 4)) for e in e3] == [1_000_000_000, round(DT * 1e9)]
    # the point: a sphere of its size at (x, -y, z) (Foxglove's right-handed axes)
    sp = pb(one(e1[0], 9))
    assert pose(one(sp, 1))[0] == (1, -2, 3) and vec3(one(sp, 2)) == (0.2, 0.2, 0.2)
    assert _color(sp, 3) == (0, 255, 0, 255)
    # the line: begin and end
    ln = pb(one(e1[1], 11))
    assert [vec3(p) for p in ln[5]] == [(0, 0, 1), (4, 3, 1)] and one(ln, 3) == 0.05
    assert _color(ln, 6) == (0, 0, 255, 255)
    # the arrow: from begin towards end, head arrow_size long
    ar = pb(one(e1[2], 7))
    (pos, q) = pose(one(ar, 1))
    d = (3, -4, 2)
    n = math.sqrt(sum(x * x for x in d))
    assert pos == (1, -1, 0)
    assert rotate(q, (1, 0, 0)) == pytest.approx(tuple(x / n for x in d), abs=1e-12)
    assert one(ar, 2) + one(ar, 4) == pytest.approx(n) and one(ar, 4) == 0.4
    assert _color(ar, 6) == (255, 0, 0, 255)  # CARLA's default red
    # the box: 12 edges through its 8 corners, turned by the rotation given
    bx = pb(one(e3[0], 11))
    assert one(bx, 1) == 2 and len(bx[5]) == 24  # LINE_LIST
    (bpos, bq) = pose(one(bx, 2))
    world = {tuple(round(a + b, 9) for a, b in zip(rotate(bq, vec3(p)), bpos)) for p in bx[5]}
    want = set()
    t = sensim.Transform(box.location, sensim.Rotation(10, 30, 0))
    for sx in (-1, 1):
        for sy in (-1, 1):
            for sz in (-1, 1):
                p = t.transform(L(sx * 2, sy * 1, sz * 0.5))
                want.add((round(p.x, 9), round(-p.y, 9), round(p.z, 9)))
    assert world == want
    assert _color(bx, 6) == (255, 0, 255, 128)
    # the string: its text at its location, facing the viewer
    tx = pb(one(e3[1], 13))
    assert one(tx, 6).decode() == "héllo" and one(tx, 2) == 1 and pose(one(tx, 1))[0] == (0, 0, 2)
    # kept for the script as before
    assert [s["kind"] for s in w.debug.shapes] == ["point", "line", "arrow", "box", "string"]


def test_debug_without_mcap_changes_nothing(tmp_path):
    """Without record_mcap no sensor is added: a world that draws steps as one that does not."""
    def run(draw):
        c = sensim.Client()
        w = _world(c)
        car = w.spawn_actor(w.get_blueprint_library().find("vehicle.sedan"), sensim.Transform(sensim.Location(0, 0, 0.5)))
        car.apply_control(sensim.VehicleControl(throttle=0.6, steer=0.2))
        for i in range(30):
            if draw:
                w.debug.draw_point(car.get_location(), life_time=0)
            w.tick()
        ids = [a.id for a in w.get_actors()]
        t = car.get_transform()
        w.close()
        return ids, (t.location.x, t.location.y, t.rotation.yaw)
    assert run(False) == run(True)


def test_bad_debug_calls(tmp_path):
    c = sensim.Client()
    w = _world(c)
    w.record_mcap(str(tmp_path / "bad.mcap"))
    with pytest.raises(sensim.SensimError, match="not a finite number"):
        w.debug.draw_point(sensim.Location(float("nan"), 0, 0))
    with pytest.raises(sensim.SensimError, match="colour"):
        w.debug.draw_line(sensim.Location(), sensim.Location(1, 0, 0), color=sensim.Color(300, 0, 0))
    with pytest.raises(sensim.SensimError, match="already"):
        w.record_mcap(str(tmp_path / "again.mcap"))
    w.debug.draw_string(sensim.Location(), "x" * 5000)  # cut to 1024 bytes, not refused
    w.tick()
    # a script that destroys every sensor destroys the debug stream too: drawing goes on, kept only
    for a in w.get_actors().filter("sensor.*"):
        a.destroy()
    w.debug.draw_point(sensim.Location(1, 2, 3))
    assert w.debug.shapes[-1]["kind"] == "point"
    w.tick()
    w.close()
    ups = _debug_updates(str(tmp_path / "bad.mcap"))[1]
    assert len(ups) == 1 and len(_entities(ups[0])) == 1
    assert len(one(pb(one(_entities(ups[0])[0], 13)), 6)) == 1024
    with pytest.raises(sensim.SensimError):  # an existing file without overwrite
        _world(sensim.Client()).record_mcap(str(tmp_path / "bad.mcap"))


def test_carla_runner_mcap(tmp_path):
    """`python3 -m sensim.carla --mcap FILE script.py`: CARLA's own calls, drawn into FILE."""
    script = tmp_path / "draw.py"
    script.write_text(textwrap.dedent("""
        import carla
        client = carla.Client('localhost', 2000)
        world = client.get_world()
        settings = world.get_settings()
        settings.synchronous_mode = True
        settings.fixed_delta_seconds = 0.1
        world.apply_settings(settings)
        for i, wp in enumerate(world.get_map().generate_waypoints(20.0)[:10]):
            world.debug.draw_string(wp.transform.location, 'WP', False, carla.Color(255, 0, 0), 20.0)
            world.debug.draw_arrow(wp.transform.location, wp.transform.location + wp.transform.get_forward_vector() * 2,
                                   life_time=0)
        world.tick()
        world.tick()
    """))
    out = tmp_path / "run.mcap"
    p = subprocess.run([sys.executable, "-m", "sensim.carla", "--mcap", str(out), str(script)], capture_output=True,
                       text=True, timeout=120, cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    ms, ups = _debug_updates(str(out))
    assert len(ups) == 1
    ents = _entities(ups[0])
    assert len(ents) == 20
    assert [duration_ns(one(e, 4)) for e in ents] == [20_000_000_000, 0] * 10
    assert any(m["topic"] == "/map" for m in ms)  # the town's lanes
    bad = subprocess.run([sys.executable, "-m", "sensim.carla", "--mcap", str(out)], capture_output=True, text=True)
    assert bad.returncode == 2 and "sensim: error:" in bad.stderr
