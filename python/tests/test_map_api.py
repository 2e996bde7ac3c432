"""world.get_map(): carla.Map and carla.Waypoint over map.h, against `sensim map` (the same
queries printed by the CLI) and the geometry of maps/town.xodr (straight roads along x)."""
import json
import math
import os

import pytest

import sensim

from conftest import run

MAPS = os.environ.get("SENSIM_MAPS", os.path.join(os.path.dirname(__file__), "..", "..", "maps"))
TOWN = os.path.join(MAPS, "town.xodr")


def _cli(*args):
    return [json.loads(line) for line in run("map", TOWN, "--json", *args).stdout.splitlines() if line.strip()]


def _same(wp, ref):
    assert (wp.id, wp.road_id, wp.section_id, wp.lane_id) == (ref["id"], ref["road_id"], ref["section_id"],
                                                               ref["lane_id"])
    assert wp.s == pytest.approx(ref["s"], abs=1e-6)
    assert tuple(wp.transform.location) == pytest.approx(tuple(ref["transform"]["location"]), abs=1e-6)
    assert wp.lane_type.name == ref["lane_type"] and wp.is_junction == ref["is_junction"]
    assert wp.junction_id == ref["junction_id"] and wp.lane_width == pytest.approx(ref["lane_width"])
    assert wp.lane_change.name == ref["lane_change"]
    assert wp.left_lane_marking.type.name == ref["left_lane_marking"]["type"]
    assert wp.right_lane_marking.color.name == ref["right_lane_marking"]["color"] or \
        (wp.right_lane_marking.color.name == "Standard" and ref["right_lane_marking"]["color"] == "Standard")


def test_spawn_points_topology_and_waypoints_equal_the_cli(client):
    m = client.load_world("town").get_map()
    assert m.name
    sp = m.get_spawn_points()
    ref = _cli("--spawn-points")
    assert len(sp) == len(ref) > 10
    for t, r in zip(sp, ref):
        assert tuple(t.location) == pytest.approx(tuple(r["location"]), abs=1e-6)
        assert (t.rotation.pitch, t.rotation.yaw, t.rotation.roll) == pytest.approx(tuple(r["rotation"]), abs=1e-6)
    topo = m.get_topology()
    ref = _cli("--topology")
    assert len(topo) == len(ref) > 4
    for (a, b), (ra, rb) in zip(topo, ref):
        _same(a, ra)
        _same(b, rb)
    wps = m.generate_waypoints(5.0)
    ref = _cli("--waypoints", "5")
    assert len(wps) == len(ref) > 50
    for w, r in zip(wps[::17], ref[::17]):
        _same(w, r)
    _same(m.get_waypoint(sensim.Location(10, 2, 0)), _cli("--at", "10,2,0")[0])


def test_waypoint_geometry(client):
    m = client.load_world(TOWN).get_map()
    for t in m.get_spawn_points()[:20]:
        wp = m.get_waypoint(t.location)  # spawn points: on the lane centre, 0.5 m up (map.h)
        assert wp.lane_type == sensim.LaneType.Driving and not wp.is_junction
        # CARLA's enums print their names (boost.python's), not Python 3.11's numbers
        assert str(wp.lane_type) == f"{wp.lane_type}" == "Driving" and f"{wp.lane_type:d}" == "2" == str(int(wp.lane_type))
        assert f"{wp.lane_type:.1f}" == "2.0" and f"{wp.lane_type:>3}" == "  2"  # a spec formats the number
        assert wp.transform.location.distance(t.location - sensim.Location(0, 0, 0.5)) < 1e-6
        assert wp.transform.rotation.yaw == pytest.approx(t.rotation.yaw, abs=1e-6)
        for nxt in wp.next(2.0):  # a lane centre ahead: 2 m away when the lane is straight
            d = wp.transform.location.distance(nxt.transform.location)
            assert d <= 2.0 + 1e-6 and (nxt.is_junction or d == pytest.approx(2.0, abs=1e-6))
        for prv in wp.previous(2.0):
            assert wp.transform.location.distance(prv.transform.location) <= 2.0 + 1e-6
        for side in (wp.get_left_lane(), wp.get_right_lane()):
            if side is not None and side.lane_type == sensim.LaneType.Driving and side.lane_id * wp.lane_id > 0:
                # a neighbour in the same direction: one lane width apart, sideways
                assert wp.transform.location.distance(side.transform.location) == pytest.approx(
                    (wp.lane_width + side.lane_width) / 2, abs=1e-6)
    # lane -1 at (10, 1.75): its left neighbour runs the other way (CARLA's right-hand traffic)
    wp = m.get_waypoint(sensim.Location(10, 1.75, 0))
    left = wp.get_left_lane()
    assert left.lane_id == -wp.lane_id and abs(abs(left.transform.rotation.yaw - wp.transform.rotation.yaw) - 180) < 1e-6
    # back to the lane's start on its road, every 3 m: lane -1 runs along +s, so it starts at s = 0;
    # its left neighbour runs against s, so it starts at the road's end and ends at s = 0
    mid = m.get_waypoint(sensim.Location(50, 1.75, 0))
    back = mid.previous_until_lane_start(3.0)
    assert back[-1].s == pytest.approx(0.0, abs=1e-9) and all(b.road_id == mid.road_id for b in back)
    assert len(back) > 5 and [round(b.s, 9) for b in back[:-1]] == [round(mid.s - 3.0 * (i + 1), 9)
                                                                  for i in range(len(back) - 1)]
    other = mid.get_left_lane()
    start, end = other.previous_until_lane_start(3.0)[-1], other.next_until_lane_end(3.0)[-1]
    assert start.s > other.s > end.s == pytest.approx(0.0, abs=1e-9) and start.road_id == other.road_id
    with pytest.raises(sensim.SensimError, match="previous_until_lane_start"):
        mid.previous_until_lane_start(0.0)
    assert m.get_waypoint(sensim.Location(5000, 5000, 0)) is None  # farther than 50 m from every lane
    assert m.get_waypoint(sensim.Location(10, 30, 0), project_to_road=False) is None
    xodr = m.to_opendrive()
    assert "<OpenDRIVE" in xodr
    m2 = sensim.Map("copy", xodr)
    assert len(m2.get_spawn_points()) == len(m.get_spawn_points())


