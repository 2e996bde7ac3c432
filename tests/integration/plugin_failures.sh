#!/usr/bin/env bash
# A plugin that fails or crashes on purpose is reported by plugin, sensor and callback; a
# failure while running stops with exit 1 and keeps what was written; outputs of an earlier
# run are never destroyed.
# usage: plugin_failures.sh SENSIM FAULTY_PLUGIN_DIR TMP_DIR
set -u
SENSIM=$1 PLUGINS=$2 TMP=$3/failures
rm -rf "$TMP" && mkdir -p "$TMP"
export SENSIM_PLUGIN_PATH=$PLUGINS
fails=0 checks=0
ok() { checks=$((checks + 1)); }
bad() { checks=$((checks + 1)); fails=$((fails + 1)); echo "FAIL: $*" >&2; }

scene() { # scene MODE -> path of a scene with one faulty sensor named 'f'
  cat >"$TMP/$1.yaml" <<YAML
settings: {fixed_delta_seconds: 0.05, frames: 8}
actors:
  - {name: ground, blueprint: static.ground}
sensors:
  - {name: f, blueprint: sensor.test.faulty, attributes: {mode: $1, at_frame: 3}}
YAML
  echo "$TMP/$1.yaml"
}
# run MODE -> sets rc and err (stderr), output in $TMP/out
run() {
  "$SENSIM" run "$(scene "$1")" --out "$TMP/out" --quiet 2>"$TMP/err"
  rc=$?
  err=$(cat "$TMP/err")
}

# A good run first: its stream must survive every failing run below.
run none
[ "$rc" -eq 0 ] && [ -f "$TMP/out/f.msgpack" ] || bad "a good run of the faulty sensor: $err"
good=$(md5sum <"$TMP/out/f.msgpack")

run fail_set
if [ "$rc" -eq 2 ] && grep -q "^sensim: error: .*\.yaml:[0-9]*:[0-9]*: sensor 'f' (sensor.test.faulty, plugin .*faulty.so): set failed: refusing to be set up (on purpose)$" <<<"$err"
then ok; else bad "fail_set: rc=$rc: $err"; fi

run fail_tick
if [ "$rc" -eq 1 ] && grep -q "^sensim: error: frame 3: sensor 'f' (sensor.test.faulty, plugin .*faulty.so): tick(post) failed: failing in tick at frame 3 (on purpose)$" <<<"$err"
then ok; else bad "fail_tick: rc=$rc: $err"; fi
# Stopped cleanly: the frames before the failure (frames count from 1) are flushed to the
# stream in the run's staging folder, named on stderr; --out keeps the good run's stream.
part=$(ls -d "$TMP/out"/sensim-partial-* | tail -1)
grep -q "^sensim: stopped at frame [0-9]*; partial outputs in $part; $TMP/out left as it was\$" <<<"$err" && ok \
  || bad "fail_tick: the partial folder is not named: $err"
n=$("$SENSIM" dump "$part/f.msgpack" 2>/dev/null | wc -l)
[ "$n" -eq 2 ] && ok || bad "fail_tick: expected frames 1-2 flushed to $part/f.msgpack, got $n messages"
rm -rf "$part"

run fail_serialize
if [ "$rc" -eq 1 ] && grep -q "plugin .*faulty.so): serialize failed: failing in serialize (on purpose)$" <<<"$err"
then ok; else bad "fail_serialize: rc=$rc: $err"; fi

for where in tick serialize; do
  run crash_$where
  want="tick(post)"; [ $where = serialize ] && want=serialize
  # A crash loses at most the frame in progress: frames 1 and 2 are readable in the staging folder,
  # which the line names (one of the run's --out).
  part=$(sed -n 's/.*; the outputs of the frames before it are in \(.*\)$/\1/p' <<<"$err")
  if [ "$rc" -gt 128 ] && grep -qF "sensim: error: plugin $PLUGINS/faulty.so: crashed in $want of sensor 'f' (sensor.test.faulty) at frame 3: SIGSEGV (invalid memory access); the outputs of the frames before it are in $TMP/out/sensim-partial-" <<<"$err" &&
     [ -d "$part" ]
  then ok; else bad "crash_$where: rc=$rc: $err"; fi
  n=$("$SENSIM" dump "$part/f.msgpack" 2>/dev/null | wc -l)
  [ "$n" -eq 2 ] && ok || bad "crash_$where: expected frames 1-2 readable in $part/f.msgpack, got $n messages"
  rm -rf "$part"
done

# a crash at load (set) has no outputs open: the line says so, names no folder
run crash_set
if [ "$rc" -gt 128 ] && grep -qF "crashed in set of sensor 'f' (sensor.test.faulty) at frame 0: SIGSEGV (invalid memory access); no outputs were written" <<<"$err"
then ok; else bad "crash_set: rc=$rc: $err"; fi

[ "$(md5sum <"$TMP/out/f.msgpack")" = "$good" ] && ok || bad "an earlier run's output was changed by a failing run"

# Issue 24 item 9: a plugin's error and log text reach stderr escaped, one line each: control
# characters, DEL and invalid UTF-8 as \xHH, valid UTF-8 kept.
run garbled_set
want=$'del\\x7F esc\\x1B[31mred nl\\x0Anext csi\\xC2\\x9B bad\\x80\\xC0\\xAF\\xE2\\x82 ok\xc3\xa9'
if [ "$rc" -eq 2 ] && [ "$(wc -l <"$TMP/err")" -eq 2 ] && grep -qF "sensim: warning: sensor 'f': $want" "$TMP/err" &&
   grep -qF "set failed: $want" "$TMP/err" && ! LC_ALL=C grep -q $'[\x01-\x1f\x7f]' "$TMP/err"
then ok; else bad "garbled_set: rc=$rc: $(cat -v "$TMP/err")"; fi

echo "$checks checks, $fails failed" >&2
[ "$fails" -eq 0 ]
