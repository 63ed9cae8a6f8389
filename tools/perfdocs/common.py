"""Paths, the data files a benchmark run produces, and the error type shared by perfdocs."""
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
DATA = ROOT / "docs" / "perf" / "data"
META = DATA / "meta.json"

# Data files and the command that makes each (the default for `import`).
DATA_FILES = {
    "prism.json": "NO_EIGEN=1 bash tools/gpu_bench.sh",
    "cupy.json": "NO_EIGEN=1 bash tools/gpu_bench.sh",
    "trisolve.json": "NO_EIGEN=1 bash tools/gpu_bench.sh",
    "dense_triangular.json": "KERNELS=dense_triangular bash tools/gpu_kernels.sh",
    "batched_factor.json": "KERNELS=batched_factor bash tools/gpu_kernels.sh",
    "tridiagonal.json": "KERNELS=tridiagonal bash tools/gpu_kernels.sh",
    "fem.json": "bash tools/gpu_bench_fem.sh",
    "cupy_fem.json": "bash tools/gpu_bench_fem.sh",
    "spmv.json": "build-gpu/tools/bench_spmv spmv.json",
    "cpu.json": "bash tools/gpu_bench_cpu.sh",
    "setup.json": "bash tools/gpu_bench_setup.sh",
    "distributed.json": "GPUS=2 bash tools/gpu_bench_distributed.sh",
}


class Error(Exception):
    pass


def rel(path):
    try:
        return str(Path(path).resolve().relative_to(ROOT))
    except ValueError:
        return str(path)