def test_junction_box_and_lanes():
    """Waypoint.get_junction(): the town's junction at the origin (a four-way crossing, three
    ways on from each arm) holds its connecting lanes inside its box, each as (start, end)."""
    m = sensim.Map.open(TOWN)
    inside = m.get_waypoint(sensim.Location(0, 0, 0))
    j = inside.get_junction()
    assert inside.is_junction and j.id == inside.junction_id and m.get_waypoint(sensim.Location(-40, 1.75, 0)).get_junction() is None
    box = j.bounding_box
    pairs = j.get_waypoints(sensim.LaneType.Driving)
    assert len(pairs) == 12
    for a, b in pairs:
        assert a.road_id == b.road_id and a.lane_id == b.lane_id and a.junction_id == b.junction_id == j.id
        assert a.s != b.s and a.lane_type == sensim.LaneType.Driving
        for w in (a, b):  # on the box's edge or inside it
            p = w.transform.location
            assert abs(p.x - box.location.x) <= box.extent.x + 1e-9 and abs(p.y - box.location.y) <= box.extent.y + 1e-9
        # the end is where the lane leads: next() from the start reaches it
        assert min(n.transform.location.distance(b.transform.location) for n in a.next(abs(b.s - a.s))) < 1e-6
    assert len(j.get_waypoints(sensim.LaneType.Driving | sensim.LaneType.Sidewalk)) > len(pairs)
    with pytest.raises(sensim.SensimError, match="no junction 424242"):
        sensim.Junction(m, 424242)


def test_transform_to_geolocation_is_what_gnss_reads(client, out):
    """Map.transform_to_geolocation through the world's geo-reference equals a noiseless GNSS
    sensor's reading at its own location, bit for bit; a map of one's own uses its header's."""
    scene = os.path.join(out, "geo.yaml")
    with open(scene, "w") as f:
        f.write(f"map: {os.path.join(MAPS, 'town.xodr')}\n"
                "settings: {georeference: {latitude: 48.137, longitude: 11.575, altitude: 520}}\n"
                "actors:\n  - {name: car, blueprint: vehicle.sedan, transform: {location: [20, 1.75, 0.5]},"
                " velocity: [8, 0, 0]}\n"
                "sensors:\n  - {name: gnss, blueprint: sensor.other.gnss, attach_to: car,"
                " transform: {location: [1, 0, 2]}}\n")
    world = client.load_scene(scene)
    got = []
    world.find_actor("gnss").listen(got.append)
    for _ in range(3):
        world.tick()
    fix = got[-1]
    g = world.get_map().transform_to_geolocation(world.find_actor("gnss").get_transform().location)
    assert (g.latitude, g.longitude, g.altitude) == (fix.latitude, fix.longitude, fix.altitude)
    assert abs(g.latitude - 48.137) < 1e-3 and g.altitude == pytest.approx(522.5, abs=0.5)
    own = sensim.Map.open(os.path.join(MAPS, "town.xodr"))  # its header's +lat_0=49 +lon_0=8.4
    o = own.transform_to_geolocation(sensim.Location(0, 0, 3))
    assert o.latitude == pytest.approx(49.0, abs=1e-9) and o.longitude == pytest.approx(8.4, abs=1e-9)
    assert o.altitude == 3.0


def test_no_map_and_stale_maps(client):
    world = client.load_world()
    with pytest.raises(sensim.SensimError, match="no map"):
        world.get_map()
    world = client.load_world("town")
    m = world.get_map()
    world.reset()
    with pytest.raises(sensim.SensimError, match="reset"):
        m.get_spawn_points()
    assert world.get_map().get_spawn_points()
    with pytest.raises(sensim.SensimError, match="no map 'atlantis'"):
        client.load_world("atlantis")
