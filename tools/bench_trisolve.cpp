// Benchmark of the IC(0) triangular solves alone, timed on the GPU the way a busy stream or
// the PCG loop's CUDA graph runs them: each variant's solves are recorded into one CUDA
// graph (`--solves` applies back to back; a tenth of them for the natural-order SpSV),
// replayed, and timed as a whole, so no host launch and no other phase of the iteration
// counts. Each problem file's matrix is ordered by the default greedy coloring (natural
// vertex order); for each:
//
//   halves         the IC(0) apply PCG runs (forward and backward halves, the default
//                  factor storage and layout, factored on the GPU), per triangular solve;
//   halves mixed   the same with the factor in float (`precision: mixed`);
//   colorset       the two plain color-set solves on the same factor;
//   spsv colored   cusparseSpSV on the same colored factor (factored on the host);
//   spsv natural   cusparseSpSV on the natural-order factor (the level-set baseline).
//
// (cuSPARSE's solves are launched one by one, and named so, where they cannot be recorded.)
// Each is reported in µs per triangular solve (the median of --replays replays, divided by
// the solves in the graph) and in % of the device-to-device copy bandwidth for its modeled
// bytes (the PCG benchmark's: (value + index bytes) per factor entry and 28 bytes per row,
// less what the halves fold away), measured in the same run.
//
//   bench_trisolve [--solves N] [--replays N] [--json FILE] [--no-natural] PROBLEM.yaml...

#include <prism/analysis.hpp>
#include <prism/errors.hpp>
#include <prism/problem.hpp>

#include "backend/backend.hpp"
#include "io/atomic_file.hpp"
#include "io/json_writer.hpp"
#include "precond/ic0_pattern.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace {

using prism::CsrMatrix;
using prism::index_t;
using prism::backend::Backend;
using prism::backend::Triangle;
using prism::backend::Vector;

struct Row {
  std::string problem, variant, device;
  index_t rows = 0, factor_nnz = 0;
  int colors = 0;
  double us_per_solve = 0.0, bytes_per_solve = 0.0, bandwidth = 0.0;
  double percent() const {
    return bandwidth > 0.0 ? 100.0 * bytes_per_solve / (us_per_solve * 1e-6) / bandwidth : 0.0;
  }
};

/// Median seconds of `replays` runs of `solves` calls of `body` recorded as one graph; where
/// the calls cannot be recorded, of `solves` calls launched one by one (*launched set).
double seconds_per_call(Backend& gpu, const std::function<void()>& body, int solves, int replays,
                        bool* launched = nullptr) {
  std::unique_ptr<prism::backend::Recording> graph;
  try {
    graph = gpu.record([&] {
      for (int i = 0; i < solves; ++i) body();
    });
  } catch (const prism::BackendError&) {
    if (!launched) throw;
    *launched = true;
  }
  const auto run = [&] {
    if (graph) {
      graph->replay();
    } else {
      for (int i = 0; i < solves; ++i) body();
    }
    gpu.synchronize();
  };
  run();  // warm-up
  std::vector<double> seconds;
  for (int i = 0; i < replays; ++i) {
    const auto t = std::chrono::steady_clock::now();
    run();
    seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count());
  }
  std::sort(seconds.begin(), seconds.end());
  return seconds[seconds.size() / 2] / solves;
}

/// Modeled bytes of one solve with a factor of `nnz` entries (diagonal included) on n rows,
/// values of `value_bytes` (ic0.cpp's bytes_per_apply, halved).
double solve_bytes(double nnz, double n, double value_bytes = 8.0) {
  return (value_bytes + 4.0) * nnz + 28.0 * n;
}

std::vector<double> random_vector(index_t n) {
  std::mt19937 gen(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> v(static_cast<std::size_t>(n));
  for (double& x : v) x = u(gen);
  return v;
}

/// cusparseSpSV's lower and upper solves on the factor of `a` (host factorization); *launched
/// as in seconds_per_call.
double spsv_seconds(Backend& gpu, const CsrMatrix<double>& a, Vector& b, Vector& y, Vector& x,
                    int solves, int replays, bool* launched) {
  prism::precond::Ic0Pattern pattern(a);
  pattern.factorize(a, prism::Ic0Options{});
  const prism::backend::TrisolveSpec spec{prism::TrisolveAlgorithm::cusparse};
  const auto lower = gpu.make_triangular_solver(pattern.lower(), Triangle::lower, spec);
  const auto upper = gpu.make_triangular_solver(pattern.upper(), Triangle::upper, spec);
  return seconds_per_call(
             gpu,
             [&] {
               lower->solve(b, y);
               upper->solve(y, x);
             },
             solves, replays, launched) /
         2.0;
}

void print_row(const Row& r) {
  std::printf("%-16s %-14s %9d %11d %6d %10.1f %9.1f %7.1f%%\n", r.problem.c_str(),
              r.variant.c_str(), r.rows, r.factor_nnz, r.colors, r.us_per_solve,
              r.bytes_per_solve / 1e6, r.percent());
  std::fflush(stdout);
}

void write_json(const std::string& path, const std::vector<Row>& rows) {
  prism::io::JsonWriter w;
  w.begin_object();
  w.key("schema").value("prism.bench_trisolve/1");
  w.key("results").begin_array();
  for (const Row& r : rows) {
    w.begin_object();
    w.key("problem").value(r.problem);
    w.key("variant").value(r.variant);
    w.key("device").value(r.device);
    w.key("rows").value(static_cast<long long>(r.rows));
    w.key("factor_nnz").value(static_cast<long long>(r.factor_nnz));
    w.key("colors").value(r.colors);
    w.key("us_per_solve").value(r.us_per_solve);
    w.key("bytes_per_solve").value(r.bytes_per_solve);
    w.key("copy_bandwidth_bytes_per_second").value(r.bandwidth);
    w.key("percent_of_copy_bandwidth").value(r.percent());
    w.end_object();
  }
  w.end_array();
  w.end_object();
  prism::io::write_file_atomically(path, [&](std::ostream& out) { out << w.str(); });
}

}  // namespace

