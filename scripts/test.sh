#!/usr/bin/env bash
# Sets everything up, builds with warnings as errors and runs the whole test suite twice:
# once in the normal build and once under AddressSanitizer + UndefinedBehaviorSanitizer.
# Ends with one line: "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh || { echo "0 passed, 1 failed"; exit 1; }

passed=0 failed=0 failures=""
report() { # testlog.json, label: CI shows only the output's end, so each failure is named there
  failures+=$(python3 - "$1" "$2" 2>&1 <<'PY'
import json, os, sys
if not os.path.exists(sys.argv[1]):
    print("failed: %s: the suite did not run" % sys.argv[2])
    sys.exit()
for line in open(sys.argv[1]):
    t = json.loads(line)
    if t["result"] not in ("OK", "SKIP", "EXPECTEDFAIL"):
        out = (t.get("stdout") or "").strip().splitlines()[-12:]
        print("failed: %s: %s %s (%.1f s)" % (sys.argv[2], t["name"], t["result"], t["duration"]))
        print("".join("  | %s\n" % l for l in out), end="")
PY
)$'\n'
}
count() { # build dir: adds meson's Ok/Fail counts from its last run
  local log=$1/meson-logs/testlog.json ok fail
  ok=$(grep -o '"result": "OK"' "$log" 2>/dev/null | wc -l)
  fail=$(grep -o '"result": "\(FAIL\|TIMEOUT\|ERROR\|UNEXPECTEDPASS\)"' "$log" 2>/dev/null | wc -l)
  [ "$ok" -gt 0 ] || [ "$fail" -gt 0 ] || fail=1 # the suite did not run at all
  passed=$((passed + ok)); failed=$((failed + fail))
  [ "$fail" -gt 0 ] && report "$log" "$1"
  return 0
}
phases=""
timed() { # label, command...: runs it, keeps "label N s" for the summary (where CI's time goes)
  local label=$1 t0=$SECONDS rc; shift
  "$@"; rc=$?
  phases+="  $label $((SECONDS - t0)) s"$'\n'
  return $rc
}
run_suite() { # build dir, what to build, meson options...
  local dir=$1 what=$2; shift 2
  if [ ! -d "$dir" ]; then meson setup "$dir" -Dwerror=true "$@" >/dev/null || { failed=$((failed + 1)); return; }; fi
  if ! timed "$dir: build" ninja -C "$dir" $what; then failed=$((failed + 1)); return; fi
  rm -f "$dir/meson-logs/testlog.json"
  timed "$dir: tests" meson test -C "$dir" --print-errorlogs --num-processes 2
  count "$dir"
}
run_suite build-test all
# the sanitized build runs the tests only: the benchmarks' programs are not built there; -g1
# (line tables, enough for ASan's file:line) builds in 0.92x the CPU of full debug information
run_suite build-sanitize meson-test-prereq -Db_sanitize=address,undefined -Db_lundef=false "-Dc_args=-fno-sanitize-recover=all -g1"
# The benchmarks run once too: they must work, their figures are printed, never asserted
# (SENSIM_BENCH_QUICK: the slowest take one round instead of their best of N, tests/bench/quick.h).
rm -f build-test/meson-logs/testlog.json
bench_t0=$SECONDS
if SENSIM_BENCH_QUICK=1 meson test -C build-test --benchmark --verbose 2>&1 | grep -E '^ *(ratio|engine|memory|depth|target)'; then
  passed=$((passed + 1))
else
  failed=$((failed + 1))
  report build-test/meson-logs/testlog.json benchmarks
fi
phases+="  benchmarks $((SECONDS - bench_t0)) s"$'\n'
printf 'time by phase (setup included in the total, %d s):\n%s' "$SECONDS" "$phases"
[ -z "$failures" ] || printf '%s' "$failures"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
