#!/usr/bin/env bash
# compute-sanitizer over the GPU tests of a CUDA build (default build-gpu/): memcheck on
# every CUDA test executable (out-of-bounds and misaligned accesses, leaks of device
# memory, failing API calls), racecheck and synccheck on the kernels that share memory
# between threads (color-set solves and factorization, batched factors, dense
# triangular solves, tridiagonal solves, block IC(0) factorization). Arguments pick the
# tools (default: all three).
# The sanitizers slow the tests 10 to 100 times: by default the largest cases are left
# out; SANITIZE_FULL=1 runs every test. Measured on an H200: memcheck of all of
# test_cuda_backend 275 s, of all of test_tridiagonal_cuda 213 s; racecheck of
# CudaBackendTest.ColorsetSolveInPlaceEqualsOutOfPlace 35 s, of
# ColorsetTriangularSolvesAreEquivalentToReference more than 6 minutes. A device call
# lasts at most 10 minutes, so run one tool per call (and racecheck with a filter:
# GTEST_FILTER=... bash tools/gpu_sanitize.sh racecheck). One line per run goes to $OUT/sanitize.log (tool,
# executable, exit status, the sanitizer's error summary, seconds); the full output to
# $OUT/sanitize_<tool>_<executable>.log. Exit 1 if any run reports an error.
#   device run: bash tools/gpu_sanitize.sh [memcheck] [racecheck] [synccheck]
#               (after tools/gpu_check.sh built build-gpu)
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${PRISM_BUILD_DIR:-$root/build-gpu}
out=${OUT:-$root/out/gpu}
mkdir -p "$out"
: >"$out/sanitize.log"
status=0

tools=${*:-memcheck racecheck synccheck}
full=${SANITIZE_FULL:-0}

# run TOOL EXECUTABLE [GTEST_FILTER]: the filter applies unless SANITIZE_FULL=1.
run() {
  local tool=$1 exe=$2 filter=${3:-*}
  [[ " $tools " == *" $tool "* ]] || return 0
  [ "$full" = 1 ] && filter='*'
  [ -n "${GTEST_FILTER:-}" ] && filter=$GTEST_FILTER
  # An executable with no test in the filter has nothing to check (and compute-sanitizer
  # fails one that makes no CUDA call).
  "$build/tests/$exe" --gtest_filter="$filter" --gtest_list_tests | grep -q '^  ' || return 0
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

big='TridiagonalCuda.OneHugeSystem:TridiagonalCuda.MillionSystems'
run memcheck test_cuda_backend 'CudaBackendTest.*:GpuSolveRefactor.*:GpuSolveGraph.*:CudaBlockIc*'
run memcheck test_tridiagonal_cuda "*:-$big"
run memcheck test_dense_triangular_cuda
run memcheck test_batched_factor_cuda
run memcheck test_bsr_cuda
run memcheck test_setup_cuda
run memcheck test_cuda_line_ic_setup 'CudaLineIcSetup.*'
run memcheck test_cuda_block_coloring 'BlockColoringCuda.*'
run memcheck test_cuda_choice_scans 'ChoiceScansCuda.*IsEquivalentToReference:ChoiceScansCuda.Session*'
# Kernels that share memory between threads, at their small and awkward sizes.
run racecheck test_cuda_backend 'CudaBackendTest.Colorset*:CudaBackendTest.*Ic0*:CudaBlockIcKernels.*'
run racecheck test_tridiagonal_cuda \
  'TridiagonalCuda.PlantedCases:TridiagonalCuda.*PathEdges*:TridiagonalCuda.SeveralWarps*:TridiagonalCuda.ClusterOnePass*'
run racecheck test_batched_factor_cuda 'BatchedFactorCuda.Potrf*'
run racecheck test_dense_triangular_cuda 'DenseTrsvCuda*'
run synccheck test_cuda_backend 'CudaBackendTest.Colorset*:CudaBackendTest.*Ic0*:CudaBlockIcKernels.*'
exit $status
