"""CARLA's Traffic Manager and traffic lights from Python (sensim/traffic.py over sensim.h's
sn_engine_tm_* and traffic-light calls), against their effects on maps/town.xodr (3x3 blocks,
9 signalised junctions of 4 lights, 50 km/h) and maps/highway.xodr (two lanes each way, 120 km/h)."""
import logging
import math
import os
import sys

import pytest

import sensim as carla

MAPS = os.environ.get("SENSIM_MAPS", os.path.join(os.path.dirname(__file__), "..", "..", "maps"))
TOWN = os.path.join(MAPS, "town.xodr")
HIGHWAY = os.path.join(MAPS, "highway.xodr")

# Every call of CARLA 0.9.15's carla.TrafficManager (PythonAPI/carla/source/libcarla/TrafficManager.cpp).
TM_CALLS = ["get_port", "vehicle_percentage_speed_difference", "global_percentage_speed_difference",
            "vehicle_lane_offset", "global_lane_offset", "update_vehicle_lights", "collision_detection",
            "force_lane_change", "auto_lane_change", "distance_to_leading_vehicle", "ignore_walkers_percentage",
            "ignore_vehicles_percentage", "ignore_lights_percentage", "ignore_signs_percentage",
            "set_global_distance_to_leading_vehicle", "keep_right_rule_percentage",
            "random_left_lanechange_percentage", "random_right_lanechange_percentage", "set_synchronous_mode",
            "set_hybrid_physics_mode", "set_hybrid_physics_radius", "set_random_device_seed", "set_osm_mode",
            "set_path", "set_route", "set_respawn_dormant_vehicles", "set_boundaries_respawn_dormant_vehicles",
            "get_next_action", "get_all_actions", "shut_down", "set_desired_speed"]
LIGHT_CALLS = ["get_state", "set_state", "freeze", "is_frozen", "get_green_time", "set_green_time",
               "get_yellow_time", "set_yellow_time", "get_red_time", "set_red_time", "get_elapsed_time",
               "get_group_traffic_lights", "reset_group", "get_pole_index", "get_stop_waypoints",
               "get_affected_lane_waypoints", "get_opendrive_id", "get_light_boxes"]


def _car(world, transform):
    bp = world.get_blueprint_library().find("vehicle.sedan")
    t = carla.Transform(carla.Location(transform.location.x, transform.location.y, transform.location.z + 0.3),
                        transform.rotation)
    return world.spawn_actor(bp, t)


def _speed(a):
    v = a.get_velocity()
    return math.hypot(v.x, v.y)


def test_the_traffic_manager_has_carlas_calls(client):
    world = client.load_world(TOWN)
    tm = client.get_trafficmanager()
    assert tm.get_port() == 8000 and client.get_trafficmanager(8001).get_port() == 8001
    for name in TM_CALLS:
        assert callable(getattr(tm, name)), name
    for name in LIGHT_CALLS:
        assert callable(getattr(carla.TrafficLight, name)), name
    assert [int(s) for s in (carla.TrafficLightState.Red, carla.TrafficLightState.Yellow, carla.TrafficLightState.Green,
                             carla.TrafficLightState.Off, carla.TrafficLightState.Unknown)] == [0, 1, 2, 3, 4]
    assert str(carla.TrafficLightState.Red) == "Red"
    with pytest.raises(carla.SensimError):
        client.get_trafficmanager(80)
    # The Traffic Manager's calls are accepted (some without meaning in process), never an AttributeError.
    car = _car(world, world.get_map().get_spawn_points()[0])
    car.set_autopilot(True, tm.get_port())
    tm.set_synchronous_mode(True)
    tm.set_hybrid_physics_mode(True)
    tm.set_hybrid_physics_radius(70.0)
    tm.set_respawn_dormant_vehicles(True)
    tm.set_boundaries_respawn_dormant_vehicles(25.0, 100.0)
    tm.set_osm_mode(False)
    tm.set_random_device_seed(7)
    tm.collision_detection(car, car, False)
    tm.global_lane_offset(0.0)
    tm.vehicle_lane_offset(car, 0.5)
    tm.update_vehicle_lights(car, True)
    tm.set_desired_speed(car, 30.0)
    action = tm.get_next_action(car)
    assert action[0] == "LaneFollow" and isinstance(action[1], carla.Waypoint)
    world.tick()


