"""Issue 32's last gaps, checked with scripts of our own that make the calls CARLA's examples make
(CARLA's own scripts are not in the tree): cast_ray (every surface) / project_point / ground_projection,
apply_physics_control on the running model, the spectator, walker bones, and walkers spawned and
driven as generate_traffic.py does."""
import ctypes
import math

import pytest

import sensim
from sensim import _lib

from carla_util import run_carla

G = 9.81


def _box(w, x, y, z, extent, tag="Buildings"):
    bp = w.get_blueprint_library().find("static.prop.box")
    bp.set_attribute("extent", extent)
    bp.set_attribute("semantic_tag", tag)
    return w.spawn_actor(bp, sensim.Transform(sensim.Location(x, y, z)))


# ---- rays ---------------------------------------------------------------------------------------

def test_cast_ray_meets_every_surface_nearest_first(client):
    """A 1 x 1 x 2 m box standing on the ground plane (z = 0) at x = 10: a ray straight down
    through it meets its top (z = 2, Buildings), then the ground (z = 0, the ground's tag)."""
    w = client.load_world()
    _box(w, 10, 0, 1.0, "0.5,0.5,1.0")
    hits = w.cast_ray(sensim.Location(10, 0, 5), sensim.Location(10, 0, -5))
    assert [round(h.location.z, 6) for h in hits] == [2.0, 0.0]
    assert hits[0].label == sensim.CityObjectLabel.Buildings
    assert hits[1].label == sensim.CityObjectLabel.Ground
    assert (hits[0].location.x, hits[0].location.y) == pytest.approx((10, 0))
    # sideways through the box: its near face at x = 9.5; a segment that stops short meets nothing
    side = w.cast_ray(sensim.Location(0, 0, 1), sensim.Location(20, 0, 1))
    assert [round(h.location.x, 6) for h in side] == [9.5]
    assert w.cast_ray(sensim.Location(0, 0, 1), sensim.Location(9, 0, 1)) == []
    assert w.cast_ray(sensim.Location(0, 0, 1), sensim.Location(0, 0, 1)) == []


def test_project_point_and_ground_projection(client):
    w = client.load_world()
    _box(w, 10, 0, 1.0, "0.5,0.5,1.0")
    p = w.project_point(sensim.Location(0, 0, 1), sensim.Vector3D(2, 0, 0), 100)
    assert p.location.x == pytest.approx(9.5) and p.label == sensim.CityObjectLabel.Buildings
    assert w.project_point(sensim.Location(0, 0, 1), sensim.Vector3D(1, 0, 0), 5) is None
    g = w.ground_projection(sensim.Location(3, 4, 7))
    assert (g.location.x, g.location.y, g.location.z) == pytest.approx((3, 4, 0)) and g.label == sensim.CityObjectLabel.Ground
    top = w.ground_projection(sensim.Location(10.2, 0.1, 7))
    assert top.location.z == pytest.approx(2.0) and top.label == sensim.CityObjectLabel.Buildings
    assert w.ground_projection(sensim.Location(3, 4, 7), search_distance=6.5) is None
    with pytest.raises(ValueError):
        w.project_point(sensim.Location(0, 0, math.nan), sensim.Vector3D(1, 0, 0))


def test_rays_see_the_maps_roads_and_vehicles(client):
    """On the town map, straight down over a spawn point: the road (Roads) at the spawn point's
    ground; with a car there, its roof first (Car)."""
    w = client.load_world("town")
    sp = w.get_map().get_spawn_points()[0].location
    g = w.ground_projection(sensim.Location(sp.x, sp.y, sp.z + 10))
    assert g.label == sensim.CityObjectLabel.Roads and g.location.z == pytest.approx(sp.z - 0.5, abs=0.3)
    car = w.spawn_actor(w.get_blueprint_library().find("vehicle.tesla.model3"), w.get_map().get_spawn_points()[0])
    hits = w.cast_ray(sensim.Location(sp.x, sp.y, sp.z + 10), sensim.Location(sp.x, sp.y, sp.z - 10))
    assert hits[0].label == sensim.CityObjectLabel.Car
    top = car.get_transform().location.z + 2 * car.bounding_box.extent.z
    assert hits[0].location.z == pytest.approx(top, abs=0.05)
    assert sensim.CityObjectLabel.Roads in [h.label for h in hits[1:]]


