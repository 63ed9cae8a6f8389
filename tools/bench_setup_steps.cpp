// Benchmark of two GPU set-up steps (issue 47) on each problem file's matrix:
//
//   coloring   the ordered greedy coloring on the device (coloring.method parallel_greedy,
//              natural vertex order): kernels::cuda::ordered_greedy_coloring from its call to
//              its return (it synchronizes), the pattern already in device memory; its colors
//              and rounds, and whether the colors equal the host reference's (checked once;
//              --no-reference skips it);
//   upload     the CSR arrays (row_ptr, col_idx, values) from the caller's pageable memory,
//              as the set-up session uploads them: plain cudaMemcpyAsync against
//              staged_upload (kernels/cuda/staged_upload.hpp), each to the end of the copy,
//              in ms and GB/s; the first staged upload, which pins the staging buffers, is
//              timed apart.
//
// --lanes L1,L2,...: the staged upload once per lane count (StagingPlan::lanes; default: the
// plan's own choice for this machine).
// Times are medians of --repeats runs (default 5), wall clock on the host.
//
//   bench_setup_steps [--repeats N] [--no-reference] [--lanes LIST] PROBLEM.yaml...

#include <prism/errors.hpp>
#include <prism/problem.hpp>

#include "kernels/cuda/check.hpp"
#include "kernels/cuda/device_memory.hpp"
#include "kernels/cuda/parallel_coloring.hpp"
#include "kernels/cuda/staged_upload.hpp"
#include "kernels/parallel_coloring.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace {

using prism::CsrMatrix;
using prism::index_t;
namespace k = prism::kernels::cuda;

double median_seconds(int repeats, const std::function<void()>& body) {
  std::vector<double> seconds;
  for (int r = 0; r < repeats; ++r) {
    const auto start = std::chrono::steady_clock::now();
    body();
    seconds.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(seconds.begin(), seconds.end());
  return seconds[seconds.size() / 2];
}

void print_row(const std::string& problem, const std::string& step, double seconds, double bytes,
               const std::string& note) {
  char rate[32] = "";
  if (bytes > 0) std::snprintf(rate, sizeof rate, "%.2f", bytes / seconds * 1e-9);
  std::printf("%-14s %-30s %9.2f %8s  %s\n", problem.c_str(), step.c_str(), seconds * 1e3, rate,
              note.c_str());
}

void bench_coloring(const std::string& name, const CsrMatrix<double>& a, int repeats,
                    bool reference, cudaStream_t stream) {
  const k::DeviceBuffer<index_t> row_ptr = k::upload_and_wait(a.row_ptr, stream);
  const k::DeviceBuffer<index_t> col_idx = k::upload_and_wait(a.col_idx, stream);
  const prism::kernels::CsrView<double> view{a.rows, a.cols, row_ptr.data(), col_idx.data(),
                                             nullptr};
  k::DeviceBuffer<int> colors(static_cast<std::size_t>(a.rows));
  prism::kernels::GreedyColoring got;
  const double seconds = median_seconds(repeats, [&] {
    got = k::ordered_greedy_coloring(view, nullptr, prism::kernels::kGreedyRoundLimit,
                                     colors.data(), stream);
  });
  std::string note = "colors " + std::to_string(got.colors) + ", rounds " +
                     std::to_string(got.rounds) + (got.exact ? "" : " (past the limit)");
  if (reference) {
    std::vector<int> want(static_cast<std::size_t>(a.rows));
    const prism::kernels::CsrView<double> host{a.rows, a.cols, a.row_ptr.data(), a.col_idx.data(),
                                               a.values.data()};
    prism::kernels::reference::ordered_greedy_coloring(
        host, nullptr, prism::kernels::kGreedyRoundLimit, want.data());
    note += k::download_and_wait(colors, stream) == want ? ", equals the reference"
                                                         : ", DIFFERS FROM THE REFERENCE";
  }
  print_row(name, "coloring parallel_greedy", seconds, 0, note);
}

template <typename T>
double upload_seconds(int repeats, const std::vector<T>& host, k::DeviceBuffer<T>& device,
                      bool staged, cudaStream_t stream, const k::StagingPlan& plan = {}) {
  return median_seconds(repeats, [&] {
    if (staged) {
      k::staged_upload(device.data(), host.data(), host.size(), stream, plan);
    } else {
      device.upload(host.data(), stream);
    }
    PRISM_CUDA_CHECK(cudaStreamSynchronize(stream));
  });
}

void bench_upload(const std::string& name, const CsrMatrix<double>& a, int repeats,
                  const std::vector<int>& lanes, cudaStream_t stream) {
  k::DeviceBuffer<index_t> row_ptr(a.row_ptr.size()), col_idx(a.col_idx.size());
  k::DeviceBuffer<double> values(a.values.size());
  const double bytes =
      static_cast<double>(a.row_ptr.size() * sizeof(index_t) + a.col_idx.size() * sizeof(index_t) +
                          a.values.size() * sizeof(double));
  std::vector<int> runs{-1};  // -1: plain
  runs.insert(runs.end(), lanes.begin(), lanes.end());
  for (const int lane_count : runs) {
    const bool staged = lane_count >= 0;
    k::StagingPlan plan;
    plan.lanes = std::max(0, lane_count);
    // Once before the timed runs (the first staged one pins the staging buffers).
    const double first = upload_seconds(1, a.row_ptr, row_ptr, staged, stream, plan) +
                         upload_seconds(1, a.col_idx, col_idx, staged, stream, plan) +
                         upload_seconds(1, a.values, values, staged, stream, plan);
    const double seconds = upload_seconds(repeats, a.row_ptr, row_ptr, staged, stream, plan) +
                           upload_seconds(repeats, a.col_idx, col_idx, staged, stream, plan) +
                           upload_seconds(repeats, a.values, values, staged, stream, plan);
    char step[64], note[64];
    if (!staged) {
      std::snprintf(step, sizeof step, "upload plain (%.1f MB)", bytes * 1e-6);
    } else if (lane_count == 0) {
      std::snprintf(step, sizeof step, "upload staged (%.1f MB)", bytes * 1e-6);
    } else {
      std::snprintf(step, sizeof step, "upload staged, %d lanes (%.1f MB)", lane_count,
                    bytes * 1e-6);
    }
    std::snprintf(note, sizeof note, "first call %.2f ms", first * 1e3);
    print_row(name, step, seconds, bytes, note);
  }
}

}  // namespace

