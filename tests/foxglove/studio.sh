#!/usr/bin/env bash
# A sensim run's MCAP opened in Foxglove Studio itself (issue 33 item 3): scenes/sensors.yaml
# (IMU, GNSS, obstacle, radar) run with --mcap, served to Foxglove's own web app
# (tools/foxglove-shot: @foxglove/studio-base 1.48.0 from npm, in Debian's chromium through
# puppeteer-core) with tests/foxglove/layout.json: a Plot of /imu.accelerometer[0] and a Raw
# Messages panel on /imu. studio_check.mjs passes when the raw message shows its fields, the
# plot has its line and a value, and the page logged no error (a JSON schema Foxglove cannot
# parse is an error there). Needs chromium, node and tools/foxglove-shot/node_modules (npm ci
# from its lock file: scripts/setup.sh): without them it FAILS, it does not skip.
# usage: studio.sh SENSIM SCENES_DIR TMP_DIR TOOLS_DIR
set -u
SENSIM=$1 SCENES=$2 TMP=$3/foxglove TOOLS=$4
HERE=$(cd "$(dirname "$0")" && pwd)
rm -rf "$TMP" && mkdir -p "$TMP"
die() { echo "FAIL: $*" >&2; exit 1; }
command -v node >/dev/null || die "no node (Debian nodejs: bash scripts/setup.sh)"
[ -x "${CHROMIUM:-/usr/bin/chromium}" ] || die "no chromium (Debian chromium: bash scripts/setup.sh)"
[ -d "$TOOLS/node_modules/@foxglove/studio-base/assets" ] && [ -d "$TOOLS/node_modules/puppeteer-core" ] ||
  die "no $TOOLS/node_modules: scripts/setup.sh runs npm ci there (from its package-lock.json); was npm's registry reachable?"

"$SENSIM" run "$SCENES/sensors.yaml" --out "$TMP/run" --mcap "$TMP/run.mcap" --quiet || die "sensim run --mcap"

node "$TOOLS/serve.mjs" "$TMP/run.mcap" 0 "$HERE/layout.json" >"$TMP/serve.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null' EXIT
for _ in $(seq 100); do grep -q '^listening' "$TMP/serve.log" && break; sleep 0.1; done
port=$(sed -n 's/^listening \([0-9]*\)$/\1/p' "$TMP/serve.log")
[ -n "$port" ] || { cat "$TMP/serve.log" >&2; die "the server did not start"; }

# Foxglove's deep link: the remote file, the layout, and the playback time (1 s into the run: the
# Raw Messages panel shows the message of that time, the Plot the whole run)
enc() { node -p 'encodeURIComponent(process.argv[1])' "$1"; }
url="http://127.0.0.1:$port/?ds=remote-file&ds.url=$(enc "http://127.0.0.1:$port/run.mcap")&layoutId=sensim&time=$(enc 1970-01-01T00:00:01.000000000Z)"
timeout 150 node "$HERE/studio_check.mjs" "$url" "$TOOLS" "$TMP/studio.png" || die "Foxglove Studio (screenshot: $TMP/studio.png)"
echo "ok: the MCAP in Foxglove Studio: Plot and Raw Messages have their data, no error on the page"
