// Batched small dense factorizations: prism (kernels/cuda/batched_factor.cu) against the
// vendor routines in the same run: cublasDgetrfBatched for LU with partial pivoting,
// cusolverDnDpotrfBatched for Cholesky. Double precision, n = 16 ... 512, batch 10^4 for
// n <= 128, 3000 for n = 192 and 256, 1000 for n >= 384 (--batch-scale scales them).
// Every getrf technique of Dong et al. (HPCC 2014) is measured on and off: the default
// (register kernels up to GetrfOptions::register_max_n, then blocked) against the register
// kernels up to n = 64, the 16-lane register kernel without its prefetch (9 <= n <= 16),
// the shared-memory whole-matrix kernel (n <= 128) and the blocked path, and on the
// blocked path the register panel against the recursive shared-memory and the classic
// panel, parallel swap, trtri + gemm and the delayed updates (depth 1, 2 and 4; the default
// picks 1 or 2 by n), the 64 x 64 tensor-core update tiles against 32 x 32 tiles and the
// register row block of 32-column panels against trtri + gemm. potrf: default (register
// kernels up to PotrfOptions::register_max_n, else blocked) against the register kernels
// up to n = 64, the shared-memory whole-matrix kernel and the blocked path with the
// register or the shared-memory panel, update depth 1, 2 or 4, 64 x 64 or 32 x 32 syrk
// tiles.
//
// Time: CUDA events around the factorization only (a device copy restores the input
// before each run, untimed); median and min of --reps runs (>= 10) after 3 warm-ups.
// GFLOP/s: getrf 2n^3/3, potrf n^3/3 per matrix. "eta": ||P A - L U||_F / ||A||_F of the
// first matrix (||A - L L^T||_F / ||A||_F for potrf), computed on the host, and "info" the
// number of matrices with info != 0 (must be 0: the inputs are nonsingular / SPD).
//
// usage: bench_batched_factor OUT.json [--reps R] [--batch-scale S] [--sizes 16,32,...]
//                             [--timing launch|queued]   (tools/bench_timing.hpp)

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/cuda/batched_factor.hpp"
#include "kernels/cuda/check.hpp"
#include "kernels/cuda/device_memory.hpp"
#include "tools/bench_timing.hpp"

