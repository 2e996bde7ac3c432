"""world.cast_rays, the numpy batch over sn_engine_ray_batch_compact: on a box at a known place
its answers are the box's faces and project_point's, ray by ray; misses are -1; only the fields
asked come back; bad input is refused before the engine is called."""
import math

import numpy as np
import pytest

import sensim


def _box(w, x, y, z, extent, tag="Buildings"):
    bp = w.get_blueprint_library().find("static.prop.box")
    bp.set_attribute("extent", extent)
    bp.set_attribute("semantic_tag", tag)
    return w.spawn_actor(bp, sensim.Transform(sensim.Location(x, y, z)))


# A 1 x 1 x 2 m box on the ground plane (z = 0) at x = 10: x in [9.5, 10.5], y in [-0.5, 0.5], z in [0, 2].
ORIGINS = np.array([[0, 0, 1], [0, 0, 1], [0, 5, 1], [10, 0, 5], [3, 4, 7], [0, 0, 1], [0, 0, 1]], dtype=float)
DIRS = np.array([[1, 0, 0], [2, 0, 0], [1, 0, 0], [0, 0, -1], [0, 0, -1], [1, 0, 0], [0, 0, 0]], dtype=float)
REACH = np.array([100, 100, 100, 100, 100, 5, 100], dtype=float)
# the near face, the same with a direction of length 2, beside the box, its top, the ground, short of the box, no direction
DIST = [9.5, 9.5, -1, 3.0, 7.0, -1, -1]


def test_cast_rays_meet_the_box_and_agree_with_project_point(client):
    w = client.load_world()
    box = _box(w, 10, 0, 1.0, "0.5,0.5,1.0")
    r = w.cast_rays(ORIGINS, DIRS, REACH, fields=("hit", "distance", "actor", "tag", "normal", "reflectivity"))
    assert r["distance"].dtype == np.float32 and r["distance"].shape == (7,)
    assert r["normal"].dtype == np.float32 and r["normal"].shape == (7, 3)
    assert r["actor"].dtype == np.uint32 and r["tag"].dtype == np.uint8 and r["hit"].dtype == np.bool_
    assert r["distance"].tolist() == pytest.approx(DIST, abs=1e-5)
    assert r["hit"].tolist() == [d >= 0 for d in DIST]
    ground = int(r["actor"][4])  # the default world's ground plane is an actor of its own
    assert ground not in (0, box.id)
    assert r["actor"].tolist() == [box.id, box.id, 0, box.id, ground, 0, 0]
    B, G = int(sensim.CityObjectLabel.Buildings), int(sensim.CityObjectLabel.Ground)
    assert r["tag"].tolist() == [B, B, 0, B, G, 0, 0]
    assert r["normal"][0].tolist() == pytest.approx([-1, 0, 0]) and r["normal"][3].tolist() == pytest.approx([0, 0, 1])
    assert r["normal"][2].tolist() == [0, 0, 0] and r["reflectivity"][2] == 0
    # ray by ray, project_point (one ctypes call each) finds the same surface
    for i, (o, d, m) in enumerate(zip(ORIGINS, DIRS, REACH)):
        p = w.project_point(sensim.Location(*o), sensim.Vector3D(*d), float(m))
        if p is None:
            assert r["distance"][i] == -1 and not r["hit"][i], i
            continue
        assert r["distance"][i] == pytest.approx(math.dist(o, (p.location.x, p.location.y, p.location.z)), abs=1e-5), i
        assert r["tag"][i] == int(p.label), i
    # one max_distance for every ray; the default field is distance alone
    one = w.cast_rays(ORIGINS[:2], DIRS[:2], 9.0)
    assert set(one) == {"distance"} and one["distance"].tolist() == [-1, -1]
    assert w.cast_rays(ORIGINS[:2], DIRS[:2])["distance"].tolist() == pytest.approx([9.5, 9.5])


def test_cast_rays_returns_only_the_fields_asked_and_any_hit(client):
    w = client.load_world()
    _box(w, 10, 0, 1.0, "0.5,0.5,1.0")
    r = w.cast_rays(ORIGINS, DIRS, REACH, fields=("distance", "actor"))
    assert set(r) == {"distance", "actor"}
    assert set(w.cast_rays(ORIGINS, DIRS, REACH, fields="tag")) == {"tag"}
    a = w.cast_rays(ORIGINS, DIRS, REACH, any_hit=True)
    assert set(a) == {"hit"} and a["hit"].tolist() == [d >= 0 for d in DIST]
    # lists are taken as arrays; no rays, empty arrays
    assert w.cast_rays([[0, 0, 1]], [[1, 0, 0]], fields=["distance"])["distance"].tolist() == pytest.approx([9.5])
    e = w.cast_rays(np.zeros((0, 3)), np.zeros((0, 3)), fields=("distance", "normal"))
    assert e["distance"].shape == (0,) and e["normal"].shape == (0, 3)


@pytest.mark.parametrize("args, kw, msg", [
    ((np.zeros((2, 2)), np.zeros((2, 3))), {}, "origins must be an N x 3 array"),
    ((np.zeros((2, 3)), np.zeros(3)), {}, "directions must be an N x 3 array"),
    ((np.zeros((2, 3)), np.zeros((3, 3))), {}, "origins has 2 rows, directions 3"),
    ((np.array([[0, 0, math.nan]]), np.ones((1, 3))), {}, "origins must be finite"),
    ((np.zeros((1, 3)), np.array([[math.inf, 0, 0]])), {}, "directions must be finite"),
    ((np.zeros((1, 3)), [["a", 0, 0]]), {}, "directions must be numbers"),
    ((np.zeros((1, 3)), np.ones((1, 3)), 0), {}, "max_distance must be finite and > 0"),
    ((np.zeros((1, 3)), np.ones((1, 3)), -1), {}, "max_distance must be finite and > 0"),
    ((np.zeros((1, 3)), np.ones((1, 3)), math.nan), {}, "max_distance must be finite and > 0"),
    ((np.zeros((1, 3)), np.ones((1, 3)), [1, 2]), {}, "max_distance must be a number or 1 numbers"),
    ((np.zeros((1, 3)), np.ones((1, 3))), {"fields": ("distance", "colour")}, "fields must be some of"),
    ((np.zeros((1, 3)), np.ones((1, 3))), {"fields": ()}, "fields must be some of"),
    ((np.zeros((1, 3)), np.ones((1, 3))), {"fields": ("distance",), "any_hit": True}, "any_hit answers the field 'hit' only"),
])
def test_cast_rays_refuses_bad_input(client, args, kw, msg):
    w = client.load_world()
    with pytest.raises(ValueError, match=msg):
        w.cast_rays(*args, **kw)