def test_cast_ray_reports_every_surface_of_the_map(client):
    """Across a street of the town map, level, 5 cm under the kerbs' top (the kerb of one side
    contains the start): CARLA's overlap trace reports each component it meets, so the far
    sidewalk's kerb is a second point, where one point per actor (the map is one) gave only the
    first. Every point lies on the segment, nearest first; where the ray leaves a kerb is none."""
    w = client.load_world("town")
    sp = w.get_map().get_spawn_points()[0]
    r = sp.get_right_vector()
    z = sp.location.z - 0.45
    a = sensim.Location(sp.location.x - 12 * r.x, sp.location.y - 12 * r.y, z)
    b = sensim.Location(sp.location.x + 12 * r.x, sp.location.y + 12 * r.y, z)
    pts = w.cast_ray(a, b)
    side = [p for p in pts if p.label == sensim.CityObjectLabel.Sidewalks]
    assert len(side) == 2, [(p.label, a.distance(p.location)) for p in pts]
    d = [a.distance(p.location) for p in pts]
    assert d == sorted(d) and d[0] == pytest.approx(0, abs=1e-6)
    assert side[1].location.distance(side[0].location) > 5  # across the road
    for p in pts:
        assert p.location.z == pytest.approx(z, abs=1e-6)
    one = _lib_all(w, a, b)
    assert len([h for h in one if h == sensim.CityObjectLabel.Sidewalks]) == 1


def _lib_all(w, a, b):
    """The labels SN_RAY_ALL gives (one hit per actor): what cast_ray returned before."""
    from sensim import rays
    d = sensim.Location(b.x - a.x, b.y - a.y, b.z - a.z)
    res, hits = rays._trace(w, a, d, a.distance(b), rays._SN_RAY_ALL, 64)
    return [rays._label(hits[i].semantic_tag) for i in range(res.n_hits)]


# ---- physics control -----------------------------------------------------------------------------

def _flat(client):
    w = client.load_world()
    return w, w.get_blueprint_library().find("vehicle.tesla.model3")


def _settled(w, bp, y):
    car = w.spawn_actor(bp, sensim.Transform(sensim.Location(0, y, 0.05)))
    for _ in range(20):
        w.tick()
    return car


def _speed_after(w, car, control, ticks):
    car.apply_control(control)
    for _ in range(ticks):
        w.tick()
    return car.get_velocity().length()


def test_mass_and_torque_change_the_acceleration(client):
    """From rest at full throttle the engine gives its low-speed force F (below the tyres'
    grip): v(t) = (F / m - 0.015 g) t, rolling resistance 1.5 % of the weight."""
    w, bp = _flat(client)
    dt, ticks = w.get_settings().fixed_delta_seconds, 10
    t = ticks * dt
    for y, mass_k, torque_k in ((0, 1, 1), (20, 2, 1), (40, 1.5, 1.5)):
        car = _settled(w, bp, y)
        pc = car.get_physics_control()
        e0 = car._engine_physics()
        pc.mass *= mass_k
        pc.torque_curve = [sensim.Vector2D(p.x, p.y * torque_k) for p in pc.torque_curve]
        car.apply_physics_control(pc)
        e = car._engine_physics()
        assert e.mass == pytest.approx(e0.mass * mass_k)
        assert e.max_force == pytest.approx(e0.max_force * torque_k)
        assert e.max_power == pytest.approx(e0.max_power * torque_k)
        v = _speed_after(w, car, sensim.VehicleControl(throttle=1.0), ticks)
        assert v == pytest.approx((e.max_force / e.mass - 0.015 * G) * t, rel=0.03)


