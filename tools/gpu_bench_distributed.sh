#!/usr/bin/env bash
# On a GPU machine with several GPUs of one host: the distributed PCG (issue 50) on 1..GPUS
# GPUs, one MPI rank per GPU (rank r on device r), `mpirun -np G prism solve` with
# PRISM_DISTRIBUTED=1 so that G = 1 runs the same distributed code.
#   weak scaling:   Poisson3D 7-point, 128 x 128 x (128 G) (about 2.1M unknowns per GPU)
#   strong scaling: elasticity3d N x N x N hexahedra (N = ELASTICITY_N, default 190: about
#                   20.8M unknowns), the same problem on 1..GPUS GPUs
# Each configuration runs twice: solver.timing total (the time per iteration: nothing waits
# inside the iteration) and phases (each rank waits at each phase's end to time it: the
# communication share, halo and reductions, the slowest rank's). Iterations to 1e-8.
# Writes distributed.json (the rows docs/distributed.md's table is made from: `python3
# tools/perf_docs.py import $OUT --commit SHA`), table.md, runs/*.json (the solve reports),
# bench.log and run_info.json to $OUT (or out/bench_distributed).
#   device run:  GPUS=2 bash tools/gpu_bench_distributed.sh
# GPUS (default: every GPU nvidia-smi lists), ELASTICITY_N, POISSON_N (the per-GPU cube,
# default 128), PRECONDITIONER (default ic0, each rank's block), TRANSPORT (auto | nccl |
# mpi, default auto), CG_VARIANT (default auto), TIMINGS (default "total phases"),
# STRONG_TIMINGS (the strong problem's, default TIMINGS: "phases" alone halves its cost, and
# its time per iteration is then the phase-timed one, the table says so),
# SKIP_STRONG=1 / SKIP_WEAK=1, BUILD (default /tmp/prism-build-distributed), OPTIONS (more
# `-o key=value` for every solve, e.g. "-o solver.setup=host").
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${OUT:-$root/out/bench_distributed}
build=${BUILD:-/tmp/prism-build-distributed}
gpus=${GPUS:-$(nvidia-smi -L | wc -l)}
poisson_n=${POISSON_N:-128}
elasticity_n=${ELASTICITY_N:-190}
preconditioner=${PRECONDITIONER:-ic0}
transport=${TRANSPORT:-auto}
variant=${CG_VARIANT:-auto}
timings=${TIMINGS:-total phases}
problems=$(mktemp -d /tmp/prism_distributed.XXXXXX)
mkdir -p "$out/runs"
cd "$root" || exit 1
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DPRISM_WITH_CUDA=ON -DPRISM_WITH_MPI=ON -DPRISM_BUILD_TESTS=OFF >"$out/configure.log" 2>&1 ||
  { tail -20 "$out/configure.log"; exit 1; }
grep 'prism:' "$out/configure.log"
cmake --build "$build" -j 16 --target prism >"$out/build.log" 2>&1 ||
  { tail -30 "$out/build.log"; exit 1; }

# problem NAME MATRIX: b = A*1, x0 = 0, tolerance 1e-8; check: none (the generators build
# SPD matrices; the whole-matrix check on rank 0 would only add set-up time).
problem() {
  printf 'name: %s\nmatrix: %s\nrhs: manufactured\nbackend: cuda\n' "$1" "$2" >"$problems/$1.yaml"
  printf 'solver: {tolerance: 1.0e-8, max_iterations: 20000, check: none}\n' >>"$problems/$1.yaml"
  printf 'preconditioner: {type: %s}\n' "$preconditioner" >>"$problems/$1.yaml"
}

# run NAME GPUS TIMING: one solve; its report in runs/NAME_gG_TIMING.json.
run() {
  local report="$out/runs/$1_g$2_$3.json"
  echo "== $1 on $2 GPU(s), timing $3" | tee -a "$out/bench.log"
  # Unbound ranks, each with its share of the cores for the host work of the set-up.
  mpirun --allow-run-as-root -np "$2" --bind-to none -x PRISM_DISTRIBUTED=1 \
    -x PRISM_HOST_THREADS=$(($(nproc) / $2 > 0 ? $(nproc) / $2 : 1)) \
    "$build/prism" solve "$problems/$1.yaml" -o "output.report=$report" \
    -o "solver.timing=$3" -o "solver.transport=$transport" -o "solver.cg_variant=$variant" ${OPTIONS:-} \
    2>&1 | tee -a "$out/bench.log" | grep -E 'status|iterations|ranks|communication|error' || true
}

if [ "${SKIP_WEAK:-0}" != 1 ]; then
  for g in $(seq 1 "$gpus"); do
    problem "poisson_weak_$g" \
      "{generator: poisson3d, nx: $poisson_n, ny: $poisson_n, nz: $((poisson_n * g)), stencil: 7}"
    for t in $timings; do run "poisson_weak_$g" "$g" "$t"; done
  done
