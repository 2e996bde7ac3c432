#!/usr/bin/env bash
# Runs that share a map load it once (docs/batch.md, "Runs that share a map"): sensim batch
# forks the runs of a scene with a map from the process that loaded it. Checked here:
#  1. every output file and run.json of the shipped cut-in sweep, of a sweep of the cut-in
#     with a camera, a radar and a collision sensor on the ego (rays and pixels meet the
#     cached scenery) and of the town's intersection (vehicles under physics on the shared
#     road trimeshes, cameras, collisions) are, with the cache at 1 and at 2 threads,
#     byte-identical with the batch without it, the manifests equal but for wall_s; the
#     summary says every run reused the map and scenery;
#  2. a forked run that crashes or hangs is recorded as crashed / timeout, the others finish
#     (only runs that end write their --stats: 3 of the 5 report their reuse);
#  3. a scene whose load crashes is never loaded by the batch: its runs each crash on their own;
#  4. a scene without a map and a scene played once are not forked (nothing to share).
# usage: batch_mapcache.sh SENSIM PLUGIN_DIR SRC_DIR TMP_DIR
set -u
SENSIM=$1 PLUGINS=$2 SRC=$3 TMP=$4/batch_mapcache
rm -rf "$TMP" && mkdir -p "$TMP"
fails=0
bad() { fails=$((fails + 1)); echo "FAIL: $*" >&2; }
P=(--plugin-dir "$PLUGINS")

# same(A, B): the same run folders, every file byte for byte, the manifests equal without wall_s
same() {
  python3 - "$1" "$2" <<'PY'
import json, os, sys, filecmp
a, b = sys.argv[1], sys.argv[2]
def recs(d):
    out = []
    for l in open(os.path.join(d, "manifest.jsonl")):
        r = json.loads(l); r.pop("wall_s"); out.append(r)
    return out
ra, rb = recs(a), recs(b)
assert ra == rb, "manifests differ"
assert all(r["status"] == "ok" for r in ra), [r["status"] for r in ra]
def files(d):  # every file under d, relative (saved images sit in folders)
    return sorted(os.path.relpath(os.path.join(r, f), d) for r, _, fs in os.walk(d) for f in fs)
n = 0
for r in ra:
    fa = files(os.path.join(a, r["id"]))
    assert fa == files(os.path.join(b, r["id"])), r["id"]
    assert "run.json" in fa, fa
    for f in fa:
        pa, pb = os.path.join(a, r["id"], f), os.path.join(b, r["id"], f)
        assert filecmp.cmp(pa, pb, shallow=False), pa + " differs from " + pb
        n += 1
print(n, "files identical")
PY
}

# 1. the shipped sweep (6 runs, no sensors) and a sensor sweep of the cut-in (2 runs: a map
# shared by more than one run is all the cache needs)
cat >"$TMP/sensors.yaml" <<YAML
runs:
  - id: gap
    scene: $SRC/scenes/scenario_cut_in.yaml
    set: {settings.frames: 120}
    vary: {parameters.CutInGap: [10, 16]}
YAML
# and the town's intersection: vehicles under physics on the roads' trimeshes (shared by the
# cache between the runs' worlds), autopilots, static buildings the scenery keeps clear of
cat >"$TMP/town.yaml" <<YAML
runs:
  - {id: x, scene: $SRC/scenes/intersection.yaml, seeds: [1, 2], frames: 60}
