#!/usr/bin/env bash
# sensim run --record, sensim recorder, sensim replay from the command line: what they print,
# and bad input (missing file, not a recording, unknown option, unwritable path) -> one
# "sensim: error:" line and exit 2, before any run starts.
# args: sensim, scenes dir, tmp dir, plugin dir
set -u
SENSIM=$1 SCENES=$2 TMP=$3/recorder_cli PLUG=$4
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
grep -q '^Version: 1.2$' "$TMP/info" && grep -q '^ Create 2: vehicle.sedan (1) at (' "$TMP/info" &&
  grep -q '^Frames: 80$' "$TMP/info" && grep -q '^ Collision id 0 between 2 (hero)  with 3$' "$TMP/info" || bad "info text: $(head -20 "$TMP/info")"
"$SENSIM" recorder collisions "$REC" --type1 h --type2 o "${P[@]}" >"$TMP/coll" || bad "collisions"
grep -q '^       2   v o       2 vehicle.sedan  ' "$TMP/coll" || bad "collisions text: $(cat "$TMP/coll")"
"$SENSIM" recorder blocked "$REC" --min-time 1 --min-distance 2 --json "${P[@]}" >"$TMP/blocked" || bad "blocked"
grep -q '"blocked":\[{"time":' "$TMP/blocked" || bad "blocked json: $(cat "$TMP/blocked")"

# A recording cut by a crash still answers, with a note on where it ends.
head -c 5000 "$REC" >"$TMP/cut.sensimrec"
"$SENSIM" recorder info "$TMP/cut.sensimrec" "${P[@]}" >"$TMP/cutinfo" 2>"$TMP/cuterr" || bad "cut file: exit $?"
grep -q 'sensim: note: .*ends inside the frame' "$TMP/cuterr" || bad "cut note: $(cat "$TMP/cuterr")"

"$SENSIM" replay "$REC" --out "$TMP/replay" --scene "$SCENES/crash.yaml" --start -2 --quiet "${P[@]}" || bad "replay"
[ -f "$TMP/replay/crash.msgpack" ] || bad "replay wrote no stream for the scene's sensor"
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
[ $fails -eq 0 ] && echo "recorder cli: all good" || exit 1
