#!/usr/bin/env bash
# sensim batch end to end: a 12-run sweep at -j 2 with one run crashing and one hanging
# (10 succeed, both failures recorded with their reasons, exit 1); --resume reruns only what
# did not succeed, and finishes an interrupted batch; --dry-run; spec errors; shards are
# disjoint and cover the spec; shards run one by one, through GNU parallel and through the
# generated Slurm array script, merged, equal one local batch byte for byte (manifest without
# wall_s, and every output file).
# usage: batch.sh SENSIM FAULTY_PLUGIN_DIR TMP_DIR
set -u
SENSIM=$1 PLUGINS=$2 TMP=$3/batch
rm -rf "$TMP" && mkdir -p "$TMP"
fails=0 checks=0
ok() { checks=$((checks + 1)); }
bad() { checks=$((checks + 1)); fails=$((fails + 1)); echo "FAIL: $*" >&2; }
PY=python3
j() { $PY -c "import json,sys; recs=[json.loads(l) for l in open(sys.argv[1])]; $2" "$1"; }

cat >"$TMP/scene.yaml" <<'YAML'
settings: {fixed_delta_seconds: 0.05, frames: 10}
actors:
  - {name: ground, blueprint: static.ground}
  - {name: hero, blueprint: vehicle.sedan, transform: {location: [0, 0, 0.75]}, velocity: [10, 0, 0]}
  - {name: wall, blueprint: static.prop.box, transform: {location: [4, 0, 1.5]}, attributes: {extent: "0.5,5,1.5"}}
sensors:
  - {name: crash, blueprint: sensor.other.collision, attach_to: hero}
  - {name: probe, blueprint: sensor.test.faulty, attributes: {mode: none, at_frame: 3}}
YAML
# 12 runs: a sweep of 5 seeds x 2 speeds, one run whose plugin crashes (SIGSEGV), one that
# never ends (100 million frames, killed at its 1 s timeout: well past its load, in its frames)
cat >"$TMP/sweep.yaml" <<'YAML'
timeout: 20
runs:
  - id: sweep
    scene: scene.yaml
    seeds: {from: 1, count: 5}
    vary: {actors.hero.velocity: [[8, 0, 0], [12, 0, 0]], sensors.probe.attributes.mode: [none]}
  - id: crash
    scene: scene.yaml
    set: {sensors.probe.attributes.mode: crash_tick}
  - id: hang
    scene: scene.yaml
    timeout: 1
    frames: 100000000
YAML
OUT=$TMP/out
"$SENSIM" batch "$TMP/sweep.yaml" --out "$OUT" -j 2 --plugin-dir "$PLUGINS" >"$TMP/stdout" 2>"$TMP/stderr"
rc=$?
[ "$rc" -eq 1 ] && ok || bad "a batch with failures exits 1, got $rc: $(cat "$TMP/stderr")"
n=$(wc -l <"$OUT/manifest.jsonl")
[ "$n" -eq 12 ] && ok || bad "manifest has $n records, want 12"
j "$OUT/manifest.jsonl" '
st = {r["id"]: r for r in recs}
assert [r["index"] for r in recs] == list(range(12)), "in run order"
assert sum(r["status"] == "ok" for r in recs) == 10, [r["status"] for r in recs]
c, h = st["crash"], st["hang"]
assert c["status"] == "crashed" and c["signal"] == 11 and "crashed in tick" in c["error"] and "probe" in c["error"], c
assert h["status"] == "timeout" and "timed out after 1 s" in h["error"], h
s = st["sweep-7"]
assert s["seed"] == 4 and s["overrides"] == ["actors.hero.velocity=[12, 0, 0]", "sensors.probe.attributes.mode=none"], s
assert s["frames"] == 10 and s["exit"] == 0 and s["error"] is None and s["wall_s"] >= 0
names = [o["path"] for o in s["outputs"]]
assert names == ["actors.msgpack", "crash.msgpack", "probe.msgpack", "run.json"], names  # run.json: the note of the run (docs/cli.md); actors: every run keeps it
import hashlib, os
for o in s["outputs"]:
    b = open(os.path.join(os.path.dirname(sys.argv[1]), "sweep-7", o["path"]), "rb").read()
    assert o["bytes"] == len(b) and o["sha256"] == hashlib.sha256(b).hexdigest(), o
