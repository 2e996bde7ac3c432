"""Saved images in every format (issue 25 item 5), read back here without sensim's code:
PNGs through Python's zlib with the PNG filters undone here, PPM/PGM/PFM parsed here, each
against the pixels or depths of the stream the same run wrote (converters recomputed in numpy):
  - .png and .ppm hold the same picture (raw, cityscapes, logarithmic_depth);
  - .pgm holds depth at 16 bits (depth, logarithmic_depth) and segmentation tags at 8;
  - .pfm holds the float `depth` metres bottom row first (and n * 1000 without depth_float);
  - `sensim convert --format` writes the same bytes as `save:`; bad combinations exit 2;
  - the run's files are the same bytes run after run.
usage: saved_images.py SENSIM TMP_DIR"""
import os
import shutil
import struct
import subprocess
import sys
import zlib

import msgpack
import numpy as np

SENSIM, TMP = sys.argv[1], os.path.join(sys.argv[2], "saved_images")
failures = 0


def check(ok, what):
    global failures
    if not ok:
        failures += 1
        print("FAIL:", what)


CAM = "attach_to: car, transform: {location: [1.5, 0, 2.4]}"
ATTRS = "image_size_x: 96, image_size_y: 64, fov: 90"
SCENE = f"""settings: {{fixed_delta_seconds: 0.05, frames: 3, seed: 3}}
actors:
  - {{name: ground, blueprint: static.ground}}
  - {{name: wall, blueprint: static.building, transform: {{location: [30, 4, 5]}}, attributes: {{extent: "2,6,5"}}}}
  - {{name: car, blueprint: vehicle.sedan, transform: {{location: [0, 0, 0.5]}}}}
  - {{name: other, blueprint: vehicle.sedan, transform: {{location: [12, -2, 0.5]}}}}
sensors:
  - {{name: rgb, blueprint: sensor.camera.rgb, {CAM}, attributes: {{{ATTRS}}}, save: {{path: "rgb/%06d.png"}}}}
  - {{name: rgb2, blueprint: sensor.camera.rgb, {CAM}, attributes: {{{ATTRS}}}, save: {{path: "rgb2/%06d.ppm"}}}}
  - {{name: depth, blueprint: sensor.camera.depth, {CAM}, attributes: {{{ATTRS}, depth_float: true}},
     save: {{path: "depth/%06d.pgm", converter: depth}}}}
  - {{name: depthlog, blueprint: sensor.camera.depth, {CAM}, attributes: {{{ATTRS}}},
     save: {{path: "depthlog/%06d.pgm", converter: logarithmic_depth}}}}
  - {{name: depthlogpng, blueprint: sensor.camera.depth, {CAM}, attributes: {{{ATTRS}}},
     save: {{path: "depthlogpng/%06d.png", converter: logarithmic_depth}}}}
  - {{name: metres, blueprint: sensor.camera.depth, {CAM}, attributes: {{{ATTRS}, depth_float: true}},
     save: {{path: "metres/%06d.pfm"}}}}
  - {{name: metres24, blueprint: sensor.camera.depth, {CAM}, attributes: {{{ATTRS}}}, save: {{path: "metres24/%06d.pfm"}}}}
  - {{name: tags, blueprint: sensor.camera.semantic_segmentation, {CAM}, attributes: {{{ATTRS}}},
     save: {{path: "tags/%06d.pgm"}}}}
  - {{name: city, blueprint: sensor.camera.semantic_segmentation, {CAM}, attributes: {{{ATTRS}}},
     save: {{path: "city/%06d.png", converter: cityscapes}}}}
"""


def run(*args, expect=0):
    p = subprocess.run([SENSIM, *args], capture_output=True, text=True)
    check(p.returncode == expect, f"sensim {' '.join(args)}: exit {p.returncode}, not {expect}: {p.stderr.strip()}")
    return p


def messages(path):
    with open(path, "rb") as f:
        return list(msgpack.Unpacker(f, raw=False))


