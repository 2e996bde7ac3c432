#!/usr/bin/env bash
# Sets everything up, builds sensim and runs the demo scene; streams go to out/demo/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
[ -d build ] || meson setup build >/dev/null
meson compile -C build >/dev/null
./build/engine/sensim run scenes/intersection.yaml --out out/demo
echo
echo "Streams written:"
ls -l out/demo
echo
echo "First collision of the demo (sensim dump out/demo/jaywalker_collision.msgpack):"
./build/engine/sensim dump out/demo/jaywalker_collision.msgpack > out/demo/jaywalker_collision.jsonl  # not `| head`: under pipefail, head closing the pipe makes dump exit 141
head -1 out/demo/jaywalker_collision.jsonl
