"""The command line of tools/perf_docs.py: regenerate / --check, import, table."""
import argparse
import json
import sys
from pathlib import Path

from .common import ROOT, Error
from .cpu import cpu_table, host_bandwidth_text
from .data import Data
from .importer import cmd_import
from .markers import README_BEGIN, stale_blocks
from .pcg import (DEFAULT_CONFIG, bandwidth_text, bandwidths, pcg_tables, phase_table,
                  trisolve_table)
from .targets import render


def cmd_generate(args):
    data = Data()
    results = render(data)
    if "README.md" not in results:
        print(f"README.md: no '{README_BEGIN}' marker, headline not written there")
    status = 0
    for path, (old, new, names) in results.items():
        if old == new:
            continue
        if args.check:
            print(f"stale: {path} (blocks: {', '.join(stale_blocks(path, old, new, names))}); "
                  "run python3 tools/perf_docs.py")
            status = 1
        else:
            (ROOT / path).write_text(new, encoding="utf-8")
            print(f"wrote {path}")
    if args.check and status == 0:
        print("generated blocks are up to date")
    return status


def cmd_table(args):
    pcg, tri = [], []
    for path in args.files:
        body = json.loads(Path(path).read_text(encoding="utf-8"))
        schema = body.get("schema", "")
        if "trisolve" in schema:
            tri += body["results"]
        else:
            pcg += body["results"]
    if pcg and all(r.get("backend") in ("cpu", "eigen") for r in pcg):
        print(f"*{host_bandwidth_text(pcg)}.*\n")
        print(cpu_table(pcg))
    elif pcg:
        device = next((r.get("device") for r in pcg if r.get("device")), "")
        print(f"*{device}; {bandwidth_text(bandwidths(pcg))}.*\n")
        print(pcg_tables(pcg))
        if any(r["config"] == DEFAULT_CONFIG for r in pcg):
            print(f"\nPer phase, `{DEFAULT_CONFIG}` (µs per iteration, % of the copy "
                  "bandwidth):\n")
            print(phase_table(pcg))
    if tri:
        print("\nOne triangular solve (µs, % of the copy bandwidth):\n")
        print(trisolve_table(tri))
    return 0


def main(argv=None):
    parser = argparse.ArgumentParser(
        description="Generate the docs' performance tables from benchmark JSON.")
    parser.add_argument("--check", action="store_true",
                        help="exit 1 if a generated block differs from what the JSON gives")
    sub = parser.add_subparsers(dest="action")
    imp = sub.add_parser("import", help="copy a run's JSON into docs/perf/data")
    imp.add_argument("dir")
    imp.add_argument("--commit")
    imp.add_argument("--date")
    imp.add_argument("--gpu", help='e.g. "NVIDIA H200 (143771 MiB, driver 580.159.04)"')
    imp.add_argument("--command", help="the command that produced the files")
    tab = sub.add_parser("table", help="print PCG / trisolve tables of JSON files")
    tab.add_argument("files", nargs="+")
    args = parser.parse_args(argv)
    try:
        if args.action == "import":
            return cmd_import(args)
        if args.action == "table":
            return cmd_table(args)
        return cmd_generate(args)
    except Error as e:
        print(f"perf_docs.py: {e}", file=sys.stderr)
        return 2
