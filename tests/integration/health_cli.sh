#!/usr/bin/env bash
# Traffic health through the command line: `sensim run` writes the same `traffic_health` object
# to run.json and --stats (its old keys kept), the same bytes at --threads 1 and 2, and
# `sensim report` shows it as a table per minute.
# usage: health_cli.sh SENSIM TMP_DIR MAP (tests/data/town.xodr)
set -u
SENSIM=$1 TMP=$2/health_cli MAP=$3
rm -rf "$TMP" && mkdir -p "$TMP"
fails=0
bad() { fails=$((fails + 1)); echo "FAIL: $*" >&2; }
cat >"$TMP/scene.yaml" <<YAML
settings: {fixed_delta_seconds: 0.1, frames: 700, seed: 3}
map: $MAP
actors:
  - {name: ground, blueprint: static.ground}
  - {name: hero, blueprint: vehicle.sedan, transform: {location: [-30, 1.75, 0.3]}, autopilot: {}}
sensors:
  - {name: crash, blueprint: sensor.other.collision, attach_to: hero}
traffic: {vehicles: 12, walkers: 6, seed: 4}
YAML
for t in 1 2; do
  "$SENSIM" run "$TMP/scene.yaml" --out "$TMP/run$t" --quiet --threads $t --stats "$TMP/stats$t.json" || bad "run --threads $t"
done
cmp -s "$TMP/run1/run.json" "$TMP/run2/run.json" || bad "run.json differs between --threads 1 and 2"
# the traffic_health object of each file, parsed as JSON and written back compactly in its order
health() { python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1]))["traffic_health"], separators=(",", ":")))' "$1"; }
th_run=$(health "$TMP/run1/run.json")
th_stats=$(health "$TMP/stats1.json")
[ -n "$th_run" ] && [ "$th_run" = "$th_stats" ] || bad "run.json and --stats differ: '$th_run' vs '$th_stats'"
for k in '"format":"sensim-run 1"' '"seed":3' '"map":'; do
  grep -q "$k" "$TMP/run1/run.json" || bad "run.json lost $k"
done
for k in '"frames":700' '"sim_time":70' '"messages":' '"time_world":' '"scene":'; do
  grep -q "$k" "$TMP/stats1.json" || bad "stats.json lost $k"
done
# 70 s: a whole minute and 10 s of the next; 13 autopilot vehicles through both
echo "$th_run" | grep -q '"windows":\[{"start":0,"duration":60,"vehicles":13,.*{"start":60,"duration":10,"vehicles":13,' ||
  bad "the windows: $th_run"
cp "$TMP/stats1.json" "$TMP/run1/stats.json"
"$SENSIM" report "$TMP/run1" --out "$TMP/report.html" >/dev/null || bad "report"
grep -q '<section id="traffic-health">' "$TMP/report.html" && grep -q '<tr><th>0&ndash;60 s</th><td>13</td>' "$TMP/report.html" &&
  grep -q '<tr><th>60&ndash;70 s</th><td>13</td>' "$TMP/report.html" || bad "the report's traffic health table"
[ $fails = 0 ] && echo "ok" || exit 1
