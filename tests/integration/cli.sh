#!/usr/bin/env bash
# The sensim program end to end: every scene runs, outputs are deterministic at any thread
# count, bad input gives one 'sensim: error:' line and exit 2 and leaves old outputs alone.
# usage: cli.sh SENSIM SCENES_DIR TMP_DIR BROKEN_PLUGIN_DIR
set -u
SENSIM=$1 SCENES=$2 TMP=$3/cli BROKEN=$4
rm -rf "$TMP" && mkdir -p "$TMP"
fails=0 checks=0
ok() { checks=$((checks + 1)); }
bad() { checks=$((checks + 1)); fails=$((fails + 1)); echo "FAIL: $*" >&2; }

# 1. every scene in scenes/ runs as it is and writes a stream per sensor
for scene in "$SCENES"/*.yaml; do
  name=$(basename "$scene" .yaml)
  if "$SENSIM" run "$scene" --out "$TMP/$name" --quiet 2>"$TMP/$name.err"; then
    n=$(ls "$TMP/$name"/*.msgpack 2>/dev/null | wc -l)
    if [ "$n" -gt 0 ] && ! ls "$TMP/$name"/*.part >/dev/null 2>&1; then ok; else bad "$name: no finished streams"; fi
    if "$SENSIM" dump "$TMP/$name"/*.msgpack >/dev/null 2>&1 || [ "$n" -gt 1 ]; then ok; else bad "$name: dump"; fi
  else
    bad "scene $name failed: $(cat "$TMP/$name.err")"
  fi
done

# 2. determinism: same scene and seed, any thread count, byte-identical streams. Section 1 ran
# each at the default thread count, one per core: a run at 1 thread is compared with it (and
# where the machine has a single core, with a run at 2 threads)
for scene in crash intersection pileup sensors; do
  [ -f "$SCENES/$scene.yaml" ] || { bad "missing scene $scene"; continue; }
  multi=$TMP/$scene
  if [ "$(getconf _NPROCESSORS_ONLN)" -lt 2 ]; then
    multi=$TMP/det_b
    "$SENSIM" run "$SCENES/$scene.yaml" --out "$multi" --threads 2 --quiet 2>/dev/null
  fi
  "$SENSIM" run "$SCENES/$scene.yaml" --out "$TMP/det_a" --threads 1 --quiet 2>/dev/null
  if diff -r "$TMP/det_a" "$multi" >/dev/null && [ -n "$(ls "$TMP/det_a")" ]; then ok; else bad "$scene is not deterministic"; fi
  rm -rf "$TMP/det_a" "$TMP/det_b"
done

# 3. bad input: exit 2, exactly one error line, existing outputs untouched
OUT=$TMP/keep
mkdir -p "$OUT" && echo OLD >"$OUT/crash.msgpack"
expect_input_error() { # description, expected text, command...
  local what=$1 want=$2; shift 2
  "$@" >"$TMP/stdout" 2>"$TMP/stderr"
  local rc=$?
  local lines; lines=$(grep -c '^sensim: error: ' "$TMP/stderr")
  if [ "$rc" -eq 2 ] && [ "$lines" -eq 1 ] && grep -q -- "$want" "$TMP/stderr"; then ok
  else bad "$what: rc=$rc, $lines error lines, stderr: $(cat "$TMP/stderr")"; fi
  if [ "$(cat "$OUT/crash.msgpack")" = OLD ] && ! ls "$OUT"/*.part >/dev/null 2>&1; then ok
  else bad "$what: existing outputs were touched"; fi
}
scene() { printf '%s\n' "$2" >"$TMP/$1.yaml"; echo "$TMP/$1.yaml"; }
CRASH="$SCENES/crash.yaml"
expect_input_error "malformed YAML" "bad.yaml:3:1: malformed YAML" "$SENSIM" run "$(scene bad 'actors: [
  {name: a')" --out "$OUT"
expect_input_error "unknown blueprint" "unknown actor blueprint 'vehicle.ufo'" "$SENSIM" run "$(scene ufo 'actors: [{name: a, blueprint: vehicle.ufo}]')" --out "$OUT"
expect_input_error "unknown attribute" "unknown attribute 'wings'" "$SENSIM" run "$(scene wings 'actors: [{name: a, blueprint: vehicle.sedan, attributes: {wings: 2}}]')" --out "$OUT"
expect_input_error "overlapping spawn" "overlap.yaml:3:5: spawn failed because of collision at spawn position: 'b' (vehicle.sedan) overlaps 'a' (vehicle.sedan) by 1.20 m at z = 0.30; z >= 1.50 clears it" "$SENSIM" run "$(scene overlap "$(printf 'actors:\n  - {name: a, blueprint: vehicle.sedan}\n  - {name: b, blueprint: vehicle.sedan, transform: {location: [3, 0, 0.3]}}')")" --out "$OUT"
expect_input_error "wrong type" "expected a float" "$SENSIM" run "$(scene type 'actors: [{name: a, blueprint: vehicle.sedan, attributes: {mass: heavy}}]')" --out "$OUT"
expect_input_error "out of range" "outside the range" "$SENSIM" run "$(scene range 'actors: [{name: a, blueprint: vehicle.sedan, attributes: {mass: -1}}]')" --out "$OUT"
expect_input_error "attach_to nothing" "attach_to 'nobody'" "$SENSIM" run "$(scene attach 'sensors: [{name: crash, blueprint: sensor.other.collision, attach_to: nobody}]')" --out "$OUT"
expect_input_error "missing scene" "cannot open scene file" "$SENSIM" run "$TMP/nope.yaml" --out "$OUT"
expect_input_error "unwritable output" "cannot create output folder" "$SENSIM" run "$CRASH" --out "$OUT/crash.msgpack/sub"
expect_input_error "usage" "needs a whole number" "$SENSIM" run "$CRASH" --out "$OUT" --frames -3
expect_input_error "unknown option" "unknown option" "$SENSIM" run "$CRASH" --out "$OUT" --fast
expect_input_error "missing --out" "--out DIR is required" "$SENSIM" run "$CRASH"
expect_input_error "unknown command" "unknown command" "$SENSIM" fly
# a broken plugin: reported and skipped; a scene needing its blueprint names it
expect_input_error "refused plugin" "unknown sensor blueprint 'sensor.test.broken'.*refused" \
  env SENSIM_PLUGIN_PATH="$BROKEN" "$SENSIM" run "$(scene needs 'sensors: [{name: crash, blueprint: sensor.test.broken}]')" --out "$OUT"
if env SENSIM_PLUGIN_PATH="$BROKEN" "$SENSIM" plugins 2>/dev/null | grep -q "REFUSED: has no 'sn_plugin_entry' symbol"; then ok; else bad "plugins lists refusals"; fi
if env SENSIM_PLUGIN_PATH="$BROKEN" "$SENSIM" run "$CRASH" --out "$TMP/warn" 2>&1 >/dev/null | grep -q "sensim: warning: plugin .*broken_abi_major.so .*ABI 99."; then ok; else bad "refused plugins are reported on run"; fi

# 4. dump: a corrupt or truncated stream is an error, the good part is still printed (the
# streams of crash.yaml that section 1 wrote)
good=$(ls "$TMP/crash"/*.msgpack | grep -v /actors.msgpack | head -1) # every run keeps actors.msgpack too
n=$("$SENSIM" dump "$good" | wc -l)
if [ "$n" -ge 1 ] && "$SENSIM" dump "$good" --json | grep -q '"type":"sensor.other.collision"'; then ok; else bad "dump of a good stream"; fi
head -c $(( $(stat -c %s "$good") - 3 )) "$good" >"$TMP/trunc.msgpack"
expect_input_error "truncated stream" "truncated stream" "$SENSIM" dump "$TMP/trunc.msgpack"
printf '\xc1\xc1\xc1' >"$TMP/junk.msgpack"
expect_input_error "corrupt stream" "corrupt stream" "$SENSIM" dump "$TMP/junk.msgpack"

# 5. camera images: the intersection's dashboard cameras saved PNGs (every 0.5 s of 20 s);
# `sensim convert` of the stream with the same converter gives the same files
I=$TMP/intersection
n=$(ls "$I"/hero_depth/*.png 2>/dev/null | wc -l)
[ "$n" -eq 40 ] && [ "$(ls "$I"/hero_rgb/*.png | wc -l)" -eq 40 ] && ok || bad "expected 40 saved PNGs per camera, got $n"
head -c 8 "$I/hero_rgb/000001.png" | od -An -c | grep -q 'P   N   G' && ok || bad "saved images are PNG"
if "$SENSIM" convert "$I/hero_depth.msgpack" --converter logarithmic_depth --out "$TMP/conv" >/dev/null &&
   cmp -s "$TMP/conv/000201.png" "$I/hero_depth/000201.png"; then ok; else bad "convert gives what save gave"; fi
expect_input_error "unknown converter" "unknown converter 'sepia'" "$SENSIM" convert "$I/hero_depth.msgpack" --converter sepia --out "$TMP/conv"
expect_input_error "convert a non-camera stream" "not a camera image" "$SENSIM" convert "$I/jaywalker_collision.msgpack" --out "$TMP/conv2"
expect_input_error "save on a non-camera" "'save' writes camera images" "$SENSIM" run "$(scene savecol 'sensors: [{name: c, blueprint: sensor.other.collision, save: {path: "x/%06d.png"}}]')" --out "$OUT"
expect_input_error "save with a bad converter" "unknown converter 'gray'" "$SENSIM" run "$(scene savebad 'sensors: [{name: c, blueprint: sensor.camera.depth, save: {path: "x/%06d.png", converter: gray}}]')" --out "$OUT"
# CARLA's post-process attributes run (exit 0); those not drawn (depth of field, the atmospheric
# blur) warn once each, on stderr through host->log; drawn ones (bloom, exposure) do not
s=$(scene pp 'sensors: [{name: cam, blueprint: sensor.camera.rgb, attributes: {image_size_x: 32, image_size_y: 24, bloom_intensity: 0, exposure_mode: manual, focal_distance: 500, blade_count: 7, gamma: 1.8}}]')
if "$SENSIM" run "$s" --out "$TMP/pp" --frames 2 2>"$TMP/pp.err" && [ "$(grep -c "^sensim: warning: .*'cam'.*attribute '\(focal_distance\|blade_count\)' = .* changes nothing: accepted, not rendered yet" "$TMP/pp.err")" -eq 2 ] &&
   [ "$(wc -l <"$TMP/pp.err")" -eq 2 ]; then ok; else bad "post-process attributes: $(cat "$TMP/pp.err")"; fi

# 6. blueprints lists every blueprint with its attributes, also as JSON
if "$SENSIM" blueprints | grep -q '^sensor.other.collision' && "$SENSIM" blueprints --json | grep -q '"id":"vehicle.sedan"'; then ok; else bad "blueprints"; fi

# 7. every subcommand answers --help, -h and `sensim help CMD`: its usage on stdout, nothing on
# stderr, exit 0; the three print the same text
# (the first, --help, is the text the other two must equal)
for cmd in run batch replay recorder blueprints plugins dump convert new-sensor; do
  for how in "$cmd --help" "$cmd -h" "help $cmd"; do
    "$SENSIM" $how >"$TMP/stdout" 2>"$TMP/stderr"; rc=$?
    [ "$how" = "$cmd --help" ] && cp "$TMP/stdout" "$TMP/help_ref"
    if [ "$rc" -eq 0 ] && head -1 "$TMP/stdout" | grep -q "^usage: sensim $cmd " && [ ! -s "$TMP/stderr" ] &&
       cmp -s "$TMP/stdout" "$TMP/help_ref"; then ok
    else bad "sensim $how: rc=$rc, stdout: $(head -1 "$TMP/stdout"), stderr: $(cat "$TMP/stderr")"; fi
  done
done
"$SENSIM" help >"$TMP/stdout" 2>"$TMP/stderr" && grep -q "^usage: sensim run" "$TMP/stdout" && [ ! -s "$TMP/stderr" ] &&
  ok || bad "sensim help"
expect_input_error "help of an unknown command" "help: unknown command 'fly'" "$SENSIM" help fly
# getopt_long: --opt=value, options after the positional, a missing value named
"$SENSIM" run --out="$TMP/eq" "$CRASH" --frames=3 --quiet && [ -f "$TMP/eq/crash.msgpack" ] && ok || bad "run --out=DIR --frames=3"
expect_input_error "missing value" "option '--frames' needs a value" "$SENSIM" run "$CRASH" --out "$TMP/eq" --frames
# an unknown sensor blueprint lists the folders searched, in order, each with where it came from
expect_input_error "searched folders" \
  "unknown sensor blueprint 'sensor.x.none'.*searched: $TMP/nowhere (--plugin-dir, missing), $BROKEN (SENSIM_PLUGIN_PATH)" \
  env SENSIM_PLUGIN_PATH="$BROKEN" "$SENSIM" run "$(scene none 'sensors: [{name: n, blueprint: sensor.x.none}]')" --out "$OUT" \
  --plugin-dir "$TMP/nowhere"
env SENSIM_PLUGIN_PATH="$BROKEN" "$SENSIM" plugins | grep -q "^searched: $BROKEN (SENSIM_PLUGIN_PATH)" && ok ||
  bad "plugins lists the folders searched"
# also after other arguments, and without doing anything else
"$SENSIM" run "$CRASH" --out "$TMP/help_out" --help >"$TMP/stdout" 2>&1 && grep -q "^usage: sensim run" "$TMP/stdout" &&
  [ ! -e "$TMP/help_out" ] && ok || bad "run ... --help ran something"
"$SENSIM" --help >"$TMP/stdout" 2>"$TMP/stderr" && grep -q "^usage: sensim run" "$TMP/stdout" && [ ! -s "$TMP/stderr" ] &&
  ok || bad "sensim --help"

# 8. the program is built on the public API only: it includes no header outside engine/cli
CLI_SRC=$SCENES/../engine/cli
if [ -d "$CLI_SRC" ]; then
  inc=$(grep -h '#include "' "$CLI_SRC"/*.c "$CLI_SRC"/*.h | sed 's/.*#include "\(.*\)".*/\1/' |
        while read -r h; do [ -f "$CLI_SRC/$h" ] && [ "${h#*/}" = "$h" ] || echo "$h"; done)
  [ -z "$inc" ] && ok || bad "engine/cli includes engine headers: $inc"