int main(int argc, char** argv) {
  try {
    int repeats = 5;
    bool reference = true;
    std::vector<int> lanes{0};  // 0: the plan's choice
    std::vector<std::string> problems;
    for (int i = 1; i < argc; ++i) {
      const std::string arg = argv[i];
      if (arg == "--repeats") {
        if (i + 1 >= argc) throw prism::ConfigError("--repeats needs a value");
        repeats = std::max(1, std::stoi(argv[++i]));
      } else if (arg == "--no-reference") {
        reference = false;
      } else if (arg == "--lanes") {
        if (i + 1 >= argc) throw prism::ConfigError("--lanes needs a list");
        lanes.clear();
        std::string list = argv[++i];
        for (std::size_t at = 0; at <= list.size();) {
          const std::size_t comma = std::min(list.find(',', at), list.size());
          lanes.push_back(std::max(1, std::stoi(list.substr(at, comma - at))));
          at = comma + 1;
        }
      } else {
        problems.push_back(arg);
      }
    }
    if (problems.empty()) {
      std::fprintf(stderr,
                   "usage: bench_setup_steps [--repeats N] [--no-reference] [--lanes LIST] "
                   "PROBLEM.yaml...\n");
      return 1;
    }
    cudaStream_t stream = nullptr;
    PRISM_CUDA_CHECK(cudaStreamCreate(&stream));
    std::printf("%-14s %-30s %9s %8s  %s\n", "problem", "step", "ms", "GB/s", "");
    for (const std::string& file : problems) {
      const prism::ProblemSpec spec = prism::load_problem_file(file);
      const CsrMatrix<double> a = prism::assemble_matrix(spec.matrix);
      bench_coloring(spec.name, a, repeats, reference, stream);
      bench_upload(spec.name, a, repeats, lanes, stream);
    }
    PRISM_CUDA_CHECK(cudaStreamDestroy(stream));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_setup_steps: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
