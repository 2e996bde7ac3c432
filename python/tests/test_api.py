"""The closed-loop API: the library, the C layouts, worlds, blueprints, actors, errors."""
import json
import os
import pydoc
import subprocess
import sys

import pytest

import sensim
from sensim import _lib

from conftest import SCENES, scene_file


def test_layouts_match_the_headers():
    """Every ctypes struct has the C size and member offsets (tests/python/layout_probe.c)."""
    probe = os.environ.get("SENSIM_LAYOUT_PROBE")
    if not probe:
        pytest.skip("SENSIM_LAYOUT_PROBE not set (meson test sets it)")
    c = dict(line.rsplit(" ", 1) for line in subprocess.run([probe], capture_output=True, text=True,
                                                            check=True).stdout.splitlines())
    renamed = {("sn_attr_def", "default"): "def"}  # `def` is a Python keyword
    checked = 0
    for cname, py in _lib.STRUCTS.items():
        assert int(c[cname]) == _lib.ctypes.sizeof(py), f"sizeof({cname})"
        for field, _ in py._fields_:
            member = renamed.get((cname, field), field)
            assert int(c[f"{cname}.{member}"]) == getattr(py, field).offset, f"{cname}.{member}"
            checked += 1
        members = [k for k in c if k.startswith(cname + ".")]
        assert len(members) == len(py._fields_), f"{cname}: the probe lists {members}"
    assert checked > 100


def test_library_not_found_names_the_paths_tried(tmp_path):
    env = dict(os.environ, SENSIM_LIBRARY=str(tmp_path / "nowhere.so"))
    code = "import sensim\ntry:\n    sensim.Client()\nexcept sensim.SensimError as e:\n    print(e)\n"
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert "libsensim not found; tried:" in p.stdout
    assert str(tmp_path / "nowhere.so") + " (missing)" in p.stdout
    assert "SENSIM_LIBRARY" in p.stdout


def test_plugins_are_searched_in_the_clis_order(tmp_path, monkeypatch):
    """A plugin in $SENSIM_PLUGIN_PATH comes before the library's own folder in Python as in the
    CLI: there it claims a blueprint id first (broken_dup.so claims the collision sensor's)."""
    built = os.environ.get("SENSIM_PLUGIN_DIR")
    dup = os.path.join(os.path.dirname(built or ""), "tests", "plugins", "broken_dup.so")
    if not built or not os.path.isfile(dup):
        pytest.skip("needs the build's plugins and its test plugins (meson test)")
    d = tmp_path / "user"
    d.mkdir()
    (d / "dup.so").write_bytes(open(dup, "rb").read())
    monkeypatch.delenv("SENSIM_PLUGIN_DIR")
    monkeypatch.setenv("SENSIM_PLUGIN_PATH", str(d))
    world = sensim.Client(quiet=True).load_world()
    py_doc = world.get_blueprint_library().find("sensor.other.collision").doc
    world.close()
    cli = subprocess.run([os.environ.get("SENSIM", "sensim"), "blueprints", "--json"], capture_output=True, text=True)
    cli_bp = {b["id"]: b for b in json.loads(cli.stdout)}["sensor.other.collision"]
    assert cli_bp["plugin"].endswith("dup.so")  # the user's plugin claimed it in the CLI
    assert py_doc == cli_bp["doc"] == ""  # and in Python (the collision plugin's has a doc)


def test_overrides_take_an_enum_by_its_number(client):
    """CARLA's enums print their names; an override gives the scene their number (the bits)."""
    scene = os.path.join(SCENES, "crash.yaml")
    lights = sensim.VehicleLightState.Position | sensim.VehicleLightState.LowBeam
    world = client.load_scene(scene, overrides={"actors.hero.light_state": lights})
    assert world.find_actor("hero").get_light_state() == lights
    world.close()


def test_reader_imports_without_the_library():
    env = dict(os.environ, SENSIM_LIBRARY="/nonexistent/libsensim.so")
    p = subprocess.run([sys.executable, "-c", "import sensim; print(sensim.read, sensim.World)"],
                       capture_output=True, text=True, env=env)
    assert p.returncode == 0, p.stderr


