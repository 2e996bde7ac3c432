#!/usr/bin/env bash
# `save:` images, written by the engine's writer thread: the same bytes as `sensim convert`
# for every image, at any thread count, in frame order; a failure at a later frame fails the
# run with one error line and leaves --out as it was (outputs stay in the staging folder).
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

# 3. a folder stands where the image of frame 5 goes: the run writes everything into its
#    staging folder, the commit's check refuses before anything moves: exit 1, one error line
#    naming it, --out exactly as it was plus the staging folder with every output
mkdir -p "$TMP/fail/rgb/000005.png"
timeout 120 "$SENSIM" run "$TMP/scene.yaml" --out "$TMP/fail" --quiet 2>"$TMP/fail.err"
rc=$?
[ "$rc" -eq 1 ] && ok || bad "a folder in the way: exit $rc, want 1"
[ "$(grep -c '^sensim: error: ' "$TMP/fail.err")" -eq 1 ] \
  && grep -q "^sensim: error: .*fail/rgb/000005.png exists and is not a regular file (a folder)" "$TMP/fail.err" && ok \
  || bad "a folder in the way: stderr: $(cat "$TMP/fail.err")"
[ "$(cd "$TMP/fail" && find . -path './sensim-partial-*' -prune -o -print | sort | tr '\n' ' ')" = ". ./rgb ./rgb/000005.png " ] \
  && ok || bad "a folder in the way: --out changed: $(cd "$TMP/fail" && find . | sort)"
part=$(ls -d "$TMP/fail"/sensim-partial-*)
[ -f "$part/rgb.msgpack" ] && [ "$(ls "$part/rgb" | wc -l)" -eq 12 ] && ok \
  || bad "a folder in the way: the partial folder should hold every output: $(ls -R "$part")"

# 4. a link where the images' folder goes: refused at load (exit 2), nothing written
mkdir -p "$TMP/link" "$TMP/elsewhere" && ln -s "$TMP/elsewhere" "$TMP/link/rgb"
timeout 120 "$SENSIM" run "$TMP/scene.yaml" --out "$TMP/link" --quiet 2>"$TMP/link.err"
rc=$?
[ "$rc" -eq 2 ] && grep -q "^sensim: error: .*link/rgb is a symbolic link" "$TMP/link.err" \
  && [ "$(ls -A "$TMP/link")" = rgb ] && [ -z "$(ls -A "$TMP/elsewhere")" ] && ok \
  || bad "a link in the way: exit $rc, stderr: $(cat "$TMP/link.err"), out: $(ls -A "$TMP/link")"

echo "$checks checks, $fails failed"
[ "$fails" -eq 0 ]
