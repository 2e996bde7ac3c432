"""CARLA's G-buffer textures (camera.listen_to_gbuffer, carla.GBufferTextureID, 0.9.14+) on
sensim's renderer. CARLA hands out Unreal's deferred-shading buffers of an RGB camera's frame;
sensim has no such buffers, so each texture is made from what sensim renders, on the same
frame, as a carla.Image of the camera's size (B, G, R, A bytes):

  SceneColor     the camera's own image (its final colour: there is no pre-tonemap buffer)
  SceneDepth,    a depth camera's image at the camera's pose and size: CARLA's depth encoding
  CustomDepth    (R + G*256 + B*65536) / (2^24 - 1) * 1000 m
  SceneStencil,  a semantic segmentation camera's raw image: the semantic tag in R (CARLA
  CustomStencil  writes its tags to the custom stencil; Unreal's scene stencil is unused)
  GBufferA       world normals from that depth image, (n + 1) / 2 * 255 in R, G, B (Unreal's
                 GBufferA layout; CARLA's axes), A 255; where a neighbour lies behind a depth
                 step the other side is used
  Velocity       an optical flow camera's (x, y) flow, [-2, 2] mapped to 0..255 in R and G
  GBufferB..F,   black, as CARLA sends a texture that is not available ("GBufferE and F are
  SSAO           likely black", CARLA's tutorial_gbuffer.py)

The companion cameras (sensor.camera.depth / semantic_segmentation / optical_flow named
"<camera>.gbuffer_depth" ...) are spawned where the camera stands (on its parent, at its mount)
with its image size, fov and sensor_tick, at the first listen_to_gbuffer that needs them, and
destroyed with the camera. They are actors like any other (get_actors() lists them)."""
from __future__ import annotations

import copy
import enum
import math

import numpy as np

from ._common import CarlaEnum
from ._lib import SensimError

__all__ = ["GBufferTextureID", "listen", "stop", "is_listening"]


class GBufferTextureID(CarlaEnum, enum.IntEnum):
    """CARLA 0.9.14's carla.GBufferTextureID."""
    SceneColor = 0
    SceneDepth = 1
    SceneStencil = 2
    GBufferA = 3
    GBufferB = 4
    GBufferC = 5
    GBufferD = 6
    GBufferE = 7
    GBufferF = 8
    Velocity = 9
    SSAO = 10
    CustomDepth = 11
    CustomStencil = 12


_SOURCE = {GBufferTextureID.SceneDepth: "depth", GBufferTextureID.CustomDepth: "depth",
           GBufferTextureID.GBufferA: "depth", GBufferTextureID.SceneStencil: "semantic_segmentation",
           GBufferTextureID.CustomStencil: "semantic_segmentation", GBufferTextureID.Velocity: "optical_flow"}
_COPIED = ("image_size_x", "image_size_y", "fov", "sensor_tick")


def _state(cam) -> dict:
    st = cam._world.__dict__.setdefault("_gbuffers", {}).get(cam.id)
    if st is None:
        st = {"callbacks": {}, "companions": {}}
        cam._world._gbuffers[cam.id] = st
    return st


def _image(src, raw: np.ndarray):
    """An Image like `src` (frame, time, pose, size) holding raw (H x W x 4 uint8, B G R A)."""
    im = copy.copy(src)
    im.raw_data = np.ascontiguousarray(raw, np.uint8).reshape(-1)
    im.data = dict(src.data)
    im.data["raw_data"] = im.raw_data
    im.type_id = "sensor.camera.rgb"
    return im


def _call(cam, tex, img) -> None:
    cb = _state(cam)["callbacks"].get(tex)
    if cb is not None:
        cb(img)


def _on_color(cam, img) -> None:
    """The camera's own frame: SceneColor, and the black textures."""
    cbs = _state(cam)["callbacks"]
    if GBufferTextureID.SceneColor in cbs:
        _call(cam, GBufferTextureID.SceneColor, _image(img, img.array.copy()))
    black = None
    for tex in (GBufferTextureID.GBufferB, GBufferTextureID.GBufferC, GBufferTextureID.GBufferD,
                GBufferTextureID.GBufferE, GBufferTextureID.GBufferF, GBufferTextureID.SSAO):
        if tex in cbs:
            if black is None:
                black = np.zeros((img.height, img.width, 4), np.uint8)
            _call(cam, tex, _image(img, black))


def normals(depth_bgra: np.ndarray, fov: float, transform) -> np.ndarray:
    """World normals (H x W x 3, unit, CARLA's axes) of a depth image in CARLA's encoding seen
    with horizontal fov (degrees) from `transform`."""
    b = depth_bgra.astype(np.float64)
    d = (b[:, :, 2] + b[:, :, 1] * 256 + b[:, :, 0] * 65536) / (2 ** 24 - 1) * 1000.0
    h, w = d.shape
    f = w / (2 * math.tan(math.radians(fov) / 2))
    u = np.arange(w) - (w - 1) / 2
    v = np.arange(h) - (h - 1) / 2
    # camera frame (CARLA's): x forward (the planar depth), y right, z up
    P = np.stack([d, d * u[None, :] / f, -d * v[:, None] / f], axis=-1)

    def step(axis):
        fwd = np.diff(P, axis=axis, append=np.take(P, [-1], axis=axis) * 2 - np.take(P, [-2], axis=axis))
        back = np.diff(P, axis=axis, prepend=np.take(P, [0], axis=axis) * 2 - np.take(P, [1], axis=axis))
        # across a depth step one side jumps: take the shorter difference
        use_back = np.linalg.norm(back, axis=-1) < np.linalg.norm(fwd, axis=-1)
        return np.where(use_back[..., None], back, fwd)

    du, dv = step(1), step(0)  # along +u (right) and +v (down)
    n = np.cross(dv, du)  # (down) x (right) points toward the camera for a surface facing it
    n /= np.maximum(np.linalg.norm(n, axis=-1, keepdims=True), 1e-12)
    flip = np.sum(n * P, axis=-1) > 0  # face the camera
    n[flip] *= -1
    m = np.array(transform.get_matrix())[:3, :3]  # columns: the camera's x, y, z in the world
    return n @ m.T


