// Batched tridiagonal solve: prism (one-pass partition tile solver / two-pass partition
// method, kernels/cuda/tridiagonal.hpp) against cuSPARSE
// gtsv2StridedBatch (contiguous layout) and gtsvInterleavedBatch (interleaved layout,
// algo 0 = Thomas), and against the device-to-device copy bandwidth measured in the same
// run. Double precision, N * M = 2^22 from (64, 65536) to (4M, 1), random diagonally
// dominant systems. Time: CUDA events, median (and min) of the timed runs after warm-up.
// %copy = (5 N M 8 bytes: read a, b, c, d, write x) / time / copy bandwidth.
// Two streaming floors of the same N M rows, measured in the same run, bound what a solve can
// reach: the one-pass traffic (read a, b, c, d, write x) and the two-pass path's (read a, b, c,
// d; then read them again, blocks in reverse order as pass 2 takes them, and write x), each
// moved by plain loads and stores with no solve; their %copy uses the same 40 B a row.
//
// usage: bench_tridiagonal OUT.json [--reps R] [--layout contiguous|interleaved] [--n N]
//                          [--no-cusparse] [--timing launch|queued]
//   --layout / --n keep one layout / one system size N (any N up to 2^22; M = 2^22 / N);
//   --no-cusparse skips the vendor rows; --timing: tools/bench_timing.hpp.

#include <cuda_runtime.h>
#include <cusparse.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/cuda/tridiagonal.hpp"
#include "kernels/tridiagonal.hpp"
#include "tools/bench_timing.hpp"

namespace {

using prism::kernels::TridiagonalLayout;

#define CHECK_CUDA(call) check_cuda((call), #call, __LINE__)
#define CHECK_CUSPARSE(call) check_cusparse((call), #call, __LINE__)

void check_cuda(cudaError_t err, const char* call, int line) {
  if (err != cudaSuccess) {
    throw std::runtime_error(std::string(call) + " (line " + std::to_string(line) +
                             "): " + cudaGetErrorString(err));
  }
}
void check_cusparse(cusparseStatus_t st, const char* call, int line) {
  if (st != CUSPARSE_STATUS_SUCCESS) {
    throw std::runtime_error(std::string(call) + " (line " + std::to_string(line) +
                             "): " + cusparseGetErrorString(st));
  }
}

struct CudaFree {
  void operator()(void* p) const { cudaFree(p); }
};
using DevPtr = std::unique_ptr<void, CudaFree>;
DevPtr dev_alloc(std::size_t bytes) {
  void* p = nullptr;
  if (bytes > 0) CHECK_CUDA(cudaMalloc(&p, bytes));
  return DevPtr(p);
}

// A JSON number with its significant digits (std::to_string prints 6 decimals: 0.000000).
std::string sci(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3e", v);
  return buf;
}

using prism::bench::Stats;
using prism::bench::time_runs;
using prism::bench::uniform;

struct HostSystems {
  std::vector<double> a, b, c, d;
};

// Diagonally dominant: a, c in (-1, 1), b = |a| + |c| + 0.5 + U(0, 1); a[first] = c[last] = 0
// (cuSPARSE requires it; prism ignores them anyway).
HostSystems make_systems(TridiagonalLayout layout, std::int64_t n, std::int64_t m) {
  HostSystems h;
  const std::size_t total = static_cast<std::size_t>(n * m);
  h.a.resize(total);
  h.b.resize(total);
  h.c.resize(total);
  h.d.resize(total);
  for (std::int64_t s = 0; s < m; ++s) {
    for (std::int64_t i = 0; i < n; ++i) {
      const std::size_t k = layout == TridiagonalLayout::contiguous ? s * n + i : i * m + s;
      const double a = i == 0 ? 0.0 : 2 * uniform() - 1;
      const double c = i == n - 1 ? 0.0 : 2 * uniform() - 1;
      h.a[k] = a;
      h.c[k] = c;
      h.b[k] = std::abs(a) + std::abs(c) + 0.5 + uniform();
      h.d[k] = 2 * uniform() - 1;
    }
  }
  return h;
}

// Largest normwise backward error ||d - A x|| / (||A|| ||x|| + ||d||) over the systems.
double backward_error(const HostSystems& h, const std::vector<double>& x, TridiagonalLayout layout,
                      std::int64_t n, std::int64_t m) {
  double worst = 0;
  auto at = [&](std::int64_t s, std::int64_t i) {
    return static_cast<std::size_t>(layout == TridiagonalLayout::contiguous ? s * n + i
                                                                            : i * m + s);
  };
  for (std::int64_t s = 0; s < m; ++s) {
    double r = 0, an = 0, xn = 0, dn = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      const std::size_t k = at(s, i);
      double ax = h.b[k] * x[k];
      if (i > 0) ax += h.a[k] * x[at(s, i - 1)];
      if (i < n - 1) ax += h.c[k] * x[at(s, i + 1)];
      const double ri = h.d[k] - ax;
      if (std::isnan(ri)) return NAN;
      r = std::max(r, std::abs(ri));
      an = std::max(an, std::abs(h.a[k]) + std::abs(h.b[k]) + std::abs(h.c[k]));
      xn = std::max(xn, std::abs(x[k]));
      dn = std::max(dn, std::abs(h.d[k]));
    }
    worst = std::max(worst, r / (an * xn + dn));
  }
  return worst;
}

