"""Issue 32, items 8, 9 and 11: CARLA's blueprint ids with CARLA's extents, CARLA's vector and box
geometry, Ackermann and physics control, forces."""
import math

import pytest

import sensim

# CARLA 0.9.15's bounding-box half extents of each vehicle blueprint (as CARLA reports
# actor.bounding_box.extent; public tables of the same), metres.
CARLA_EXTENTS = {
    "vehicle.audi.a2": (1.8527, 0.8943, 0.7745), "vehicle.audi.etron": (2.4279, 1.0164, 0.8247),
    "vehicle.audi.tt": (2.0906, 0.9971, 0.6926), "vehicle.bmw.grandtourer": (2.3055, 1.1209, 0.8336),
    "vehicle.chevrolet.impala": (2.6787, 1.0166, 0.7053), "vehicle.citroen.c3": (1.9938, 0.9254, 0.8086),
    "vehicle.dodge.charger_2020": (2.5039, 0.9408, 0.7674), "vehicle.dodge.charger_police": (2.4871, 1.0192, 0.7711),
    "vehicle.dodge.charger_police_2020": (2.6188, 0.9649, 0.8192), "vehicle.ford.crown": (2.6828, 0.9004, 0.7875),
    "vehicle.ford.mustang": (2.3588, 0.9474, 0.6505), "vehicle.jeep.wrangler_rubicon": (1.9331, 0.9526, 0.9390),
    "vehicle.lincoln.mkz_2017": (2.4508, 1.0642, 0.7554), "vehicle.lincoln.mkz_2020": (2.4462, 0.9184, 0.7451),
    "vehicle.mercedes.coupe": (2.5134, 1.0758, 0.8253), "vehicle.mercedes.coupe_2020": (2.3368, 0.9059, 0.7210),
    "vehicle.micro.microlino": (1.1036, 0.7405, 0.6880), "vehicle.mini.cooper_s": (1.9029, 0.9851, 0.7375),
    "vehicle.mini.cooper_s_2021": (2.2763, 1.0485, 0.8836), "vehicle.nissan.micra": (1.8167, 0.9226, 0.7506),
    "vehicle.nissan.patrol": (2.3023, 0.9658, 0.9274), "vehicle.nissan.patrol_2021": (2.7829, 1.0750, 1.0226),
    "vehicle.seat.leon": (2.0964, 0.9081, 0.7369), "vehicle.tesla.model3": (2.3959, 1.0817, 0.7438),
    "vehicle.toyota.prius": (2.2568, 1.0034, 0.7624), "vehicle.tesla.cybertruck": (3.1368, 1.1948, 1.0491),
    "vehicle.carlamotors.carlacola": (2.6019, 1.3135, 1.2337), "vehicle.carlamotors.european_hgv": (3.9679, 1.4455, 1.7310),
    "vehicle.carlamotors.firetruck": (4.2340, 1.4455, 1.9137), "vehicle.ford.ambulance": (3.1828, 1.1756, 1.2157),
    "vehicle.mercedes.sprinter": (2.9576, 0.9942, 1.2803), "vehicle.volkswagen.t2": (2.2402, 1.0347, 1.0189),
    "vehicle.volkswagen.t2_2021": (2.2211, 0.8873, 0.9936), "vehicle.mitsubishi.fusorosa": (5.1363, 1.9721, 2.1264),
    "vehicle.bh.crossbike": (0.7547, 0.4330, 0.8062), "vehicle.diamondback.century": (0.8281, 0.2912, 0.8099),
    "vehicle.gazelle.omafiets": (0.9217, 0.3295, 0.8879), "vehicle.harley-davidson.low_rider": (1.1751, 0.3831, 0.8247),
    "vehicle.kawasaki.ninja": (1.0218, 0.3985, 0.7616), "vehicle.yamaha.yzf": (1.0954, 0.4330, 0.7652),
    "vehicle.vespa.zx125": (0.9086, 0.4330, 0.7950),
}


def test_every_carla_vehicle_spawns_with_carlas_extent(client):
    w = client.load_world("town")
    lib = w.get_blueprint_library()
    sp = w.get_map().get_spawn_points()
    assert {b.id for b in lib.filter("vehicle.*")} >= set(CARLA_EXTENTS)
    for i, (bid, ext) in enumerate(sorted(CARLA_EXTENTS.items())):
        a = w.spawn_actor(lib.find(bid), sp[i])
        e = a.bounding_box.extent
        assert (e.x, e.y, e.z) == pytest.approx(ext, abs=1e-4), bid
        assert a.bounding_box.location.z == pytest.approx(ext[2], abs=1e-4)  # sensim's origin: the box's bottom
    for _ in range(10):
        w.tick()  # every one of them simulates


