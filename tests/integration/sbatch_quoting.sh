#!/usr/bin/env bash
# `sensim batch --sbatch` with hostile paths (issue 33 item 20): output folders named
# `bob's runs` and `o'$(touch PWNED)'`, a spec and a plugin folder with quotes, `$`, `;` and
# spaces in their names. The script must be valid bash, each task run as Slurm runs it
# (SLURM_ARRAY_TASK_ID/COUNT set) must run nothing but sensim and write its shard to the
# folder named, and the merge hint in its comment, pasted into a shell, must merge it.
# Paths with a newline cannot be written into a job script: refused with exit 2.
# usage: sbatch_quoting.sh SENSIM PLUGIN_DIR TMP_DIR
set -u
SENSIM=$(realpath "$1") PLUGINS=$(realpath "$2") TMP=$(realpath "$3")/sbatch_quoting
rm -rf "$TMP" && mkdir -p "$TMP"
fails=0 checks=0
ok() { checks=$((checks + 1)); }
bad() { checks=$((checks + 1)); fails=$((fails + 1)); echo "FAIL: $*" >&2; }

# the spec and the plugins live in folders with hostile names too
SPECDIR="$TMP/spec's \$(touch PWNED); \`touch PWNED\`"
mkdir -p "$SPECDIR" && ln -s "$(cd "$PLUGINS" && pwd)" "$TMP/plug'ins \$HOME"
cat >"$SPECDIR/scene.yaml" <<'YAML'
settings: {fixed_delta_seconds: 0.05, frames: 5}
actors:
  - {name: ground, blueprint: static.ground}
  - {name: hero, blueprint: vehicle.sedan, transform: {location: [0, 0, 0.75]}, velocity: [10, 0, 0]}
sensors:
  - {name: crash, blueprint: sensor.other.collision, attach_to: hero}
YAML
cat >"$SPECDIR/spec.yaml" <<'YAML'
runs:
  - id: r
    scene: scene.yaml
    seeds: [1, 2]
YAML

for name in "bob's runs" "o'\$(touch PWNED)'" "q\"uote # ';x=\$(touch PWNED)"; do
  cd "$TMP" || exit 1
  rm -f PWNED
  out="$TMP/$name"
  if ! "$SENSIM" batch "$SPECDIR/spec.yaml" --out "$out" --sbatch 2 --plugin-dir "$TMP/plug'ins \$HOME" >"$TMP/job.sh" 2>"$TMP/err"; then
    bad "[$name] --sbatch failed: $(cat "$TMP/err")"; continue
  fi
  bash -n "$TMP/job.sh" && ok || bad "[$name] the script is not valid bash: $(cat "$TMP/job.sh")"
  # run each task from a scratch folder, as Slurm would; a task may run sensim and nothing else
  mkdir -p "$TMP/cwd" && cd "$TMP/cwd" || exit 1
  for i in 0 1; do SLURM_ARRAY_TASK_ID=$i SLURM_ARRAY_TASK_COUNT=2 bash "$TMP/job.sh" >/dev/null 2>"$TMP/task.err" ||
    bad "[$name] task $i: $(cat "$TMP/task.err")"; done
  [ -n "$(find "$TMP" -name PWNED)" ] && bad "[$name] a task ran a command from a path" || ok
  [ -f "$out/manifest-0-of-2.jsonl" ] && [ -f "$out/manifest-1-of-2.jsonl" ] && ok ||
    bad "[$name] the shards did not write to the folder named: $(ls -a "$TMP")"
  # the merge hint, pasted into a shell as it is
  hint=$(sed -n 's/^# Submit: .*when every task has ended: //p' "$TMP/job.sh")
  (eval "$hint") >/dev/null 2>"$TMP/merge.err" || bad "[$name] merge hint: $hint: $(cat "$TMP/merge.err")"
  [ -n "$(find "$TMP" -name PWNED)" ] && bad "[$name] the merge hint ran a command from a path" || ok
  n=$(grep -c '"status":"ok"' "$out/manifest.jsonl" 2>/dev/null)
  [ "$n" = 2 ] && ok || bad "[$name] merged manifest: $n ok runs, expected 2"
  # sbatch's own reading of the #SBATCH --output line (double quotes, \ escapes, # comments)
  got=$(python3 - "$TMP/job.sh" <<'PY'
import sys
for line in open(sys.argv[1]):
    if line.startswith("#SBATCH --output="):
        s, out, q, esc = line[len("#SBATCH --output="):], "", False, False
        for c in s:
            if c == "\n": break
            if esc: out += c; esc = False
            elif c == "\\": esc = True
            elif q and c == '"': q = False
            elif q: out += c
            elif c == '"': q = True
            elif c == "#" or c.isspace(): break
            else: out += c
        print(out)
PY
)
  [ "$got" = "$out/.batch/slurm-%A_%a.out" ] && ok || bad "[$name] #SBATCH --output reads as '$got'"
done

# a newline would end the comment or the #SBATCH line: refused with one line and exit 2
cd "$TMP" || exit 1
"$SENSIM" batch "$SPECDIR/spec.yaml" --out "$TMP/new
line" --sbatch 2 >/dev/null 2>"$TMP/err"
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$TMP/err")" -le 2 ] && grep -q "^sensim: error: batch: --sbatch" "$TMP/err" && ok ||
  bad "a newline in --out: exit $rc, $(cat "$TMP/err")"
"$SENSIM" batch "$SPECDIR/spec.yaml" --out "$TMP/pct%A" --sbatch 2 >/dev/null 2>"$TMP/err"
rc=$?
[ $rc -eq 2 ] && grep -q "^sensim: error: batch: --sbatch" "$TMP/err" && ok || bad "a % in --out: exit $rc, $(cat "$TMP/err")"

echo "$checks checks, $fails failed" >&2
[ "$fails" -eq 0 ]
