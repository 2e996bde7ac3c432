#!/usr/bin/env bash
# OpenSCENARIO through the CLI (docs/openscenario.md), on the shipped examples (scenarios/):
#   - each example runs with --set settings.fixed_delta_seconds=0.01 and ends by its StopTrigger;
#     its events start when the closed form of the motion says (cut-in: the target's rear is
#     CutInGap m ahead of the ego's front at t = (CutInGap + 24.6) / 5; lead brake: no collision,
#     the lead brakes at 2.01 s; pedestrian: the ego brakes when the walker reaches its lane);
#   - --set parameters.NAME=VALUE changes a run, an undeclared NAME is refused;
#   - a scene wraps a scenario and attaches sensors to its entities; its outputs are byte-identical
#     across runs and thread counts;
#   - bad input: `sensim: error: FILE:LINE: element: ...` and exit status 2;
#   - a scenario without LogicFile, with an entity the Init does not place, plays (warnings);
#   - an entity on a sloped, superelevated road is lifted clear of its mesh at spawn.
# args: sensim, the source root, a temp folder, the plugins' build folder
set -uo pipefail
sensim=$1 src=$2 tmp=$3/scenario plugins=$4
rm -rf "$tmp" && mkdir -p "$tmp"
fails=0
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
# the simulation time of the first log line holding all the given strings
at() {
  local f=$1
  shift
  local line
  line=$("$sensim" dump "$f" | while IFS= read -r l; do
    m=1
    for p in "$@"; do [[ $l == *"$p"* ]] || m=0; done
    if [ $m = 1 ]; then echo "$l"; break; fi
  done)
  [ -n "$line" ] || { echo none; return; }
  echo "$line" | sed -E 's/.*"timestamp":([0-9.e+-]+).*/\1/' | awk '{printf "%.2f\n", $1}'
}
run() { "$sensim" run "$@" --quiet --plugin-dir "$plugins"; }

# --- the examples ---
for s in cut-in lead-brake pedestrian-crossing; do
  run "$src/scenarios/$s.xosc" --out "$tmp/$s" --set settings.fixed_delta_seconds=0.01 || bad "$s: run failed"
  grep -q '"completed":true,"ended_by":"StopTrigger"' "$tmp/$s/run.json" || bad "$s: run.json: $(cat "$tmp/$s/run.json")"
done
# the views read a scenario run's folder: the report takes the storyboard stream as a stream, the
# export leaves it out as a run's --mcap does, so both files are the same
"$sensim" report "$tmp/cut-in" --out "$tmp/cut-in.html" > /dev/null && ! grep -q "corrupt" "$tmp/cut-in.html" ||
  bad "report of a scenario run"
run "$src/scenarios/cut-in.xosc" --out "$tmp/cut-in-m" --set settings.fixed_delta_seconds=0.01 --mcap "$tmp/cut-in-m.mcap" &&
  "$sensim" export mcap "$tmp/cut-in" --out "$tmp/cut-in.mcap" > /dev/null && cmp -s "$tmp/cut-in.mcap" "$tmp/cut-in-m.mcap" ||
  bad "export mcap of a scenario run differs from its --mcap"
t=$(at "$tmp/cut-in/storyboard.msgpack" '"element":"CutInLaneChange"' startTransition)
# (10 + 24.6) / 5 = 6.92: the first step where the gap exceeds 10 m is 6.92 or, when the summed
# positions round the other way, 6.93
[[ $t == 6.92 || $t == 6.93 ]] || bad "cut-in: the lane change starts at $t, not 6.92-6.93"
grep -q '"stop_condition":"SlowDownOver"' "$tmp/cut-in/run.json" || bad "cut-in: stopped by another condition"
t=$(at "$tmp/lead-brake/storyboard.msgpack" '"element":"LeadBrake"' startTransition)
[ "$t" = 2.01 ] || bad "lead-brake: the lead brakes at $t, not 2.01"
[ "$(at "$tmp/lead-brake/storyboard.msgpack" '"element":"MarkCrash"' startTransition)" = none ] || bad "lead-brake: a collision"
[ "$(at "$tmp/lead-brake/storyboard.msgpack" '"element":"EgoBrake"' startTransition)" != none ] || bad "lead-brake: the ego never braked"
# the walker steps out at 1.01 (the ego 30 m away) and covers 1.5 - 0.3 m at 1.5 m/s: 0.8 s later
t=$(at "$tmp/pedestrian-crossing/storyboard.msgpack" '"element":"EgoBrake"' startTransition)
[[ $t == 1.81 || $t == 1.82 ]] || bad "pedestrian: the ego brakes at $t, not 1.81-1.82"