namespace {

using prism::index_t;
namespace gpu = prism::kernels::cuda;
using gpu::DeviceBuffer;

#define CHECK_CUSOLVER(call)                                                                   \
  do {                                                                                         \
    const cusolverStatus_t st_ = (call);                                                       \
    if (st_ != CUSOLVER_STATUS_SUCCESS) {                                                      \
      throw std::runtime_error(std::string(#call) + " failed: status " + std::to_string(st_)); \
    }                                                                                          \
  } while (0)

using prism::bench::Stats;
using prism::bench::time_runs;
using prism::bench::uniform;

// General: entries in (-1, 1). SPD: symmetric, entries in (-1, 1), diagonal n + 1.
std::vector<double> make_batch(int n, int batch, bool spd) {
  std::vector<double> a(static_cast<std::size_t>(n) * n * batch);
  for (int b = 0; b < batch; ++b) {
    double* m = a.data() + static_cast<std::size_t>(b) * n * n;
    for (int j = 0; j < n; ++j) {
      for (int i = 0; i < n; ++i) m[i + j * n] = 2 * uniform() - 1;
    }
    if (spd) {
      for (int j = 0; j < n; ++j) {
        for (int i = 0; i < j; ++i) m[i + j * n] = m[j + i * n];
        m[j + j * n] = n + 1.0;
      }
    }
  }
  return a;
}

double lu_eta(const double* a, const double* lu, const int* ipiv, int n) {
  std::vector<int> perm(n);
  for (int i = 0; i < n; ++i) perm[i] = i;
  for (int i = 0; i < n; ++i) std::swap(perm[i], perm[ipiv[i] - 1]);
  double r = 0, an = 0;
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < n; ++i) {
      double s = 0;
      for (int k = 0; k <= std::min(i, j); ++k) {
        const double l = k == i ? 1.0 : lu[i + k * n];
        s += l * lu[k + j * n];
      }
      const double pa = a[perm[i] + j * n];
      r += (pa - s) * (pa - s);
      an += pa * pa;
    }
  }
  return std::sqrt(r / an);
}

double llt_eta(const double* a, const double* l, int n) {
  double r = 0, an = 0;
  for (int j = 0; j < n; ++j) {
    for (int i = j; i < n; ++i) {
      double s = 0;
      for (int k = 0; k <= j; ++k) s += l[i + k * n] * l[j + k * n];
      r += (a[i + j * n] - s) * (a[i + j * n] - s);
      an += a[i + j * n] * a[i + j * n];
    }
  }
  return std::sqrt(r / an);
}

struct Row {
  std::string routine, method;
  int n = 0, batch = 0;
  Stats t;
  double gflops = 0, speedup = 0, eta = 0;
  int failures = 0;
};

struct Method {
  std::string name;
  gpu::GetrfOptions opt;
  bool applies_small = true;  // meaningful for n <= 64 (the register kernels' range)
  bool applies_large = true;  // meaningful for n > 64
};

std::vector<Method> getrf_methods() {
  std::vector<Method> m;
  m.push_back({"prism-default", {}, true, true});
  gpu::GetrfOptions o;
  o.register_max_n = 64;
  m.push_back({"registers(n<=64)", o, true, false});
  o.prefetch_next = false;
  m.push_back({"registers-no-prefetch", o, true, false});
  o.prefetch_next = true;
  o.register_max_n = 0;
  o.shared_max_n = 128;
  m.push_back({"shared(n<=128)", o, true, true});
  gpu::GetrfOptions blocked;
  blocked.register_max_n = 0;
  blocked.shared_max_n = 0;
  m.push_back({"blocked-all-on", blocked, true, true});
  o = blocked;
  o.register_panel = false;
  m.push_back({"blocked-recursive-panel", o, false, true});
  o.recursive_panel = false;
  m.push_back({"blocked-classic-panel", o, false, true});
  o = blocked;
  o.warp_last_panel = false;
  m.push_back({"blocked-rows-last-panel", o, true, true});
  o = blocked;
  o.parallel_swap = false;
  m.push_back({"blocked-serial-swap", o, false, true});
  o = blocked;
  o.trtri_rowblock = false;
  m.push_back({"blocked-trsm", o, false, true});
  o = blocked;
  o.update_depth = 1;
  m.push_back({"blocked-depth1", o, false, true});
  o.update_depth = 2;
  m.push_back({"blocked-depth2", o, false, true});
  o = blocked;
  o.update_depth = 4;
  m.push_back({"blocked-depth4", o, false, true});
  o = blocked;
  o.tile64_update = false;
  m.push_back({"blocked-tile32-update", o, false, true});
  o = blocked;
  o.register_rowblock = false;
  m.push_back({"blocked-trtri-rowblock32", o, true, true});
  o = blocked;
  o.register_panel = false;
  o.parallel_swap = false;
  o.recursive_panel = false;
  o.trtri_rowblock = false;
  o.register_rowblock = false;
  o.tile64_update = false;
  o.update_depth = 1;
  o.warp_last_panel = false;
  m.push_back({"blocked-all-off", o, true, true});
  return m;
}

struct PotrfMethod {
  std::string name;
  gpu::PotrfOptions opt;
  int max_n = 512;  // largest n the method is distinct for
};

std::vector<PotrfMethod> potrf_methods() {
  std::vector<PotrfMethod> m;
  m.push_back({"prism-default", {}});
  gpu::PotrfOptions o;
  o.register_max_n = 64;
  m.push_back({"registers(n<=64)", o, 64});
  o.register_max_n = 0;
  o.shared_max_n = 128;
  m.push_back({"shared(n<=128)", o, 128});
  o = {};
  o.register_max_n = 0;
  o.shared_max_n = 0;
  m.push_back({"blocked", o});
  const gpu::PotrfOptions blocked = o;
  o.update_depth = 1;
  m.push_back({"blocked-depth1", o});
  o.update_depth = 2;
  m.push_back({"blocked-depth2", o});
  o.update_depth = 4;
  m.push_back({"blocked-depth4", o});
  o = blocked;
  o.tile64_update = false;
  m.push_back({"blocked-tile32-update", o});
  o.update_depth = 1;
  m.push_back({"blocked-tile32-depth1", o});
  o = blocked;
  o.register_panel = false;
  m.push_back({"blocked-shared-panel", o});
  return m;
}

std::vector<int> parse_sizes(const std::string& s) {
  std::vector<int> v;
  std::stringstream ss(s);
  std::string tok;
  while (std::getline(ss, tok, ',')) v.push_back(std::atoi(tok.c_str()));
  return v;
}

}  // namespace

