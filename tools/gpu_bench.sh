#!/usr/bin/env bash
# On the GPU machine: builds the benchmarks and runs the PCG suite (tools/bench/*.yaml)
# with prism on the GPU, Eigen's IC-CG on the CPU and CuPy CG in the same run, then the
# triangular solves alone (bench_trisolve); writes JSON, logs, a markdown table and
# run_info.json (date, commit, GPU, command: for `tools/perf_docs.py import`) to $OUT
# (or out/bench).
#   device run (carry shared_data):  bash tools/gpu_bench.sh [PROBLEM.yaml ...]
# REPEATS=N timed solves per configuration (default 5); NO_EIGEN=1 skips the Eigen
# peer, which takes about 4 minutes of CPU time on the default suite.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${OUT:-$root/out/bench}
args=$*
mkdir -p "$out" /tmp/prism_dump
cd "$root"
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DPRISM_WITH_CUDA=ON -DPRISM_BUILD_BENCHMARKS=ON >/dev/null || exit 1
cmake --build build-gpu -j 16 --target bench_pcg bench_trisolve >/dev/null || exit 1
if [ $# -eq 0 ]; then set -- tools/bench/poisson3d_128.yaml tools/bench/poisson2d_1024.yaml \
  tools/bench/g3_circuit.yaml tools/bench/elasticity3d_40.yaml; fi
./build-gpu/tools/bench_pcg --repeats "${REPEATS:-5}" --json "$out/prism.json" \
  --dump-dir /tmp/prism_dump ${NO_EIGEN:+--no-eigen} "$@" 2>&1 | tee "$out/bench.log"
PYTHONUNBUFFERED=1 python3 tools/bench_cupy.py /tmp/prism_dump --json "$out/cupy.json" \
  --repeats "${REPEATS:-5}" 2>&1 | tee -a "$out/bench.log"
./build-gpu/tools/bench_trisolve --json "$out/trisolve.json" "$@" 2>&1 | tee -a "$out/bench.log"
python3 tools/perf_docs.py table "$out/prism.json" "$out/cupy.json" "$out/trisolve.json" \
  | tee "$out/table.md"
printf '{"date": "%s", "commit": "%s", "nvidia_smi": "%s", "command": "%s"}\n' "$(date -u +%F)" \
  "$(git rev-parse HEAD 2>/dev/null)" \
  "$(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | head -1)" \
  "${NO_EIGEN:+NO_EIGEN=1 }${REPEATS:+REPEATS=$REPEATS }bash tools/gpu_bench.sh${args:+ $args}" \
  >"$out/run_info.json"