def test_carlas_filters_find_what_carla_scripts_filter_for(client):
    w = client.load_world("town")
    lib = w.get_blueprint_library()
    four = [b for b in lib.filter("vehicle.*") if int(b.get_attribute("number_of_wheels")) == 4]
    two = [b for b in lib.filter("vehicle.*") if b.get_attribute("number_of_wheels").as_int() == 2]
    assert len(two) == 7 and "vehicle.tesla.model3" in {b.id for b in four}
    assert {b.get_attribute("base_type").as_str() for b in lib.filter("vehicle.*")} == \
        {"car", "van", "truck", "bus", "motorcycle", "bicycle"}
    gen2 = lib.filter_by_attribute("generation", "2")
    assert "vehicle.lincoln.mkz_2020" in {b.id for b in gen2}
    assert {b.id for b in lib.filter("vehicle.*") if b.get_attribute("special_type").as_str() == "emergency"} >= \
        {"vehicle.ford.ambulance", "vehicle.carlamotors.firetruck", "vehicle.dodge.charger_police"}
    assert lib.find("vehicle.tesla.model3").get_attribute("color").recommended_values
    assert lib.find("vehicle.tesla.model3").get_attribute("has_lights").as_bool()
    peds = lib.filter("walker.pedestrian.*")
    assert len(peds) == 51 and peds[0].id == "walker.pedestrian.0001"
    speed = lib.find("walker.pedestrian.0001").get_attribute("speed").recommended_values
    assert [float(v) for v in speed] == [1.4, 2.8]
    kid = lib.find("walker.pedestrian.0009")
    assert kid.get_attribute("age").as_str() == "child"
    assert lib.find("vehicle.sedan").get_attribute("number_of_wheels").as_int() == 4  # sensim's own ids keep working
    t = w.get_map().get_spawn_points()[0]
    t.location.z += 0.5  # a walker's origin is its box's centre
    walker = w.spawn_actor(peds[0], t)  # an adult: CARLA's 0.93 m half height
    assert walker.bounding_box.extent.z == pytest.approx(0.93)


def test_numeric_attributes_take_carlas_strings(client):
    w = client.load_world()
    cam = w.get_blueprint_library().find("sensor.camera.rgb")
    cam.set_attribute("image_size_x", "64.0")
    cam.set_attribute("image_size_y", 48)
    s = w.spawn_actor(cam, sensim.Transform())
    assert s.attributes["image_size_x"] == "64" and s.attributes["image_size_y"] == "48"
    cam.set_attribute("image_size_x", "64.5")
    with pytest.raises(RuntimeError):
        w.spawn_actor(cam, sensim.Transform())


def test_vectors_and_boxes_in_carlas_shape():
    v = sensim.Vector3D(1, -2, 3)
    loc = sensim.Location(v)
    assert isinstance(loc, sensim.Location) and (loc.x, loc.y, loc.z) == (1, -2, 3)
    assert -v == sensim.Vector3D(-1, 2, -3) and abs(v) == sensim.Vector3D(1, 2, 3)
    assert v * sensim.Vector3D(2, 2, 2) == sensim.Vector3D(2, -4, 6) and v / 2 == sensim.Vector3D(0.5, -1, 1.5)
    assert v != loc + sensim.Location(1, 0, 0)
    assert sensim.Vector3D(1, 0, 0).get_vector_angle(sensim.Vector3D(0, 1, 0)) == pytest.approx(math.pi / 2)
    t = sensim.Transform(sensim.Location(10, 5, 1), sensim.Rotation(pitch=10, yaw=30, roll=5))
    m, inv = t.get_matrix(), t.get_inverse_matrix()
    prod = [[sum(m[r][k] * inv[k][c] for k in range(4)) for c in range(4)] for r in range(4)]
    assert [x for row in prod for x in row] == pytest.approx([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1], abs=1e-12)
    p = sensim.Location(1, 2, 3)
    assert t.inverse_transform(t.transform(p)).distance(p) < 1e-12
    box = sensim.BoundingBox(sensim.Location(0, 0, 1), sensim.Vector3D(2, 1, 1))
    loc_v = box.get_local_vertices()
    assert len(loc_v) == 8 and min(x.z for x in loc_v) == pytest.approx(0) and max(x.x for x in loc_v) == 2
    at = sensim.Transform(sensim.Location(100, 0, 0), sensim.Rotation(yaw=90))
    wv = box.get_world_vertices(at)
    assert max(x.y for x in wv) == pytest.approx(2) and max(x.x for x in wv) == pytest.approx(101)
    assert box.contains(sensim.Location(100, 1.5, 1), at) and not box.contains(sensim.Location(101.5, 0, 1), at)
    g = sensim.GeoLocation(48.1, 11.5, 520)
    assert g == sensim.GeoLocation(48.1, 11.5, 520)
    assert sensim.Vector2D(3, 4).length() == 5


