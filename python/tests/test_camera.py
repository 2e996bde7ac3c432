"""Camera images as numpy: the wall 11.5 m ahead of test_camera.c, through the Python reader."""
import os

import numpy as np

import sensim


def last(d, name):
    return sensim.read_all(os.path.join(d, name + ".msgpack"))[-1]


def test_image_is_a_view(camera_dir):
    m = last(camera_dir, "depth")
    img = sensim.image(m)
    assert img.shape == (240, 320, 4) and img.dtype == np.uint8
    assert not img.flags.owndata and not img.flags.writeable  # the message's bytes, not a copy
    assert np.shares_memory(img, np.frombuffer(m["raw_data"], np.uint8))
    assert (img[:, :, 3] == 255).all()


def test_wall_planar_depth(camera_dir):
    m = last(camera_dir, "depth")
    f = sensim.depth(m)
    assert f.shape == (240, 320) and f.dtype == np.float32 and not f.flags.owndata
    assert np.abs(f - 11.5).max() < 1e-3
    d24 = sensim.depth_metres(m)
    assert np.abs(d24 - 11.5).max() < 1e-3 + 1000 / 16777215
    # CARLA's formula by hand on one pixel: B, G, R bytes
    b, g, r = (int(v) for v in sensim.image(m)[120, 160, :3])
    assert d24[120, 160] == 1000 * (r + 256 * g + 65536 * b) / 16777215


def test_rgb_view_and_colour(camera_dir):
    m = last(camera_dir, "rgb")
    img, px = sensim.image(m), sensim.rgb(m)
    assert px.shape == (48, 64, 3) and np.shares_memory(px, img)
    assert (px == img[:, :, [2, 1, 0]]).all()
    # a lit blue-ish wall (color 40,120,200): blue strongest, red weakest everywhere
    assert (px[:, :, 2] > px[:, :, 1]).all() and (px[:, :, 1] > px[:, :, 0]).all()


def test_instance_segmentation(camera_dir):
    m = last(camera_dir, "inst")
    assert (sensim.semantic_tags(m) == 4).all()  # Wall in CARLA's table
    assert (sensim.instance_ids(m) == 1).all()   # the wall is the scene's first actor


def test_depth_missing_without_depth_float(camera_dir):
    m = last(camera_dir, "rgb")
    try:
        sensim.depth(m)
    except KeyError as e:
        assert "'depth'" in str(e)
    else:
        raise AssertionError("an rgb message has no depth")
