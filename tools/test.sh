#!/usr/bin/env bash
# One command on a fresh machine: installs what is missing of the dependencies
# (tools/install_deps.sh), builds prism with its tests and runs them all with ctest.
# GPU tests skip themselves without a device. Arguments go to CMake's configure step
# (bash tools/test.sh -DPRISM_WITH_CUDA=OFF); PRISM_BUILD_DIR (default build/) and
# PRISM_JOBS (default: all cores) as in tools/build.sh.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bash "$root/tools/install_deps.sh"
bash "$root/tools/build.sh" -DPRISM_BUILD_TESTS=ON "$@"
ctest --test-dir "${PRISM_BUILD_DIR:-$root/build}" --output-on-failure -j "${PRISM_JOBS:-$(nproc)}"
