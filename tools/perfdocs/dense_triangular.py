"""Tables of docs/kernels/dense_triangular.md (bench_dense_triangular JSON)."""
from .data import measured_line
from .fmt import f_pct, f_sci, f_us, f_x, table


TRSV_OPS = [("trsv_LNN", "double", "lower"), ("trsv_LNN", "float", "lower"),
            ("trsv_LTN", "double", "lower, transposed"),
            ("trsv_LNN_lda+1", "double", "lower, lda = n + 1")]
TRSV_VARIANTS = [("prism_auto", "auto"), ("prism_single_block", "single_block"),
                 ("prism_global_sync_32", "gs32"),
                 ("prism_global_sync_32_inverse_4", "gs32 inv"),
                 ("prism_global_sync_32_inverse_4_split_off", "gs32 inv, unsplit"),
                 ("prism_global_sync_32_inverse_4_split_128", "gs32 inv, split 128"),
                 ("prism_global_sync_64_inverse", "gs64 inv"),
                 ("prism_global_sync_128_inverse", "gs128 inv")]


def dense_index(d):
    idx = {}
    for r in d["results"]:
        idx[(r["op"], r["precision"], r["method"], r["n"], r["nrhs"])] = r
    return idx


def dense_header(data):
    d = data.get("dense_triangular.json")
    floor = next((r for r in d["results"] if r["op"] == "launch_floor"), None)
    extra = (f"copy bandwidth {d.get('copy_bandwidth_GBps', 0):,.0f} GB/s in the same run; "
             f"median of {d.get('reps')} runs, `--timing {d.get('timing')}`")
    if floor:
        extra += f"; an empty kernel timed the same way: {floor['median_us']:.1f} µs"
    return measured_line(data, ["dense_triangular.json"], extra)


def trsv_table(data):
    """One row per n: prism (automatic, plain workspace) / cuBLAS per case, the speed-up,
    and for the lower double solve the % of copy bandwidth and the TrsvWorkspace time."""
    d = data.get("dense_triangular.json")
    idx = dense_index(d)
    ns = sorted({k[3] for k in idx if k[0].startswith("trsv_") and k[2] == "prism_auto"})
    body = []
    for n in ns:
        row = [n]
        for op, prec, _ in TRSV_OPS:
            cu = idx.get((op, prec, "cublas", n, 1))
            auto = idx.get((op, prec, "prism_auto", n, 1))
            if cu and auto:
                row += [f"{f_us(auto['median_us'])} / {f_us(cu['median_us'])}",
                        f_x(cu["median_us"] / auto["median_us"])]
            else:
                row += ["–", "–"]
        auto = idx.get(("trsv_LNN", "double", "prism_auto", n, 1))
        cu = idx.get(("trsv_LNN", "double", "cublas", n, 1))
        ready = idx.get(("trsv_LNN", "double", "prism_auto_ready", n, 1))
        row += [f_pct(auto["pct_copy_bandwidth"], 1) if auto else "–",
                f_pct(cu["pct_copy_bandwidth"], 1) if cu else "–",
                f_us(ready["median_us"]) if ready else "–"]
        body.append(row)
    head = ["n"]
    for _, prec, label in TRSV_OPS:
        head += [f"{label}, {prec}: prism / cuBLAS µs", "x"]
    head += ["prism % copy (lower, double)", "cuBLAS % copy", "prism µs with a TrsvWorkspace"]
    return dense_header(data) + "\n\n" + table(head, body, "r" * len(head))


def trsv_variant_table(data):
    idx = dense_index(data.get("dense_triangular.json"))
    ns = sorted({k[3] for k in idx if k[0] == "trsv_LNN" and k[1] == "double"})
    body = []
    for n in ns:
        times = [idx.get(("trsv_LNN", "double", m, n, 1)) for m, _ in TRSV_VARIANTS]
        present = [t["median_us"] for t in times[1:] if t]
        best = min(present) if present else None
        cells = []
        for i, t in enumerate(times):
            if not t:
                cells.append("–")
            elif i > 0 and t["median_us"] == best:
                cells.append(f"**{f_us(t['median_us'])}**")
            else:
                cells.append(f_us(t["median_us"]))
        body.append([n] + cells)
    return table(["n"] + [name for _, name in TRSV_VARIANTS], body, "r" * (len(TRSV_VARIANTS) + 1))


def trsm_table(data):
    d = data.get("dense_triangular.json")
    idx = dense_index(d)
    shapes = []
    for r in d["results"]:
        if r["op"].startswith("trsm") and r["method"] == "cublas":
            shapes.append((r["op"], r["precision"], r["n"], r["nrhs"]))
    body = []
    for op, prec, m, nrhs in shapes:
        get = lambda meth: idx.get((op, prec, meth, m, nrhs))
        cu, auto = get("cublas"), get("prism")
        if not cu or not auto:
            continue
        df, dfs = get("prism_data_flow"), get("prism_data_flow_subst")
        blocked = [(r["median_us"], int(r["method"].split("_")[2])) for r in
                   (get(f"prism_blocked_{nb}") for nb in (128, 256, 512, 1024)) if r]
        best = min(blocked) if blocked else None
        label = "lower" if op == "trsm_LNN" else "lower, transposed"
        body.append([label, prec, m, nrhs, f_us(cu["median_us"]), f_us(auto["median_us"]),
                     f_us(df["median_us"]) if df else "–",
                     f_us(dfs["median_us"]) if dfs else "–",
                     f"{f_us(best[0])} ({best[1]})" if best else "–",
                     f"{auto['GFLOPs'] / 1e3:.1f}",
                     f_x(cu["median_us"] / auto["median_us"]),
                     f_sci(auto.get("max_rel_diff_vs_cublas"))])
    return table(["trsm", "precision", "m", "nrhs", "cuBLAS µs", "prism (automatic) µs",
                  "data-flow µs", "data-flow, substituted µs", "best blocked µs (rows)",
                  "prism TFLOP/s", "x cuBLAS", "max rel. diff. vs cuBLAS"],
                 body, "llrrrrrrrrrr")


def trsv_batched_table(data):
    d = data.get("dense_triangular.json")
    idx = dense_index(d)
    body = []
    seen = []
    for r in d["results"]:
        if r["op"].startswith("trsv_batched") and (r["op"], r["n"], r["nrhs"]) not in seen:
            seen.append((r["op"], r["n"], r["nrhs"]))
    for op, n, batch in seen:
        get = lambda meth: idx.get((op, "double", meth, n, batch))
        pr, tb, loop = get("prism"), get("cublas_trsmBatched"), get("cublas_trsv_loop")
        if not pr:
            continue
        sizes = f"1 … {n}, mixed" if op.endswith("mixed") else f"{n}"
        body.append([sizes, batch, f_us(pr["median_us"]), f_pct(pr["pct_copy_bandwidth"], 1),
                     f_us(tb["median_us"]) if tb else "–",
                     f_us(loop["median_us"]) if loop else "–",
                     f_x(tb["median_us"] / pr["median_us"]) if tb else "–",
                     f_x(loop["median_us"] / pr["median_us"]) if loop else "–"])
    return table(["n", "systems", "prism µs", "prism % copy", "cublasDtrsmBatched µs",
                  "loop of cublasDtrsv µs", "x trsmBatched", "x trsv loop"], body, "lrrrrrrr")
