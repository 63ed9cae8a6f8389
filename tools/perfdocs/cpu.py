"""The cpu backend's table (bench_pcg --backend cpu JSON from tools/gpu_bench_cpu.sh): per
problem, each configuration on the threaded and on the reference kernels and Eigen's
IncompleteCholesky CG: iterations, set-up, time to the tolerance, time per iteration, its
share of the host's measured bandwidth for the modeled bytes, and the speed-up over Eigen."""
from .fmt import f_ms, f_pct, f_x, table
from .pcg import config_rank, pcg_problems

REF_SUFFIX = "-ref"


def cpu_rank(r):
    """Threaded rows first, then the reference kernels' rows, then Eigen, each in the
    suite's configuration order."""
    name = r["config"]
    if r.get("backend") == "eigen":
        return (2, 0)
    if name.endswith(REF_SUFFIX):
        return (1, config_rank(name[:-len(REF_SUFFIX)]))
    return (0, config_rank(name))


def host_bandwidth_text(rows):
    """The host's copy and read bandwidths measured in the run (bench_pcg measures both
    since the read-only sum was added; older runs carry the copy alone, as the bound)."""
    def span(key):
        values = [r[key] / 1e9 for r in rows if r.get(key)]
        if not values:
            return None
        lo, hi = min(values), max(values)
        return f"{lo:,.0f}" if round(lo) == round(hi) else f"{lo:,.0f}–{hi:,.0f}"
    copy, read = span("host_copy_bandwidth_bytes_per_second"), span(
        "host_read_bandwidth_bytes_per_second")
    if copy and read:
        return (f"host copy bandwidth {copy} GB/s and read bandwidth {read} GB/s in the same "
                "run; the larger is the bound")
    bound = span("copy_bandwidth_bytes_per_second")
    return f"host copy bandwidth {bound} GB/s in the same run, the bound" if bound else ""


def kernels_text(r):
    if r.get("backend") == "eigen":
        return "Eigen " + r.get("device", "").replace("host CPU, ", "")
    device = r.get("device", "")
    if "(" in device:
        return device[device.index("(") + 1:device.rindex(")")]
    return r.get("cpu_kernels", "–")


def cpu_table(rows):
    out = []
    for problem, prs in pcg_problems(rows).items():
        prs.sort(key=cpu_rank)
        first = next((r for r in prs if r.get("rows")), prs[0])
        eigen = next((r for r in prs if r.get("backend") == "eigen"), None)
        out.append(f"**{problem}** ({first.get('rows', 0):,} rows, "
                   f"{first.get('nnz', 0):,} nonzeros)")
        out.append("")
        body = []
        for r in prs:
            it = str(r["iterations"]) + ("" if r.get("converged", True) else " (not converged)")
            solve = r.get("solve_seconds_median")
            per_it = solve / r["iterations"] if solve and r.get("iterations") else None
            speedup = None
            if eigen and solve and eigen.get("converged", True):
                speedup = eigen["solve_seconds_median"] / solve
            trisolve = r.get("trisolve") or "–"
            if trisolve == "colorset" and r.get("trisolve_layout"):
                trisolve += " " + r["trisolve_layout"]
            body.append([
                f"`{r['config']}`", kernels_text(r), r.get("spmv") or "–", trisolve, it, f_ms(r.get("setup", {}).get("wall_seconds")),
                f_ms(solve), "–" if per_it is None else f"{1e6 * per_it:,.1f}",
                f_pct(r.get("percent_of_bound")), f_x(speedup)])
        out.append(table(
            ["configuration", "kernels", "SpMV", "trisolve", "iterations", "set-up [ms]",
             "time to tolerance [ms]", "µs / iteration", "% of host bandwidth",
             "speed-up over Eigen (solve)"],
            body, "llllrrrrrr"))
        out.append("")
    return "\n".join(out).rstrip()