def read_png(path):
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    at, idat, w = 8, b"", 0
    while at < len(data):
        n, kind = struct.unpack(">I4s", data[at:at + 8])
        body = data[at + 8:at + 8 + n]
        check(zlib.crc32(kind + body) == struct.unpack(">I", data[at + 8 + n:at + 12 + n])[0], f"{path}: {kind} CRC")
        if kind == b"IHDR":
            w, h, depth, color = struct.unpack(">IIBB", body[:10])
            check((depth, color) == (8, 2), f"{path}: 8-bit RGB")
        elif kind == b"IDAT":
            idat += body
        at += 12 + n
    raw = np.frombuffer(zlib.decompress(idat), np.uint8).reshape(h, 1 + 3 * w)
    out = np.zeros((h, 3 * w), np.int32)
    for y in range(h):
        f, row = raw[y, 0], raw[y, 1:].astype(np.int32)
        up = out[y - 1] if y else np.zeros(3 * w, np.int32)
        if f == 0:
            out[y] = row
        elif f == 2:
            out[y] = (row + up) % 256
        elif f in (1, 3, 4):
            for x in range(3 * w):  # the left neighbour needs the row as it is rebuilt
                a = out[y, x - 3] if x >= 3 else 0
                b, c = up[x], (up[x - 3] if x >= 3 else 0)
                if f == 1:
                    pred = a
                elif f == 3:
                    pred = (a + b) // 2
                else:
                    p = a + b - c
                    pred = a if abs(p - a) <= abs(p - b) and abs(p - a) <= abs(p - c) else b if abs(p - b) <= abs(p - c) else c
                out[y, x] = (row[x] + pred) % 256
        else:
            check(False, f"{path}: filter {f}")
    return out.astype(np.uint8).reshape(h, w, 3)


def read_netpbm(path):
    data = open(path, "rb").read()
    fields, at = [], 0
    while len(fields) < 4:  # magic, width, height, maxval or scale, each ended by one whitespace
        end = at
        while data[end:end + 1] not in (b" ", b"\n"):
            end += 1
        fields.append(data[at:end].decode())
        at = end + 1
    magic, w, h, top = fields[0], int(fields[1]), int(fields[2]), fields[3]
    body = data[at:]
    if magic == "P6":
        return magic, top, np.frombuffer(body, np.uint8).reshape(h, w, 3)
    if magic == "P5":
        dt = np.dtype(">u2") if int(top) > 255 else np.uint8
        return magic, top, np.frombuffer(body, dt).reshape(h, w)
    return magic, top, np.frombuffer(body, "<f4").reshape(h, w)


def bgra(m):
    return np.frombuffer(m["raw_data"], np.uint8).reshape(m["height"], m["width"], 4)


def normalised(m):
    p = bgra(m).astype(np.uint32)
    return (p[..., 2] + 256 * p[..., 1] + 65536 * p[..., 0]).astype(np.float32) / np.float32(16777215.0)


def log_v(n):
    with np.errstate(divide="ignore"):
        v = np.float32(1.0) + np.log(n) / np.float32(5.70378)
    return np.clip(v, np.float32(0.005), np.float32(1.0)).astype(np.float32)


PALETTE = None


