"""Walkers that navigate, in CARLA's shape: get_random_location_from_navigation, the pedestrians'
seed and cross factor, controller.ai.walker (start, go_to_location, set_max_speed, stop) and
the walker autopilot, on the town (maps/town.xodr)."""
import math

import pytest

import sensim


def _walker_at(world, loc):
    bp = world.get_blueprint_library().find("walker.pedestrian")
    return world.spawn_actor(bp, sensim.Transform(sensim.Location(loc.x, loc.y, loc.z + 1.0)))


def _on_sidewalk(m, loc):
    wp = m.get_waypoint(loc, project_to_road=True, lane_type=sensim.LaneType.Sidewalk)
    return wp is not None and wp.transform.location.distance(loc) <= wp.lane_width / 2 + 0.01


def test_random_locations_lie_on_sidewalks_and_follow_the_seed(client):
    world = client.load_world("town")
    m = world.get_map()
    locs = [world.get_random_location_from_navigation() for _ in range(10)]
    assert all(isinstance(p, sensim.Location) and _on_sidewalk(m, p) for p in locs)
    assert len({(round(p.x, 3), round(p.y, 3)) for p in locs}) == 10
    world.set_pedestrians_seed(11)
    a = world.get_random_location_from_navigation()
    world.set_pedestrians_seed(11)
    b = world.get_random_location_from_navigation()
    assert (a.x, a.y, a.z) == (b.x, b.y, b.z)
    with pytest.raises(sensim.SensimError, match=r"\[0, 1\]"):
        world.set_pedestrians_cross_factor(1.5)
    world.set_pedestrians_cross_factor(0.25)


def test_no_sidewalks_no_location(client):
    world = client.load_world()  # no map
    with pytest.raises(sensim.SensimError, match="no map"):
        world.get_random_location_from_navigation()


def test_ai_controller_goes_to_a_location(client):
    world = client.load_world("town")
    world.set_pedestrians_seed(3)
    start = world.get_random_location_from_navigation()
    walker = _walker_at(world, start)
    lib = world.get_blueprint_library()
    bp = lib.find("controller.ai.walker")
    assert bp.id == "controller.ai.walker" and len(lib.filter("controller.*")) == 1
    ctl = world.spawn_actor(bp, sensim.Transform(), walker)
    assert isinstance(ctl, sensim.WalkerAIController) and ctl.parent.id == walker.id
    assert world.get_actor(ctl.id) is ctl and world.get_actors([ctl.id, walker.id])[0] is ctl
    with pytest.raises(sensim.SensimError, match="start"):
        ctl.go_to_location(start)  # not started
    ctl.start()
    with pytest.raises(sensim.SensimError, match=r"\(0, 10\]"):
        ctl.set_max_speed(0)
    goal = None
    while goal is None or goal.distance(start) < 50:
        goal = world.get_random_location_from_navigation()
    ctl.set_max_speed(1.8)
    ctl.go_to_location(goal)
    best = math.inf
    # along sidewalks at most ~3x the straight line, at 1.8 m/s; 20 Hz
    for _ in range(int((3 * goal.distance(start) / 1.8 + 30) * 20)):
        world.tick()
        best = min(best, math.hypot(walker.get_location().x - goal.x, walker.get_location().y - goal.y))
        if best < 1.0:
            break
    assert best < 1.0
    ctl.stop()
    for _ in range(20):
        world.tick()
    here = walker.get_location()
    for _ in range(40):
        world.tick()
    assert walker.get_location().distance(here) < 0.1
    assert ctl.destroy() and not ctl.is_alive and world.get_actor(ctl.id) is None


def test_controller_needs_a_walker(client):
    world = client.load_world("town")
    car = world.spawn_actor(world.get_blueprint_library().find("vehicle.sedan"),
                            world.get_map().get_spawn_points()[0])
    with pytest.raises(sensim.SensimError, match="attached to a walker"):
        world.spawn_actor(world.get_blueprint_library().find("controller.ai.walker"), sensim.Transform(), car)


def test_walker_autopilot_wanders(client):
    world = client.load_world("town")
    world.set_pedestrians_seed(5)
    walker = _walker_at(world, world.get_random_location_from_navigation())
    walker.set_autopilot(True)
    start = walker.get_location()
    for _ in range(600):  # 30 s
        world.tick()
    assert walker.get_location().distance(start) > 10
    walker.set_autopilot(False)
    for _ in range(20):
        world.tick()
    here = walker.get_location()
    for _ in range(20):
        world.tick()
    assert walker.get_location().distance(here) < 0.1
