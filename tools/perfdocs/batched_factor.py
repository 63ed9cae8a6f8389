"""Tables of docs/kernels/batched_factor.md (bench_batched_factor JSON)."""
from .data import measured_line
from .fmt import f_us, f_x, table


def factor_index(d):
    return {(r["routine"], r["method"], r["n"]): r for r in d["rows"]}


def factor_header(data):
    d = data.get("batched_factor.json")
    return measured_line(data, ["batched_factor.json"],
                         f"{d.get('precision', 'double')}, median of {d.get('reps')} runs, "
                         f"`--timing {d.get('timing')}`")


def factor_table(data):
    d = data.get("batched_factor.json")
    idx = factor_index(d)
    ns = sorted({r["n"] for r in d["rows"]})
    body = []
    for n in ns:
        row = [n]
        batch = None
        for routine, vendor in (("getrf", "cublasDgetrfBatched"),
                                ("potrf", "cusolverDnDpotrfBatched")):
            v, p = idx.get((routine, vendor, n)), idx.get((routine, "prism-default", n))
            if not v or not p:
                row += ["–"] * 5
                continue
            batch = p["batch"]
            bad = " (info ≠ 0)" if p.get("info_nonzero") else ""
            row += [f_us(v["median_us"]), f_us(p["median_us"]) + bad,
                    f_x(v["median_us"] / p["median_us"]),
                    f"{v['gflops']:,.0f}", f"{p['gflops']:,.0f}"]
        body.append([n, batch] + row[1:])
    return factor_header(data) + "\n\n" + table(
        ["n", "batch", "cuBLAS getrf µs", "prism getrf µs", "getrf x cuBLAS",
         "cuBLAS GFLOP/s", "prism GFLOP/s", "cuSOLVER potrf µs", "prism potrf µs",
         "potrf x cuSOLVER", "cuSOLVER GFLOP/s", "prism GFLOP/s"], body, "r" * 12)


def factor_dispatch_table(data):
    d = data.get("batched_factor.json")
    idx = factor_index(d)
    paths = [("registers(n<=64)", "registers"), ("blocked-all-on", "blocked"),
             ("shared(n<=128)", "shared memory")]
    body = []
    for n in sorted({r["n"] for r in d["rows"] if r["n"] <= 128}):
        row = [n]
        for routine in ("getrf", "potrf"):
            blocked = "blocked-all-on" if routine == "getrf" else "blocked"
            names = [(paths[0][0], "registers"), (blocked, "blocked"), (paths[2][0], "shared")]
            times = [idx.get((routine, m, n)) for m, _ in names]
            best = min((t["median_us"] for t in times if t), default=None)
            default = idx.get((routine, "prism-default", n))
            row.append(f_us(default["median_us"]) if default else "–")
            for t in times:
                if not t:
                    row.append("–")
                elif t["median_us"] == best:
                    row.append(f"**{f_us(t['median_us'])}**")
                else:
                    row.append(f_us(t["median_us"]))
        body.append(row)
    return table(["n", "getrf default µs", "getrf registers", "getrf blocked", "getrf shared",
                  "potrf default µs", "potrf registers", "potrf blocked", "potrf shared"],
                 body, "r" * 9)


def technique_table(data, routine, base, switches):
    d = data.get("batched_factor.json")
    idx = factor_index(d)
    body = []
    for n in sorted({r["n"] for r in d["rows"] if r["routine"] == routine}):
        b = idx.get((routine, base, n))
        cells = [idx.get((routine, m, n)) for m, _ in switches]
        if not b or sum(1 for c in cells if c) < 2:
            continue
        body.append([n, f_us(b["median_us"])]
                    + [f"{c['median_us'] / b['median_us']:.2f}" if c else "–" for c in cells])
    return table(["n", f"`{base}` µs"] + [name for _, name in switches], body,
                 "r" * (len(switches) + 2))


def getrf_technique_table(data):
    return technique_table(data, "getrf", "blocked-all-on", [
        ("blocked-recursive-panel", "recursive panel"),
        ("blocked-classic-panel", "classic panel"),
        ("blocked-serial-swap", "serial swap"),
        ("blocked-trsm", "trsm row block"),
        ("blocked-trtri-rowblock32", "trtri for 32-column row blocks"),
        ("blocked-rows-last-panel", "panel kernel on the last panel"),
        ("blocked-tile32-update", "32 x 32 update tiles"),
        ("blocked-depth1", "depth 1"), ("blocked-depth2", "depth 2"),
        ("blocked-depth4", "depth 4"), ("blocked-all-off", "all off")])


def potrf_technique_table(data):
    return technique_table(data, "potrf", "blocked", [
        ("blocked-shared-panel", "shared-memory panel"),
        ("blocked-tile32-update", "32 x 32 syrk tiles"),
        ("blocked-tile32-depth1", "32 x 32 tiles, depth 1"),
        ("blocked-depth1", "depth 1"), ("blocked-depth2", "depth 2"),
        ("blocked-depth4", "depth 4")])
