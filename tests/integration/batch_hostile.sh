#!/usr/bin/env bash
# sensim batch under attack (issue 24 item 7): kill -9 of the batch takes its runs with it; a
# second batch (or --resume) into a folder in use is refused; a manifest whose last line was
# cut is not counted as done and is repaired on --resume; links planted in DIR are never
# written through; `frames: 0` is refused; memory_mb too small for the program is named.
# usage: batch_hostile.sh SENSIM PLUGIN_DIR TMP_DIR
set -u
SENSIM=$1 PLUGINS=$2 TMP=$3/batch_hostile
rm -rf "$TMP" && mkdir -p "$TMP"
fails=0
bad() { fails=$((fails + 1)); echo "FAIL: $*" >&2; }
P=(--plugin-dir "$PLUGINS")
cat >"$TMP/scene.yaml" <<'YAML'
settings: {fixed_delta_seconds: 0.05, frames: 5}
actors:
  - {name: ground, blueprint: static.ground}
  - {name: hero, blueprint: vehicle.sedan, transform: {location: [0, 0, 0.75]}, velocity: [10, 0, 0]}
sensors:
  - {name: crash, blueprint: sensor.other.collision, attach_to: hero}
YAML
printf 'runs:\n  - {id: long, scene: scene.yaml, frames: 100000000}\n' >"$TMP/long.yaml"
printf 'runs:\n  - {id: a, scene: scene.yaml, seeds: [1, 2, 3]}\n' >"$TMP/three.yaml"
wait_for() { for _ in $(seq 1 200); do compgen -G "$1" >/dev/null && return 0; sleep 0.05; done; return 1; }
# The pids of the `sensim run` processes writing under $1 (their command lines name it).
runs_in() { # from /proc with bash builtins only (no procps, no process per entry)
  local p args
  for p in /proc/[0-9]*; do
    { mapfile -d '' args <"$p/cmdline"; } 2>/dev/null || continue
    case " ${args[*]} " in *" run "*" --out $1/"*) echo "${p#/proc/}" ;; esac
  done
}

# 1. kill -9 of the batch: its run dies with it (PR_SET_PDEATHSIG), and the lock goes too.
D=$TMP/k
"$SENSIM" batch "$TMP/long.yaml" --out "$D" -j 1 "${P[@]}" >/dev/null 2>&1 &
batch=$!
wait_for "$D/long/sensim-partial-*" || bad "the long run never started"
[ -n "$(runs_in "$D")" ] || bad "no run process found while the batch runs"
# 2. meanwhile a second batch, or a --resume, into the same folder is refused
timeout -s KILL 20 "$SENSIM" batch "$TMP/long.yaml" --out "$D" --resume "${P[@]}" >"$TMP/second.out" 2>"$TMP/second.err"
rc=$?
[ $rc -eq 2 ] && grep -q "^sensim: error: batch: .* is in use by another sensim batch" "$TMP/second.err" ||
  bad "second batch into a folder in use: exit $rc, $(cat "$TMP/second.err")"
kill -9 $batch
wait $batch 2>/dev/null
for _ in $(seq 1 40); do [ -z "$(runs_in "$D")" ] && break; sleep 0.05; done
left=$(runs_in "$D")
[ -z "$left" ] || { bad "kill -9 of the batch left its run running: $left"; kill -9 $left; }
printf 'runs:\n  - {id: long, scene: scene.yaml, frames: 3}\n' >"$TMP/short.yaml"
"$SENSIM" batch "$TMP/short.yaml" --out "$D" --resume "${P[@]}" >/dev/null 2>&1 || bad "--resume after kill -9 was refused"

# 3. a manifest whose last record was cut: that run is not done; --resume repairs the file
D=$TMP/t
"$SENSIM" batch "$TMP/three.yaml" --out "$D" -j 1 "${P[@]}" >/dev/null 2>&1 || bad "three runs"
size=$(stat -c %s "$D/manifest.jsonl")
truncate -s $((size - 20)) "$D/manifest.jsonl"
"$SENSIM" batch "$TMP/three.yaml" --out "$D" --resume --dry-run "${P[@]}" >"$TMP/dry" 2>&1
grep -q "^a-2	" "$TMP/dry" && grep -q "1 runs to do, 2 skipped" "$TMP/dry" || bad "a cut record counted as done: $(cat "$TMP/dry")"
"$SENSIM" batch "$TMP/three.yaml" --out "$D" --resume "${P[@]}" >"$TMP/res.out" 2>&1 || bad "--resume over a cut manifest: $(cat "$TMP/res.out")"
python3 -c "
import json,sys
recs=[json.loads(l) for l in open(sys.argv[1])]
assert [r['id'] for r in recs]==['a-0','a-1','a-2'] and all(r['status']=='ok' for r in recs), recs
" "$D/manifest.jsonl" || bad "the manifest after --resume is not three whole ok records"