int main(int argc, char** argv) {
  try {
    int solves = 50, replays = 7;
    bool natural = true;
    std::string json_path;
    std::vector<std::string> problems;
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      auto next = [&]() -> std::string {
        if (i + 1 >= argc) throw prism::ConfigError(a + " needs a value");
        return argv[++i];
      };
      if (a == "--solves") {
        solves = std::max(1, std::stoi(next()));
      } else if (a == "--replays") {
        replays = std::max(1, std::stoi(next()));
      } else if (a == "--json") {
        json_path = next();
      } else if (a == "--no-natural") {
        natural = false;
      } else {
        problems.push_back(a);
      }
    }
    if (problems.empty()) {
      std::fprintf(stderr, "usage: bench_trisolve [options] PROBLEM.yaml...\n");
      return 1;
    }
    std::string choice;
    const std::unique_ptr<Backend> gpu =
        prism::backend::make_backend(prism::BackendKind::cuda, &choice);
    const double bandwidth = gpu->reference_bandwidth();
    std::printf("%-16s %-14s %9s %11s %6s %10s %9s %8s\n", "problem", "variant", "rows",
                "factor nnz", "colors", "us/solve", "MB/solve", "% copy");
    std::vector<Row> rows;
    for (const std::string& file : problems) {
      const prism::ProblemSpec spec = prism::load_problem_file(file);
      const CsrMatrix<double> original = prism::assemble_matrix(spec.matrix);
      const prism::Coloring coloring = prism::color_matrix(original, prism::VertexOrder::natural);
      const CsrMatrix<double> a = prism::permute_symmetric(original, coloring.permutation);
      const index_t n = a.rows;
      auto b = gpu->make_vector(n), y = gpu->make_vector(n), x = gpu->make_vector(n);
      gpu->copy_from_host(random_vector(n), *b);

      prism::precond::Ic0Pattern pattern(a);
      const double nnz = static_cast<double>(pattern.lower().nnz());
      Row base{spec.name, "", gpu->device_name(), n, pattern.lower().nnz(), coloring.num_colors};
      base.bandwidth = bandwidth;
      base.bytes_per_solve = solve_bytes(nnz, n);

      // The GPU factor (default storage, double or float values): halves (as PCG applies
      // it) and, in double, the plain solves.
      for (const prism::Precision precision : {prism::Precision::fp64, prism::Precision::mixed}) {
        const bool mixed = precision == prism::Precision::mixed;
        auto engine = gpu->make_ic0_factor(pattern.lower(), pattern.upper(), pattern.upper_source(),
                                           pattern.lower_source(),
                                           {prism::TrisolveAlgorithm::automatic, precision});
        pattern.factorize(a, prism::Ic0Options{}, *engine);
        Row halves = base;
        halves.variant = "halves " + engine->layout() + (mixed ? " mixed" : "");
        if (mixed) halves.bytes_per_solve = solve_bytes(nnz, n, 4.0);
        halves.bytes_per_solve -= engine->apply_bytes_saved() / 2.0;
        halves.us_per_solve = 1e6 / 2.0 *
                              seconds_per_call(
                                  *gpu,
                                  [&] {
                                    engine->forward(*b, *y, *x, std::nullopt);
                                    engine->backward(*b, *y, *x, std::nullopt);
                                  },
                                  solves, replays);
        rows.push_back(halves);
        print_row(rows.back());
        if (mixed) continue;
        Row plain = base;
        plain.variant = "colorset " + engine->layout();
        plain.us_per_solve = 1e6 / 2.0 *
                             seconds_per_call(
                                 *gpu,
                                 [&] {
                                   engine->solve(Triangle::lower, *b, *y);
                                   engine->solve(Triangle::upper, *y, *x);
                                 },
                                 solves, replays);
        rows.push_back(plain);
        print_row(rows.back());
      }

      Row colored = base;
      colored.variant = "spsv colored";
      bool launched = false;
      colored.us_per_solve = 1e6 * spsv_seconds(*gpu, a, *b, *y, *x, solves, replays, &launched);
      if (launched) colored.variant += " (launched)";
      rows.push_back(colored);
      print_row(rows.back());
      if (natural) {
        Row level = base;
        level.variant = "spsv natural";
        level.colors = 0;
        launched = false;
        level.us_per_solve = 1e6 * spsv_seconds(*gpu, original, *b, *y, *x,
                                                std::max(1, solves / 10), replays, &launched);
        if (launched) level.variant += " (launched)";
        rows.push_back(level);
        print_row(rows.back());
      }
    }
    std::printf("device %s, device-to-device copy bandwidth %.0f GB/s (measured in this run)\n",
                gpu->device_name().c_str(), bandwidth / 1e9);
    if (!json_path.empty()) write_json(json_path, rows);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_trisolve: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
