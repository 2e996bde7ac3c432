"""numpy views of the bins of sensim's messages (layouts in sensim/records.h and docs/world.md, "Messages").

Every view shares memory with the message's bytes (read-only); nothing is copied record by
record. Functions that decode (depth_metres, instance_ids) return new arrays.
"""
import numpy as np

# sensor.camera.dvs `events`: 13 packed bytes, CARLA's layout; `labels`: 5 packed bytes.
EVENT_DTYPE = np.dtype([("x", "<u2"), ("y", "<u2"), ("t", "<i8"), ("pol", "u1")])
LABEL_DTYPE = np.dtype([("tag", "u1"), ("id", "<u4")])
# sensor.other.radar `raw_data`: CARLA's RadarDetection, 4 little-endian float32 per detection
# (velocity m/s, negative when closing; azimuth and altitude rad; depth m).
RADAR_DTYPE = np.dtype([("velocity", "<f4"), ("azimuth", "<f4"), ("altitude", "<f4"), ("depth", "<f4")])
# sensim/records.h: the semantic lidar point (24 bytes) and the radar detection (16 bytes).
SEMANTIC_POINT_DTYPE = np.dtype([("x", "<f4"), ("y", "<f4"), ("z", "<f4"), ("cos_inc_angle", "<f4"),
                                 ("object_idx", "<u4"), ("object_tag", "<u4")])
RADAR_DETECTION_DTYPE = RADAR_DTYPE  # the same record under its sensim/records.h name
# sensim/records.h: sn_actor_record (112 bytes), the actors stream's record (docs/mcap.md).
ACTOR_DTYPE = np.dtype([("id", "<u4"), ("parent_id", "<u4"), ("kind", "u1"), ("semantic_tag", "u1"), ("reserved", "V6"),
                        ("location", "<f8", 3), ("rotation", "<f8", 3), ("box_location", "<f8", 3),
                        ("box_extent", "<f8", 3)])
# The 24-bit depth encoding is always over 1000 m, whatever the camera's max_depth.
DEPTH_FAR = 1000.0


def _bin(msg, key):
    b = msg.get(key)
    if b is None:
        raise KeyError(f"message of {msg.get('type', '?')} '{msg.get('sensor', '?')}' has no '{key}'")
    if not isinstance(b, (bytes, bytearray, memoryview)):
        raise TypeError(f"'{key}' is a {type(b).__name__}, not a bin")
    return b


def _size(msg, key, per_pixel):
    w, h = int(msg["width"]), int(msg["height"])
    b = _bin(msg, key)
    if len(b) != w * h * per_pixel:
        raise ValueError(f"'{key}' holds {len(b)} bytes, not {w}x{h}x{per_pixel}")
    return b, h, w


def image(msg):
    """A camera's `raw_data` as an H x W x 4 uint8 view, channels B, G, R, A (CARLA's order)."""
    b, h, w = _size(msg, "raw_data", 4)
    return np.frombuffer(b, np.uint8).reshape(h, w, 4)


def rgb(msg):
    """The same pixels as an H x W x 3 view in R, G, B order (a strided view, no copy)."""
    return image(msg)[:, :, 2::-1]


def optical_flow(msg):
    """sensor.camera.optical_flow: `raw_data` as an H x W x 2 float32 view in CARLA's units
    (normalised device coordinates, now minus previous frame, x right, y UP; docs/sensors/optical-flow.md)."""
    b, h, w = _size(msg, "raw_data", 8)
    return np.frombuffer(b, "<f4").reshape(h, w, 2)


def optical_flow_pixels(msg):
    """The same flow in pixels, image axes (x right, y down): (x * W / 2, -y * H / 2), float64."""
    f = optical_flow(msg)
    h, w = f.shape[:2]
    return np.stack([f[:, :, 0] * (w / 2.0), f[:, :, 1] * (-h / 2.0)], axis=-1)


def depth(msg):
    """A depth camera's `depth` bin (with depth_float: true): H x W float32 metres, a view."""
    b, h, w = _size(msg, "depth", 4)
    return np.frombuffer(b, "<f4").reshape(h, w)


