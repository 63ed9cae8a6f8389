// Dense triangular solves: prism against cuBLAS in the same run, and against the
// device-to-device copy bandwidth measured in the same run.
//  - trsv (lower, no transpose, non-unit; double and float; plus double lower/transpose):
//    prism automatic, single_block (n <= 128), global_sync with 32-, 64- and 128-row block
//    rows, each also with inverted diagonal chunks (32 rows from chunk 0, 2, 4 and 16, 64
//    rows from 4 and 16, 128 rows from 4), all with a plain workspace (a memset before each
//    solve); 32 rows inverted from 4 with block rows never split and split into helper
//    segments of 32 and 128 tiles (32 once a row is longer than 32 KiB is the default);
//    automatic and 32 rows inverted from 4 also with a TrsvWorkspace ("_ready");
//    cublas{D,S}trsv; n = 32 .. max_n; from n = 8192 also double, lower, no transpose with
//    lda = n + 1 (columns not 16-byte aligned: element-by-element tile copies).
//  - trsm (lower, non-unit): prism vs cublas{D,S}trsm; double no-transpose at n = 1024 with
//    nrhs in {64, 1000, 10000} and at n = 4096 with nrhs in {64, 4096}; double transpose
//    and float no-transpose at n = 1024, nrhs = 1000 and 10000.
//  - batched (double, mixed sizes 1..128, 4096 blocks): prism trsv_batched vs a loop of
//    cublasDtrsv and vs cublasDtrsmBatched (nrhs = 1, uniform n = 128: it takes one size).
// Time: CUDA events, median (and min) of >= 10 runs after warm-up; the right-hand side is
// restored (untimed) before every run. GB/s counts the triangle once:
// bytes = (n(n+1)/2 + 2n) * sizeof(T) for trsv; %copy = GB/s / copy GB/s. The first trsv
// row, "launch_floor", times an empty kernel the same way: what no call can go below.
//
// usage: bench_dense_triangular OUT.json [--reps R] [--max-n N] [--only trsv|trsm|batched]
//                               [--timing launch|queued]   (tools/bench_timing.hpp)

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/cuda/check.hpp"
#include "kernels/cuda/dense_triangular.hpp"
#include "kernels/cuda/device_memory.hpp"
#include "kernels/dense_triangular.hpp"
#include "tools/bench_timing.hpp"

