"""CARLA's walker bones (0.9.13+): walker.get_bones(), set_bones(WalkerBoneControlIn),
blend_pose(f), show_pose(), hide_pose(), get_pose_from_animation(), and the classes
WalkerBoneControlIn, WalkerBoneControlOut, BoneTransformDataOut.

sensim's walkers have no skinned mesh: each carries a skeleton of CARLA's bone names (those of
its `crl_*` rig that CARLA's examples read: hips, spine, neck, head, eyes, arms, hands with five
fingers, legs, feet, toes) in a standing rest pose scaled to the walker's height, with its feet
at the bottom of the box. set_bones poses bones (transforms relative to their parent, as
CARLA's); blend_pose(f) mixes the rest pose (0) with that custom pose (1). Bones are
kinematic data only: cameras draw the walker's procedural body, which does not move its limbs."""
from __future__ import annotations

import math

from .geom import Location, Rotation, Transform
from .spectator import compose

__all__ = ["WalkerBoneControlIn", "WalkerBoneControlOut", "BoneTransformDataOut", "BONES", "WalkerPose"]

_H = 1.8  # the rest pose's height (m); scaled to each walker's box
# (name, parent, x forward, y right, z up) in metres above the feet, a 1.8 m adult standing.
_REST = [("crl_root", None, 0, 0, 0), ("crl_hips__C", "crl_root", 0, 0, 0.95),
         ("crl_spine__C", "crl_hips__C", 0, 0, 1.10), ("crl_spine01__C", "crl_spine__C", 0, 0, 1.30),
         ("crl_neck__C", "crl_spine01__C", 0, 0, 1.52), ("crl_Head__C", "crl_neck__C", 0, 0, 1.62),
         ("crl_eye__L", "crl_Head__C", 0.09, -0.03, 1.68), ("crl_eye__R", "crl_Head__C", 0.09, 0.03, 1.68)]
for _s, _y in (("L", -1), ("R", 1)):
    _REST += [(f"crl_shoulder__{_s}", "crl_spine01__C", 0, 0.08 * _y, 1.42),
              (f"crl_arm__{_s}", f"crl_shoulder__{_s}", 0, 0.19 * _y, 1.42),
              (f"crl_foreArm__{_s}", f"crl_arm__{_s}", 0, 0.22 * _y, 1.13),
              (f"crl_hand__{_s}", f"crl_foreArm__{_s}", 0, 0.24 * _y, 0.87)]
    for _f, _x in (("Thumb", 0.035), ("Index", 0.02), ("Middle", 0.0), ("Ring", -0.015), ("Pinky", -0.03)):
        _base = 0.84 if _f == "Thumb" else 0.80
        _prev = f"crl_hand__{_s}"
        for _k, _suffix in enumerate(("", "01", "02", "End")):
            _n = f"crl_hand{_f}{_suffix}__{_s}"
            _REST.append((_n, _prev, _x + (0.01 * _k if _f == "Thumb" else 0), 0.245 * _y, _base - 0.025 * _k))
            _prev = _n
    _REST += [(f"crl_thigh__{_s}", "crl_hips__C", 0, 0.09 * _y, 0.92),
              (f"crl_leg__{_s}", f"crl_thigh__{_s}", 0, 0.09 * _y, 0.50),
              (f"crl_foot__{_s}", f"crl_leg__{_s}", 0, 0.09 * _y, 0.08),
              (f"crl_toe__{_s}", f"crl_foot__{_s}", 0.12, 0.09 * _y, 0.02),
              (f"crl_toeEnd__{_s}", f"crl_toe__{_s}", 0.20, 0.09 * _y, 0.02)]
BONES = [b[0] for b in _REST]
_PARENT = {b[0]: b[1] for b in _REST}
_POS = {b[0]: (b[2], b[3], b[4]) for b in _REST}


class BoneTransformDataOut:
    """One bone: `name`, and its transform in the world, in the walker's frame (`component`) and
    relative to its parent bone (`relative`)."""
    __slots__ = ("name", "world", "component", "relative")

    def __init__(self, name: str, world: Transform, component: Transform, relative: Transform):
        self.name, self.world, self.component, self.relative = name, world, component, relative

    def __repr__(self) -> str:
        return f"BoneTransformDataOut(name={self.name!r}, world={self.world!r})"


class WalkerBoneControlOut:
    """What walker.get_bones() returns: `bone_transforms`, a list of BoneTransformDataOut."""

    def __init__(self, bone_transforms=None):
        self.bone_transforms = list(bone_transforms or [])


class WalkerBoneControlIn:
    """What walker.set_bones() takes: `bone_transforms`, (name, Transform relative to the parent
    bone) pairs."""

    def __init__(self, bone_transforms=None):
        self.bone_transforms = list(bone_transforms or [])


def _lerp(a: Transform, b: Transform, f: float) -> Transform:
    def ang(x, y):  # the short way round
        return x + ((y - x + 180.0) % 360.0 - 180.0) * f
    la, lb, ra, rb = a.location, b.location, a.rotation, b.rotation
    return Transform(Location(la.x + (lb.x - la.x) * f, la.y + (lb.y - la.y) * f, la.z + (lb.z - la.z) * f),
                     Rotation(ang(ra.pitch, rb.pitch), ang(ra.yaw, rb.yaw), ang(ra.roll, rb.roll)))


class WalkerPose:
    """One walker's skeleton: the rest pose at its height, the custom pose, the blend."""

    def __init__(self, height: float, half_height: float):
        s = height / _H
        self._rest: dict[str, Transform] = {}
        for n in BONES:
            p, q = _POS[n], _POS[_PARENT[n]] if _PARENT[n] else (0.0, 0.0, 0.0)
            base = -half_height if _PARENT[n] is None else 0.0  # root at the feet, the box's bottom
            self._rest[n] = Transform(Location((p[0] - q[0]) * s, (p[1] - q[1]) * s, (p[2] - q[2]) * s + base))
        self._custom: dict[str, Transform] = dict(self._rest)
        self.blend = 0.0

    def set_bones(self, control: WalkerBoneControlIn) -> None:
        for name, t in control.bone_transforms:
            if name not in self._rest:
                raise IndexError(f"set_bones: no bone named {name!r} (sensim's bones: skeleton.BONES)")
            if not all(math.isfinite(v) for v in (t.location.x, t.location.y, t.location.z, t.rotation.pitch,
                                                  t.rotation.yaw, t.rotation.roll)):
                raise ValueError(f"set_bones: the transform of {name!r} must be finite")
            self._custom[name] = Transform(Location(t.location.x, t.location.y, t.location.z),
                                           Rotation(t.rotation.pitch, t.rotation.yaw, t.rotation.roll))

    def from_animation(self) -> None:
        """The custom pose becomes the animation's (the rest pose: sensim's walkers have no animation)."""
        self._custom = dict(self._rest)

    def bones(self, actor_transform: Transform) -> WalkerBoneControlOut:
        comp: dict[str, Transform] = {}
        out = []
        for n in BONES:
            rel = _lerp(self._rest[n], self._custom[n], self.blend) if self.blend else self._rest[n]
            parent = _PARENT[n]
            c = compose(comp[parent], rel) if parent else rel
            comp[n] = c
            out.append(BoneTransformDataOut(n, compose(actor_transform, c), c, rel))
        return WalkerBoneControlOut(out)
