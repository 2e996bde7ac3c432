#!/bin/bash
# Renders the camera rig of tests/bench/bench_rig.c (RGB, depth, semantic, instance and normals
# cameras on the town with traffic and scenery) with two builds under several weathers
# (ClearNoon's thin fog and shadows, thick fog with falloff, a wet sunset, a night with
# headlights), anti-aliasing 1 to 4 and 1 to 3 threads, and compares every stream and saved PNG
# byte for byte: a change to the renderer meant to keep its images must leave them identical.
#   scripts/same_renders.sh BUILD_A BUILD_B [WORK_DIR] [FRAMES]
# Exit status: 0 identical, 1 different (the differing files are listed), 2 a run failed.
set -u
if [ $# -lt 2 ]; then
    echo "usage: $0 BUILD_A BUILD_B [WORK_DIR] [FRAMES]" >&2
    exit 2
fi
root=$(cd "$(dirname "$0")/.." && pwd)
work=${3:-$(mktemp -d)}
frames=${4:-6}
mkdir -p "$work" || exit 2

scene() { # $1 weather (a preset's name or a map), $2 anti_aliasing
    cat <<EOF
map: $root/maps/town.xodr
settings: {fixed_delta_seconds: 0.05, seed: 1, weather: $1}
traffic: {vehicles: 50, walkers: 30, seed: 1}
actors:
  - {name: ground, blueprint: static.ground, transform: {location: [0, 0, -0.02]}, attributes: {semantic_tag: Terrain, color: "96,110,70"}}
  - {name: hero, blueprint: vehicle.sedan, transform: {location: [20, 1.75, 0.5]}, attributes: {role_name: hero}, autopilot: {}}
sensors:
  - {name: rgb, blueprint: sensor.camera.rgb, attach_to: hero, transform: {location: [1.5, 0, 2.4]}, attributes: {image_size_x: 640, image_size_y: 360, anti_aliasing: $2}, save: {path: "rgb/%06d.png"}}
  - {name: wide, blueprint: sensor.camera.rgb, attach_to: hero, transform: {location: [-4, 0, 6], rotation: [-20, 30, 0]}, attributes: {image_size_x: 320, image_size_y: 200, fov: 110, anti_aliasing: 1}}
  - {name: depth, blueprint: sensor.camera.depth, attach_to: hero, transform: {location: [1.5, 0, 2.4]}, attributes: {image_size_x: 640, image_size_y: 360}, save: {path: "depth/%06d.png", converter: logarithmic_depth}}
  - {name: semantic, blueprint: sensor.camera.semantic_segmentation, attach_to: hero, transform: {location: [1.5, 0, 2.4]}, attributes: {image_size_x: 640, image_size_y: 360}, save: {path: "semantic/%06d.png", converter: cityscapes}}
  - {name: instance, blueprint: sensor.camera.instance_segmentation, attach_to: hero, transform: {location: [1.5, 0, 2.4]}, attributes: {image_size_x: 320, image_size_y: 180}}
  - {name: normals, blueprint: sensor.camera.normals, attach_to: hero, transform: {location: [1.5, 0, 2.4]}, attributes: {image_size_x: 320, image_size_y: 180}}
EOF
}

cases=("clear|ClearNoon|2|2" "fog|{preset: ClearNoon, fog_density: 60, fog_distance: 5, fog_falloff: 0.4}|2|1"
       "sunset|WetCloudySunset|3|3" "night|WetNight|1|2" "nofall|{preset: CloudyNoon, fog_density: 30, fog_falloff: 0}|4|2")
for side in a b; do
    build=$1
    [ $side = b ] && build=$2
    rm -rf "$work/$side" && mkdir -p "$work/$side" || exit 2
    for c in "${cases[@]}"; do
        IFS='|' read -r name weather aa threads <<<"$c"
        scene "$weather" "$aa" >"$work/$name.yaml"
        if ! "$build/engine/sensim" run "$work/$name.yaml" --out "$work/$side/$name" --frames "$frames" --quiet \
            --threads "$threads"; then
            echo "$0: $name failed with $build" >&2
            exit 2
        fi
        rm -f "$work/$side/$name/run.json" "$work/$side/$name/stats.json"
    done
done
status=0
if diff -rq "$work/a" "$work/b"; then
    echo "identical: ${#cases[@]} weathers, $frames frames ($work)"
else
    status=1
fi
exit $status
