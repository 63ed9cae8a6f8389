"""Which block goes where: the generated blocks of each page and the README headline."""
from .batched_factor import (factor_dispatch_table, factor_header, factor_table,
                             getrf_technique_table, potrf_technique_table)
from .common import ROOT, Error
from .cpu import cpu_table, host_bandwidth_text
from .data import measured_line
from .distributed import distributed_block
from .dense_triangular import (dense_header, trsm_table, trsv_batched_table, trsv_table,
                               trsv_variant_table)
from .headline import headline
from .markers import BEGIN, END, README_BEGIN, README_END, replace_between
from .pcg import (DEFAULT_CONFIG, bandwidth_text, bandwidths, coloring_table, pcg_tables,
                  phase_table, setup_table, trisolve_table)
from .spmv import spmv_table
from .tridiagonal import tridiagonal_table


def perf_link(page, anchor):
    """Links as seen from docs/performance.md."""
    target = "" if page == "performance.md" else page
    return f"[table]({target}{'#' + anchor if anchor else ''})"


def readme_link(page, anchor):
    return f"[table](docs/{page}{'#' + anchor if anchor else ''})"


def pcg_block(data):
    rows = data.get("prism.json")["results"] + data.get("cupy.json")["results"]
    return (measured_line(data, ["prism.json", "cupy.json"],
                          bandwidth_text(bandwidths(data.get("prism.json")["results"])))
            + "\n\n" + pcg_tables(rows))


def fem_block(data):
    rows = data.get("fem.json")["results"] + data.get("cupy_fem.json")["results"]
    return (measured_line(data, ["fem.json", "cupy_fem.json"],
                          bandwidth_text(bandwidths(data.get("fem.json")["results"])))
            + "\n\n" + pcg_tables(rows))


def phases_block(data):
    rows = data.get("prism.json")["results"]
    return (measured_line(data, ["prism.json"], f"configuration `{DEFAULT_CONFIG}`, µs per "
                          "iteration and, in brackets, % of the copy bandwidth for the phase's "
                          "modeled bytes") + "\n\n" + phase_table(rows))


def setup_block(data):
    return (measured_line(data, ["setup.json"], "matrix in memory; set-up: the median of "
                          "3 set-ups of one solver, and the process's first apart; ms")
            + "\n\n" + setup_table(data.get("setup.json")["results"]))


def trisolve_block(data):
    rows = data.get("trisolve.json")["results"]
    return (measured_line(data, ["trisolve.json"], bandwidth_text(bandwidths(rows))
                          + "; µs per triangular solve and, in brackets, % of the copy "
                          "bandwidth for its modeled bytes") + "\n\n" + trisolve_table(rows))


def cpu_block(data):
    if not (data.dir / "cpu.json").exists():
        return ("No CPU figures are published yet (no `cpu.json` in `docs/perf/data`; "
                "`tools/gpu_bench_cpu.sh` makes it).")
    rows = data.get("cpu.json")["results"]
    return (measured_line(data, ["cpu.json"], host_bandwidth_text(rows)) + "\n\n"
            + cpu_table(rows))


def coloring_block(data):
    return (measured_line(data, ["prism.json"]) + "\n\n"
            + coloring_table(data.get("prism.json")["results"]))


DOC_BLOCKS = {
    "docs/performance.md": {
        "headline": lambda d: headline(d, perf_link),
        "pcg": pcg_block,
        "pcg-phases": phases_block,
        "pcg-setup": setup_block,
        "fem": fem_block,
        "spmv": spmv_table,
        "trisolve": trisolve_block,
        "cpu": cpu_block,
    },
    "docs/kernels/colorset.md": {"coloring": coloring_block},
    "docs/distributed.md": {"distributed": distributed_block},
    "docs/kernels/dense_triangular.md": {
        "trsv": trsv_table,
        "trsv-variants": lambda d: dense_header(d) + "\n\n" + trsv_variant_table(d),
        "trsm": lambda d: dense_header(d) + "\n\n" + trsm_table(d),
        "trsv-batched": lambda d: dense_header(d) + "\n\n" + trsv_batched_table(d),
    },
    "docs/kernels/batched_factor.md": {
        "factor": factor_table,
        "dispatch": lambda d: factor_header(d) + "\n\n" + factor_dispatch_table(d),
        "getrf-techniques": lambda d: factor_header(d) + "\n\n" + getrf_technique_table(d),
        "potrf-techniques": lambda d: factor_header(d) + "\n\n" + potrf_technique_table(d),
    },
    "docs/kernels/tridiagonal.md": {"tridiagonal": tridiagonal_table},
}


def render(data):
    """{path: (old text, new text, [block names])} for every target."""
    out = {}
    for path, blocks in DOC_BLOCKS.items():
        full = ROOT / path
        if not full.exists():
            raise Error(f"{path} is missing")
        old = full.read_text(encoding="utf-8")
        new = old
        for name, fn in blocks.items():
            replaced = replace_between(new, BEGIN.format(name), END.format(name), fn(data), path)
            if replaced is None:
                raise Error(f"{path}: marker '{BEGIN.format(name)}' not found")
            new = replaced
        out[path] = (old, new, list(blocks))
    readme = ROOT / "README.md"
    if readme.exists():
        old = readme.read_text(encoding="utf-8")
        new = replace_between(old, README_BEGIN, README_END, headline(data, readme_link),
                              "README.md")
        if new is not None:
            out["README.md"] = (old, new, ["headline"])
    return out
