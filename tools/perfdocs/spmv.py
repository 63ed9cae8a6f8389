"""Table of the SpMV comparison on node-block matrices (bench_spmv JSON)."""
from .data import measured_line
from .fmt import f_pct, f_us, table


def spmv_table(data):
    d = data.get("spmv.json")
    extra = (f"copy bandwidth {d['copy_bandwidth_GBps']:,.0f} GB/s in the same run; median of "
             f"{d['reps']} runs, `--timing {d['timing']}`; % of bound: the leanest format's "
             "bytes (values, indices, x and y once) over the time")
    rows = []
    for r in d["results"]:
        rows.append([r["problem"], r["block_size"], f"{r['rows']:,}", f"{r['nnz']:,}",
                     r["variant"], f_us(r["median_us"]), f"{r['GBps']:,.0f}",
                     f_pct(r["pct_best_bound"], 1)])
    head = ["matrix", "b", "rows", "nonzeros", "kernel", "µs", "GB/s (own bytes)", "% of bound"]
    return measured_line(data, ["spmv.json"], extra) + "\n\n" + table(head, rows, "lrrrlrrr")
