#!/usr/bin/env bash
# The third-party path: install the SDK (meson install --destdir), build the safe-distance
# example with nothing but pkg-config, run its scene with the installed sensim, check the output.
# usage: sdk_example.sh BUILD_DIR SOURCE_DIR TMP_DIR
set -u
BUILD=$1 SRC=$2 TMP=$3/sdk
rm -rf "$TMP" && mkdir -p "$TMP"
fail() { echo "FAIL: $*" >&2; exit 1; }
meson install -C "$BUILD" --destdir "$TMP/root" --no-rebuild >"$TMP/install.log" 2>&1 || fail "meson install: $(tail -3 "$TMP/install.log")"
pc=$(find "$TMP/root" -name sensim-sdk.pc | head -1)
[ -n "$pc" ] || fail "no sensim-sdk.pc installed"
sensim=$(find "$TMP/root" -path '*/bin/sensim' | head -1)
# Only the installed tree: the example as installed with the guide (pkg-config's docdir), and
# pkg-config pointed at the staging prefix (sensim-sdk.pc is relocatable).
unset PKG_CONFIG_SYSROOT_DIR
export PKG_CONFIG_PATH=$(dirname "$pc")
docdir=$(pkg-config --variable=docdir sensim-sdk)
[ -f "$docdir/README.md" ] || fail "the SDK guide is not installed in '$docdir'"
cp "$docdir/examples/safe_distance/safe_distance.c" "$docdir/examples/safe_distance/Makefile" "$TMP/" ||
  fail "the example is not installed in '$docdir/examples'"
make -s -C "$TMP" CFLAGS="-O2 -Wall -Wextra -Werror" >"$TMP/make.log" 2>&1 || fail "example build: $(cat "$TMP/make.log")"
SENSIM_PLUGIN_PATH=$TMP "$sensim" run "$SRC/sdk/examples/safe_distance/scene.yaml" --out "$TMP/out" --quiet || fail "run"
out=$("$sensim" dump "$TMP/out/safety.msgpack") || fail "dump"
lines=$(printf '%s\n' "$out" | wc -l)
[ "$lines" -eq 10 ] || fail "expected 10 messages (one per frame), got $lines"
bad=$(printf '%s\n' "$out" | grep -vc '"vehicles":\[4,5\]')
[ "$bad" -eq 0 ] || fail "expected vehicles [4,5] (ahead, beside) in every message: $(printf '%s\n' "$out" | head -1)"
SENSIM_PLUGIN_PATH=$TMP "$sensim" blueprints | grep -q "safe_distance_front" || fail "blueprint listed"
echo "example built from the installed SDK and checked" >&2