// One streaming floor kernel: block i's threads take P 16-byte pieces each of a, b, c, d
// (pairs of elements; piece k of thread t is k blockDim + t of the block's range), issue all
// 4 P loads, then, with kWrite, store the sums to x; blocks take their ranges last to first
// with `reverse`. Without kWrite the sums guard a store that never happens, so the loads stay.
template <int P, bool kWrite>
__global__ void stream_kernel(const double2* a, const double2* b, const double2* c,
                              const double2* d, double2* x, std::int64_t pairs, bool reverse) {
  const std::int64_t block = reverse ? gridDim.x - 1 - blockIdx.x : blockIdx.x;
  const std::int64_t first = block * P * blockDim.x + threadIdx.x;
  double2 va[P], vb[P], vc[P], vd[P];
#pragma unroll
  for (int k = 0; k < P; ++k) {
    const std::int64_t i = min(first + k * std::int64_t{blockDim.x}, pairs - 1);
    va[k] = a[i];
    vb[k] = b[i];
    vc[k] = c[i];
    vd[k] = d[i];
  }
#pragma unroll
  for (int k = 0; k < P; ++k) {
    const std::int64_t i = first + k * std::int64_t{blockDim.x};
    const double2 s =
        make_double2(va[k].x + vb[k].x + vc[k].x + vd[k].x, va[k].y + vb[k].y + vc[k].y + vd[k].y);
    if (i < pairs && (kWrite || (s.x == -1.0 && s.y == -2.0))) x[i] = s;
  }
}

struct Floor {
  Stats t;
  std::string kernel;  // the streaming kernel that gave it
};

struct Floors {
  Floor one_pass, two_pass;
};

template <int P>
void launch_stream(bool write, bool reverse, int threads, double2* const (&v)[5],
                   std::int64_t pairs, cudaStream_t stream) {
  const std::int64_t per_block = std::int64_t{P} * threads;
  const auto blocks = static_cast<unsigned>((pairs + per_block - 1) / per_block);
  if (write) {
    stream_kernel<P, true>
        <<<blocks, threads, 0, stream>>>(v[0], v[1], v[2], v[3], v[4], pairs, reverse);
  } else {
    stream_kernel<P, false>
        <<<blocks, threads, 0, stream>>>(v[0], v[1], v[2], v[3], v[4], pairs, reverse);
  }
  CHECK_CUDA(cudaGetLastError());
}

