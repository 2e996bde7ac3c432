#!/usr/bin/env bash
# Every input of export mcap and report through the checked opener, and one rule for the run's
# map (issue 33 items 19, 22): a folder whose stats.json is a FIFO is reported (it hung); the
# map run.json names may be gone, a FIFO, a folder or a device: in both commands a warning
# and an output without lanes, exit 0 (export exited 1 for all but the deleted one); "map":""
# is no map (it resolved to the run folder); run.json written with a space after the colon
# (json.dump, jq) is read; a stream that is a FIFO is refused at once; an output path that
# cannot be written is exit 2 in export, report and convert alike. Each command runs under
# `timeout 20`: a hang is a failure, not a stuck suite.
# usage: run_inputs.sh SENSIM SCENES_DIR TMP_DIR
set -u
SENSIM=$1 SCENES=$2 TMP=$3/run_inputs
rm -rf "$TMP" && mkdir -p "$TMP"
fails=0 checks=0
ok() { checks=$((checks + 1)); }
bad() { checks=$((checks + 1)); fails=$((fails + 1)); echo "FAIL: $*" >&2; }
T() { timeout 20 "$SENSIM" "$@"; }

T run "$SCENES/town.yaml" --frames 5 --out "$TMP/run" --quiet || { echo "FAIL: the run"; exit 1; }
MAP=$(cd "$TMP/run" && realpath "$(sed -n 's/.*"map":"\([^"]*\)".*/\1/p' run.json)")
[ -f "$MAP" ] && ok || bad "run.json names no map: $(cat "$TMP/run/run.json")"

# 19: stats.json a FIFO
cp -r "$TMP/run" "$TMP/fifo_stats" && mkfifo "$TMP/fifo_stats/stats.json"
T report "$TMP/fifo_stats" --out "$TMP/fifo_stats.html" >/dev/null 2>"$TMP/err"
rc=$?
[ $rc -eq 0 ] && grep -q "stats.json is a FIFO" "$TMP/err" && ok || bad "report with a FIFO stats.json: exit $rc, $(cat "$TMP/err")"

# 19: a stream that is a FIFO (dump, convert, export read streams)
mkfifo "$TMP/fifo.msgpack"
T dump "$TMP/fifo.msgpack" >/dev/null 2>"$TMP/err"
rc=$?
[ $rc -ne 0 ] && [ $rc -ne 124 ] && grep -q "not a stream: it is a FIFO" "$TMP/err" && ok || bad "dump of a FIFO: exit $rc, $(cat "$TMP/err")"
cp -r "$TMP/run" "$TMP/fifo_stream" && mkfifo "$TMP/fifo_stream/zz.msgpack"
T export mcap "$TMP/fifo_stream" --out "$TMP/fifo_stream.mcap" >/dev/null 2>"$TMP/err"
rc=$?
[ $rc -ne 124 ] && ok || bad "export of a folder with a FIFO stream hung"

# 22: the run's map, each way it can be unusable: a warning, no lanes, exit 0 in both commands
mkdir -p "$TMP/adir" && mkfifo "$TMP/afifo"
for how in gone fifo folder device; do
  case $how in
    gone) m="$TMP/nothing.xodr" ;; fifo) m="$TMP/afifo" ;; folder) m="$TMP/adir" ;; device) m=/dev/zero ;;
  esac
  d="$TMP/map_$how"
  cp -r "$TMP/run" "$d" && printf '{"format":"sensim-run 1","map":"%s","seed":1}\n' "$m" >"$d/run.json"
  T export mcap "$d" --out "$d.mcap" >"$TMP/out" 2>"$TMP/err"
  rc=$?
  [ $rc -eq 0 ] && grep -q "^sensim: warning: export: the run's map .* cannot be read" "$TMP/err" && ! grep -q "with the map" "$TMP/out" &&
    ok || bad "export, map $how: exit $rc, $(cat "$TMP/err")"
  T report "$d" --out "$d.html" >/dev/null 2>"$TMP/err"
  rc=$?
  [ $rc -eq 0 ] && grep -q "^sensim: warning: report: the run's map .* cannot be read" "$TMP/err" && ! grep -q '<g class="map"' "$d.html" &&
    ok || bad "report, map $how: exit $rc, $(cat "$TMP/err")"
done