fi

# 9. --set: the same bytes as the value written in the file; errors name the scene and the --set
"$SENSIM" run "$CRASH" --out "$TMP/set_a" --seed 4 --quiet 2>/dev/null
"$SENSIM" run "$CRASH" --out "$TMP/set_b" --set settings.seed=4 --quiet 2>/dev/null
diff -r "$TMP/set_a" "$TMP/set_b" >/dev/null && ok || bad "--set settings.seed=4 differs from --seed 4"
sed 's/velocity: \[10, 0, 0\]/velocity: [14, 0, 0]\n    control: {throttle: 0.2}/' "$CRASH" >"$TMP/fast.yaml"
"$SENSIM" run "$TMP/fast.yaml" --out "$TMP/set_c" --seed 4 --quiet 2>/dev/null
"$SENSIM" run "$CRASH" --out "$TMP/set_d" --set settings.seed=4 --set actors.hero.velocity=[14,0,0] \
  --set actors.hero.control.throttle=0.2 --quiet 2>/dev/null
# (run.json names each run's own scene file: the outputs are compared without it)
diff -r -x run.json "$TMP/set_c" "$TMP/set_d" >/dev/null && ! diff -r "$TMP/set_a" "$TMP/set_d" >/dev/null && ok ||
  bad "--set actors.hero.velocity/control are not the file's values"
