#!/usr/bin/env bash
# Sets everything up, builds sensim and runs the demo scene (scenes/town.yaml: the project's own
# town map with traffic on autopilot, cycling lights and pedestrians; the hero's cameras save
# PNGs); streams and images go to out/demo/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
[ -d build ] || meson setup build >/dev/null
meson compile -C build >/dev/null
./build/engine/sensim run scenes/town.yaml --out out/demo
echo
echo "Streams written:"
ls -l out/demo
echo
echo "The hero's camera: $(ls out/demo/hero_rgb | wc -l) RGB, depth and semantic PNGs each in out/demo/hero_*/"
echo "The map it drove on (sensim map maps/town.xodr):"
./build/engine/sensim map maps/town.xodr
