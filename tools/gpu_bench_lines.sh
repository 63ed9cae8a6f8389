#!/usr/bin/env bash
# On the GPU machine: the suite of the line preconditioners (issue 46). anisotropic3d 96^3
# with the strong direction along x and along z at ratios 1e-2, 1e-3, 1e-4 and 1e-6,
# layered3d 96^3 with contrast 1e6, stretched3d 96^3 with cell aspect 1000 at the wall,
# rotated3d 96^3 (strong along the x-y diagonal) at ratios 1e-2, 1e-3 and 1e-6, each with
# jacobi, ic0 (greedy colors, and level-cyclic with 8 colors), line_jacobi, line_ic and auto
# (what preconditioner: auto picks: its iterations are those of ic0-color or line_ic), and
# CuPy's CG with Jacobi on the same matrices. Writes lines.json, cupy.json, bench.log,
# table.md and run_info.json to $OUT (or out/bench_lines).
#   device run:  bash tools/gpu_bench_lines.sh
# REPEATS=N timed solves per configuration (default 3); CONFIGS=a,b,... replaces the list.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${OUT:-$root/out/bench_lines}
problems=$(mktemp -d /tmp/prism_lines.XXXXXX)
mkdir -p "$out"
cd "$root" || exit 1
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DPRISM_WITH_CUDA=ON -DPRISM_BUILD_BENCHMARKS=ON >/dev/null || exit 1
cmake --build build-gpu -j 16 --target bench_pcg >/dev/null || exit 1

# problem NAME MATRIX: one benchmark file, b = A*1, x0 = 0, tolerance 1e-8.
problem() {
  printf 'name: %s\nmatrix: %s\nrhs: manufactured\nsolver: {tolerance: 1.0e-8, max_iterations: 20000}\n' \
    "$1" "$2" >"$problems/$1.yaml"
}
for ratio in 1e-2 1e-3 1e-4 1e-6; do
  problem "aniso_x_$ratio" "{generator: anisotropic3d, nx: 96, ny: 96, nz: 96, coefficients: [1.0, $ratio, $ratio]}"
  problem "aniso_z_$ratio" "{generator: anisotropic3d, nx: 96, ny: 96, nz: 96, coefficients: [$ratio, $ratio, 1.0]}"
done
problem layered_1e6 "{generator: layered3d, nx: 96, ny: 96, nz: 96, layers: 4, coefficients: [1.0, 1.0e6, 1.0, 1.0e6]}"
problem stretched_1000 "{generator: stretched3d, nx: 96, ny: 96, nz: 96, coefficients: [1000.0]}"
for ratio in 1e-2 1e-3 1e-6; do
  problem "rotated_$ratio" "{generator: rotated3d, nx: 96, ny: 96, nz: 96, coefficients: [1.0, $ratio, $ratio]}"
done

configs=${CONFIGS:-jacobi,ic0-color,ic0-cyclic8,line_jacobi,line_ic,auto}
dump=$(mktemp -d /tmp/prism_lines_dump.XXXXXX)
./build-gpu/tools/bench_pcg --repeats "${REPEATS:-3}" --no-eigen --configs "$configs" \
  --dump-dir "$dump" --json "$out/lines.json" "$problems"/*.yaml 2>&1 | tee "$out/bench.log"
PYTHONUNBUFFERED=1 python3 tools/bench_cupy.py "$dump" --configs cupy-jacobi \
  --json "$out/cupy.json" --repeats "${REPEATS:-3}" 2>&1 | tee -a "$out/bench.log"
python3 tools/perf_docs.py table "$out/lines.json" "$out/cupy.json" | tee "$out/table.md"
printf '{"date": "%s", "commit": "%s", "nvidia_smi": "%s", "command": "%s"}\n' "$(date -u +%F)" \
  "$(git rev-parse HEAD 2>/dev/null)" \
  "$(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | head -1)" \
  "${REPEATS:+REPEATS=$REPEATS }bash tools/gpu_bench_lines.sh" >"$out/run_info.json"
rm -rf "$problems" "$dump"