namespace {

using prism::index_t;
using prism::kernels::TriDiag;
using prism::kernels::TriOp;
using prism::kernels::TriUplo;
using prism::kernels::cuda::DeviceBuffer;
namespace gpu = prism::kernels::cuda;

using prism::bench::Stats;
using prism::bench::time_runs;
using prism::bench::uniform;

// Lower triangle well conditioned (diag 1..2, off-diagonal +-0.5/n), upper part zero.
template <typename T>
std::vector<T> make_lower(index_t n, index_t lda) {
  std::vector<T> a(static_cast<std::size_t>(lda) * n, T(0));
  for (index_t j = 0; j < n; ++j) {
    a[j + std::size_t(j) * lda] = static_cast<T>(1 + uniform());
    for (index_t i = j + 1; i < n; ++i) {
      a[i + std::size_t(j) * lda] = static_cast<T>((2 * uniform() - 1) * 0.5 / n);
    }
  }
  return a;
}
template <typename T>
std::vector<T> make_vec(std::size_t n) {
  std::vector<T> v(n);
  for (auto& x : v) x = static_cast<T>(2 * uniform() - 1);
  return v;
}

template <typename T>
std::vector<T> download(const DeviceBuffer<T>& d) {
  std::vector<T> h(d.size());
  PRISM_CUDA_CHECK(cudaMemcpy(h.data(), d.data(), h.size() * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}

template <typename T>
double max_rel_diff(const std::vector<T>& a, const std::vector<T>& b) {
  double d = 0, nrm = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    d = std::max(d, std::abs(double(a[i]) - double(b[i])));
    nrm = std::max(nrm, std::abs(double(b[i])));
  }
  return nrm > 0 ? d / nrm : d;
}

struct Row {
  std::string op, precision, method;
  long long n, nrhs;
  Stats t;
  double gbs, pct_copy, gflops, diff_vs_cublas;
};

/// The least a call can cost: one launch of a kernel that does nothing, timed as the
/// solves are (a row "empty_kernel" with n = 0 before the trsv rows).
__global__ void empty_kernel() {}

cublasStatus_t cublas_trsv(cublasHandle_t h, cublasOperation_t op, int n, const double* a, int lda,
                           double* x) {
  return cublasDtrsv(h, CUBLAS_FILL_MODE_LOWER, op, CUBLAS_DIAG_NON_UNIT, n, a, lda, x, 1);
}
cublasStatus_t cublas_trsv(cublasHandle_t h, cublasOperation_t op, int n, const float* a, int lda,
                           float* x) {
  return cublasStrsv(h, CUBLAS_FILL_MODE_LOWER, op, CUBLAS_DIAG_NON_UNIT, n, a, lda, x, 1);
}

template <typename T>
void bench_trsv(std::vector<Row>& rows, cublasHandle_t handle, cudaStream_t stream, TriOp op,
                index_t n, int warmup, int reps, double copy_gbs, index_t lda_pad = 0) {
  const char* prec = sizeof(T) == 8 ? "double" : "float";
  // lda = n + 1: columns not 16-byte aligned, so global_sync copies element by element.
  const std::string opname =
      std::string(op == TriOp::none ? "trsv_LNN" : "trsv_LTN") + (lda_pad > 0 ? "_lda+1" : "");
  const index_t lda = n + lda_pad;
  const auto ha = make_lower<T>(n, lda);
  const auto hb = make_vec<T>(n);
  DeviceBuffer<T> a(ha.size()), b0(n), x(n);
  a.upload(ha.data(), stream);
  b0.upload(hb.data(), stream);
  DeviceBuffer<unsigned char> ws(gpu::trsv_workspace_bytes(n));
  auto restore = [&] {
    PRISM_CUDA_CHECK(
        cudaMemcpyAsync(x.data(), b0.data(), n * sizeof(T), cudaMemcpyDeviceToDevice, stream));
  };
  const double bytes = (0.5 * double(n) * (n + 1) + 2.0 * n) * sizeof(T);
  const cublasOperation_t cop = op == TriOp::none ? CUBLAS_OP_N : CUBLAS_OP_T;

  const Stats tc = time_runs(warmup, reps, stream, restore, [&] {
    PRISM_CUBLAS_CHECK(cublas_trsv(handle, cop, n, a.data(), lda, x.data()));
  });
  const auto x_cublas = download(x);
  const double gbs_c = bytes / (tc.median_us * 1e-6) / 1e9;
  rows.push_back({opname, prec, "cublas", n, 1, tc, gbs_c, 100 * gbs_c / copy_gbs, 0, 0});

  // "_ready": with a TrsvWorkspace (no memset before each solve), else the plain workspace.
  struct Variant {
    const char* name;
    gpu::TrsvOptions opt;
    bool ready = false;
  };
  const auto gs = gpu::TrsvAlgorithm::global_sync;
  gpu::TrsvWorkspace ready(n);
  std::vector<Variant> variants = {
      {"prism_auto", {}},
      {"prism_auto_ready", {}, true},
      {"prism_global_sync_32_inverse_4_ready", {gs, true, 4, 32}, true},
      {"prism_global_sync_32", {gs, false, 4, 32}},
      {"prism_global_sync_32_inverse_0", {gs, true, 0, 32}},
      {"prism_global_sync_32_inverse_2", {gs, true, 2, 32}},
      {"prism_global_sync_32_inverse_4", {gs, true, 4, 32}},
      {"prism_global_sync_32_inverse_16", {gs, true, 16, 32}},
      {"prism_global_sync_64", {gs, false, 4, 64}},
      {"prism_global_sync_64_inverse", {gs, true, 4, 64}},
      {"prism_global_sync_64_inverse_16", {gs, true, 16, 64}},
      {"prism_global_sync_32_inverse_4_split_off", {gs, true, 4, 32, -1}},
      {"prism_global_sync_32_inverse_4_split_32", {gs, true, 4, 32, 32}},
      {"prism_global_sync_32_inverse_4_split_128", {gs, true, 4, 32, 128}},
      {"prism_global_sync_128", {gs, false, 4, 128}},
      {"prism_global_sync_128_inverse", {gs, true, 4, 128}}};
  if (n <= gpu::trsv_small_max_n) {
    variants.push_back({"prism_single_block", {gpu::TrsvAlgorithm::single_block, false, 4, 0}});
  }
  for (const Variant& v : variants) {
    const Stats tp = time_runs(warmup, reps, stream, restore, [&] {
      if (v.ready) {
        gpu::trsv(TriUplo::lower, op, TriDiag::non_unit, n, a.data(), lda, x.data(), ready, stream,
                  v.opt);
      } else {
        gpu::trsv(TriUplo::lower, op, TriDiag::non_unit, n, a.data(), lda, x.data(), ws.data(),
                  ws.size(), stream, v.opt);
      }
    });
    const double gbs = bytes / (tp.median_us * 1e-6) / 1e9;
    rows.push_back({opname, prec, v.name, n, 1, tp, gbs, 100 * gbs / copy_gbs, 0,
                    max_rel_diff(download(x), x_cublas)});
  }
}

cublasStatus_t cublas_trsm(cublasHandle_t h, cublasOperation_t op, int m, int nrhs, const double* a,
                           int lda, double* b, int ldb) {
  const double one = 1.0;
  return cublasDtrsm(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, op, CUBLAS_DIAG_NON_UNIT, m, nrhs,
                     &one, a, lda, b, ldb);
}
cublasStatus_t cublas_trsm(cublasHandle_t h, cublasOperation_t op, int m, int nrhs, const float* a,
                           int lda, float* b, int ldb) {
  const float one = 1.0f;
  return cublasStrsm(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, op, CUBLAS_DIAG_NON_UNIT, m, nrhs,
                     &one, a, lda, b, ldb);
}

template <typename T>
void bench_trsm(std::vector<Row>& rows, cublasHandle_t handle, cudaStream_t stream, TriOp op,
                index_t m, index_t nrhs, int warmup, int reps, double copy_gbs) {
  const char* prec = sizeof(T) == 8 ? "double" : "float";
  const char* opname = op == TriOp::none ? "trsm_LNN" : "trsm_LTN";
  const auto ha = make_lower<T>(m, m);
  const auto hb = make_vec<T>(std::size_t(m) * nrhs);
  DeviceBuffer<T> a(ha.size()), b0(hb.size()), b(hb.size());
  a.upload(ha.data(), stream);
  b0.upload(hb.data(), stream);
  auto restore = [&] {
    PRISM_CUDA_CHECK(cudaMemcpyAsync(b.data(), b0.data(), hb.size() * sizeof(T),
                                     cudaMemcpyDeviceToDevice, stream));
  };
  const double flops = double(m) * m * nrhs;  // m^2 nrhs (multiply-adds counted as 2 / 2)
  const double bytes = (0.5 * double(m) * (m + 1) + 2.0 * m * nrhs) * sizeof(T);
  const cublasOperation_t cop = op == TriOp::none ? CUBLAS_OP_N : CUBLAS_OP_T;
  const Stats tc = time_runs(warmup, reps, stream, restore, [&] {
    PRISM_CUBLAS_CHECK(cublas_trsm(handle, cop, m, nrhs, a.data(), m, b.data(), m));
  });
  const auto ref = download(b);
  auto push = [&](const char* method, const Stats& t, double diff) {
    const double gbs = bytes / (t.median_us * 1e-6) / 1e9;
    rows.push_back({opname, prec, method, m, nrhs, t, gbs, 100 * gbs / copy_gbs,
                    flops / (t.median_us * 1e-6) / 1e9, diff});
  };
  push("cublas", tc, 0);
  // The plain API (stream-ordered workspace allocation inside every call): the automatic
  // choice, then each algorithm forced (blocked with every block size that splits m);
  // "_subst": the diagonal tiles substituted instead of inverted.
  struct Variant {
    std::string name;
    gpu::TrsmOptions options;
  };
  std::vector<Variant> variants{
      {"prism", {}},
      {"prism_data_flow", {gpu::TrsmAlgorithm::data_flow}},
      {"prism_data_flow_subst", {gpu::TrsmAlgorithm::data_flow, 0, false}}};
  for (index_t nb : {128, 256, 512, 1024}) {
    if (nb >= m) continue;
    const std::string name = "prism_blocked_" + std::to_string(nb);
    variants.push_back({name, {gpu::TrsmAlgorithm::blocked, nb}});
    if (nb == 512) variants.push_back({name + "_subst", {gpu::TrsmAlgorithm::blocked, nb, false}});
  }
  for (const Variant& v : variants) {
    const Stats tp = time_runs(warmup, reps, stream, restore, [&] {
      gpu::trsm(TriUplo::lower, op, TriDiag::non_unit, m, nrhs, T(1), a.data(), m, b.data(), m,
                stream, v.options);
    });
    push(v.name.c_str(), tp, max_rel_diff(download(b), ref));
  }
}

// Batched: `batch` lower non-unit blocks, sizes uniform in [1, max_n] (or all max_n).
void bench_batched(std::vector<Row>& rows, cublasHandle_t handle, cudaStream_t stream,
                   index_t batch, index_t max_n, bool uniform_size, int warmup, int reps,
                   double copy_gbs) {
  std::vector<index_t> n(batch);
  std::size_t total_a = 0, total_x = 0;
  double bytes = 0;
  for (index_t k = 0; k < batch; ++k) {
    n[k] = uniform_size ? max_n : 1 + static_cast<index_t>(uniform() * max_n) % max_n;
    total_a += std::size_t(n[k]) * n[k];
    total_x += n[k];
    bytes += (0.5 * double(n[k]) * (n[k] + 1) + 2.0 * n[k]) * sizeof(double);
  }
  std::vector<double> ha(total_a), hb = make_vec<double>(total_x);
  std::vector<std::size_t> offa(batch), offx(batch);
  for (index_t k = 0, oa = 0, ox = 0; k < batch; ++k) {
    const auto blk = make_lower<double>(n[k], n[k]);
    std::copy(blk.begin(), blk.end(), ha.begin() + oa);
    offa[k] = oa;
    offx[k] = ox;
    oa += blk.size();
    ox += n[k];
  }
  DeviceBuffer<double> a(total_a), b0(total_x), x(total_x);
  a.upload(ha.data(), stream);
  b0.upload(hb.data(), stream);
  std::vector<const double*> hap(batch);
  std::vector<double*> hxp(batch);
  for (index_t k = 0; k < batch; ++k) {
    hap[k] = a.data() + offa[k];
    hxp[k] = x.data() + offx[k];
  }
  DeviceBuffer<index_t> dn(batch);
  DeviceBuffer<const double*> dap(batch);
  DeviceBuffer<double*> dxp(batch);
  dn.upload(n.data(), stream);
  dap.upload(hap.data(), stream);
  dxp.upload(hxp.data(), stream);  // lda = n
  auto restore = [&] {
    PRISM_CUDA_CHECK(cudaMemcpyAsync(x.data(), b0.data(), total_x * sizeof(double),
                                     cudaMemcpyDeviceToDevice, stream));
  };
  const std::string op = std::string("trsv_batched_") + (uniform_size ? "uniform" : "mixed");
  auto push = [&](const char* method, const Stats& t, double diff) {
    const double gbs = bytes / (t.median_us * 1e-6) / 1e9;
    rows.push_back({op, "double", method, max_n, batch, t, gbs, 100 * gbs / copy_gbs, 0, diff});
  };
  const Stats tl = time_runs(warmup, reps, stream, restore, [&] {
    for (index_t k = 0; k < batch; ++k) {
      PRISM_CUBLAS_CHECK(cublasDtrsv(handle, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N,
                                     CUBLAS_DIAG_NON_UNIT, n[k], hap[k], n[k], hxp[k], 1));
    }
  });
  const auto ref = download(x);
  push("cublas_trsv_loop", tl, 0);
  const Stats tp = time_runs(warmup, reps, stream, restore, [&] {
    gpu::trsv_batched(TriUplo::lower, TriOp::none, TriDiag::non_unit, batch, max_n, dn.data(),
                      dap.data(), dn.data(), dxp.data(), stream);
  });
  push("prism", tp, max_rel_diff(download(x), ref));
  if (uniform_size) {  // cublasDtrsmBatched takes one size for the whole batch
    const double one = 1.0;
    const Stats tb = time_runs(warmup, reps, stream, restore, [&] {
      PRISM_CUBLAS_CHECK(cublasDtrsmBatched(handle, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER,
                                            CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, max_n, 1, &one,
                                            dap.data(), max_n, dxp.data(), max_n, batch));
    });
    push("cublas_trsmBatched", tb, max_rel_diff(download(x), ref));
  }
}

}  // namespace

int main(int argc, char** argv) try {
  if (argc < 2) {
    std::fprintf(stderr,
                 "usage: %s OUT.json [--reps R] [--max-n N] [--only trsv|trsm|batched] "
                 "[--timing launch|queued]\n",
                 argv[0]);
    return 2;
  }
  const std::string json_path = argv[1];
  int reps = 15;
  index_t max_n = 32768;
  std::string only;
  for (int i = 2; i + 1 < argc; ++i) {
    if (std::string(argv[i]) == "--reps") reps = std::max(10, std::atoi(argv[i + 1]));
    if (std::string(argv[i]) == "--max-n") max_n = std::atoi(argv[i + 1]);
    if (std::string(argv[i]) == "--only") only = argv[i + 1];
    if (std::string(argv[i]) == "--timing") {
      prism::bench::timing_mode() = prism::bench::parse_timing(argv[i + 1]);
    }
  }
  auto part = [&](const char* what) { return only.empty() || only == what; };
  const int warmup = 3;
  cudaDeviceProp prop{};
  PRISM_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  cudaStream_t stream{};
  PRISM_CUDA_CHECK(cudaStreamCreate(&stream));
  cublasHandle_t handle{};
  PRISM_CUBLAS_CHECK(cublasCreate(&handle));
  PRISM_CUBLAS_CHECK(cublasSetStream(handle, stream));

  const double copy_gbs = prism::bench::copy_bandwidth_gbs(warmup, reps, stream);
  std::printf("GPU: %s (%d SMs)\ncopy bandwidth (1 GiB D2D, read+write): %.1f GB/s\n\n", prop.name,
              prop.multiProcessorCount, copy_gbs);

  std::vector<Row> rows;
  // Rows are printed as they are measured, so a run cut short still leaves its numbers.
  std::size_t printed = 0;
  auto print_new = [&] {
    for (; printed < rows.size(); ++printed) {
      const Row& r = rows[printed];
      std::printf("%-22s %-6s %-32s %7lld %6lld %11.1f %11.1f %9.1f %6.1f%% %9.1f %9.1e\n",
                  r.op.c_str(), r.precision.c_str(), r.method.c_str(), r.n, r.nrhs, r.t.median_us,
                  r.t.min_us, r.gbs, r.pct_copy, r.gflops, r.diff_vs_cublas);
    }
    std::fflush(stdout);
  };
  std::printf("%-22s %-6s %-32s %7s %6s %11s %11s %9s %7s %9s %9s\n", "op", "prec", "method", "n",
              "nrhs", "median_us", "min_us", "GB/s", "%copy", "GFLOP/s", "diff");
  if (part("trsv")) {
    const Stats t = time_runs(
        warmup, reps, stream, [] {},
        [&] {
          empty_kernel<<<1, 32, 0, stream>>>();
          PRISM_CUDA_CHECK(cudaGetLastError());
        });
    rows.push_back({"launch_floor", "-", "empty_kernel", 0, 0, t, 0, 0, 0, 0});
    print_new();
  }
  for (index_t n = 32; part("trsv") && n <= max_n; n *= 2) {
    bench_trsv<double>(rows, handle, stream, TriOp::none, n, warmup, reps, copy_gbs);
    print_new();
    bench_trsv<float>(rows, handle, stream, TriOp::none, n, warmup, reps, copy_gbs);
    print_new();
    bench_trsv<double>(rows, handle, stream, TriOp::transpose, n, warmup, reps, copy_gbs);
    print_new();
    if (n >= 8192) {  // unaligned columns (element-by-element copies), where rows split
      bench_trsv<double>(rows, handle, stream, TriOp::none, n, warmup, reps, copy_gbs, 1);
      print_new();
    }
    if (n == 64) {  // n not a multiple of 32 next to a power of two
      bench_trsv<double>(rows, handle, stream, TriOp::none, 100, warmup, reps, copy_gbs);
      print_new();
    }
  }
  // trsm shapes, in the order of the table in tools/dense_triangular.md. 2048 x 1000,
  // 1024 x 2048 and 4096 x 1000 sit next to the automatic rule's threshold.
  struct TrsmShape {
    bool single;
    TriOp op;
    index_t m, nrhs;
  };
  const TrsmShape trsm_shapes[] = {
      {false, TriOp::none, 1024, 64},         {false, TriOp::none, 1024, 1000},
      {false, TriOp::none, 1024, 10000},      {false, TriOp::none, 4096, 64},
      {false, TriOp::none, 4096, 1000},       {false, TriOp::none, 4096, 4096},
      {false, TriOp::none, 2048, 2048},       {false, TriOp::none, 2048, 1000},
      {false, TriOp::none, 1024, 2048},       {true, TriOp::none, 2048, 1000},
      {false, TriOp::none, 8192, 8192},       {false, TriOp::transpose, 4096, 4096},
      {true, TriOp::none, 4096, 4096},        {true, TriOp::none, 2048, 64},
      {false, TriOp::transpose, 1024, 1000},  {true, TriOp::none, 1024, 1000},
      {false, TriOp::transpose, 1024, 10000}, {true, TriOp::none, 1024, 10000},
  };
  for (const TrsmShape& t : trsm_shapes) {
    if (!part("trsm")) break;
    if (t.single) {
      bench_trsm<float>(rows, handle, stream, t.op, t.m, t.nrhs, warmup, reps, copy_gbs);
    } else {
      bench_trsm<double>(rows, handle, stream, t.op, t.m, t.nrhs, warmup, reps, copy_gbs);
    }
    print_new();
  }
  if (part("batched")) {
    bench_batched(rows, handle, stream, 4096, 128, false, warmup, reps, copy_gbs);
    print_new();
    bench_batched(rows, handle, stream, 4096, 128, true, warmup, reps, copy_gbs);
    print_new();
    bench_batched(rows, handle, stream, 4096, 32, true, warmup, reps, copy_gbs);
    print_new();
  }

  std::ofstream out(json_path);
  if (!out) throw std::runtime_error("cannot write " + json_path);
  out << "{\n  \"gpu\": \"" << prop.name << "\",\n  \"sms\": " << prop.multiProcessorCount
      << ",\n  \"copy_bandwidth_GBps\": " << copy_gbs << ",\n  \"reps\": " << reps
      << ",\n  \"timing\": \"" << prism::bench::timing_name(prism::bench::timing_mode()) << "\""
      << ",\n  \"results\": [\n";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    out << "    {\"op\": \"" << r.op << "\", \"precision\": \"" << r.precision
        << "\", \"method\": \"" << r.method << "\", \"n\": " << r.n << ", \"nrhs\": " << r.nrhs
        << ", \"median_us\": " << r.t.median_us << ", \"min_us\": " << r.t.min_us
        << ", \"GBps\": " << r.gbs << ", \"pct_copy_bandwidth\": " << r.pct_copy
        << ", \"GFLOPs\": " << r.gflops << ", \"max_rel_diff_vs_cublas\": " << r.diff_vs_cublas
        << "}" << (i + 1 < rows.size() ? "," : "") << "\n";
  }
  out << "  ]\n}\n";
  cublasDestroy(handle);
  cudaStreamDestroy(stream);
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "bench_dense_triangular: %s\n", e.what());
  return 1;
}