def main():
    shutil.rmtree(TMP, ignore_errors=True)
    os.makedirs(TMP)
    scene = os.path.join(TMP, "formats.yaml")
    open(scene, "w").write(SCENE)
    out = os.path.join(TMP, "run")
    run("run", scene, "--out", out, "--quiet")

    for m in messages(os.path.join(out, "rgb.msgpack")):
        png = read_png(os.path.join(out, "rgb", "%06d.png" % m["frame"]))
        check(np.array_equal(png, bgra(m)[..., 2::-1]), "rgb .png: the camera's pixels")
    for m in messages(os.path.join(out, "rgb2.msgpack")):
        magic, top, ppm = read_netpbm(os.path.join(out, "rgb2", "%06d.ppm" % m["frame"]))
        check(magic == "P6" and top == "255" and np.array_equal(ppm, bgra(m)[..., 2::-1]), "rgb .ppm: the camera's pixels")
    for m in messages(os.path.join(out, "depth.msgpack")):
        magic, top, pgm = read_netpbm(os.path.join(out, "depth", "%06d.pgm" % m["frame"]))
        want = (normalised(m) * np.float32(65535.0) + np.float32(0.5)).astype(np.uint16)
        check(magic == "P5" and top == "65535" and np.array_equal(pgm, want), "depth .pgm: round(n * 65535)")
        metres = pgm.astype(np.float64) / 65535 * 1000
        check(np.abs(metres - np.frombuffer(m["depth"], "<f4").reshape(pgm.shape)).max() < 0.02, "depth .pgm within 2 cm")
    logs = messages(os.path.join(out, "depthlog.msgpack"))
    for m in logs:
        magic, top, pgm = read_netpbm(os.path.join(out, "depthlog", "%06d.pgm" % m["frame"]))
        want = (log_v(normalised(m)) * np.float32(65535.0) + np.float32(0.5)).astype(np.uint16).astype(int)
        # numpy's float32 log and glibc's logf may differ in the last bit
        check(magic == "P5" and np.abs(pgm.astype(int) - want).max() <= 1, "logarithmic_depth .pgm")
        png = read_png(os.path.join(out, "depthlogpng", "%06d.png" % m["frame"]))
        want8 = (log_v(normalised(m)) * np.float32(255) + np.float32(0.5)).astype(np.uint8).astype(int)
        check(np.abs(png[..., 0].astype(int) - want8).max() <= 1 and (png == png[..., :1]).all(), "logarithmic_depth .png")
    for m in messages(os.path.join(out, "metres.msgpack")):
        magic, top, pfm = read_netpbm(os.path.join(out, "metres", "%06d.pfm" % m["frame"]))
        want = np.frombuffer(m["depth"], "<f4").reshape(pfm.shape)[::-1]
        check(magic == "Pf" and top == "-1.0" and np.array_equal(pfm, want), ".pfm: the float metres, bottom row first")
    for m in messages(os.path.join(out, "metres24.msgpack")):
        magic, top, pfm = read_netpbm(os.path.join(out, "metres24", "%06d.pfm" % m["frame"]))
        check(np.array_equal(pfm, (normalised(m) * np.float32(1000.0))[::-1]), ".pfm without depth_float: n * 1000")
    tags = messages(os.path.join(out, "tags.msgpack"))
    for m in tags:
        magic, top, pgm = read_netpbm(os.path.join(out, "tags", "%06d.pgm" % m["frame"]))
        check(magic == "P5" and top == "255" and np.array_equal(pgm, bgra(m)[..., 2]), "semantic .pgm: the tags")
        check(len(np.unique(pgm)) >= 3, "the picture has several classes (ground, building, vehicle)")
    city = messages(os.path.join(out, "city.msgpack"))
    road_tag = None
    for m in city:
        png = read_png(os.path.join(out, "city", "%06d.png" % m["frame"]))
        t = bgra(m)[..., 2]
        for tag in np.unique(t):  # one colour per tag, and CARLA's for Vehicles (14: 0, 0, 142)
            colours = np.unique(png[t == tag], axis=0)
            check(len(colours) == 1, f"cityscapes: one colour for tag {tag}")
            if tag == 14:
                road_tag = tuple(colours[0])
    check(road_tag == (0, 0, 142), f"cityscapes Vehicles colour {road_tag}")

    # convert --format writes what save: wrote
    for sensor, fmt, conv in (("rgb2", "ppm", "raw"), ("depth", "pgm", "depth"), ("tags", "pgm", "raw"),
                              ("metres", "pfm", "raw"), ("rgb", "png", "raw")):
        d = os.path.join(TMP, "convert_" + sensor)
        run("convert", os.path.join(out, sensor + ".msgpack"), "--out", d, "--format", fmt, "--converter", conv)
        for name in sorted(os.listdir(os.path.join(out, sensor))):
            same = open(os.path.join(d, name), "rb").read() == open(os.path.join(out, sensor, name), "rb").read()
            check(same, f"convert --format {fmt} of {sensor}: {name} as save: wrote it")
    p = run("convert", os.path.join(out, "rgb.msgpack"), "--out", os.path.join(TMP, "bad"), "--format", "pgm", expect=2)
    check("pgm" in p.stderr, "convert --format pgm of a colour camera names the format")
    run("convert", os.path.join(out, "rgb.msgpack"), "--out", os.path.join(TMP, "bad2"), "--format", "jpg", expect=2)

    # scenes asking a format for a camera it cannot hold: exit 2 at load, naming file:line
    for bad in ('rgb/%06d.pgm"}', 'rgb/%06d.pfm"}', 'rgb/%06d.jpg"}'):
        s = os.path.join(TMP, "bad.yaml")
        open(s, "w").write(SCENE.replace('rgb/%06d.png"}', bad))
        p = run("run", s, "--out", os.path.join(TMP, "bad_run"), "--quiet", expect=2)
        check("bad.yaml:" in p.stderr and not os.path.exists(os.path.join(TMP, "bad_run")), f"{bad}: {p.stderr.strip()}")
    s = os.path.join(TMP, "bad.yaml")
    open(s, "w").write(SCENE.replace('tags/%06d.pgm"}', 'tags/%06d.pgm", converter: cityscapes}'))
    run("run", s, "--out", os.path.join(TMP, "bad_run"), "--quiet", expect=2)

    # the same bytes run after run
    again = os.path.join(TMP, "again")
    run("run", scene, "--out", again, "--quiet", "--threads", "1")
    for sensor in ("rgb", "rgb2", "depth", "depthlog", "depthlogpng", "metres", "tags", "city"):
        names = sorted(os.listdir(os.path.join(out, sensor)))
        check(len(names) == 3, f"{sensor}: 3 images")
        for name in names:
            a = open(os.path.join(out, sensor, name), "rb").read()
            check(a == open(os.path.join(again, sensor, name), "rb").read(), f"{sensor}/{name}: the same bytes again")

    print("saved_images:", "all passed" if not failures else f"{failures} failure(s)")
    sys.exit(1 if failures else 0)


main()
