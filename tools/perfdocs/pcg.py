"""Tables of the PCG suite (bench_pcg / bench_cupy JSON) and of one triangular solve
(bench_trisolve JSON): per-configuration results, per-phase times, set-up, triangular solve
and coloring."""
from .fmt import f_ms, f_pct, f_us, f_x, geomean, table


CONFIG_ORDER = ["none", "jacobi", "jacobi-csr", "jacobi-sell", "ic0-natural", "ic0-color-cusparse", "ic0-color-csr",
                "ic0-color-sell", "ic0-color-csr-vector", "ic0-color-launches", "ic0-color-replay", "ic0-color",
                "ic0-color-device-factor", "ic0-color-mixed", "ic0-cyclic8", "ic0-cyclic16",
                "ic0-cyclic8-mixed", "block_ic", "block_ic-mixed", "block_ic-sn12",
                "block_ic-sn24", "block_ic-sn48", "block_ic-sn24-mixed", "cupy-none",
                "cupy-jacobi", "eigen-ic-cg"]
DEFAULT_CONFIG = "ic0-color"
PHASES = ["spmv", "precond", "lower_solve", "upper_solve", "dot", "update"]
PHASE_NAMES = {"spmv": "SpMV", "precond": "preconditioner", "lower_solve": "lower solve",
               "upper_solve": "upper solve", "dot": "dots", "update": "updates"}


def config_rank(name):
    return CONFIG_ORDER.index(name) if name in CONFIG_ORDER else len(CONFIG_ORDER)


def pcg_problems(rows):
    """Problems in order of first appearance, each with its rows sorted by config."""
    problems = {}
    for r in rows:
        problems.setdefault(r["problem"], []).append(r)
    for p in problems.values():
        p.sort(key=lambda r: config_rank(r["config"]))
    return problems


def loop_kind(r):
    if r.get("backend") == "cupy":
        return "CuPy"
    if r.get("backend") == "cpu" or r["config"].startswith("eigen"):
        return "CPU"
    if r.get("device_loop"):
        return "graph, on device"
    if r.get("graph"):
        return "graph replay"
    return "kernel launches"


def bandwidths(rows):
    return [r["copy_bandwidth_bytes_per_second"] for r in rows
            if r.get("copy_bandwidth_bytes_per_second")]


def bandwidth_text(values):
    if not values:
        return ""
    lo, hi = min(values) / 1e9, max(values) / 1e9
    if round(lo) == round(hi):
        return f"copy bandwidth {lo:,.0f} GB/s in the same run"
    return f"copy bandwidth {lo:,.0f}–{hi:,.0f} GB/s in the same run"


def pcg_tables(rows):
    out = []
    for problem, prs in pcg_problems(rows).items():
        first = next((r for r in prs if r.get("rows")), prs[0])
        out.append(f"**{problem}** ({first.get('rows', 0):,} rows, "
                   f"{first.get('nnz', 0):,} nonzeros)")
        out.append("")
        body = []
        for r in prs:
            it = str(r["iterations"]) + ("" if r.get("converged", True) else " (not converged)")
            per_it = r.get("seconds_per_iteration")
            bound = r.get("bound_seconds_per_iteration")
            setup = r.get("setup", {})
            ref = r.get("refactor", {})
            dev = ref.get("on_backend_wall_seconds")
            dev_text = "–"
            if dev is not None:
                dev_text = f"{1e3 * dev:.2f}"
                if per_it:
                    dev_text += f" ({dev / per_it:,.1f})"
            body.append([
                f"`{r['config']}`", loop_kind(r), it, f_ms(r.get("solve_seconds_median")),
                "–" if per_it is None else f"{1e6 * per_it:,.1f}",
                "–" if bound is None else f"{1e6 * bound:,.1f}",
                f_pct(r.get("percent_of_bound")),
                f_ms(setup.get("wall_seconds")) if setup else "–",
                f_ms(ref.get("wall_seconds")) if ref else "–",
                dev_text])
        out.append(table(
            ["configuration", "iteration loop", "iterations", "time to 1e-8 [ms]",
             "µs / iteration", "bound µs / iteration", "% of bound", "set-up [ms]",
             "refactor() [ms]", "refactor_on_backend [ms] (iterations' time)"],
            body, "llrrrrrrrr"))
        out.append("")
    return "\n".join(out).rstrip()


def phase_table(rows, config=DEFAULT_CONFIG):
    picked = [r for r in rows if r["config"] == config and r.get("phases_per_iteration")]
    if not picked:
        return f"(no `{config}` rows with phases)"
    names = []
    for r in picked:
        for p in r["phases_per_iteration"]:
            if p not in names:
                names.append(p)
    names.sort(key=lambda p: PHASES.index(p) if p in PHASES else len(PHASES))
    body = []
    for r in picked:
        bw = r.get("copy_bandwidth_bytes_per_second")
        ph = r["phases_per_iteration"]

        def cell(seconds, nbytes):
            if not seconds:
                return "–"
            text = f"{1e6 * seconds:,.1f}"
            if bw and nbytes is not None:
                text += f" ({f_pct(100 * nbytes / seconds / bw)})"
            return text
        cells = [cell(ph[p]["seconds"], ph[p].get("bytes")) if p in ph else "–" for p in names]
        total_s = sum(ph[p]["seconds"] for p in ph)
        total_b = sum(ph[p].get("bytes", 0) for p in ph)
        body.append([r["problem"]] + cells + [
            cell(total_s, total_b),
            cell(r.get("seconds_per_iteration"), r.get("bytes_per_iteration"))])
    return table(["problem"] + [PHASE_NAMES.get(p, p) for p in names]
                 + ["sum of the phases", "whole iteration, as timed"],
                 body, "l" + "r" * (len(names) + 2))


