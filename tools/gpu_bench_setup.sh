#!/usr/bin/env bash
# On the GPU machine: set-up against solve (issue 47). bench_pcg on the PCG suite (matrix
# in memory): default (a problem file's defaults: preconditioner auto, its choice and the
# coloring on the GPU, the storage built on the GPU from the kept ordered matrix),
# default-hostsetup (the same with solver.setup: host: the storage built on the host and
# uploaded), ic0-color-pgreedy (ic0 itself), block_ic and line_ic with their host-built
# twins (-hostsetup); each set-up step (SetupReport), the colors, iterations and time to
# 1e-8. Set-up times are medians of SETUP_REPEATS set-ups (default 3) of one solver; the
# first of them (a process's first set-up, which also pays the device's first calls) is
# kept apart. Writes setup.json, bench.log, table.md (one row per problem and
# configuration) and run_info.json to $OUT (or out/bench_setup).
#   device run (carry shared_data, for G3_circuit):  bash tools/gpu_bench_setup.sh
# REPEATS=N timed solves per configuration (default 3); CONFIGS=a,b,... replaces the list;
# PROBLEMS="a.yaml b.yaml" replaces the problems; BUILD=DIR builds there (default build-gpu).
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${OUT:-$root/out/bench_setup}
mkdir -p "$out"
cd "$root" || exit 1
build=${BUILD:-build-gpu}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DPRISM_WITH_CUDA=ON -DPRISM_BUILD_BENCHMARKS=ON >/dev/null || exit 1
cmake --build "$build" -j 16 --target bench_pcg >/dev/null || exit 1

problems=${PROBLEMS:-tools/bench/poisson3d_128.yaml tools/bench/poisson2d_1024.yaml tools/bench/g3_circuit.yaml tools/bench/elasticity3d_40.yaml tools/bench/anisotropic3d_96.yaml}
if [ ! -f shared_data/matrices/G3_circuit.mtx.gz ]; then
  echo "note: shared_data/matrices/G3_circuit.mtx.gz is absent (carry shared_data); G3_circuit is skipped" |
    tee "$out/bench.log"
  problems=${problems//tools\/bench\/g3_circuit.yaml/}
fi
configs=${CONFIGS:-default,default-hostsetup,ic0-color-pgreedy,block_ic,block_ic-hostsetup,line_ic,line_ic-hostsetup}
# shellcheck disable=SC2086
"$build"/tools/bench_pcg --backend cuda --repeats "${REPEATS:-3}" --no-eigen \
  --setup-repeats "${SETUP_REPEATS:-3}" --configs "$configs" --json "$out/setup.json" $problems 2>&1 | tee -a "$out/bench.log"

python3 - "$out/setup.json" <<'PY' | tee "$out/table.md"
import json, sys
rows = json.load(open(sys.argv[1]))
rows = rows.get("results", rows) if isinstance(rows, dict) else rows
ms = lambda v: "–" if v is None else f"{1e3 * v:.1f}"
steps = ["check", "coloring", "permutation", "analysis", "factorization", "upload", "total"]
print("| problem | config | colors | " + " | ".join(f"{s} ms" for s in steps) +
      " | setup wall ms | first set-up ms | iterations | solve ms (1e-8) | ms/iteration | set-up / solve |")
print("|" + "---|" * (len(steps) + 9))
for r in rows:
    st = r.get("setup", {}).get("steps", {})
    its = r.get("iterations", 0)
    solve = r.get("solve_seconds_median")
    print(f"| {r.get('problem')} | {r.get('config')} | {r.get('colors')} | " +
          " | ".join(ms(st.get(f"{s}_seconds")) for s in steps) +
          f" | {ms(r.get('setup', {}).get('wall_seconds'))}" +
          f" | {ms(r.get('setup', {}).get('first_wall_seconds'))} | {its} | {ms(solve)} | " +
          (f"{1e3 * solve / its:.3f}" if solve and its else "–") + " | " +
          (f"{wall / solve:.2f}" if (wall := r.get("setup", {}).get("wall_seconds")) and solve
           else "–") + " |")
PY
printf '{"date": "%s", "commit": "%s", "nvidia_smi": "%s", "command": "%s"}\n' "$(date -u +%F)" \
  "$(git rev-parse HEAD 2>/dev/null)" \
  "$(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | head -1)" \
  "${REPEATS:+REPEATS=$REPEATS }bash tools/gpu_bench_setup.sh" >"$out/run_info.json"