def test_steer_friction_and_drag(client):
    w, bp = _flat(client)
    # max_steer_angle: full steer at rest turns the front wheels to the new lock
    car = _settled(w, bp, 0)
    pc = car.get_physics_control()
    for wh in pc.wheels[:2]:
        wh.max_steer_angle = 35.0
    car.apply_physics_control(pc)
    car.apply_control(sensim.VehicleControl(steer=1.0, brake=1.0))
    for _ in range(20):
        w.tick()
    assert car.get_wheel_steer_angle(sensim.VehicleWheelLocation.FL_Wheel) == pytest.approx(35.0, abs=0.5)
    # tire_friction: full braking from 10 m/s decelerates at mu g; half the friction, half of it
    decel = []
    for y, friction in ((20, 3.5), (40, 1.75)):
        c = _settled(w, bp, y)
        pc = c.get_physics_control()
        for wh in pc.wheels:
            wh.tire_friction = friction
        c.apply_physics_control(pc)
        assert c._engine_physics().tire_friction == pytest.approx(friction / 3.5)
        c.set_target_velocity(sensim.Vector3D(10, 0, 0))
        w.tick()
        v0 = c.get_velocity().length()
        v1 = _speed_after(w, c, sensim.VehicleControl(brake=1.0), 5)
        decel.append((v0 - v1) / (5 * w.get_settings().fixed_delta_seconds))
    assert decel[0] == pytest.approx(1.0 * G, rel=0.1)
    assert decel[1] / decel[0] == pytest.approx(0.5, rel=0.1)
    # drag: coasting at 40 m/s, a drag coefficient of 2 adds 0.5 rho (2 - Cd0) A v^2 / m
    coast = []
    for y, cd in ((60, None), (80, 2.0)):
        c = _settled(w, bp, y)
        pc = c.get_physics_control()
        if cd is not None:
            pc.drag_coefficient = cd
            c.apply_physics_control(pc)
        c.set_target_velocity(sensim.Vector3D(40, 0, 0))
        w.tick()
        v0 = c.get_velocity().length()
        v1 = _speed_after(w, c, sensim.VehicleControl(), 4)
        coast.append((v0 - v1) / (4 * w.get_settings().fixed_delta_seconds))
    e = c.bounding_box.extent
    extra = 0.5 * 1.2 * (2.0 - 0.35) * (4 * e.y * e.z) * 40 ** 2 / float(c.attributes["mass"])
    assert coast[1] - coast[0] == pytest.approx(extra, rel=0.1)


def test_get_physics_control_returns_what_was_set(client):
    w, bp = _flat(client)
    car = _settled(w, bp, 0)
    before = car._engine_physics()
    car.apply_physics_control(car.get_physics_control())  # the running model in CARLA's fields: no change
    after = car._engine_physics()
    for f in ("mass", "max_power", "max_force", "max_steer_angle", "tire_friction", "drag_coefficient"):
        assert getattr(after, f) == pytest.approx(getattr(before, f))
    pc = car.get_physics_control()
    pc.mass, pc.max_rpm, pc.moi, pc.final_ratio = 1234.0, 7000.0, 2.5, 3.2
    pc.forward_gears = [sensim.GearPhysicsControl(ratio=3.0), sensim.GearPhysicsControl(ratio=1.5)]
    pc.wheels[0].radius = 35.0
    car.apply_physics_control(pc)
    got = car.get_physics_control()
    assert (got.mass, got.max_rpm, got.moi, got.final_ratio) == (1234.0, 7000.0, 2.5, 3.2)
    assert [g.ratio for g in got.forward_gears] == [3.0, 1.5] and got.wheels[0].radius == 35.0
    got.mass = 1.0  # a copy: the kept control is not changed through it
    assert car.get_physics_control().mass == 1234.0
    pc.mass = -5
    with pytest.raises(sensim.SensimError, match="mass must be in"):
        car.apply_physics_control(pc)
    assert car._engine_physics().mass == 1234.0
    walker = w.spawn_actor(w.get_blueprint_library().find("walker.pedestrian.0001"),
                           sensim.Transform(sensim.Location(0, 60, 1)))
    c = _lib.VehiclePhysics(struct_size=ctypes.sizeof(_lib.VehiclePhysics))
    with pytest.raises(sensim.SensimError, match="is no vehicle"):
        walker._call("sn_engine_get_vehicle_physics", ctypes.byref(c))


