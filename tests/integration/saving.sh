#!/usr/bin/env bash
# `save:` images, written by the engine's writer thread: the same bytes as `sensim convert`
# for every image, at any thread count, in frame order; a failure at a later frame fails the
# run with one error line, keeps the streams as .part and writes no image after it.
# usage: saving.sh SENSIM SCENES_DIR TMP_DIR
set -u
SENSIM=$1 SCENES=$2 TMP=$3/saving
rm -rf "$TMP" && mkdir -p "$TMP"
fails=0 checks=0
ok() { checks=$((checks + 1)); }
bad() { checks=$((checks + 1)); fails=$((fails + 1)); echo "FAIL: $*" >&2; }

cat >"$TMP/scene.yaml" <<'YAML'
settings: {frames: 12}
actors:
  - {name: ground, blueprint: static.ground, attributes: {texture: checker}}
  - name: car
    blueprint: vehicle.sedan
    transform: {location: [12, -6, 0.75], rotation: [0, 90, 0]}
    velocity: [0, 10, 0]
    attributes: {color: "220,40,30", texture: checker, checker_size: 0.35}
sensors:
  - {name: rgb, blueprint: sensor.camera.rgb, transform: {location: [0, 0, 1.6]},
     attributes: {image_size_x: 160, image_size_y: 120}, save: {path: "rgb/%06d.png"}}
  - {name: depth, blueprint: sensor.camera.depth, transform: {location: [0, 0, 1.6]},
     attributes: {image_size_x: 96, image_size_y: 64}, save: {path: "depth/f%d.png", converter: logarithmic_depth}}
  - {name: dvs, blueprint: sensor.camera.dvs, transform: {location: [0, 0, 1.6]},
     attributes: {image_size_x: 160, image_size_y: 120}, save: {path: "dvs/%06d.png"}}
YAML

# 1. every saved image equals what `sensim convert` makes of the stream, at 1 and 3 threads
for t in 1 3; do
  timeout 120 "$SENSIM" run "$TMP/scene.yaml" --out "$TMP/t$t" --threads "$t" --quiet || bad "run at $t threads"
done
[ "$(ls "$TMP/t1/rgb" | wc -l)" -eq 12 ] && [ "$(ls "$TMP/t1/depth" | wc -l)" -eq 12 ] && [ "$(ls "$TMP/t1/dvs" | wc -l)" -ge 5 ] \
  && ok || bad "expected 12 rgb and depth images and some event frames"
diff -r "$TMP/t1" "$TMP/t3" >/dev/null && ok || bad "saved images differ between 1 and 3 threads"
for cam in rgb:raw depth:logarithmic_depth dvs:raw; do
  name=${cam%%:*} conv=${cam#*:}
  "$SENSIM" convert "$TMP/t1/$name.msgpack" --converter "$conv" --out "$TMP/conv_$name" >/dev/null || bad "convert $name"
  for f in "$TMP/conv_$name"/*.png; do
    frame=$((10#$(basename "$f" .png)))
    saved=$TMP/t1/$name/$(printf '%06d' "$frame").png
    [ "$name" = depth ] && saved=$TMP/t1/depth/f$frame.png
    cmp -s "$f" "$saved" || bad "$name frame $frame: the saved image is not convert's"
  done
  ok
done

# 2. written in frame order: modification times never go back as the frame grows
prev=0 order=ok
for f in "$TMP/t1/rgb"/*.png; do
  t=$(stat -c %.9Y "$f")
  if awk -v a="$prev" -v b="$t" 'BEGIN { exit !(b < a) }'; then order=bad; fi
  prev=$t
done
[ $order = ok ] && ok || bad "rgb images were not written in frame order"

# 3. the image of frame 5 cannot be written (a folder is in its way): exit 1, one error line
#    naming it, streams left as .part, no image after frame 5
mkdir -p "$TMP/fail/rgb/000005.png"
timeout 120 "$SENSIM" run "$TMP/scene.yaml" --out "$TMP/fail" --quiet 2>"$TMP/fail.err"
rc=$?
[ "$rc" -eq 1 ] && ok || bad "a failed save: exit $rc, want 1"
[ "$(grep -c '^sensim: error: ' "$TMP/fail.err")" -eq 1 ] \
  && grep -q "^sensim: error: frame 5: sensor .rgb.: save: cannot write .*rgb/000005.png\$" "$TMP/fail.err" && ok \
  || bad "a failed save: stderr: $(cat "$TMP/fail.err")"
ls "$TMP/fail"/*.msgpack.part >/dev/null 2>&1 && ! ls "$TMP/fail"/*.msgpack >/dev/null 2>&1 && ok \
  || bad "a failed save: streams should stay .part: $(ls "$TMP/fail")"
[ -f "$TMP/fail/rgb/000004.png" ] && ! ls "$TMP/fail/rgb"/0000{06..12}.png >/dev/null 2>&1 && ok \
  || bad "a failed save: images before it only: $(ls "$TMP/fail/rgb")"

# 4. the last image fails: noticed when the run finishes, which fails the same way
mkdir -p "$TMP/last/rgb/000012.png"
timeout 120 "$SENSIM" run "$TMP/scene.yaml" --out "$TMP/last" --quiet 2>"$TMP/last.err"
rc=$?
[ "$rc" -eq 1 ] && [ "$(grep -c '^sensim: error: ' "$TMP/last.err")" -eq 1 ] \
  && grep -q "^sensim: error: frame 12: sensor 'rgb': save: cannot write .*rgb/000012.png\$" "$TMP/last.err" && ok \
  || bad "the last save failed: exit $rc, stderr: $(cat "$TMP/last.err")"
ls "$TMP/last"/*.msgpack.part >/dev/null 2>&1 && ! ls "$TMP/last"/*.msgpack >/dev/null 2>&1 && ok \
  || bad "the last save failed: streams should stay .part: $(ls "$TMP/last")"

echo "$checks checks, $fails failed"
[ "$fails" -eq 0 ]
