#!/usr/bin/env bash
# Installs sensim's build dependencies from Debian (as root, or with sudo).
set -euo pipefail
PKGS=(gcc libc6-dev meson ninja-build pkg-config libode-dev libmsgpack-dev libstb-dev libyaml-dev
      libdeflate-dev libembree-dev libxml2-dev python3 parallel clang libclang-rt-14-dev
      python3-msgpack python3-numpy python3-pytest slurm-wlm munge
      libavcodec-dev libavformat-dev libswscale-dev libavutil-dev ffmpeg chromium nodejs
      libzstd-dev)  # MCAP: zstd chunks (Node also runs the tests' MCAP reader, tests/mcap)
# the llvmpipe peer benchmark only (tests/bench/bench_llvmpipe.c): Mesa's EGL and software GL
PKGS+=(libegl-dev libgl-dev libegl-mesa0 libgl1-mesa-dri)
# pip install ./python into a venv, offline (python/tests/test_examples.py, docs/python.md; the
# venv is made --without-pip and runs Debian's pip)
PKGS+=(python3-venv python3-pip python3-setuptools python3-wheel)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# npm: Debian's package, unless a Node that carries its own (NodeSource's, which conflicts with it) is there
command -v npm >/dev/null || missing+=(npm)
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  echo "sensim: installing ${missing[*]}" >&2
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# the report's browser test drives chromium with puppeteer-core (tests/views/package-lock.json);
# npm comes with a nodejs from nodesource, else from Debian (whose npm conflicts with the former)
if ! command -v npm >/dev/null; then
  SUDO=; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends npm >/dev/null
fi
if [ ! -d "$(dirname "$0")/../tests/views/node_modules/puppeteer-core" ]; then
  (cd "$(dirname "$0")/../tests/views" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
fi
# the Foxglove Studio test (tests/foxglove) runs Foxglove's web app from npm (@foxglove/studio-base,
# puppeteer-core: tools/foxglove-shot/package-lock.json); no registry, no install: setup fails
if [ ! -d "$(dirname "$0")/../tools/foxglove-shot/node_modules/@foxglove/studio-base" ] ||
   [ ! -d "$(dirname "$0")/../tools/foxglove-shot/node_modules/puppeteer-core" ]; then
  (cd "$(dirname "$0")/../tools/foxglove-shot" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
fi
