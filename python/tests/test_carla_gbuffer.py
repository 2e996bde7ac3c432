"""CARLA's camera.listen_to_gbuffer (carla.GBufferTextureID) on sensim's renderer: every texture
arrives each frame with the camera's frame; SceneColor is the camera's image, SceneDepth the
depth of a wall 29.5 m ahead, GBufferA the wall's and the ground's normals, the stencils their
semantic tags, Velocity zero for a camera at rest, and the textures sensim cannot make black."""
import numpy as np
import pytest

import sensim

G = sensim.GBufferTextureID


def _scene(client):
    w = client.load_world()  # a ground plane at z = 0
    s = w.get_settings()
    s.synchronous_mode, s.fixed_delta_seconds = True, 0.05
    w.apply_settings(s)
    lib = w.get_blueprint_library()
    bp = lib.find("static.prop.box")
    bp.set_attribute("extent", "0.5,20,1.5")
    bp.set_attribute("semantic_tag", "Walls")
    w.spawn_actor(bp, sensim.Transform(sensim.Location(30, 0, 1.5)))
    cam_bp = lib.find("sensor.camera.rgb")
    cam_bp.set_attribute("image_size_x", "64")
    cam_bp.set_attribute("image_size_y", "48")
    cam_bp.set_attribute("fov", "90")
    cam = w.spawn_actor(cam_bp, sensim.Transform(sensim.Location(0, 0, 1.5)))
    return w, cam


def test_every_gbuffer_texture(client):
    w, cam = _scene(client)
    n_before = len(w.get_actors())
    got, frames = {t: [] for t in G}, []
    cam.listen(frames.append)
    for t in G:
        cam.listen_to_gbuffer(t, got[t].append)
        assert cam.is_listening_gbuffer(t)
    assert len(w.get_actors()) == n_before + 3  # depth, semantic segmentation, optical flow
    w.tick()
    w.tick()
    assert [f.frame for f in frames] == [1, 2]
    for t in G:
        assert [i.frame for i in got[t]] == [1, 2], t
        for i in got[t]:
            assert isinstance(i, sensim.Image) and (i.width, i.height) == (64, 48) and i.raw_data.size == 64 * 48 * 4
    img = frames[-1]
    assert np.array_equal(got[G.SceneColor][-1].array, img.array)
    # depth: the wall's face at x 29.5, level with the camera at the centre
    d = got[G.SceneDepth][-1].array.astype(np.float64)
    metres = (d[..., 2] + d[..., 1] * 256 + d[..., 0] * 65536) / (2 ** 24 - 1) * 1000
    assert metres[23:25, 31:33] == pytest.approx(29.5, abs=0.01)
    assert np.array_equal(got[G.CustomDepth][-1].array, got[G.SceneDepth][-1].array)
    # normals: the wall faces -x, the ground +z; (n + 1) / 2 * 255 in R, G, B
    nrm = got[G.GBufferA][-1].array.astype(int)
    assert list(nrm[24, 32, 2::-1]) == pytest.approx([0, 128, 128], abs=2)  # R G B of the wall
    assert list(nrm[46, 10, 2::-1]) == pytest.approx([128, 128, 255], abs=2)  # the ground
    assert (nrm[..., 3] == 255).all()
    # stencils: the semantic tags in R
    st = got[G.CustomStencil][-1].array
    assert st[24, 32, 2] == sensim.CityObjectLabel.Walls
    assert st[46, 10, 2] == sensim.CityObjectLabel.Ground
    assert np.array_equal(got[G.SceneStencil][-1].array, st)
    # a camera at rest in a still world: zero flow, 0.5 in R and G
    v = got[G.Velocity][-1].array
    assert (v[..., 2] == 128).all() and (v[..., 1] == 128).all()
    for t in (G.GBufferB, G.GBufferC, G.GBufferD, G.GBufferE, G.GBufferF, G.SSAO):
        assert not got[t][-1].raw_data.any(), t
    # the texture kept after its callback is its own (owned bytes)
    a0 = got[G.GBufferA][0].array.copy()
    w.tick()
    assert np.array_equal(got[G.GBufferA][0].array, a0)
    cam.stop_gbuffer(G.GBufferA)
    assert not cam.is_listening_gbuffer(G.GBufferA)
    w.tick()
    assert len(got[G.GBufferA]) == 3 and len(got[G.SceneDepth]) == 4
    # CARLA's tutorial saves them
    got[G.GBufferA][-1].save_to_disk(str(w._client._scratch("n.png", "")))
    cam.destroy()
    assert len(w.get_actors()) == n_before - 1  # the companions went with the camera


def test_gbuffer_refusals(client):
    w, cam = _scene(client)
    depth = w.spawn_actor(w.get_blueprint_library().find("sensor.camera.depth"), sensim.Transform())
    with pytest.raises(sensim.SensimError, match="sensor.camera.rgb only"):
        depth.listen_to_gbuffer(G.SceneColor, print)
    with pytest.raises(sensim.SensimError, match="GBufferTextureID"):
        cam.listen_to_gbuffer(13, print)
    with pytest.raises(TypeError):
        cam.listen_to_gbuffer(G.SceneColor, None)
    # without listen(): the textures still come, the camera is not "listening"
    got = []
    cam.listen_to_gbuffer(G.SceneColor, got.append)
    w.tick()
    assert len(got) == 1 and not cam.is_listening


def test_gbuffer_of_a_mounted_camera(client):
    """A camera on a car (CARLA's tutorial_gbuffer.py mounts it so): the textures are seen from
    the camera's own pose, frame after frame as the car drives."""
    w, _ = _scene(client)
    lib = w.get_blueprint_library()
    car = w.spawn_actor(lib.find("vehicle.tesla.model3"), sensim.Transform(sensim.Location(0, 5, 0.1), sensim.Rotation(yaw=20)))
    bp = lib.find("sensor.camera.rgb")
    bp.set_attribute("image_size_x", "32")
    bp.set_attribute("image_size_y", "24")
    cam = w.spawn_actor(bp, sensim.Transform(sensim.Location(x=1.5, z=2.4), sensim.Rotation(pitch=-15, yaw=5)), attach_to=car)
    color, depth = [], []
    cam.listen(color.append)
    cam.listen_to_gbuffer(G.SceneDepth, depth.append)
    car.apply_control(sensim.VehicleControl(throttle=0.8, steer=0.3))
    for _ in range(10):
        w.tick()
    assert len(color) == len(depth) == 10
    for c, d in zip(color, depth):
        assert c.frame == d.frame
        for k in ("x", "y", "z"):
            assert getattr(d.transform.location, k) == pytest.approx(getattr(c.transform.location, k), abs=1e-6)
        for k in ("pitch", "yaw", "roll"):
            assert getattr(d.transform.rotation, k) == pytest.approx(getattr(c.transform.rotation, k), abs=1e-6)
    assert color[-1].transform.location.distance(color[0].transform.location) > 0.2  # it moved
