#!/usr/bin/env bash
# The views of a run, checked with other programs than sensim's own: `sensim convert --video`
# decodes with FFmpeg's ffprobe/ffmpeg to the stream's frame count, size (odd sizes padded to
# even) and rate (from the timestamps, read here with python msgpack), and looks like the PNGs
# `sensim convert --out` writes; the GIF of a semantic camera is those PNGs exactly; the bytes
# are the same twice; bad input is exit 2 with nothing written and nothing replaced. `sensim
# report` loads in Debian's chromium (puppeteer-core) with no console error or outside request
# and shows every plot with what the run folder holds.
# usage: views.sh SENSIM TMP_DIR VIEWS_DIR (tests/views: the page check and its node_modules)
set -u
SENSIM=$1 TMP=$2/views VIEWS=$3
PY=/usr/bin/python3
for tool in ffprobe ffmpeg node chromium; do
  command -v $tool >/dev/null || { echo "SKIP: $tool is not installed (scripts/setup.sh installs it)"; exit 77; }
done
[ -d "$VIEWS/node_modules/puppeteer-core" ] || { echo "SKIP: no $VIEWS/node_modules (scripts/setup.sh runs npm ci there)"; exit 77; }
rm -rf "$TMP" && mkdir -p "$TMP/run"
fails=0 checks=0
ok() { checks=$((checks + 1)); }
bad() { checks=$((checks + 1)); fails=$((fails + 1)); echo "FAIL: $*" >&2; }

cat >"$TMP/scene.yaml" <<'YAML'
settings: {fixed_delta_seconds: 0.05, frames: 24, seed: 3}
actors:
  - {name: ground, blueprint: static.ground, attributes: {texture: checker}}
  - name: hero
    blueprint: vehicle.sedan
    transform: {location: [0, 0, 0]}
    velocity: [12, 0, 0]
    attributes: {color: "220,40,30", texture: checker}
  - {name: wall, blueprint: static.prop.box, transform: {location: [9, 0, 1.5]}, attributes: {extent: "0.5,5,1.5"}}
sensors:
  - {name: crash, blueprint: sensor.other.collision, attach_to: hero}
  - {name: rgb, blueprint: sensor.camera.rgb, attach_to: hero, transform: {location: [1.5, 0, 2.4]},
     attributes: {image_size_x: 161, image_size_y: 121, sensor_tick: 0.1}}
  - {name: depth, blueprint: sensor.camera.depth, attach_to: hero, transform: {location: [1.5, 0, 2.4]},
     attributes: {image_size_x: 96, image_size_y: 64}}
  - {name: semantic, blueprint: sensor.camera.semantic_segmentation, transform: {location: [-4, 3, 3], rotation: [-15, 0, 0]},
     attributes: {image_size_x: 160, image_size_y: 120}}
  - {name: instance, blueprint: sensor.camera.instance_segmentation, transform: {location: [-4, 3, 3]},
     attributes: {image_size_x: 96, image_size_y: 64}}
  - {name: flow, blueprint: sensor.camera.optical_flow, attach_to: hero, transform: {location: [1.5, 0, 2.4]},
     attributes: {image_size_x: 96, image_size_y: 64}}
  - {name: dvs, blueprint: sensor.camera.dvs, transform: {location: [-4, 3, 3]},
     attributes: {image_size_x: 128, image_size_y: 96}}
YAML
echo "map: $(cd "$VIEWS/../../maps" && pwd)/town.xodr" >>"$TMP/scene.yaml" # its lanes go under the report's paths
R=$TMP/run
"$SENSIM" run "$TMP/scene.yaml" --out "$R" --quiet --threads 2 --stats "$R/stats.json" --record "$R/run.sensimrec" \
  || { echo "FAIL: the run failed"; exit 1; }