def depth_metres(msg, far=DEPTH_FAR):
    """A depth camera's 24-bit `raw_data` decoded as CARLA does:
    metres = far * (R + 256 G + 65536 B) / (2^24 - 1), as H x W float64."""
    img = image(msg)
    code = img[:, :, 2].astype(np.uint32) | (img[:, :, 1].astype(np.uint32) << 8) | (img[:, :, 0].astype(np.uint32) << 16)
    return code * (far / 16777215.0)


def semantic_tags(msg):
    """Semantic and instance segmentation: the tag of each pixel (the R channel), an H x W view."""
    return image(msg)[:, :, 2]


def instance_ids(msg):
    """Instance segmentation: the low 16 bits of each pixel's actor id (G + 256 B), H x W uint16."""
    img = image(msg)
    return img[:, :, 1].astype(np.uint16) | (img[:, :, 0].astype(np.uint16) << 8)


def _records(msg, key, dtype):
    b = _bin(msg, key)
    if len(b) % dtype.itemsize:
        raise ValueError(f"'{key}' holds {len(b)} bytes, not a whole number of {dtype.itemsize}-byte records")
    return np.frombuffer(b, dtype)


def events(msg):
    """sensor.camera.dvs: the `events` bin as a structured view (x, y, t ns, pol), ordered by t."""
    return _records(msg, "events", EVENT_DTYPE)


def labels(msg):
    """sensor.camera.dvs with event_labels: (tag, id) of each event, in the events' order."""
    return _records(msg, "labels", LABEL_DTYPE)


def radar_detections(msg):
    """sensor.other.radar: the `raw_data` bin as a structured view (velocity, azimuth, altitude,
    depth), one record per hit in ray order; CARLA's np.frombuffer(raw_data, "f4").reshape(-1, 4)."""
    return _records(msg, "raw_data", RADAR_DTYPE)


def actors(msg):
    """sensor.other.actors: the `actors` bin as a structured view (ACTOR_DTYPE), one record per live
    actor in ascending id: id, parent_id, kind, semantic_tag, world location and rotation (pitch,
    yaw, roll, degrees), bounding box centre and half extents. msg["type_ids"] and msg["names"]
    hold each record's blueprint id and scene name, in the same order."""
    return _records(msg, "actors", ACTOR_DTYPE)


def radar_points(msg):
    """sensor.other.radar: each detection's hit point in the sensor frame (x forward, y right,
    z up), N x 3 float64, from depth, azimuth and altitude."""
    d = radar_detections(msg)
    depth, az, alt = (d[k].astype(np.float64) for k in ("depth", "azimuth", "altitude"))
    return np.stack([depth * np.cos(alt) * np.cos(az), depth * np.cos(alt) * np.sin(az), depth * np.sin(alt)], axis=1)


def lidar_points(msg):
    """sensor.lidar.ray_cast: `raw_data` (sn_point_xyzi) as an (N, 4) float32 view of x, y, z,
    intensity in the sensor's frame (CARLA's axes: x forward, y right, z up), channel by channel."""
    b = _bin(msg, "raw_data")
    if len(b) % 16:
        raise ValueError(f"'raw_data' holds {len(b)} bytes, not a whole number of 16-byte points")
    return np.frombuffer(b, "<f4").reshape(-1, 4)


def semantic_lidar_points(msg):
    """sensor.lidar.ray_cast_semantic: `raw_data` (sn_semantic_point) as a structured view of x, y,
    z, cos_inc_angle, object_idx, object_tag."""
    return _records(msg, "raw_data", SEMANTIC_POINT_DTYPE)


def point_channels(msg):
    """The channel of each point of a lidar message, from its `point_count` (points are written
    channel by channel): an int array as long as the points."""
    return np.repeat(np.arange(int(msg["channels"])), np.asarray(msg["point_count"], dtype=np.int64))


def point_times(msg):
    """A lidar with motion_distortion: `point_time_ns`, each point's time (int64 ns), a view."""
    return _records(msg, "point_time_ns", np.dtype("<i8"))
