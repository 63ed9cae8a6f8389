#!/usr/bin/env python3
"""Merges bench_pcg and bench_cupy JSON files into one markdown table.

    python3 tools/bench_table.py prism.json [cupy.json ...] > table.md
"""
import json
import sys


def main():
    rows = []
    bandwidth, device = 0.0, ""
    for path in sys.argv[1:]:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
        for r in data["results"]:
            rows.append(r)
            if r.get("copy_bandwidth_bytes_per_second"):
                bandwidth = r["copy_bandwidth_bytes_per_second"]
                device = r["device"]
    print(f"Device: {device}; device-to-device copy bandwidth measured in the same run: "
          f"{bandwidth / 1e9:.0f} GB/s.\n")
    print("| problem | configuration | iterations | µs / iteration | time to 1e-8 [ms] "
          "| set-up [ms] (coloring / factorization) | bound µs / it | % of bound |")
    print("|---|---|---|---|---|---|---|---|")
    order = ["none", "jacobi", "ic0-natural", "ic0-color-cusparse", "ic0-color-csr",
             "ic0-color-launches", "ic0-color-replay", "ic0-color", "ic0-color-sell", "ic0-color-device-factor",
             "ic0-color-mixed", "ic0-cyclic8", "ic0-cyclic16", "ic0-cyclic8-mixed", "cupy-none", "cupy-jacobi",
             "eigen-ic-cg"]
    rank = {name: i for i, name in enumerate(order)}
    rows.sort(key=lambda r: (r["problem"], rank.get(r["config"], len(order))))
    for r in rows:
        it = r["iterations"]
        per_it = r.get("seconds_per_iteration", 0.0)
        setup = r.get("setup", {})
        setup_s = (f"{1e3 * setup['wall_seconds']:.1f} ({1e3 * setup['coloring_seconds']:.1f} / "
                   f"{1e3 * setup['factorization_seconds']:.1f})" if setup else "-")
        bound = r.get("bound_seconds_per_iteration")
        pct = r.get("percent_of_bound")
        name = r["config"] + (" (graph loop)" if r.get("device_loop") else
                              " (graph)" if r.get("graph") else "")
        name += "" if r.get("converged", True) else " (not converged)"
        print(f"| {r['problem']} | {name} | {it} | {1e6 * per_it:.1f} | "
              f"{1e3 * r['solve_seconds_median']:.1f} | {setup_s} | "
              f"{'-' if bound is None else f'{1e6 * bound:.1f}'} | "
              f"{'-' if pct is None else f'{pct:.0f}%'} |")

    trisolve_table(rows, bandwidth)


def solve_us(r):
    """Mean of the lower and upper solve per iteration, µs (None without ic0 phases)."""
    ph = r.get("phases_per_iteration", {})
    if "lower_solve" not in ph or "upper_solve" not in ph:
        return None, None
    t = 0.5 * (ph["lower_solve"]["seconds"] + ph["upper_solve"]["seconds"])
    b = 0.5 * (ph["lower_solve"]["bytes"] + ph["upper_solve"]["bytes"])
    return 1e6 * t, b


def trisolve_table(rows, bandwidth):
    """One triangular solve (mean of lower and upper), per problem: cusparseSpSV on the
    natural-order factor and on the colored factor, prism's color-set solve on the same
    colored factor (CSR layout, the automatic layout, and the float factor of precision
    mixed)."""
    configs = ["ic0-natural", "ic0-color-cusparse", "ic0-color-csr", "ic0-color",
               "ic0-color-mixed"]
    by_problem = {}
    for r in rows:
        if r["config"] in configs:
            by_problem.setdefault(r["problem"], {})[r["config"]] = r
    if not by_problem:
        return
    print("\nOne triangular solve, µs (mean of lower and upper; per-phase events), and "
          "% of the copy bandwidth for its modeled bytes:\n")
    print("| problem | SpSV natural | SpSV colored | colorset CSR | colorset (auto layout) "
          "| colorset mixed | colorset vs SpSV natural | vs SpSV colored |")
    print("|---|---|---|---|---|---|---|---|")
    for problem, cfg in sorted(by_problem.items()):
        cells, times = [], {}
        for c in configs:
            t, b = solve_us(cfg[c]) if c in cfg else (None, None)
            times[c] = t
            if t is None:
                cells.append("-")
            elif bandwidth > 0:
                cells.append(f"{t:.1f} ({100 * b / bandwidth / (1e-6 * t):.0f}%)")
            else:
                cells.append(f"{t:.1f}")
        best = times["ic0-color"]
        ratio = lambda ref: (f"{times[ref] / best:.1f}x"
                             if best and times.get(ref) else "-")
        print(f"| {problem} | {' | '.join(cells)} | {ratio('ic0-natural')} | "
              f"{ratio('ic0-color-cusparse')} |")


if __name__ == "__main__":
    main()
