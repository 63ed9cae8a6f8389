#!/usr/bin/env bash
# On the GPU machine: the FEM suite of the block preconditioner. elasticity3d 24^3 and
# 40^3, bcsstk13, and matrices the suite does not generate (tools/unseen_matrices.py at
# scale 3: tet_elasticity, its row-scaled twin, shell6) with jacobi, ic0 (greedy and
# level-cyclic colorings), block_ic (node blocks in double and mixed precision, supernodes
# of 12 and 24 rows; each with the inverted diagonal blocks and with -trsv), and CuPy CG with Jacobi on the same matrices. Writes fem.json,
# cupy_fem.json, bench.log, table.md and run_info.json to $OUT (or out/bench_fem).
#   device run (carry shared_data):  bash tools/gpu_bench_fem.sh [PROBLEM.yaml ...]
# REPEATS=N timed solves per configuration (default 3); CONFIGS=a,b,... replaces the list.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${OUT:-$root/out/bench_fem}
args=$*
mkdir -p "$out" /tmp/prism_fem_dump /tmp/prism_unseen
cd "$root"
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DPRISM_WITH_CUDA=ON -DPRISM_BUILD_BENCHMARKS=ON >/dev/null || exit 1
cmake --build build-gpu -j 16 --target bench_pcg >/dev/null || exit 1
if [ $# -eq 0 ]; then
  set -- tools/bench/elasticity3d_24.yaml tools/bench/elasticity3d_40.yaml tools/bench/bcsstk13.yaml
  if python3 tools/unseen_matrices.py /tmp/prism_unseen --scale 3 \
    --only tet_elasticity,tet_elasticity_scaled,shell6; then
    set -- "$@" /tmp/prism_unseen/tet_elasticity-ic0.yaml \
      /tmp/prism_unseen/tet_elasticity_scaled-ic0.yaml /tmp/prism_unseen/shell6-ic0.yaml
  else
    echo "gpu_bench_fem: no unseen matrices (tools/unseen_matrices.py needs NumPy and SciPy)"
  fi
fi
configs=${CONFIGS:-jacobi,ic0-color,ic0-cyclic8,block_ic,block_ic-mixed,block_ic-sn12,block_ic-sn24,block_ic-trsv,block_ic-trsv-mixed,block_ic-sn12-trsv,block_ic-sn24-trsv}
./build-gpu/tools/bench_pcg --repeats "${REPEATS:-3}" --no-eigen --configs "$configs" \
  --json "$out/fem.json" --dump-dir /tmp/prism_fem_dump "$@" 2>&1 | tee "$out/bench.log"
PYTHONUNBUFFERED=1 python3 tools/bench_cupy.py /tmp/prism_fem_dump --json "$out/cupy_fem.json" \
  --repeats "${REPEATS:-3}" 2>&1 | tee -a "$out/bench.log"
python3 tools/perf_docs.py table "$out/fem.json" "$out/cupy_fem.json" | tee "$out/table.md"
printf '{"date": "%s", "commit": "%s", "nvidia_smi": "%s", "command": "%s"}\n' "$(date -u +%F)" \
  "$(git rev-parse HEAD 2>/dev/null)" \
  "$(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | head -1)" \
  "${REPEATS:+REPEATS=$REPEATS }bash tools/gpu_bench_fem.sh${args:+ $args}" >"$out/run_info.json"