def test_errors_carry_the_engine_message(client, out):
    with pytest.raises(sensim.SensimError) as e:
        client.load_scene(os.path.join(out, "missing.yaml"))
    assert "missing.yaml" in str(e.value) and e.value.status == -5
    bad = scene_file(out, "bad_attr.yaml", "actors:\n  - {name: c, blueprint: vehicle.sedan, attributes: {mass: -3}}\n")
    with pytest.raises(sensim.SensimError) as e:
        client.load_scene(bad)
    assert "bad_attr.yaml:2:" in str(e.value) and "mass" in str(e.value)
    world = client.load_world()
    lib = world.get_blueprint_library()
    cam = lib.find("sensor.camera.rgb")
    cam.set_attribute("fov", "400")
    with pytest.raises(sensim.SensimError) as e:
        world.spawn_actor(cam, sensim.Transform())
    assert "fov" in str(e.value)
    with pytest.raises(IndexError):
        cam.set_attribute("no_such_attribute", 1)
    with pytest.raises(IndexError):
        lib.find("vehicle.nope")
    car = world.spawn_actor(lib.find("vehicle.sedan"), sensim.Transform(sensim.Location(0, 0, 0.1)))
    # a second car in the same place: refused, naming what it overlaps
    with pytest.raises(sensim.SensimError) as e:
        world.spawn_actor(lib.find("vehicle.sedan"), sensim.Transform(sensim.Location(0, 0, 0.1)))
    assert "overlaps" in str(e.value)
    assert world.try_spawn_actor(lib.find("vehicle.sedan"), sensim.Transform(sensim.Location(0, 0, 0.1))) is None
    with pytest.raises(sensim.SensimError) as e:
        car.apply_control(sensim.VehicleControl(throttle=2.0))
    assert "throttle" in str(e.value)
    with pytest.raises(sensim.SensimError, match="no map"):
        car.set_autopilot(True)  # an empty world has no lanes to follow


def test_set_autopilot_follows_the_lanes(client):
    world = client.load_world("town")
    m = world.get_map()
    car = world.spawn_actor(world.get_blueprint_library().find("vehicle.sedan"), m.get_spawn_points()[0])
    car.set_autopilot(True)
    assert car.get_speed_limit() == pytest.approx(50.0)  # the town's road records, no speed sign
    start = car.get_transform().location
    far = 0.0
    for _ in range(1400):  # 70 s: a junction's four lights take 60 s to come round
        world.tick()
        loc = car.get_transform().location
        far = max(far, loc.distance(start))
        # On a driving lane, or turning round beyond a dead end (the town's outer stubs end at
        # its edge: x -50 and 250, y 50 and -250; docs/traffic.md "dead ends").
        beyond = loc.x < -42 or loc.x > 242 or loc.y > 42 or loc.y < -242  # within 8 m of an end
        assert beyond or m.get_waypoint(loc, project_to_road=False) is not None, f"left the lanes at {loc}"
    assert far > 30.0
    health = world.get_traffic_health()  # 70 s: a whole minute and 10 s of the next
    assert [(w["start"], round(w["duration"], 6), w["vehicles"]) for w in health["windows"]] == [(0, 60, 1), (60, 10, 1)]
    assert health["totals"]["red_light_crossings"] == 0 and health["totals"]["flipped"] == 0
    car.set_autopilot(False)
    with pytest.raises(sensim.SensimError, match="ignore_lights_percentage"):
        car.set_autopilot(True, ignore_lights_percentage=150)


def test_blueprint_library_filter_and_attributes(client):
    lib = client.load_world().get_blueprint_library()
    ids = [b.id for b in lib]
    assert "vehicle.sedan" in ids and "sensor.camera.rgb" in ids and "sensor.other.collision" in ids
    assert sorted(b.id for b in lib.filter("vehicle.*")) == sorted(i for i in ids if i.startswith("vehicle."))
    assert all(b.id.startswith("sensor.camera.") for b in lib.filter("sensor.camera.*"))
    fov = lib.find("sensor.camera.rgb").get_attribute("fov")
    assert fov.type == "float" and fov.as_float() == 90.0 and fov.unit == "deg"
    a = lib.find("sensor.camera.rgb")
    a.set_attribute("fov", 110)
    assert a.get_attribute("fov").value == "110"
    assert lib.find("sensor.camera.rgb").get_attribute("fov").as_float() == 90.0  # find hands out copies
    # CARLA's generate_traffic.py keeps the cars with int(bp.get_attribute('number_of_wheels')) == 4
    cars = {b.id for b in lib.filter("vehicle.*") if int(b.get_attribute("number_of_wheels")) == 4}
    assert {"vehicle.sedan", "vehicle.van", "vehicle.truck", "vehicle.bus", "vehicle.tesla.model3"} <= cars
    assert not any(lib.find(i).get_attribute("base_type").as_str() in ("bicycle", "motorcycle") for i in cars)
    assert float(lib.find("vehicle.kawasaki.ninja").get_attribute("number_of_wheels")) == 2.0