fi
if [ "${SKIP_STRONG:-0}" != 1 ]; then
  problem elasticity_strong "{generator: elasticity3d, nx: $elasticity_n, ny: $elasticity_n, \
nz: $elasticity_n, layers: 2, coefficients: [1.0, 100.0]}"
  for g in $(seq 1 "$gpus"); do
    for t in ${STRONG_TIMINGS:-$timings}; do run elasticity_strong "$g" "$t"; done
  done
fi

gpu_name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
python3 - "$out" "$gpu_name" "$gpus" "$preconditioner" <<'EOF'
import glob, json, os, re, sys
out = sys.argv[1]
runs = {}
for path in sorted(glob.glob(os.path.join(out, "runs", "*.json"))):
    m = re.match(r"(.*)_g(\d+)_(total|phases)\.json$", os.path.basename(path))
    if not m:
        continue
    with open(path) as f:
        r = json.load(f)
    name = re.sub(r"_\d+$", "", m.group(1))  # poisson_weak_2 -> poisson_weak
    key = (name, int(m.group(2)))
    d = r.get("distributed", {})
    res = r["summary"]
    entry = runs.setdefault(key, {"problem": name, "gpus": int(m.group(2)),
                                  "rows": r["matrix"]["rows"], "nnz": r["matrix"]["nnz"],
                                  "transport": d.get("transport", "")})
    its = res.get("iterations")
    secs = res.get("solve_seconds")
    t = m.group(3)
    entry[f"iterations_{t}"] = its
    entry[f"status_{t}"] = res.get("status")
    entry[f"solve_seconds_{t}"] = secs
    entry[f"seconds_per_iteration_{t}"] = secs / its if its else None
    if t == "phases":
        s = d.get("slowest_rank_seconds", {})
        entry["communication_share"] = d.get("communication_share")
        entry["halo_seconds"] = s.get("halo")
        entry["reductions_seconds"] = s.get("reductions")
rows = [runs[k] for k in sorted(runs)]
for e in runs.values():  # without a total-timed solve, the phase-timed one's time
    if e.get("seconds_per_iteration_total") is None and e.get("seconds_per_iteration_phases"):
        for f in ("iterations", "solve_seconds", "seconds_per_iteration", "status"):
            e[f + "_total"] = e.get(f + "_phases")
        e["timed_by"] = "phases"
for e in rows:  # scaling against the same problem family on 1 GPU
    base = runs.get((e["problem"], 1))
    key = "seconds_per_iteration_total"
    if base and base.get(key) and e.get(key):
        ratio = base[key] / e[key]
        if e["problem"].endswith("weak"):
            e["weak_efficiency"] = ratio  # same rows per GPU: ideal time per iteration is 1 GPU's
        else:
            e["strong_speedup"] = ratio
            tb = base.get("solve_seconds_total")
            if tb and e.get("solve_seconds_total"):
                e["strong_speedup_time_to_solution"] = tb / e["solve_seconds_total"]
body = {"schema": "prism.bench_distributed/1", "gpu": sys.argv[2], "gpus": int(sys.argv[3]),
        "preconditioner": sys.argv[4], "results": rows}
with open(os.path.join(out, "distributed.json"), "w") as f:
    json.dump(body, f, indent=2)
def fmt(v, spec):
    return "" if v is None else format(v, spec)
lines = ["| problem | GPUs | rows | transport | iterations | ms / iteration | solve s | "
         "weak eff. / strong speed-up | communication (halo, reductions) |",
         "|---|---|---|---|---|---|---|---|---|"]
for e in rows:
    scale = e.get("weak_efficiency", e.get("strong_speedup"))
    comm = e.get("communication_share")
    comm_text = "" if comm is None else (
        f"{100 * comm:.1f}% ({fmt(1e3 * e['halo_seconds'], '.1f')} ms, "
        f"{fmt(1e3 * e['reductions_seconds'], '.1f')} ms)")
    spi = e.get("seconds_per_iteration_total")
    lines.append(f"| {e['problem']} | {e['gpus']} | {e['rows']} | {e['transport']} | "
                 f"{e.get('iterations_total', '')} | {fmt(spi * 1e3 if spi else None, '.3f')} | "
                 f"{fmt(e.get('solve_seconds_total'), '.2f')} | {fmt(scale, '.3f')} | {comm_text} |")
table = "\n".join(lines) + "\n"
with open(os.path.join(out, "table.md"), "w") as f:
    f.write(table)
print(table)
EOF
printf '{"date": "%s", "commit": "%s", "gpus": %s, "nvidia_smi": "%s", "topology": "%s", "command": "%s"}\n' \
  "$(date -u +%F)" "$(git rev-parse HEAD 2>/dev/null)" "$gpus" \
  "$(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | head -1)" \
  "$(nvidia-smi topo -m 2>/dev/null | head -3 | tr '\n\t' '  ' | tr -cd '[:print:]' | sed 's/\[[0-9]*m//g')" \
  "GPUS=$gpus bash tools/gpu_bench_distributed.sh" >"$out/run_info.json"
rm -rf "$problems"