# --- parameters ---
run "$src/scenarios/cut-in.xosc" --out "$tmp/gap20" --set settings.fixed_delta_seconds=0.01 --set parameters.CutInGap=20 ||
  bad "--set parameters failed"
t=$(at "$tmp/gap20/storyboard.msgpack" '"element":"CutInLaneChange"' startTransition)
[[ $t == 8.92 || $t == 8.93 ]] || bad "CutInGap=20: the lane change starts at $t, not 8.92-8.93"
run "$src/scenarios/cut-in.xosc" --out "$tmp/nope" --set parameters.Nope=1 2>"$tmp/nope.err"
[ $? = 2 ] || bad "an undeclared parameter: exit status not 2"
grep -q "declares no parameter 'Nope'" "$tmp/nope.err" || bad "undeclared parameter: $(cat "$tmp/nope.err")"

# --- a scene wrapping a scenario, sensors attached to its entities; determinism ---
for r in a:1 b:1 c:2; do
  run "$src/scenes/scenario_cut_in.yaml" --out "$tmp/wrap_${r%%:*}" --threads "${r##*:}" || bad "wrapped scene failed (${r})"
done
for f in front.msgpack radar.msgpack crash.msgpack storyboard.msgpack run.json; do
  [ -s "$tmp/wrap_a/$f" ] || [ "$f" = crash.msgpack ] || bad "wrapped scene: no $f"
  cmp -s "$tmp/wrap_a/$f" "$tmp/wrap_b/$f" || bad "$f differs between two runs"
  cmp -s "$tmp/wrap_a/$f" "$tmp/wrap_c/$f" || bad "$f differs between 1 and 2 threads"
done
[ "$("$sensim" dump "$tmp/wrap_a/front.msgpack" | wc -l)" -ge 20 ] || bad "the camera on Ego wrote too few images"

# --- bad input ---
cp "$src/scenarios/cut-in.xosc" "$tmp/good.xosc"
sed -i "s#../maps/highway.xodr#$src/maps/highway.xodr#" "$tmp/good.xosc"
check_bad() { # name, sed expression, expected text
  sed -E "$2" "$tmp/good.xosc" >"$tmp/$1.xosc"
  run "$tmp/$1.xosc" --out "$tmp/$1.out" 2>"$tmp/$1.err"
  local rc=$?
  [ $rc = 2 ] || bad "$1: exit status $rc, not 2"
  grep -qE "^sensim: error: $tmp/$1.xosc:[0-9]+: " "$tmp/$1.err" || bad "$1: not 'sensim: error: FILE:LINE:': $(cat "$tmp/$1.err")"
  grep -qF "$3" "$tmp/$1.err" || bad "$1: '$(cat "$tmp/$1.err")' lacks '$3'"
  [ "$(wc -l <"$tmp/$1.err")" = 1 ] || bad "$1: more than one line"
}
check_bad malformed 's#</Entities>#</Entitie>#' "XML:"
check_bad unknown 's#<Init>#<Init><Bogus/>#' "unknown element <Bogus> in <Init>"
check_bad dangling 's#<EntityRef entityRef="Target"/></Actors>#<EntityRef entityRef="Ghost"/></Actors>#' "'Ghost' names no entity"
check_bad loop 's#value="\$\{\$EgoSpeed \+ 5\}"#value="$CutInGap"#; s#name="CutInGap" parameterType="double" value="10"#name="CutInGap" value="$TargetSpeed"#' "parameter loop"
check_bad negative 's#dynamicsShape="cubic" value="2"#dynamicsShape="cubic" value="-2"#' "negative"
check_bad nan 's#<AbsoluteTargetSpeed value="\$EgoSpeed"/>#<AbsoluteTargetSpeed value="nan"/>#' "not a finite number"
check_bad logicfile "s#filepath=\"[^\"]*\"#filepath=\"missing.xodr\"#" "cannot open"
check_bad unsupported 's#<TeleportAction><Position><LanePosition roadId="1" laneId="-3" s="40" offset="0"/>#<TeleportAction><Position><GeoPosition latitude="1" longitude="2"/>#' "<GeoPosition> is not supported"