expect_input_error "--set out of range" "crash.yaml: --set actors.hero.control.throttle=7: control.throttle must be within" \
  "$SENSIM" run "$CRASH" --out "$OUT" --set actors.hero.control.throttle=7
expect_input_error "--set no such actor" "no entry named 'zed' in actors" "$SENSIM" run "$CRASH" --out "$OUT" --set actors.zed.velocity=[1,0,0]
expect_input_error "--set without =" "--set needs PATH=VALUE" "$SENSIM" run "$CRASH" --out "$OUT" --set settings.seed

# FFmpeg is the views module's (engine/cli/views_module.h): a plain run must not load it, and the
# views' commands still find it (a bad run folder is then the report's own error, exit 2).
if command -v ldd >/dev/null; then
  ! ldd "$SENSIM" | grep -q libavcodec && ok || bad "sensim links FFmpeg at start"
fi
LD_DEBUG=files "$SENSIM" run "$CRASH" --out "$TMP/noav" --quiet 2>&1 | grep -q "libavcodec" &&
  bad "a plain run loads FFmpeg" || ok
expect_input_error "report of nothing" "cannot read the run folder" "$SENSIM" report "$TMP/none" --out "$TMP/none.html"

PYDFL=(python3 -c 'import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execvp(sys.argv[1], sys.argv[1:])')
# an interrupted run (Ctrl-C, SIGTERM) stops after the frame in progress, names its partial outputs,
# leaves DIR as it was and dies of the signal (exit 128 + it, as a shell and a batch expect)
for sig in INT TERM; do
  d="$TMP/intr_$sig"
  mkdir -p "$d" && echo keep >"$d/crash.msgpack"
  # started with SIGINT at its default (a script's `cmd &` ignores it, as sensim then keeps it)
  "${PYDFL[@]}" "$SENSIM" run "$SCENES/crash.yaml" --out "$d" --frames 100000000 --quiet 2>"$TMP/intr.err" &
  pid=$!
  (sleep 60; kill -9 $pid) >/dev/null 2>&1 &  # never a hung test
  dog=$!
  for _ in $(seq 1 200); do ls -d "$d"/sensim-partial-* >/dev/null 2>&1 && break; sleep 0.05; done
  sleep 0.2
  kill -"$sig" $pid
  wait $pid
  rc=$?
  pkill -P $dog sleep; wait $dog 2>/dev/null
  part=$(ls -d "$d"/sensim-partial-* 2>/dev/null | head -1)
  want=$([ $sig = INT ] && echo 130 || echo 143)
  [ "$rc" -eq "$want" ] && [ "$(cat "$d/crash.msgpack")" = keep ] && [ -n "$part" ] &&
    grep -q "^sensim: interrupted (SIG$sig) at frame [0-9]*; partial outputs in $part; $d left as it was\$" "$TMP/intr.err" &&
    [ "$(wc -l <"$TMP/intr.err")" -eq 1 ] && "$SENSIM" dump "$part/crash.msgpack" >/dev/null && ok ||
    bad "SIG$sig: exit $rc (want $want), $(cat "$TMP/intr.err")"
done

# a run started with SIGINT ignored (a shell's `cmd &`) keeps it ignored; SIGTERM still stops it
d="$TMP/intr_ign"
(trap '' INT; exec "$SENSIM" run "$SCENES/crash.yaml" --out "$d" --frames 100000000 --quiet 2>"$TMP/intr.err") &
pid=$!
(sleep 60; kill -9 $pid) >/dev/null 2>&1 &
dog=$!
for _ in $(seq 1 200); do ls -d "$d"/sensim-partial-* >/dev/null 2>&1 && break; sleep 0.05; done
sleep 0.2
kill -INT $pid
sleep 0.3
kill -0 $pid 2>/dev/null && ok || bad "an ignored SIGINT stopped the run: $(cat "$TMP/intr.err")"
kill -TERM $pid
wait $pid
rc=$?
pkill -P $dog sleep; wait $dog 2>/dev/null
[ "$rc" -eq 143 ] && grep -q "^sensim: interrupted (SIGTERM)" "$TMP/intr.err" && ok || bad "SIGTERM after an ignored SIGINT: exit $rc"

echo "$checks checks, $fails failed" >&2
[ "$fails" -eq 0 ]
