"""sensim from Python: drive the engine in closed loop in CARLA's shape, and read its outputs.

Closed loop (ctypes over libsensim; `import sensim as carla` runs CARLA scripts' calls):

    import sensim as carla
    client = carla.Client()
    world = client.load_world("maps/town.xodr")       # or client.load_scene("scenes/crash.yaml")
    car = world.spawn_actor(world.get_blueprint_library().find("vehicle.sedan"),
                            world.get_map().get_spawn_points()[0])
    car.apply_control(carla.VehicleControl(throttle=0.6))
    world.tick()

Reading outputs (needs only msgpack and numpy):

    for m in sensim.read("out/front.msgpack"):
        img = sensim.image(m)          # H x W x 4 uint8 (B, G, R, A), a view of the message

An RL environment with Gymnasium's interface: sensim.env.SensimEnv. docs/python.md has it all.
The library is found from $SENSIM_LIBRARY, the installed prefix, or a build folder of the
source tree (loaded at the first Client, so the reader works without it).
"""
from .stream import StreamError, read, read_all
from .arrays import (EVENT_DTYPE, LABEL_DTYPE, DEPTH_FAR, RADAR_DTYPE, RADAR_DETECTION_DTYPE, SEMANTIC_POINT_DTYPE,
                     ACTOR_DTYPE, actors, depth, depth_metres, events, image, instance_ids, labels, lidar_points, optical_flow,
                     optical_flow_pixels, point_channels,
                     point_times, radar_detections, radar_points, rgb, semantic_lidar_points, semantic_tags)
from .collision import COLLISION_DTYPE, collisions
from .batch import manifest, run_outputs
from ._lib import SensimError
from .geom import (BoundingBox, GeoLocation, Location, Rotation, Transform, Vector2D, Vector3D,
                   VehicleAckermannControl, VehicleControl, WalkerControl)
from .debug import CityObjectLabel, Color, DebugHelper, LabelledPoint, MapLayer
from .physics import GearPhysicsControl, VehiclePhysicsControl, WheelPhysicsControl
from .snapshot import ActorSnapshot
from .gbuffer import GBufferTextureID
from . import command
from .client import (Actor, ActorAttribute, ActorAttributeType, ActorBlueprint, ActorList, AttachmentType,
                     BlueprintLibrary, Client, Sensor, Timestamp, Vehicle, VehicleLightState, VehicleWheelLocation,
                     Walker, World, WorldSettings, WorldSnapshot)
from .data import (GnssMeasurement, IMUMeasurement, LidarDetection, LidarMeasurement, ObstacleDetectionEvent,
                   OpticalFlowImage, RadarDetection, RadarMeasurement, SemanticLidarMeasurement)
from .data import (CollisionEvent, ColorConverter, DVSEvent, DVSEventArray, Image, LaneInvasionEvent,
                   RssResponse, SensorData, V2XData, V2XEvent)
from .map import Junction, LaneChange, LaneMarking, LaneMarkingColor, LaneMarkingType, LaneType, Map, Waypoint
from .weather import WeatherParameters
from .walkers import WalkerAIController
from .skeleton import BoneTransformDataOut, WalkerBoneControlIn, WalkerBoneControlOut
from .traffic import Landmark, LandmarkType, TrafficLight, TrafficLightState, TrafficManager, TrafficSign



def __getattr__(name: str):
    """sensim.__version__: libsensim's sn_version(), i.e. meson.build's project version (no
    copy here to drift); loaded on first use, so the stream reader still imports without it."""
    if name == "__version__":
        from . import _lib
        return _lib.lib().sn_version().decode()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["StreamError", "read", "read_all", "EVENT_DTYPE", "LABEL_DTYPE", "DEPTH_FAR", "depth",
           "depth_metres", "events", "image", "instance_ids", "labels", "rgb", "semantic_tags", "RADAR_DTYPE",
           "RADAR_DETECTION_DTYPE", "SEMANTIC_POINT_DTYPE", "radar_detections", "radar_points", "lidar_points",
           "semantic_lidar_points", "point_channels", "point_times", "optical_flow", "optical_flow_pixels",
           "COLLISION_DTYPE", "collisions", "manifest", "run_outputs", "ACTOR_DTYPE", "actors",
           "SensimError", "BoundingBox", "Location", "Rotation", "Transform", "Vector2D", "Vector3D",
           "VehicleControl", "WalkerControl", "Actor", "ActorAttribute", "ActorAttributeType", "ActorBlueprint",
           "ActorList", "AttachmentType", "BlueprintLibrary", "Client", "Sensor", "Timestamp", "Vehicle",
           "VehicleLightState", "VehicleWheelLocation",
           "Walker", "World", "WorldSettings", "WorldSnapshot", "CollisionEvent", "ColorConverter", "DVSEvent",
           "DVSEventArray", "Image", "LaneInvasionEvent", "RssResponse", "SensorData", "V2XData", "V2XEvent", "LaneChange",
           "Junction", "LaneMarking", "LaneMarkingColor", "LaneMarkingType", "LaneType", "Map", "Waypoint",
           "GnssMeasurement", "IMUMeasurement", "LidarDetection", "LidarMeasurement", "ObstacleDetectionEvent",
           "OpticalFlowImage", "RadarDetection", "RadarMeasurement", "SemanticLidarMeasurement", "WeatherParameters",
           "GeoLocation", "VehicleAckermannControl", "CityObjectLabel", "Color", "DebugHelper", "LabelledPoint",
           "MapLayer", "GearPhysicsControl", "VehiclePhysicsControl", "WheelPhysicsControl", "ActorSnapshot",
           "command", "VehicleDoor", "VehicleFailureState", "WalkerAIController",
           "Landmark", "LandmarkType", "TrafficLight", "TrafficLightState", "TrafficManager", "TrafficSign",
           "BoneTransformDataOut", "WalkerBoneControlIn", "WalkerBoneControlOut", "GBufferTextureID"]


class VehicleDoor:
    """CARLA's carla.VehicleDoor (open_door/close_door are accepted; sensim's vehicles have none)."""
    FL, FR, RL, RR, Hood, Trunk, All = 0, 1, 2, 3, 4, 5, 6


class VehicleFailureState:
    NONE, Rollover, Engine, TirePuncture = 0, 1, 2, 3
