"""CARLA's world.cast_ray, project_point and ground_projection (0.9.14+) on the engine's ray
index (sn_engine_ray_batch, the same queries sensors make): every surface of the world —
the map's roads, sidewalks and marks, scenery, props, vehicles, walkers — with its semantic
tag as a carla.CityObjectLabel."""
from __future__ import annotations

import ctypes
import math

import numpy as np

from . import _lib
from ._common import _err
from ._lib import SensimError, check
from .debug import CityObjectLabel, LabelledPoint
from .geom import Location

__all__ = ["cast_ray", "project_point", "ground_projection", "cast_rays", "RAY_FIELDS"]

_MAX_HITS = 4096  # surfaces one cast_ray reports (sn_ray_query.max_hits); more are counted, not returned
_SN_RAY_CLOSEST, _SN_RAY_ALL, _SN_RAY_ANY, _SN_RAY_EVERY = 0, 1, 2, 3
# cast_rays' fields: name -> (sn_ray_field bit, sn_ray_compact member, numpy dtype of the C array,
# values per ray). "hit" is written as uint8 0/1 and handed back as a bool view of it.
RAY_FIELDS = {
    "hit": (1 << 0, "hit", np.uint8, 1),
    "distance": (1 << 1, "distance", np.float32, 1),
    "actor": (1 << 2, "actor_id", np.uint32, 1),
    "tag": (1 << 3, "semantic_tag", np.uint8, 1),
    "normal": (1 << 4, "normal", np.float32, 3),
    "reflectivity": (1 << 5, "reflectivity", np.float32, 1),
}
_MAX_RAYS = 0xFFFFFFFF  # n is a uint32_t


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


def _points(name: str, a) -> np.ndarray:
    try:
        v = np.asarray(a, dtype=np.float64)
    except (TypeError, ValueError) as ex:
        raise ValueError(f"cast_rays: {name} must be numbers, an N x 3 array ({ex})") from None
    if v.ndim != 2 or v.shape[1] != 3:
        raise ValueError(f"cast_rays: {name} must be an N x 3 array, not shape {v.shape}")
    if not np.isfinite(v).all():
        raise ValueError(f"cast_rays: {name} must be finite (row {int(np.argmin(np.isfinite(v).all(axis=1)))} is not)")
    return v


def cast_rays(world, origins, directions, max_distance=10000.0, fields=None, any_hit: bool = False) -> dict:
    """N rays in one sn_engine_ray_batch_compact call, the GIL released while it runs: the
    nearest hit of each (project_point's answer), or with any_hit whether anything lies along it
    (SN_RAY_ANY, "hit" only). origins and directions are N x 3 (the frame of Location, no
    conversion); directions need not be unit, a zero one hits nothing; max_distance is metres,
    a number or N of them, each > 0. Returns {field: array} for the fields asked (RAY_FIELDS;
    default ("distance",), or ("hit",) with any_hit): distance float32 (-1 for a miss), actor
    uint32 (0 for a miss and the map), tag uint8 (a CityObjectLabel value, 0 for a miss),
    normal N x 3 float32, reflectivity float32, hit bool."""
    if fields is None:
        fields = ("hit",) if any_hit else ("distance",)
    if isinstance(fields, str):
        fields = (fields,)
    fields = tuple(fields)
    unknown = [f for f in fields if f not in RAY_FIELDS]
    if unknown or not fields:
        raise ValueError(f"cast_rays: fields must be some of {tuple(RAY_FIELDS)}, not {fields!r}")
    if any_hit and set(fields) != {"hit"}:
        raise ValueError("cast_rays: any_hit answers the field 'hit' only (the search stops at the first hit found)")
    o, d = _points("origins", origins), _points("directions", directions)
    if len(o) != len(d):
        raise ValueError(f"cast_rays: origins has {len(o)} rows, directions {len(d)}")
    n = len(o)
    if n > _MAX_RAYS:
        raise ValueError(f"cast_rays: at most {_MAX_RAYS} rays a call, not {n}")
    try:
        reach = np.asarray(max_distance, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError("cast_rays: max_distance must be a number or N numbers") from None
    if reach.ndim > 1 or (reach.ndim == 1 and len(reach) != n):
        raise ValueError(f"cast_rays: max_distance must be a number or {n} numbers, not shape {reach.shape}")
    if not (np.isfinite(reach).all() and (reach > 0).all()):
        raise ValueError("cast_rays: max_distance must be finite and > 0")
    out = {f: np.empty((n, 3) if RAY_FIELDS[f][3] == 3 else n, dtype=RAY_FIELDS[f][2]) for f in fields}
    if n:
        L = _lib.lib()
        if not hasattr(L.raw, "sn_engine_ray_batch_compact"):
            raise SensimError("cast_rays: this libsensim has no sn_engine_ray_batch_compact (sensim 0.1, ABI 1.6)", -1)
        # sn_ray is 7 doubles (origin, direction, max_distance): the rays are built in one array
        rays = np.empty((n, 7), dtype=np.float64)
        rays[:, 0:3], rays[:, 3:6], rays[:, 6] = o, d, reach
        q = _lib.RayQuery(ctypes.sizeof(_lib.RayQuery), ctypes.sizeof(_lib.Ray), ctypes.sizeof(_lib.RayResult),
                          ctypes.sizeof(_lib.RayHit), _SN_RAY_ANY if any_hit else _SN_RAY_CLOSEST,
                          None, 0, 0, 0, None, 0)
        c = _lib.RayCompact(ctypes.sizeof(_lib.RayCompact), 0)
        for f, a in out.items():
            bit, member, _, _ = RAY_FIELDS[f]
            c.fields |= bit
            setattr(c, member, a.ctypes.data)
        err = _err()
        # a CDLL call (not QUICK): ctypes releases the GIL around it; the engine's lock is held
        check(L.sn_engine_ray_batch_compact(world._engine(), ctypes.byref(q), rays.ctypes.data, n,
                                            ctypes.byref(c), ctypes.byref(err)), err)
    if "hit" in out:
        out["hit"] = out["hit"].view(np.bool_)
    return out
