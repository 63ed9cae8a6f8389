#!/usr/bin/env python3
"""Turns a prism JSON report into PNG plots.

    python3 tools/plot_report.py out/report.json [--out-dir DIR]

writes DIR/NAME_convergence.png (relative residual per iteration, log scale) and
DIR/NAME_phases.png (time per phase per iteration, stacked, plus the share of each
phase in the whole solve). Needs matplotlib (Debian: apt-get install python3-matplotlib).
"""
import argparse
import json
import os
import sys


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("report", help="JSON report written by prism solve --report")
    parser.add_argument("--out-dir", help="where to write the PNGs (default: next to the report)")
    args = parser.parse_args()

    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("plot_report: matplotlib is missing (apt-get install python3-matplotlib "
              "or pip install matplotlib)", file=sys.stderr)
        return 1
    try:
        with open(args.report, encoding="utf-8") as f:
            report = json.load(f)
        iterations = report["iterations"]
        phases = report["phases"]
        summary = report["summary"]
        name = report["problem"]["name"] or os.path.splitext(os.path.basename(args.report))[0]
    except (OSError, ValueError, KeyError, TypeError) as e:
        print(f"plot_report: {args.report}: not a prism report ({e})", file=sys.stderr)
        return 1

    out_dir = args.out_dir or os.path.dirname(os.path.abspath(args.report))
    os.makedirs(out_dir, exist_ok=True)
    title = (f"{name}: {report['solver']['preconditioner']} on {report['solver']['backend']}, "
             f"{summary['iterations']} iterations, {summary['status']}")

    its = [rec["iteration"] for rec in iterations]
    res = [rec["relative_residual"] for rec in iterations]
    fig, ax = plt.subplots(figsize=(7, 4.5))
    ax.semilogy(its, res, marker="." if len(its) < 60 else None)
    ax.axhline(report["solver"]["tolerance"], color="gray", linestyle="--", label="tolerance")
    ax.set_xlabel("iteration")
    ax.set_ylabel("||r|| / ||b||")
    ax.set_title(title, fontsize=9)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    convergence = os.path.join(out_dir, f"{name}_convergence.png")
    fig.tight_layout()
    fig.savefig(convergence, dpi=120)
    plt.close(fig)

    names = [p["name"] for p in phases]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4.5), gridspec_kw={"width_ratios": [3, 1]})
    timed = [rec for rec in iterations if rec["iteration"] > 0]
    bottom = [0.0] * len(timed)
    for phase in names:
        ms = [rec["seconds"][phase] * 1e3 for rec in timed]
        ax1.bar([rec["iteration"] for rec in timed], ms, bottom=bottom, width=1.0, label=phase)
        bottom = [b + m for b, m in zip(bottom, ms)]
    ax1.set_xlabel("iteration")
    ax1.set_ylabel("time per iteration [ms]")
    ax1.set_title(title, fontsize=9)
    ax1.legend()
    shares = [p["percent"] for p in phases]
    labels = [f"{p['name']}\n{p['gb_per_s']:.1f} GB/s" for p in phases]
    ax2.pie(shares, labels=labels, autopct="%1.0f%%", textprops={"fontsize": 8})
    ax2.set_title("share of solve time", fontsize=9)
    phases_png = os.path.join(out_dir, f"{name}_phases.png")
    fig.tight_layout()
    fig.savefig(phases_png, dpi=120)
    plt.close(fig)
    print(convergence)
    print(phases_png)
    return 0


if __name__ == "__main__":
    sys.exit(main())
