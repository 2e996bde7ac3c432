"""CARLA's world.cast_ray, project_point and ground_projection (0.9.14+) on the engine's ray
index (sn_engine_ray_batch, the same queries sensors make): every surface of the world —
the map's roads, sidewalks and marks, scenery, props, vehicles, walkers — with its semantic
tag as a carla.CityObjectLabel."""
from __future__ import annotations

import ctypes
import math

from . import _lib
from ._common import _err
from ._lib import check
from .debug import CityObjectLabel, LabelledPoint
from .geom import Location

__all__ = ["cast_ray", "project_point", "ground_projection"]

_MAX_HITS = 4096  # surfaces one cast_ray reports (sn_ray_query.max_hits); more are counted, not returned
_SN_RAY_CLOSEST, _SN_RAY_ALL, _SN_RAY_EVERY = 0, 1, 3


def _label(tag: int):
    try:
        return CityObjectLabel(tag)
    except ValueError:
        return CityObjectLabel.NONE


def _point(h) -> LabelledPoint:
    return LabelledPoint(Location(h.point.x, h.point.y, h.point.z), _label(h.semantic_tag))


def _finite(*v: float) -> bool:
    return all(math.isfinite(x) for x in v)


def _trace(world, origin, direction, distance: float, mode: int, max_hits: int = 0):
    q = _lib.RayQuery(ctypes.sizeof(_lib.RayQuery), ctypes.sizeof(_lib.Ray), ctypes.sizeof(_lib.RayResult),
                      ctypes.sizeof(_lib.RayHit), mode, None, 0, 0, 0, None, max_hits)
    hits = (_lib.RayHit * max(1, max_hits))()
    if max_hits:
        q.hits = ctypes.cast(hits, ctypes.POINTER(_lib.RayHit))
    ray = _lib.Ray(_lib.Vec3(origin.x, origin.y, origin.z), _lib.Vec3(direction.x, direction.y, direction.z),
                   float(distance))
    res, err = _lib.RayResult(), _err()
    check(_lib.lib().sn_engine_ray_batch(world._engine(), ctypes.byref(q), ctypes.byref(ray), 1,
                                         ctypes.byref(res), ctypes.byref(err)), err)
    return res, hits


def cast_ray(world, initial_location, final_location) -> list:
    """Every surface the segment enters, nearest first, as CARLA's (its overlap trace returns a
    LabelledPoint per component met): each actor, and the map's geometry (roads, sidewalks,
    kerbs, marks, scenery) wherever the segment meets it, so a ray along a street reports each
    kerb and mark it passes, not one point for the whole map (sn_ray_mode SN_RAY_EVERY). Where
    the ray leaves a solid is not reported; a segment starting inside an actor reports it at its
    start, as Unreal's initial overlap. At most 4096 points."""
    a, b = initial_location, final_location
    d = Location(b.x - a.x, b.y - a.y, b.z - a.z)
    length = math.sqrt(d.x * d.x + d.y * d.y + d.z * d.z)
    if not _finite(a.x, a.y, a.z, b.x, b.y, b.z):
        raise ValueError("cast_ray: the locations must be finite")
    if length == 0:
        return []
    res, hits = _trace(world, a, d, length, _SN_RAY_EVERY, _MAX_HITS)
    return [_point(hits[i]) for i in range(min(res.n_hits, _MAX_HITS))]


def project_point(world, location, direction, search_distance: float = 10000.0):
    """The first surface met from `location` along `direction` within search_distance
    (LabelledPoint), or None."""
    if not _finite(location.x, location.y, location.z, direction.x, direction.y, direction.z, search_distance):
        raise ValueError("project_point: location, direction and search_distance must be finite")
    if search_distance <= 0 or (direction.x, direction.y, direction.z) == (0, 0, 0):
        return None
    res, _ = _trace(world, location, direction, search_distance, _SN_RAY_CLOSEST)
    return _point(res.hit) if res.n_hits else None


def ground_projection(world, location, search_distance: float = 10000.0):
    """project_point straight down (CARLA's ground_projection)."""
    return project_point(world, location, Location(0, 0, -1), search_distance)
