#!/usr/bin/env bash
# MCAP for Foxglove (docs/mcap.md), checked by an independent reader (check_mcap.js on Foxglove's
# own npm packages, installed from package-lock.json into the build tree):
#   - the demo scene (scenes/town.yaml, shortened) run with --mcap, and the export of its folder:
#     the same bytes; every message read and checked against the streams and convert's PNGs;
#   - a scene with every kind of sensor (cameras of each converter, DVS, optical flow, both
#     lidars, radar, GNSS, IMU, collision, lane invasion, obstacle, V2X) the same way, and the
#     same file at 1 and 2 threads;
#   - a recording replayed with a scene's sensors (replay --mcap) the same way;
#   - a run killed mid-way leaves no file at the --mcap path (only its .partial-* beside it);
#   - an existing file: refused (exit 2, untouched) without --overwrite for export, run and replay,
#     replaced whole with it, and left as it was by a failed export with it;
#   - bad input: a folder without streams, a corrupt stream, a link or a folder where the file
#     goes: exit 2, one error line, nothing written and nothing left behind.
#   - CARLA's world.debug shapes (tests/mcap/debug.yaml) on /debug, entity by entity with their
#     lifetimes against the stream, and on the report's top view;
#   - a sensor of one's own declaring its record layouts (SDK 1.6, tests/sdk16/records_probe.c): its
#     x, y, z records a PointCloud (run --mcap and export alike), the same bytes with y negated.
# usage: mcap.sh SENSIM SCENES_DIR MAPS_DIR TMP_DIR THIS_DIR [RECORDS_PROBE_DIR]
set -u
SENSIM=$1 SCENES=$2 MAPS=$3 TMP=$4/mcap HERE=$5 RECORDS=${6:-}
NODE_DIR=$4/mcap-node
rm -rf "$TMP" && mkdir -p "$TMP"
fails=0
bad() { fails=$((fails + 1)); echo "FAIL: $*" >&2; }

# ---- the reader: Foxglove's packages at the locked versions (installed once per build tree) ----
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "node and npm not found (Debian nodejs npm: bash scripts/setup.sh)"
  exit 77
fi
if ! cmp -s "$HERE/package-lock.json" "$NODE_DIR/package-lock.json" || [ ! -d "$NODE_DIR/node_modules/@mcap/core" ]; then
  rm -rf "$NODE_DIR" && mkdir -p "$NODE_DIR"
  cp "$HERE/package.json" "$HERE/package-lock.json" "$NODE_DIR/"
  if ! (cd "$NODE_DIR" && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error >npm.log 2>&1); then
    cat "$NODE_DIR/npm.log" >&2
    rm -f "$NODE_DIR/package-lock.json" # try again next time
    echo "npm could not install the reader's packages (no registry?): skipped"
    exit 77
  fi
