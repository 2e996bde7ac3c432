"""Reading sensim's outputs: streams of msgpack messages and batch manifests.

    import sensim
    for m in sensim.read("out/front.msgpack"):
        img = sensim.image(m)          # H x W x 4 uint8 (B, G, R, A), a view of the message
        metres = sensim.depth_metres(m)

Needs only msgpack and numpy (Debian's python3-msgpack and python3-numpy).
"""
from .stream import StreamError, read, read_all
from .arrays import (EVENT_DTYPE, LABEL_DTYPE, DEPTH_FAR, RADAR_DTYPE, RADAR_DETECTION_DTYPE, SEMANTIC_POINT_DTYPE,
                     depth, depth_metres, events, image, instance_ids, labels, lidar_points, point_channels,
                     point_times, radar_detections, radar_points, rgb, semantic_lidar_points, semantic_tags)
from .collision import COLLISION_DTYPE, collisions
from .batch import manifest, run_outputs

__all__ = ["StreamError", "read", "read_all", "EVENT_DTYPE", "LABEL_DTYPE", "DEPTH_FAR", "depth",
           "depth_metres", "events", "image", "instance_ids", "labels", "rgb", "semantic_tags", "RADAR_DTYPE",
           "RADAR_DETECTION_DTYPE", "SEMANTIC_POINT_DTYPE", "radar_detections", "radar_points", "lidar_points",
           "semantic_lidar_points", "point_channels", "point_times",
           "COLLISION_DTYPE", "collisions", "manifest", "run_outputs"]