def _on_depth(cam, img) -> None:
    cbs = _state(cam)["callbacks"]
    for tex in (GBufferTextureID.SceneDepth, GBufferTextureID.CustomDepth):
        if tex in cbs:
            _call(cam, tex, _image(img, img.array.copy()))
    if GBufferTextureID.GBufferA in cbs:
        n = normals(img.array, img.fov, img.transform)
        out = np.empty((img.height, img.width, 4), np.uint8)
        enc = np.clip(np.rint((n + 1) * 127.5), 0, 255).astype(np.uint8)
        out[:, :, 2], out[:, :, 1], out[:, :, 0], out[:, :, 3] = enc[:, :, 0], enc[:, :, 1], enc[:, :, 2], 255
        _call(cam, GBufferTextureID.GBufferA, _image(img, out))


def _on_semantic(cam, img) -> None:
    for tex in (GBufferTextureID.SceneStencil, GBufferTextureID.CustomStencil):
        if tex in _state(cam)["callbacks"]:
            _call(cam, tex, _image(img, img.array.copy()))


def _on_flow(cam, flow) -> None:
    if GBufferTextureID.Velocity not in _state(cam)["callbacks"]:
        return
    f = np.asarray(flow.raw_data, np.float32)
    out = np.zeros((flow.height, flow.width, 4), np.uint8)
    out[:, :, 2] = np.clip(np.rint((f[:, :, 0] * 0.25 + 0.5) * 255), 0, 255)
    out[:, :, 1] = np.clip(np.rint((f[:, :, 1] * 0.25 + 0.5) * 255), 0, 255)
    out[:, :, 3] = 255
    im = copy.copy(flow)
    im.__class__ = _image_class()
    _call(cam, GBufferTextureID.Velocity, _image(im, out))


def _image_class():
    from .data import Image
    return Image


def _mount(cam):
    """Where a companion goes to stand where the camera stands and move with it: the camera's
    parent and its mount (sensors carry no attachments)."""
    from .geom import Location, Rotation, Transform, _matrix
    w = cam._world
    for s, mount in w._spectator._attached:
        if s is cam:
            return w._spectator, mount
    t = cam.get_transform()
    p = cam.parent
    if p is None:
        return None, t
    pt = p.get_transform()
    a, b = _matrix(pt.rotation), _matrix(t.rotation)
    m = [[sum(a[k][r] * b[k][c] for k in range(3)) for c in range(3)] for r in range(3)]  # a^T b
    loc = pt.inverse_transform(Location(t.location.x, t.location.y, t.location.z))
    pitch = math.degrees(math.asin(max(-1.0, min(1.0, m[2][0]))))
    yaw = math.degrees(math.atan2(m[1][0], m[0][0]))
    roll = math.degrees(math.atan2(-m[2][1], m[2][2]))
    return p, Transform(loc, Rotation(pitch, yaw, roll))


def _companion(cam, kind: str):
    st = _state(cam)
    c = st["companions"].get(kind)
    if c is not None and c.is_alive:
        return c
    w = cam._world
    bp = w.get_blueprint_library().find(f"sensor.camera.{kind}")
    for k in _COPIED:
        if k in cam.attributes and bp.has_attribute(k):
            bp.set_attribute(k, str(cam.attributes[k]))
    parent, mount = _mount(cam)
    c = w.spawn_actor(bp, mount, attach_to=parent, name=f"{cam.name}.gbuffer_{kind}")
    handler = {"depth": _on_depth, "semantic_segmentation": _on_semantic, "optical_flow": _on_flow}[kind]
    w._listen_extra(c.name, lambda d, cam=cam, h=handler: h(cam, d))
    st["companions"][kind] = c
    return c


def listen(cam, texture, callback) -> None:
    """camera.listen_to_gbuffer(texture, callback)."""
    if cam.type_id != "sensor.camera.rgb":
        raise SensimError(f"listen_to_gbuffer: G-buffer textures are made for sensor.camera.rgb only "
                          f"(as CARLA's), not {cam.type_id}", -6)
    try:
        tex = GBufferTextureID(int(texture))
    except ValueError:
        raise SensimError(f"listen_to_gbuffer: {texture!r} is no GBufferTextureID (0..12)", -1) from None
    if not callable(callback):
        raise TypeError(f"listen_to_gbuffer: callback must be callable, not {type(callback).__name__}")
    if not cam.is_alive:
        raise SensimError(f"listen_to_gbuffer: sensor {cam.id} is not alive", -7)
    st = _state(cam)
    if not st.get("hooked"):
        cam._world._listen_extra(cam.name, lambda d, cam=cam: _on_color(cam, d))
        st["hooked"] = True
    if tex in _SOURCE:
        _companion(cam, _SOURCE[tex])
    st["callbacks"][tex] = callback


def stop(cam, texture) -> None:
    _state(cam)["callbacks"].pop(GBufferTextureID(int(texture)), None)


def is_listening(cam, texture) -> bool:
    return GBufferTextureID(int(texture)) in _state(cam)["callbacks"]


def destroy(cam) -> None:
    """The camera goes: its companions with it."""
    st = getattr(cam._world, "_gbuffers", {}).pop(cam.id, None)
    for c in (st or {}).get("companions", {}).values():
        if c.is_alive:
            c.destroy()