' && ok || bad "manifest contents"
grep -q "^batch: 12 runs (0 skipped as done) .*: 10 ok, 2 failed" "$TMP/stdout" && grep -q "^  crashed  *1 " "$TMP/stdout" &&
  grep -q "^  timeout  *1 " "$TMP/stdout" && ok || bad "summary table: $(cat "$TMP/stdout")"
[ "$(grep -c '^batch: \[[0-9]*/12\]' "$TMP/stderr")" -eq 12 ] && ok || bad "plain progress lines: $(cat "$TMP/stderr")"
[ -f "$OUT/sweep-3/probe.msgpack" ] && ok || bad "runs write DIR/<id>/"

# --resume: only the two failed runs run again; the others' files stay as they were
touch -d '2001-01-01' "$OUT/sweep-3/probe.msgpack"
"$SENSIM" batch "$TMP/sweep.yaml" --out "$OUT" -j 2 --plugin-dir "$PLUGINS" --resume >"$TMP/stdout" 2>"$TMP/stderr"
rc=$?
[ "$rc" -eq 1 ] && grep -q "^batch: 12 runs (10 skipped as done)" "$TMP/stdout" &&
  [ "$(grep -c '^batch: \[[0-9]*/2\]' "$TMP/stderr")" -eq 2 ] && ok || bad "resume reruns the 2 failures: $(cat "$TMP/stdout" "$TMP/stderr")"
[ "$(stat -c %Y "$OUT/sweep-3/probe.msgpack")" -lt 1000000000 ] && ok || bad "resume touched a finished run"
[ "$(wc -l <"$OUT/manifest.jsonl")" -eq 12 ] && ok || bad "resume keeps one record per run"
"$SENSIM" batch "$TMP/sweep.yaml" --out "$OUT" --resume --dry-run >"$TMP/stdout"
[ "$(grep -c $'\t' "$TMP/stdout")" -eq 2 ] && grep -q "^hang	" "$TMP/stdout" && ok || bad "dry-run with resume: $(cat "$TMP/stdout")"
# a batch again into a folder that holds one, without --resume or --overwrite: refused before
# anything runs (each of its runs would start by emptying its folder)
echo keep >"$OUT/sweep-3/note.txt"
cp "$OUT/manifest.jsonl" "$TMP/manifest.before"
"$SENSIM" batch "$TMP/sweep.yaml" --out "$OUT" -j 2 --plugin-dir "$PLUGINS" >/dev/null 2>"$TMP/err"
rc=$?
[ "$rc" -eq 2 ] && grep -q "holds an earlier batch: --resume goes on with it, --overwrite" "$TMP/err" &&
  [ -f "$OUT/sweep-3/note.txt" ] && cmp -s "$OUT/manifest.jsonl" "$TMP/manifest.before" && ok ||
  bad "a batch again into a batch's folder is refused, nothing touched (exit $rc): $(cat "$TMP/err")"
"$SENSIM" batch "$TMP/sweep.yaml" --out "$OUT" --resume --overwrite 2>"$TMP/err"
[ $? -eq 2 ] && grep -q "give one" "$TMP/err" && ok || bad "--resume with --overwrite: $(cat "$TMP/err")"

# an interrupted batch (SIGINT) stops its runs, exits 130, and --resume finishes it; 3 runs
# are enough: one done when the interrupt comes, one under way, one never started
cat >"$TMP/slow.yaml" <<'YAML'
runs:
  - {id: slow, scene: scene.yaml, seeds: {from: 0, count: 3}, frames: 20000} # ~0.5 s each (plain build, 1 s sanitized): the interrupt lands mid-batch
