"""sensor.other.lane_invasion against a port of CARLA's own loop (issue 33 item 12).

CARLA computes lane invasion on the client: LaneInvasionSensor.cpp (LaneInvasionCallback::
Tick, MakeBounds) moves the four corners of the parent's box each tick and asks
LaneCrossingCalculator.cpp (Calculate, CrossingAtSameSection, IsOffRoad) for the markings each
corner's move crossed. Both are ported here on top of sensim's map queries (CARLA's
GetClosestWaypointOnRoad and GetWaypoint are get_waypoint with and without projection), fed the
parent's transform after every tick of the same scene, and the sensor's events must equal the
port's, tick for tick. The scene is a Town01-like road (driving lanes without paint, a 0.3 m
shoulder with a kerb mark, a sidewalk) that a car leaves to the right: CARLA reports the
lane's own marking, NONE, and never the kerb; sensim reported nothing, then Curb."""
import math
import os

import sensim
from sensim.map import LaneType

from conftest import scene_file

FLAGS = LaneType.Driving | LaneType.Bidirectional | LaneType.Biking | LaneType.Parking
NAMES = {0: "Other", 1: "Broken", 2: "Solid", 3: "SolidSolid", 4: "SolidBroken", 5: "BrokenSolid",
         6: "BrokenBroken", 7: "BottsDots", 8: "Grass", 9: "Curb", 10: "NONE"}

TOWN01_LIKE = """<?xml version="1.0"?>
<OpenDRIVE><header revMajor="1" revMinor="4" name="town01_like"/>
<road id="1" length="200" junction="-1"><planView>
<geometry s="0" x="0" y="0" hdg="0" length="200"><line/></geometry></planView>
<lanes><laneSection s="0">
<left><lane id="1" type="driving"><width sOffset="0" a="4" b="0" c="0" d="0"/><roadMark sOffset="0" type="none" color="white"/></lane></left>
<center><lane id="0" type="none"><roadMark sOffset="0" type="broken" color="yellow" width="0.125"/></lane></center>
<right>
<lane id="-1" type="driving"><width sOffset="0" a="4" b="0" c="0" d="0"/><roadMark sOffset="0" type="none" color="white"/></lane>
<lane id="-2" type="shoulder"><width sOffset="0" a="0.3" b="0" c="0" d="0"/><roadMark sOffset="0" type="curb" width="0.152"/></lane>
<lane id="-3" type="sidewalk"><width sOffset="0" a="4" b="0" c="0" d="0"/><roadMark sOffset="0" type="none" color="white"/></lane>
</right></laneSection></lanes></road></OpenDRIVE>
"""


def carla_calculate(m, origin, destination):
    """LaneCrossingCalculator::Calculate: the markings crossed from origin to destination."""
    w0 = m.get_waypoint(origin, True, FLAGS)
    w1 = m.get_waypoint(destination, True, FLAGS)
    if w0 is None or w1 is None:
        return []
    if w0.road_id != w1.road_id or w0.section_id != w1.section_id:
        return []
    if w0.is_junction or w1.is_junction:
        return []
    off0 = m.get_waypoint(origin, False, FLAGS) is None
    off1 = m.get_waypoint(destination, False, FLAGS) is None
    if off0 and off1:
        return []
    if w0.lane_id == w1.lane_id and not off0 and not off1:
        return []
    yaw = math.radians(w0.transform.rotation.yaw)
    ox, oy = math.cos(yaw), math.sin(yaw)
    dx, dy = destination.x - origin.x, destination.y - origin.y
    n = math.hypot(dx, dy) or 1.0
    dx, dy = dx / n, dy / n
    right = (-ox * dy + oy * dx) < 0
    # CrossingAtSameSection: GetMarkRecord's first is the lane's own (outer) mark, second the
    # inner lane's; in right-hand traffic the outer border is on the right of the travel
    own_w0, inner_w0 = w0.right_lane_marking, w0.left_lane_marking
    own_w1, inner_w1 = w1.right_lane_marking, w1.left_lane_marking
    if right:
        return [inner_w1 if off0 else own_w0]
    return [own_w1 if off0 else inner_w0]


