#!/usr/bin/env bash
# On the GPU machine (everything is installed there; nothing is installed here):
# builds into build-gpu/ for sm_90, runs every test and the default problem, and
# writes logs to $OUT (or out/gpu when $OUT is unset).
#   device run: bash tools/gpu_check.sh
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${OUT:-$root/out/gpu}
mkdir -p "$out"
cd "$root"
{
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv
  cmake --version | head -1
} 2>&1 | tee "$out/machine.txt"
status=0
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DPRISM_WITH_CUDA=ON -DPRISM_SHARED_DIR="$root/shared_data" 2>&1 | tee "$out/configure.log" \
  || status=1
cmake --build build-gpu -j 16 2>&1 | tee "$out/build.log" | tail -3 || status=1
ctest --test-dir build-gpu --output-on-failure -j 8 2>&1 | tee "$out/ctest.log" | tail -15 \
  || status=1
./build-gpu/prism solve inputs/poisson3d.yaml --report "$out/poisson3d.json" 2>&1 \
  | tee "$out/poisson3d.log" | tail -25 || status=1
exit $status
