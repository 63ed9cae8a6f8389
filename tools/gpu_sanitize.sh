#!/usr/bin/env bash
# compute-sanitizer over the GPU tests of a CUDA build (default build-gpu/): memcheck on
# every CUDA test executable (out-of-bounds and misaligned accesses, leaks of device
# memory, failing API calls), racecheck and synccheck on the kernels that share memory
# between threads (color-set solves and factorization, batched factors, dense
# triangular solves, tridiagonal solves). One line per run goes to $OUT/sanitize.log
# (tool, executable, exit status, the sanitizer's error summary, seconds); the full
# output to $OUT/sanitize_<tool>_<executable>.log. Exit 1 if any run reports an error.
#   device run: bash tools/gpu_sanitize.sh        (after tools/gpu_check.sh built build-gpu)
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${PRISM_BUILD_DIR:-$root/build-gpu}
out=${OUT:-$root/out/gpu}
mkdir -p "$out"
: >"$out/sanitize.log"
status=0

# run TOOL EXECUTABLE [GTEST_FILTER]
run() {
  local tool=$1 exe=$2 filter=${3:-*}
  local log="$out/sanitize_${tool}_${exe}.log" start=$SECONDS extra=()
  [ "$tool" = memcheck ] && extra=(--leak-check full)
  compute-sanitizer --tool "$tool" "${extra[@]}" --error-exitcode 3 \
    "$build/tests/$exe" --gtest_filter="$filter" >"$log" 2>&1
  local rc=$?
  local summary
  summary=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$log" | tail -1)
  echo "$tool $exe: exit $rc, ${summary:-no summary}, $((SECONDS - start)) s" \
    | tee -a "$out/sanitize.log"
  if [ $rc != 0 ]; then
    status=1
    tail -20 "$log"
  fi
}

for exe in test_cuda_backend test_tridiagonal_cuda test_dense_triangular_cuda \
  test_batched_factor_cuda; do
  run memcheck "$exe"
done
# Shared-memory kernels; racecheck is slow, so the small and awkward sizes only.
run racecheck test_cuda_backend 'CudaBackendTest.*'
run racecheck test_tridiagonal_cuda
run racecheck test_batched_factor_cuda
run racecheck test_dense_triangular_cuda 'DenseTrsvCuda*:DenseTriangularCuda.*'
run synccheck test_cuda_backend 'CudaBackendTest.*'
exit $status
