#!/usr/bin/env bash
# Configures and builds prism (Release) into build/ (or $PRISM_BUILD_DIR).
# Extra arguments go to CMake's configure step, e.g. -DPRISM_WITH_CUDA=OFF.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${PRISM_BUILD_DIR:-$root/build}
jobs=${PRISM_JOBS:-$(nproc)}
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
cmake --build "$build" -j "$jobs"
