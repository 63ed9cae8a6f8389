#!/usr/bin/env python3
"""Turns a prism JSON report into PNG plots.

    python3 tools/plot_report.py out/report.json [--out-dir DIR]

writes DIR/NAME_convergence.png (relative residual per iteration, log scale) and
DIR/NAME_phases.png (time per phase per iteration, stacked, plus the share of each
phase in the whole solve). A report of a `timing: total` solve has no per-phase times:
then only the convergence plot is written, noting that the phases were not timed and
the whole-solve time per iteration. Needs matplotlib (Debian: apt-get install
python3-matplotlib).
"""
import argparse
import json
import os
import sys


def phases_timed(report) -> bool:
    """False for a `timing: total` report, whose phase times are all zero."""
    return any(p.get("seconds", 0) > 0 for p in report["phases"])


def untimed_note(report) -> str:
    summary = report["summary"]
    per_iteration = summary.get("seconds_per_iteration", 0) * 1e3
    return (f"phases not timed (timing: total); whole solve {summary['solve_seconds'] * 1e3:.3f} ms,"
            f" {per_iteration:.3f} ms per iteration")


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
        timed = phases_timed(report)
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
    # Without phase times, the figure says why there is no phases plot next to it.
    ax.set_title(title if timed else f"{title}\n{untimed_note(report)}", fontsize=9)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    convergence = os.path.join(out_dir, f"{name}_convergence.png")
    fig.tight_layout()
    fig.savefig(convergence, dpi=120)
    plt.close(fig)
    print(convergence)
    if not timed:
        # All phase times are zero: a stacked bar of zeros says nothing, and a pie of
        # zero shares is undefined (matplotlib fails on the NaN angles).
        print(f"plot_report: {untimed_note(report)}; no phases plot", file=sys.stderr)
        return 0

    names = [p["name"] for p in phases]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4.5), gridspec_kw={"width_ratios": [3, 1]})
    records = [rec for rec in iterations if rec["iteration"] > 0]
    bottom = [0.0] * len(records)
    colors = {}
    for phase in names:
        ms = [rec.get("seconds", {}).get(phase, 0) * 1e3 for rec in records]
        bars = ax1.bar([rec["iteration"] for rec in records], ms, bottom=bottom, width=1.0,
                       label=phase)
        colors[phase] = bars.patches[0].get_facecolor() if bars.patches else None
        bottom = [b + m for b, m in zip(bottom, ms)]
    ax1.set_xlabel("iteration")
    ax1.set_ylabel("time per iteration [ms]")
    ax1.set_title(title, fontsize=9)
    ax1.legend()
    # Phases that took no time (precond under IC(0)) would be empty, overlapping wedges.
    shown = [p for p in phases if p["seconds"] > 0]
    shares = [p["percent"] for p in shown]
    labels = [f"{p['name']}\n{p['gb_per_s']:.1f} GB/s" for p in shown]
    ax2.pie(shares, labels=labels, autopct="%1.0f%%", textprops={"fontsize": 8},
            colors=[colors[p["name"]] for p in shown])
    ax2.set_title("share of solve time", fontsize=9)
    phases_png = os.path.join(out_dir, f"{name}_phases.png")
    fig.tight_layout()
    fig.savefig(phases_png, dpi=120)
    plt.close(fig)
    print(phases_png)
    return 0


if __name__ == "__main__":
    sys.exit(main())
