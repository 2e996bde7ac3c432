#!/usr/bin/env bash
# Builds tests/fuzz/fuzz_reader.c with clang's libFuzzer (and ASan/UBSan) against the recorder's
# reader sources and fuzzes for a bounded time (FUZZ_SECONDS, default 20) from the corpus in
# the repository; without clang it runs the corpus once through the same entry point.
# args: source root, work dir
set -u
SRC=$1 WORK=$2/fuzz
SECONDS_MAX=${FUZZ_SECONDS:-20}
rm -rf "$WORK"; mkdir -p "$WORK/corpus"
cp "$SRC"/tests/fuzz/corpus/* "$WORK/corpus/"
R=$SRC/plugins/recorder
FILES=("$SRC/tests/fuzz/fuzz_reader.c" "$R/reader.c" "$R/decode.c" "$R/codec.c")
FLAGS=(-std=c11 -O1 -g -I"$SRC/sdk/include" -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -D_FILE_OFFSET_BITS=64)
if command -v clang >/dev/null && clang -fsanitize=fuzzer "${FLAGS[@]}" -fsanitize=address,undefined \
     -fno-sanitize-recover=all "${FILES[@]}" -o "$WORK/fuzz_reader" -lm 2>"$WORK/build.log"; then
  # -rss_limit_mb and -timeout: a hang or a runaway allocation is a finding too.
  "$WORK/fuzz_reader" -max_total_time="$SECONDS_MAX" -timeout=10 -rss_limit_mb=1024 -max_len=65536 \
    "$WORK/corpus" 2>"$WORK/fuzz.log"
  rc=$?
  tail -3 "$WORK/fuzz.log"
  [ $rc -eq 0 ] || { grep -A30 'ERROR\|SUMMARY' "$WORK/fuzz.log" | head -60; exit 1; }
  echo "fuzz_reader: $(grep -o "Done [0-9]* runs" "$WORK/fuzz.log"), no findings"
else
  echo "clang with libFuzzer not found ($(head -1 "$WORK/build.log" 2>/dev/null)); running the corpus once"
  cc -DSN_FUZZ_STANDALONE "${FLAGS[@]}" "${FILES[@]}" -o "$WORK/fuzz_reader" -lm || exit 1
  "$WORK/fuzz_reader" "$WORK"/corpus/*
fi
