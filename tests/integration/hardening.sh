#!/usr/bin/env bash
# Hostile inputs (issue 15), each a minimal reproducer: every one ends with one
# `sensim: error:` line and exit 2 (or, for a run that fails later, exit 1 with every earlier
# output untouched) — never a crash, a hang or a destroyed output.
# usage: hardening.sh SENSIM PLUGIN_DIR TMP_DIR HOSTILE_PLUGIN_DIR
set -u
SENSIM=$1 PLUGINS=$2 TMP=$3/hardening
rm -rf "$TMP" && mkdir -p "$TMP"
export SENSIM_PLUGIN_PATH=$PLUGINS
fails=0 checks=0
ok() { checks=$((checks + 1)); }
bad() { checks=$((checks + 1)); fails=$((fails + 1)); echo "FAIL: $*" >&2; }

# scene NAME BODY -> a scene with a ground and BODY (YAML lines under actors:), 3 frames
scene() {
  printf 'settings: {fixed_delta_seconds: 0.05, frames: 3}\nactors:\n  - {name: ground, blueprint: static.ground}\n%s\n' "$2" \
    >"$TMP/$1.yaml"
  echo "$TMP/$1.yaml"
}
# expect CODE WHAT GREP CMD... : exit CODE within 60 s, exactly one stderr line, matching GREP
expect() {
  local code=$1 what=$2 pat=$3
  shift 3
  timeout 60 "$@" >"$TMP/out.txt" 2>"$TMP/err.txt"
  local rc=$? n
  n=$(grep -c '^sensim: error: ' "$TMP/err.txt")
  if [ "$rc" -eq "$code" ] && [ "$n" -eq 1 ] && grep -q -- "$pat" "$TMP/err.txt"; then ok
  else bad "$what: exit $rc (want $code), stderr: $(head -c 600 "$TMP/err.txt")"; fi
}
run2() { expect 2 "$1" "$2" "$SENSIM" run "$3" --out "$TMP/o_$1" --quiet; }
runok() {
  timeout 60 "$SENSIM" run "$2" --out "$TMP/o_$1" --quiet 2>"$TMP/err.txt"
  local rc=$?
  [ "$rc" -eq 0 ] && ok || bad "$1: exit $rc (want 0): $(head -c 600 "$TMP/err.txt")"
}

## 1. numbers that used to reach ODE and abort the process
run2 velocity "velocity must be at most 1000 m/s (SN_LIMIT_SPEED)" \
  "$(scene vel '  - {name: a, blueprint: vehicle.sedan, velocity: [1e6, 0, 0]}')"
run2 walker_speed "control.speed must be within \[0, 10\] m/s" \
  "$(scene wspeed '  - {name: a, blueprint: walker.pedestrian, transform: {location: [0, 0, 1]}, control: {direction: [1, 0, 0], speed: 1e308}}')"
run2 far "transform.location must be within 1e+07 m of the origin (SN_LIMIT_COORD)" \
  "$(scene far '  - {name: a, blueprint: vehicle.sedan, transform: {location: [1e12, 0, 0.75]}}')"
run2 rotation "rotation angles must be within" \
  "$(scene rot '  - {name: a, blueprint: vehicle.sedan, transform: {rotation: [0, 1e300, 0]}}')"
# the largest values in range run (extent 1e4, 1000 m/s, a light and wide vehicle in the air)
runok extent "$(scene ext '  - {name: a, blueprint: static.prop.box, transform: {location: [0, 0, 5]}, attributes: {extent: "1e4,1e4,1e4"}}')"
runok extent_vehicle "$(scene extv '  - {name: b, blueprint: vehicle.sedan, transform: {location: [0, 0, 0], rotation: [0, 10, 0]}, attributes: {extent: "1e4,1e4,1e4"}, velocity: [1000, 0, 0]}')"
runok light_wide "$(scene lw '  - {name: a, blueprint: vehicle.truck, transform: {location: [0, 0, 60], rotation: [30, 10, 40]}, attributes: {extent: "50,50,50", mass: 50, center_of_mass_height: 0.1}, velocity: [0, 700, 700]}
  - {name: w, blueprint: walker.pedestrian, transform: {location: [300, 0, 1]}, control: {direction: [1e300, 1e300, 0], speed: 10}}')"