def test_absurd_values_are_refused(client):
    world = client.load_world(TOWN)
    tm = client.get_trafficmanager()
    car = _car(world, world.get_map().get_spawn_points()[0])
    car.set_autopilot(True)
    bad = [(tm.distance_to_leading_vehicle, (car, -1.0)), (tm.distance_to_leading_vehicle, (car, float("nan"))),
           (tm.vehicle_percentage_speed_difference, (car, 1e9)), (tm.global_percentage_speed_difference, (-150,)),
           (tm.ignore_lights_percentage, (car, 1e9)), (tm.ignore_walkers_percentage, (car, -1)),
           (tm.random_left_lanechange_percentage, (car, 101)), (tm.set_hybrid_physics_radius, (-5,)),
           (tm.set_desired_speed, (car, float("inf"))), (tm.set_global_distance_to_leading_vehicle, (float("nan"),)),
           (tm.set_route, (car, ["Backwards"])), (tm.set_path, (car, [carla.Location(float("nan"), 0, 0)])),
           (tm.set_boundaries_respawn_dormant_vehicles, (100, 10))]
    for fn, args in bad:
        with pytest.raises(carla.SensimError) as ei:
            fn(*args)
        assert str(ei.value), fn.__name__
    with pytest.raises(carla.SensimError):
        car.set_autopilot(True, 42)


def test_a_50_percent_speed_difference_halves_the_cruising_speed(client):
    """Two Traffic Managers: 8000 globally 50 % below the limit, 8001 at the limit."""
    world = client.load_world(HIGHWAY)
    m = world.get_map()
    slow_tm, fast_tm = client.get_trafficmanager(8000), client.get_trafficmanager(8001)
    slow_tm.global_percentage_speed_difference(50)      # before the vehicle joins: it applies
    fast_tm.global_percentage_speed_difference(0)
    slow = _car(world, m.get_waypoint_xodr(1, -3, 30).transform)
    fast = _car(world, m.get_waypoint_xodr(1, -2, 30).transform)
    slow.set_autopilot(True, 8000)
    fast.set_autopilot(True, 8001)
    for car, tm in ((slow, slow_tm), (fast, fast_tm)):
        tm.auto_lane_change(car, False)
    assert fast.get_speed_limit() == pytest.approx(120.0)
    for _ in range(400):
        world.tick()
    vs = vf = 0.0
    for _ in range(60):
        world.tick()
        vs, vf = vs + _speed(slow) / 60, vf + _speed(fast) / 60
    assert vf > 25, vf
    assert vs / vf == pytest.approx(0.5, abs=0.05), (vs, vf)


def _light_and_approach(world, back=40.0):
    for light in world.get_traffic_lights():
        stops = light.get_stop_waypoints()
        if len(stops) == 1:
            before = stops[0].previous(back)
            if before and not before[0].is_junction:
                return light, stops[0], before[0]
    raise AssertionError("no light with 40 m of lane before its stop line")


def test_a_frozen_red_holds_traffic_and_the_vehicle_knows_its_light(client):
    world = client.load_world(TOWN)
    light, stop, before = _light_and_approach(world)
    for t in world.get_actors().filter("traffic.traffic_light*"):
        assert isinstance(t, carla.TrafficLight)
        t.set_state(carla.TrafficLightState.Red)
    world.freeze_all_traffic_lights(True)
    assert light.is_frozen()
    car = _car(world, before.transform)
    car.set_autopilot(True)
    assert car.get_traffic_light() is None and not car.is_at_traffic_light()
    assert car.get_traffic_light_state() == carla.TrafficLightState.Green  # CARLA's, when at none
    fwd = stop.transform.get_forward_vector()

    def gap():  # front bumper to the stop line, along the lane
        d = stop.transform.location - car.get_location()
        return d.x * fwd.x + d.y * fwd.y - car.bounding_box.extent.x

    nearest = min(gap() for _ in range(1200) if world.tick())  # 60 s
    assert 0 < nearest < 6, nearest
    assert _speed(car) < 0.3
    assert car.get_traffic_light() == light and car.is_at_traffic_light()
    assert car.get_traffic_light_state() == carla.TrafficLightState.Red
    light.set_state(carla.TrafficLightState.Green)
    for _ in range(200):
        world.tick()
    assert gap() < 0, "through on green"


