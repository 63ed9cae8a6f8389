#!/usr/bin/env bash
# On the GPU machine: builds and runs the dense kernel issues' GPU tests (dense
# triangular, batched factorizations, tridiagonal) under `timeout`, a compute-sanitizer
# memcheck/racecheck pass on a subset, then their benchmarks. Logs and JSON go to $OUT
# (or out/kernels), with run_info.json (date, commit, GPU, command: for
# `tools/perf_docs.py import`). KERNELS="dense_triangular batched_factor tridiagonal"
# picks which; BENCH=0 skips the benchmarks, SANITIZE=0 the sanitizers.
#   device run: bash tools/gpu_kernels.sh
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${OUT:-$root/out/kernels}
mkdir -p "$out"
cd "$root"
kernels=${KERNELS:-dense_triangular batched_factor tridiagonal}
targets=""
for k in $kernels; do targets="$targets test_${k} test_${k}_cuda bench_${k}"; done
status=0
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DPRISM_WITH_CUDA=ON -DPRISM_BUILD_BENCHMARKS=ON >"$out/build.log" 2>&1 || exit 1
cmake --build build-gpu -j 16 --target $targets >>"$out/build.log" 2>&1 \
  || { tail -60 "$out/build.log"; exit 1; }
for k in $kernels; do
  log="$out/${k}.log"
  ./build-gpu/tests/test_${k} 2>&1 | tail -3 >"$log"
  timeout "${TEST_TIMEOUT:-300}" ./build-gpu/tests/test_${k}_cuda 2>&1 >>"$log" \
    || { echo "test_${k}_cuda failed or timed out (rc $?)" >>"$log"; status=1; }
  if [ "${SANITIZE:-1}" = 1 ]; then
    for tool in memcheck racecheck; do
      filter_var="SANITIZE_FILTER_${k}"
      timeout "${SANITIZE_TIMEOUT:-120}" compute-sanitizer --tool $tool --error-exitcode 3 \
        ./build-gpu/tests/test_${k}_cuda --gtest_filter="${!filter_var:-*}" 2>&1 \
        | grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED|Hazard|Invalid" | head -20 \
        | sed "s/^/[$tool] /" >>"$log"
    done
  fi
  grep -E "PASSED|FAILED|timed out|SUMMARY|\[  FAILED" "$log" | head -40
  if [ "${BENCH:-1}" = 1 ]; then
    timeout "${BENCH_TIMEOUT:-240}" ./build-gpu/tools/bench_${k} "$out/${k}.json" \
      >"$out/${k}_bench.log" 2>&1 || { echo "bench_${k} rc $?"; status=1; }
    tail -60 "$out/${k}_bench.log"
  fi
done
printf '{"date": "%s", "commit": "%s", "nvidia_smi": "%s", "command": "%s"}\n' "$(date -u +%F)" \
  "$(git rev-parse HEAD 2>/dev/null)" \
  "$(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | head -1)" \
  "${KERNELS:+KERNELS=\\\"$KERNELS\\\" }bash tools/gpu_kernels.sh" >"$out/run_info.json"
exit $status
