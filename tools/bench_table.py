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
    order = {"none": 0, "jacobi": 1, "ic0-natural": 2, "ic0-color-cusparse": 3, "ic0-color": 4,
             "ic0-color-device-factor": 5, "cupy-none": 6, "cupy-jacobi": 7, "eigen-ic-cg": 8}
    rows.sort(key=lambda r: (r["problem"], order.get(r["config"], 9)))
    for r in rows:
        it = r["iterations"]
        per_it = r.get("seconds_per_iteration", 0.0)
        setup = r.get("setup", {})
        setup_s = (f"{1e3 * setup['wall_seconds']:.1f} ({1e3 * setup['coloring_seconds']:.1f} / "
                   f"{1e3 * setup['factorization_seconds']:.1f})" if setup else "-")
        bound = r.get("bound_seconds_per_iteration")
        pct = r.get("percent_of_bound")
        name = r["config"] + ("" if r.get("converged", True) else " (not converged)")
        print(f"| {r['problem']} | {name} | {it} | {1e6 * per_it:.1f} | "
              f"{1e3 * r['solve_seconds_median']:.1f} | {setup_s} | "
              f"{'-' if bound is None else f'{1e6 * bound:.1f}'} | "
              f"{'-' if pct is None else f'{pct:.0f}%'} |")


if __name__ == "__main__":
    main()
