// Benchmark of whole PCG solves: for each problem file and configuration (none,
// jacobi, ic0 natural, ic0 color), the set-up cost, iterations, time per iteration,
// time to solution (median of --repeats solves timed as a whole) and the per-phase
// breakdown (one extra solve with per-phase events), against the bytes-moved bound (the
// timed solves' modeled bytes) at the device-to-device copy bandwidth measured in the
// same run (on the cpu backend: a host copy on all its threads); Eigen's
// IncompleteCholesky CG on the CPU as a peer (its SpMV on Eigen's OpenMP threads,
// --eigen-threads, default all). Prints a table, writes JSON.
//
//   bench_pcg [--repeats N] [--json FILE] [--dump-dir DIR] [--no-eigen]
//             [--backend auto|cpu|cuda] [--cpu-kernels threaded,reference]
//             [--eigen-threads N] [--configs LIST] [--columns K] [--on-backend]
//             [--setup-repeats N] PROBLEM.yaml...
// --setup-repeats N: N set-ups of each configuration's solver (default 1); the set-up time is
// their median and the steps the last one's, and the first one's wall time is kept apart (a
// process's first set-up also pays the device's first calls).
// --columns K (K >= 2): also times K right-hand sides solved together against one solve
// and K single solves (tools/bench_columns.hpp), a line after each row.
// --on-backend: also times solve_on_backend() with b and x already in device memory (host
// memory on the cpu backend) beside solve() on host vectors (tools/bench_on_backend.hpp),
// whole calls and iteration loops, a line after each row.
// --cpu-kernels (backend cpu): the kernels to run each configuration with, one row each
// (reference rows are named CONFIG-ref); the threads are the machine's or
// PRISM_HOST_THREADS.
// refactor_on_backend() is timed as the median of max(--repeats, 10) calls on one device
// buffer (the way a time loop calls it), refactor() from the host of --repeats calls.
// --dump-dir writes each matrix and right-hand side as raw binary for
// tools/bench_cupy.py (int64 n, int64 nnz, int32 row_ptr[n+1], int32 col[nnz],
// float64 val[nnz]; rhs: float64[n]).

#include <prism/errors.hpp>
#include <prism/problem.hpp>
#include <prism/solver.hpp>

#include "bench_columns.hpp"
#include "bench_on_backend.hpp"
#include "common/host_array.hpp"
#include "common/parallel.hpp"
#include "io/atomic_file.hpp"
#include "io/json_writer.hpp"
#include "kernels/host/threaded.hpp"

#if defined(PRISM_BENCH_CUDA)
#include <cuda_runtime.h>
#endif

#include <Eigen/IterativeLinearSolvers>
#include <Eigen/SparseCore>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

