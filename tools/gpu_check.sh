#!/usr/bin/env bash
# On the GPU machine (everything is installed there; nothing is installed here):
# first the README's quick start exactly as a user runs it, `bash tools/run.sh` and
# `bash tools/test.sh` into their default build/ (QUICKSTART=0 skips it); then builds
# into build-gpu/ for sm_90, runs every test and the default problem, then
# compute-sanitizer over the GPU tests when SANITIZE names its tools (SANITIZE=memcheck,
# or "memcheck racecheck": tools/gpu_sanitize.sh; off by default, since it outlasts a
# 10-minute device call together with the rest), then the benchmark suite
# (tools/gpu_bench.sh; BENCH=0 skips it). Writes $OUT/quickstart.log (one line per command: exit status and
# seconds) with quickstart_run.log and quickstart_test.log, $OUT/check.log,
# $OUT/poisson3d.json and the benchmark's files ($OUT defaults to out/gpu).
#   device run (carry shared_data): bash tools/gpu_check.sh
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${OUT:-$root/out/gpu}
mkdir -p "$out"
cd "$root" || exit 1
status=0
if [ "${QUICKSTART:-1}" = 1 ]; then
  : >"$out/quickstart.log"
  for cmd in run test; do
    start=$SECONDS
    # As a user would: none of the build settings this script or its caller may set.
    env -u PRISM_BUILD_DIR -u PRISM_JOBS -u OUT bash "tools/$cmd.sh" \
      >"$out/quickstart_$cmd.log" 2>&1
    rc=$?
    echo "quickstart: bash tools/$cmd.sh: exit $rc after $((SECONDS - start)) s" \
      | tee -a "$out/quickstart.log"
    if [ $rc != 0 ]; then
      status=1
      tail -30 "$out/quickstart_$cmd.log"
    fi
  done
fi
{
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv
  cmake --version | head -1
  cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DPRISM_WITH_CUDA=ON -DPRISM_BUILD_BENCHMARKS=ON -DPRISM_SHARED_DIR="$root/shared_data" \
    >/dev/null || status=1
  cmake --build build-gpu -j 16 2>&1 | grep -E "error|warning|FAILED" || true
  ctest --test-dir build-gpu --output-on-failure -j 8 || status=1
  ./build-gpu/prism solve inputs/poisson3d.yaml --report "$out/poisson3d.json" --print-every 20 \
    || status=1
} >"$out/check.log" 2>&1
tail -40 "$out/check.log"
if [ -n "${SANITIZE:-}" ]; then
  # shellcheck disable=SC2086 # the tools' names, one word each
  OUT=$out bash tools/gpu_sanitize.sh $SANITIZE || status=1
fi
if [ "${BENCH:-1}" = 1 ]; then OUT=$out bash tools/gpu_bench.sh || status=1; fi
exit $status
