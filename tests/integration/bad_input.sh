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

[ $fails -eq 0 ] || exit 1
echo "bad input: clear errors, no hang" >&2