## 2. hangs
runok route_one_point "$(scene loop1 '  - {name: a, blueprint: vehicle.sedan, autopilot: {route: [[0, 0, 0]], loop: true}}')"
runok route_walker_close "$(scene loop2 '  - {name: a, blueprint: walker.pedestrian, transform: {location: [0, 0, 1]}, autopilot: {route: [[0, 0, 1], [0.1, 0, 1]], loop: true}}')"
printf 'settings: {fixed_delta_seconds: 1e-300}\n' >"$TMP/dt.yaml"
run2 dt_tiny "fixed_delta_seconds must be within \[1e-06, 1\] seconds" "$TMP/dt.yaml"
printf 'settings: {duration: 1e308}\n' >"$TMP/dur.yaml"
run2 duration_huge "more than the limit of 1000000000 (SN_LIMIT_FRAMES)" "$TMP/dur.yaml"

## 4. attachment cycles, and 9. depth
run2 attach_cycle "attach_to 'q' forms a cycle" "$(scene cyc '  - {name: p, blueprint: static.prop.box, attach_to: q}
  - {name: q, blueprint: static.prop.box, attach_to: p, transform: {location: [10, 0, 0]}}
sensors:
  - {name: c, blueprint: sensor.other.collision, attach_to: p}')"
run2 attach_self "attach_to 'p' forms a cycle" "$(scene self '  - {name: p, blueprint: static.prop.box, attach_to: p}')"
{ printf 'actors:\n  - {name: a0, blueprint: vehicle.sedan}\n'
  for i in $(seq 1 40); do printf '  - {name: a%d, blueprint: static.prop.box, attach_to: a%d, transform: {location: [0, 0, 2]}}\n' $i $((i - 1)); done
} >"$TMP/deep.yaml"
run2 attach_depth "deeper than the limit of 32 parents (SN_LIMIT_ATTACH_DEPTH)" "$TMP/deep.yaml"

## 5. casts in the renderer and the lens
runok camera_far_checker "$(scene camfar 'sensors:
  - {name: cam, blueprint: sensor.camera.rgb, transform: {location: [1e7, -1e7, 10], rotation: [-89, 0, 0]}, attributes: {image_size_x: 8, image_size_y: 8, lens_k: 1000, lens_kcube: -1000}}')"
run2 lens_k "'lens_k' of 'sensor.camera.rgb': 1e+308 is outside the range \[-1000, 1000\]" "$(scene lens 'sensors:
  - {name: cam, blueprint: sensor.camera.rgb, attributes: {image_size_x: 8, image_size_y: 8, lens_k: 1e308}}')"

## 9. limits
run2 image_size "over the limit of 67108864 pixels (SN_LIMIT_IMAGE_PIXELS)" "$(scene big 'sensors:
  - {name: cam, blueprint: sensor.camera.rgb, attributes: {image_size_x: 16384, image_size_y: 16384}}')"
run2 sensor_memory "over the limit of 4096 MiB (SN_LIMIT_SENSOR_MEMORY" "$(scene mem 'sensors:
  - {name: c1, blueprint: sensor.camera.rgb, attributes: {image_size_x: 8192, image_size_y: 8192}}
  - {name: c2, blueprint: sensor.camera.depth, attributes: {image_size_x: 8192, image_size_y: 8192}}
  - {name: c3, blueprint: sensor.camera.depth, attributes: {image_size_x: 8192, image_size_y: 8192}}')"
printf 'settings: {frames: 1e18}\n' >"$TMP/fr.yaml"
run2 frames_float "expected a whole number >= 0 for frames" "$TMP/fr.yaml"
printf 'settings: {frames: 1000000001}\n' >"$TMP/fr2.yaml"
run2 frames_limit "frames must be within \[1, 1000000000\] (SN_LIMIT_FRAMES)" "$TMP/fr2.yaml"
printf 'settings: {duration: 1e12}\n' >"$TMP/dur2.yaml"
run2 duration_limit "SN_LIMIT_FRAMES" "$TMP/dur2.yaml"
expect 2 "--frames 2^64-1" "SN_LIMIT_FRAMES" "$SENSIM" run "$(scene fr3 '')" --out "$TMP/o_fr3" --frames 18446744073709551615

