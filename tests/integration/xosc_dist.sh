#!/usr/bin/env bash
# OpenSCENARIO ParameterValueDistribution files expanded into sensim batch runs
# (docs/openscenario.md, "Parameter variation"):
#   - deterministic: DistributionRange and DistributionSet combine as a product (the first
#     slowest), ValueSetDistribution gives one run per set; ids, scene and --set in the dry run;
#   - the shipped sweep (scenarios/cut-in-sweep.xosc) runs: each run's parameters are in the
#     manifest, and its lane change starts where the closed form for its CutInGap says;
#   - stochastic: numberOfTestRuns runs, the same randomSeed the same values, draws inside their
#     Range, a uniform's and a normal's sample mean and variance near the declared ones,
#     ProbabilityDistributionSet only its elements, in proportion to the weights;
#   - a batch spec entry naming a distribution, with its own set;
#   - UserDefinedDistribution: the parameter keeps the scenario's value, with a warning;
#   - bad input: an undeclared parameter, stepWidth 0, no ScenarioFile: FILE:LINE and exit 2.
# args: sensim, the source root, a temp folder, the plugins' build folder
set -uo pipefail
sensim=$1 src=$2 tmp=$3/xosc_dist plugins=$4
rm -rf "$tmp" && mkdir -p "$tmp"
fails=0
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
cp "$src/scenarios/cut-in.xosc" "$tmp/"
# its LogicFile is relative to it: point the copy at the source tree's map
sed -i "s|filepath=\"\\([^\"]*\\.xodr\\)\"|filepath=\"$src/scenarios/\\1\"|" "$tmp/cut-in.xosc"

dist() { # dist FILE BODY: a distribution of cut-in.xosc
  printf '<?xml version="1.0"?>\n<OpenSCENARIO>\n<FileHeader revMajor="1" revMinor="2" date="2026-01-01T00:00:00" author="t" description="d"/>\n<ParameterValueDistribution>\n<ScenarioFile filepath="cut-in.xosc"/>\n%s\n</ParameterValueDistribution>\n</OpenSCENARIO>\n' "$2" > "$tmp/$1"
}

# --- deterministic: 3 x 2 product, then a value set ---
dist det.xosc '<Deterministic>
<DeterministicSingleParameterDistribution parameterName="CutInGap"><DistributionRange stepWidth="0.1"><Range lowerLimit="10" upperLimit="10.2"/></DistributionRange></DeterministicSingleParameterDistribution>
<DeterministicSingleParameterDistribution parameterName="EgoSpeed"><DistributionSet><Element value="20"/><Element value="${5 * 5}"/></DistributionSet></DeterministicSingleParameterDistribution>
<DeterministicMultiParameterDistribution><ValueSetDistribution>
<ParameterValueSet><ParameterAssignment parameterRef="LaneChangeTime" value="2"/><ParameterAssignment parameterRef="TargetSpeed" value="30"/></ParameterValueSet>
<ParameterValueSet><ParameterAssignment parameterRef="LaneChangeTime" value="4"/></ParameterValueSet>
</ValueSetDistribution></DeterministicMultiParameterDistribution>
</Deterministic>'
got=$("$sensim" batch "$tmp/det.xosc" --out "$tmp/o_det" --dry-run 2>&1 | grep -v '^batch:' | sed "s|$tmp/||")
want="det-00	cut-in.xosc	seed=scene	--set parameters.CutInGap=10	--set parameters.EgoSpeed=20	--set parameters.LaneChangeTime=2	--set parameters.TargetSpeed=30
det-01	cut-in.xosc	seed=scene	--set parameters.CutInGap=10	--set parameters.EgoSpeed=20	--set parameters.LaneChangeTime=4
det-02	cut-in.xosc	seed=scene	--set parameters.CutInGap=10	--set parameters.EgoSpeed=\${5 * 5}	--set parameters.LaneChangeTime=2	--set parameters.TargetSpeed=30
det-03	cut-in.xosc	seed=scene	--set parameters.CutInGap=10	--set parameters.EgoSpeed=\${5 * 5}	--set parameters.LaneChangeTime=4
det-04	cut-in.xosc	seed=scene	--set parameters.CutInGap=10.1	--set parameters.EgoSpeed=20	--set parameters.LaneChangeTime=2	--set parameters.TargetSpeed=30"
[ "$(echo "$got" | head -5)" = "$want" ] || bad "deterministic dry run:
$got"
[ "$(echo "$got" | wc -l)" = 12 ] || bad "deterministic: $(echo "$got" | wc -l) runs, not 3 x 2 x 2 = 12"
echo "$got" | tail -1 | grep -q "^det-11	.*CutInGap=10.2	.*EgoSpeed=\${5 \* 5}	.*LaneChangeTime=4$" || bad "last run: $(echo "$got" | tail -1)"