def _turning_roll(w, bp, y, dz):
    """The mean roll (degrees) and lateral acceleration (m/s^2) of a car in a steady turn at
    about 11.5 m/s, its centre of mass moved up by dz (CARLA's center_of_mass)."""
    car = _settled(w, bp, y)
    pc = car.get_physics_control()
    pc.center_of_mass = sensim.Vector3D(0, 0, dz)
    car.apply_physics_control(pc)
    car.enable_constant_velocity(sensim.Vector3D(12, 0, 0))
    for _ in range(60):
        w.tick()
    car.disable_constant_velocity()
    car.apply_control(sensim.VehicleControl(throttle=0.3, steer=0.3))
    rolls, lat = [], []
    for k in range(150):
        w.tick()
        if k >= 100:  # steady
            rolls.append(car.get_transform().rotation.roll)
            lat.append(car.get_velocity().length() * math.radians(car.get_angular_velocity().z))
    car.destroy()
    return sum(rolls) / len(rolls), sum(lat) / len(lat)


def test_center_of_mass_changes_the_roll_in_a_turn(client):
    """The tyres push 5 cm above the road (the model's roll centre), the weight acts at the
    centre of mass: the roll moment m a_y (h - 0.05), so the roll per unit lateral acceleration
    scales with h - 0.05. The centre of mass 30 cm lower or higher than the blueprint's
    (h = its center_of_mass_height) rolls (h -+ 0.3 - 0.05) / (h - 0.05) as much; it outside the
    box is refused, and get_physics_control gives back the offset."""
    w, bp = _flat(client)
    h = float(bp.get_attribute("center_of_mass_height"))
    per_g = {}
    for y, dz in ((0, 0.0), (30, -0.3), (60, 0.3)):
        roll, a_y = _turning_roll(w, bp, y, dz)
        assert a_y > 5 and roll < 0  # turning right (yaw rate > 0) the body leans left
        per_g[dz] = roll / a_y
    for dz in (-0.3, 0.3):
        assert per_g[dz] / per_g[0.0] == pytest.approx((h + dz - 0.05) / (h - 0.05), rel=0.2)
    car = _settled(w, bp, 90)
    pc = car.get_physics_control()
    assert (pc.center_of_mass.x, pc.center_of_mass.y, pc.center_of_mass.z) == (0, 0, 0)  # as spawned
    pc.center_of_mass = sensim.Vector3D(0.2, 0, -0.1)
    car.apply_physics_control(pc)
    e = car._engine_physics()
    assert (e.center_of_mass.x, e.center_of_mass.y, e.center_of_mass.z) == pytest.approx((0.2, 0, -0.1))
    t0 = car.get_transform()
    w.tick()
    assert car.get_transform().location.distance(t0.location) < 0.01  # the car stays where it stood
    pc.center_of_mass = sensim.Vector3D(0, 0, 5)
    with pytest.raises(sensim.SensimError, match="center_of_mass must stay inside"):
        car.apply_physics_control(pc)


def test_steering_curve_sets_the_lock_at_speed(client):
    """At a held 17 m/s (61 km/h) full steer turns the front wheels to max_steer_angle x the
    steering curve at that speed: CARLA's default curve gives 0.8 - (v - 60) / 60 x 0.1, a curve
    (0, 1), (50, 0.5), (100, 0.25) gives 0.5 - (v - 50) / 50 x 0.25."""
    w, bp = _flat(client)
    got = {}
    for y, curve in ((0, None), (30, [(0, 1), (50, 0.5), (100, 0.25)])):
        car = _settled(w, bp, y)
        pc = car.get_physics_control()
        assert [(p.x, p.y) for p in pc.steering_curve] == [(0, 1), (20, 0.9), (60, 0.8), (120, 0.7)]
        if curve:
            pc.steering_curve = [sensim.Vector2D(*p) for p in curve]
            car.apply_physics_control(pc)
            assert [(p.x, p.y) for p in car.get_physics_control().steering_curve] == curve
        car.enable_constant_velocity(sensim.Vector3D(17, 0, 0))
        for _ in range(30):
            w.tick()
        car.apply_control(sensim.VehicleControl(steer=1.0))
        for _ in range(20):
            w.tick()
        kmh = car.get_velocity().length() * 3.6
        got[bool(curve)] = (car.get_wheel_steer_angle(sensim.VehicleWheelLocation.FL_Wheel), kmh,
                            pc.wheels[0].max_steer_angle)
        car.destroy()
    a, kmh, lock = got[False]
    assert a == pytest.approx(lock * (0.8 - (kmh - 60) / 60 * 0.1), abs=0.3)
    a, kmh, lock = got[True]
    assert a == pytest.approx(lock * (0.5 - (kmh - 50) / 50 * 0.25), abs=0.3)
    car = _settled(w, bp, 60)
    pc = car.get_physics_control()
    pc.steering_curve = [sensim.Vector2D(0, 1), sensim.Vector2D(50, 1.5)]
    with pytest.raises(sensim.SensimError, match="steering_curve"):
        car.apply_physics_control(pc)