def test_kinematic_actor_moves_by_velocity_times_dt(client):
    """A vehicle without physics, given a velocity, moves exactly v * dt a tick."""
    world = client.load_world()
    assert world.get_settings().fixed_delta_seconds == pytest.approx(0.05)
    car = world.spawn_actor(world.get_blueprint_library().find("vehicle.sedan"),
                            sensim.Transform(sensim.Location(5, -3, 2), sensim.Rotation(yaw=30)))
    car.set_simulate_physics(False)
    car.set_target_velocity(sensim.Vector3D(4, 2, 0))
    for i in range(1, 21):
        assert world.tick() == i
    loc = car.get_location()
    assert (loc.x, loc.y, loc.z) == pytest.approx((5 + 4 * 20 * 0.05, -3 + 2 * 20 * 0.05, 2), abs=1e-9)
    assert car.get_transform().rotation.yaw == pytest.approx(30)
    car.set_transform(sensim.Transform(sensim.Location(-7, 1, 3), sensim.Rotation(yaw=-90)))
    t = car.get_transform()
    assert (t.location.x, t.location.y, t.location.z, t.rotation.yaw) == pytest.approx((-7, 1, 3, -90))
    assert world.get_actors().filter("vehicle.*") == [car]
    assert car.destroy() and not car.is_alive and not car.destroy()
    assert world.get_actors().filter("vehicle.*") == []


def test_apply_settings_changes_the_step_at_any_time(client):
    world = client.load_world()
    s = world.get_settings()
    s.fixed_delta_seconds = 0.02
    world.apply_settings(s)
    assert world.get_settings().fixed_delta_seconds == pytest.approx(0.02)
    world.tick()
    assert world.get_snapshot().timestamp.elapsed_seconds == pytest.approx(0.02)
    # CARLA's rule: at any time, from the next frame; the clock keeps its time
    s.fixed_delta_seconds = 0.1
    assert world.apply_settings(s) == 2
    world.tick()
    assert world.get_snapshot().timestamp.elapsed_seconds == pytest.approx(0.12)


def test_scene_actors_and_geometry(client):
    world = client.load_scene(os.path.join(SCENES, "crash.yaml"))
    hero = world.get_actors().filter("vehicle.*")[0]
    assert hero.role_name == "hero" and hero.attributes["color"] == "200,30,30"
    assert hero.bounding_box.extent.x == pytest.approx(2.3)
    # CARLA's axes: yaw 90 points +y; forward x right = -up... (right-handed in CARLA's left-handed sense)
    r = sensim.Rotation(yaw=90)
    f = r.get_forward_vector()
    assert (f.x, f.y, f.z) == pytest.approx((0, 1, 0), abs=1e-12)
    t = sensim.Transform(sensim.Location(1, 2, 3), sensim.Rotation(yaw=90))
    p = t.transform(sensim.Location(1, 0, 0))
    assert (p.x, p.y, p.z) == pytest.approx((1, 3, 3))
    q = t.inverse_transform(p)
    assert (q.x, q.y, q.z) == pytest.approx((1, 0, 0))