# --- the shipped sweep runs; the lane change starts at (CutInGap + 24.6) / 5 (scenario.sh) ---
"$sensim" batch "$src/scenarios/cut-in-sweep.xosc" --out "$tmp/o_sweep" -j 2 --plugin-dir "$plugins" > /dev/null 2>&1 ||
  bad "the shipped sweep failed: $(cat "$tmp/o_sweep/manifest.jsonl")"
[ "$(grep -c '"status":"ok"' "$tmp/o_sweep/manifest.jsonl")" = 6 ] || bad "sweep: not 6 ok runs"
grep -q '"id":"cut-in-sweep-4",.*"overrides":\["parameters.CutInGap=20","parameters.EgoSpeed=20"\]' "$tmp/o_sweep/manifest.jsonl" ||
  bad "sweep: run 4's parameters are not in the manifest"
for k in 0 2 4; do
  gap=$((10 + 5 * k / 2))
  t=$("$sensim" dump "$tmp/o_sweep/cut-in-sweep-$k/storyboard.msgpack" | grep '"element":"CutInLaneChange"' | grep -m1 startTransition |
      sed -E 's/.*"timestamp":([0-9.e+-]+).*/\1/')
  awk -v t="$t" -v g="$gap" 'BEGIN { w = (g + 24.6) / 5; exit !(t >= w - 0.051 && t <= w + 0.051) }' ||
    bad "sweep run $k (CutInGap $gap): lane change at $t, not $(awk -v g=$gap 'BEGIN{print (g+24.6)/5}') within a step"
done

# --- stochastic ---
sto() {
  dist "$1" "<Stochastic numberOfTestRuns=\"$2\" randomSeed=\"$3\">
<StochasticDistribution parameterName=\"CutInGap\"><UniformDistribution><Range lowerLimit=\"8\" upperLimit=\"12\"/></UniformDistribution></StochasticDistribution>
<StochasticDistribution parameterName=\"EgoSpeed\"><NormalDistribution expectedValue=\"25\" variance=\"4\"/></StochasticDistribution>
<StochasticDistribution parameterName=\"LaneChangeTime\"><ProbabilityDistributionSet><Element value=\"2\" weight=\"1\"/><Element value=\"4\" weight=\"3\"/></ProbabilityDistributionSet></StochasticDistribution>
<StochasticDistribution parameterName=\"TargetSpeed\"><NormalDistribution expectedValue=\"30\" variance=\"100\"><Range lowerLimit=\"28\" upperLimit=\"31\"/></NormalDistribution></StochasticDistribution>
</Stochastic>"
}
sto s1.xosc 2000 7
sto s2.xosc 2000 7
sto s3.xosc 2000 8
d1=$("$sensim" batch "$tmp/s1.xosc" --out "$tmp/o" --dry-run 2>/dev/null | grep -v "^batch:" | sed 's/^s1-//')
d2=$("$sensim" batch "$tmp/s2.xosc" --out "$tmp/o" --dry-run 2>/dev/null | grep -v "^batch:" | sed 's/^s2-//')
d3=$("$sensim" batch "$tmp/s3.xosc" --out "$tmp/o" --dry-run 2>/dev/null | grep -v "^batch:" | sed 's/^s3-//')
[ "$(echo "$d1" | wc -l)" = 2000 ] || bad "stochastic: $(echo "$d1" | wc -l) runs, not numberOfTestRuns 2000"
[ "$d1" = "$d2" ] || bad "stochastic: the same randomSeed gave other values"
[ "$d1" != "$d3" ] || bad "stochastic: another randomSeed gave the same values"
echo "$d1" | sed -E 's/.*CutInGap=([^	]*)	.*EgoSpeed=([^	]*)	.*LaneChangeTime=([^	]*)	.*TargetSpeed=([^	]*)$/\1 \2 \3 \4/' | awk '
  { n++; g += $1; gg += $1 * $1; if ($1 < 8 || $1 > 12) out++
    e += $2; ee += $2 * $2; if ($3 == 4) four++; else if ($3 != 2) other++
    if ($4 < 28 || $4 > 31) out++ }
  END {
    mg = g / n; vg = gg / n - mg * mg; me = e / n; ve = ee / n - me * me
    # uniform [8, 12]: mean 10, variance 16/12; normal: mean 25, variance 4; 4 sigma of the sample mean
    if (out) { print "draws outside their Range: " out; bad = 1 }
    if (other) { print "LaneChangeTime not 2 or 4: " other; bad = 1 }
    if (mg < 10 - 4 * sqrt(16 / 12 / n) || mg > 10 + 4 * sqrt(16 / 12 / n)) { print "uniform mean " mg; bad = 1 }
    if (vg < 1.2 || vg > 1.47) { print "uniform variance " vg; bad = 1 }
    if (me < 25 - 4 * sqrt(4 / n) || me > 25 + 4 * sqrt(4 / n)) { print "normal mean " me; bad = 1 }
    if (ve < 3.6 || ve > 4.4) { print "normal variance " ve; bad = 1 }
    p = four / n  # weight 3 of 4: 0.75, sd of the share 0.0097
    if (p < 0.71 || p > 0.79) { print "weighted set: share of 4 is " p; bad = 1 }
    exit bad }' || bad "stochastic draws (above)"

