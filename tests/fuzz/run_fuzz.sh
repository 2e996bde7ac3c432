#!/usr/bin/env bash
# Builds one libFuzzer target of tests/fuzz with clang (and ASan/UBSan) against the sources it
# exercises and fuzzes it for a bounded time (FUZZ_SECONDS, default 12) from its seed corpus in
# the repository; without clang it runs the corpus once through the same entry point. Any
# finding (crash, leak, sanitizer report, hang over 10 s, more than 1 GiB) fails the test.
# args: source root, work dir, [target: reader (default) | scene | stream | map | map_mesh | xosc]
set -u
SRC=$1 TARGET=${3:-reader}
WORK=$2/fuzz_$TARGET
SECONDS_MAX=${FUZZ_SECONDS:-12}
E=$SRC/engine
case $TARGET in
  reader) # the recording reader (plugins/recorder)
    R=$SRC/plugins/recorder CORPUS=$SRC/tests/fuzz/corpus
    FILES=("$SRC/tests/fuzz/fuzz_reader.c" "$R/reader.c" "$R/decode.c" "$R/codec.c") LIBS=(-ldeflate -lm) ;;
  scene) # the scene loader (engine/scene), overrides included
    CORPUS=$SRC/tests/fuzz/corpus_scene
    FILES=("$SRC/tests/fuzz/fuzz_scene.c" "$E/scene/scene.c" "$E/scene/yamldoc.c" "$E/scene/yamlget.c" "$E/scene/override.c"
           "$E/core/error.c" "$E/core/util.c" "$E/core/json.c" "$E/core/infile.c" "$E/core/strmap.c" "$E/core/strpool.c" "$E/data/image.c" "$E/data/mpkey.c" "$E/data/views.c" "$E/data/png.c" "$E/data/zrle.c" "$E/data/png_share.c" "$E/data/netpbm.c"
           "$E/data/msgread.c" "$E/world/weather.c" "$E/world/vehicle_lights.c")
    LIBS=(-lyaml -lmsgpackc -ldeflate -lm -lpthread) ;;
  stream) # the stream reader behind dump and convert (engine/data)
    CORPUS=$SRC/tests/fuzz/corpus_stream
    FILES=("$SRC/tests/fuzz/fuzz_stream.c" "$E/data/dump.c" "$E/data/image.c" "$E/data/mpkey.c" "$E/data/views.c" "$E/data/png.c" "$E/data/zrle.c" "$E/data/png_share.c" "$E/data/netpbm.c" "$E/data/msgread.c"
           "$E/data/layouts.c" "$E/data/msgview.c" "$E/api/api_msgdata.c" "$E/api/api_stream.c" "$E/core/error.c" "$E/core/util.c" "$E/core/json.c" "$E/core/infile.c")
    LIBS=(-lmsgpackc -ldeflate -lm -lpthread) ;;
  map) # the OpenDRIVE map loader, its queries and signal binding (engine/map, traffic/bind.c, libxml2)
    CORPUS=$SRC/tests/fuzz/corpus_map
    FILES=("$SRC/tests/fuzz/fuzz_map.c" "$E"/map/*.c "$E/traffic/bind.c" "$E/core/xmlread.c" "$E/core/error.c" "$E/core/util.c" "$E/core/json.c" "$E/core/infile.c")
    LIBS=($(pkg-config --libs libxml-2.0) -lm) ;;
  map_mesh) # the same, and the road mesh built from every map that loads
    CORPUS=$SRC/tests/fuzz/corpus_map
    FILES=(-DSN_FUZZ_MESH "$SRC/tests/fuzz/fuzz_map.c" "$E"/map/*.c "$E/traffic/bind.c" "$E/core/xmlread.c" "$E/core/error.c" "$E/core/util.c" "$E/core/json.c" "$E/core/infile.c")
    LIBS=($(pkg-config --libs libxml-2.0) -lm) ;;
  xosc) # the OpenSCENARIO loader and the storyboard player (engine/scenario, libxml2) on a small map
    CORPUS=$SRC/tests/fuzz/corpus_xosc
    FILES=("$SRC/tests/fuzz/fuzz_xosc.c" "$E/scenario/xosc_expr.c" "$E/scenario/xosc_xml.c" "$E/scenario/xosc_parse.c" "$E"/scenario/xosc_parse_*.c "$E/scenario/xosc_attrs.c" "$E/scenario/xosc_catalog.c" "$E/scenario/xosc_pos.c" "$E/scenario/xosc_move.c"
           "$E/scenario/xosc_play.c" "$E/scenario/xosc_cond.c" "$E/scenario/xosc_log.c" "$E/scenario/xosc_route.c" "$E/scenario/xosc_shape.c" "$E/scenario/xosc_sync.c" "$E/scenario/xosc_signal.c" "$E"/map/*.c "$E/core/xmlread.c" "$E/core/error.c" "$E/core/util.c" "$E/core/json.c" "$E/core/infile.c")
    LIBS=($(pkg-config --libs libxml-2.0) -lm) ;;
  *) echo "run_fuzz.sh: unknown target '$TARGET'" >&2; exit 2 ;;
esac
rm -rf "$WORK"; mkdir -p "$WORK/corpus"
cp "$CORPUS"/* "$WORK/corpus/"
FLAGS=(-std=c11 -O1 -g1 -I"$SRC/sdk/include" $(pkg-config --cflags stb 2>/dev/null) $(pkg-config --cflags libxml-2.0 2>/dev/null) -D_POSIX_C_SOURCE=200809L
       -D_DEFAULT_SOURCE -D_FILE_OFFSET_BITS=64)
BIN=$WORK/fuzz_$TARGET
if command -v clang >/dev/null && clang -fsanitize=fuzzer "${FLAGS[@]}" -fsanitize=address,undefined \
     -fno-sanitize-recover=all "${FILES[@]}" -o "$BIN" "${LIBS[@]}" 2>"$WORK/build.log"; then
  # -rss_limit_mb and -timeout: a hang or a runaway allocation is a finding too.
  "$BIN" -max_total_time="$SECONDS_MAX" -timeout=10 -rss_limit_mb=1024 -max_len=65536 -artifact_prefix="$WORK/" \
    "$WORK/corpus" 2>"$WORK/fuzz.log"
  rc=$?
  tail -3 "$WORK/fuzz.log"
  [ $rc -eq 0 ] || { grep -A30 'ERROR\|SUMMARY' "$WORK/fuzz.log" | head -60; exit 1; }
  echo "fuzz_$TARGET: $(grep -o "Done [0-9]* runs" "$WORK/fuzz.log"), no findings"
else
  echo "clang with libFuzzer not found ($(head -1 "$WORK/build.log" 2>/dev/null)); running the corpus once"
  cc -DSN_FUZZ_STANDALONE "${FLAGS[@]}" "${FILES[@]}" -o "$BIN" "${LIBS[@]}" || exit 1
  "$BIN" "$WORK"/corpus/*
fi
