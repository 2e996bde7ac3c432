#!/usr/bin/env bash
# `sensim new-sensor` writes a plugin folder that builds against the installed SDK (meson and
# pkg-config only), passes its own unit test, loads, and runs its scene. The steps new-sensor
# prints and the ones its README gives are run verbatim, from an installed prefix with
# PKG_CONFIG_PATH and PATH set as the README says.
# usage: scaffold.sh BUILD_DIR TMP_DIR
set -u
BUILD=$1 TMP=$2/scaffold
rm -rf "$TMP" && mkdir -p "$TMP"
fail() { echo "FAIL: $*" >&2; exit 1; }
meson install -C "$BUILD" --destdir "$TMP/root" --no-rebuild >"$TMP/install.log" 2>&1 || fail "meson install: $(tail -3 "$TMP/install.log")"
pc=$(find "$TMP/root" -name sensim-sdk.pc | head -1)
sensim=$(find "$TMP/root" -path '*/bin/sensim' | head -1)
[ -n "$pc" ] && [ -n "$sensim" ] || fail "sensim and sensim-sdk.pc installed"
# The staging root is a prefix like any other (sensim-sdk.pc is relocatable): only what the
# scaffold's README says to set, nothing of the build tree.
PREFIX=$(dirname "$(dirname "$sensim")")
unset PKG_CONFIG_SYSROOT_DIR SENSIM_PLUGIN_PATH LD_LIBRARY_PATH
export PKG_CONFIG_PATH=$PREFIX/lib/x86_64-linux-gnu/pkgconfig
[ -f "$PKG_CONFIG_PATH/sensim-sdk.pc" ] || PKG_CONFIG_PATH=$(dirname "$pc") # another libdir than Debian's
export PATH=$PREFIX/bin:$PATH
# In the sanitizer build libsensim carries ASan; the scaffold's own test program (built without
# it, as a user would) then loads the ASan runtime second, which ASan refuses unless told.
if ldd "$(dirname "$pc")/../libsensim.so" 2>/dev/null | grep -q libasan; then
  export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0:detect_leaks=0"
fi
[ "$(command -v sensim)" = "$sensim" ] || fail "the installed sensim is not first on PATH"
# The SDK guide and the examples are installed where pkg-config and new-sensor say.
docdir=$(realpath -m "$(pkg-config --variable=docdir sensim-sdk)")
[ -f "$docdir/README.md" ] && [ -f "$docdir/examples/safe_distance/safe_distance.c" ] ||
  fail "SDK guide and examples not in docdir '$docdir'"

cd "$TMP" || fail "cd"
"$sensim" new-sensor lane_watch >new.log 2>&1 || fail "new-sensor: $(cat new.log)"
for f in lane_watch.c test_lane_watch.c meson.build scene.yaml README.md; do
  [ -f "lane_watch/$f" ] || fail "new-sensor did not write $f"
done
# Refusals: an existing folder is never overwritten, a bad name is refused; both exit 2.
before=$(md5sum lane_watch/lane_watch.c)
"$sensim" new-sensor lane_watch 2>err.log; rc=$?
[ "$rc" -eq 2 ] && grep -q "^sensim: error: new-sensor: lane_watch already exists" err.log || fail "existing folder: rc=$rc $(cat err.log)"
[ "$(md5sum lane_watch/lane_watch.c)" = "$before" ] || fail "an existing folder was changed"
"$sensim" new-sensor 'Lane-Watch' 2>err.log; rc=$?
[ "$rc" -eq 2 ] && grep -q "is not a valid name" err.log || fail "bad name: rc=$rc $(cat err.log)"

# As generated: builds warning-free, its unit test passes, it loads, its scene runs.
cd lane_watch || fail "cd"
# An author's first edit often uses M_PI: it must build under the template's c_std=c11 (-Werror).
printf 'double lane_watch_half_turn(void);\ndouble lane_watch_half_turn(void) { return M_PI + SN_PI - 2 * SN_PI; }\n' >>lane_watch.c
meson setup build -Dwerror=true >setup.log 2>&1 || fail "meson setup: $(tail -5 setup.log)"
meson compile -C build >compile.log 2>&1 || fail "compile: $(tail -20 compile.log)"
meson test -C build >test.log 2>&1 || fail "its unit test: $(cat build/meson-logs/testlog.txt | tail -20)"
SENSIM_PLUGIN_PATH=build "$sensim" plugins >plugins.log 2>&1
grep -q "sensor.other.lane_watch" plugins.log || fail "sensim plugins does not list it: $(cat plugins.log)"
SENSIM_PLUGIN_PATH=build "$sensim" run scene.yaml --out out --quiet 2>run.log || fail "its scene: $(cat run.log)"
out=$("$sensim" dump out/lane_watch.msgpack) || fail "dump"
# 20 frames at 0.05 s with sensor_tick 0.1: 10 messages, each seeing only the near box (5 m).
n=$(printf '%s\n' "$out" | wc -l)
[ "$n" -eq 10 ] || fail "expected 10 messages, got $n"
bad=$(printf '%s\n' "$out" | grep -vc '"count":1,"actors":\[{"id":3,"type_id":"static.prop.box"')
[ "$bad" -eq 0 ] || fail "expected only near_box (id 3) in range: $(printf '%s\n' "$out" | head -1)"

# The printed steps, verbatim: `cd imu && meson setup build && meson test -C build` must build
# the .so too (the test loads it), then the plugin runs from build/.
cd "$TMP" || fail "cd"
sensim new-sensor imu >imu.log 2>&1 || fail "new-sensor imu: $(cat imu.log)"
grep -q "the SDK guide:   $docdir/README.md" imu.log || fail "new-sensor does not point to the guide: $(cat imu.log)"
steps=$(sed -n 's/^  build and test:  //p; s/^  run its scene:   //p' imu.log)
[ "$(printf '%s\n' "$steps" | wc -l)" -eq 2 ] || fail "new-sensor printed no steps: $(cat imu.log)"
bash -ec "$steps" >imu_steps.log 2>&1 || fail "the printed steps failed: $(tail -20 imu_steps.log)"
[ -f imu/build/imu.so ] && [ -s imu/out/imu.msgpack ] || fail "printed steps: no plugin or no output"
[ "$(sensim dump imu/out/imu.msgpack | wc -l)" -eq 10 ] || fail "printed steps: expected 10 messages"

# The README's steps, verbatim (its first indented block), in a fresh scaffold.
sensim new-sensor imu_readme >/dev/null 2>&1 || fail "new-sensor imu_readme"
cd imu_readme || fail "cd"
readme=$(awk '/^    /{sub(/^    /, ""); print; found=1; next} found{exit}' README.md)
[ "$(printf '%s\n' "$readme" | wc -l)" -eq 3 ] || fail "README steps: $readme"
bash -ec "$readme" >readme_steps.log 2>&1 || fail "the README's steps failed: $(tail -20 readme_steps.log)"
grep -q '"sensor":"imu_readme"' readme_steps.log || fail "README steps: no dump output: $(tail -5 readme_steps.log)"
echo "scaffold generated, built, tested, loaded and run; printed and README steps verbatim" >&2
