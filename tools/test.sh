#!/usr/bin/env bash
# One command on a fresh machine: installs the dependencies, builds prism with its
# tests and runs them all with ctest. GPU tests skip themselves without a device.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bash "$root/tools/install_deps.sh"
bash "$root/tools/build.sh" -DPRISM_BUILD_TESTS=ON
ctest --test-dir "${PRISM_BUILD_DIR:-$root/build}" --output-on-failure -j "${PRISM_JOBS:-$(nproc)}"
