#!/usr/bin/env bash
# On the GPU machine's host (the GPU is not used): the cpu backend's threaded kernels
# against its reference kernels and Eigen's IncompleteCholesky CG (--eigen-threads 16) on
# Poisson3D 128^3, G3_circuit and elasticity3d 40^3, configurations jacobi and ic0-color
# (the layouts auto picks), jacobi-csr and jacobi-sell (the CSR and the SELL-8 SpMV),
# ic0-color-csr-vector and ic0-color-sell (SpMV and color-set solves both CSR, both
# SELL-8), with the host copy bandwidth bench_pcg measures as the bound. Built without CUDA (only bench_pcg, on the host). Writes cpu.json,
# bench.log, table.md and run_info.json to $OUT (or out/bench_cpu).
#   device run (carry shared_data, for G3_circuit):  bash tools/gpu_bench_cpu.sh
# First the threaded kernels and Eigen on every problem, then the reference kernels (one
# thread: most of the run) with REFERENCE_CONFIGS (default ic0-color; their SpMV is CSR
# whatever spmv says, so jacobi-csr and jacobi-sell would repeat jacobi) on
# REFERENCE_PROBLEMS (default all three), each skipped once the run has lasted
# REFERENCE_DEADLINE seconds (default 330); cpu.json is rewritten after every problem.
# REPEATS=N timed solves per configuration (default 1); CONFIGS=a,b,... and PROBLEMS="a.yaml
# b.yaml" replace the lists;
# EIGEN_THREADS (default 16); EIGEN=0 leaves Eigen out (its solves take about 3 minutes), e.g.
# for the reference rows alone: EIGEN=0 CONFIGS=ic0-color,jacobi-csr bash tools/gpu_bench_cpu.sh. About 6 minutes on a 16-core host, estimated from Poisson3D
# 64^3 on 2 cores.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${OUT:-$root/out/bench_cpu}
parts=$(mktemp -d /tmp/prism_bench_cpu.XXXXXX)
mkdir -p "$out"
cd "$root"
cmake -S . -B build-cpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DPRISM_WITH_CUDA=OFF \
  -DPRISM_BUILD_BENCHMARKS=ON -DPRISM_BUILD_TESTS=OFF >/dev/null || exit 1
cmake --build build-cpu -j "$(nproc)" --target bench_pcg >/dev/null || exit 1

# Threads stay on their cores, so that the pages each first touched stay local.
export OMP_PROC_BIND=${OMP_PROC_BIND:-close} OMP_PLACES=${OMP_PLACES:-cores}
problems=${PROBLEMS:-tools/bench/poisson3d_128.yaml tools/bench/g3_circuit.yaml tools/bench/elasticity3d_40.yaml}
: >"$out/bench.log"
n=0
merge() {  # every part so far into one cpu.json
  python3 - "$out/cpu.json" "$parts"/*.json <<'EOF_PY'
import json, sys
results = []
for path in sys.argv[2:]:
    results += json.load(open(path, encoding="utf-8"))["results"]
json.dump({"schema": "prism.bench_pcg/1", "results": results},
          open(sys.argv[1], "w", encoding="utf-8"), indent=1)
EOF_PY
}
bench() {  # PROBLEM KERNELS CONFIGS [bench_pcg options]
  local p=$1 kernels=$2 configs=$3
  shift 3
  n=$((n + 1))
  ./build-cpu/tools/bench_pcg --backend cpu --cpu-kernels "$kernels" --repeats "${REPEATS:-1}" \
    --configs "$configs" --json "$parts/$(printf %02d $n).json" "$@" "$p" 2>&1 |
    tee -a "$out/bench.log"
  merge
}
for p in $problems; do
  if [ "${EIGEN:-1}" = 0 ]; then eigen=(--no-eigen); else eigen=(--eigen-threads "${EIGEN_THREADS:-16}"); fi
  bench "$p" threaded \
    "${CONFIGS:-jacobi,jacobi-csr,jacobi-sell,ic0-color,ic0-color-csr-vector,ic0-color-sell}" \
    "${eigen[@]}"
done
for p in ${REFERENCE_PROBLEMS:-$problems}; do
  if [ "$SECONDS" -ge "${REFERENCE_DEADLINE:-330}" ]; then
    echo "gpu_bench_cpu: reference rows of $p skipped (${SECONDS} s into the run)" |
      tee -a "$out/bench.log"
    continue
  fi
  bench "$p" reference "${REFERENCE_CONFIGS:-ic0-color}" --no-eigen
done
python3 tools/perf_docs.py table "$out/cpu.json" | tee "$out/table.md"
cpu=$(lscpu | sed -n 's/^Model name: *//p' | head -1)
printf '{"date": "%s", "commit": "%s", "gpu": "%s", "command": "%s"}\n' "$(date -u +%F)" \
  "$(git rev-parse HEAD 2>/dev/null)" \
  "host of the GPU machine: $cpu, $(nproc) cores, OMP_PROC_BIND=$OMP_PROC_BIND" \
  "${REPEATS:+REPEATS=$REPEATS }${EIGEN:+EIGEN=$EIGEN }${CONFIGS:+CONFIGS=$CONFIGS }bash tools/gpu_bench_cpu.sh" >"$out/run_info.json"
rm -rf "$parts"
