"""The headline table (docs/performance.md and README.md): one row per capability, prism's
speed-up over the vendor routine timed in the same run."""
from .batched_factor import factor_index
from .data import short_gpu
from .dense_triangular import dense_index
from .fmt import span, table
from .pcg import DEFAULT_CONFIG, pcg_problems, trisolve_kind


def headline(data, link):
    """One row per capability; link(page, anchor) gives the detail link for the target."""
    rows = []  # (capability, against, ratio text, detail, files)
    pcg = data.get("prism.json")["results"]
    cupy = data.get("cupy.json")["results"]
    problems = pcg_problems(pcg + cupy)
    vs_cupy, vs_nat, vs_col = [], [], []
    for name, prs in problems.items():
        by = {r["config"]: r for r in prs}
        dflt = by.get(DEFAULT_CONFIG)
        if not dflt or not dflt.get("converged", True):
            continue
        t = dflt["solve_seconds_median"]
        cupys = [r["solve_seconds_median"] for r in prs
                 if r["config"].startswith("cupy") and r.get("converged", True)]
        if cupys:
            vs_cupy.append((min(cupys) / t, name))
        if "ic0-natural" in by:
            vs_nat.append((by["ic0-natural"]["solve_seconds_median"] / t, name))
        if "ic0-color-cusparse" in by:
            vs_col.append((by["ic0-color-cusparse"]["solve_seconds_median"] / t, name))
    pcg_link = link("performance.md", "pcg-suite")
    cap = "PCG to a relative residual of 1e-8, IC(0) in color order (`ic0-color`)"
    rows.append((cap, "CuPy CG, the faster of none and Jacobi", span(vs_cupy), pcg_link,
                 ["prism.json", "cupy.json"]))
    rows.append(("", "IC(0)-PCG with cusparseSpSV, natural order", span(vs_nat), pcg_link,
                 ["prism.json"]))
    rows.append(("", "the same colored factor with cusparseSpSV and cuSPARSE SpMV",
                 span(vs_col), pcg_link, ["prism.json"]))

    tri = data.get("trisolve.json")["results"]
    per = {}
    for r in tri:
        kind, _ = trisolve_kind(r["variant"])
        per.setdefault(r["problem"], {})[kind] = r["us_per_solve"]
    nat = [(p["spsv natural"] / p["colorset"], n) for n, p in per.items()
           if "colorset" in p and "spsv natural" in p]
    col = [(p["spsv colored"] / p["colorset"], n) for n, p in per.items()
           if "colorset" in p and "spsv colored" in p]
    tri_link = link("performance.md", "one-triangular-solve")
    rows.append(("One IC(0) triangular solve (color-set)",
                 "cusparseSpSV on the natural-order factor", span(nat), tri_link,
                 ["trisolve.json"]))
    rows.append(("", "cusparseSpSV on the same colored factor", span(col), tri_link,
                 ["trisolve.json"]))

    d = data.get("dense_triangular.json")
    idx = dense_index(d)
    trsv, pct = [], None
    for n in sorted({k[3] for k in idx if k[0] == "trsv_LNN" and k[1] == "double"}):
        cu = idx.get(("trsv_LNN", "double", "cublas", n, 1))
        pr = idx.get(("trsv_LNN", "double", "prism_auto", n, 1))
        if cu and pr:
            trsv.append((cu["median_us"] / pr["median_us"], f"n = {n}"))
            pct = (pr["pct_copy_bandwidth"], n)
    dense_link = link("kernels/dense_triangular.md", "")
    text = span(trsv)
    if pct:
        text += f"; {pct[0]:.0f} % of the copy bandwidth at n = {pct[1]}"
    rows.append(("Dense triangular solve, one right-hand side (trsv, double)", "cublasDtrsv",
                 text, dense_link, ["dense_triangular.json"]))
    trsm = []
    for r in d["results"]:
        if r["op"].startswith("trsm") and r["method"] == "prism":
            cu = idx.get((r["op"], r["precision"], "cublas", r["n"], r["nrhs"]))
            if cu:
                trsm.append((cu["median_us"] / r["median_us"],
                             f"{r['precision']} {r['n']} x {r['nrhs']}"))
    rows.append(("Dense triangular solve, many right-hand sides (trsm)",
                 "cublasDtrsm / cublasStrsm", span(trsm), dense_link,
                 ["dense_triangular.json"]))

    f = data.get("batched_factor.json")
    fidx = factor_index(f)
    factor_link = link("kernels/batched_factor.md", "")
    sizes = sorted({r["n"] for r in f["rows"]})
    size_text = f", n = {sizes[0]} … {sizes[-1]}" if sizes else ""
    for routine, vendor, cap in (("getrf", "cublasDgetrfBatched",
                                  "Batched LU with partial pivoting (getrf)" + size_text),
                                 ("potrf", "cusolverDnDpotrfBatched",
                                  "Batched Cholesky (potrf)" + size_text)):
        items = []
        for n in sorted({r["n"] for r in f["rows"]}):
            v, p = fidx.get((routine, vendor, n)), fidx.get((routine, "prism-default", n))
            if v and p:
                items.append((v["median_us"] / p["median_us"], f"n = {n}"))
        rows.append((cap, vendor, span(items), factor_link, ["batched_factor.json"]))

    t = data.get("tridiagonal.json")
    tri_k_link = link("kernels/tridiagonal.md", "")
    for layout, routine, cap in (("contiguous", "cusparseDgtsv2StridedBatch",
                                  "Batched tridiagonal solve, contiguous systems"),
                                 ("interleaved", "cusparseDgtsvInterleavedBatch",
                                  "Batched tridiagonal solve, interleaved systems")):
        items, pcts = [], []
        shapes = {}
        for r in t["results"]:
            if r["layout"] == layout:
                shapes.setdefault((r["n"], r["m"]), {})[r["method"]] = r
        for (n, m), s in shapes.items():
            pr = s.get("prism")
            cu = next((v for k, v in s.items() if k.startswith("cusparse")), None)
            if pr and cu:
                items.append((cu["median_us"] / pr["median_us"], f"N = {n:,}"))
                pcts.append(pr["pct_copy_bandwidth"])
        text = span(items)
        if pcts:
            text += f"; {min(pcts):.0f}–{max(pcts):.0f} % of the copy bandwidth"
        rows.append((cap, routine, text, tri_k_link, ["tridiagonal.json"]))

    runs = []
    for r in rows:
        for name in r[4]:
            m = data.info(name)
            key = (m["gpu"], m["date"])
            if key not in runs:
                runs.append(key)
    one_run = len(runs) == 1
    head = ["capability", "compared with (timed in the same run)", "prism faster by"]
    if not one_run:
        head.append("GPU, date")
    head.append("details")
    body = []
    for cap, against, text, detail, files in rows:
        line = [cap, against, text]
        if not one_run:
            m = data.info(files[0])
            line.append(f"{short_gpu(m['gpu'])}, {m['date']}")
        line.append(detail)
        body.append(line)
    commits = sorted({data.info(n)["commit"][:7] for r in rows for n in r[4]})
    if one_run:
        intro = (f"*{runs[0][0]}, {runs[0][1]}, commit{'s' if len(commits) > 1 else ''} "
                 f"{', '.join('`' + c + '`' for c in commits)}. Ranges run over the problems "
                 f"or sizes of the linked tables (end points named).*")
    else:
        intro = ("*Ranges run over the problems or sizes of the linked tables (end points "
                 "named); GPU and date per row.*")
    return intro + "\n\n" + table(head, body)