namespace {

using clock_type = std::chrono::steady_clock;

constexpr int kRefactorCalls = 10;  // fewest timed refactor_on_backend() calls

double since(clock_type::time_point t) {
  return std::chrono::duration<double>(clock_type::now() - t).count();
}

struct Config {
  std::string name;
  std::string preconditioner;
  prism::Ordering ordering;
  prism::TrisolveAlgorithm trisolve = prism::TrisolveAlgorithm::automatic;
  prism::SpmvAlgorithm spmv = prism::SpmvAlgorithm::automatic;
  prism::Ic0Factorization factorization = prism::Ic0Factorization::automatic;
  prism::Precision precision = prism::Precision::fp64;
  prism::GraphMode graph = prism::GraphMode::automatic;  ///< of the timed solves
  prism::ColorsetLayout layout = prism::ColorsetLayout::automatic;
  prism::ColoringMethod coloring = prism::ColoringMethod::greedy;
  int colors = 8;     ///< level_cyclic only
  int supernode = 0;  ///< block_ic only: the largest supernode (0: node blocks)
  prism::BlockIcSolve block_solve = prism::BlockIcSolve::inverted;  ///< block_ic only
  prism::SetupSite setup = prism::SetupSite::automatic;
};

Config block_ic(std::string name, int supernode, prism::Precision precision,
                prism::BlockIcSolve solve = prism::BlockIcSolve::inverted) {
  Config c{std::move(name), "block_ic", prism::Ordering::color};
  c.supernode = supernode;
  c.precision = precision;
  c.block_solve = solve;
  return c;
}

Config with_setup(Config c, prism::SetupSite setup,
                  prism::ColoringMethod coloring = prism::ColoringMethod::greedy) {
  c.setup = setup;
  c.coloring = coloring;
  return c;
}

// ic0-color-cusparse and ic0-color solve with the same colored factor: cuSPARSE alone
// (SpSV + SpMV) against prism's own kernels (auto: colorset and csr_vector on the GPU).
// The timed solves use timing: total, so graph: auto runs the iterations as a CUDA graph
// while loop on the GPU (convergence tested on the device); ic0-color-replay replays the
// graph between host checks instead, ic0-color-launches launches every kernel one by one.
const std::vector<Config> kAllConfigs{
    {"none", "none", prism::Ordering::natural},
    {"jacobi", "jacobi", prism::Ordering::natural},
    // The SpMV layouts side by side (on the cpu backend csr_vector is its CSR SpMV).
    {"jacobi-csr", "jacobi", prism::Ordering::natural, prism::TrisolveAlgorithm::automatic,
     prism::SpmvAlgorithm::csr_vector},
    {"jacobi-sell", "jacobi", prism::Ordering::natural, prism::TrisolveAlgorithm::automatic,
     prism::SpmvAlgorithm::sell},
    {"ic0-natural", "ic0", prism::Ordering::natural},
    {"ic0-color-cusparse", "ic0", prism::Ordering::color, prism::TrisolveAlgorithm::cusparse,
     prism::SpmvAlgorithm::cusparse},
    {"ic0-color", "ic0", prism::Ordering::color},
    {"ic0-color-device-factor", "ic0", prism::Ordering::color, prism::TrisolveAlgorithm::automatic,
     prism::SpmvAlgorithm::automatic, prism::Ic0Factorization::backend},
    {"ic0-color-replay", "ic0", prism::Ordering::color, prism::TrisolveAlgorithm::automatic,
     prism::SpmvAlgorithm::automatic, prism::Ic0Factorization::automatic, prism::Precision::fp64,
     prism::GraphMode::on},
    {"ic0-color-launches", "ic0", prism::Ordering::color, prism::TrisolveAlgorithm::automatic,
     prism::SpmvAlgorithm::automatic, prism::Ic0Factorization::automatic, prism::Precision::fp64,
     prism::GraphMode::off},
    {"ic0-color-mixed", "ic0", prism::Ordering::color, prism::TrisolveAlgorithm::automatic,
     prism::SpmvAlgorithm::automatic, prism::Ic0Factorization::backend, prism::Precision::mixed},
    {"ic0-color-csr", "ic0", prism::Ordering::color, prism::TrisolveAlgorithm::colorset,
     prism::SpmvAlgorithm::cusparse, prism::Ic0Factorization::automatic, prism::Precision::fp64,
     prism::GraphMode::automatic, prism::ColorsetLayout::csr},
    {"ic0-color-sell", "ic0", prism::Ordering::color, prism::TrisolveAlgorithm::colorset,
     prism::SpmvAlgorithm::sell, prism::Ic0Factorization::automatic, prism::Precision::fp64,
     prism::GraphMode::automatic, prism::ColorsetLayout::sell},
    // prism's CSR kernels both (the cpu backend's CSR SpMV and color-set solves).
    {"ic0-color-csr-vector", "ic0", prism::Ordering::color, prism::TrisolveAlgorithm::colorset,
     prism::SpmvAlgorithm::csr_vector, prism::Ic0Factorization::automatic, prism::Precision::fp64,
     prism::GraphMode::automatic, prism::ColorsetLayout::csr},
    // Level-cyclic coloring (coloring.method: level_cyclic) with 8 and 16 colors.
    {"ic0-cyclic8", "ic0", prism::Ordering::color, prism::TrisolveAlgorithm::automatic,
     prism::SpmvAlgorithm::automatic, prism::Ic0Factorization::automatic, prism::Precision::fp64,
     prism::GraphMode::automatic, prism::ColorsetLayout::automatic,
     prism::ColoringMethod::level_cyclic, 8},
    {"ic0-cyclic16", "ic0", prism::Ordering::color, prism::TrisolveAlgorithm::automatic,
     prism::SpmvAlgorithm::automatic, prism::Ic0Factorization::automatic, prism::Precision::fp64,
     prism::GraphMode::automatic, prism::ColorsetLayout::automatic,
     prism::ColoringMethod::level_cyclic, 16},
    {"ic0-cyclic8-mixed", "ic0", prism::Ordering::color, prism::TrisolveAlgorithm::automatic,
     prism::SpmvAlgorithm::automatic, prism::Ic0Factorization::automatic, prism::Precision::mixed,
     prism::GraphMode::automatic, prism::ColorsetLayout::automatic,
     prism::ColoringMethod::level_cyclic, 8},
    // The parallel coloring (coloring.method: jones_plassmann; on the GPU with backend cuda).
    {"ic0-color-jp", "ic0", prism::Ordering::color, prism::TrisolveAlgorithm::automatic,
     prism::SpmvAlgorithm::automatic, prism::Ic0Factorization::automatic, prism::Precision::fp64,
     prism::GraphMode::automatic, prism::ColorsetLayout::automatic,
     prism::ColoringMethod::jones_plassmann},
    // Greedy's coloring by parallel ordered rounds (coloring.method: parallel_greedy).
    {"ic0-color-pgreedy", "ic0", prism::Ordering::color, prism::TrisolveAlgorithm::automatic,
     prism::SpmvAlgorithm::automatic, prism::Ic0Factorization::automatic, prism::Precision::fp64,
     prism::GraphMode::automatic, prism::ColorsetLayout::automatic,
     prism::ColoringMethod::parallel_greedy},
    // The same with the storage built on the host and uploaded (solver.setup: host).
    {"ic0-color-pgreedy-hostsetup", "ic0", prism::Ordering::color,
     prism::TrisolveAlgorithm::automatic, prism::SpmvAlgorithm::automatic,
     prism::Ic0Factorization::automatic, prism::Precision::fp64, prism::GraphMode::automatic,
     prism::ColorsetLayout::automatic, prism::ColoringMethod::parallel_greedy, 8, 0,
     prism::BlockIcSolve::inverted, prism::SetupSite::host},
    // Block IC(0) on the node blocks found from the pattern, and on supernodes.
    block_ic("block_ic", 0, prism::Precision::fp64),
    block_ic("block_ic-mixed", 0, prism::Precision::mixed),
    block_ic("block_ic-sn12", 12, prism::Precision::fp64),
    block_ic("block_ic-sn24", 24, prism::Precision::fp64),
    block_ic("block_ic-sn48", 48, prism::Precision::fp64),
    block_ic("block_ic-sn24-mixed", 24, prism::Precision::mixed),
    block_ic("block_ic-trsv", 0, prism::Precision::fp64, prism::BlockIcSolve::trsv),
    block_ic("block_ic-trsv-mixed", 0, prism::Precision::mixed, prism::BlockIcSolve::trsv),
    block_ic("block_ic-sn12-trsv", 12, prism::Precision::fp64, prism::BlockIcSolve::trsv),
    block_ic("block_ic-sn24-trsv", 24, prism::Precision::fp64, prism::BlockIcSolve::trsv),
    // The line preconditioners on the lines find_lines recovers (their own order).
    {"line_jacobi", "line_jacobi", prism::Ordering::automatic},
    {"line_ic", "line_ic", prism::Ordering::automatic},
    // What preconditioner: auto resolves to on each matrix (ic0, block_ic or line_ic).
    {"auto", "auto", prism::Ordering::automatic},
    // A problem file's defaults (type auto, coloring auto): what a user gets; and the same
    // with the set-up's storage built on the host (solver.setup: host).
    with_setup({"default", "auto", prism::Ordering::automatic}, prism::SetupSite::automatic,
               prism::ColoringMethod::automatic),
    with_setup({"default-hostsetup", "auto", prism::Ordering::automatic}, prism::SetupSite::host,
               prism::ColoringMethod::automatic),
    with_setup(block_ic("block_ic-hostsetup", 0, prism::Precision::fp64), prism::SetupSite::host),
    with_setup({"line_ic-hostsetup", "line_ic", prism::Ordering::automatic},
               prism::SetupSite::host)};

struct Result {
  std::string problem, config, backend, device, trisolve, trisolve_layout, spmv, cpu_kernels;
  std::string preconditioner;  ///< the type that ran (what auto chose)
  bool graph = false;          ///< the timed solves replayed a CUDA graph
  bool device_loop = false;    ///< ... as a device-side loop (convergence tested there)
  long long rows = 0, nnz = 0;
  int colors = 0, levels = 0;
  bool converged = false;
  int iterations = 0;
  double setup_wall = 0, first_setup_wall = 0, coloring = 0, analysis = 0, factorization = 0,
         upload = 0;
  prism::SetupReport setup_steps;  ///< solver.setup_report() of the timed set-up
  double shift = 0;
  int retries = 0;
  double solve_median = 0, solve_min = 0;
  double refactor_wall = 0, refactor_factorization = 0;  // medians
  double refactor_backend_wall = 0;  ///< refactor_on_backend(), values in device memory
  double bytes_per_iteration = 0, bandwidth = 0;
  double true_residual = 0;
  prism::PhaseArray phase_per_iteration{}, phase_bytes_per_iteration{};
  bench::ColumnsTiming columns;       ///< --columns
  bench::OnBackendTiming on_backend;  ///< --on-backend
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

void dump_binary(const std::string& dir, const std::string& name, const prism::Problem& p) {
  std::ofstream m(dir + "/" + name + ".csr.bin", std::ios::binary);
  const long long n = p.a.rows, nnz = p.a.nnz();
  m.write(reinterpret_cast<const char*>(&n), sizeof n);
  m.write(reinterpret_cast<const char*>(&nnz), sizeof nnz);
  m.write(reinterpret_cast<const char*>(p.a.row_ptr.data()), (n + 1) * sizeof(prism::index_t));
  m.write(reinterpret_cast<const char*>(p.a.col_idx.data()), nnz * sizeof(prism::index_t));
  m.write(reinterpret_cast<const char*>(p.a.values.data()), nnz * sizeof(double));
  std::ofstream r(dir + "/" + name + ".rhs.bin", std::ios::binary);
  r.write(reinterpret_cast<const char*>(p.b.data()), n * sizeof(double));
  if (!m || !r) throw prism::IoError("cannot write the binary dump in " + dir);
}

/// The host's memory bandwidth, bytes/s, the best of five on every host thread: a large
/// copy (16 B an element, as STREAM's copy counts them) and a read-only sum (8 B an
/// element). A PCG iteration mostly reads, and reads outrun copies on some hosts (no write
/// stream), so the cpu backend's bound is the larger of the two.
struct HostBandwidth {
  double copy = 0.0, read = 0.0;
  double bound() const { return std::max(copy, read); }
};

HostBandwidth host_bandwidth() {
  const prism::index_t n = prism::index_t{1} << 26;  // 512 MiB an array
  // Each thread first touches the part it streams, so that on a NUMA host the pages sit
  // on its node, as the solver's own arrays do.
  prism::common::HostArray<double> a(static_cast<std::size_t>(n)), b(static_cast<std::size_t>(n));
  const int threads = prism::common::host_threads();
  prism::kernels::host::fill(threads, n, 1.0, a.data());
  prism::kernels::host::fill(threads, n, 0.0, b.data());
  HostBandwidth best;
  double sink = 0.0;
  for (int i = 0; i < 5; ++i) {
    auto start = clock_type::now();
    prism::kernels::host::copy(threads, n, a.data(), b.data());
    best.copy = std::max(best.copy, 16.0 * n / since(start));
    start = clock_type::now();
    sink += prism::kernels::host::dot(threads, n, a.data(), a.data());
    best.read = std::max(best.read, 8.0 * n / since(start));
  }
  if (sink != 5.0 * n) throw prism::Error("bench_pcg: the host bandwidth sum is wrong");
  return best;
}

Result run_prism(const prism::ProblemSpec& spec, const prism::Problem& p, const Config& c,
                 prism::BackendKind backend, prism::CpuKernels kernels, int repeats, int columns,
                 bool on_backend, int setup_repeats) {
  prism::SolverConfig config = spec.config;
  config.backend = backend;
  config.cpu_kernels = kernels;
  config.preconditioner.type = c.preconditioner;
  config.preconditioner.ordering = c.ordering;
  config.preconditioner.trisolve = c.trisolve;
  if (c.spmv != prism::SpmvAlgorithm::automatic) config.solver.spmv = c.spmv;
  config.preconditioner.ic0.factorization = c.factorization;
  config.preconditioner.ic0.precision = c.precision;
  config.preconditioner.colorset_layout = c.layout;
  config.preconditioner.coloring.method = c.coloring;
  config.preconditioner.coloring.colors = c.colors;
  config.preconditioner.block_ic.supernode = c.supernode;
  config.preconditioner.block_ic.precision = c.precision;
  config.preconditioner.block_ic.solve = c.block_solve;
  config.solver.setup = c.setup;
  config.solver.timing = prism::TimingMode::phases;
  config.solver.graph = prism::GraphMode::off;
  prism::Solver solver(config);
  Result r;
  r.problem = spec.name;
  r.config = c.name;
  r.rows = p.a.rows;
  r.nnz = p.a.nnz();
  std::vector<double> setups;
  for (int i = 0; i < setup_repeats; ++i) {
    const auto t = clock_type::now();
    solver.setup(p.a);
    setups.push_back(since(t));
  }
  r.first_setup_wall = setups.front();
  r.setup_wall = median(setups);
  const prism::SetupReport& s = solver.setup_report();
  r.setup_steps = s;
  r.coloring = s.coloring_seconds;
  r.analysis = s.check_seconds + s.permutation_seconds + s.analysis_seconds;
  r.factorization = s.factorization_seconds;
  r.upload = s.upload_seconds;

  // One solve with per-phase events: the breakdown.
  std::vector<double> x = p.x0;
  const prism::SolveReport phased = solver.solve(p.b, x);
  r.backend = phased.backend;
  r.device = phased.device;
  if (r.backend == "cpu") {
    r.cpu_kernels = std::string(prism::to_string(kernels));
    if (kernels == prism::CpuKernels::reference) r.config += "-ref";
  }
  r.trisolve = phased.trisolve;
  r.preconditioner = phased.preconditioner;
  r.trisolve_layout = phased.trisolve_layout;
  r.spmv = phased.spmv;
  r.colors = phased.ordering.colors.count;
  r.levels = phased.ordering.levels.count;
  r.converged = phased.converged();
  r.iterations = phased.iterations;
  r.shift = phased.factorization.shift;
  r.retries = phased.factorization.retries;
  r.true_residual = phased.true_relative_residual;
  r.bandwidth = phased.reference_bandwidth;
  const double its = std::max(1, phased.iterations);
  for (int ph = 0; ph < prism::kNumPhases; ++ph) {
    r.phase_per_iteration[ph] = phased.phase_seconds[ph] / its;
    r.phase_bytes_per_iteration[ph] = phased.phase_bytes[ph] / its;
  }

  // The speed: whole solves with nothing recorded inside the iteration.
  prism::SolverOptions total = config.solver;
  total.timing = prism::TimingMode::total;
  total.graph = c.graph;
  solver.set_solver_options(total);
  std::vector<double> times;
  for (int i = 0; i < repeats + 1; ++i) {
    x = p.x0;
    const prism::SolveReport rep = solver.solve(p.b, x);
    if (i > 0) times.push_back(rep.solve_seconds);  // the first is a warm-up
    r.graph = rep.graph;
    r.device_loop = rep.device_loop;
    // The bound counts the bytes of these solves: the fused steps, and a preconditioner
    // that forms (r, z) itself, move less than the phase-timed solve above.
    double bytes = 0.0;
    for (double b : rep.phase_bytes) bytes += b;
    r.bytes_per_iteration = bytes / std::max(1, rep.iterations);
  }
  r.solve_median = median(times);
  r.solve_min = *std::min_element(times.begin(), times.end());
  if (columns >= 2) r.columns = bench::time_columns(solver, p, columns, repeats);
  if (on_backend) r.on_backend = bench::time_on_backend(solver, p, repeats);

  // refactor(): new values on the same pattern (here the same values), as a time step.
  std::vector<double> walls, factors;
  for (int i = 0; i < repeats; ++i) {
    const auto start = clock_type::now();
    solver.refactor(p.a);
    walls.push_back(since(start));
    factors.push_back(solver.setup_report().factorization_seconds);
  }
  r.refactor_wall = median(walls);
  r.refactor_factorization = median(factors);

  // refactor_on_backend(): the same values, already where the backend reads them (a GPU
  // assembly's output on the cuda backend; host memory on the cpu backend).
  const std::size_t nnz = p.a.values.size();
  const double* values = p.a.values.data();
#if defined(PRISM_BENCH_CUDA)
  double* device_values = nullptr;
  if (solver.backend_name() == "cuda") {
    if (cudaMalloc(reinterpret_cast<void**>(&device_values), nnz * sizeof(double)) != cudaSuccess ||
        cudaMemcpy(device_values, values, nnz * sizeof(double), cudaMemcpyHostToDevice) !=
            cudaSuccess) {
      throw prism::BackendError("bench_pcg: cannot place the values in device memory");
    }
    cudaDeviceSynchronize();  // the pageable copy may still be in flight
    values = device_values;
  }
#endif
  // At least 10 calls (each costs a few iterations): the second records what the later
  // ones with the same pointer replay, so a median of 3 would time no replay at all.
  walls.clear();
  for (int i = 0; i < std::max(repeats, kRefactorCalls); ++i) {
    const auto start = clock_type::now();
    solver.refactor_on_backend(values, nnz);
    walls.push_back(since(start));
  }
  r.refactor_backend_wall = median(walls);
#if defined(PRISM_BENCH_CUDA)
  cudaFree(device_values);
#endif
  return r;
}

Result run_eigen(const prism::ProblemSpec& spec, const prism::Problem& p) {
  Result r;
  r.problem = spec.name;
  r.config = "eigen-ic-cg";
  r.backend = "eigen";
  r.device = "host CPU, " + std::to_string(Eigen::nbThreads()) + " threads (SpMV)";
  r.rows = p.a.rows;
  r.nnz = p.a.nnz();
  std::vector<Eigen::Triplet<double>> t;
  t.reserve(p.a.values.size());
  for (prism::index_t i = 0; i < p.a.rows; ++i) {
    for (prism::index_t k = p.a.row_ptr[i]; k < p.a.row_ptr[i + 1]; ++k) {
      t.emplace_back(i, p.a.col_idx[k], p.a.values[k]);
    }
  }
  // Row-major with Lower | Upper: the form whose SpMV Eigen runs on its OpenMP threads.
  Eigen::SparseMatrix<double, Eigen::RowMajor> a(p.a.rows, p.a.cols);
  a.setFromTriplets(t.begin(), t.end());
  Eigen::ConjugateGradient<Eigen::SparseMatrix<double, Eigen::RowMajor>,
                           Eigen::Lower | Eigen::Upper, Eigen::IncompleteCholesky<double>>
      cg;
  cg.setTolerance(spec.config.solver.tolerance);
  cg.setMaxIterations(spec.config.solver.max_iterations);
  auto start = clock_type::now();
  cg.compute(a);
  r.setup_wall = r.factorization = since(start);
  const Eigen::Map<const Eigen::VectorXd> b(p.b.data(), p.b.size());
  start = clock_type::now();
  const Eigen::VectorXd x = cg.solve(b);
  r.solve_median = r.solve_min = since(start);
  r.iterations = static_cast<int>(cg.iterations());
  r.converged = cg.info() == Eigen::Success;
  r.true_residual = (b - a * x).norm() / b.norm();
  return r;
}

void write_json(const std::string& path, const std::vector<Result>& results,
                const HostBandwidth& host) {
  prism::io::JsonWriter w;
  w.begin_object();
  w.key("schema").value("prism.bench_pcg/1");
  w.key("results").begin_array();
  for (const Result& r : results) {
    w.begin_object();
    w.key("problem").value(r.problem);
    w.key("config").value(r.config);
    w.key("backend").value(r.backend);
    w.key("device").value(r.device);
    if (!r.cpu_kernels.empty()) w.key("cpu_kernels").value(r.cpu_kernels);
    w.key("trisolve").value(r.trisolve);
    w.key("preconditioner").value(r.preconditioner);
    if (!r.trisolve_layout.empty()) w.key("trisolve_layout").value(r.trisolve_layout);
    if (!r.spmv.empty()) w.key("spmv").value(r.spmv);
    w.key("graph").value(r.graph);
    w.key("device_loop").value(r.device_loop);
    w.key("rows").value(r.rows);
    w.key("nnz").value(r.nnz);
    w.key("colors").value(r.colors);
    w.key("levels").value(r.levels);
    w.key("converged").value(r.converged);
    w.key("iterations").value(r.iterations);
    if (r.columns.k > 0) {
      w.key("columns").begin_object();
      w.key("k").value(r.columns.k);
      w.key("converged").value(r.columns.converged);
      w.key("iterations").value(r.columns.iterations);
      w.key("preconditioner_reads_once").value(r.columns.reads_once);
      w.key("device_loop").value(r.columns.device_loop);
      w.key("seconds_together").value(r.columns.multi);
      w.key("seconds_one").value(r.columns.one);
      w.key("seconds_singles").value(r.columns.singles);
      w.end_object();
    }
    if (r.on_backend.measured) {
      const bench::OnBackendTiming& o = r.on_backend;
      w.key("on_backend").begin_object();
      w.key("iterations").value(o.iterations);
      w.key("same_x").value(o.same_x);
      w.key("call_seconds").value(o.call);
      w.key("loop_seconds").value(o.loop);
      w.key("host_call_seconds").value(o.host_call);
      w.key("host_loop_seconds").value(o.host_loop);
      w.end_object();
    }
    w.key("true_relative_residual").value(r.true_residual);
    w.key("setup").begin_object();
    w.key("wall_seconds").value(r.setup_wall);
    w.key("first_wall_seconds").value(r.first_setup_wall);
    w.key("coloring_seconds").value(r.coloring);
    w.key("analysis_seconds").value(r.analysis);
    w.key("factorization_seconds").value(r.factorization);
    w.key("upload_seconds").value(r.upload);
    w.key("ic0_shift").value(r.shift);
    w.key("ic0_retries").value(r.retries);
    // Each step of SetupReport apart (analysis_seconds above is check + permutation +
    // analysis).
    const prism::SetupReport& st = r.setup_steps;
    w.key("steps").begin_object();
    w.key("check_seconds").value(st.check_seconds);
    w.key("coloring_seconds").value(st.coloring_seconds);
    w.key("permutation_seconds").value(st.permutation_seconds);
    w.key("analysis_seconds").value(st.analysis_seconds);
    w.key("factorization_seconds").value(st.factorization_seconds);
    w.key("upload_seconds").value(st.upload_seconds);
    w.key("total_seconds").value(st.total_seconds);
    w.end_object();
    // Finer steps inside those (SetupReport::steps), in the order they ran.
    w.key("step_detail").begin_array();
    for (const prism::SetupStep& step : st.steps) {
      w.begin_object();
      w.key("name").value(step.name);
      w.key("seconds").value(step.seconds);
      w.key("device").value(step.device);
      w.end_object();
    }
    w.end_array();
    w.end_object();
    w.key("refactor").begin_object();
    w.key("wall_seconds").value(r.refactor_wall);
    w.key("factorization_seconds").value(r.refactor_factorization);
    w.key("on_backend_wall_seconds").value(r.refactor_backend_wall);
    w.end_object();
    w.key("solve_seconds_median").value(r.solve_median);
    w.key("solve_seconds_min").value(r.solve_min);
    const double per_it = r.iterations > 0 ? r.solve_median / r.iterations : 0.0;
    w.key("seconds_per_iteration").value(per_it);
    w.key("bytes_per_iteration").value(r.bytes_per_iteration);
    w.key("copy_bandwidth_bytes_per_second").value(r.bandwidth);
    if (r.backend == "cpu") {
      w.key("host_copy_bandwidth_bytes_per_second").value(host.copy);
      w.key("host_read_bandwidth_bytes_per_second").value(host.read);
    }
    if (r.bandwidth > 0.0 && per_it > 0.0) {
      const double bound = r.bytes_per_iteration / r.bandwidth;
      w.key("bound_seconds_per_iteration").value(bound);
      w.key("percent_of_bound").value(100.0 * bound / per_it);
    }
    w.key("phases_per_iteration").begin_object();
    for (int ph = 0; ph < prism::kNumPhases; ++ph) {
      if (r.phase_bytes_per_iteration[ph] == 0.0) continue;
      w.key(prism::phase_name(static_cast<prism::Phase>(ph))).begin_object();
      w.key("seconds").value(r.phase_per_iteration[ph]);
      w.key("bytes").value(r.phase_bytes_per_iteration[ph]);
      w.end_object();
    }
    w.end_object();
    w.end_object();
  }
  w.end_array();
  w.end_object();
  prism::io::write_file_atomically(path, [&](std::ostream& out) { out << w.str(); });
}

void print_row(const Result& r) {
  const double per_it = r.iterations > 0 ? r.solve_median / r.iterations : 0.0;
  const double bound = r.bandwidth > 0.0 ? r.bytes_per_iteration / r.bandwidth : 0.0;
  std::printf(
      "%-16s %-23s %-9s %5s %5s %6d %9.1f %10.2f %8.3f %9.3f %8.1f%% %9.4f %9.4f %9.4f %9.5f "
      "%7.1f %5d\n",
      r.problem.c_str(), r.config.c_str(), r.trisolve.empty() ? "-" : r.trisolve.c_str(),
      r.device_loop ? "loop"
      : r.graph     ? "yes"
                    : "no",
      r.converged ? "yes" : "NO", r.iterations, per_it * 1e6, r.solve_median * 1e3, r.setup_wall,
      bound * 1e6, per_it > 0 && bound > 0 ? 100.0 * bound / per_it : 0.0, r.factorization,
      r.refactor_wall, r.refactor_factorization, r.refactor_backend_wall,
      per_it > 0 ? r.refactor_backend_wall / per_it : 0.0, r.colors);
}

/// The set-up's steps (SetupReport) in ms: the groups, then the finer steps inside them.
void print_setup(const Result& r) {
  const prism::SetupReport& s = r.setup_steps;
  if (s.total_seconds <= 0.0) return;  // Eigen's rows
  std::printf(
      "%-16s %-23s setup %.1f ms: check %.1f, coloring %.1f, permutation %.1f, analysis %.1f, "
      "factorization %.1f, upload %.1f\n",
      r.problem.c_str(), r.config.c_str(), s.total_seconds * 1e3, s.check_seconds * 1e3,
      s.coloring_seconds * 1e3, s.permutation_seconds * 1e3, s.analysis_seconds * 1e3,
      s.factorization_seconds * 1e3, s.upload_seconds * 1e3);
  for (const prism::SetupStep& step : s.steps) {
    std::printf("%-16s %-23s   %-52s %8.1f ms%s\n", r.problem.c_str(), r.config.c_str(),
                step.name.c_str(), step.seconds * 1e3, step.device ? " (device)" : "");
  }
}

/// --columns: the K columns together against one solve and K single solves.
void print_columns(const Result& r) {
  const bench::ColumnsTiming& c = r.columns;
  if (c.k == 0) return;
  std::printf(
      "%-16s %-23s %d columns together %.2f ms (%.2f ms a column%s), one solve %.2f ms, "
      "%d single solves %.2f ms: %.2fx one, %.2fx the singles; factor read %s%s\n",
      r.problem.c_str(), r.config.c_str(), c.k, c.multi * 1e3, c.multi * 1e3 / c.k,
      c.converged ? "" : ", NOT all converged", c.one * 1e3, c.k, c.singles * 1e3,
      c.one > 0 ? c.multi / c.one : 0.0, c.singles > 0 ? c.multi / c.singles : 0.0,
      c.reads_once ? "once" : "per column", c.device_loop ? "; device loop" : "");
}

/// --on-backend: solve_on_backend() against solve() on host vectors.
void print_on_backend(const Result& r) {
  const bench::OnBackendTiming& o = r.on_backend;
  if (!o.measured) return;
  std::printf(
      "%-16s %-23s on backend: call %.3f ms (its loop %.3f ms, %.3fx), %d iterations; host "
      "vectors: call %.3f ms (loop %.3f ms); on backend / host call %.3fx; x %s\n",
      r.problem.c_str(), r.config.c_str(), o.call * 1e3, o.loop * 1e3,
      o.loop > 0 ? o.call / o.loop : 0.0, o.iterations, o.host_call * 1e3, o.host_loop * 1e3,
      o.host_call > 0 ? o.call / o.host_call : 0.0, o.same_x ? "equal bit for bit" : "DIFFERS");
}

std::vector<prism::CpuKernels> parse_kernels(const std::string& list) {
  std::vector<prism::CpuKernels> out;
  std::size_t start = 0;
  while (start <= list.size()) {
    const std::size_t comma = std::min(list.find(',', start), list.size());
    prism::CpuKernels k{};
    if (!prism::from_string(list.substr(start, comma - start), k)) {
      throw prism::ConfigError("bad --cpu-kernels (a list of threaded, reference)");
    }
    out.push_back(k);
    start = comma + 1;
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  int repeats = 5;
  int columns = 0;
  int setup_repeats = 1;
  bool on_backend = false;
  std::string json_path, dump_dir,
      configs =
          ",none,jacobi,ic0-natural,ic0-color-cusparse,ic0-color,ic0-color-launches,block_ic,";
  bool eigen = true;
  prism::BackendKind backend = prism::BackendKind::automatic;
  std::vector<prism::CpuKernels> cpu_kernels{prism::CpuKernels::threaded};
  std::vector<std::string> problems;
  try {
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      auto next = [&]() -> std::string {
        if (i + 1 >= argc) throw prism::ConfigError(a + " needs a value");
        return argv[++i];
      };
      if (a == "--repeats") {
        repeats = std::max(1, std::stoi(next()));
      } else if (a == "--json") {
        json_path = next();
      } else if (a == "--dump-dir") {
        dump_dir = next();
      } else if (a == "--no-eigen") {
        eigen = false;
      } else if (a == "--configs") {
        configs = "," + next() + ",";
      } else if (a == "--backend") {
        if (!prism::from_string(next(), backend)) throw prism::ConfigError("bad --backend");
      } else if (a == "--cpu-kernels") {
        cpu_kernels = parse_kernels(next());
      } else if (a == "--columns") {
        columns = std::stoi(next());
        if (columns < 2) throw prism::ConfigError("--columns needs 2 or more");
      } else if (a == "--setup-repeats") {
        setup_repeats = std::max(1, std::stoi(next()));
      } else if (a == "--on-backend") {
        on_backend = true;
      } else if (a == "--eigen-threads") {
        Eigen::setNbThreads(std::max(1, std::stoi(next())));
      } else {
        problems.push_back(a);
      }
    }
    if (problems.empty()) {
      std::fprintf(stderr, "usage: bench_pcg [options] PROBLEM.yaml...\n");
      return 1;
    }
    std::printf("%-16s %-23s %-9s %5s %5s %6s %9s %10s %8s %9s %9s %9s %9s %9s %9s %7s %5s\n",
                "problem", "config", "trisolve", "graph", "conv", "iters", "us/iter", "solve ms",
                "setup s", "bound us", "% bound", "factor s", "refac s", "refac f s", "refac dev",
                "dev/it", "colors");
    std::vector<Result> results;
    HostBandwidth host;  // measured before the first cpu row
    for (const std::string& file : problems) {
      const prism::ProblemSpec spec = prism::load_problem_file(file);
      const prism::Problem p = prism::assemble_problem(spec);
      if (!dump_dir.empty()) dump_binary(dump_dir, spec.name, p);
      for (const Config& c : kAllConfigs) {
        if (configs.find("," + c.name + ",") == std::string::npos) continue;
        for (prism::CpuKernels kernels : cpu_kernels) {
          // The kernels choice only matters on the cpu backend.
          if (backend != prism::BackendKind::cpu && kernels != cpu_kernels.front()) continue;
          try {
            results.push_back(run_prism(spec, p, c, backend, kernels, repeats, columns, on_backend,
                                        setup_repeats));
          } catch (const prism::ConfigError& e) {  // e.g. cusparse on the cpu backend
            std::printf("%-16s %-23s skipped: %s\n", spec.name.c_str(), c.name.c_str(), e.what());
            continue;
          }
          Result& r = results.back();
          if (r.backend == "cpu") {
            if (host.bound() == 0.0) host = host_bandwidth();
            r.bandwidth = host.bound();
          }
          print_row(r);
          print_setup(r);
          print_columns(r);
          print_on_backend(r);
          std::fflush(stdout);
        }
      }
      if (eigen) {
        results.push_back(run_eigen(spec, p));
        print_row(results.back());
        std::fflush(stdout);
      }
    }
    if (host.bound() > 0.0) {
      std::printf(
          "host copy bandwidth %.0f GB/s, read bandwidth %.0f GB/s (measured in this run)\n",
          host.copy / 1e9, host.read / 1e9);
    } else if (!results.empty() && results.front().bandwidth > 0.0) {
      std::printf("device %s, device-to-device copy bandwidth %.0f GB/s (measured in this run)\n",
                  results.front().device.c_str(), results.front().bandwidth / 1e9);
    }
    if (!json_path.empty()) write_json(json_path, results, host);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_pcg: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