SETUP_CONFIGS = {
    "default": "the defaults: `preconditioner: auto`, its choice and all set-up on the GPU",
    "default-hostsetup": "the same, `solver.setup: host`",
    "ic0-color-pgreedy": "`ic0`, set-up on the GPU",
    "ic0-color-pgreedy-hostsetup": "`ic0`, `solver.setup: host`",
    "ic0-color": "`ic0`, Boost's greedy coloring (host)",
    "auto": "`preconditioner: auto`",
    "block_ic": "`block_ic`, set-up on the GPU",
    "block_ic-hostsetup": "`block_ic`, `solver.setup: host`",
    "line_ic": "`line_ic`, set-up on the GPU",
    "line_ic-hostsetup": "`line_ic`, `solver.setup: host`",
}


def setup_table(rows):
    """gpu_bench_setup.sh's rows: each set-up group against one solve to 1e-8."""
    body = []
    for r in rows:
        if r["config"] not in SETUP_CONFIGS or not r.get("setup"):
            continue
        steps = r["setup"].get("steps", {})
        wall = r["setup"].get("wall_seconds")
        first = r["setup"].get("first_wall_seconds")
        solve = r.get("solve_seconds_median")
        its = r.get("iterations") or 0
        chose = r.get("preconditioner")
        name = f"`{r['config']}` ({SETUP_CONFIGS[r['config']]})"
        if r["config"].startswith("default") and chose:
            name += f": `{chose}`"
        body.append([r["problem"], name, str(r.get("colors", "–"))]
                    + [f_ms(steps.get(f"{g}_seconds")) for g in
                       ("check", "coloring", "permutation", "analysis", "factorization",
                        "upload")]
                    + [f_ms(wall), f_ms(first), str(its), f_ms(solve),
                       f_us(1e6 * solve / its) if solve and its else "–",
                       f"{wall / solve:.2f}" if wall and solve else "–"])
    return table(["problem", "configuration", "colors", "check", "coloring", "permutation",
                  "analysis", "factorization", "upload", "set-up [ms]",
                  "first set-up [ms]", "iterations", "solve to 1e-8 [ms]", "µs / iteration",
                  "set-up / solve"], body, "llr" + "r" * 12)


def trisolve_kind(variant):
    v = variant.replace(" (launched)", "")
    words = v.split()
    if v.startswith("spsv"):
        return v, None
    kind = words[0] + (" mixed" if words[-1] == "mixed" else "")
    return kind, words[1] if len(words) > 1 else None


def trisolve_table(rows):
    problems = {}
    for r in rows:
        kind, layout = trisolve_kind(r["variant"])
        p = problems.setdefault(r["problem"], {"rows": r.get("rows"), "colors": 0,
                                               "layout": None, "nnz": r.get("factor_nnz")})
        p[kind] = r
        if layout:
            p["layout"] = layout
            p["colors"] = r.get("colors", 0)
    kinds = [("halves", "halves, as PCG applies them"), ("colorset", "colorset"),
             ("halves mixed", "halves, float factor"), ("spsv colored", "SpSV, colored"),
             ("spsv natural", "SpSV, natural order")]
    body, vs_nat, vs_col = [], [], []
    for name, p in problems.items():
        def cell(kind):
            r = p.get(kind)
            if not r:
                return "–"
            text = f_us(r["us_per_solve"])
            if r.get("percent_of_copy_bandwidth") is not None:
                text += f" ({f_pct(r['percent_of_copy_bandwidth'])})"
            if "(launched)" in r["variant"]:
                text += " (launched)"
            return text

        def ratio(kind):
            if "colorset" in p and kind in p:
                return p[kind]["us_per_solve"] / p["colorset"]["us_per_solve"]
            return None
        rn, rc = ratio("spsv natural"), ratio("spsv colored")
        vs_nat.append(rn)
        vs_col.append(rc)
        body.append([name, f"{p['rows']:,}" if p.get("rows") else "–", p.get("colors") or "–",
                     p.get("layout") or "–"] + [cell(k) for k, _ in kinds] + [f_x(rn), f_x(rc)])
    if len(body) > 1:
        body.append(["geometric mean", "", "", ""] + [""] * len(kinds)
                    + [f_x(geomean(vs_nat)), f_x(geomean(vs_col))])
    return table(["problem", "rows", "colors", "layout"] + [t for _, t in kinds]
                 + ["colorset vs SpSV natural", "colorset vs SpSV colored"],
                 body, "lrrl" + "r" * (len(kinds) + 2))


def coloring_table(rows):
    body = []
    for problem, prs in pcg_problems(rows).items():
        by = {r["config"]: r for r in prs}
        nat, col = by.get("ic0-natural"), by.get(DEFAULT_CONFIG)
        if not nat or not col:
            continue
        penalty = col["iterations"] / nat["iterations"] if nat["iterations"] else None
        body.append([problem, f"{nat.get('levels', 0):,}", col.get("colors", "–"),
                     f"{penalty:.2f}x" if penalty else "–"])
    return table(["problem", "level sets of L, natural order", "colors (greedy)",
                  "iterations, colored ÷ natural order"], body, "lrrr")