YAML
# The batch without the cache is played once, at 1 thread: both cached batches equal it, so
# they equal each other too (an uncached batch at 2 threads would only test the renderer's
# threads, which cli.sh does)
for spec in "$SRC/scenarios/cut-in-sweep.xosc:6" "$TMP/sensors.yaml:2" "$TMP/town.yaml:2"; do
  file=${spec%:*} n=${spec##*:} name=$(basename "${file%.*}")
  "$SENSIM" batch "$file" --out "$TMP/$name-n" -j 2 --threads 1 "${P[@]}" --no-map-cache >"$TMP/$name-n.out" \
    2>"$TMP/$name-n.err" || bad "$name uncached: $(cat "$TMP/$name-n.out" "$TMP/$name-n.err")"
  ! grep -q "^map cache" "$TMP/$name-n.out" || bad "$name: --no-map-cache forked: $(cat "$TMP/$name-n.out")"
  for t in 1 2; do
    "$SENSIM" batch "$file" --out "$TMP/$name-c$t" -j 2 --threads $t "${P[@]}" >"$TMP/$name-c$t.out" 2>"$TMP/$name-c$t.err" ||
      bad "$name cached, $t threads: $(cat "$TMP/$name-c$t.out" "$TMP/$name-c$t.err")"
    grep -qx "map cache: $n runs forked on the maps the batch loaded: $n reused the map, $n its scenery" "$TMP/$name-c$t.out" ||
      bad "$name: not every run reused the map: $(cat "$TMP/$name-c$t.out")"
    same "$TMP/$name-c$t" "$TMP/$name-n" || bad "$name: outputs cached at $t threads differ from the uncached ones"
  done
done
ls "$TMP/sensors-c1/gap-0" | grep -q '^front' || bad "the sensor sweep wrote no camera output: $(ls "$TMP/sensors-c1/gap-0")"

# 2. forked runs that crash and hang: recorded as such, the others finish
cat >"$TMP/probe.yaml" <<YAML
map: $SRC/maps/highway.xodr
settings: {fixed_delta_seconds: 0.05, frames: 10}
actors:
  - {name: hero, blueprint: vehicle.sedan, transform: {location: [20, -1.75, 0.5]}, velocity: [10, 0, 0]}
sensors:
  - {name: probe, blueprint: sensor.test.faulty, attributes: {mode: none, at_frame: 3}}
YAML
cat >"$TMP/faults.yaml" <<'YAML'
timeout: 30
runs:
  - {id: ok, scene: probe.yaml, seeds: [1, 2, 3]}
  - {id: crash, scene: probe.yaml, set: {sensors.probe.attributes.mode: crash_tick}}
  - {id: hang, scene: probe.yaml, timeout: 1, frames: 100000000}
YAML
"$SENSIM" batch "$TMP/faults.yaml" --out "$TMP/faults" -j 2 "${P[@]}" >"$TMP/faults.out" 2>"$TMP/faults.err"
rc=$?
[ "$rc" -eq 1 ] || bad "a batch with a crash and a timeout exits 1, got $rc: $(cat "$TMP/faults.err")"
grep -qx "map cache: 5 runs forked on the maps the batch loaded: 3 reused the map, 3 its scenery" "$TMP/faults.out" ||
  bad "faults: not forked: $(cat "$TMP/faults.out")"
python3 - "$TMP/faults/manifest.jsonl" <<'PY' || bad "faults manifest: $(cat "$TMP/faults/manifest.jsonl")"
import json, sys
st = {r["id"]: r for r in map(json.loads, open(sys.argv[1]))}
assert [st["ok-%d" % i]["status"] for i in range(3)] == ["ok"] * 3, st
c, h = st["crash"], st["hang"]
assert c["status"] == "crashed" and c["signal"] == 11 and "crashed in tick" in c["error"] and "probe" in c["error"], c
assert h["status"] == "timeout" and "timed out after 1 s" in h["error"], h
assert st["ok-1"]["frames"] == 10, st["ok-1"]
PY

# 3. a scene whose load crashes: the batch's trial load sees it, the batch lives, each run crashes alone
cat >"$TMP/loadcrash.yaml" <<'YAML'
runs:
  - {id: lc, scene: probe.yaml, seeds: [1, 2], set: {sensors.probe.attributes.mode: crash_set}}
YAML
"$SENSIM" batch "$TMP/loadcrash.yaml" --out "$TMP/lc" -j 2 "${P[@]}" >"$TMP/lc.out" 2>"$TMP/lc.err"
rc=$?
[ "$rc" -eq 1 ] || bad "a batch whose runs crash at load exits 1, got $rc: $(cat "$TMP/lc.err")"
! grep -q "^map cache" "$TMP/lc.out" || bad "a scene whose load crashes was forked: $(cat "$TMP/lc.out")"
[ "$(grep -c '"status":"crashed","exit":-1,"signal":11' "$TMP/lc/manifest.jsonl")" -eq 2 ] ||
  bad "load crashes: $(cat "$TMP/lc/manifest.jsonl")"

# 4. nothing to share: a scene without a map, and a scene played once
cat >"$TMP/nomap.yaml" <<'YAML'
settings: {fixed_delta_seconds: 0.05, frames: 5}
actors:
  - {name: ground, blueprint: static.ground}
YAML
printf 'runs:\n  - {id: a, scene: nomap.yaml, seeds: [1, 2]}\n  - {id: once, scene: probe.yaml}\n' >"$TMP/none.yaml"
"$SENSIM" batch "$TMP/none.yaml" --out "$TMP/none" -j 2 "${P[@]}" >"$TMP/none.out" 2>"$TMP/none.err" ||
  bad "no-map batch: $(cat "$TMP/none.out" "$TMP/none.err")"
! grep -q "^map cache" "$TMP/none.out" || bad "runs with nothing to share were forked: $(cat "$TMP/none.out")"

[ "$fails" -eq 0 ] && echo "batch_mapcache: all checks passed"
exit $((fails > 0))
