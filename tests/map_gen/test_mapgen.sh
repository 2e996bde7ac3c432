#!/usr/bin/env bash
# test_mapgen.sh — the shipped maps are exactly what tools/mapgen/mapgen.py makes, and they pass
# its self-check; the self-check itself fails on a map with a broken link.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
gen="$root/tools/mapgen/mapgen.py"
py=${PYTHON:-python3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$py" "$gen" --out "$tmp/a" >/dev/null
"$py" "$gen" --out "$tmp/b" >/dev/null        # deterministic: two runs, same bytes
"$py" "$gen" --check --summary --out "$tmp/a"

fail=0
for m in town highway roundabout signals; do
    cmp "$tmp/a/$m.xodr" "$tmp/b/$m.xodr" || { echo "FAIL: $m.xodr differs between two runs"; fail=1; }
    cmp "$tmp/a/$m.xodr" "$root/maps/$m.xodr" ||
        { echo "FAIL: maps/$m.xodr is not what mapgen.py makes (rerun tools/mapgen/mapgen.py)"; fail=1; }
done

# The check must notice a connecting road moved by 5 mm.
"$py" - "$tmp/a/roundabout.xodr" "$tmp/bad.xodr" <<'PY'
import re, sys
s = open(sys.argv[1]).read()
i = s.index('junction="1000"')
m = re.compile(r' x="([^"]+)"').search(s, s.index("<geometry", i))
open(sys.argv[2], "w").write(s[:m.start(1)] + repr(float(m.group(1)) + 0.005) + s[m.end(1):])
PY
if "$py" "$gen" --check "$tmp/bad.xodr" >"$tmp/bad.txt"; then
    echo "FAIL: --check passed a map with a 5 mm gap"; fail=1
else
    grep -q "gap 0.005" "$tmp/bad.txt" || { echo "FAIL: --check did not report the 5 mm gap"; cat "$tmp/bad.txt"; fail=1; }
fi

[ "$fail" = 0 ] && echo "mapgen: ok"
exit "$fail"
