#!/usr/bin/env bash
# Three sensors an outside author wrote on SDK 1.6 (sdk/examples/sdk16_sensors: an ultrasonic
# array, a traffic-light-ahead detector, cooperative perception over the engine's V2X medium), built
# from the installed SDK alone: sensim staged with meson install --destdir, the example folder as
# installed under the documentation, pkg-config and meson only, -Werror; their unit tests on the
# fake host (the light detector's on signals.xodr) pass, the frozen 1.5 headers are installed,
# and `sensim dump --decode` decodes the ultrasonic array's declared records of a real run.
# usage: outside_author.sh BUILD_DIR TMP_DIR SIGNALS_XODR
set -u
BUILD=$1 TMP=$2/outside_author MAP=$3
rm -rf "$TMP" && mkdir -p "$TMP"
fail() { echo "FAIL: $*" >&2; exit 1; }
meson install -C "$BUILD" --destdir "$TMP/root" --no-rebuild >"$TMP/install.log" 2>&1 || fail "meson install: $(tail -3 "$TMP/install.log")"
pc=$(find "$TMP/root" -name sensim-sdk.pc | head -1)
sensim=$(find "$TMP/root" -path '*/bin/sensim' | head -1)
[ -n "$pc" ] && [ -n "$sensim" ] || fail "sensim and sensim-sdk.pc installed"
PREFIX=$(dirname "$(dirname "$sensim")")
unset PKG_CONFIG_SYSROOT_DIR SENSIM_PLUGIN_PATH LD_LIBRARY_PATH
export PKG_CONFIG_PATH=$(dirname "$pc") PATH=$PREFIX/bin:$PATH
if ldd "$(dirname "$pc")/../libsensim.so" 2>/dev/null | grep -q libasan; then
  export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0:detect_leaks=0"
fi
inc=$(pkg-config --variable=includedir sensim-sdk)
for v in 1.1 1.2 1.3 1.4 1.5; do
  [ -f "$inc/sensim-abi/$v/sensim/plugin.h" ] || fail "frozen ABI $v headers not installed under $inc/sensim-abi"
done
[ -f "$inc/sensim/grow.h" ] && [ -f "$inc/sensim/records.h" ] || fail "SDK 1.6 headers installed"
docdir=$(realpath -m "$(pkg-config --variable=docdir sensim-sdk)")
cp -r "$docdir/examples/sdk16_sensors" "$TMP/src" || fail "the example is not installed in $docdir/examples"
cd "$TMP/src" || fail "cd"
meson setup build -Dwerror=true -Dmap="$MAP" >setup.log 2>&1 || fail "meson setup: $(tail -5 setup.log)"
meson compile -C build >compile.log 2>&1 || fail "compile: $(tail -20 compile.log)"
meson test -C build >test.log 2>&1 || fail "their tests: $(tail -20 build/meson-logs/testlog.txt)"
# a run of the ultrasonic array, its records decoded by the installed sensim with no code of ours
printf 'settings: {frames: 2}\nactors:\n  - {name: b, blueprint: static.prop.box, transform: {location: [3, 0, 0.5]}, attributes: {extent: "0.5,0.5,0.5"}}\nsensors:\n  - {name: bar, blueprint: sensor.other.ultrasonic_array, transform: {location: [0, 0, 0.5]}, attributes: {beams: 3, spacing: 30, half_angle: 10}}\n' >scene.yaml
sensim run scene.yaml --plugin-dir build --out out --quiet >run.log 2>&1 || fail "run: $(cat run.log)"
sensim dump out/bar.msgpack --decode --plugin-dir build >dump.jsonl || fail "dump --decode"
grep -q '"\$records":"ultrasonic_echo","count":3,"records":\[{"distance":-1,' dump.jsonl &&
  grep -q '{"distance":2.5,"bearing":0,"actor":1,"beam":1}' dump.jsonl || fail "decoded records: $(head -c 600 dump.jsonl)"
echo "outside_author: three SDK 1.6 sensors built from the installed SDK, tested, and decoded"
