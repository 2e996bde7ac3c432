#!/usr/bin/env bash
# A real one-node Slurm cluster on localhost: munged with a generated key, slurmctld and
# slurmd with a minimal slurm.conf, all in a temp folder on free ports; the array script of
# `sensim batch --sbatch 4` is submitted with sbatch, and the merged result must equal a local
# batch byte for byte (manifest without wall_s, every output). Skipped (exit 77) without
# Debian's slurmctld, slurmd, slurm-client and munge, or when not root (slurmd must be).
# usage: slurm.sh SENSIM PLUGIN_DIR SCENES_DIR TMP_DIR
set -u
SENSIM=$(realpath "$1") PLUGINS=$2 SCENES=$3 TMP=$(realpath "$4")/slurm
for p in munged slurmctld slurmd sbatch sinfo; do
  command -v "$p" >/dev/null || { echo "SKIP: $p not installed (bash scripts/setup.sh installs slurm-wlm and munge)"; exit 77; }
done
[ "$(id -u)" -eq 0 ] || { echo "SKIP: slurmd must run as root"; exit 77; }
rm -rf "$TMP" && mkdir -p "$TMP"
C=$TMP/cluster
fails=0 checks=0
ok() { checks=$((checks + 1)); }
bad() { checks=$((checks + 1)); fails=$((fails + 1)); echo "FAIL: $*" >&2; }

# our daemons only, by their pid files (and the local batch, if it is still running)
stop() {
  [ -n "${local_pid:-}" ] && kill "$local_pid" 2>/dev/null
  [ -n "${SLURM_CONF:-}" ] && scancel --quiet -u root 2>/dev/null
  for f in "$C/slurmd.pid" "$C/ctld.pid" "$C/munge/pid"; do
    [ -s "$f" ] && kill "$(cat "$f")" 2>/dev/null
  done
  return 0
}
trap stop EXIT

# 8 runs: 2 seeds x 2 speeds x 2 masses of crash.yaml, shortened
cat >"$TMP/spec.yaml" <<YAML
runs:
  - id: crash
    scene: $SCENES/crash.yaml
    seeds: [1, 2]
    set: {settings.frames: 40}
    vary:
      actors.hero.velocity: [[8, 0, 0], [12, 0, 0]]
      actors.hero.attributes.mass: [1200, 1800]
YAML
# the local batch to compare with runs while the cluster starts (waited for before the comparison)
"$SENSIM" batch "$TMP/spec.yaml" --out "$TMP/local" -j 2 --plugin-dir "$PLUGINS" >/dev/null 2>&1 &
local_pid=$!

# three free TCP ports from the kernel
read -r CTLD_PORT SLURMD_PORT _ < <(python3 -c '
import socket
ss = [socket.socket() for _ in range(3)]
for s in ss: s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in ss])')

mkdir -p "$C"/{state,spool,log,munge} && chmod 700 "$C/munge"
dd if=/dev/urandom of="$C/munge/key" bs=1024 count=1 status=none && chmod 400 "$C/munge/key"
munged --key-file="$C/munge/key" --socket="$C/munge/sock" --pid-file="$C/munge/pid" \
  --log-file="$C/munge/log" --seed-file="$C/munge/seed" --force || { echo "FAIL: munged did not start"; exit 1; }
cat >"$C/slurm.conf" <<CONF
ClusterName=sensimtest
SlurmctldHost=localhost(127.0.0.1)
SlurmUser=root
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT
AuthType=auth/munge
AuthInfo=socket=$C/munge/sock
CredType=cred/munge
StateSaveLocation=$C/state
SlurmdSpoolDir=$C/spool
SlurmctldPidFile=$C/ctld.pid
SlurmdPidFile=$C/slurmd.pid
SlurmctldLogFile=$C/log/slurmctld.log
SlurmdLogFile=$C/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MpiDefault=none
# sbatch --wait polls at 2 s, then every 8 s unless MinJobAge/2 <= 2 s (src/sbatch/sbatch.c,
# _job_wait): 5 s keeps it polling every 2 s, and finished tasks are kept longer than a poll
MinJobAge=5
NodeName=sensimnode NodeHostname=localhost NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
# FORCE:4: the array's 4 short tasks all start at once, none waits for a later scheduling pass
PartitionName=sensim Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
CONF
export SLURM_CONF=$C/slurm.conf
slurmctld -f "$SLURM_CONF" || { echo "FAIL: slurmctld did not start: $(tail -n 5 "$C/log/slurmctld.log")"; exit 1; }
slurmd -f "$SLURM_CONF" -N sensimnode || { echo "FAIL: slurmd did not start: $(tail -n 5 "$C/log/slurmd.log")"; exit 1; }
for _ in $(seq 150); do
  [ "$(sinfo -h -N -o %t 2>/dev/null)" = idle ] && break
  sleep 0.2
done
[ "$(sinfo -h -N -o %t 2>/dev/null)" = idle ] && ok || { bad "the node never became idle: $(sinfo -N 2>&1) $(tail -n 5 "$C/log/slurmd.log")"; exit 1; }

# the shared folder has a hostile name: sbatch must read its #SBATCH line and bash its quoting
# (issue 33 item 20), and nothing may run from it
CO="$TMP/cluster out's \$(touch PWNED)"
"$SENSIM" batch "$TMP/spec.yaml" --out "$CO" --sbatch 4 --plugin-dir "$PLUGINS" >"$TMP/job.sh" || bad "--sbatch"
cd "$TMP" || exit 1
if timeout 180 sbatch --wait --quiet "$TMP/job.sh" >"$TMP/sbatch.out" 2>&1; then ok
else bad "sbatch --wait: $(cat "$TMP/sbatch.out") $(cat "$CO/.batch"/slurm-*.out 2>/dev/null | tail -n 5)"; fi
wait $local_pid || bad "local batch"
n=$(ls "$CO"/manifest-*-of-4.jsonl 2>/dev/null | wc -l)
[ "$n" -eq 4 ] && ok || bad "4 shard manifests from the array's 4 tasks, found $n"
merge=$(grep -o "batch merge --out .*" "$TMP/job.sh")
eval "\"$SENSIM\" $merge" >/dev/null 2>&1 || bad "merge"
python3 - "$TMP/local/manifest.jsonl" "$CO/manifest.jsonl" <<'PY' && ok || bad "merged manifest differs from the local batch's"
import json, sys
def load(p):
    recs = [json.loads(l) for l in open(p)]
    for r in recs: r.pop("wall_s")
    return recs
a, b = load(sys.argv[1]), load(sys.argv[2])
sys.exit(0 if a == b and len(a) == 8 and all(r["status"] == "ok" for r in a) else 1)
PY
[ -z "$(find "$TMP" -name PWNED)" ] && ok || bad "a task ran a command from the folder name"
n=$(ls "$CO/.batch"/slurm-*.out 2>/dev/null | wc -l)
[ "$n" -eq 4 ] && ok || bad "the #SBATCH --output line: 4 task logs in the folder named, found $n"
diff -r -x .batch -x 'manifest*.jsonl' "$TMP/local" "$CO" >/dev/null && ok || bad "outputs differ from the local batch's"

echo "$checks checks, $fails failed"
[ "$fails" -eq 0 ]
