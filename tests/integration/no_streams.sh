#!/usr/bin/env bash
# stream: false per sensor and --no-streams per run (issue 33 item 6): the streams named go,
# and nothing else changes. The town scene (three saving cameras, collision, lane invasion),
# 8 frames, recorded and written as MCAP as it runs, three ways: as it is; with the RGB camera's
# stream: false (--set); with --no-streams. Against the first: the same files but the streams
# dropped, every other file (saved PNGs, run.json) byte for byte, the recording and the MCAP
# file (fed by listeners, not streams) byte for byte.
# usage: no_streams.sh SENSIM SCENES_DIR TMP_DIR
set -u
SENSIM=$1 SCENES=$2 TMP=$3/no_streams
rm -rf "$TMP" && mkdir -p "$TMP"
fails=0 checks=0
ok() { checks=$((checks + 1)); }
bad() { checks=$((checks + 1)); fails=$((fails + 1)); echo "FAIL: $*" >&2; }
run() { # name, extra args...
  local n=$1; shift
  "$SENSIM" run "$SCENES/town.yaml" --frames 8 --threads 1 --out "$TMP/$n" --record "$TMP/$n.rec" --mcap "$TMP/$n.mcap" \
    --quiet "$@" 2>"$TMP/$n.err" || bad "run $n: $(cat "$TMP/$n.err")"
}
run all
run one --set sensors.hero_rgb.stream=false
run none --no-streams
files() { (cd "$1" && find . -type f | sort); }
n_all=$(files "$TMP/all" | grep -c '\.msgpack$')
[ "$n_all" -ge 5 ] && ok || bad "the plain run wrote $n_all streams"
[ "$(files "$TMP/one")" = "$(files "$TMP/all" | grep -v '^\./hero_rgb\.msgpack$')" ] && ok ||
  bad "stream: false: files differ beyond hero_rgb.msgpack: $(diff <(files "$TMP/all") <(files "$TMP/one"))"
[ "$(files "$TMP/none")" = "$(files "$TMP/all" | grep -v '\.msgpack$')" ] && ok ||
  bad "--no-streams: files differ beyond the streams: $(diff <(files "$TMP/all") <(files "$TMP/none"))"
for n in one none; do
  for f in $(files "$TMP/$n"); do
    cmp -s "$TMP/all/$f" "$TMP/$n/$f" || bad "$n: $f differs"
  done
  cmp -s "$TMP/all.rec" "$TMP/$n.rec" && ok || bad "$n: the recording differs"
  cmp -s "$TMP/all.mcap" "$TMP/$n.mcap" && ok || bad "$n: the MCAP file differs"
done
n_png=$(ls "$TMP/all/hero_rgb" | wc -l)
[ "$n_png" -ge 1 ] && [ "$(ls "$TMP/none/hero_rgb" | wc -l)" -eq "$n_png" ] && ok || bad "--no-streams: $(ls "$TMP/none/hero_rgb" | wc -l) saved images, want $n_png"
# a scene's own key, and a bad value
sed 's/    save: {path: "hero_rgb\/%06d.png"}/    save: {path: "hero_rgb\/%06d.png"}\n    stream: false/' "$SCENES/town.yaml" >"$TMP/town_nostream.yaml"
grep -q "stream: false" "$TMP/town_nostream.yaml" || bad "the scene edit"
cp "$SCENES/../maps/town.xodr" "$TMP/" 2>/dev/null; sed -i "s|map: .*|map: $SCENES/../maps/town.xodr|" "$TMP/town_nostream.yaml"
"$SENSIM" run "$TMP/town_nostream.yaml" --frames 2 --out "$TMP/key" --quiet 2>"$TMP/key.err" && [ ! -e "$TMP/key/hero_rgb.msgpack" ] &&
  [ -e "$TMP/key/hero_depth.msgpack" ] && ok || bad "stream: false in the scene: $(cat "$TMP/key.err"; ls "$TMP/key")"
"$SENSIM" run "$SCENES/town.yaml" --frames 2 --out "$TMP/badv" --set sensors.hero_rgb.stream=maybe 2>"$TMP/bad.err"
[ $? -eq 2 ] && grep -q "stream" "$TMP/bad.err" && ok || bad "stream: maybe: $(cat "$TMP/bad.err")"
echo "$checks checks, $fails failed" >&2
[ "$fails" -eq 0 ]