# --- no LogicFile, an entity the Init does not place, Timing on untimed vertices (esmini plays
# all three): an empty plane; Walker starts at the origin and its Init trajectory (10,0) -> (30,0)
# at 5 m/s takes 4 s; Other (also unplaced) overlaps it at the origin; each named in a warning ---
cat > "$tmp/planeless.xosc" <<'XOSC'
<?xml version="1.0"?>
<OpenSCENARIO><FileHeader revMajor="1" revMinor="2" date="d" description="d" author="a"/>
<Entities>
<ScenarioObject name="Walker"><Pedestrian name="p" mass="80" pedestrianCategory="pedestrian"><BoundingBox><Center x="0" y="0" z="0.9"/><Dimensions width="0.5" length="0.5" height="1.8"/></BoundingBox><Properties/></Pedestrian></ScenarioObject>
<ScenarioObject name="Other"><Pedestrian name="p" mass="80" pedestrianCategory="pedestrian"><BoundingBox><Center x="0" y="0" z="0.9"/><Dimensions width="0.5" length="0.5" height="1.8"/></BoundingBox><Properties/></Pedestrian></ScenarioObject>
</Entities>
<Storyboard><Init><Actions><Private entityRef="Walker">
<PrivateAction><LongitudinalAction><SpeedAction><SpeedActionDynamics dynamicsShape="step" value="0" dynamicsDimension="time"/><SpeedActionTarget><AbsoluteTargetSpeed value="5"/></SpeedActionTarget></SpeedAction></LongitudinalAction></PrivateAction>
</Private></Actions></Init>
<Story name="S"><Act name="A"><ManeuverGroup name="G" maximumExecutionCount="1"><Actors selectTriggeringEntities="false"><EntityRef entityRef="Walker"/></Actors>
<Maneuver name="M"><Event name="E" priority="override"><Action name="Walk"><PrivateAction><RoutingAction><FollowTrajectoryAction>
<Trajectory name="t" closed="false"><Shape><Polyline><Vertex><Position><WorldPosition x="10" y="0"/></Position></Vertex><Vertex><Position><WorldPosition x="30" y="0"/></Position></Vertex></Polyline></Shape></Trajectory>
<TimeReference><Timing domainAbsoluteRelative="relative" scale="1" offset="0"/></TimeReference></FollowTrajectoryAction></RoutingAction></PrivateAction></Action></Event></Maneuver></ManeuverGroup>
<StartTrigger/></Act></Story>
<StopTrigger/></Storyboard></OpenSCENARIO>
XOSC
"$sensim" run "$tmp/planeless.xosc" --out "$tmp/o_planeless" --plugin-dir "$plugins" --set settings.fixed_delta_seconds=0.01 \
  > /dev/null 2> "$tmp/planeless.err" || bad "planeless: $(cat "$tmp/planeless.err")"
for w in "RoadNetwork: no LogicFile: the entities move on an empty plane" "entity 'Walker' has no TeleportAction in the Init" \
         "entity 'Other' has no TeleportAction" "Timing given but the vertices have no time"; do
  grep -qF "$w" "$tmp/planeless.err" || bad "planeless: no warning '$w': $(cat "$tmp/planeless.err")"
done
t=$(at "$tmp/o_planeless/storyboard.msgpack" '"element":"Walk"' endTransition)
awk -v t="$t" 'BEGIN { exit !(t >= 3.99 && t <= 4.02) }' || bad "planeless: the walk ends at $t, not 4.00 (20 m at 5 m/s)"

# --- an entity on the highway's sloped, superelevated stretch (road 1, s 500: grade and bank) is
# lifted clear of the road mesh at spawn (it overlapped it by 0.10 m, refused before) ---
sed 's#roadId="1" laneId="-3" s="40"#roadId="1" laneId="-4" s="500"#' "$tmp/good.xosc" > "$tmp/slope.xosc"
"$sensim" run "$tmp/slope.xosc" --out "$tmp/o_slope" --quiet --frames 5 --plugin-dir "$plugins" 2> "$tmp/slope.err" ||
  bad "slope: $(cat "$tmp/slope.err")"

echo "scenario: $fails failure(s)"
[ $fails = 0 ]
