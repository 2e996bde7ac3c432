#!/usr/bin/env bash
# sensor.other.lane_invasion on the shipped town: a car changes from the eastbound lane to the
# westbound one across the solid yellow centre line (world y = 0) and stops short of the far
# edge. Ground truth from the map's layout: each of the box's four corners crosses the centre
# line once, at y = 0, reported as Solid Yellow of road 2's centre lane (lane_id 0); no white
# edge is crossed; the run is byte-identical when repeated; the same with crossing_rule painted
# (where each is crossed: y = 0). Without a map: a warning, no messages. CARLA's rule against a
# port of its loop: python/tests/test_lane_invasion_carla.py.
# args: sensim, the plugin's folder, maps/, a temp folder
set -uo pipefail
sensim=$1 plugins=$2 maps=$3 tmp=$4/lane_invasion
rm -rf "$tmp" && mkdir -p "$tmp"
fails=0
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }

cat >"$tmp/scene.yaml" <<YAML
map: $maps/town.xodr
settings: {fixed_delta_seconds: 0.05, frames: 200}
actors:
  - {name: ground, blueprint: static.ground}
  - name: hero
    blueprint: vehicle.sedan
    transform: {location: [15, 1.75, 0], rotation: [0, 0, 0]}
    autopilot: {route: [[25, 1.75, 0], [65, -1.75, 0], [90, -1.75, 0]], target_speed: 5}
sensors:
  - {name: lanes, blueprint: sensor.other.lane_invasion, attach_to: hero}
YAML
for run in a b; do
  "$sensim" run "$tmp/scene.yaml" --out "$tmp/$run" --plugin-dir "$plugins" --quiet || bad "run $run failed"
done
# sensim's earlier rule, kept by an attribute: every painted border crossed, where it is crossed
sed 's/attach_to: hero}/attach_to: hero, attributes: {crossing_rule: painted}}/' "$tmp/scene.yaml" >"$tmp/painted.yaml"
"$sensim" run "$tmp/painted.yaml" --out "$tmp/p" --plugin-dir "$plugins" --quiet || bad "run painted failed"
"$sensim" dump "$tmp/p/lanes.msgpack" >"$tmp/p.jsonl" || bad "dump painted failed"
cmp -s "$tmp/a/lanes.msgpack" "$tmp/b/lanes.msgpack" || bad "two runs differ"
"$sensim" dump "$tmp/a/lanes.msgpack" >"$tmp/a.jsonl" || bad "dump failed"
for rule in carla painted; do
f=$tmp/a.jsonl; [ $rule = painted ] && f=$tmp/p.jsonl
python3 - "$f" "$rule" <<'PY' || fails=$((fails + 1))
import json, sys
msgs = [json.loads(l) for l in open(sys.argv[1])]
painted = sys.argv[2] == "painted"
marks = [(m["frame"], k) for m in msgs for k in m["crossed_lane_markings"]]
ok = True
def check(c, what):
    global ok
    if not c:
        print("FAIL:", what); ok = False
check(len(marks) == 4, f"four corners cross once each: {len(marks)} crossings")
for f, k in marks:
    check((k["type"], k["color"], k["lane_id"], k["road_id"]) == ("Solid", "Yellow", 0, 2), f"frame {f}: {k}")
    if painted:  # where it is crossed; CARLA's rule gives the corner's new place
        check(abs(k["location"][1]) < 1e-6, f"crossed at y = 0: {k['location']}")
check(all(m["actor"]["type_id"] == "vehicle.sedan" for m in msgs), "the parent is the actor")
frames = [m["frame"] for m in msgs]
check(frames == sorted(set(frames)), "one message per tick at most")
sys.exit(0 if ok else 1)
PY
done

# No map: the sensor warns once and writes nothing.
sed '/^map:/d' "$tmp/scene.yaml" >"$tmp/nomap.yaml"
"$sensim" run "$tmp/nomap.yaml" --out "$tmp/c" --plugin-dir "$plugins" 2>"$tmp/err.txt" || bad "run without a map failed"
grep -q "no map" "$tmp/err.txt" || bad "no warning without a map: $(cat "$tmp/err.txt")"
[ "$(grep -c "no map" "$tmp/err.txt")" -eq 1 ] || bad "warned more than once"
[ ! -s "$tmp/c/lanes.msgpack" ] || bad "messages without a map"
[ "$fails" -eq 0 ] && echo "lane_invasion: ok" || exit 1
