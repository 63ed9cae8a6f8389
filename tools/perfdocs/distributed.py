"""The distributed solver's scaling table (docs/distributed.md) from distributed.json,
which tools/gpu_bench_distributed.sh writes: one row per problem and GPU count."""
from .data import measured_line
from .fmt import f_pct, table

PROBLEMS = {
    "poisson_weak": "Poisson3D 7-point, 128 x 128 x 128 G (weak)",
    "elasticity_strong": "elasticity3d hexahedra (strong)",
}


def _f(v, spec):
    return "–" if v is None else format(v, spec)


def _comm(r):
    share = r.get("communication_share")
    if share is None:
        return "–"
    halo, reductions = r.get("halo_seconds"), r.get("reductions_seconds")
    return (f"{f_pct(100 * share)} (halo {_f(halo and 1e3 * halo, ',.1f')} ms, "
            f"reductions {_f(reductions and 1e3 * reductions, ',.1f')} ms)")


def distributed_table(rows):
    head = ["problem", "GPUs", "rows", "transport", "iterations to 1e-8", "ms / iteration",
            "solve, s", "per-iteration efficiency (weak) or speed-up (strong)",
            "time-to-solution speed-up", "communication share (slowest rank)"]
    out = []
    for r in rows:
        spi = r.get("seconds_per_iteration_total")
        scale = r.get("weak_efficiency", r.get("strong_speedup"))
        weak = r["problem"].endswith("weak")
        out.append([PROBLEMS.get(r["problem"], r["problem"]), r["gpus"], f"{r['rows']:,}",
                    r.get("transport", ""), _f(r.get("iterations_total"), "d"),
                    _f(spi and 1e3 * spi, ".3f") + (" (phases)" if r.get("timed_by") else ""),
                    _f(r.get("solve_seconds_total"), ".2f"),
                    _f(scale, ".2f") + (" eff." if weak and scale is not None else
                                        "x" if scale is not None else ""),
                    "–" if weak else _f(r.get("strong_speedup_time_to_solution"), ".2f") + "x",
                    _comm(r)])
    return table(head, out, "lrrlrrrrrl")


def distributed_block(data):
    if not (data.dir / "distributed.json").exists():
        return ("No scaling figures are published yet (no `distributed.json` in "
                "`docs/perf/data`; `tools/gpu_bench_distributed.sh` makes it).")
    body = data.get("distributed.json")
    extra = (f"{body['gpus']} GPUs of one host, one MPI rank per GPU, preconditioner "
             f"`{body.get('preconditioner', 'ic0')}` on each rank's block; time per iteration "
             "from `solver.timing: total` (marked \"(phases)\" where only the phase-timed "
             "solve ran, which waits at each phase's end), the communication share from the "
             "solve with `solver.timing: phases`")
    return measured_line(data, ["distributed.json"], extra) + "\n\n" + distributed_table(
        body["results"])