# 4. links planted in DIR: never written through
D=$TMP/l
mkdir -p "$D/.batch"
echo victim >"$TMP/victim1"; echo victim >"$TMP/victim2"
ln -s "$TMP/victim1" "$D/.batch/a-0.stderr"
ln -s "$TMP/victim2" "$D/.batch/a-0.stats"
printf 'runs:\n  - {id: a, scene: scene.yaml, seeds: [1], set: {sensors.crash.attributes.bogus: 1}}\n' >"$TMP/noisy.yaml"
"$SENSIM" batch "$TMP/noisy.yaml" --out "$D" "${P[@]}" >/dev/null 2>&1
[ "$(cat "$TMP/victim1")" = victim ] && [ "$(cat "$TMP/victim2")" = victim ] || bad "a run's log was written through a planted link"
[ -f "$D/.batch/a-0.stderr" ] && [ ! -L "$D/.batch/a-0.stderr" ] && grep -q "bogus" "$D/.batch/a-0.stderr" ||
  bad "the run's stderr was not kept in a file of its own"
D=$TMP/m
mkdir -p "$D"
ln -s "$TMP/victim1" "$D/manifest.jsonl"
"$SENSIM" batch "$TMP/three.yaml" --out "$D" "${P[@]}" >/dev/null 2>"$TMP/m.err"
rc=$?
[ $rc -eq 2 ] && [ "$(cat "$TMP/victim1")" = victim ] || bad "manifest.jsonl as a link: exit $rc, victim now $(cat "$TMP/victim1")"
D=$TMP/b
mkdir -p "$D" "$TMP/elsewhere"
ln -s "$TMP/elsewhere" "$D/.batch"
"$SENSIM" batch "$TMP/three.yaml" --out "$D" "${P[@]}" >/dev/null 2>"$TMP/b.err"
rc=$?
[ $rc -eq 2 ] && [ -z "$(ls -A "$TMP/elsewhere")" ] || bad ".batch as a link: exit $rc, wrote $(ls -A "$TMP/elsewhere")"

# 5. frames: 0 is a value (refused, as settings.frames: 0 is), not "unset"
printf 'frames: 0\nruns:\n  - {id: z, scene: scene.yaml}\n' >"$TMP/f0.yaml"
printf 'runs:\n  - {id: z, scene: scene.yaml, frames: 0}\n' >"$TMP/f0b.yaml"
for spec in f0 f0b; do
  "$SENSIM" batch "$TMP/$spec.yaml" --out "$TMP/$spec" "${P[@]}" >/dev/null 2>"$TMP/$spec.err"
  rc=$?
  [ $rc -eq 2 ] && grep -q "^sensim: error: batch: .*$spec.yaml:[0-9]*:[0-9]*: frames must be within 1" "$TMP/$spec.err" ||
    bad "$spec: exit $rc, $(cat "$TMP/$spec.err")"
done

# 6. memory_mb too small to load the program: the limit is named, not "exited with status 127"
printf 'memory_mb: 1\nruns:\n  - {id: m, scene: scene.yaml}\n' >"$TMP/mem.yaml"
"$SENSIM" batch "$TMP/mem.yaml" --out "$TMP/mem" "${P[@]}" >/dev/null 2>&1
grep -q '"error":"[^"]*under memory_mb 1 (its address-space limit' "$TMP/mem/manifest.jsonl" ||
  bad "memory_mb 1: $(cat "$TMP/mem/manifest.jsonl")"

# 7. the progress bar (on a terminal: script(1) gives it one) estimates from the frames a run
#    has stepped, not "0 frames/s, --:-- left" until the first run ends
if command -v script >/dev/null; then
  printf 'runs:\n  - {id: p, scene: scene.yaml, frames: 60000}\n' >"$TMP/prog.yaml"
  script -qc "'$SENSIM' batch '$TMP/prog.yaml' --out '$TMP/prog' -j 1 --plugin-dir '$PLUGINS'" /dev/null >"$TMP/prog.tty" 2>&1
  tr '\r' '\n' <"$TMP/prog.tty" | grep -a ' 0/1 done' >"$TMP/prog.lines"
  grep -aq ' 0/1 done, 0 failed, 1 running | [1-9][0-9]* frames/s | [0-9:]* left' "$TMP/prog.lines" ||
    bad "no estimate while the only run runs: $(head -3 "$TMP/prog.lines")"
else
  echo "note: script(1) not found, progress bar not checked"
fi
[ $fails -eq 0 ] && echo "batch hostile: all good" || exit 1