## 10. lenient parsing
printf 'settings: {frames: 0}\n' >"$TMP/f0.yaml"
run2 frames_zero "frames must be within \[1, 1000000000\]" "$TMP/f0.yaml"
printf "settings: {frames: ' 5'}\n" >"$TMP/fsp.yaml"
run2 frames_space "expected a whole number >= 0 for frames, found ' 5'" "$TMP/fsp.yaml"
printf "settings: {frames: +3}\n" >"$TMP/fplus.yaml"
run2 frames_plus "expected a whole number >= 0 for frames, found '+3'" "$TMP/fplus.yaml"
# one set of number rules (issue 33 item 10): what a scene refuses, a spec, --set, an option
# and an attribute refuse too; what it takes, they take
expect 2 "--frames +3" "--frames" "$SENSIM" run "$(scene fr4 '')" --out "$TMP/o_fr4" --frames +3
expect 2 "--set frames=+3" "expected a whole number >= 0 for frames, found '+3'" "$SENSIM" run "$(scene fr5 '')" --out "$TMP/o_fr5" --set settings.frames=+3
printf 'runs:\n  - {id: a, scene: %s, frames: "+3"}\n' "$(scene fr6 '')" >"$TMP/spec_plus.yaml"
# the spec reads numbers with the scene's getters (scene/yamlget.c): the same words, at the spec's file:line:col
expect 2 "spec frames: +3" "spec_plus.yaml:2:[0-9]*: expected a whole number >= 0 for frames, found '+3'" "$SENSIM" batch "$TMP/spec_plus.yaml" --out "$TMP/o_spec_plus"
printf 'timeout: "+5"\nruns:\n  - {id: a, scene: %s}\n' "$(scene fr7 '')" >"$TMP/spec_tplus.yaml"
expect 2 "spec timeout: +5" "spec_tplus.yaml:1:10: expected a number for timeout, found '+5'" "$SENSIM" batch "$TMP/spec_tplus.yaml" --out "$TMP/o_spec_tplus"
expect 2 "--jobs +2" "" "$SENSIM" batch "$TMP/spec_tplus.yaml" --out "$TMP/o_spec_j" -j +2
run2 attr_plus "expected a float, found '+1200'" "$(scene aplus '  - {name: a, blueprint: vehicle.sedan, transform: {location: [5, 0, 0.8]}, attributes: {mass: "+1200"}}')"
run2 attr_hex "expected a float, found '0x10'" "$(scene ahex '  - {name: a, blueprint: vehicle.sedan, transform: {location: [5, 0, 0.8]}, attributes: {mass: "0x10"}}')"
run2 number_plus "expected a number" "$(scene nplus '  - {name: a, blueprint: vehicle.sedan, transform: {location: [+5, 0, 0.8]}}')"
runok attr_exp "$(scene aexp '  - {name: a, blueprint: vehicle.sedan, transform: {location: [5, 0, 0.8]}, attributes: {mass: "1.2e3"}}')"
timeout 60 "$SENSIM" run "$(scene fr8 '')" --out "$TMP/o_fr8" --frames 3 --set settings.frames=4 --quiet && ok || bad "--frames 3 and --set frames=4 refused"
run2 color_trailing "color" "$(scene col '  - {name: a, blueprint: vehicle.sedan, attributes: {color: "1,2,3,"}}')"
run2 scene_dir "is a folder" "$TMP"

