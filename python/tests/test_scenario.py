"""client.load_scenario (issue 34 item 5): an OpenSCENARIO file stepped from Python, its
parameters given as a dict, the ego under test driven by this program between ticks.

Ground truth as tests/integration/test_scenario_api.c: Ego (external controller, activated in the
Init) is put 0.3 m further each 0.01 s step (30 m/s); Lead drives at 20 m/s 60 m ahead; the
event fires when the headway (60 - 10 t) / 30 falls below the parameter HW, i.e. first at
t = 6 - 3 HW: 1.5 s for HW 1.5, 3.0 s for HW 1.0 (the step at that time or the next, positions
being sums of steps); the StopTrigger on the event's completion ends the storyboard then."""
import os

import pytest

import sensim
from sensim import SensimError

MAPS = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "maps"))
CAR = ("<Vehicle name='v' vehicleCategory='car'><BoundingBox><Center x='1.4' y='0' z='0.75'/>"
       "<Dimensions width='1.9' length='4.6' height='1.5'/></BoundingBox><Performance maxSpeed='70' "
       "maxAcceleration='10' maxDeceleration='10'/></Vehicle>")


def lane(s):
    return (f"<TeleportAction><Position><LanePosition roadId='1' laneId='-3' s='{s}' offset='0'/></Position>"
            "</TeleportAction>")


XOSC = f"""<OpenSCENARIO><FileHeader revMajor='1' revMinor='2' date='' description='' author=''/>
<ParameterDeclarations><ParameterDeclaration name='HW' parameterType='double' value='1.5'/>
<ParameterDeclaration name='Mark' parameterType='string' value='no'/></ParameterDeclarations>
<RoadNetwork><LogicFile filepath='{MAPS}/highway.xodr'/></RoadNetwork><Entities>
<ScenarioObject name='Ego'>{CAR}<ObjectController><Controller name='me'><Properties><Property
 name='sensimController' value='external'/></Properties></Controller></ObjectController></ScenarioObject>
<ScenarioObject name='Lead'>{CAR}</ScenarioObject></Entities><Storyboard><Init><Actions>
<Private entityRef='Ego'><PrivateAction>{lane(10)}</PrivateAction><PrivateAction><ControllerAction>
<ActivateControllerAction longitudinal='true' lateral='true'/></ControllerAction></PrivateAction></Private>
<Private entityRef='Lead'><PrivateAction>{lane(70)}</PrivateAction><PrivateAction><LongitudinalAction>
<SpeedAction><SpeedActionDynamics dynamicsShape='step' value='0' dynamicsDimension='time'/>
<SpeedActionTarget><AbsoluteTargetSpeed value='20'/></SpeedActionTarget></SpeedAction></LongitudinalAction>
</PrivateAction></Private></Actions></Init>
<Story name='S'><Act name='A'><ManeuverGroup name='G' maximumExecutionCount='1'><Actors
 selectTriggeringEntities='false'><EntityRef entityRef='Lead'/></Actors><Maneuver name='M'><Event name='Close'
 priority='override'><Action name='Set'><GlobalAction><ParameterAction parameterRef='Mark'><SetAction value='yes'/>
</ParameterAction></GlobalAction></Action><StartTrigger><ConditionGroup><Condition name='Headway' delay='0'
 conditionEdge='rising'><ByEntityCondition><TriggeringEntities triggeringEntitiesRule='any'><EntityRef
 entityRef='Ego'/></TriggeringEntities><EntityCondition><TimeHeadwayCondition entityRef='Lead' value='$HW'
 freespace='false' rule='lessThan'/></EntityCondition></ByEntityCondition></Condition></ConditionGroup>
</StartTrigger></Event></Maneuver></ManeuverGroup></Act></Story><StopTrigger><ConditionGroup><Condition
 name='Done' delay='0' conditionEdge='rising'><ByValueCondition><StoryboardElementStateCondition
 storyboardElementType='event' storyboardElementRef='Close' state='completeState'/></ByValueCondition>
</Condition></ConditionGroup></StopTrigger></Storyboard></OpenSCENARIO>"""


@pytest.fixture(scope="module")
def xosc(tmp_path_factory):
    p = tmp_path_factory.mktemp("scenario") / "external.xosc"
    p.write_text(XOSC)
    return str(p)


def drive(world):
    """Drives Ego at 30 m/s until the storyboard ends; returns (frames, info)."""
    ego = [a for a in world.get_actors() if a.attributes.get("role_name") == "Ego"][0]
    t0 = ego.get_transform()
    x0 = t0.location.x
    for frame in range(1000):
        info = world.get_scenario()
        if info["ended"]:
            return frame, info
        t = sensim.Transform(sensim.Location(x0 + 0.3 * (frame + 1), t0.location.y, t0.location.z), t0.rotation)
        ego.set_target_transform(t)
        world.tick()
        assert abs(ego.get_transform().location.x - t.location.x) < 1e-9, "the storyboard moved the external Ego"
    raise AssertionError("the storyboard never ended")


@pytest.mark.parametrize("hw, when", [(None, 1.5), (1.0, 3.0)])
def test_load_scenario_ego_under_test(xosc, hw, when):
    client = sensim.Client(quiet=True, threads=1)
    params = {"HW": hw} if hw is not None else None
    world = client.load_scenario(xosc, parameters=params, overrides={"settings.fixed_delta_seconds": 0.01})
    info = world.get_scenario()
    assert info["loaded"] and not info["ended"] and info["ended_by"] == ""
    frames, info = drive(world)
    assert info["completed"] and info["ended_by"] == "StopTrigger" and info["stop_condition"] == "Done", info
    assert when - 1e-9 <= info["time"] <= when + 0.01 + 1e-9, info
    assert round(when / 0.01) <= frames <= round(when / 0.01) + 1
    assert info["log_messages"] > 0
    world.close()


def test_load_scenario_refuses_undeclared_parameter(xosc):
    client = sensim.Client(quiet=True, threads=1)
    with pytest.raises(SensimError, match="NoSuch"):
        client.load_scenario(xosc, parameters={"NoSuch": 1})
    with pytest.raises(ValueError):
        client.load_scenario(xosc, parameters={"a=b": 1})


def test_plain_scene_has_no_scenario():
    client = sensim.Client(quiet=True, threads=1)
    world = client.load_world()
    info = world.get_scenario()
    assert not info["loaded"] and not info["ended"]
    world.close()