def test_gears_and_torque_curve_set_the_force_and_the_top_speed(client):
    """A flat 150 N m to 6000 rpm, final ratio 4, 30 cm wheels: in one gear of 3 the driven
    wheels push 150 x 3 x 4 / 0.3 = 6000 N from rest, and the rev limit caps the speed at
    6000 rpm / (3 x 4) x 2 pi / 60 x 0.3 = 15.7 m/s; a second gear of 1.5 takes it past that."""
    w, bp = _flat(client)
    dt = w.get_settings().fixed_delta_seconds
    top = []
    for y, gears in ((0, [3.0]), (30, [3.0, 1.5])):
        car = _settled(w, bp, y)
        pc = car.get_physics_control()
        pc.torque_curve = [sensim.Vector2D(0, 150), sensim.Vector2D(6000, 150)]
        pc.max_rpm, pc.final_ratio = 6000.0, 4.0
        pc.forward_gears = [sensim.GearPhysicsControl(ratio=g) for g in gears]
        for wh in pc.wheels:
            wh.radius = 30.0
        car.apply_physics_control(pc)
        m = car._engine_physics().mass
        v = _speed_after(w, car, sensim.VehicleControl(throttle=1.0), 10)
        assert v == pytest.approx((6000 / m - 0.015 * G) * 10 * dt, rel=0.05)  # first gear from rest
        top.append(_speed_after(w, car, sensim.VehicleControl(throttle=1.0), int(14 / dt)))
        car.destroy()
    v_top = 6000 / (3 * 4) * 2 * math.pi / 60 * 0.3
    assert 0.9 * v_top < top[0] <= v_top * 1.01
    assert top[1] > 1.2 * v_top


# ---- the spectator -------------------------------------------------------------------------------

def test_spectator_round_trips_and_carries_a_camera(client):
    w = client.load_world()
    sp = w.get_spectator()
    assert sp.type_id == "spectator" and w.get_actor(sp.id) is sp and sp.is_alive
    t = sensim.Transform(sensim.Location(1, 2, 30), sensim.Rotation(-30, 45, 0))
    sp.set_transform(t)
    assert sp.get_transform() == t
    got = sp.get_transform()
    got.location.x = 99  # a copy
    t.location.y = 77    # and set_transform kept a copy too
    assert sp.get_transform().location.x == 1 and sp.get_transform().location.y == 2
    sp.set_location(sensim.Location(5, 6, 7))
    assert sp.get_transform().rotation == sensim.Rotation(-30, 45, 0) and sp.get_location() == sensim.Location(5, 6, 7)
    assert sp.destroy() is False and sp.is_alive
    # a camera attached to the spectator stands at spectator x mount and follows it
    bp = w.get_blueprint_library().find("sensor.camera.rgb")
    bp.set_attribute("image_size_x", "16")
    bp.set_attribute("image_size_y", "12")
    sp.set_transform(sensim.Transform(sensim.Location(10, 0, 5), sensim.Rotation(yaw=90)))
    cam = w.spawn_actor(bp, sensim.Transform(sensim.Location(x=2)), attach_to=sp)
    ct = cam.get_transform()
    assert (ct.location.x, ct.location.y, ct.location.z) == pytest.approx((10, 2, 5))
    assert ct.rotation.yaw == pytest.approx(90)
    sp.set_transform(sensim.Transform(sensim.Location(0, 0, 3), sensim.Rotation(yaw=180)))
    w.tick()
    ct = cam.get_transform()
    assert (ct.location.x, ct.location.y, ct.location.z) == pytest.approx((-2, 0, 3), abs=1e-9)
    assert abs(ct.rotation.yaw) == pytest.approx(180)