def corners(t, box):
    """LaneInvasionCallback::MakeBounds: the box's corners, turned by yaw only."""
    yaw = math.radians(t.rotation.yaw)
    c, s = math.cos(yaw), math.sin(yaw)
    lx, ly = box.location.x, box.location.y
    ox = t.location.x + c * lx - s * ly
    oy = t.location.y + s * lx + c * ly
    oz = t.location.z + box.location.z
    out = []
    for sx, sy in ((1, 1), (-1, 1), (1, -1), (-1, -1)):
        x, y = sx * box.extent.x, sy * box.extent.y
        out.append(sensim.Location(ox + c * x - s * y, oy + s * x + c * y, oz))
    return out


def test_leaving_the_road_as_carla(client, out):
    xodr = os.path.join(out, "town01_like.xodr")
    with open(xodr, "w") as f:
        f.write(TOWN01_LIKE)
    scene = scene_file(out, "leave_road.yaml", f"""map: {xodr}
settings: {{fixed_delta_seconds: 0.05}}
actors:
  - {{name: ground, blueprint: static.ground, transform: {{location: [0, 0, -0.02]}}}}
  - name: hero
    blueprint: vehicle.sedan
    transform: {{location: [10, 2, 0.1]}}
    autopilot: {{route: [[30, 2, 0], [60, 7, 0], [120, 7, 0]], target_speed: 4}}
sensors:
  - {{name: lanes, blueprint: sensor.other.lane_invasion, attach_to: hero}}
""")
    world = client.load_scene(scene)
    m = world.get_map()
    hero = world.find_actor("hero")
    box = hero.bounding_box
    got = {}
    world.find_actor("lanes").listen(lambda ev: got.setdefault(ev.frame, [k.type for k in ev.crossed_lane_markings]))
    want, prev = {}, None
    for _ in range(400):
        frame = world.tick()
        now = corners(hero.get_transform(), box)
        if prev is not None and all(math.dist((a.x, a.y, a.z), (b.x, b.y, b.z)) >= 10 * 1.1920929e-07
                                    for a, b in zip(prev, now)):
            marks = [NAMES[int(k.type)] for a, b in zip(prev, now) for k in carla_calculate(m, a, b)]
            if marks:
                want[frame] = marks
        prev = now
    assert want, "the port saw no crossing: the car did not leave its lane"
    assert got == want
    flat = [t for ts in got.values() for t in ts]
    assert "NONE" in flat  # the unpainted edge, as CARLA reports it
    assert "Curb" not in flat  # never the kerb
    assert hero.get_transform().location.y > 4.3  # it did leave the road
    world.close()


def test_painted_rule_kept_by_attribute(client, out):
    """crossing_rule: painted keeps sensim's earlier rule: painted borders only."""
    xodr = os.path.join(out, "town01_like.xodr")
    with open(xodr, "w") as f:
        f.write(TOWN01_LIKE)
    scene = scene_file(out, "leave_road_painted.yaml", f"""map: {xodr}
settings: {{fixed_delta_seconds: 0.05}}
actors:
  - {{name: ground, blueprint: static.ground, transform: {{location: [0, 0, -0.02]}}}}
  - name: hero
    blueprint: vehicle.sedan
    transform: {{location: [10, 2, 0.1]}}
    autopilot: {{route: [[30, 2, 0], [60, 7, 0], [120, 7, 0]], target_speed: 4}}
sensors:
  - {{name: lanes, blueprint: sensor.other.lane_invasion, attach_to: hero, attributes: {{crossing_rule: painted}}}}
""")
    world = client.load_scene(scene)
    types = []
    world.find_actor("lanes").listen(lambda ev: types.extend(k.type for k in ev.crossed_lane_markings))
    for _ in range(400):
        world.tick()
    assert "NONE" not in types
    world.close()