def test_listener_exception_is_raised_by_tick(client):
    world = client.load_scene(os.path.join(SCENES, "crash.yaml"))
    world.find_actor("crash").listen(lambda ev: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        for _ in range(100):
            world.tick()
    assert world.frame == 36  # the collision's frame (tests/integration: 10 m/s into the wall)


@pytest.mark.parametrize("how", ["close", "load_world", "load_scene", "reload_world"])
def test_closing_a_world_inside_its_listener_is_refused(client, how):
    """Issue 33 item 15: world.close(), load_world(), load_scene(), reload_world() inside a
    listener freed the engine under its own sn_engine_step (ASan: heap-use-after-free in
    sn_stream_emit). Refused like reset(): tick() raises, and the world goes on."""
    world = client.load_scene(os.path.join(SCENES, "crash.yaml"))
    act = {"close": world.close, "load_world": client.load_world, "reload_world": client.reload_world,
           "load_scene": lambda: client.load_scene(os.path.join(SCENES, "crash.yaml"))}[how]
    world.find_actor("crash").listen(lambda ev: act())
    with pytest.raises(sensim.SensimError, match="inside a listener of this world"):
        for _ in range(100):
            world.tick()
    assert world.frame == 36
    assert client.get_world() is world
    world.tick()  # still alive and stepping
    assert world.frame == 37
    world.close()


def test_help_reads_well():
    text = pydoc.render_doc(sensim.World, renderer=pydoc.plaintext)
    for name in ("tick", "spawn_actor", "get_blueprint_library", "get_map", "reset", "Steps the world"):
        assert name in text
    assert "listen" in pydoc.render_doc(sensim.Sensor, renderer=pydoc.plaintext)


def test_other_threads_run_while_the_engine_steps(client):
    """ctypes releases the GIL around the engine's calls: a Python thread keeps running while
    world.tick() steps and renders (intersection.yaml's three cameras render every 10th frame).
    The thread stamps the time as it spins; stamps that fall inside a tick can only exist if
    the tick let go of the GIL."""
    import threading
    import time
    world = client.load_scene(os.path.join(SCENES, "intersection.yaml"))
    stamps = []
    stop = threading.Event()

    def spin():
        while not stop.is_set() and len(stamps) < 2_000_000:
            stamps.append(time.perf_counter())

    t = threading.Thread(target=spin)
    t.start()
    ticks = []
    try:
        for _ in range(20):
            t0 = time.perf_counter()
            world.tick()
            ticks.append((t0, time.perf_counter()))
    finally:
        stop.set()
        t.join()
    inside = sum(1 for s in stamps for a, b in ticks if a < s < b)
    assert inside > 100, f"{inside} of {len(stamps)} stamps inside {len(ticks)} ticks"


def test_vehicle_lights_wheels_and_two_wheelers(client):
    """CARLA's VehicleLightState, get_wheel_steer_angle and the two-wheelers' blueprints."""
    world = client.load_world()
    lib = world.get_blueprint_library()
    car = world.spawn_actor(lib.find("vehicle.sedan"), sensim.Transform(sensim.Location(0, 0, 0.1)))
    assert car.get_light_state() == sensim.VehicleLightState.NONE
    car.set_light_state(sensim.VehicleLightState.LowBeam | sensim.VehicleLightState.Position)
    assert car.get_light_state() == sensim.VehicleLightState(0x3)
    car.set_light_state(sensim.VehicleLightState.All)
    assert int(car.get_light_state()) == 0xFFFFFFFF
    car.apply_control(sensim.VehicleControl(throttle=0.3, steer=0.5))
    for _ in range(10):
        world.tick()
    fl = car.get_wheel_steer_angle(sensim.VehicleWheelLocation.FL_Wheel)
    assert fl > 5.0  # degrees, + right as CARLA's
    assert car.get_wheel_steer_angle(sensim.VehicleWheelLocation.BR_Wheel) == 0.0
    for bp in ("vehicle.bh.crossbike", "vehicle.kawasaki.ninja", "vehicle.vespa.zx125"):
        assert lib.find(bp).id == bp
    bike = world.spawn_actor(lib.find("vehicle.gazelle.omafiets"), sensim.Transform(sensim.Location(0, 10, 0.1)))
    assert bike.get_wheel_steer_angle(sensim.VehicleWheelLocation.Back_Wheel) == 0.0


def test_client_version_is_the_library_version(client):
    """The one version string: libsensim's sn_version(), which meson.build checks equal to the
    package's __version__ (a copy in client.py could drift)."""
    assert client.get_client_version() == sensim.__version__ == client.get_server_version()
    assert client.get_client_version() == _lib.lib().sn_version().decode()