# ---- walker bones ------------------------------------------------------------------------------

DRAW_SKELETON_BONES = ["crl_root", "crl_hips__C", "crl_spine__C", "crl_spine01__C", "crl_neck__C", "crl_Head__C",
                       "crl_eye__L", "crl_eye__R"] + [f"crl_{b}__{s}" for s in "LR" for b in (
    "shoulder", "arm", "foreArm", "hand", "thigh", "leg", "foot", "toe", "toeEnd")] + [
    f"crl_hand{f}{k}__{s}" for s in "LR" for f in ("Thumb", "Index", "Middle", "Ring", "Pinky")
    for k in ("", "01", "02", "End")]


def test_walker_bones(client):
    w = client.load_world()
    walker = w.spawn_actor(w.get_blueprint_library().find("walker.pedestrian.0001"),
                           sensim.Transform(sensim.Location(3, 4, 1.2), sensim.Rotation(yaw=90)))
    ex = walker.bounding_box.extent
    bones = walker.get_bones().bone_transforms
    by = {b.name: b for b in bones}
    assert set(DRAW_SKELETON_BONES) <= set(by) and len(by) == len(bones)
    t = walker.get_transform()
    root, head = by["crl_root"].world.location, by["crl_Head__C"].world.location
    assert root.z == pytest.approx(t.location.z - ex.z)            # the feet at the box's bottom
    assert t.location.z - ex.z < head.z < t.location.z + ex.z      # the head inside the box
    assert head.z - root.z == pytest.approx(2 * ex.z * 1.62 / 1.8)  # the rest pose scaled to the height
    # the walker faces +y (yaw 90): its right (CARLA's +y of the walker) is the world's -x
    assert by["crl_hand__R"].world.location.x < t.location.x < by["crl_hand__L"].world.location.x
    for b in bones:  # world = the walker's transform applied to the component transform
        p = t.transform(b.component.location)
        assert (b.world.location.x, b.world.location.y, b.world.location.z) == pytest.approx((p.x, p.y, p.z))
    # set_bones poses a bone relative to its parent; blend_pose mixes rest (0) and custom (1)
    rest = by["crl_foreArm__L"].relative
    raised = sensim.Transform(sensim.Location(rest.location.x, rest.location.y, rest.location.z + 0.4))
    walker.set_bones(sensim.WalkerBoneControlIn([("crl_foreArm__L", raised)]))
    assert walker.get_bones().bone_transforms[BONE_INDEX("crl_foreArm__L")].relative == rest  # blend 0: rest
    walker.show_pose()
    up = {b.name: b for b in walker.get_bones().bone_transforms}
    assert up["crl_foreArm__L"].relative == raised
    assert up["crl_hand__L"].world.location.z == pytest.approx(by["crl_hand__L"].world.location.z + 0.4)
    walker.blend_pose(0.5)
    half = {b.name: b for b in walker.get_bones().bone_transforms}
    assert half["crl_hand__L"].world.location.z == pytest.approx(by["crl_hand__L"].world.location.z + 0.2)
    walker.hide_pose()
    assert walker.get_bones().bone_transforms[BONE_INDEX("crl_hand__L")].world.location.z == \
        pytest.approx(by["crl_hand__L"].world.location.z)
    walker.get_pose_from_animation()
    walker.show_pose()
    assert walker.get_bones().bone_transforms[BONE_INDEX("crl_foreArm__L")].relative == rest
    with pytest.raises(IndexError):
        walker.set_bones(sensim.WalkerBoneControlIn([("crl_tail", raised)]))


def BONE_INDEX(name):
    from sensim.skeleton import BONES
    return BONES.index(name)


# ---- walkers as generate_traffic.py spawns them --------------------------------------------------

