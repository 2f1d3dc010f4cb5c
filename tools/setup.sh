#!/usr/bin/env bash
# Installs what kneepoint needs from Debian (only what is missing), then configures and builds.
# Idempotent: a second run installs nothing and rebuilds only what changed.
# Usage: tools/setup.sh [BUILD_DIR [TARGET...]]   (default: build, all targets)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
shift || true
targets=()
for t in "$@"; do targets+=(--target "$t"); done
packages=(build-essential cmake pkg-config libsystemc-dev libeigen3-dev libyaml-cpp-dev
          libboost-program-options-dev libgtest-dev zlib1g-dev dataset-fashion-mnist
          libopenmpi-dev openmpi-bin libonnx-dev libprotobuf-dev)
# libonnx-dev (with libprotobuf-dev) reads ONNX models for `kneepoint import onnx`: its generated
# protobuf classes and shape inference parse the format better than hand-written code would.
# Test-only packages come from tools/test.sh (KP_EXTRA_PACKAGES), so the quick start does not pay for them.
packages+=(${KP_EXTRA_PACKAGES:-})
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd=sudo
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}"
fi
echo "setup: configuring and building in $build"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release > "$build.cmake.log" 2>&1 ||
  { cat "$build.cmake.log"; exit 1; }
cmake --build "$build" -j"$(nproc)" "${targets[@]}"
