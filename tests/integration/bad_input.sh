#!/usr/bin/env bash
# Issue 24 item 9, the sensim program: bad input reaching the end of the line gets one error line
# and a clear exit status, never a hang or a silent success.
# usage: bad_input.sh SENSIM TMP_DIR
set -u
SENSIM=$(realpath "$1") TMP=$(realpath "$2")/bad_input
rm -rf "$TMP" && mkdir -p "$TMP" && cd "$TMP" || exit 1
fails=0
bad() { fails=$((fails + 1)); echo "FAIL: $*" >&2; }
# expect STATUS TEXT DESCRIPTION COMMAND...: exit STATUS within 20 s, one stderr line holding TEXT
expect() {
  local want=$1 text=$2 what=$3; shift 3
  timeout 20 "$@" >"$TMP/out" 2>"$TMP/err" </dev/null
  local rc=$?
  if [ $rc -eq 124 ]; then bad "$what: still running after 20 s (blocked)"; return; fi
  [ $rc -eq "$want" ] || { bad "$what: exit $rc, want $want ($(head -c 300 "$TMP/err"))"; return; }
  [ "$(wc -l <"$TMP/err")" -eq 1 ] || bad "$what: want one error line, got: $(cat "$TMP/err")"
  grep -qF -- "$text" "$TMP/err" || bad "$what: '$text' not in: $(cat "$TMP/err")"
}

# A FIFO where a file is read: refused at once (opening one for reading waits for a writer).
mkfifo "$TMP/fifo"
mkdir -p "$TMP/o"
expect 2 "not a recording: it is a FIFO" "recorder info FIFO" "$SENSIM" recorder info "$TMP/fifo"
expect 2 "not a recording: it is a FIFO" "replay FIFO" "$SENSIM" replay "$TMP/fifo" --out "$TMP/o/replay"
expect 2 "not a batch spec: it is a FIFO" "batch spec FIFO" "$SENSIM" batch "$TMP/fifo" --out "$TMP/o/batch"
expect 2 "not a manifest file: it is a FIFO" "batch merge FIFO" "$SENSIM" batch merge --out "$TMP/o/merge" "$TMP/fifo"
expect 2 "not a scene file: it is a FIFO" "run FIFO" "$SENSIM" run "$TMP/fifo" --out "$TMP/o/run"
expect 2 "not a map: it is a FIFO" "map FIFO" "$SENSIM" map "$TMP/fifo"

# Output that cannot be written is a failure, exit 1 with one line, as `sensim dump` reports it:
# a full device, and a closed pipe with SIGPIPE ignored (as Python's subprocess leaves it).
printf 'settings: {frames: 2}\nactors:\n  - {blueprint: static.ground}\n' >"$TMP/tiny.yaml"
full() { # full DESCRIPTION COMMAND...
  local what=$1; shift
  timeout 60 "$@" >/dev/full 2>"$TMP/err" </dev/null
  local rc=$?
  [ $rc -eq 1 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q "^sensim: error: .*No space left on device" "$TMP/err" ||
    bad "$what > /dev/full: exit $rc, stderr: $(cat "$TMP/err")"
}
full "blueprints" "$SENSIM" blueprints
full "blueprints --json" "$SENSIM" blueprints --json
full "plugins" "$SENSIM" plugins
full "--version" "$SENSIM" --version
full "--help" "$SENSIM" --help
full "run --help" "$SENSIM" run --help
full "run (its summary)" "$SENSIM" run "$TMP/tiny.yaml" --out "$TMP/o/tiny"
(trap '' PIPE; "$SENSIM" blueprints 2>"$TMP/err" | true; echo "${PIPESTATUS[0]}" >"$TMP/rc")
[ "$(cat "$TMP/rc")" -eq 1 ] && grep -q "Broken pipe" "$TMP/err" ||
  bad "blueprints into a closed pipe: exit $(cat "$TMP/rc"), stderr: $(cat "$TMP/err")"

# Extra arguments are refused, not ignored.
expect 2 "blueprints: unexpected argument 'extra'" "blueprints extra" "$SENSIM" blueprints extra
expect 2 "plugins: unexpected argument 'extra'" "plugins extra" "$SENSIM" plugins --json extra
expect 2 "--version: unexpected argument 'extra'" "--version extra" "$SENSIM" --version extra

# The usage text names each option once.
"$SENSIM" --help >"$TMP/usage"
n=$(grep -c -- "--record FILE \[--additional-data\]" "$TMP/usage")
[ "$n" -eq 1 ] || bad "the usage text repeats [--record FILE [--additional-data]]: $n times"

[ $fails -eq 0 ] || exit 1
echo "bad input: clear errors, no hang" >&2