# 22: "map":"" is no map, silently
d="$TMP/map_empty" && cp -r "$TMP/run" "$d" && printf '{"format":"sensim-run 1","map":"","seed":1}\n' >"$d/run.json"
T export mcap "$d" --out "$d.mcap" >"$TMP/out" 2>"$TMP/err"
rc=$?
[ $rc -eq 0 ] && [ ! -s "$TMP/err" ] && ! grep -q "with the map" "$TMP/out" && ok || bad "export, map \"\": exit $rc, $(cat "$TMP/out" "$TMP/err")"

# 22: JSON as json.dump writes it (spaces after ':' and ','): the map is found by both
d="$TMP/map_spaced" && cp -r "$TMP/run" "$d"
/usr/bin/python3 -c 'import json,sys; json.dump({"format": "sensim-run 1", "map": sys.argv[1], "seed": 1}, open(sys.argv[2], "w"), indent=1)' "$MAP" "$d/run.json"
T export mcap "$d" --out "$d.mcap" >"$TMP/out" 2>"$TMP/err"
grep -q "with the map $MAP" "$TMP/out" && ok || bad "export of a spaced run.json: $(cat "$TMP/out" "$TMP/err")"
T report "$d" --out "$d.html" >/dev/null 2>"$TMP/err"
grep -q '<g class="map"' "$d.html" && ok || bad "report of a spaced run.json found no map: $(cat "$TMP/err")"
# a run.json that is no JSON: a warning, not a failure
d="$TMP/map_broken" && cp -r "$TMP/run" "$d" && printf '{"map": "x",' >"$d/run.json"
T export mcap "$d" --out "$d.mcap" >/dev/null 2>"$TMP/err"
rc=$?
[ $rc -eq 0 ] && grep -q "^sensim: warning: export: .*not a run note" "$TMP/err" && ok || bad "export, broken run.json: exit $rc, $(cat "$TMP/err")"
# the parser's place as FILE:LINE:COL (fuzz71: it said "--set (null): at column 1 of the value")
grep -q "run.json:[0-9]*:[0-9]*: malformed" "$TMP/err" && ! grep -q -- "--set" "$TMP/err" && ok || bad "export, broken run.json, the place: $(cat "$TMP/err")"

# 22: an output path that cannot be written: exit 2 everywhere, before any work
T export mcap "$TMP/run" --out "$TMP/no/such/dir/x.mcap" >/dev/null 2>"$TMP/err"
rc=$?
[ $rc -eq 2 ] && grep -q "^sensim: error: export: cannot write" "$TMP/err" && ok || bad "export to a missing folder: exit $rc, $(cat "$TMP/err")"
T export mcap "$TMP/run" --out "$TMP/adir" >/dev/null 2>"$TMP/err"
rc=$?
[ $rc -eq 2 ] && ok || bad "export onto a folder: exit $rc, $(cat "$TMP/err")"
T report "$TMP/run" --out "$TMP/no/such/dir/x.html" >/dev/null 2>"$TMP/err"
rc=$?
[ $rc -eq 2 ] && ok || bad "report to a missing folder: exit $rc, $(cat "$TMP/err")"
T convert "$TMP/run/hero_rgb.msgpack" --video "$TMP/no/such/dir/x.mp4" >/dev/null 2>"$TMP/err"
rc=$?
[ $rc -eq 2 ] && ok || bad "convert --video to a missing folder: exit $rc, $(cat "$TMP/err")"

# 23: timestamps 1e300 s apart give no frame rate: the input's fault, exit 2, the timestamps named
if [ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import msgpack' 2>/dev/null; then
  /usr/bin/python3 - "$TMP/run/hero_rgb.msgpack" "$TMP/absurd.msgpack" <<'PY'
import sys, msgpack
m = next(iter(msgpack.Unpacker(open(sys.argv[1], "rb"), raw=False)))
with open(sys.argv[2], "wb") as f:
    for i in range(3):
        m["timestamp"], m["frame"] = i * 1e300, i + 1
        f.write(msgpack.packb(m))
PY
  T convert "$TMP/absurd.msgpack" --video "$TMP/absurd.mp4" >/dev/null 2>"$TMP/err"
  rc=$?
  [ $rc -eq 2 ] && grep -q "timestamps (0 s to 2e+300 s over 3 pictures)" "$TMP/err" && [ ! -e "$TMP/absurd.mp4" ] && ok ||
    bad "convert --video of timestamps 1e300 s apart: exit $rc, $(cat "$TMP/err")"
fi

echo "$checks checks, $fails failed" >&2
[ "$fails" -eq 0 ]