# what a stream holds, read without sensim: messages, picture size, the rate of its timestamps
# (the median gap: a DVS skips frames without events, so compare with ffprobe's r_frame_rate,
# not its average over the span)
facts() {
  $PY - "$1" <<'EOF'
import sys, msgpack
from fractions import Fraction
ts, w, h = [], 0, 0
with open(sys.argv[1], 'rb') as f:
    for m in msgpack.Unpacker(f, raw=False):
        ts.append(m['timestamp']); w, h = m['width'], m['height']
d = sorted(b - a for a, b in zip(ts, ts[1:]))
rate = Fraction(1 / d[(len(d) - 1) // 2]).limit_denominator(1000) if d else Fraction(1)
print(len(ts), w + w % 2, h + h % 2, f"{rate.numerator}/{rate.denominator}")
EOF
}
probe() { # frames width height rate of the first video stream
  ffprobe -v error -select_streams v:0 -count_frames -show_entries stream=nb_read_frames,width,height,r_frame_rate,codec_name \
    -of default=nw=1 "$1" | sort | tr '\n' ' '
}

# 1. every kind of camera as H.264: frame count, even size and rate as the stream says
for s in rgb depth semantic instance flow dvs; do
  read -r n w h rate < <(facts "$R/$s.msgpack")
  if "$SENSIM" convert "$R/$s.msgpack" --video "$TMP/$s.mp4" >"$TMP/$s.out" 2>&1; then
    got=$(probe "$TMP/$s.mp4")
    want="codec_name=h264 height=$h nb_read_frames=$n r_frame_rate=$rate width=$w "
    [ "$got" = "$want" ] && ok || bad "$s.mp4: ffprobe says '$got', expected '$want'"
  else
    bad "$s: convert --video failed: $(cat "$TMP/$s.out")"
  fi
done
read -r n _ _ rate < <(facts "$R/rgb.msgpack")
[ "$rate" = 10/1 ] && [ "$n" -ge 10 ] && ok || bad "the rgb camera (sensor_tick 0.1 at 0.05 s) should tick at 10/1, $n times: $rate"

# 2. the video shows the same pictures as the PNGs: every frame within 30 dB PSNR of its PNG
"$SENSIM" convert "$R/rgb.msgpack" --out "$TMP/rgb_png" >/dev/null
ffmpeg -v error -i "$TMP/rgb.mp4" -vf format=rgb24,crop=161:121:0:0 -f rawvideo -pix_fmt rgb24 "$TMP/rgb_video.raw"
# (one ffmpeg reads them all, in name order: a process per picture cost seconds under load)
ffmpeg -v error -pattern_type glob -i "$TMP/rgb_png/*.png" -f rawvideo -pix_fmt rgb24 - >"$TMP/rgb_png.raw"
$PY - "$TMP/rgb_video.raw" "$TMP/rgb_png.raw" <<'EOF' && ok || bad "rgb.mp4 does not look like the PNGs"
import sys, numpy as np
a = np.fromfile(sys.argv[1], np.uint8).astype(float); b = np.fromfile(sys.argv[2], np.uint8).astype(float)
assert a.size == b.size and a.size > 0, (a.size, b.size)
fr = 161 * 121 * 3
for i in range(a.size // fr):
    mse = ((a[i*fr:(i+1)*fr] - b[i*fr:(i+1)*fr]) ** 2).mean()
    psnr = 99 if mse == 0 else 10 * np.log10(255 ** 2 / mse)
    assert psnr > 30, f"frame {i}: PSNR {psnr:.1f} dB"
EOF

# 3. the GIF of a semantic camera (29 colours at most: an exact palette) is its PNGs exactly
"$SENSIM" convert "$R/semantic.msgpack" --converter cityscapes --gif "$TMP/semantic.gif" >/dev/null &&
  "$SENSIM" convert "$R/semantic.msgpack" --converter cityscapes --out "$TMP/sem_png" >/dev/null || bad "semantic gif"
ffmpeg -v error -i "$TMP/semantic.gif" -f rawvideo -pix_fmt rgb24 "$TMP/sem_gif.raw"
ffmpeg -v error -pattern_type glob -i "$TMP/sem_png/*.png" -f rawvideo -pix_fmt rgb24 - >"$TMP/sem_png.raw"
[ -s "$TMP/sem_png.raw" ] && cmp -s "$TMP/sem_gif.raw" "$TMP/sem_png.raw" && ok \
  || bad "semantic.gif differs from the cityscapes PNGs ($(stat -c %s "$TMP/sem_gif.raw" "$TMP/sem_png.raw" | tr '\n' ' '))"
# an RGB GIF (median-cut palette): every picture, at its size
read -r n _ _ _ < <(facts "$R/rgb.msgpack")
"$SENSIM" convert "$R/rgb.msgpack" --gif "$TMP/rgb.gif" >/dev/null
got=$(ffprobe -v error -count_frames -show_entries stream=nb_read_frames,width,height -of default=nw=1 "$TMP/rgb.gif" | sort | tr '\n' ' ')
[ "$got" = "height=121 nb_read_frames=$n width=161 " ] && ok || bad "rgb.gif: $got"

# 4. the same stream gives the same bytes (one encoder thread, bit-exact flags)
"$SENSIM" convert "$R/rgb.msgpack" --video "$TMP/again.mp4" --gif "$TMP/again.gif" >/dev/null
cmp -s "$TMP/rgb.mp4" "$TMP/again.mp4" && cmp -s "$TMP/rgb.gif" "$TMP/again.gif" && ok || bad "two encodings differ"

# 5. bad input: exit 2, one error line, nothing written, nothing replaced
expect2() { # NAME WANT-IN-ERROR CMD...
  local name=$1 want=$2; shift 2
  "$@" >"$TMP/bad.out" 2>"$TMP/bad.err"
  local rc=$?
  if [ $rc -eq 2 ] && [ "$(wc -l <"$TMP/bad.err")" -eq 1 ] && grep -q "^sensim: error: .*$want" "$TMP/bad.err"; then ok
  else bad "$name: exit $rc, stderr: $(cat "$TMP/bad.err")"; fi
}
mkdir -p "$TMP/bad"
expect2 "not a camera" "not a camera image" "$SENSIM" convert "$R/crash.msgpack" --video "$TMP/bad/c.mp4"
head -c 5000 "$R/rgb.msgpack" >"$TMP/cut.msgpack"
expect2 "a cut stream" "truncated stream" "$SENSIM" convert "$TMP/cut.msgpack" --video "$TMP/bad/t.mp4" --gif "$TMP/bad/t.gif"
expect2 "no folder" "cannot create a file there" "$SENSIM" convert "$R/rgb.msgpack" --video "$TMP/no/such/v.mp4"
[ -z "$(ls -A "$TMP/bad")" ] && ok || bad "failed conversions left files: $(ls -A "$TMP/bad")"
echo precious >"$TMP/bad/keep.mp4"
expect2 "existing video" "exists; sensim does not replace it" "$SENSIM" convert "$R/rgb.msgpack" --video "$TMP/bad/keep.mp4"
expect2 "existing report" "exists; sensim does not replace it" "$SENSIM" report "$R" --out "$TMP/bad/keep.mp4"
[ "$(cat "$TMP/bad/keep.mp4")" = precious ] && [ "$(ls -A "$TMP/bad")" = keep.mp4 ] && ok || bad "an existing output was touched"
# --overwrite (docs/cli.md): a failure still leaves the file as it was; success replaces it whole
expect2 "a cut stream with --overwrite" "truncated stream" "$SENSIM" convert "$TMP/cut.msgpack" --video "$TMP/bad/keep.mp4" --overwrite
expect2 "a report of no run with --overwrite" "not a run's output folder" "$SENSIM" report "$TMP/bad" --out "$TMP/bad/keep.mp4" --overwrite
[ "$(cat "$TMP/bad/keep.mp4")" = precious ] && [ "$(ls -A "$TMP/bad")" = keep.mp4 ] && ok || bad "a failure with --overwrite touched the file"
expect2 "--overwrite of PNG files" "goes with --video or --gif" "$SENSIM" convert "$R/rgb.msgpack" --out "$TMP/bad/d" --overwrite
cp "$TMP/bad/keep.mp4" "$TMP/over.mp4" && cp "$TMP/bad/keep.mp4" "$TMP/over.gif"
"$SENSIM" convert "$R/rgb.msgpack" --video "$TMP/over.mp4" --gif "$TMP/over.gif" --overwrite >/dev/null &&
  cmp -s "$TMP/over.mp4" "$TMP/rgb.mp4" && cmp -s "$TMP/over.gif" "$TMP/rgb.gif" && ok || bad "convert --overwrite did not replace"
cp "$TMP/bad/keep.mp4" "$TMP/over.html"
"$SENSIM" report "$R" --out "$TMP/over.html" --overwrite >/dev/null && grep -q "<html" "$TMP/over.html" && ok ||
  bad "report --overwrite did not replace"
ls -A "$TMP" | grep -q sensim- && bad "--overwrite left staging files: $(ls -A "$TMP" | grep sensim-)"
expect2 "--out with --video" "goes alone" "$SENSIM" convert "$R/rgb.msgpack" --out "$TMP/bad/d" --video "$TMP/bad/v.mp4"
mkdir -p "$TMP/empty"
expect2 "not a run folder" "not a run's output folder" "$SENSIM" report "$TMP/empty" --out "$TMP/bad/r.html"
[ "$(ls -A "$TMP/bad")" = keep.mp4 ] && ok || bad "failed commands left files: $(ls -A "$TMP/bad")"

# 6. the report in a real browser: no console error, nothing fetched, every plot with content.
# The pages of the run, of its streams without the recording, and of a run cut short are written
# first, then one browser loads the three (its start-up was most of a page's time): a line of
# facts JSON each ({"error": ...} for a page that is not there: its checks fail).
# without the recording: the sensors' mounts from their streams, collisions from the collision sensor
mkdir -p "$TMP/streams_only" && cp "$R"/*.msgpack "$TMP/streams_only/"
# a run killed mid-way leaves streams and a recording cut short (or damaged): the page shows what
# came before, and says so
mkdir -p "$TMP/cut" && cp "$R"/*.msgpack "$TMP/cut/" && head -c 100000 "$R/depth.msgpack" >"$TMP/cut/depth.msgpack"
printf 'not msgpack \xc1' >"$TMP/cut/garbage.msgpack"
head -c $(($(stat -c %s "$R/run.sensimrec") / 2)) "$R/run.sensimrec" >"$TMP/cut/run.sensimrec"
"$SENSIM" report "$R" --out "$TMP/report.html" >/dev/null
"$SENSIM" report "$TMP/streams_only" --out "$TMP/streams_only.html" >/dev/null
"$SENSIM" report "$TMP/cut" --out "$TMP/cut.html" >/dev/null
(cd "$VIEWS" && timeout 180 node report_check.mjs "$(command -v chromium)" "$TMP"/{report,streams_only,cut}.html) \
  >"$TMP/pages.json"
sed -n 1p "$TMP/pages.json" >"$TMP/report.json"
sed -n 2p "$TMP/pages.json" >"$TMP/streams_only.json"
sed -n 3p "$TMP/pages.json" >"$TMP/cut.json"
$PY - "$R" "$TMP/report.json" <<'EOF' && ok || bad "report.html: $(cat "$TMP/report.json")"
import sys, json, os, msgpack
run, f = sys.argv[1], json.load(open(sys.argv[2]))
streams = sorted(n for n in os.listdir(run) if n.endswith('.msgpack'))
counts = [sum(1 for _ in msgpack.Unpacker(open(os.path.join(run, n), 'rb'))) for n in streams]
cams = [c for n, c in zip(streams, counts) if n[:-8] in ('rgb', 'depth', 'semantic', 'instance', 'flow', 'dvs')]
assert f['problems'] == [], f['problems']
assert f['paths_box'][0] > 100 and f['paths_box'][1] > 100, 'empty path plot'
assert f['polylines'] >= 1 and min(f['polyline_points']) >= 2, 'no path of the moving hero'
assert f['map_lanes'] >= 2, 'the lanes of the scene\'s map are not drawn'
assert 'hero' in f['legend'], f['legend']
assert f['collisions'] >= 1, 'the hero hits the wall: no collision marked'
assert f['count_rows'] == len(streams) and f['totals'] == counts, (f['totals'], counts)
assert f['count_bars'] >= len([c for c in counts if c]), 'a sensor with messages has no bar'
assert f['strips'] == len(cams) == 6, f['strips']
assert len(f['images']) == sum(min(8, c) for c in cams), len(f['images'])
assert all(done and w > 0 and h > 0 for done, w, h in f['images']), 'an image did not load'
assert f['summary_rows'] >= 8
EOF
# a collision's time is the same from the recording (report.html) as from the collision sensor's
# stream (streams_only.html): the frame's time as the streams stamp it, not the recorder's clock
t_rec=$(grep -o '[0-9.]* s, frame [0-9]*' "$TMP/report.html" | head -1)
t_str=$(grep -o '[0-9.]* s, frame [0-9]*' "$TMP/streams_only.html" | head -1)
[ -n "$t_rec" ] && [ "$t_rec" = "$t_str" ] && ok || bad "a collision at '$t_rec' from the recording, '$t_str' from its stream"
# over.html (step 5: report --overwrite of the same run folder) is the second report
cmp -s "$TMP/report.html" "$TMP/over.html" && ok || bad "two reports of one run folder differ"
grep -q "<td>3</td>" "$TMP/report.html" && grep -q "scene.yaml" "$TMP/report.html" && ok || bad "the summary lacks the seed or scene"
$PY - "$TMP/streams_only.json" <<'EOF' && ok || bad "streams_only.html: $(cat "$TMP/streams_only.json")"
import sys, json
f = json.load(open(sys.argv[1]))
assert f['problems'] == [] and f['polylines'] >= 1 and f['collisions'] >= 1 and f['strips'] == 6, f
EOF

# the map from the run's own note (run.json), with neither stats.json nor a recording to name the scene
mkdir -p "$TMP/noted" && cp "$R"/*.msgpack "$R/run.json" "$TMP/noted/"
"$SENSIM" report "$TMP/noted" --out "$TMP/noted.html" >/dev/null && grep -q '<g class="map"' "$TMP/noted.html" &&
  ! grep -q '<g class="map"' "$TMP/streams_only.html" && ok || bad "the report did not find the map run.json names"

# the run cut short: the page notes what was cut and still draws the paths
grep -q "stream cut short</th><td>.*depth.msgpack: truncated stream" "$TMP/cut.html" &&
  grep -q "stream cut short</th><td>.*garbage.msgpack: corrupt stream" "$TMP/cut.html" &&
  grep -q "run.sensimrec (cut short: " "$TMP/cut.html" &&
  $PY -c 'import json, sys; f = json.load(open(sys.argv[1])); assert f["problems"] == [] and f["polylines"] >= 1, f' \
    "$TMP/cut.json" && ok || bad "cut files: no page, no note, or no paths: $(cat "$TMP/cut.json")"

echo "$checks checks, $fails failed"
[ $fails -eq 0 ]
