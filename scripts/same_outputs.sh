#!/bin/bash
# Runs every shipped scene (scenes/*.yaml) with two builds' `sensim run --record` and compares
# the output folders and recordings byte for byte: a change meant to keep outputs must leave
# them identical. Each build uses the plugins beside its own program.
#   scripts/same_outputs.sh BUILD_A BUILD_B [WORK_DIR]
# e.g. a worktree of main built in ../main/build-rel against this one's build-rel. Exit status:
# 0 identical, 1 different (the differing files are listed), 2 a run failed.
set -u
if [ $# -lt 2 ]; then
    echo "usage: $0 BUILD_A BUILD_B [WORK_DIR]" >&2
    exit 2
fi
root=$(cd "$(dirname "$0")/.." && pwd)
work=${3:-$(mktemp -d)}
status=0
for side in a b; do
    build=$1
    [ $side = b ] && build=$2
    rm -rf "$work/$side" && mkdir -p "$work/$side" || exit 2
    for scene in "$root"/scenes/*.yaml; do
        name=$(basename "$scene" .yaml)
        if ! "$build/engine/sensim" run "$scene" --out "$work/$side/$name" --record "$work/$side/$name.rec" \
            --quiet --threads 2; then
            echo "$0: $name failed with $build" >&2
            exit 2
        fi
    done
done
if diff -rq "$work/a" "$work/b"; then
    echo "identical: $(ls "$root"/scenes/*.yaml | wc -l) scenes ($work)"
else
    status=1
fi
exit $status