// The streaming floors for `rows` rows (file comment): each the fastest (median) of the
// streaming kernels with P = 2, 4, 8 pieces a thread and blocks of 128 or 256 threads, so that
// neither one cut of the work nor a slow first measurement sets it. On an H100 the cuts agreed
// within 1.5 % once warm (one pass 59.6 - 60.5 us); the first kernel timed after start-up took
// 15 % longer.
Floors streaming_floors(std::int64_t rows, int warmup, int reps, cudaStream_t stream) {
  const std::size_t bytes = static_cast<std::size_t>(rows) * sizeof(double);
  DevPtr a = dev_alloc(bytes), b = dev_alloc(bytes), c = dev_alloc(bytes), d = dev_alloc(bytes),
         x = dev_alloc(bytes);
  for (const DevPtr* p : {&a, &b, &c, &d}) CHECK_CUDA(cudaMemset(p->get(), 0, bytes));
  const auto v2 = [](const DevPtr& p) { return static_cast<double2*>(p.get()); };
  double2* const v[5] = {v2(a), v2(b), v2(c), v2(d), v2(x)};
  const std::int64_t pairs = rows / 2;
  Floors f;
  f.one_pass.t.median_us = f.two_pass.t.median_us = 1e300;
  for (const int pieces : {2, 4, 8}) {
    for (const int threads : {128, 256}) {
      const auto pass = [&](bool write, bool reverse) {
        if (pieces == 2) launch_stream<2>(write, reverse, threads, v, pairs, stream);
        if (pieces == 4) launch_stream<4>(write, reverse, threads, v, pairs, stream);
        if (pieces == 8) launch_stream<8>(write, reverse, threads, v, pairs, stream);
      };
      const std::string name =
          "P=" + std::to_string(pieces) + " threads=" + std::to_string(threads);
      const Stats one = time_runs(
          warmup, reps, stream, [] {}, [&] { pass(true, false); });
      const Stats two = time_runs(
          warmup, reps, stream, [] {},
          [&] {
            pass(false, false);
            pass(true, true);
          });
      if (one.median_us < f.one_pass.t.median_us) f.one_pass = {one, name};
      if (two.median_us < f.two_pass.t.median_us) f.two_pass = {two, name};
    }
  }
  return f;
}

struct Row {
  std::string layout, method;
  std::int64_t n, m;
  Stats t;
  double pct_copy;
  double eta;
  std::string plan;
};

}  // namespace