def test_traffic_light_calls_against_the_map(client):
    world = client.load_world(TOWN)
    m = world.get_map()
    lights = world.get_traffic_lights()
    assert len(lights) == 36 and len(world.get_actors().filter("traffic.traffic_light*")) == 36
    light, stop, before = _light_and_approach(world)
    group = light.get_group_traffic_lights()
    assert len(group) == 4 and light in group
    # two controllers per junction (opposite approaches share one, CARLA's UTrafficLightController)
    assert sorted(t.get_pole_index() for t in group) == [0, 0, 1, 1]
    junction = light._li().junction_id
    assert set(world.get_traffic_lights_in_junction(junction)) == set(group)
    # Times and the cycle (CARLA's 10 / 3 / 2 s).
    assert (light.get_green_time(), light.get_yellow_time(), light.get_red_time()) == (10.0, 3.0, 2.0)
    light.set_green_time(4.0)
    light.set_red_time(1.0)
    assert (light.get_green_time(), light.get_yellow_time(), light.get_red_time()) == (4.0, 3.0, 1.0)
    t0 = light.get_elapsed_time()
    for _ in range(10):
        world.tick()
    assert light.get_elapsed_time() == pytest.approx(t0 + 0.5, abs=1e-6)
    # The map's landmark id names it.
    assert world.get_traffic_light(carla.Landmark(light.get_opendrive_id())) == light
    assert world.get_traffic_light(carla.Landmark("no-such-signal")) is None
    # Stop waypoints on its road; the affected lanes hold them; the trigger volume lies on the lane
    # before the stop line (where CARLA's agents look for it: misc.get_trafficlight_trigger_location).
    assert stop.road_id >= 0 and stop.lane_type == carla.LaneType.Driving
    assert {(w.road_id, w.lane_id) for w in light.get_affected_lane_waypoints()} >= {(stop.road_id, stop.lane_id)}
    tv = light.trigger_volume
    centre = light.get_transform().transform(tv.location)
    wp = m.get_waypoint(centre)
    assert (wp.road_id, wp.lane_id) == (stop.road_id, stop.lane_id)
    assert 1.0 < centre.distance(stop.transform.location) < 5.0
    # Lights ahead of a waypoint.
    assert world.get_traffic_lights_from_waypoint(before, 45.0)[0] == light
    assert world.get_traffic_lights_from_waypoint(before, 30.0) == []
    # Freeze, reset.
    light.freeze(True)
    light.set_state(carla.TrafficLightState.Yellow)
    for _ in range(100):
        world.tick()
    assert light.state == carla.TrafficLightState.Yellow
    world.freeze_all_traffic_lights(False)
    world.reset_all_traffic_lights()
    assert [t.get_pole_index() for t in group if t.state == carla.TrafficLightState.Green] == [0, 0]


def test_an_off_road_vehicle_warns_once_and_drives(client, caplog):
    world = client.load_world(TOWN)
    m = world.get_map()
    spawn = carla.Transform(carla.Location(-170.0, -100.0, 0.3))   # 70 m west of the town's roads
    assert m.get_waypoint(spawn.location) is None
    a = _car(world, spawn)
    b = _car(world, carla.Transform(carla.Location(-170.0, -110.0, 0.3)))
    with caplog.at_level(logging.WARNING, logger="sensim"):
        a.set_autopilot(True)
        b.set_autopilot(True)
    said = [r for r in caplog.records if "autopilot" in r.getMessage()]
    assert len(said) == 1 and "drives there" in said[0].getMessage()
    for _ in range(800):
        world.tick()
    assert m.get_waypoint(a.get_location(), project_to_road=False) is not None


def test_speed_limit_is_the_lanes_in_kmh(client):
    world = client.load_world(TOWN)
    car = _car(world, world.get_map().get_spawn_points()[0])
    assert car.get_speed_limit() == pytest.approx(50.0)


def test_force_lane_change_and_route(client):
    world = client.load_world(HIGHWAY)
    m = world.get_map()
    tm = client.get_trafficmanager()
    car = _car(world, m.get_waypoint_xodr(1, -2, 30).transform)
    car.set_autopilot(True)
    tm.auto_lane_change(car, False)
    tm.set_desired_speed(car, 60)
    for _ in range(100):
        world.tick()
    tm.force_lane_change(car, True)   # True: right, CARLA's
    lanes = set()
    for _ in range(100):
        world.tick()
        lanes.add(m.get_waypoint(car.get_location()).lane_id)
    assert -3 in lanes  # force_lane_change(right) moved it one lane right


@pytest.mark.skipif(not os.environ.get("SENSIM_CARLA_AGENTS"),
                    reason="SENSIM_CARLA_AGENTS: a folder holding CARLA's PythonAPI/carla/agents package")
def test_carlas_basic_agent_drives(client):
    """CARLA's own agents (not shipped: point SENSIM_CARLA_AGENTS at PythonAPI/carla) import and
    BasicAgent drives a route, stopping for red lights."""
    pytest.importorskip("shapely")   # CARLA's agents need them (their requirements.txt)
    pytest.importorskip("networkx")
    sys.path.insert(0, os.environ["SENSIM_CARLA_AGENTS"])
    sys.modules.setdefault("carla", carla)
    from agents.navigation.basic_agent import BasicAgent  # noqa: E402
    world = client.load_world(TOWN)
    sp = world.get_map().get_spawn_points()
    car = _car(world, sp[0])
    agent = BasicAgent(car, 30)
    agent.set_destination(sp[len(sp) // 2].location)
    start = car.get_location()
    for _ in range(1200):
        car.apply_control(agent.run_step())
        world.tick()
        if agent.done():
            break
    assert car.get_location().distance(start) > 20
