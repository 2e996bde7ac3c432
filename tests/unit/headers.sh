#!/usr/bin/env bash
# Each public header compiles on its own, as plain C11, pedantic, warnings as errors.
# usage: headers.sh SDK_INCLUDE_DIR CC
set -u
inc=$1 cc=${2:-cc} fails=0 n=0
for h in "$inc"/sensim/*.h; do
  n=$((n + 1))
  name=sensim/$(basename "$h")
  if ! printf '#include <%s>\n#include <%s>\nint sn_header_test_dummy;\n' "$name" "$name" |
      "$cc" -std=c11 -Wall -Wextra -pedantic -Werror -fsyntax-only -I "$inc" -x c -; then
    echo "FAIL: $name does not compile on its own" >&2
    fails=$((fails + 1))
  fi
done
# The fake host's implementation half, too, as a plugin author's test compiles it.
n=$((n + 1))
if ! printf '#define SN_TESTING_IMPLEMENTATION\n#include <sensim/testing.h>\n' |
    "$cc" -std=c11 -Wall -Wextra -pedantic -Werror -fsyntax-only -I "$inc" -x c -; then
  echo "FAIL: sensim/testing.h with SN_TESTING_IMPLEMENTATION" >&2
  fails=$((fails + 1))
fi
echo "$n headers, $fails failed" >&2
[ "$n" -gt 0 ] && [ "$fails" -eq 0 ]