int main(int argc, char** argv) try {
  if (argc < 2) {
    std::fprintf(stderr,
                 "usage: %s OUT.json [--reps R] [--layout contiguous|interleaved] [--n N] "
                 "[--no-cusparse] [--timing launch|queued]\n",
                 argv[0]);
    return 2;
  }
  const std::string json_path = argv[1];
  int reps = 15;
  std::string only_layout;
  std::int64_t only_n = 0;
  bool vendor = true;
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--reps" && has_value) {
      reps = std::max(10, std::atoi(argv[++i]));
    } else if (arg == "--layout" && has_value) {
      only_layout = argv[++i];
    } else if (arg == "--n" && has_value) {
      only_n = std::atoll(argv[++i]);
    } else if (arg == "--no-cusparse") {
      vendor = false;
    } else if (arg == "--timing" && has_value) {
      prism::bench::timing_mode() = prism::bench::parse_timing(argv[++i]);
    } else {
      std::fprintf(stderr, "bench_tridiagonal: unknown or incomplete option %s\n", arg.c_str());
      return 2;
    }
  }
  const int warmup = 3;

  cudaDeviceProp prop{};
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  cudaStream_t stream{};
  CHECK_CUDA(cudaStreamCreate(&stream));
  cusparseHandle_t handle{};
  CHECK_CUSPARSE(cusparseCreate(&handle));
  CHECK_CUSPARSE(cusparseSetStream(handle, stream));

  const double copy_gbs = prism::bench::copy_bandwidth_gbs(warmup, reps, stream);
  std::printf(
      "GPU: %s (%d SMs)\ncopy bandwidth (1 GiB D2D, read+write): %.1f GB/s (median of %d)\n\n",
      prop.name, prop.multiProcessorCount, copy_gbs, reps);

  std::vector<Row> rows;
  const std::int64_t total = std::int64_t{1} << 22;
  const double floor_bytes = 5.0 * static_cast<double>(total) * sizeof(double);
  const auto pct_of_copy = [&](double us) { return floor_bytes / (us * 1e-6) / 1e9 / copy_gbs; };
  const Floors floors = streaming_floors(total, warmup, reps, stream);
  std::printf(
      "streaming floors (%lld rows, no solve):\n  one pass (read a, b, c, d, write x): %.1f us "
      "(%.1f %% copy; %s)\n  two pass (read them, then again in reverse block order, write x): "
      "%.1f us (%.1f %% copy; %s)\n\n",
      static_cast<long long>(total), floors.one_pass.t.median_us,
      100 * pct_of_copy(floors.one_pass.t.median_us), floors.one_pass.kernel.c_str(),
      floors.two_pass.t.median_us, 100 * pct_of_copy(floors.two_pass.t.median_us),
      floors.two_pass.kernel.c_str());
  for (TridiagonalLayout layout : {TridiagonalLayout::contiguous, TridiagonalLayout::interleaved}) {
    const bool contiguous = layout == TridiagonalLayout::contiguous;
    const char* lname = contiguous ? "contiguous" : "interleaved";
    if (!only_layout.empty() && only_layout != lname) continue;
    for (std::int64_t n = only_n > 0 ? only_n : 64; n <= total; n *= 4) {
      if (only_n > 0 && n != only_n) break;
      const std::int64_t m = total / n;
      const HostSystems h = make_systems(layout, n, m);
      const std::size_t bytes = static_cast<std::size_t>(n * m) * sizeof(double);
      const double min_bytes = 5.0 * bytes;
      DevPtr a = dev_alloc(bytes), b = dev_alloc(bytes), c = dev_alloc(bytes), d = dev_alloc(bytes),
             x = dev_alloc(bytes);
      DevPtr a0 = dev_alloc(bytes), b0 = dev_alloc(bytes), c0 = dev_alloc(bytes),
             d0 = dev_alloc(bytes);
      CHECK_CUDA(cudaMemcpy(a0.get(), h.a.data(), bytes, cudaMemcpyHostToDevice));
      CHECK_CUDA(cudaMemcpy(b0.get(), h.b.data(), bytes, cudaMemcpyHostToDevice));
      CHECK_CUDA(cudaMemcpy(c0.get(), h.c.data(), bytes, cudaMemcpyHostToDevice));
      CHECK_CUDA(cudaMemcpy(d0.get(), h.d.data(), bytes, cudaMemcpyHostToDevice));
      auto restore = [&] {
        CHECK_CUDA(cudaMemcpyAsync(a.get(), a0.get(), bytes, cudaMemcpyDeviceToDevice, stream));
        CHECK_CUDA(cudaMemcpyAsync(b.get(), b0.get(), bytes, cudaMemcpyDeviceToDevice, stream));
        CHECK_CUDA(cudaMemcpyAsync(c.get(), c0.get(), bytes, cudaMemcpyDeviceToDevice, stream));
        CHECK_CUDA(cudaMemcpyAsync(d.get(), d0.get(), bytes, cudaMemcpyDeviceToDevice, stream));
      };
      auto eta_of = [&](void* xp) {
        std::vector<double> hx(static_cast<std::size_t>(n * m));
        CHECK_CUDA(cudaStreamSynchronize(stream));
        CHECK_CUDA(cudaMemcpy(hx.data(), xp, bytes, cudaMemcpyDeviceToHost));
        return backward_error(h, hx, layout, n, m);
      };
      const auto dp = [](const DevPtr& p) { return static_cast<double*>(p.get()); };

      // prism: separate output, inputs untouched, so no restore between runs.
      restore();
      const auto plan = prism::kernels::cuda::tridiagonal_plan(layout, static_cast<int>(n),
                                                               static_cast<int>(m), sizeof(double));
      DevPtr ws = dev_alloc(plan.workspace_bytes);
      const Stats tp = time_runs(
          warmup, reps, stream, [] {},
          [&] {
            prism::kernels::cuda::tridiagonal_solve(layout, static_cast<int>(n),
                                                    static_cast<int>(m), dp(a), dp(b), dp(c), dp(d),
                                                    dp(x), ws.get(), plan.workspace_bytes, stream);
          });
      char plan_desc[200];
      if (plan.levels == 0) {
        std::snprintf(plan_desc, sizeof plan_desc,
                      "one-pass L=%d p=%d G=%d cluster=%d thr=%d smem=%zu blocks/SM=%d",
                      plan.chunk_rows, plan.threads_per_system, plan.systems_per_block,
                      plan.cluster_blocks, plan.block_threads, plan.shared_bytes,
                      plan.blocks_per_sm);
      } else {
        std::snprintf(plan_desc, sizeof plan_desc,
                      "two-pass levels=%d chunk=%lld, one-pass N=%lld L=%d p=%d G=%d cluster=%d "
                      "ws=%zu",
                      plan.levels, plan.reduce_rows, plan.reduced_rows, plan.chunk_rows,
                      plan.threads_per_system, plan.systems_per_block, plan.cluster_blocks,
                      plan.workspace_bytes);
      }
      rows.push_back({lname, "prism", n, m, tp, min_bytes / (tp.median_us * 1e-6) / 1e9 / copy_gbs,
                      eta_of(x.get()), plan_desc});
      ws.reset();
      if (!vendor) continue;

      // cuSPARSE: solves in place and may overwrite its inputs: restore them untimed.
      std::size_t buf_bytes = 0;
      Stats tc;
      std::string method;
      if (contiguous) {
        method = "cusparse_gtsv2StridedBatch";
        CHECK_CUSPARSE(cusparseDgtsv2StridedBatch_bufferSizeExt(
            handle, static_cast<int>(n), dp(a), dp(b), dp(c), dp(d), static_cast<int>(m),
            static_cast<int>(n), &buf_bytes));
        DevPtr buf = dev_alloc(buf_bytes);
        tc = time_runs(warmup, reps, stream, restore, [&] {
          CHECK_CUSPARSE(cusparseDgtsv2StridedBatch(handle, static_cast<int>(n), dp(a), dp(b),
                                                    dp(c), dp(d), static_cast<int>(m),
                                                    static_cast<int>(n), buf.get()));
        });
      } else {
        method = "cusparse_gtsvInterleavedBatch_thomas";
        CHECK_CUSPARSE(cusparseDgtsvInterleavedBatch_bufferSizeExt(
            handle, 0, static_cast<int>(n), dp(a), dp(b), dp(c), dp(d), static_cast<int>(m),
            &buf_bytes));
        DevPtr buf = dev_alloc(buf_bytes);
        // Up to 1.6 s a solve for large N: one warm-up and the minimum of 10 runs there.
        const bool slow = n >= 16384;
        tc = time_runs(slow ? 1 : warmup, slow ? 10 : reps, stream, restore, [&] {
          CHECK_CUSPARSE(cusparseDgtsvInterleavedBatch(handle, 0, static_cast<int>(n), dp(a), dp(b),
                                                       dp(c), dp(d), static_cast<int>(m),
                                                       buf.get()));
        });
      }
      const double eta_c = eta_of(d.get());
      rows.push_back({lname, method, n, m, tc, min_bytes / (tc.median_us * 1e-6) / 1e9 / copy_gbs,
                      eta_c, "buffer " + std::to_string(buf_bytes) + " B"});
    }
  }

  std::printf("%-11s %8s %6s  %-38s %10s %10s %7s %9s  %s\n", "layout", "N", "M", "method",
              "median_us", "min_us", "%copy", "eta", "plan");
  for (const Row& r : rows) {
    std::printf("%-11s %8lld %6lld  %-38s %10.1f %10.1f %6.1f%% %9.2e  %s\n", r.layout.c_str(),
                static_cast<long long>(r.n), static_cast<long long>(r.m), r.method.c_str(),
                r.t.median_us, r.t.min_us, 100 * r.pct_copy, r.eta, r.plan.c_str());
  }

  std::ofstream out(json_path);
  if (!out) throw std::runtime_error("cannot write " + json_path);
  out << "{\n  \"gpu\": \"" << prop.name << "\",\n  \"sms\": " << prop.multiProcessorCount
      << ",\n  \"copy_bandwidth_GBps\": " << copy_gbs << ",\n  \"reps\": " << reps
      << ",\n  \"timing\": \"" << prism::bench::timing_name(prism::bench::timing_mode()) << "\""
      << ",\n  \"precision\": \"double\",\n  \"bytes_per_row\": 40"
      << ",\n  \"floor_one_pass_us\": " << floors.one_pass.t.median_us
      << ",\n  \"floor_one_pass_pct_copy\": " << 100 * pct_of_copy(floors.one_pass.t.median_us)
      << ",\n  \"floor_one_pass_kernel\": \"" << floors.one_pass.kernel << "\""
      << ",\n  \"floor_two_pass_us\": " << floors.two_pass.t.median_us
      << ",\n  \"floor_two_pass_pct_copy\": " << 100 * pct_of_copy(floors.two_pass.t.median_us)
      << ",\n  \"floor_two_pass_kernel\": \"" << floors.two_pass.kernel << "\""
      << ",\n  \"results\": [\n";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    out << "    {\"layout\": \"" << r.layout << "\", \"n\": " << r.n << ", \"m\": " << r.m
        << ", \"method\": \"" << r.method << "\", \"median_us\": " << r.t.median_us
        << ", \"min_us\": " << r.t.min_us << ", \"pct_copy_bandwidth\": " << 100 * r.pct_copy
        << ", \"backward_error\": " << (std::isnan(r.eta) ? std::string("null") : sci(r.eta))
        << ", \"plan\": \"" << r.plan << "\"}" << (i + 1 < rows.size() ? "," : "") << "\n";
  }
  out << "  ]\n}\n";
  cusparseDestroy(handle);
  cudaStreamDestroy(stream);
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "bench_tridiagonal: %s\n", e.what());
  return 1;
}
