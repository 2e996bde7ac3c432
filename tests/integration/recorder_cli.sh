#!/usr/bin/env bash
# sensim run --record, sensim recorder, sensim replay from the command line: what they print,
# and bad input (missing file, not a recording, unknown option, unwritable path) -> one
# "sensim: error:" line and exit 2, before any run starts.
# args: sensim, scenes dir, tmp dir, plugin dir[, the test plugins' dir (sensor.test.faulty)]
set -u
SENSIM=$1 SCENES=$2 TMP=$3/recorder_cli PLUG=$4 TESTPLUG=${5:-}
rm -rf "$TMP"; mkdir -p "$TMP"
fails=0
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
expect2() { # description, command...: exit 2 with one error line, nothing on stdout
  local what=$1; shift
  "$@" >"$TMP/out" 2>"$TMP/err"; local rc=$?
  [ $rc -eq 2 ] || bad "$what: exit $rc, want 2"
  [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q '^sensim: error: ' "$TMP/err" || bad "$what: stderr: $(cat "$TMP/err")"
}
P=(--plugin-dir "$PLUG")
REC=$TMP/crash.sensimrec
"$SENSIM" run "$SCENES/crash.yaml" --out "$TMP/live" --record "$REC" --quiet "${P[@]}" || bad "run --record"
[ -s "$REC" ] || bad "no recording written"
# Byte-identical: no wall-clock date unless asked for.
"$SENSIM" run "$SCENES/crash.yaml" --out "$TMP/live2" --record "$TMP/again.sensimrec" --quiet "${P[@]}"
cmp -s "$REC" "$TMP/again.sensimrec" || bad "two recordings of one run differ"

"$SENSIM" recorder info "$REC" "${P[@]}" >"$TMP/info" || bad "info"
grep -q '^Version: 1.4$' "$TMP/info" && grep -q '^ Create 2: vehicle.sedan (1) at (' "$TMP/info" &&
  grep -q '^Frames: 80$' "$TMP/info" && grep -q '^ Collision id 0 between 2 (hero)  with 3$' "$TMP/info" || bad "info text: $(head -20 "$TMP/info")"
"$SENSIM" recorder collisions "$REC" --type1 h --type2 o "${P[@]}" >"$TMP/coll" || bad "collisions"
grep -q '^       2   v o       2 vehicle.sedan  ' "$TMP/coll" || bad "collisions text: $(cat "$TMP/coll")"
"$SENSIM" recorder blocked "$REC" --min-time 1 --min-distance 200 --json "${P[@]}" >"$TMP/blocked" || bad "blocked"
grep -q '"blocked":\[{"time":' "$TMP/blocked" || bad "blocked json: $(cat "$TMP/blocked")"

# A recording cut by a crash still answers, with a note on where it ends.
head -c 5000 "$REC" >"$TMP/cut.sensimrec"
"$SENSIM" recorder info "$TMP/cut.sensimrec" "${P[@]}" >"$TMP/cutinfo" 2>"$TMP/cuterr" || bad "cut file: exit $?"
grep -q 'sensim: note: .*ends inside the frame' "$TMP/cuterr" || bad "cut note: $(cat "$TMP/cuterr")"
# and replays what it holds, saying so
"$SENSIM" replay "$TMP/cut.sensimrec" --out "$TMP/cutrp" --quiet "${P[@]}" 2>"$TMP/cutrp.err" || bad "replay of a cut file: exit $?"
grep -q "^sensim: note: .*cut.sensimrec: the file ends inside the frame .*complete frames used" "$TMP/cutrp.err" ||
  bad "replay of a cut file says nothing: $(cat "$TMP/cutrp.err")"
! "$SENSIM" replay "$REC" --out "$TMP/fullrp" --quiet "${P[@]}" 2>&1 | grep -q "note:" || bad "a whole recording's replay has a note"

"$SENSIM" replay "$REC" --out "$TMP/replay" --scene "$SCENES/crash.yaml" --start -2 --quiet "${P[@]}" || bad "replay"
[ -f "$TMP/replay/crash.msgpack" ] || bad "replay wrote no stream for the scene's sensor"
# a replay's folder keeps the actors stream as a run's does: exported, it is the replay's --mcap
"$SENSIM" replay "$REC" --out "$TMP/rpa" --quiet "${P[@]}" && "$SENSIM" replay "$REC" --out "$TMP/rpb" --mcap "$TMP/rpb.mcap" --quiet "${P[@]}" &&
  "$SENSIM" export mcap "$TMP/rpa" --out "$TMP/rpa.mcap" >/dev/null || bad "replay, export"
[ -f "$TMP/rpa/actors.msgpack" ] && cmp -s "$TMP/rpa.mcap" "$TMP/rpb.mcap" || bad "a replay's folder exported differs from its --mcap"
"$SENSIM" replay --help | grep -q '^usage: sensim replay' || bad "replay --help"
"$SENSIM" recorder --help | grep -q 'collisions' || bad "recorder --help"

expect2 "missing file" "$SENSIM" recorder info "$TMP/nope.sensimrec" "${P[@]}"
expect2 "not a recording" "$SENSIM" recorder info "$SCENES/crash.yaml" "${P[@]}"
expect2 "unknown option" "$SENSIM" recorder info "$REC" --bogus "${P[@]}"
expect2 "bad type letter" "$SENSIM" recorder collisions "$REC" --type1 x "${P[@]}"
expect2 "unknown query" "$SENSIM" recorder frobnicate "$REC" "${P[@]}"
expect2 "replay missing file" "$SENSIM" replay "$TMP/nope.sensimrec" --out "$TMP/r2" "${P[@]}"
expect2 "replay start past the end" "$SENSIM" replay "$REC" --start 99 --out "$TMP/r3" "${P[@]}"
expect2 "unwritable record path" "$SENSIM" run "$SCENES/crash.yaml" --out "$TMP/o4" --record /nonexistent/dir/x.rec "${P[@]}"
[ -e "$TMP/o4/crash.msgpack" ] && bad "a refused run wrote a stream"
printf 'settings: {frames: 2}\nrecorder: {file: /nonexistent/dir/x.rec}\n' >"$TMP/rec.yaml"
expect2 "unwritable recorder: key" "$SENSIM" run "$TMP/rec.yaml" --out "$TMP/o5" "${P[@]}"
printf 'settings: {frames: 3}\nactors: [{name: g, blueprint: static.ground}]\nrecorder: {file: %s/key.rec, additional_data: true}\n' "$TMP" >"$TMP/rec2.yaml"
"$SENSIM" run "$TMP/rec2.yaml" --out "$TMP/o6" --quiet "${P[@]}" && "$SENSIM" recorder info "$TMP/key.rec" "${P[@]}" | grep -q '^Frames: 3$' || bad "scene key recorder:"

# Replay (issue 24 item 3). The recording holds 80 frames of 0.05 s: it spans 4 s. A duration
# D replays D / dt frames and --start -S the last S seconds, as many as CARLA's replayer ticks.
frames_of() { sed -n 's/^sensim: replayed \([0-9]*\) frames.*/\1/p' "$1"; }
for c in "80:" "40:--duration 2" "20:--start -1" "10:--start 1 --duration 0.5" "1:--start -0.01"; do
  want=${c%%:*} args=${c#*:}
  rm -rf "$TMP/rf"
  "$SENSIM" replay "$REC" --out "$TMP/rf" $args "${P[@]}" >"$TMP/rf.out" 2>&1 || bad "replay $args: $(cat "$TMP/rf.out")"
  [ "$(frames_of "$TMP/rf.out")" = "$want" ] || bad "replay $args: $(cat "$TMP/rf.out"), want $want frames"
done
expect2 "--follow an id the recording lacks" "$SENSIM" replay "$REC" --out "$TMP/r5" --follow 99 "${P[@]}"
expect2 "--follow a static actor" "$SENSIM" replay "$REC" --out "$TMP/r5" --follow 3 "${P[@]}"
expect2 "--follow a sensor" "$SENSIM" replay "$REC" --out "$TMP/r5" --follow 4 "${P[@]}"
expect2 "--follow an ignored hero" "$SENSIM" replay "$REC" --out "$TMP/r5" --follow 2 --ignore-hero "${P[@]}"
grep -q "has no actor 99" <("$SENSIM" replay "$REC" --out "$TMP/r5" --follow 99 "${P[@]}" 2>&1) || bad "--follow 99: no reason given"
"$SENSIM" replay "$REC" --out "$TMP/r6" --follow 2 --quiet "${P[@]}" || bad "--follow the hero"
expect2 "--time-factor 1e-300" "$SENSIM" replay "$REC" --out "$TMP/r7" --time-factor 1e-300 "${P[@]}"
expect2 "--time-factor 1e-9" "$SENSIM" replay "$REC" --out "$TMP/r7" --time-factor 1e-9 "${P[@]}"
[ -e "$TMP/r5" ] || [ -e "$TMP/r7" ] && bad "a refused replay created its --out folder"
# Replayed messages carry the recorded frame numbers and timestamps: a camera replayed from
# 0.5 s starts at recorded frame 11 (elapsed 0.5 s), as the live run's camera did.
cat >"$TMP/cam.yaml" <<'YAML'
settings: {fixed_delta_seconds: 0.05, frames: 20}
actors:
  - {name: ground, blueprint: static.ground}
  - {name: hero, blueprint: vehicle.sedan, attributes: {role_name: hero}, velocity: [10, 0, 0]}
sensors:
  - {name: cam, blueprint: sensor.camera.depth, attach_to: hero, attributes: {image_size_x: 8, image_size_y: 6}}
YAML
"$SENSIM" run "$TMP/cam.yaml" --out "$TMP/camlive" --record "$TMP/cam.rec" --quiet "${P[@]}" || bad "camera run"
"$SENSIM" replay "$TMP/cam.rec" --out "$TMP/camrep" --scene "$TMP/cam.yaml" --start 0.5 --duration 0.2 --quiet "${P[@]}" || bad "camera replay"
got=$("$SENSIM" dump "$TMP/camrep/cam.msgpack" | sed 's/^{"frame":\([0-9]*\),"timestamp":\([0-9.]*\),.*/\1 \2/' | tr '\n' ' ')
want=$("$SENSIM" dump "$TMP/camlive/cam.msgpack" | sed -n 11,14p | sed 's/^{"frame":\([0-9]*\),"timestamp":\([0-9.]*\),.*/\1 \2/' | tr '\n' ' ')
[ -n "$got" ] && [ "$got" = "$want" ] || bad "replayed frame numbers: '$got', want '$want'"

# Queries (issue 24 item 4): CARLA's header with its Date: line and one duration in every query;
# Parenting for an actor spawned attached; CARLA's collision rule by default (actor 1 carries a
# collision sensor), every recorded contact with --all-contacts; blocked in CARLA's centimetres.
"$SENSIM" recorder info "$REC" "${P[@]}" >"$TMP/q_info"
"$SENSIM" recorder collisions "$REC" "${P[@]}" >"$TMP/q_coll"
"$SENSIM" recorder collisions "$REC" --all-contacts "${P[@]}" >"$TMP/q_all"
"$SENSIM" recorder blocked "$REC" --min-time 1 "${P[@]}" >"$TMP/q_blocked"
for q in q_info q_coll q_blocked; do
  grep -q '^Date: none$' "$TMP/$q" || bad "$q: no Date: line"
  [ "$(grep '^Duration:' "$TMP/$q")" = "Duration: 3.95 seconds" ] || bad "$q: $(grep '^Duration:' "$TMP/$q"), want 3.95 (the last frame's elapsed)"
done
grep -q '^ Parenting 4 with 2 (parent)$' "$TMP/q_info" || bad "info: no Parenting line for the sensor spawned on the hero"
grep -q '^       2   v o       2 vehicle.sedan ' "$TMP/q_coll" && ! grep -q '   o v ' "$TMP/q_coll" || bad "collisions (CARLA's rule): $(cat "$TMP/q_coll")"
grep -q '^       2   o v       3 static.prop.box ' "$TMP/q_all" || bad "collisions --all-contacts: $(cat "$TMP/q_all")"
[ "$(grep -c 'Collision id' "$TMP/q_info")" -eq 1 ] || bad "info shows contacts CARLA would not record"
grep -q '^       2      2 vehicle.sedan  *2$' "$TMP/q_blocked" || bad "blocked, 100 cm default: $(cat "$TMP/q_blocked")"

# --record (issue 24 item 4): no stream for the recorder, the name `recorder` free for a sensor
# of the scene, the summary counts the scene's sensors only; the recording is staged beside its
# name, so a run killed mid-way leaves an existing recording as it was.
rm -rf "$TMP/g" && mkdir -p "$TMP/g"
"$SENSIM" run "$SCENES/crash.yaml" --out "$TMP/g" --record "$TMP/g/crash.rec" "${P[@]}" >"$TMP/g.out" || bad "run --record into --out"
[ "$(ls -A "$TMP/g" | tr '\n' ' ')" = "actors.msgpack crash.msgpack crash.rec run.json " ] || bad "--out after --record holds: $(ls -A "$TMP/g")"
grep -q "from 2 sensors in" "$TMP/g.out" || bad "the recorder counted as a sensor: $(cat "$TMP/g.out")"
"$SENSIM" run "$SCENES/crash.yaml" --out "$TMP/g2" --record "$TMP/g2.rec" --set sensors.crash.name=recorder --quiet "${P[@]}" &&
  [ -f "$TMP/g2/recorder.msgpack" ] || bad "a scene sensor named recorder beside --record"
cp "$REC" "$TMP/keep.rec"
"$SENSIM" run "$SCENES/crash.yaml" --out "$TMP/g3" --record "$TMP/keep.rec" --frames 100000000 --quiet "${P[@]}" &
pid=$!
for _ in $(seq 1 200); do [ "$(stat -c %s "$TMP"/.keep.rec.sensim-partial-* 2>/dev/null | head -1)" -gt 100000 ] 2>/dev/null && break; sleep 0.05; done
kill -9 $pid; wait $pid 2>/dev/null
cmp -s "$REC" "$TMP/keep.rec" || bad "a run killed mid-way replaced the existing recording"
compgen -G "$TMP/.keep.rec.sensim-partial-*" >/dev/null || bad "the killed run's partial recording is gone"

# "Create" gives the spawn pose (not the pose at the end of the spawn frame: the sedan starts
# at 10 m/s) and lists a sensor's attributes, role_name included; an actor spawned later too.
grep -q '^ Create 2: vehicle.sedan (1) at (0, 0, 0)$' "$TMP/q_info" || bad "Create of the hero: $(grep 'Create 2' "$TMP/q_info")"
grep -A1 '^ Create 4: sensor.other.collision (5) at (0, 0, 0)$' "$TMP/q_info" | grep -q '^  role_name = $' || bad "Create of the sensor: $(grep -A1 'Create 4' "$TMP/q_info")"
cat >"$TMP/late.yaml" <<'YAML'
settings: {fixed_delta_seconds: 0.05, frames: 20}
actors:
  - {name: ground, blueprint: static.ground}
  - {name: van, blueprint: vehicle.sedan, transform: {location: [5, 3, 0], rotation: [0, 90, 0]}, velocity: [0, 10, 0], spawn_at: 0.5}
sensors:
  - {name: bump, blueprint: sensor.other.collision, attach_to: van, attributes: {role_name: bumper}}
YAML
"$SENSIM" run "$TMP/late.yaml" --out "$TMP/late" --record "$TMP/late.rec" --quiet "${P[@]}" || bad "late spawn run"
"$SENSIM" recorder info "$TMP/late.rec" "${P[@]}" >"$TMP/late.info"
grep -q '^ Create [0-9]*: vehicle.sedan (1) at (5, 3, 0)$' "$TMP/late.info" && grep -q '^  role_name = bumper$' "$TMP/late.info" &&
  grep -q '^ Parenting [0-9]* with [0-9]* (parent)$' "$TMP/late.info" || bad "late spawn: $(cat "$TMP/late.info")"

# A run that fails at frame 5 leaves the existing recording as it was, its own partial one
# staged beside it (readable: 4 frames) and named on stderr.
if [ -n "$TESTPLUG" ]; then
  printf 'settings: {fixed_delta_seconds: 0.05, frames: 10}\nactors: [{name: ground, blueprint: static.ground}]\nsensors:\n  - {name: probe, blueprint: sensor.test.faulty, attributes: {mode: fail_tick, at_frame: 5}}\n' >"$TMP/fail.yaml"
  cp "$REC" "$TMP/keep2.rec"
  "$SENSIM" run "$TMP/fail.yaml" --out "$TMP/fo" --record "$TMP/keep2.rec" --quiet --plugin-dir "$TESTPLUG" 2>"$TMP/fail.err"
  rc=$?
  [ $rc -eq 1 ] && cmp -s "$REC" "$TMP/keep2.rec" || bad "a failed run: exit $rc, existing recording changed or gone"
  part=$(sed -n 's/^sensim: note: recording of the failed run left in \([^;]*\);.*/\1/p' "$TMP/fail.err")
  [ -n "$part" ] && "$SENSIM" recorder info "$part" "${P[@]}" | grep -q '^Frames: 4$' || bad "the failed run's partial recording: '$part' $(cat "$TMP/fail.err" | tail -2)"
fi
# A relative recorder: {file} goes inside --out (issue 33 item 5: every run of a batch wrote the
# same ./run.sensimrec, and the manifest did not list it); an absolute one stays where it says.
mkdir -p "$TMP/cwd5"
SENSIM_ABS=$(realpath "$SENSIM")
printf 'settings: {frames: 3}\nactors: [{name: g, blueprint: static.ground}]\nrecorder: {file: rec/run.sensimrec}\n' >"$TMP/relrec.yaml"
mkdir -p "$TMP/o7/rec"
(cd "$TMP/cwd5" && "$SENSIM_ABS" run "$TMP/relrec.yaml" --out "$TMP/o7" --quiet "${P[@]}") || bad "run with a relative recorder file"
[ -f "$TMP/o7/rec/run.sensimrec" ] && [ -z "$(ls -A "$TMP/cwd5")" ] && "$SENSIM" recorder info "$TMP/o7/rec/run.sensimrec" "${P[@]}" | grep -q '^Frames: 3$' ||
  bad "the relative recording is not in --out: $(cd "$TMP" && find o7 cwd5)"
printf 'runs:\n  - id: r\n    scene: %s\n    seeds: [1, 2]\n' "$TMP/relrec.yaml" >"$TMP/relrec_batch.yaml"
(cd "$TMP/cwd5" && "$SENSIM_ABS" batch "$TMP/relrec_batch.yaml" --out "$TMP/b7" -j 2 "${P[@]}" >/dev/null 2>&1) || bad "batch with a relative recorder file"
n=$(grep -c '"path":"rec/run.sensimrec"' "$TMP/b7/manifest.jsonl" 2>/dev/null)
[ "$n" = 2 ] && [ -z "$(ls -A "$TMP/cwd5")" ] || bad "each batch run's recording in its folder and in the manifest: $n listed, cwd has '$(ls -A "$TMP/cwd5")'"
# A recording names its map (issue 33 item 4): the Map: line and the JSON give the map's path
# and SHA-256; a replay without --scene loads it (its lanes on /map in the replay's MCAP file),
# says so when the file changed since, and goes on without roads when it is gone.
mkdir -p "$TMP/m8/maps" "$TMP/m8/scenes"
cp "$SCENES/../maps/town.xodr" "$TMP/m8/maps/" && cp "$SCENES/town.yaml" "$TMP/m8/scenes/"
"$SENSIM" run "$TMP/m8/scenes/town.yaml" --frames 6 --out "$TMP/m8/run" --record "$TMP/m8/town.rec" --quiet "${P[@]}" ||
  bad "run town --record"
map_abs=$(realpath "$TMP/m8/maps/town.xodr")
"$SENSIM" recorder info "$TMP/m8/town.rec" "${P[@]}" | grep -qx "Map: $map_abs" || bad "Map: line: $("$SENSIM" recorder info "$TMP/m8/town.rec" "${P[@]}" | head -3)"
sha=$(sha256sum "$map_abs" | cut -c1-64)
"$SENSIM" recorder info "$TMP/m8/town.rec" --json "${P[@]}" | head -1 | grep -q "\"map_sha256\":\"$sha\"" || bad "the recording's map hash is not the file's"
"$SENSIM" replay "$TMP/m8/town.rec" --out "$TMP/m8/rp1" --mcap "$TMP/m8/rp1.mcap" --quiet "${P[@]}" 2>"$TMP/m8/rp1.err" || bad "replay: $(cat "$TMP/m8/rp1.err")"
grep -aq "/map" "$TMP/m8/rp1.mcap" && [ ! -s "$TMP/m8/rp1.err" ] || bad "the replay has no map lanes or says something: $(cat "$TMP/m8/rp1.err")"
echo "<!-- changed -->" >>"$TMP/m8/maps/town.xodr"
"$SENSIM" replay "$TMP/m8/town.rec" --out "$TMP/m8/rp2" --quiet "${P[@]}" 2>"$TMP/m8/rp2.err" || bad "replay of a changed map"
grep -q "^sensim: warning: replay: the map .*town.xodr changed since the recording" "$TMP/m8/rp2.err" || bad "no word of the changed map: $(cat "$TMP/m8/rp2.err")"
rm "$TMP/m8/maps/town.xodr"
"$SENSIM" replay "$TMP/m8/town.rec" --out "$TMP/m8/rp3" --mcap "$TMP/m8/rp3.mcap" --quiet "${P[@]}" 2>"$TMP/m8/rp3.err" || bad "replay with the map gone"
grep -q "^sensim: warning: replay: the recording's map .* is gone" "$TMP/m8/rp3.err" && ! grep -aq "/map" "$TMP/m8/rp3.mcap" || bad "map gone: $(cat "$TMP/m8/rp3.err")"
[ $fails -eq 0 ] && echo "recorder cli: all good" || exit 1