## 3. outputs: save paths, and an --out full of traps is never written through
cam() { scene "$1" "sensors:
  - {name: cam, blueprint: sensor.camera.rgb, attributes: {image_size_x: 8, image_size_y: 6}, save: {path: \"$2\"}}
  - {name: cam2, blueprint: sensor.camera.depth, attributes: {image_size_x: 8, image_size_y: 6}${3:-}}"; }
run2 save_over_stream "has no frame number" "$(cam s1 cam2.msgpack.part)"
run2 save_stream_name "has no frame number" "$(cam s2 cam2.msgpack)"
run2 save_not_png "must end in .png" "$(cam s2b 'x%d.msgpack')"
run2 save_no_frame "has no frame number" "$(cam s3 x.png)"
run2 save_into_stream "goes inside 'cam2.msgpack', the stream of sensor 'cam2'" "$(cam s4 'cam2.msgpack/%d.png')"
run2 save_collide "save path 'a/x1%02d.png' may name the same files as sensor 'cam' ('a/x%d.png')" "$(cam s5 'a/x%d.png' ', save: {path: "a/x1%02d.png"}')"
run2 save_long "save path of 3006 bytes is longer than the limit of 1024" "$(cam s6 "$(printf 'a%.0s' $(seq 1 3000))%d.png")"
run2 save_dir "a part of the path is empty" "$(cam s7 'sub//%d.png')"
run2 save_dot "a part of the path is empty, '.'" "$(cam s8 './%d.png')"
run2 save_name_long "longer than 200 bytes" "$(cam s9 "$(printf 'a%.0s' $(seq 1 300))%d.png")"
touch "$TMP/afile"
expect 2 "save through a file" "afile exists and is not a folder" "$SENSIM" run "$(cam s10 'afile/%d.png')" --out "$TMP" --quiet
# traps in --out: a stream-named link (its target must not change), a folder named like a stream
good=$(cam good 'img/%06d.png')
T=$TMP/traps && mkdir -p "$T" && echo precious >"$TMP/target"
ln -s "$TMP/target" "$T/cam.msgpack"
expect 2 "a link named like a stream" "cam.msgpack is a symbolic link" "$SENSIM" run "$good" --out "$T" --quiet
[ "$(cat "$TMP/target")" = precious ] && [ "$(ls -A "$T")" = cam.msgpack ] && ok || bad "the link trap changed something"
rm "$T/cam.msgpack" && mkdir "$T/cam2.msgpack"
expect 2 "a folder named like a stream" "cam2.msgpack exists and is not a regular file (a folder)" \
  "$SENSIM" run "$good" --out "$T" --quiet
# an old output is replaced only by a whole run: a failing run (frames past the end of a
# second scene's sensors are fine) leaves --out exactly as it was
rm -rf "$T" && mkdir -p "$T"
runok_out() { timeout 60 "$SENSIM" run "$1" --out "$T" --quiet 2>"$TMP/err.txt" && ok || bad "good run: $(cat "$TMP/err.txt")"; }
runok_out "$good"
before=$(cd "$T" && find . -type f | sort | xargs md5sum)
printf 'settings: {frames: 8}\nsensors:\n  - {name: cam, blueprint: sensor.test.faulty, attributes: {mode: fail_tick, at_frame: 5}}\n' >"$TMP/failing.yaml"
expect 1 "a failing run" "failing in tick at frame 5" "$SENSIM" run "$TMP/failing.yaml" --out "$T" --quiet \
  --plugin-dir "$(dirname "$PLUGINS")/tests/plugins"
[ "$(cd "$T" && find . -path './sensim-partial-*' -prune -o -type f -print | sort | xargs md5sum)" = "$before" ] && ok \
  || bad "a failing run changed --out"
[ "$(ls -d "$T"/sensim-partial-* | wc -l)" -eq 1 ] && [ -f "$T"/sensim-partial-*/cam.msgpack ] && ok \
  || bad "a failing run: expected one partial folder with its stream: $(ls -R "$T")"
# a full file system (a 64 KiB tmpfs, where this test may mount one): exit 1 naming the file,
# --out as it was apart from the partial folder
F=$TMP/full && mkdir -p "$F"
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=64k tmpfs "$F" 2>/dev/null; then
  echo old >"$F/keep.txt"
  big=$(cam big2 'img/%06d.png')
  sed -i 's/image_size_x: 8, image_size_y: 6/image_size_x: 200, image_size_y: 150/; s/frames: 3/frames: 40/' "$big"
  expect 1 "a full disk" "No space left on device" "$SENSIM" run "$big" --out "$F" --quiet
  [ "$(cat "$F/keep.txt")" = old ] && [ "$(ls -A "$F" | grep -v '^sensim-partial-' | tr '\n' ' ')" = "keep.txt " ] && ok \
    || bad "a full disk changed --out: $(ls -A "$F")"
  # convert onto the full disk: exit 2 naming the image, the images before it whole, no torn one
  rm -rf "$F"/sensim-partial-*
  timeout 60 "$SENSIM" run "$big" --out "$TMP/conv_src" --quiet 2>"$TMP/err.txt" || bad "convert source: $(cat "$TMP/err.txt")"
  expect 2 "convert onto a full disk" "cannot write .*/pngs/0000[0-9][0-9].png: No space left on device" \
    "$SENSIM" convert "$TMP/conv_src/cam2.msgpack" --out "$F/pngs"
  n=$(ls "$F/pngs" | wc -l)
  [ "$n" -ge 1 ] && [ "$n" -lt 40 ] && [ "$(cat "$F/keep.txt")" = old ] && python3 -c '
import sys
for p in sys.argv[1:]:
    b = open(p, "rb").read()
    assert b[:8] == b"\x89PNG\r\n\x1a\n" and b[-12:-8] == b"\0\0\0\0" and b[-8:-4] == b"IEND", p
' "$F"/pngs/*.png && ok || bad "convert onto a full disk: $n images, or a torn one: $(ls -la "$F/pngs" | tail -3)"
  umount "$F"
fi

## 7. the stream reader behind dump and convert
printf '\xdd\x40\x00\x00\x00' >"$TMP/arr.msgpack"   # an array claiming 2^30 entries in 5 bytes
printf '\xdf\xff\xff\xff\xff' >"$TMP/map.msgpack"   # a map claiming 2^32 - 1
for f in arr map; do
  expect 2 "dump $f claim" "corrupt stream: a container claims more entries than the limit" "$SENSIM" dump "$TMP/$f.msgpack"
  expect 2 "convert $f claim" "corrupt stream" "$SENSIM" convert "$TMP/$f.msgpack" --out "$TMP/conv_$f"
done
printf '\x81\xa1k\x91\x91\x91' >"$TMP/trunc.msgpack"
expect 2 "dump truncated" "truncated stream: the message is incomplete (message 1 at byte 0)" "$SENSIM" dump "$TMP/trunc.msgpack"
# a device is no stream: refused before a read (issue 33 item 19: every input through the checked opener)
expect 2 "dump /dev/zero" "/dev/zero: not a stream: it is not a regular file" "$SENSIM" dump /dev/zero
# non-string keys and bytes that are not UTF-8 still give JSON, one object per line
printf '\x83\x01\x02\x92\xa1a\x01\x03\xa2\xff\xfe\xc4\x02ab' >"$TMP/keys.msgpack"
"$SENSIM" dump "$TMP/keys.msgpack" >"$TMP/keys.json" 2>"$TMP/err.txt" && python3 -c '
import json, sys
o = json.loads(open(sys.argv[1], "rb").read().decode("utf-8"))
assert o == {"1": 2, "$array": 3, "\ufffd\ufffd": {"$bin_bytes": 2}}, o
' "$TMP/keys.json" && ok || bad "dump of odd keys is not the JSON expected: $(cat "$TMP/keys.json" "$TMP/err.txt")"
printf '\x81\xa1a\x01' >"$TMP/one.msgpack"
if [ -w /dev/full ]; then
  expect 2 "dump > /dev/full" "dump: cannot write the output" sh -c "exec \"\$0\" dump \"\$1\" >/dev/full" "$SENSIM" "$TMP/one.msgpack"
  # --stats that cannot be written: refused before the run, or failing after it, never silent
  expect 1 "--stats /dev/full" "run: --stats /dev/full: cannot write: No space left on device" \
    "$SENSIM" run "$(scene st1 '')" --out "$TMP/o_st1" --quiet --stats /dev/full
fi
expect 2 "--stats in a missing folder" "run: --stats $TMP/no/such/s.json: No such file or directory" \
  "$SENSIM" run "$(scene st2 '')" --out "$TMP/o_st2" --quiet --stats "$TMP/no/such/s.json"

## 8. the plugin loader: descriptors it must refuse, and a crash in sn_plugin_entry
H=$4
timeout 60 "$SENSIM" plugins --plugin-dir "$H" >"$TMP/plugins.txt" 2>"$TMP/err.txt"
rc=$?
[ "$rc" -eq 0 ] && ok || bad "sensim plugins with hostile plugins: exit $rc: $(cat "$TMP/err.txt")"
want() { grep -A1 "hostile$1.so\$" "$TMP/plugins.txt" | grep -q -- "$2" && ok || bad "hostile$1: want '$2' in: $(cat "$TMP/plugins.txt")"; }
want 1 "REFUSED: 'sensor.test.hostile': attr_def_size 1073741824, method_def_size 0 or n_attrs 1 is out of range"
want 2 "REFUSED: 'sensor.test.hostile': attr_def_size 4294967295"
want 3 "REFUSED: 'sensor.test.hostile' lists 2 methods but no method table"
want 4 "REFUSED: 'sensor.test.hostile': method 1 has no name"
want 5 "REFUSED: 'sensor.test.hostile' lists 2147483648 methods"
want 6 "REFUSED: crashed (Segmentation fault) in sn_plugin_entry"
want 7 "loaded hostile 0"
timeout 60 "$SENSIM" blueprints --plugin-dir "$H" >/dev/null 2>"$TMP/err.txt" && ok || bad "blueprints: $(cat "$TMP/err.txt")"
printf 'settings: {frames: 3}
sensors:
  - {name: h, blueprint: sensor.test.hostile, calls: [{at: 0, method: send}]}
' >"$TMP/hostile.yaml"
expect 1 "pending() = 0xFFFFFFFF" "sensor 'h' (sensor.test.hostile, plugin .*hostile7.so): pending failed: pending() returned 4294967295" \
  "$SENSIM" run "$TMP/hostile.yaml" --out "$TMP/o_hostile" --plugin-dir "$H" --quiet

echo "$checks checks, $fails failed" >&2
[ "$fails" -eq 0 ]