YAML
"$SENSIM" batch "$TMP/slow.yaml" --out "$TMP/int" -j 1 --plugin-dir "$PLUGINS" >"$TMP/int.out" 2>&1 &
bpid=$!
for _ in $(seq 600); do [ -s "$TMP/int/manifest.jsonl" ] && break; sleep 0.05; done # one run done
kill -INT $bpid
wait $bpid
rc=$?
done_n=$(wc -l <"$TMP/int/manifest.jsonl" 2>/dev/null || echo 0)
[ "$rc" -eq 130 ] && [ "$done_n" -lt 3 ] && ok || bad "interrupt: rc=$rc, $done_n of 3 recorded"
# the summary counts what never started as "not run", not "failed" (issue 33 item 8)
n_fail=$(grep -vc '"status":"ok"' "$TMP/int/manifest.jsonl")
n_ok=$((done_n - n_fail))
grep -q "runs (0 skipped as done) in .* s: $n_ok ok, $n_fail failed, $((3 - done_n)) not run (--resume runs them)$" "$TMP/int.out" &&
  grep -q "^  not run  *$((3 - done_n)) " "$TMP/int.out" && ok || bad "interrupted summary: $(cat "$TMP/int.out")"
"$SENSIM" batch "$TMP/slow.yaml" --out "$TMP/int" -j 2 --plugin-dir "$PLUGINS" --resume >"$TMP/stdout" 2>&1
[ $? -eq 0 ] && [ "$(wc -l <"$TMP/int/manifest.jsonl")" -eq 3 ] && ok || bad "resume after interrupt: $(cat "$TMP/stdout")"
pgrep -f "$TMP/int" >/dev/null && bad "runs left behind after the interrupt" || ok