int main(int argc, char** argv) try {
  if (argc < 2) {
    std::fprintf(stderr,
                 "usage: %s OUT.json [--reps R] [--batch-scale S] [--sizes 16,32,...] "
                 "[--timing launch|queued]\n",
                 argv[0]);
    return 2;
  }
  const std::string json_path = argv[1];
  int reps = 15;
  double batch_scale = 1.0;
  std::vector<int> sizes = {16, 24, 32, 40, 48, 56, 64, 96, 128, 192, 256, 384, 512};
  for (int i = 2; i + 1 < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--reps") reps = std::max(10, std::atoi(argv[i + 1]));
    if (arg == "--batch-scale") batch_scale = std::atof(argv[i + 1]);
    if (arg == "--sizes") sizes = parse_sizes(argv[i + 1]);
    if (arg == "--timing") prism::bench::timing_mode() = prism::bench::parse_timing(argv[i + 1]);
  }
  const int warmup = 3;

  cudaDeviceProp prop{};
  PRISM_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  cudaStream_t stream{};
  PRISM_CUDA_CHECK(cudaStreamCreate(&stream));
  cublasHandle_t cublas{};
  PRISM_CUBLAS_CHECK(cublasCreate(&cublas));
  PRISM_CUBLAS_CHECK(cublasSetStream(cublas, stream));
  cusolverDnHandle_t cusolver{};
  CHECK_CUSOLVER(cusolverDnCreate(&cusolver));
  CHECK_CUSOLVER(cusolverDnSetStream(cusolver, stream));

  std::printf("GPU: %s (%d SMs), CUDA runtime %d; double precision; median of %d runs\n", prop.name,
              prop.multiProcessorCount, CUDART_VERSION, reps);
  std::vector<Row> rows;

  for (const int n : sizes) {
    int batch = n <= 128 ? 10000 : (n <= 256 ? 3000 : 1000);
    batch = std::max(1, static_cast<int>(batch * batch_scale));
    const std::size_t elems = static_cast<std::size_t>(n) * n * batch;
    const double getrf_flops = 2.0 * n * n * n / 3.0 * batch;
    const double potrf_flops = 1.0 * n * n * n / 3.0 * batch;

    for (const bool spd : {false, true}) {
      const std::vector<double> host = make_batch(n, batch, spd);
      DeviceBuffer<double> pristine(elems), work(elems);
      pristine.upload(host.data(), stream);
      DeviceBuffer<int> ipiv(static_cast<std::size_t>(n) * batch), info(batch);
      std::vector<double*> ptrs(batch);
      for (int b = 0; b < batch; ++b) ptrs[b] = work.data() + static_cast<std::size_t>(b) * n * n;
      DeviceBuffer<double*> d_ptrs(batch);
      d_ptrs.upload(ptrs.data(), stream);
      PRISM_CUDA_CHECK(cudaStreamSynchronize(stream));
      auto restore = [&] {
        PRISM_CUDA_CHECK(cudaMemcpyAsync(work.data(), pristine.data(), elems * sizeof(double),
                                         cudaMemcpyDeviceToDevice, stream));
      };
      // Quality of the last run: failures (info != 0) and eta of matrix 0.
      auto quality = [&](Row& row) {
        PRISM_CUDA_CHECK(cudaStreamSynchronize(stream));
        std::vector<int> h_info(batch), h_piv(n);
        std::vector<double> h_a(static_cast<std::size_t>(n) * n);
        PRISM_CUDA_CHECK(
            cudaMemcpy(h_info.data(), info.data(), batch * sizeof(int), cudaMemcpyDeviceToHost));
        PRISM_CUDA_CHECK(cudaMemcpy(h_a.data(), work.data(), h_a.size() * sizeof(double),
                                    cudaMemcpyDeviceToHost));
        row.failures = static_cast<int>(
            std::count_if(h_info.begin(), h_info.end(), [](int v) { return v != 0; }));
        if (spd) {
          row.eta = llt_eta(host.data(), h_a.data(), n);
        } else {
          PRISM_CUDA_CHECK(
              cudaMemcpy(h_piv.data(), ipiv.data(), n * sizeof(int), cudaMemcpyDeviceToHost));
          row.eta = lu_eta(host.data(), h_a.data(), h_piv.data(), n);
        }
      };
      auto record = [&](Row row, double flops, double vendor_us) {
        row.n = n;
        row.batch = batch;
        row.gflops = flops / (row.t.median_us * 1e3);
        row.speedup = vendor_us > 0 ? vendor_us / row.t.median_us : 1.0;
        std::printf(
            "%-6s n=%4d batch=%6d %-24s median %10.1f us  min %10.1f us  %8.1f GFLOP/s"
            "  x%5.2f vs vendor  eta %.1e  info!=0: %d\n",
            row.routine.c_str(), n, batch, row.method.c_str(), row.t.median_us, row.t.min_us,
            row.gflops, row.speedup, row.eta, row.failures);
        std::fflush(stdout);
        rows.push_back(row);
      };

      if (!spd) {
        Row vendor{"getrf", "cublasDgetrfBatched"};
        vendor.t = time_runs(warmup, reps, stream, restore, [&] {
          PRISM_CUBLAS_CHECK(
              cublasDgetrfBatched(cublas, n, d_ptrs.data(), n, ipiv.data(), info.data(), batch));
        });
        quality(vendor);
        const double vendor_us = vendor.t.median_us;
        record(vendor, getrf_flops, vendor_us);
        for (const Method& m : getrf_methods()) {
          const bool small = n <= 64;
          if (!((small && m.applies_small) || (!small && m.applies_large))) continue;
          if (m.name == "shared(n<=128)" && n > 128) continue;
          if (m.name == "registers-no-prefetch" && (n <= 8 || n > 16)) continue;
          const std::size_t ws_bytes = gpu::getrf_workspace_bytes(n, batch, sizeof(double), m.opt);
          DeviceBuffer<unsigned char> ws(ws_bytes);
          Row row{"getrf", m.name};
          row.t = time_runs(warmup, reps, stream, restore, [&] {
            gpu::getrf_batched(n, gpu::DeviceMatrixBatch<double>::pointer_array(d_ptrs.data(), n),
                               ipiv.data(), info.data(), batch, ws.data(), ws_bytes, stream, m.opt);
          });
          quality(row);
          record(row, getrf_flops, vendor_us);
        }
      } else {
        Row vendor{"potrf", "cusolverDnDpotrfBatched"};
        vendor.t = time_runs(warmup, reps, stream, restore, [&] {
          CHECK_CUSOLVER(cusolverDnDpotrfBatched(cusolver, CUBLAS_FILL_MODE_LOWER, n, d_ptrs.data(),
                                                 n, info.data(), batch));
        });
        quality(vendor);
        const double vendor_us = vendor.t.median_us;
        record(vendor, potrf_flops, vendor_us);
        for (const PotrfMethod& m : potrf_methods()) {
          if (n > m.max_n) continue;
          Row row{"potrf", m.name};
          row.t = time_runs(warmup, reps, stream, restore, [&] {
            gpu::potrf_batched(n, gpu::DeviceMatrixBatch<double>::pointer_array(d_ptrs.data(), n),
                               info.data(), batch, stream, m.opt);
          });
          quality(row);
          record(row, potrf_flops, vendor_us);
        }
      }
    }
  }

  std::ofstream out(json_path);
  out << "{\n  \"gpu\": \"" << prop.name << "\",\n  \"sms\": " << prop.multiProcessorCount
      << ",\n  \"precision\": \"double\",\n  \"reps\": " << reps << ",\n  \"timing\": \""
      << prism::bench::timing_name(prism::bench::timing_mode()) << "\",\n  \"rows\": [\n";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    out << "    {\"routine\": \"" << r.routine << "\", \"method\": \"" << r.method
        << "\", \"n\": " << r.n << ", \"batch\": " << r.batch
        << ", \"median_us\": " << r.t.median_us << ", \"min_us\": " << r.t.min_us
        << ", \"gflops\": " << r.gflops << ", \"speedup_vs_vendor\": " << r.speedup
        << ", \"eta\": " << r.eta << ", \"info_nonzero\": " << r.failures << "}"
        << (i + 1 < rows.size() ? "," : "") << "\n";
  }
  out << "  ]\n}\n";
  if (!out) throw std::runtime_error("cannot write " + json_path);
  std::printf("wrote %s\n", json_path.c_str());

  cusolverDnDestroy(cusolver);
  cublasDestroy(cublas);
  cudaStreamDestroy(stream);
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "bench_batched_factor: %s\n", e.what());
  return 1;
}
