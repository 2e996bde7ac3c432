"""Reading sensim's outputs: streams of msgpack messages and batch manifests.

    import sensim
    for m in sensim.read("out/front.msgpack"):
        img = sensim.image(m)          # H x W x 4 uint8 (B, G, R, A), a view of the message
        metres = sensim.depth_metres(m)

Needs only msgpack and numpy (Debian's python3-msgpack and python3-numpy).
"""
from .stream import StreamError, read, read_all
from .arrays import (EVENT_DTYPE, LABEL_DTYPE, DEPTH_FAR, depth, depth_metres, events, image,
                     instance_ids, labels, rgb, semantic_tags, SEMANTIC_POINT_DTYPE, RADAR_DETECTION_DTYPE,
                     lidar_points, semantic_lidar_points, point_channels, point_times, radar_detections)
from .collision import COLLISION_DTYPE, collisions
from .batch import manifest, run_outputs

__all__ = ["StreamError", "read", "read_all", "EVENT_DTYPE", "LABEL_DTYPE", "DEPTH_FAR", "depth",
           "depth_metres", "events", "image", "instance_ids", "labels", "rgb", "semantic_tags",
           "COLLISION_DTYPE", "collisions", "manifest", "run_outputs", "SEMANTIC_POINT_DTYPE", "RADAR_DETECTION_DTYPE", "lidar_points", "semantic_lidar_points",
           "point_channels", "point_times", "radar_detections"]
