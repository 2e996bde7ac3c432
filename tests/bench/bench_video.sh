#!/usr/bin/env bash
# Video encoding speed at 800x600: `sensim convert --video` (H.264, one encoder thread) and
# `--gif` against `sensim convert --out` (PNG files, libdeflate) of the same camera stream,
# measured in the same run. Each command reads the stream and converts every picture; the
# figure is pictures per second of wall time, best of 3.
# usage: bench_video.sh SENSIM TMP_DIR
set -eu
SENSIM=$1 TMP=$2/bench_video
FRAMES=${SENSIM_BENCH_VIDEO_FRAMES:-60}
rm -rf "$TMP" && mkdir -p "$TMP/run"
cat >"$TMP/scene.yaml" <<YAML
settings: {fixed_delta_seconds: 0.05, frames: $FRAMES, seed: 1}
actors:
  - {name: ground, blueprint: static.ground, attributes: {texture: checker}}
  - {name: hero, blueprint: vehicle.sedan, velocity: [10, 0, 0], attributes: {color: "220,40,30"}}
  - {name: box, blueprint: static.prop.box, transform: {location: [30, 4, 1.5]}, attributes: {extent: "2,2,1.5"}}
sensors:
  - {name: cam, blueprint: sensor.camera.rgb, attach_to: hero, transform: {location: [1.5, 0, 2.4]},
     attributes: {image_size_x: 800, image_size_y: 600}}
YAML
"$SENSIM" run "$TMP/scene.yaml" --out "$TMP/run" --quiet
now() { date +%s.%N; }
best() { # seconds of the fastest of 3 runs of "$@" (outputs removed between runs)
  local b=999999 t0 t1
  for _ in 1 2 3; do
    rm -rf "$TMP/png" "$TMP/v.mp4" "$TMP/v.gif"
    t0=$(now); "$@" >/dev/null; t1=$(now)
    b=$(echo "$t1 $t0 $b" | awk '{d = $1 - $2; print (d < $3 ? d : $3)}')
  done
  echo "$b"
}
png=$(best "$SENSIM" convert "$TMP/run/cam.msgpack" --out "$TMP/png")
mp4=$(best "$SENSIM" convert "$TMP/run/cam.msgpack" --video "$TMP/v.mp4")
gif=$(best "$SENSIM" convert "$TMP/run/cam.msgpack" --gif "$TMP/v.gif")
awk -v n="$FRAMES" -v png="$png" -v mp4="$mp4" -v gif="$gif" 'BEGIN {
  printf "video 800x600, %d pictures: H.264 %.1f fps (%.3f s), GIF %.1f fps (%.3f s), PNG files %.1f fps (%.3f s)\n",
         n, n / mp4, mp4, n / gif, gif, n / png, png
  printf "ratio H.264 / PNG: %.2fx   GIF / PNG: %.2fx (speed; > 1 = faster than writing PNGs)\n", png / mp4, png / gif
}'
