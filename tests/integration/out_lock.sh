#!/usr/bin/env bash
# Two `sensim run` into one --out at once (issue 24 item 8): the first holds a lock on the folder
# for its whole life; the second is refused at load with one error line and exit 2, writing
# nothing; the lock goes with the first run, even when it is killed (SIGKILL), and `replay`
# takes the same lock.
# usage: out_lock.sh SENSIM PLUGIN_DIR TMP_DIR
set -u
SENSIM=$1 PLUGINS=$2 TMP=$3/out_lock
rm -rf "$TMP" && mkdir -p "$TMP"
fails=0
bad() { fails=$((fails + 1)); echo "FAIL: $*" >&2; }
P=(--plugin-dir "$PLUGINS")

cat >"$TMP/scene.yaml" <<'YAML'
settings: {fixed_delta_seconds: 0.05, frames: 5}
actors:
  - {name: ground, blueprint: static.ground}
  - {name: hero, blueprint: vehicle.sedan, transform: {location: [0, 0, 0.75]}, velocity: [10, 0, 0]}
sensors:
  - {name: crash, blueprint: sensor.other.collision, attach_to: hero}
YAML
OUT=$TMP/out
# The first run: long enough to be running while the second starts (killed below).
"$SENSIM" run "$TMP/scene.yaml" --out "$OUT" --frames 100000000 --quiet "${P[@]}" 2>"$TMP/first.err" &
first=$!
for _ in $(seq 1 200); do # until its staging folder exists: it holds the lock by then
  compgen -G "$OUT/sensim-partial-*" >/dev/null && break
  sleep 0.05
done
compgen -G "$OUT/sensim-partial-*" >/dev/null || bad "the first run never started writing"
before=$(ls -A "$OUT" | sort)
"$SENSIM" run "$TMP/scene.yaml" --out "$OUT" --quiet "${P[@]}" >"$TMP/second.out" 2>"$TMP/second.err"
rc=$?
[ $rc -eq 2 ] || bad "second run into a folder in use: exit $rc, want 2"
[ "$(wc -l <"$TMP/second.err")" -eq 1 ] && grep -q "^sensim: error: .*out is in use by another sensim run" "$TMP/second.err" ||
  bad "second run's stderr: $(cat "$TMP/second.err")"
[ "$(ls -A "$OUT" | sort)" = "$before" ] || bad "the refused run changed the folder: $(ls -A "$OUT")"

kill -9 $first
wait $first 2>/dev/null
# The kernel drops the lock with the process: the next run goes ahead.
"$SENSIM" run "$TMP/scene.yaml" --out "$OUT" --quiet "${P[@]}" 2>"$TMP/third.err" || bad "run after the first was killed: $(cat "$TMP/third.err")"
[ -s "$OUT/crash.msgpack" ] || [ -f "$OUT/crash.msgpack" ] || bad "third run wrote no stream"
# One after the other is fine: a finished run released the folder.
"$SENSIM" run "$TMP/scene.yaml" --out "$OUT" --quiet "${P[@]}" || bad "a second run after the first ended was refused"
[ $fails -eq 0 ] && echo "out lock: all good" || exit 1
