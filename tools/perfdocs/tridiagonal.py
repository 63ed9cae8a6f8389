"""Table of docs/kernels/tridiagonal.md (bench_tridiagonal JSON)."""
import re

from .data import measured_line
from .fmt import f_pct, f_sci, f_us, f_x, table


def tri_path(plan):
    m = re.match(r"two-pass levels=(\d+)", plan)
    if m:
        k = int(m.group(1))
        return f"two pass ({k} level{'s' if k > 1 else ''})", "two"
    c = re.search(r"cluster=(\d+)", plan)
    t = re.search(r"thr=(\d+)", plan)
    if c and int(c.group(1)) > 1:
        return f"one pass, cluster of {c.group(1)} x {t.group(1) if t else '?'}", "one"
    return "one pass", "one"


def tridiagonal_table(data):
    d = data.get("tridiagonal.json")
    bw = d.get("copy_bandwidth_GBps")
    floors = {"one": d.get("floor_one_pass_us"), "two": d.get("floor_two_pass_us")}
    extra = (f"{d.get('precision', 'double')}, {d.get('bytes_per_row')} B a row counted; "
             f"copy bandwidth {bw:,.0f} GB/s in the same run; median of {d.get('reps')} runs, "
             f"`--timing {d.get('timing')}`")
    head = measured_line(data, ["tridiagonal.json"], extra)
    floor_rows = []
    for key, label in (("one", "one pass: read a, b, c, d, write x"),
                       ("two", "two passes: read a, b, c, d twice, write x")):
        us = floors[key]
        if us:
            floor_rows.append([label, f_us(us), f_pct(d.get(f"floor_{key}_pass_pct_copy"), 1)])
    floor_text = table(["streaming floor (no solve, same run)", "µs", "% copy"], floor_rows,
                       "lrr") if floor_rows else ""
    shapes = []
    by = {}
    for r in d["results"]:
        key = (r["layout"], r["n"], r["m"])
        if key not in by:
            shapes.append(key)
        by.setdefault(key, []).append(r)
    body = []
    for key in shapes:
        rs = by[key]
        pr = next((r for r in rs if r["method"] == "prism"), None)
        cu = next((r for r in rs if r["method"].startswith("cusparse")), None)
        if not pr:
            continue
        path, kind = tri_path(pr.get("plan", ""))
        floor = floors.get(kind)
        routine = "–"
        if cu:
            routine = cu["method"].replace("cusparse_", "").replace("_thomas", "")
        body.append([key[0], f"{key[1]:,}", f"{key[2]:,}", path, f_us(pr["median_us"]),
                     f_pct(pr["pct_copy_bandwidth"], 1),
                     f_pct(100 * floor / pr["median_us"]) if floor else "–",
                     routine, f_us(cu["median_us"]) if cu else "–",
                     f_pct(cu["pct_copy_bandwidth"], 1) if cu else "–",
                     f_x(cu["median_us"] / pr["median_us"]) if cu else "–",
                     f_sci(pr.get("backward_error"))])
    main = table(["layout", "N", "M", "path", "prism µs", "prism % copy", "% of its floor",
                  "cuSPARSE", "cuSPARSE µs", "cuSPARSE % copy", "speed-up",
                  "backward error"], body, "lrrlrrrlrrrr")
    return "\n\n".join(x for x in (head, floor_text, main) if x)
