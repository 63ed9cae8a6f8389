#!/usr/bin/env python3
"""CuPy CG as a peer of prism, on the matrices bench_pcg dumped (--dump-dir).

    python3 tools/bench_cupy.py DUMP_DIR [--json OUT.json] [--repeats N] [--tol 1e-8]

For each NAME.csr.bin / NAME.rhs.bin in DUMP_DIR: cupyx.scipy.sparse.linalg.cg with no
preconditioner and with Jacobi (a diagonal LinearOperator), x0 = 0, relative tolerance
on ||b||; iterations counted by the callback (in a separate, untimed solve), time the
median of N solves timed with CUDA events after a warm-up.
"""
import argparse
import glob
import inspect
import json
import os
import sys


def load(path_base):
    import numpy as np
    with open(path_base + ".csr.bin", "rb") as f:
        n, nnz = np.fromfile(f, dtype=np.int64, count=2)
        row_ptr = np.fromfile(f, dtype=np.int32, count=n + 1)
        col = np.fromfile(f, dtype=np.int32, count=nnz)
        val = np.fromfile(f, dtype=np.float64, count=nnz)
    b = np.fromfile(path_base + ".rhs.bin", dtype=np.float64, count=n)
    return int(n), int(nnz), row_ptr, col, val, b


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("dump_dir")
    parser.add_argument("--json")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--tol", type=float, default=1e-8)
    parser.add_argument("--maxiter", type=int, default=20000)
    parser.add_argument("--configs", default="cupy-none,cupy-jacobi",
                        help="comma-separated subset of cupy-none,cupy-jacobi")
    args = parser.parse_args()
    try:
        import cupy as cp
        import cupyx.scipy.sparse as csp
        import cupyx.scipy.sparse.linalg as cla
    except ImportError as e:
        print(f"bench_cupy: CuPy is not available ({e}); skipped", file=sys.stderr)
        return 0
    tol_name = "rtol" if "rtol" in inspect.signature(cla.cg).parameters else "tol"
    results = []
    print(f"{'problem':16} {'config':12} {'conv':>6} {'iters':>6} {'us/iter':>9} {'solve ms':>10}")
    for base in sorted(glob.glob(os.path.join(args.dump_dir, "*.csr.bin"))):
        name = os.path.basename(base)[: -len(".csr.bin")]
        n, nnz, row_ptr, col, val, b = load(base[: -len(".csr.bin")])
        a = csp.csr_matrix((cp.asarray(val), cp.asarray(col), cp.asarray(row_ptr)), shape=(n, n))
        bd = cp.asarray(b)
        inv_diag = 1.0 / a.diagonal()
        jacobi = cla.LinearOperator((n, n), matvec=lambda r: inv_diag * r, dtype=cp.float64)
        wanted = args.configs.split(",")
        for config, m in (("cupy-none", None), ("cupy-jacobi", jacobi)):
            if config not in wanted:
                continue
            kwargs = {tol_name: args.tol, "maxiter": args.maxiter, "M": m, "atol": 0.0}
            count = [0]

            def callback(_xk):
                count[0] += 1

            x = cla.cg(a, bd, callback=callback, **kwargs)[0]
            iterations = count[0]
            true_res = float(cp.linalg.norm(bd - a @ x) / cp.linalg.norm(bd))
            times = []
            for i in range(args.repeats + 1):
                start, stop = cp.cuda.Event(), cp.cuda.Event()
                start.record()
                cla.cg(a, bd, **kwargs)
                stop.record()
                stop.synchronize()
                if i > 0:
                    times.append(cp.cuda.get_elapsed_time(start, stop) * 1e-3)
            times.sort()
            med = times[len(times) // 2] if len(times) % 2 else 0.5 * (
                times[len(times) // 2 - 1] + times[len(times) // 2])
            converged = true_res <= 10 * args.tol
            results.append({"problem": name, "config": config, "backend": "cupy",
                            "device": cp.cuda.runtime.getDeviceProperties(0)["name"].decode(),
                            "rows": n, "nnz": nnz, "iterations": iterations,
                            "converged": converged, "true_relative_residual": true_res,
                            "solve_seconds_median": med, "solve_seconds_min": times[0],
                            "seconds_per_iteration": med / max(1, iterations)})
            print(f"{name:16} {config:12} {'yes' if converged else 'NO':>6} {iterations:6d} "
                  f"{1e6 * med / max(1, iterations):9.1f} {1e3 * med:10.2f}", flush=True)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"schema": "prism.bench_cupy/1", "results": results}, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