# --- a spec entry naming a distribution, with its own set ---
printf 'runs:\n  - {id: sw, scene: det.xosc, set: {settings.fixed_delta_seconds: 0.02}}\n  - {scene: cut-in.xosc}\n' > "$tmp/spec.yaml"
got=$("$sensim" batch "$tmp/spec.yaml" --out "$tmp/o_spec" --dry-run 2>/dev/null)
[ "$(echo "$got" | grep -c '^sw-[0-9][0-9]	.*--set settings.fixed_delta_seconds=0.02	--set parameters.CutInGap=')" = 12 ] ||
  bad "spec entry: $got"
echo "$got" | grep -q '^cut-in	' || bad "spec: the plain scenario is not one run: $got"

# --- UserDefinedDistribution: the parameter keeps the scenario's value (no --set), one run's
# worth in the product, named in a warning with FILE:LINE; stochastic alike ---
dist ud.xosc '<Deterministic>
<DeterministicSingleParameterDistribution parameterName="CutInGap"><UserDefinedDistribution type="mytool">1 2 3</UserDefinedDistribution></DeterministicSingleParameterDistribution>
<DeterministicSingleParameterDistribution parameterName="EgoSpeed"><DistributionSet><Element value="20"/><Element value="25"/></DistributionSet></DeterministicSingleParameterDistribution></Deterministic>'
got=$("$sensim" batch "$tmp/ud.xosc" --out "$tmp/o_ud" --dry-run 2>&1 | grep -v '^batch:' | sed "s|$tmp/||")
want="sensim: warning: $tmp/ud.xosc:7: UserDefinedDistribution: its content is for the tool its type names, not sensim: the parameter keeps the scenario's value (docs/openscenario.md)
ud-0	cut-in.xosc	seed=scene	--set parameters.EgoSpeed=20
ud-1	cut-in.xosc	seed=scene	--set parameters.EgoSpeed=25"
[ "$got" = "$(echo "$want" | sed "s|$tmp/||")" ] || bad "UserDefinedDistribution: $got"
dist uds.xosc '<Stochastic numberOfTestRuns="2" randomSeed="3"><StochasticDistribution parameterName="CutInGap"><UserDefinedDistribution type="t">x</UserDefinedDistribution></StochasticDistribution></Stochastic>'
got=$("$sensim" batch "$tmp/uds.xosc" --out "$tmp/o_ud" --dry-run 2>/dev/null | grep -v '^batch:' | sed "s|$tmp/||")
[ "$got" = "uds-0	cut-in.xosc	seed=scene
uds-1	cut-in.xosc	seed=scene" ] || bad "stochastic UserDefinedDistribution: $got"

# --- bad input ---
expect2() { # expect2 FILE PATTERN
  local out rc
  out=$("$sensim" batch "$tmp/$1" --out "$tmp/o_bad" --dry-run 2>&1)
  rc=$?
  [ $rc = 2 ] || bad "$1: exit $rc, not 2: $out"
  echo "$out" | grep -q "$2" || bad "$1: '$out' lacks '$2'"
}
dist b1.xosc '<Deterministic><DeterministicSingleParameterDistribution parameterName="NoSuch"><DistributionSet><Element value="1"/></DistributionSet></DeterministicSingleParameterDistribution></Deterministic>'
expect2 b1.xosc "b1.xosc:5: ScenarioFile: .*NoSuch"
dist b2.xosc '<Deterministic>
<DeterministicSingleParameterDistribution parameterName="CutInGap"><DistributionRange stepWidth="0"><Range lowerLimit="1" upperLimit="2"/></DistributionRange></DeterministicSingleParameterDistribution></Deterministic>'
expect2 b2.xosc "b2.xosc:7: DistributionRange: stepWidth 0 must be above 0"
printf '<OpenSCENARIO><FileHeader revMajor="1" revMinor="2" date="d" author="a" description="d"/>\n<ParameterValueDistribution><Stochastic numberOfTestRuns="3"/></ParameterValueDistribution></OpenSCENARIO>\n' > "$tmp/b3.xosc"
expect2 b3.xosc "b3.xosc:2: ParameterValueDistribution: needs a ScenarioFile"
dist b4.xosc '<Stochastic numberOfTestRuns="-1"><StochasticDistribution parameterName="CutInGap"><UniformDistribution><Range lowerLimit="1" upperLimit="2"/></UniformDistribution></StochasticDistribution></Stochastic>'
expect2 b4.xosc "numberOfTestRuns -1 must be"
dist b5.xosc '<Stochastic numberOfTestRuns="2"><StochasticDistribution parameterName="CutInGap"><NormalDistribution expectedValue="1" variance="nan"/></StochasticDistribution></Stochastic>'
expect2 b5.xosc "variance.*not a finite number"
expect2 cut-in.xosc "a scenario, not a ParameterValueDistribution"

[ $fails = 0 ] && echo "xosc_dist: all passed"
exit $((fails > 0))
