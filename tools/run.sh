#!/usr/bin/env bash
# One command on a fresh machine: installs what is missing of the dependencies
# (tools/install_deps.sh), builds prism and solves the default problem
# (inputs/poisson3d.yaml; the GPU when present, else the CPU). Any arguments replace
# the default problem: tools/run.sh inputs/poisson2d.yaml. PRISM_BUILD_DIR (default
# build/) and PRISM_JOBS (default: all cores) as in tools/build.sh.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bash "$root/tools/install_deps.sh"
bash "$root/tools/build.sh"
cd "$root"
if [ $# -eq 0 ]; then set -- inputs/poisson3d.yaml; fi
exec "${PRISM_BUILD_DIR:-$root/build}/prism" solve "$@"
