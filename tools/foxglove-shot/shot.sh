#!/usr/bin/env bash
# Takes docs/foxglove.png: the demo scene (scenes/town.yaml) run with --mcap, opened in Foxglove
# Studio's own web app (@foxglove/studio-base 1.48.0 from npm, its prebuilt webpack bundle) in
# Debian's chromium, with layout.json's panels (3D following the hero, its RGB and semantic
# cameras), seeked to T seconds. Not run by CI: it downloads about 40 MB from npm and needs chromium.
# usage: tools/foxglove-shot/shot.sh [OUT.png] [T]   (default docs/foxglove.png, T = 12)
# env: SENSIM (default build/engine/sensim), PORT (8765), CHROMIUM (/usr/bin/chromium)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=$(realpath -m "${1:-$root/docs/foxglove.png}")
t=${2:-12}
port=${PORT:-8765}
sensim=${SENSIM:-$root/build/engine/sensim}
[ -x "$sensim" ] || { echo "shot.sh: no $sensim: build sensim first (meson setup build && meson compile -C build)" >&2; exit 2; }
command -v "${CHROMIUM:-chromium}" >/dev/null || { echo "shot.sh: no chromium (apt-get install chromium)" >&2; exit 2; }

cd "$here"
npm ci --no-audit --no-fund --loglevel=error
rm -rf run
"$sensim" run "$root/scenes/town.yaml" --out run/demo --mcap run/demo.mcap

node serve.mjs run/demo.mcap "$port" > run/serve.log 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 50); do grep -q listening run/serve.log && break; sleep 0.2; done
grep -q listening run/serve.log || { cat run/serve.log >&2; exit 1; }

# The deep link Foxglove's web app understands: data source, layout and the time to seek to
# (the MCAP's log times are the run's seconds since 0, so an RFC 3339 time in 1970).
mcap_url="http://127.0.0.1:$port/run.mcap"
time=$(date -u -d "@$t" +%Y-%m-%dT%H:%M:%S.%NZ)
url="http://127.0.0.1:$port/?ds=remote-file&ds.url=$(node -p 'encodeURIComponent(process.argv[1])' "$mcap_url")&layoutId=sensim&time=$(node -p 'encodeURIComponent(process.argv[1])' "$time")"
node shot.mjs "$url" "$out" 1280 720
echo "shot.sh: $out ($(stat -c %s "$out") bytes), $("$sensim" --version), @foxglove/studio-base $(node -p 'require("./node_modules/@foxglove/studio-base/package.json").version')"