# spec errors: one line naming spec:line:col, exit 2
expect_err() { # description, wanted text, spec text
  printf '%s\n' "$3" >"$TMP/bad.yaml"
  "$SENSIM" batch "$TMP/bad.yaml" --out "$TMP/badout" >/dev/null 2>"$TMP/err"
  local rc=$?
  if [ "$rc" -eq 2 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q "^sensim: error: batch: .*$2" "$TMP/err"; then ok
  else bad "$1: rc=$rc: $(cat "$TMP/err")"; fi
}
expect_err "no runs" "bad.yaml:1:1: expected a non-empty list for runs" "timeout: 3"
expect_err "unknown key" "bad.yaml:1:19: unknown key 'sede' in a run (expected one of: id, scene, seeds, set, vary, combine, timeout, memory_mb, frames)" "runs: [{scene: x, sede: 1}]"
expect_err "no glob match" "no scene file matches 'nothing\*.yaml'" "runs: [{scene: 'nothing*.yaml'}]"
expect_err "zip lengths" "combine: zip needs lists of one length" "runs: [{scene: scene.yaml, combine: zip, vary: {a.b: [1, 2], c.d: [1]}}]"
expect_err "duplicate ids" "run id 'scene' is used twice" "runs: [{scene: scene.yaml}, {scene: scene.yaml}]"
expect_err "bad seed" "expected a whole number >= 0 for a seed" "runs: [{scene: scene.yaml, seeds: [1, -2]}]"
"$SENSIM" batch "$TMP/sweep.yaml" --out "$TMP/x" --shard 4/4 2>"$TMP/err"; [ $? -eq 2 ] && grep -q "0 <= I < N" "$TMP/err" && ok || bad "--shard 4/4"
"$SENSIM" batch --help | grep -q "^usage: sensim batch SPEC" && ok || bad "batch --help"

# shards: disjoint, covering, and merged equal to one local batch (a spec without failures;
# 9 runs: every one of the 4 shards has two or three, and the spec is played 4 times)
cat >"$TMP/clean.yaml" <<'YAML'
runs:
  - scene: "scen*.yaml"
  - id: v
    scene: scene.yaml
    seeds: {from: 3, count: 2}
    vary: {actors.hero.velocity: [[6, 0, 0], [14, 0, 0]], sensors.crash.spawn_at: [0, 0.2]}
YAML
"$SENSIM" batch "$TMP/clean.yaml" --out "$TMP/local" -j 2 --plugin-dir "$PLUGINS" >/dev/null 2>&1 && ok || bad "clean batch"
echo old >"$TMP/local/v-0/stale.txt"
"$SENSIM" batch "$TMP/clean.yaml" --out "$TMP/local" -j 2 --plugin-dir "$PLUGINS" --overwrite >/dev/null 2>&1 &&
  [ ! -e "$TMP/local/v-0/stale.txt" ] && [ "$(wc -l <"$TMP/local/manifest.jsonl")" -eq 9 ] && ok ||
  bad "--overwrite runs a batch again in its folder, each run's folder anew"
all=$("$SENSIM" batch "$TMP/clean.yaml" --dry-run | grep $'\t' | cut -f1 | sort)
[ "$(echo "$all" | wc -l)" -eq 9 ] && ok || bad "clean spec has 9 runs: $all"
cat /dev/null >"$TMP/union"
for i in 0 1 2 3; do "$SENSIM" batch "$TMP/clean.yaml" --dry-run --shard $i/4 | grep $'\t' | cut -f1 >>"$TMP/union"; done
[ "$(sort "$TMP/union")" = "$all" ] && ok || bad "shards are not disjoint and covering: $(sort "$TMP/union" | uniq -c)"
same() { # what, folder: its merged manifest and outputs equal the local batch's
  local strip='import json,sys
for l in open(sys.argv[1]):
    r = json.loads(l); r.pop("wall_s"); print(json.dumps(r, sort_keys=True))'
  if cmp -s <($PY -c "$strip" "$TMP/local/manifest.jsonl") <($PY -c "$strip" "$2/manifest.jsonl") &&
     diff -r -x .batch -x 'manifest*' "$TMP/local" "$2" >/dev/null; then ok; else bad "$1: differs from the local batch"; fi
}
for i in 0 1 2 3; do "$SENSIM" batch "$TMP/clean.yaml" --out "$TMP/shards" --shard $i/4 -j 1 --plugin-dir "$PLUGINS" >/dev/null 2>&1; done
"$SENSIM" batch merge --out "$TMP/shards" "$TMP/shards" >/dev/null && same "shards merged" "$TMP/shards"
# a shard again, or the whole batch, into the folder of a split batch: refused (sibling shards of
# one split, above, ran side by side without --resume)
"$SENSIM" batch "$TMP/clean.yaml" --out "$TMP/shards" --shard 0/4 --plugin-dir "$PLUGINS" >/dev/null 2>"$TMP/err"
[ $? -eq 2 ] && grep -q "holds an earlier batch" "$TMP/err" && ok || bad "a shard run again: $(cat "$TMP/err")"
"$SENSIM" batch "$TMP/clean.yaml" --out "$TMP/shards" --shard 1/3 --plugin-dir "$PLUGINS" >/dev/null 2>"$TMP/err"
[ $? -eq 2 ] && grep -q "holds an earlier batch" "$TMP/err" && ok || bad "a shard of another split: $(cat "$TMP/err")"
if command -v parallel >/dev/null; then
  parallel -j 2 "$SENSIM" batch "$TMP/clean.yaml" --out "$TMP/gnu" --shard {}/4 -j 1 --plugin-dir "$PLUGINS" \
    ::: 0 1 2 3 >/dev/null 2>&1
  "$SENSIM" batch merge --out "$TMP/gnu" "$TMP/gnu" >/dev/null && same "GNU parallel shards" "$TMP/gnu"
else
  bad "GNU parallel is not installed (scripts/setup.sh installs it)"
fi
# the Slurm array script: valid bash, an array of 4 tasks, and each task's command run as
# Slurm would (SLURM_ARRAY_TASK_ID/COUNT set) gives the same batch once merged
"$SENSIM" batch "$TMP/clean.yaml" --out "$TMP/slurm" --sbatch 4 --plugin-dir "$PLUGINS" >"$TMP/job.sh"
bash -n "$TMP/job.sh" && grep -q '^#SBATCH --array=0-3$' "$TMP/job.sh" && grep -q -- '--shard "$SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT"' "$TMP/job.sh" &&
  ok || bad "sbatch script: $(cat "$TMP/job.sh")"
for i in 0 1 2 3; do SLURM_ARRAY_TASK_ID=$i SLURM_ARRAY_TASK_COUNT=4 bash "$TMP/job.sh" >/dev/null 2>&1; done
merge=$(grep -o "batch merge --out .*" "$TMP/job.sh")
eval "\"$SENSIM\" $merge" >/dev/null && same "Slurm array tasks" "$TMP/slurm"

echo "$checks checks, $fails failed" >&2
[ "$fails" -eq 0 ]
