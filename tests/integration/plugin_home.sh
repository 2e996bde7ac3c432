#!/usr/bin/env bash
# Issue 24 item 2: a user's own C program linked to libsensim finds the engine's own plugins
# relative to the library, not to the program: built against the build tree and against an
# installed SDK, copied to a folder of its own and run from yet another one, with no
# SENSIM_PLUGIN_PATH. An unknown blueprint's spawn error names the folders searched.
# usage: plugin_home.sh BUILD_DIR TMP_DIR
set -u
BUILD=$(cd "$1" && pwd) TMP=$2/plugin_home
rm -rf "$TMP" && mkdir -p "$TMP/prog" "$TMP/elsewhere"
fail() { echo "FAIL: $*" >&2; exit 1; }
cat >"$TMP/scene.yaml" <<'Y'
actors:
  - {blueprint: static.ground}
Y
cat >"$TMP/user.c" <<'C'
#include <sensim/sensim.h>
#include <stdio.h>
#include <string.h>
/* argv[1]: a scene; spawns a camera (an engine plugin) and an unknown sensor. */
int main(int argc, char **argv)
{
    sn_error err;
    if (argc < 2)
        return 2;
    sn_engine *e = sn_engine_create(&(sn_engine_options){.quiet_plugins = true}, &err);
    if (!e || sn_engine_load_scene(e, argv[1], &err) != SN_OK) {
        printf("load: %s\n", err.msg);
        return 1;
    }
    uint32_t id;
    sn_actor_desc cam = {sizeof cam, "sensor.camera.rgb", "cam", {{0, 0, 2}, {0, 0, 0}}, 0, 0, NULL, 0};
    if (sn_engine_spawn(e, &cam, &id, &err) != SN_OK) {
        printf("camera: %s\n", err.msg);
        return 1;
    }
    sn_actor_desc bad = {sizeof bad, "sensor.no.such", "x", {{0, 0, 2}, {0, 0, 0}}, 0, 0, NULL, 0};
    sn_status st = sn_engine_spawn(e, &bad, &id, &err);
    printf("camera spawned\n%s\n", st == SN_OK ? "unknown spawned" : err.msg);
    sn_engine_destroy(e);
    return 0;
}
C
# A sanitized libsensim needs ASan's runtime first in an uninstrumented program.
preload() { ldd "$1" 2>/dev/null | awk '/libasan/ {print $3}'; }
run() { # run PROGRAM LIBSENSIM: from another folder, no plugin path
    local asan; asan=$(preload "$2")
    (cd "$TMP/elsewhere" && env -u SENSIM_PLUGIN_PATH -u LD_LIBRARY_PATH \
        ${asan:+LD_PRELOAD=$asan ASAN_OPTIONS=detect_leaks=0} "$1" "$TMP/scene.yaml")
}
check() { # check LABEL OUTPUT PLUGIN_DIR
    printf '%s\n' "$2" | grep -qx 'camera spawned' || fail "$1: the program did not find the engine's camera plugin: $2"
    local msg; msg=$(printf '%s\n' "$2" | tail -1)
    case "$msg" in
    *"unknown blueprint 'sensor.no.such'"*"searched: "*"$3 (the engine's own)"*) ;;
    *) fail "$1: the spawn error does not name the folders searched ($3): $msg" ;;
    esac
}

# The build tree: libsensim in BUILD/engine, plugins in BUILD/plugins.
lib=$BUILD/engine/libsensim.so
cc -std=c11 -I"$(dirname "$0")/../../sdk/include" "$TMP/user.c" -L"$BUILD/engine" -lsensim \
   -Wl,-rpath,"$BUILD/engine" -o "$TMP/prog/user" 2>"$TMP/cc.log" || fail "cc against the build tree: $(cat "$TMP/cc.log")"
out=$(run "$TMP/prog/user" "$lib") || fail "build tree: $out"
check "build tree" "$out" "$(cd "$BUILD/plugins" && pwd -P)"

# An installed SDK: libsensim in <libdir>, plugins in <libdir>/sensim/plugins.
meson install -C "$BUILD" --destdir "$TMP/root" --no-rebuild >"$TMP/install.log" 2>&1 ||
    fail "meson install: $(tail -3 "$TMP/install.log")"
pc=$(find "$TMP/root" -name sensim-sdk.pc | head -1)
[ -n "$pc" ] || fail "no sensim-sdk.pc installed"
unset PKG_CONFIG_SYSROOT_DIR
export PKG_CONFIG_PATH=$(dirname "$pc")
cc -std=c11 "$TMP/user.c" $(pkg-config --cflags --libs sensim-sdk) -o "$TMP/prog/user_installed" 2>"$TMP/cc.log" ||
    fail "cc against the installed SDK: $(cat "$TMP/cc.log")"
ilib=$(find "$TMP/root" -name 'libsensim.so*' -type f | head -1)
out=$(run "$TMP/prog/user_installed" "$ilib") || fail "installed: $out"
check "installed" "$out" "$(cd "$(pkg-config --variable=plugindir sensim-sdk)" && pwd -P)"
echo "a user's program finds the engine's plugins from libsensim (build tree and install)" >&2