fi
# Under the sanitizers (meson sets SENSIM_TEST_SANITIZED) Foxglove's reader, which runs no code of
# ours, is left to the plain build's pass: there it reads the same files (runs are deterministic);
# here the dumps and conversions it would compare against still run, sanitized.
READER=1
[ -n "${SENSIM_TEST_SANITIZED:-}" ] && READER=
check() { # MCAP RUN_DIR: dumps every stream, converts every camera, runs the reader
  local mcap=$1 run=$2 out=$1.check
  rm -rf "$out" && mkdir -p "$out/dumps" "$out/png"
  for f in "$run"/*.msgpack; do
    local n conv=raw type
    n=$(basename "$f" .msgpack)
    "$SENSIM" dump "$f" --json >"$out/dumps/$n.jsonl" || bad "dump $f"
    type=$(head -c 400 "$out/dumps/$n.jsonl" | grep -o '"type":"[^"]*"' | head -1)
    case $type in
      *sensor.camera.depth*) conv=logarithmic_depth ;;
      *sensor.camera.semantic_segmentation*) conv=cityscapes ;;
      *sensor.camera.*) ;;
      *) continue ;;
    esac
    "$SENSIM" convert "$f" --out "$out/png/$n" --converter $conv >/dev/null || bad "convert $f"
  done
  [ -z "$READER" ] || NODE_PATH=$NODE_DIR/node_modules node "$HERE/check_mcap.js" "$mcap" "$out/dumps" "$out/png" ||
    bad "the reader refused $mcap"
}

# ---- the demo: --mcap as it runs, and the export of its folder ----
"$SENSIM" run "$SCENES/town.yaml" --frames 60 --out "$TMP/demo" --mcap "$TMP/demo_live.mcap" --quiet || bad "demo run --mcap"
[ -f "$TMP/demo/actors.msgpack" ] || bad "--mcap adds the actors stream"
"$SENSIM" export mcap "$TMP/demo" --out "$TMP/demo.mcap" --map "$MAPS/town.xodr" >/dev/null || bad "export mcap of the demo"
cmp -s "$TMP/demo_live.mcap" "$TMP/demo.mcap" || bad "--mcap and the export of the run's folder differ"
# a plain run (no --mcap) keeps its actors stream: its export draws the same boxes and transform
# tree, byte for byte the file of the run made with --mcap (issue 33 item 2)
"$SENSIM" run "$SCENES/town.yaml" --frames 60 --out "$TMP/plain60" --quiet || bad "plain run"
[ -f "$TMP/plain60/actors.msgpack" ] || bad "a plain run has no actors stream"
"$SENSIM" export mcap "$TMP/plain60" --out "$TMP/plain60.mcap" --map "$MAPS/town.xodr" >/dev/null || bad "export mcap of a plain run"
cmp -s "$TMP/demo.mcap" "$TMP/plain60.mcap" || bad "the export of a plain run differs from the --mcap run's (no actors?)"
# the map found by itself: the run noted it in run.json, relative to the run folder
grep -q '"map":"[^"]*town.xodr"' "$TMP/demo/run.json" || bad "run.json names no map: $(cat "$TMP/demo/run.json")"
"$SENSIM" export mcap "$TMP/demo" --out "$TMP/demo_auto.mcap" >/dev/null || bad "export without --map"
cmp -s "$TMP/demo_live.mcap" "$TMP/demo_auto.mcap" || bad "the export without --map lacks the run's map"
# a copy of the scene's tree elsewhere: the noted path, relative, still leads to the map
mkdir -p "$TMP/moved/scenes" "$TMP/moved/maps" && cp "$SCENES/town.yaml" "$TMP/moved/scenes/" && cp "$MAPS/town.xodr" "$TMP/moved/maps/"
"$SENSIM" run "$TMP/moved/scenes/town.yaml" --frames 10 --out "$TMP/moved/runs/a" --mcap "$TMP/moved_live.mcap" --quiet || bad "run of the copied tree"
grep -q '"map":"../../maps/town.xodr"' "$TMP/moved/runs/a/run.json" || bad "run.json's map is not relative: $(cat "$TMP/moved/runs/a/run.json")"
mv "$TMP/moved" "$TMP/moved2"
"$SENSIM" export mcap "$TMP/moved2/runs/a" --out "$TMP/moved.mcap" >/dev/null || bad "export of a moved tree"
cmp -s "$TMP/moved_live.mcap" "$TMP/moved.mcap" || bad "the export of a moved tree lacks the map"
# the map gone: a warning, the file without lanes (as a run without a map), exit 0
rm "$TMP/moved2/maps/town.xodr"
err=$("$SENSIM" export mcap "$TMP/moved2/runs/a" --out "$TMP/nomap.mcap" 2>&1 >/dev/null) || bad "export with the run's map gone: $err"
printf '%s\n' "$err" | grep -q "^sensim: warning: export: the run's map .* cannot be read" || bad "no warning for a map gone: $err"
[ -s "$TMP/nomap.mcap" ] && ! cmp -s "$TMP/moved.mcap" "$TMP/nomap.mcap" || bad "the export without its map is missing or still has the map"
check "$TMP/demo.mcap" "$TMP/demo"
# small chunks: many chunk indexes to follow; and images as RawImage decode too
"$SENSIM" export mcap "$TMP/demo" --out "$TMP/demo_small.mcap" --chunk-size 65536 --zstd-level 9 >/dev/null ||
  bad "export mcap with small chunks"
# chunks compressed on the writer's own thread (--threads 2 and more) or inline (1): the same
# bytes, also over many small chunks handed from the filling thread to the compressor
"$SENSIM" export mcap "$TMP/demo" --out "$TMP/demo_small1.mcap" --chunk-size 65536 --zstd-level 9 --threads 1 >/dev/null ||
  bad "export mcap with small chunks at 1 thread"
"$SENSIM" export mcap "$TMP/demo" --out "$TMP/demo_small2.mcap" --chunk-size 65536 --zstd-level 9 --threads 2 >/dev/null ||
  bad "export mcap with small chunks at 2 threads"
cmp -s "$TMP/demo_small1.mcap" "$TMP/demo_small.mcap" || bad "small chunks: --threads 1 and the default differ"
cmp -s "$TMP/demo_small2.mcap" "$TMP/demo_small.mcap" || bad "small chunks: --threads 2 and the default differ"
# the file does not depend on how many threads make the images
for t in 1 3; do
  "$SENSIM" export mcap "$TMP/demo" --out "$TMP/demo_t$t.mcap" --map "$MAPS/town.xodr" --threads $t >/dev/null || bad "export --threads $t"
  cmp -s "$TMP/demo.mcap" "$TMP/demo_t$t.mcap" || bad "export --threads $t differs from the default"
done
if [ -n "$READER" ]; then
  out=$(NODE_PATH=$NODE_DIR/node_modules node "$HERE/check_mcap.js" "$TMP/demo_small.mcap" "$TMP/demo.mcap.check/dumps" "$TMP/demo.mcap.check/png") ||
    bad "the reader refused the small-chunk file: $out"
  printf '%s\n' "$out" | head -1
  printf '%s\n' "$out" | grep -q ' in [1-9][0-9][0-9]* chunks' || bad "small chunks gave fewer than 10 chunks: $out"
fi
"$SENSIM" export mcap "$TMP/demo" --out "$TMP/demo_raw.mcap" --raw-images --zstd-level 0 >/dev/null ||
  bad "export --raw-images --zstd-level 0"
# --zstd-level 0: every chunk stored with MCAP's empty compression, sizes equal
python3 - "$TMP/demo_raw.mcap" <<'PY' || bad "--zstd-level 0 left a chunk compressed"
import struct, sys
b = open(sys.argv[1], "rb").read(); off, n = 8, 0
while off + 9 <= len(b):
    op, ln = b[off], struct.unpack_from("<Q", b, off + 1)[0]
    if op == 0x06:  # Chunk: start, end, uncompressed size, crc, compression, records
        usize = struct.unpack_from("<Q", b, off + 9 + 16)[0]
        clen = struct.unpack_from("<I", b, off + 9 + 28)[0]
        rec = struct.unpack_from("<Q", b, off + 9 + 32 + clen)[0]
        assert clen == 0 and rec == usize, (clen, rec, usize); n += 1
    if op == 0x0F: break  # Footer
    off += 9 + ln
assert n > 0, "no chunk"
PY
if [ -n "$READER" ]; then
  out=$(NODE_PATH=$NODE_DIR/node_modules node "$HERE/check_mcap.js" "$TMP/demo_raw.mcap" "$TMP/demo.mcap.check/dumps" "$TMP/demo.mcap.check/png") ||
    bad "the reader refused the RawImage file: $out"
fi
# PNG images (already compressed) in chunks of their own, stored (""), every other message in zstd
# chunks, the chunks in time order (docs/mcap.md, the file): every image message is found in a
# stored chunk and nothing else is
python3 - "$TMP/demo.mcap" <<'PY' || bad "the demo's PNGs are not in stored chunks of their own"
import struct, sys
b = open(sys.argv[1], "rb").read(); off = 8
def s(at): n = struct.unpack_from("<I", b, at)[0]; return b[at + 4:at + 4 + n].decode(), at + 4 + n
stored, kinds, last_end, schemas, channels, counts = [], set(), 0, {}, {}, {}
while off + 9 <= len(b):
    op, ln = b[off], struct.unpack_from("<Q", b, off + 1)[0]; body = off + 9
    if op == 0x06:  # Chunk
        start, end, usize = struct.unpack_from("<QQQ", b, body)
        comp, at = s(body + 28)
        assert start >= last_end, ("chunks overlap", start, last_end); last_end = end
        kinds.add(comp)
        if comp == "": stored.append(b[at + 8:at + 8 + usize])
        else: assert comp == "zstd", comp
    elif op == 0x03: sid = struct.unpack_from("<H", b, body)[0]; schemas[sid] = s(body + 2)[0]
    elif op == 0x04: cid, sid = struct.unpack_from("<HH", b, body); channels[cid] = sid
    elif op == 0x0B:  # Statistics: per-channel counts at its end
        m = struct.unpack_from("<I", b, body + 8 + 2 + 4 * 4 + 16)[0]
        for k in range(m // 10):
            cid, c = struct.unpack_from("<HQ", b, body + 8 + 2 + 16 + 16 + 4 + 10 * k); counts[cid] = c
    off += 9 + ln
images = {c for c, sid in channels.items() if schemas.get(sid) == "foxglove.CompressedImage"}
assert kinds == {"", "zstd"} and images, (kinds, images)
found = 0
for rec in stored:
    r = 0
    while r + 9 <= len(rec):
        op, ln = rec[r], struct.unpack_from("<Q", rec, r + 1)[0]
        if op == 0x05:
            assert struct.unpack_from("<H", rec, r + 9)[0] in images, "a stored chunk holds a message that is no PNG"; found += 1
        r += 9 + ln
want = sum(counts.get(c, 0) for c in images)
assert found == want and want > 0, (found, want)
PY
ls "$TMP"/demo_live.mcap.partial-* >/dev/null 2>&1 && bad "a whole run left a partial MCAP"

# ---- a run without an actors stream (a folder from before every run kept one): every sensor in
# a frame of its own under world ----
"$SENSIM" run "$SCENES/town.yaml" --frames 30 --out "$TMP/plain" --quiet || bad "plain demo run"
rm -f "$TMP/plain/actors.msgpack"
"$SENSIM" export mcap "$TMP/plain" --out "$TMP/plain.mcap" >/dev/null || bad "export of a run without an actors stream"
check "$TMP/plain.mcap" "$TMP/plain"

# ---- a recording replayed with a scene's sensors re-rendered ----
"$SENSIM" run "$SCENES/town.yaml" --frames 40 --out "$TMP/rec" --record "$TMP/demo.rec" --quiet || bad "recording the demo"
cat >"$TMP/ride.yaml" <<'YAML'
sensors:
  - {name: chase, blueprint: sensor.camera.rgb, attach_to: hero, transform: {location: [-6, 0, 3], rotation: [-15, 0, 0]}, attributes: {image_size_x: 96, image_size_y: 54, sensor_tick: 0.25}}
  - {name: top_lidar, blueprint: sensor.lidar.ray_cast, attach_to: hero, transform: {location: [0, 0, 2.4]}, attributes: {channels: 8, points_per_second: 20000}}
YAML
"$SENSIM" replay "$TMP/demo.rec" --scene "$TMP/ride.yaml" --out "$TMP/replay" --mcap "$TMP/replay.mcap" --quiet || bad "replay --mcap"
check "$TMP/replay.mcap" "$TMP/replay"

# ---- every kind of sensor ----
cat >"$TMP/all.yaml" <<YAML
map: $MAPS/town.xodr
settings: {fixed_delta_seconds: 0.05, frames: 24, seed: 5, georeference: {latitude: 48.1, longitude: 11.5, altitude: 500}}
actors:
  - {name: ground, blueprint: static.ground, transform: {location: [0, 0, -0.02]}}
  - name: hero
    blueprint: vehicle.sedan
    transform: {location: [20, 1.75, 0.45], rotation: [0, 0, -25]}
    attributes: {role_name: hero}
    velocity: [11, -5, 0]
  - {name: box, blueprint: static.prop.box, transform: {location: [27, -2.5, 1]}, attributes: {extent: "0.5,1.5,1"}}
  - {name: van, blueprint: vehicle.truck, transform: {location: [50, -1.75, 0.3], rotation: [0, 180, 0]}, velocity: [-5, 0, 0], destroy_at: 0.6}
sensors:
  - {name: rgb, blueprint: sensor.camera.rgb, attach_to: hero, transform: {location: [1.5, 0, 2.4], rotation: [-5, 0, 0]}, attributes: {image_size_x: 64, image_size_y: 48, sensor_tick: 0.1}}
  - {name: depth, blueprint: sensor.camera.depth, attach_to: hero, transform: {location: [1.5, 0, 2.4]}, attributes: {image_size_x: 64, image_size_y: 48, sensor_tick: 0.2}}
  - {name: semantic, blueprint: sensor.camera.semantic_segmentation, attach_to: hero, transform: {location: [1.5, 0, 2.4]}, attributes: {image_size_x: 64, image_size_y: 48, sensor_tick: 0.2}}
  - {name: instance, blueprint: sensor.camera.instance_segmentation, attach_to: hero, transform: {location: [1.5, 0, 2.4]}, attributes: {image_size_x: 64, image_size_y: 48, sensor_tick: 0.2}}
  - {name: flow, blueprint: sensor.camera.optical_flow, attach_to: hero, transform: {location: [1.5, 0, 2.4]}, attributes: {image_size_x: 64, image_size_y: 48, sensor_tick: 0.2}}
  - {name: dvs, blueprint: sensor.camera.dvs, attach_to: hero, transform: {location: [1.5, 0, 2.4]}, attributes: {image_size_x: 64, image_size_y: 48}}
  - {name: lidar, blueprint: sensor.lidar.ray_cast, attach_to: hero, transform: {location: [0, 0, 2.2], rotation: [0, 30, 2]}, attributes: {channels: 8, points_per_second: 20000, rotation_frequency: 20}}
  - {name: slidar, blueprint: sensor.lidar.ray_cast_semantic, attach_to: hero, transform: {location: [0, 0.5, 2.2]}, attributes: {channels: 8, points_per_second: 20000, rotation_frequency: 20}}
  - {name: radar, blueprint: sensor.other.radar, attach_to: hero, transform: {location: [2.5, 0, 1]}, attributes: {points_per_second: 3000}}
  - {name: gnss, blueprint: sensor.other.gnss, attach_to: hero, transform: {location: [0, 0, 1.6]}}
  - {name: imu, blueprint: sensor.other.imu, attach_to: hero}
  - {name: crash, blueprint: sensor.other.collision, attach_to: hero}
  - {name: lanes, blueprint: sensor.other.lane_invasion, attach_to: hero}
  - {name: obstacle, blueprint: sensor.other.obstacle, attach_to: hero, transform: {location: [2.5, 0, 1]}, attributes: {distance: 30}}
  - {name: cam, blueprint: sensor.other.v2x, attach_to: hero, transform: {location: [0, 0, 1.6]}}
  - {name: cam_van, blueprint: sensor.other.v2x, attach_to: van, transform: {location: [0, 0, 1.6]}}
  - {name: roadside, blueprint: sensor.camera.rgb, transform: {location: [40, -8, 6], rotation: [-20, 150, 0]}, attributes: {image_size_x: 32, image_size_y: 24, sensor_tick: 0.5}}
YAML
"$SENSIM" run "$TMP/all.yaml" --out "$TMP/all" --mcap "$TMP/all.mcap" --threads 2 --quiet || bad "all-sensor run --mcap"
check "$TMP/all.mcap" "$TMP/all"
for s in crash lanes imu; do
  [ -s "$TMP/all/$s.msgpack" ] || bad "the all-sensor scene gave no $s messages (the test would not see JSON channels)"
done
"$SENSIM" run "$TMP/all.yaml" --out "$TMP/all1" --mcap "$TMP/all1.mcap" --threads 1 --quiet || bad "all-sensor run at 1 thread"
cmp -s "$TMP/all.mcap" "$TMP/all1.mcap" || bad "the MCAP differs between 1 and 2 threads"

# ---- declared record layouts (SDK 1.6): a PointCloud where the records have x, y, z ----
if [ -n "$RECORDS" ]; then
  printf 'settings: {frames: 3}\nactors:\n  - {name: box, blueprint: static.prop.box, transform: {location: [5, 0, 1]}}\nsensors:\n  - {name: echo, blueprint: sensor.test.records}\n' >"$TMP/records.yaml"
  SENSIM_PLUGIN_PATH=$RECORDS "$SENSIM" run "$TMP/records.yaml" --out "$TMP/records" --mcap "$TMP/records_live.mcap" --quiet ||
    bad "records run --mcap"
  SENSIM_PLUGIN_PATH=$RECORDS "$SENSIM" export mcap "$TMP/records" --out "$TMP/records.mcap" >/dev/null || bad "export records"
  cmp -s "$TMP/records_live.mcap" "$TMP/records.mcap" || bad "records: run --mcap and export differ"
  check "$TMP/records.mcap" "$TMP/records"
fi

# ---- CARLA's world.debug (sensor.other.debug): every kind of shape on /debug with its lifetime ----
"$SENSIM" run "$HERE/debug.yaml" --out "$TMP/debug" --mcap "$TMP/debug_live.mcap" --quiet || bad "debug run --mcap"
"$SENSIM" export mcap "$TMP/debug" --out "$TMP/debug.mcap" >/dev/null || bad "export debug"
cmp -s "$TMP/debug_live.mcap" "$TMP/debug.mcap" || bad "debug: run --mcap and export differ"
[ "$("$SENSIM" dump "$TMP/debug/debug.msgpack" --json | wc -l)" = 3 ] || bad "debug: a message only on the 3 frames something was drawn"
check "$TMP/debug.mcap" "$TMP/debug"
# the report draws them on its top view (when the views module is there: exit 77 otherwise)
"$SENSIM" report "$TMP/debug" --out "$TMP/debug_report.html" >/dev/null 2>"$TMP/debug_report.err"
case $? in
  0) for k in point line arrow box string; do
       grep -q "class=\"shape $k\"" "$TMP/debug_report.html" || bad "the report draws no debug $k"
     done
     [ "$(grep -c 'class="shape ' "$TMP/debug_report.html")" = 7 ] || bad "the report draws $(grep -c 'class="shape ' "$TMP/debug_report.html") debug shapes, not 7"
     grep -q 'hello, Foxglove' "$TMP/debug_report.html" || bad "the report lacks the debug string" ;;
  77) echo "report: views module absent, its debug shapes not checked" ;;
  *) bad "report of the debug run: $(cat "$TMP/debug_report.err")" ;;
esac
# bad calls are input errors at load (exit 2, one line)
printf 'settings: {frames: 2}\nsensors:\n  - {name: d, blueprint: sensor.other.debug, calls: [{at: 0, method: draw_line, args: ["1", "2"]}]}\n' >"$TMP/debug_bad.yaml"
"$SENSIM" run "$TMP/debug_bad.yaml" --out "$TMP/debug_bad" --quiet 2>"$TMP/debug_bad.err"
[ $? = 2 ] && [ "$(wc -l <"$TMP/debug_bad.err")" = 1 ] || bad "a draw_line with 2 arguments: not one error line and exit 2: $(cat "$TMP/debug_bad.err")"
printf 'settings: {frames: 2}\nsensors:\n  - {name: d, blueprint: sensor.other.debug, calls: [{at: 0, method: draw_point, args: ["1", "2", "nan"]}]}\n' >"$TMP/debug_nan.yaml"
"$SENSIM" run "$TMP/debug_nan.yaml" --out "$TMP/debug_nan" --quiet 2>"$TMP/debug_nan.err"
rc=$?
{ [ $rc = 2 ] || [ $rc = 1 ]; } && [ "$(wc -l <"$TMP/debug_nan.err")" -le 2 ] && grep -q "not a finite number" "$TMP/debug_nan.err" || bad "draw_point at nan: $rc $(cat "$TMP/debug_nan.err")"

# ---- a killed run leaves no half MCAP at its path ----
# kill -9 once the run is writing (its partial file holds chunks); the run is made far longer than
# that wait (20000 frames) so the kill always lands mid-run, however fast the machine
killed_run() { # MCAP [OPTION]: runs the demo with --mcap MCAP in the background and kills it mid-way
  "$SENSIM" run "$SCENES/town.yaml" --frames 20000 --out "$TMP/killed_out" --mcap "$1" ${2:+"$2"} --quiet &
  local pid=$! part=
  for _ in $(seq 1 600); do
    part=$(ls "$1".partial-* 2>/dev/null | head -1)
    [ -n "$part" ] && [ "$(stat -c %s "$part")" -gt 100000 ] && break
    sleep 0.05
  done
  kill -0 $pid 2>/dev/null || bad "the run to kill ended by itself"
  kill -9 $pid 2>/dev/null
  wait $pid 2>/dev/null
}
killed_run "$TMP/killed.mcap"
[ -e "$TMP/killed.mcap" ] && bad "a killed run left $TMP/killed.mcap"
ls "$TMP"/killed.mcap.partial-* >/dev/null 2>&1 || bad "the killed run's partial MCAP is not where docs/mcap.md says"
# an existing file at the path survives a killed run, even one allowed to replace it
echo keep >"$TMP/keep.mcap"
killed_run "$TMP/keep.mcap" --overwrite
[ "$(cat "$TMP/keep.mcap")" = keep ] || bad "a killed run replaced an existing file"

# ---- bad input ----
expect2() { # what, then the command: exit 2, one "sensim: error:" line
  local what=$1 err
  shift
  err=$("$@" 2>&1 >/dev/null)
  local rc=$?
  [ $rc -eq 2 ] || bad "$what: exit $rc, not 2"
  [ "$(printf '%s\n' "$err" | grep -c '^sensim: error: ')" -eq 1 ] || bad "$what: not one error line: $err"
}
mkdir -p "$TMP/empty"
expect2 "export of a folder without streams" "$SENSIM" export mcap "$TMP/empty" --out "$TMP/x.mcap"
expect2 "export of a missing folder" "$SENSIM" export mcap "$TMP/nope" --out "$TMP/x.mcap"
expect2 "export without --out" "$SENSIM" export mcap "$TMP/demo"
expect2 "export of something else" "$SENSIM" export mp4 "$TMP/demo" --out "$TMP/x.mcap"
expect2 "a bad depth converter" "$SENSIM" export mcap "$TMP/demo" --out "$TMP/x.mcap" --depth-converter cityscapes
mkdir -p "$TMP/corrupt" && cp "$TMP/demo"/*.msgpack "$TMP/corrupt/"
head -c 5000 "$TMP/demo/hero_rgb.msgpack" >"$TMP/corrupt/hero_rgb.msgpack"
expect2 "export of a truncated stream" "$SENSIM" export mcap "$TMP/corrupt" --out "$TMP/x.mcap"
[ -e "$TMP/x.mcap" ] && bad "a failed export left its file"
ls "$TMP"/x.mcap.partial-* >/dev/null 2>&1 && bad "a failed export left a partial file"
mkdir -p "$TMP/adir"
expect2 "export over a folder" "$SENSIM" export mcap "$TMP/demo" --out "$TMP/adir"
ln -sf "$TMP/target" "$TMP/link.mcap"
expect2 "run --mcap through a link" "$SENSIM" run "$SCENES/town.yaml" --frames 2 --out "$TMP/linked" --mcap "$TMP/link.mcap"
[ -e "$TMP/target" ] && bad "--mcap wrote through a link"
ls "$TMP"/link.mcap.partial-* >/dev/null 2>&1 && bad "a refused --mcap left a partial file"
expect2 "--mcap named like a stream" "$SENSIM" run "$SCENES/town.yaml" --frames 2 --out "$TMP/named" --mcap "$TMP/named/hero_rgb.msgpack"
[ -e "$TMP/named/hero_rgb.msgpack" ] && bad "--mcap named like a stream wrote it"
expect2 "--mcap without a value" "$SENSIM" run "$SCENES/town.yaml" --out "$TMP/x" --mcap

# ---- an existing output: refused without --overwrite, replaced whole with it (docs/cli.md) ----
echo precious >"$TMP/exists.mcap"
expect2_keep() { # what, then the command: exit 2 naming --overwrite, exists.mcap untouched, no partial left
  local what=$1 err rc
  shift
  err=$("$@" 2>&1 >/dev/null)
  rc=$?
  [ $rc -eq 2 ] && printf '%s\n' "$err" | grep -q "^sensim: error: .*exists.mcap exists; sensim does not replace it without --overwrite" ||
    bad "$what: exit $rc: $err"
  [ "$(cat "$TMP/exists.mcap")" = precious ] || bad "$what: the existing file was touched"
  ls "$TMP"/exists.mcap.partial-* >/dev/null 2>&1 && bad "$what: left a partial file"
}
expect2_keep "export over a file" "$SENSIM" export mcap "$TMP/demo" --out "$TMP/exists.mcap"
# a run whose run.json is damaged: the existing file is refused first, on one line (fuzz71: the
# map's warning came first, the run's map was loaded for nothing)
mkdir -p "$TMP/badnote" && printf '{"map":' >"$TMP/badnote/run.json"
expect2_keep "export over a file, run.json damaged" "$SENSIM" export mcap "$TMP/badnote" --out "$TMP/exists.mcap"
err=$("$SENSIM" export mcap "$TMP/badnote" --out "$TMP/exists.mcap" 2>&1 >/dev/null)
[ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] || bad "export over a file, run.json damaged: not one line: $err"
expect2_keep "run --mcap over a file" "$SENSIM" run "$SCENES/town.yaml" --frames 2 --out "$TMP/ex_run" --mcap "$TMP/exists.mcap"
expect2_keep "replay --mcap over a file" "$SENSIM" replay "$TMP/demo.rec" --scene "$TMP/ride.yaml" --out "$TMP/ex_replay" --mcap "$TMP/exists.mcap"
[ -e "$TMP/ex_run/actors.msgpack" ] && bad "a run refused for its --mcap wrote streams"
# a failed export with --overwrite leaves the old file
expect2 "a failed export with --overwrite" "$SENSIM" export mcap "$TMP/corrupt" --out "$TMP/exists.mcap" --overwrite
[ "$(cat "$TMP/exists.mcap")" = precious ] || bad "a failed export with --overwrite replaced the file"
"$SENSIM" export mcap "$TMP/demo" --out "$TMP/exists.mcap" --overwrite >/dev/null || bad "export --overwrite"
cmp -s "$TMP/exists.mcap" "$TMP/demo_auto.mcap" || bad "export --overwrite did not write the export"
"$SENSIM" run "$SCENES/town.yaml" --frames 60 --out "$TMP/demo_again" --mcap "$TMP/exists.mcap" --overwrite --quiet || bad "run --mcap --overwrite"
cmp -s "$TMP/exists.mcap" "$TMP/demo_live.mcap" || bad "run --mcap --overwrite did not write the run's file"
ls "$TMP"/exists.mcap.partial-* >/dev/null 2>&1 && bad "--overwrite left a partial file"
mkdir -p "$TMP/adir2"
expect2 "--overwrite of a folder" "$SENSIM" export mcap "$TMP/demo" --out "$TMP/adir2" --overwrite
expect2 "--overwrite without --mcap" "$SENSIM" run "$SCENES/town.yaml" --frames 2 --out "$TMP/x" --overwrite

# ---- the export takes the PNGs the run's `save:` wrote (run.json "saved") instead of encoding
# them again (issue 36 item 5): the same file as encoding them (the PNGs gone) and as the live
# --mcap; a file of another picture's size is not taken (encoded); a file that is a PNG of the
# same size is taken as it is (proof that files are read, not pictures encoded) ----
"$SENSIM" run "$SCENES/intersection.yaml" --frames 60 --out "$TMP/saves" --mcap "$TMP/saves_live.mcap" --quiet || bad "intersection run"
grep -q '"saved":\[{"sensor":"hero_rgb","path":"hero_rgb/%06d.png","converter":"raw"}' "$TMP/saves/run.json" ||
  bad "run.json does not list the saved cameras: $(cat "$TMP/saves/run.json")"
rm -rf "$TMP/saves_enc" && cp -r "$TMP/saves" "$TMP/saves_enc" && rm -r "$TMP/saves_enc"/hero_*/
"$SENSIM" export mcap "$TMP/saves" --out "$TMP/saves_reuse.mcap" >/dev/null || bad "export of a run with PNGs"
"$SENSIM" export mcap "$TMP/saves_enc" --out "$TMP/saves_enc.mcap" >/dev/null || bad "export of a run without its PNGs"
cmp -s "$TMP/saves_reuse.mcap" "$TMP/saves_enc.mcap" || bad "the export taking the run's PNGs differs from encoding them"
cmp -s "$TMP/saves_reuse.mcap" "$TMP/saves_live.mcap" || bad "the export taking the run's PNGs differs from the live --mcap"
for t in 1 2; do # the PNG files read by the pool's workers, or inline
  "$SENSIM" export mcap "$TMP/saves" --out "$TMP/saves_reuse_t$t.mcap" --threads $t >/dev/null || bad "export with PNGs --threads $t"
  cmp -s "$TMP/saves_reuse.mcap" "$TMP/saves_reuse_t$t.mcap" || bad "the export taking the run's PNGs differs at --threads $t"
done
cp "$TMP/saves/hero_rgb/000021.png" "$TMP/saves/hero_rgb/000001.png"   # another picture, same size: taken
"$SENSIM" export mcap "$TMP/saves" --out "$TMP/saves_swap.mcap" >/dev/null || bad "export with a swapped PNG"
cmp -s "$TMP/saves_swap.mcap" "$TMP/saves_enc.mcap" && bad "the export encoded the pictures instead of taking the run's PNGs"
[ "$(stat -c %s "$TMP/saves_swap.mcap")" -gt 0 ] || bad "no file with a swapped PNG"
printf 'not a png' >"$TMP/saves/hero_rgb/000001.png"                 # not a PNG: encoded
"$SENSIM" export mcap "$TMP/saves" --out "$TMP/saves_bad.mcap" >/dev/null || bad "export with a broken PNG"
cmp -s "$TMP/saves_bad.mcap" "$TMP/saves_enc.mcap" || bad "a broken PNG was taken instead of encoding the picture"
check "$TMP/saves_reuse.mcap" "$TMP/saves"
# PNG files of 256 KiB or more are taken by the pool's workers, their CRC-32 made from the PNG's
# own chunk CRCs (mcap_pool.c png_walk_crc) or, for a file of more than 64 chunks, from its bytes,
# and written from a mapping (sn_mcapw_message_parts) or, to tmpfs, by copy_file_range
# (sn_mcapw_message_file): three of the run's PNGs padded past that with private ancillary chunks
# (one big one, or 70 small ones in the third; still PNGs of the camera's size, so taken as they
# are). Every padded file's bytes are one message's data, followed by its format; every stored
# chunk's CRC is that of its records and DataEnd's that of the data section; the same file at
# --threads 1 and 2, and written to tmpfs (/dev/shm, when there is one).
rm -rf "$TMP/saves_big" && cp -r "$TMP/saves" "$TMP/saves_big"
python3 - "$TMP/saves_big/hero_rgb" <<'PY' || bad "cannot pad the PNGs"
import struct, sys, zlib
src = open(sys.argv[1] + "/000021.png", "rb").read()
def chunk(body):
    return struct.pack(">I", len(body)) + b"sbIg" + body + struct.pack(">I", zlib.crc32(b"sbIg" + body))
for i in (1, 11, 21):  # the camera saves every tenth frame
    if i == 21:  # more chunks than png_walk_crc walks: CRC'd from the bytes
        pad = b"".join(chunk(bytes((k * 131 + i + j) & 255 for k in range(4300))) for j in range(70))
    else:
        pad = chunk(bytes((k * 131 + i) & 255 for k in range(300000)))
    open(sys.argv[1] + "/%06d.png" % i, "wb").write(src[:-12] + pad + src[-12:])
PY
for t in 1 2; do
  "$SENSIM" export mcap "$TMP/saves_big" --out "$TMP/saves_big_t$t.mcap" --threads $t >/dev/null || bad "export of big PNGs --threads $t"
done
cmp -s "$TMP/saves_big_t1.mcap" "$TMP/saves_big_t2.mcap" || bad "big PNGs: --threads 1 and 2 differ"
if [ -d /dev/shm ] && [ -w /dev/shm ]; then
  SHM=$(mktemp -d /dev/shm/sensim-mcap.XXXXXX)  # the run there too: copy_file_range within one file system
  cp -r "$TMP/saves_big" "$SHM/run"
  "$SENSIM" export mcap "$SHM/run" --out "$SHM/big.mcap" --map "$MAPS/town.xodr" >/dev/null || bad "export of big PNGs on tmpfs"
  cmp -s "$TMP/saves_big_t1.mcap" "$SHM/big.mcap" || bad "big PNGs: the file written on tmpfs differs"
  "$SENSIM" export mcap "$TMP/saves_big" --out "$SHM/across.mcap" >/dev/null || bad "export of big PNGs to tmpfs"
  cmp -s "$TMP/saves_big_t1.mcap" "$SHM/across.mcap" || bad "big PNGs: the file written across file systems differs"
  rm -rf "$SHM"
fi
python3 - "$TMP/saves_big_t1.mcap" "$TMP/saves_big/hero_rgb" <<'PY' || bad "the big PNGs' file is wrong"
import struct, sys, zlib
b = open(sys.argv[1], "rb").read(); off = 8
pngs = [open(sys.argv[2] + "/%06d.png" % i, "rb").read() for i in (1, 11, 21)]
assert all(len(p) > 256 << 10 for p in pngs)
found, stored = set(), 0
while off + 9 <= len(b):
    op, ln = b[off], struct.unpack_from("<Q", b, off + 1)[0]; body = off + 9
    if op == 0x06:
        usize, crc = struct.unpack_from("<QI", b, body + 16)
        n = struct.unpack_from("<I", b, body + 28)[0]
        comp = b[body + 32:body + 32 + n]; at = body + 32 + n
        if comp == b"":
            rec = b[at + 8:at + 8 + usize]; stored += 1
            assert zlib.crc32(rec) == crc, ("stored chunk CRC", off)
            for i, p in enumerate(pngs):
                k = rec.find(p)
                if k >= 0:
                    assert rec[k + len(p):k + len(p) + 5] == b"\x1a\x03png", "no format after the PNG"
                    assert k + len(p) + 5 == len(rec), "a big PNG's message does not end its chunk"
                    found.add(i)
    elif op == 0x0F:
        assert struct.unpack_from("<I", b, body)[0] == zlib.crc32(b[:off]), "DataEnd's CRC"
        break
    off += 9 + ln
assert found == {0, 1, 2} and stored > 3, (found, stored)
PY

[ $fails -eq 0 ] && echo "mcap: all checks passed"
exit $((fails > 0))