def test_walker_spawned_on_the_ground_is_lifted_out_of_it(client):
    """get_random_location_from_navigation gives the ground; a walker spawned with its centre there
    stands on it (Unreal's "adjust if possible"); a walker overlapping a car is still refused."""
    w = client.load_world()
    bp = w.get_blueprint_library().find("walker.pedestrian.0001")
    walker = w.spawn_actor(bp, sensim.Transform(sensim.Location(5, 5, 0)))
    ez = walker.bounding_box.extent.z
    assert walker.get_transform().location.z == pytest.approx(ez, abs=0.02)
    w.spawn_actor(w.get_blueprint_library().find("vehicle.tesla.model3"), sensim.Transform(sensim.Location(20, 0, 0.05)))
    with pytest.raises(sensim.SensimError, match="overlaps"):
        w.spawn_actor(bp, sensim.Transform(sensim.Location(20, 0, 0.5)))


GENERATE_TRAFFIC = """
import random
import carla

client = carla.Client('127.0.0.1', 2000)
world = client.get_world()
tm = client.get_trafficmanager(8000)
tm.set_global_distance_to_leading_vehicle(2.5)
tm.set_respawn_dormant_vehicles(True)
tm.set_hybrid_physics_mode(True)
tm.set_hybrid_physics_radius(70.0)
tm.set_random_device_seed(1)
tm.set_synchronous_mode(True)
settings = world.get_settings()
settings.synchronous_mode = True
settings.fixed_delta_seconds = 0.05
world.apply_settings(settings)
random.seed(1)
SpawnActor, SetAutopilot, FutureActor = carla.command.SpawnActor, carla.command.SetAutopilot, carla.command.FutureActor
vbps = sorted(world.get_blueprint_library().filter('vehicle.*'), key=lambda bp: bp.id)
batch = []
for n, t in enumerate(world.get_map().get_spawn_points()[:4]):
    bp = random.choice(vbps)
    bp.set_attribute('role_name', 'hero' if n == 0 else 'autopilot')
    batch.append(SpawnActor(bp, t).then(SetAutopilot(FutureActor, True, tm.get_port())))
vehicles = [r.actor_id for r in client.apply_batch_sync(batch, True) if not r.error]
for a in world.get_actors(vehicles):
    tm.update_vehicle_lights(a, True)
world.set_pedestrians_seed(3)
spawn_points = []
for i in range(6):
    t = carla.Transform()
    t.location = world.get_random_location_from_navigation()
    spawn_points.append(t)
wbps = world.get_blueprint_library().filter('walker.pedestrian.*')
batch, speeds = [], []
for t in spawn_points:
    bp = random.choice(wbps)
    bp.set_attribute('is_invincible', 'false')
    speeds.append(bp.get_attribute('speed').recommended_values[1])
    batch.append(SpawnActor(bp, t))
results = client.apply_batch_sync(batch, True)
errors = [r.error for r in results if r.error]
assert not errors, errors
walkers = [{"id": r.actor_id} for r in results]
ctl_bp = world.get_blueprint_library().find('controller.ai.walker')
results = client.apply_batch_sync([SpawnActor(ctl_bp, carla.Transform(), w["id"]) for w in walkers], True)
assert not [r.error for r in results if r.error]
for w, r in zip(walkers, results):
    w["con"] = r.actor_id
all_id = [x for w in walkers for x in (w["con"], w["id"])]
all_actors = world.get_actors(all_id)
world.tick()
world.set_pedestrians_cross_factor(0.0)
starts = {}
for i in range(0, len(all_id), 2):
    all_actors[i].start()
    all_actors[i].go_to_location(world.get_random_location_from_navigation())
    all_actors[i].set_max_speed(float(speeds[i // 2]))
    starts[all_id[i + 1]] = all_actors[i + 1].get_location()
for _ in range(100):
    world.tick()
moved = [world.get_actor(i).get_location().distance(p) for i, p in starts.items()]
print("vehicles", len(vehicles), "walkers", len(walkers), "moved", min(moved))
assert len(vehicles) == 4 and len(walkers) == 6 and min(moved) > 2.0
for i in range(0, len(all_id), 2):
    all_actors[i].stop()
client.apply_batch([carla.command.DestroyActor(x) for x in vehicles + all_id])
settings.synchronous_mode = False
world.apply_settings(settings)
print("done")
"""


def test_generate_traffic_calls_spawn_walkers_and_controllers_by_batch(tmp_path):
    r = run_carla(tmp_path, GENERATE_TRAFFIC, env={"SENSIM_TOWN": ""})
    assert r.returncode == 0, r.stderr[-3000:]
    assert "done" in r.stdout