def test_forces_ackermann_and_physics_control(client):
    w = client.load_world("town")
    lib = w.get_blueprint_library()
    sp = w.get_map().get_spawn_points()
    car = w.spawn_actor(lib.find("vehicle.tesla.model3"), sp[0])
    for _ in range(20):
        w.tick()
    mass = float(car.attributes["mass"])
    v0 = car.get_velocity()
    fwd = car.get_transform().get_forward_vector()
    car.add_impulse(fwd * (mass * 2.0))
    assert car.get_velocity().dot(fwd) - v0.dot(fwd) == pytest.approx(2.0, abs=1e-6)
    pc = car.get_physics_control()
    assert pc.mass == mass and len(pc.wheels) == 4 and pc.wheels[0].max_steer_angle == 70 and pc.wheels[3].max_steer_angle == 0
    pc.mass = 2000
    car.apply_physics_control(pc)
    assert car.get_physics_control().mass == 2000
    other = w.spawn_actor(lib.find("vehicle.audi.a2"), sp[3])
    other.apply_ackermann_control(sensim.VehicleAckermannControl(steer=0.0, speed=6.0))
    for _ in range(200):
        w.tick()
    assert other.get_velocity().length() == pytest.approx(6.0, abs=1.0)
    box = w.spawn_actor(lib.find("vehicle.sedan"), sp[6])
    box.enable_constant_velocity(sensim.Vector3D(3, 0, 0))
    for _ in range(40):
        w.tick()
    assert box.get_velocity().length() == pytest.approx(3.0, abs=0.3)
    box.disable_constant_velocity()
    w.debug.draw_line(sensim.Location(), sensim.Location(1, 0, 0), life_time=1.0)
    w.debug.draw_string(sensim.Location(), "hello")
    assert [s["kind"] for s in w.debug.shapes] == ["line", "string"]
    w.load_map_layer(sensim.MapLayer.Buildings)
    w.unload_map_layer(sensim.MapLayer.All)
    assert w.cast_ray(sensim.Location(0, 0, 5), sensim.Location(0, 0, -10))  # rays: test_carla_scripts.py


def test_normals_camera_sees_the_grounds_normal(client):
    """sensor.camera.normals (manual_control.py's sensor list has it): the ground seen 45 degrees
    down has the normal (0, sin 45, cos 45) in the image frame (right, up, toward the camera)."""
    w = client.load_world()
    bp = w.get_blueprint_library().find("sensor.camera.normals")
    bp.set_attribute("image_size_x", "32")
    bp.set_attribute("image_size_y", "24")
    got = []
    cam = w.spawn_actor(bp, sensim.Transform(sensim.Location(0, 0, 3), sensim.Rotation(pitch=-45)))
    cam.listen(got.append)
    w.tick()
    a = got[0].array.astype(int)  # B G R A
    c = a[12, 16]
    want = (round((0 + 1) / 2 * 255), round((math.sqrt(0.5) + 1) / 2 * 255), round((math.sqrt(0.5) + 1) / 2 * 255))
    assert (c[2], c[1], c[0]) == pytest.approx(want, abs=2)
    assert (a[20:, :, 1] == want[1]).mean() > 0.9  # the whole lower half sees the plane


def test_lidar_dropoff_recommended_values(client):
    """visualize_multiple_sensors.py sets each drop-off attribute to its first recommended value."""
    bp = client.load_world().get_blueprint_library().find("sensor.lidar.ray_cast")
    rec = {k: bp.get_attribute(k).recommended_values for k in
           ("dropoff_general_rate", "dropoff_intensity_limit", "dropoff_zero_intensity")}
    assert rec == {"dropoff_general_rate": ["0.45"], "dropoff_intensity_limit": ["0.8"],
                   "dropoff_zero_intensity": ["0.4"]}
