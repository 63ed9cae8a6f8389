// CUDA batched getrf / potrf / getrs / potrs against the reference loops on the same data.
//
// What is covered (every test skips without a device):
//  - getrf, every path and technique switch (GetrfOptions): the defaults, the register
//    kernels up to n = 64 (with and without the prefetch of the 16-lane kernel; batches
//    beyond the resident grid for it too), the shared-memory whole-matrix kernel
//    (n <= 128), and the
//    blocked path for every n with the register, recursive shared-memory and classic
//    panels, parallel and serial swaps, trtri + gemm and trsm, update depths 1, 2 and 4,
//    64 x 64 (tensor-core) and 32 x 32 trailing-update tiles, the register row block of
//    32-column panels on and off, the last panel by the warp kernel or the panel kernel;
//    n in {1, 2, 7, 16, 20, 31, 32, 33, 44, 64, 100, 128, 255, 512}, batches {1, 3, 1000} for
//    n <= 128 and {1, 3, 24} for n = 255, 512 (the reference and the host-side checks,
//    O(n^3) per matrix, would dominate); random, pivot-forcing and singular matrices, both
//    precisions, strided and pointer-array batches, lda = n and lda = n + 3.
//  - potrf, every path (PotrfOptions): the defaults, the register kernels up to n = 64,
//    shared-memory whole matrix, blocked with the register or the shared-memory panel,
//    update depths 1, 2 and 4, 64 x 64 and 32 x 32 syrk tiles; the same sizes and batches; SPD
//    and non-SPD matrices.
//  - getrf_vbatched (n[b] <= 128), and its per-matrix rejection of n[b] < 0, n[b] > max_n
//    and lda[b] < n[b]; getrs and potrs (1, 3, 17 right-hand sides).
//  - getrf with a column of NaNs on every path: pivots in range, NaN exactly where due.
//  - SharedMemoryEdges (the first test of the file, so that it runs in a fresh process
//    before any larger launch of the same kernels): the sizes whose dynamic shared memory
//    is at most 48 KiB while dynamic plus static is above it, the launches the first GPU run
//    failed on (getrf recursive panel at n - j = 192 in double, 380..384 in float; the
//    float shared-memory getrf and getrf_vbatched at n = 110), and n = 192, 200, 383, 384
//    for getrf and potrf with every panel in both precisions.
//
// Every GPU output matrix is checked: info equal to the reference's (exact: singular
// matrices have an exactly zero column, non-SPD ones a negative diagonal entry); padding
// rows and the gaps between matrices untouched; pivots in range, factors finite; where the
// pivots equal the reference's (always required in double: ties, as in a zero column, go
// to the first row on both sides), the factors within 1e3 n eps of the reference's
// (relative, Frobenius, O(n^2) per matrix; potrf: 1e2 n eps where info = 0, the strictly
// upper triangle untouched); the backward error ||P A - L U||_F <= 4 n eps ||A||_F
// (||A - L L^T||_F for potrf; bounds documented in test_batched_factor.cpp) for every
// matrix whose pivots differ (float near-ties), for all matrices when n <= 32, else for a
// sample (the first 8 and the last; first and last for n > 128). getrs / potrs:
// ||A X - B||_F <= 8 n eps ||A||_F ||X||_F. The reference and the host checks run on all
// cores (std::thread): the whole file took 32 s on the 16-core H200 host.

#include <gtest/gtest.h>

#include <Eigen/Dense>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common/gpu.hpp"
#include "kernels/batched_factor.hpp"
#include "kernels/batched_factor_test_matrices.hpp"
#include "kernels/cuda/batched_factor.hpp"
#include "kernels/cuda/device_info.hpp"
#include "kernels/cuda/device_memory.hpp"

namespace {

using prism::index_t;
namespace ref = prism::kernels::reference;
namespace gpu = prism::kernels::cuda;
using gpu::DeviceBuffer;
using gpu::DeviceMatrixBatch;

using namespace prism::test::batched;

void sync() {
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
}

template <typename T>
void upload(DeviceBuffer<T>& d, const std::vector<T>& h) {
  ASSERT_EQ(h.size(), d.size());
  d.upload(h.data(), nullptr);
  sync();
}

template <typename T>
std::vector<T> download(const DeviceBuffer<T>& d) {
  std::vector<T> h(d.size());
  if (!h.empty()) {
    EXPECT_EQ(cudaMemcpy(h.data(), d.data(), h.size() * sizeof(T), cudaMemcpyDeviceToHost),
              cudaSuccess);
  }
  return h;
}

// f(0), ..., f(count - 1) on all cores; f must be thread-safe (no gtest assertions).
template <typename F>
void parallel_for(index_t count, F f) {
  const index_t threads =
      std::min<index_t>(count, std::max(1u, std::thread::hardware_concurrency()));
  if (threads <= 1) {
    for (index_t b = 0; b < count; ++b) f(b);
    return;
  }
  std::atomic<index_t> next{0};
  std::vector<std::thread> pool;
  for (index_t t = 0; t < threads; ++t) {
    pool.emplace_back([&] {
      for (index_t b = next++; b < count; b = next++) f(b);
    });
  }
  for (auto& th : pool) th.join();
}

// A host batch (strided, padded with kSentinel) and its device copy, optionally with a
// pointer array.
template <typename T>
struct Batch {
  index_t n = 0, lda = 0, count = 0;
  std::int64_t stride = 0;
  std::vector<T> host;
  DeviceBuffer<T> dev;
  DeviceBuffer<T*> ptrs;
  bool pointer_array = false;

  Batch(Kind kind, index_t n_, index_t lda_, index_t count_, bool use_pointers, std::uint64_t seed)
      : n(n_), lda(lda_), count(count_), pointer_array(use_pointers) {
    stride = static_cast<std::int64_t>(lda) * n + 5;  // not a multiple of lda on purpose
    host.assign(static_cast<std::size_t>(stride) * count, kSentinel<T>);
    parallel_for(count, [&](index_t b) {
      const Mat<T> m = make_matrix<T>(kind, n, b, seed);
      for (index_t j = 0; j < n; ++j) {
        for (index_t i = 0; i < n; ++i)
          host[b * stride + i + static_cast<std::int64_t>(j) * lda] = m(i, j);
      }
    });
    dev = DeviceBuffer<T>(host.size());
    reset();
    if (pointer_array) {
      std::vector<T*> p(count);
      for (index_t b = 0; b < count; ++b) p[b] = dev.data() + b * stride;
      ptrs = DeviceBuffer<T*>(count);
      upload(ptrs, p);
    }
  }
  // Device copy back to the original matrices.
  void reset() { upload(dev, host); }
  DeviceMatrixBatch<T> view() {
    return pointer_array ? DeviceMatrixBatch<T>::pointer_array(ptrs.data(), lda)
                         : DeviceMatrixBatch<T>::strided(dev.data(), lda, stride);
  }
  Mat<T> matrix(const std::vector<T>& data, index_t b) const {
    Mat<T> m(n, n);
    for (index_t j = 0; j < n; ++j) {
      for (index_t i = 0; i < n; ++i)
        m(i, j) = data[b * stride + i + static_cast<std::int64_t>(j) * lda];
    }
    return m;
  }
  // The first entry of matrix b's padding or trailing gap that is not the sentinel, or -1.
  std::int64_t touched_padding(const std::vector<T>& data, index_t b) const {
    for (std::int64_t e = 0; e < stride; ++e) {
      const std::int64_t i = e % lda, j = e / lda;
      if ((i >= n || j >= n) && data[b * stride + e] != kSentinel<T>) return e;
    }
    return -1;
  }
};

template <typename T>
double relative_difference(const Mat<T>& x, const Mat<T>& y) {
  const double ny = y.template cast<double>().norm();
  const double d = (x.template cast<double>() - y.template cast<double>()).norm();
  return ny > 0 ? d / ny : d;
}

// Matrices whose O(n^3) backward error is checked even where the factors match the
// reference's: all for n <= 32, else the first 8 and the last (first and last for n > 128).
bool in_sample(index_t n, index_t b, index_t count) {
  if (n <= 32) return true;
  return b == count - 1 || b < (n > 128 ? 1 : 8);
}

// Per-matrix outcome, computed on worker threads and asserted on the test thread.
struct Verdict {
  std::string failure;  // empty: the matrix passed
};

// Reports the first few failures of a batch (each with its matrix index) as one failure.
void report(const std::vector<Verdict>& verdicts) {
  std::ostringstream msg;
  int failed = 0;
  for (std::size_t b = 0; b < verdicts.size(); ++b) {
    if (verdicts[b].failure.empty()) continue;
    if (failed < 5) msg << "\n  matrix " << b << ": " << verdicts[b].failure;
    ++failed;
  }
  EXPECT_EQ(failed, 0) << failed << " of " << verdicts.size() << " matrices failed:" << msg.str();
}

// ---------------------------------------------------------------------------------------
// getrf

struct GetrfConfig {
  const char* name;
  gpu::GetrfOptions opt;
};

std::vector<GetrfConfig> getrf_configs() {
  std::vector<GetrfConfig> c;
  c.push_back({"default", {}});
  gpu::GetrfOptions o;
  o.register_max_n = 64;
  c.push_back({"registers<=64", o});
  o.prefetch_next = false;
  c.push_back({"registers<=64-no-prefetch", o});
  o = {};
  o.register_max_n = 0;
  o.shared_max_n = 128;
  c.push_back({"shared<=128", o});
  gpu::GetrfOptions blocked;
  blocked.register_max_n = 0;
  blocked.shared_max_n = 0;  // blocked for every n
  c.push_back({"blocked-all-on", blocked});
  o = blocked;
  o.register_panel = false;
  c.push_back({"blocked-recursive-panel", o});
  o = blocked;
  o.warp_last_panel = false;
  c.push_back({"blocked-rows-last-panel", o});
  o = blocked;
  o.update_depth = 1;
  c.push_back({"blocked-depth1", o});
  o.update_depth = 2;
  c.push_back({"blocked-depth2", o});
  o = blocked;
  o.register_panel = false;
  o.parallel_swap = false;
  o.recursive_panel = false;
  o.trtri_rowblock = false;
  o.register_rowblock = false;
  o.tile64_update = false;
  o.update_depth = 1;
  o.warp_last_panel = false;
  c.push_back({"blocked-all-off", o});
  o.update_depth = 4;
  c.push_back({"blocked-classic-panel-serial-trsm-depth4", o});
  o = blocked;
  o.register_panel = false;
  o.recursive_panel = true;
  o.update_depth = 4;
  c.push_back({"blocked-recursive-panel-depth4", o});
  o = blocked;
  o.tile64_update = false;
  c.push_back({"blocked-tile32-update", o});
  o = blocked;
  o.register_rowblock = false;
  c.push_back({"blocked-trtri-rowblock32", o});
  o.update_depth = 2;
  c.push_back({"blocked-trtri-rowblock32-depth2", o});
  return c;
}

// One batch, its reference factorization, and the device copy the configurations factor.
template <typename T>
struct GetrfCase {
  Kind kind;
  Batch<T> bt;
  std::vector<T> ref_a;
  std::vector<index_t> ref_piv, ref_info;

  GetrfCase(Kind kind_, index_t n, index_t count)
      : kind(kind_), bt(kind_, n, count == 3 ? n + 3 : n, count, count != 1000 && n % 2 == 1, 11) {
    ref_a = bt.host;
    ref_piv.assign(static_cast<std::size_t>(n) * count, 0);
    ref_info.assign(count, 0);
    parallel_for(count, [&](index_t b) {
      ref::getrf_batched(n, ref_a.data() + b * bt.stride, bt.lda, bt.stride,
                         ref_piv.data() + static_cast<std::ptrdiff_t>(b) * n, &ref_info[b], 1);
    });
  }
};

// getrf of bt's original matrices on the device with cfg: the factors (the whole strided
// storage, padding included), pivots and info.
template <typename T>
void getrf_on_device(const GetrfConfig& cfg, Batch<T>& bt, std::vector<T>& a,
                     std::vector<index_t>& piv, std::vector<index_t>& info) {
  const index_t n = bt.n, count = bt.count;
  bt.reset();
  DeviceBuffer<index_t> d_piv(static_cast<std::size_t>(n) * count), d_info(count);
  const std::size_t ws_bytes = gpu::getrf_workspace_bytes(n, count, sizeof(T), cfg.opt);
  DeviceBuffer<unsigned char> ws(ws_bytes);
  ASSERT_NO_THROW(gpu::getrf_batched(n, bt.view(), d_piv.data(), d_info.data(), count, ws.data(),
                                     ws_bytes, nullptr, cfg.opt));
  sync();
  a = download(bt.dev);
  piv = download(d_piv);
  info = download(d_info);
}

template <typename T>
void check_getrf(const GetrfConfig& cfg, GetrfCase<T>& gc) {
  Batch<T>& bt = gc.bt;
  const index_t n = bt.n, count = bt.count;
  SCOPED_TRACE(::testing::Message()
               << cfg.name << " n=" << n << " batch=" << count << " kind=" << kind_name(gc.kind)
               << " lda=" << bt.lda << " pointers=" << bt.pointer_array << " " << sizeof(T) * 8
               << "-bit");
  std::vector<T> a;
  std::vector<index_t> piv, info;
  ASSERT_NO_FATAL_FAILURE(getrf_on_device(cfg, bt, a, piv, info));

  const double bound = 4.0 * n * unit_roundoff<T>();
  const double factor_bound = 1e3 * n * unit_roundoff<T>();
  std::vector<Verdict> verdicts(count);
  parallel_for(count, [&](index_t b) {
    std::ostringstream why;
    if (info[b] != gc.ref_info[b]) why << "info " << info[b] << " != reference " << gc.ref_info[b];
    const std::int64_t pad = bt.touched_padding(a, b);
    if (pad >= 0) why << " padding entry " << pad << " written";
    const index_t* p = piv.data() + static_cast<std::ptrdiff_t>(b) * n;
    const index_t* rp = gc.ref_piv.data() + static_cast<std::ptrdiff_t>(b) * n;
    bool pivots_ok = true, same_pivots = true;
    for (index_t i = 0; i < n; ++i) {
      pivots_ok = pivots_ok && p[i] >= i + 1 && p[i] <= n;
      same_pivots = same_pivots && p[i] == rp[i];
    }
    if (!pivots_ok) why << " pivot out of range";
    const Mat<T> lu = bt.matrix(a, b);
    if (!lu.allFinite()) why << " non-finite factor";
    if (sizeof(T) == 8 && !same_pivots) why << " pivots differ from the reference";
    if (pivots_ok && lu.allFinite()) {
      if (same_pivots) {
        const double d = relative_difference(lu, bt.matrix(gc.ref_a, b));
        if (!(d <= factor_bound)) why << " factors differ from the reference's by " << d;
      }
      if (!same_pivots || in_sample(n, b, count)) {
        const double e = lu_backward_error(bt.matrix(bt.host, b), lu, p);
        if (!(e <= bound)) why << " backward error " << e << " > " << bound;
      }
    }
    verdicts[b].failure = why.str();
  });
  report(verdicts);
}

// The sizes, 20 (the warp kernels' 24-column variant) and 44 (the one-thread-per-row
// kernels' 48-column variant; 33 takes the 40-column one).
const index_t kSizes[] = {1, 2, 7, 16, 20, 31, 32, 33, 44, 64, 100, 128, 255, 512};

std::vector<index_t> batches_for(index_t n) {
  if (n <= 128) return {1, 3, 1000};
  return {1, 3, 24};  // the reference and the O(n^3) checks dominate here
}

template <typename T>
void run_getrf(Kind kind) {
  const auto configs = getrf_configs();
  for (index_t n : kSizes) {
    for (index_t count : batches_for(n)) {
      GetrfCase<T> gc(kind, n, count);
      for (const GetrfConfig& cfg : configs) {
        check_getrf<T>(cfg, gc);
        if (::testing::Test::HasFailure()) return;
      }
    }
  }
}

// ---------------------------------------------------------------------------------------
// potrf

struct PotrfConfig {
  const char* name;
  gpu::PotrfOptions opt;
};

std::vector<PotrfConfig> potrf_configs() {
  std::vector<PotrfConfig> c;
  c.push_back({"default", {}});
  gpu::PotrfOptions o;
  o.register_max_n = 64;
  c.push_back({"registers<=64", o});
  o.register_max_n = 0;
  o.shared_max_n = 128;
  c.push_back({"shared<=128", o});
  o = {};
  o.register_max_n = 0;
  o.shared_max_n = 0;
  c.push_back({"blocked-register-panel", o});
  const gpu::PotrfOptions blocked = o;
  o.update_depth = 1;
  c.push_back({"blocked-depth1", o});
  o.update_depth = 2;
  c.push_back({"blocked-depth2", o});
  o.tile64_update = false;
  c.push_back({"blocked-depth2-tile32-update", o});
  o.tile64_update = true;
  o.update_depth = 4;
  c.push_back({"blocked-depth4", o});
  o = blocked;
  o.register_panel = false;
  c.push_back({"blocked-shared-panel", o});
  return c;
}

template <typename T>
struct PotrfCase {
  Kind kind;
  Batch<T> bt;
  std::vector<T> ref_a;
  std::vector<index_t> ref_info;

  PotrfCase(Kind kind_, index_t n, index_t count)
      : kind(kind_), bt(kind_, n, count == 3 ? n + 3 : n, count, count != 1000 && n % 2 == 1, 17) {
    ref_a = bt.host;
    ref_info.assign(count, 0);
    parallel_for(count, [&](index_t b) {
      ref::potrf_batched(n, ref_a.data() + b * bt.stride, bt.lda, bt.stride, &ref_info[b], 1);
    });
  }
};

template <typename T>
void check_potrf(const PotrfConfig& cfg, PotrfCase<T>& pc) {
  Batch<T>& bt = pc.bt;
  const index_t n = bt.n, count = bt.count;
  SCOPED_TRACE(::testing::Message()
               << "potrf " << cfg.name << " n=" << n << " batch=" << count
               << " kind=" << kind_name(pc.kind) << " lda=" << bt.lda
               << " pointers=" << bt.pointer_array << " " << sizeof(T) * 8 << "-bit");
  bt.reset();
  DeviceBuffer<index_t> d_info(count);
  ASSERT_NO_THROW(gpu::potrf_batched(n, bt.view(), d_info.data(), count, nullptr, cfg.opt));
  sync();
  const auto a = download(bt.dev);
  const auto info = download(d_info);
  const double bound = 4.0 * n * unit_roundoff<T>();
  const double factor_bound = 1e2 * n * unit_roundoff<T>();
  std::vector<Verdict> verdicts(count);
  parallel_for(count, [&](index_t b) {
    std::ostringstream why;
    if (info[b] != pc.ref_info[b]) why << "info " << info[b] << " != reference " << pc.ref_info[b];
    const std::int64_t pad = bt.touched_padding(a, b);
    if (pad >= 0) why << " padding entry " << pad << " written";
    const Mat<T> f = bt.matrix(a, b), orig = bt.matrix(bt.host, b);
    bool upper_kept = true;
    for (index_t j = 0; j < n; ++j) {
      for (index_t i = 0; i < j; ++i) upper_kept = upper_kept && f(i, j) == orig(i, j);
    }
    if (!upper_kept) why << " upper triangle written";
    if (info[b] == 0 && pc.ref_info[b] == 0) {
      const Mat<T> lo = f.template triangularView<Eigen::Lower>();
      if (!lo.allFinite()) why << " non-finite factor";
      const Mat<T> lr = bt.matrix(pc.ref_a, b).template triangularView<Eigen::Lower>();
      const double d = relative_difference(lo, lr);
      if (!(d <= factor_bound)) why << " factor differs from the reference's by " << d;
      if (in_sample(n, b, count)) {
        const Mat<double> l = lo.template cast<double>();
        const Mat<double> ad = orig.template cast<double>();
        const double e = (ad - l * l.transpose()).norm() / ad.norm();
        if (!(e <= bound)) why << " backward error " << e << " > " << bound;
      }
    }
    verdicts[b].failure = why.str();
  });
  report(verdicts);
}

template <typename T>
void run_potrf(Kind kind) {
  const auto configs = potrf_configs();
  for (index_t n : kSizes) {
    for (index_t count : batches_for(n)) {
      PotrfCase<T> pc(kind, n, count);
      for (const PotrfConfig& cfg : configs) {
        check_potrf<T>(cfg, pc);
        if (::testing::Test::HasFailure()) return;
      }
    }
  }
}

// ---------------------------------------------------------------------------------------
// getrf_vbatched

template <typename T>
void check_vbatched(const std::vector<index_t>& sizes, index_t max_n) {
  SCOPED_TRACE(::testing::Message()
               << "getrf_vbatched max_n=" << max_n << " " << sizeof(T) * 8 << "-bit");
  const index_t count = static_cast<index_t>(sizes.size());
  std::vector<std::vector<T>> ref_mats;
  std::vector<DeviceBuffer<T>> dev_mats;
  std::vector<T*> ptrs;
  std::vector<index_t> lda;
  for (index_t b = 0; b < count; ++b) {
    const index_t n = sizes[b];
    const Mat<T> m = make_matrix<T>(b % 3 == 0 ? Kind::singular : Kind::pivoting, n, b, 41);
    std::vector<T> h(static_cast<std::size_t>(n + 2) * std::max<index_t>(n, 1), kSentinel<T>);
    for (index_t j = 0; j < n; ++j) {
      for (index_t i = 0; i < n; ++i) h[i + j * (n + 2)] = m(i, j);
    }
    ref_mats.push_back(h);
    dev_mats.emplace_back(h.size());
    upload(dev_mats.back(), h);
    ptrs.push_back(dev_mats.back().data());
    lda.push_back(n + 2);
  }
  std::vector<T*> ref_ptrs;
  for (auto& h : ref_mats) ref_ptrs.push_back(h.data());
  std::vector<index_t> ref_piv(static_cast<std::size_t>(max_n) * count, 0), ref_info(count);
  ref::getrf_vbatched(sizes.data(), ref_ptrs.data(), lda.data(), ref_piv.data(), max_n,
                      ref_info.data(), count);

  DeviceBuffer<index_t> d_n(count), d_lda(count), d_piv(static_cast<std::size_t>(max_n) * count),
      d_info(count);
  DeviceBuffer<T*> d_ptrs(count);
  upload(d_n, sizes);
  upload(d_lda, lda);
  upload(d_ptrs, ptrs);
  ASSERT_EQ(cudaMemset(d_piv.data(), 0, d_piv.size() * sizeof(index_t)), cudaSuccess);
  ASSERT_NO_THROW(gpu::getrf_vbatched(d_n.data(), max_n, d_ptrs.data(), d_lda.data(), d_piv.data(),
                                      max_n, d_info.data(), count, nullptr));
  sync();
  const auto piv = download(d_piv), info = download(d_info);
  for (index_t b = 0; b < count; ++b) {
    SCOPED_TRACE(::testing::Message() << "matrix " << b << " n=" << sizes[b]);
    EXPECT_EQ(info[b], ref_info[b]);
    const auto h = download(dev_mats[b]);
    double diff = 0, norm = 0;
    for (std::size_t e = 0; e < h.size(); ++e) {
      diff += std::pow(static_cast<double>(h[e]) - ref_mats[b][e], 2);
      norm += std::pow(static_cast<double>(ref_mats[b][e]), 2);
    }
    EXPECT_LE(std::sqrt(diff / std::max(norm, 1e-300)),
              1e3 * std::max(sizes[b], 1) * unit_roundoff<T>());
    if (sizeof(T) == 8) {
      for (index_t i = 0; i < sizes[b]; ++i) EXPECT_EQ(piv[b * max_n + i], ref_piv[b * max_n + i]);
    }
  }
}

const std::vector<index_t> kVarSizes = {1, 2, 7, 16, 31, 32, 33, 64, 100, 128, 5, 0, 128, 3};

// ---------------------------------------------------------------------------------------
// Tests. SharedMemoryEdges first: see the file comment.

TEST(BatchedFactorCuda, SharedMemoryEdges) {
  PRISM_SKIP_WITHOUT_GPU();
  // getrf_shared_kernel<float> at n = 110: 111 * 110 * 4 = 48840 dynamic bytes.
  check_vbatched<float>({110, 37, 1, 0, 109}, 110);
  if (HasFailure()) return;
  gpu::GetrfOptions shared;
  shared.register_max_n = 0;
  shared.shared_max_n = 128;
  {
    GetrfCase<float> gc(Kind::pivoting, 110, 3);
    check_getrf<float>({"shared<=128", shared}, gc);
  }
  if (HasFailure()) return;
  // getrf_panel_kernel: (n - j) * 32 * sizeof(T) = 49152 at n - j = 192 (double) and 384
  // (float), 49024 at 383 (float). Recursive shared-memory panel first, then the others.
  gpu::GetrfOptions recursive;
  recursive.register_panel = false;
  std::vector<GetrfConfig> panels = {{"blocked-recursive-panel", recursive}};
  for (const GetrfConfig& c : getrf_configs()) panels.push_back(c);
  for (index_t n : {192, 200, 384}) {
    GetrfCase<double> gc(Kind::pivoting, n, 3);
    for (const GetrfConfig& c : panels) check_getrf<double>(c, gc);
    if (HasFailure()) return;
  }
  for (index_t n : {383, 384, 192, 200}) {
    GetrfCase<float> gc(Kind::pivoting, n, 3);
    for (const GetrfConfig& c : panels) check_getrf<float>(c, gc);
    if (HasFailure()) return;
  }
  for (index_t n : {192, 200, 383, 384}) {
    PotrfCase<double> pd(Kind::spd, n, 3);
    PotrfCase<float> pf(Kind::spd, n, 3);
    for (const PotrfConfig& c : potrf_configs()) {
      check_potrf<double>(c, pd);
      check_potrf<float>(c, pf);
    }
    if (HasFailure()) return;
  }
}

TEST(BatchedFactorCuda, GetrfRandomIsEquivalentToReferenceDouble) {
  PRISM_SKIP_WITHOUT_GPU();
  run_getrf<double>(Kind::random);
}
TEST(BatchedFactorCuda, GetrfRandomIsEquivalentToReferenceFloat) {
  PRISM_SKIP_WITHOUT_GPU();
  run_getrf<float>(Kind::random);
}
TEST(BatchedFactorCuda, GetrfForcedPivotingDouble) {
  PRISM_SKIP_WITHOUT_GPU();
  run_getrf<double>(Kind::pivoting);
}
TEST(BatchedFactorCuda, GetrfForcedPivotingFloat) {
  PRISM_SKIP_WITHOUT_GPU();
  run_getrf<float>(Kind::pivoting);
}
TEST(BatchedFactorCuda, GetrfSingularReportsInfoDouble) {
  PRISM_SKIP_WITHOUT_GPU();
  run_getrf<double>(Kind::singular);
}
TEST(BatchedFactorCuda, GetrfSingularReportsInfoFloat) {
  PRISM_SKIP_WITHOUT_GPU();
  run_getrf<float>(Kind::singular);
}

// The prefetching warp kernel (GetrfOptions::prefetch_next, 8 < n <= 16) keeps one grid
// resident and takes matrix after matrix: batches of more than twice the matrices the
// device holds at once (resident threads / 16 lanes per matrix, an upper bound), not a
// multiple of a block's, so that every lane group loops, some one step more than others,
// and the last block is part empty. Random and singular matrices, with and without the
// prefetch. At n = 16 (lda 16) the batch's stride, lda * n + 5, leaves every other matrix
// off a 16-byte boundary, so the kernel's two copies (16 bytes at a time, or an entry at
// a time) both run, in the two segments of a warp.
template <typename T>
void run_getrf_beyond_resident() {
  const index_t threads = gpu::resident_threads();
  ASSERT_GT(threads, 0);
  gpu::GetrfOptions off;
  off.prefetch_next = false;
  const GetrfConfig configs[] = {{"default", {}}, {"no-prefetch", off}};
  for (const Kind kind : {Kind::random, Kind::singular}) {
    for (const index_t n : {9, 13, 16}) {
      GetrfCase<T> gc(kind, n, 2 * threads / 16 + 5);
      for (const GetrfConfig& cfg : configs) {
        check_getrf<T>(cfg, gc);
        if (::testing::Test::HasFailure()) return;
      }
    }
  }
}
TEST(BatchedFactorCuda, GetrfWarpKernelBeyondResidentBatchDouble) {
  PRISM_SKIP_WITHOUT_GPU();
  run_getrf_beyond_resident<double>();
}
TEST(BatchedFactorCuda, GetrfWarpKernelBeyondResidentBatchFloat) {
  PRISM_SKIP_WITHOUT_GPU();
  run_getrf_beyond_resident<float>();
}

// A column of NaNs (matrices 1 and 3 of a batch of 4; column c = 0 or n / 2): every path
// still records a pivot in range for every column (the pivot searches count NaN as 0, so
// an all-NaN column has candidates, and ties go to the first row as in the reference), and
// the factors are NaN exactly where they must be: column c, and rows and columns past c.
// The finite matrices of the batch and the finite entries of the others equal the
// reference's where the pivots are the reference's (always required in double; float may
// break near-ties differently).
template <typename T>
void check_getrf_nan_column(index_t n, index_t c) {
  const index_t count = 4;
  Batch<T> bt(Kind::random, n, n + 1, count, n % 2 == 1, 23);
  for (index_t b : {1, 3}) {
    for (index_t i = 0; i < n; ++i) {
      bt.host[b * bt.stride + i + static_cast<std::int64_t>(c) * bt.lda] =
          std::numeric_limits<T>::quiet_NaN();
    }
  }
  std::vector<T> ref_a = bt.host;
  std::vector<index_t> ref_piv(static_cast<std::size_t>(n) * count), ref_info(count);
  for (index_t b = 0; b < count; ++b) {
    ref::getrf_batched(n, ref_a.data() + b * bt.stride, bt.lda, bt.stride, ref_piv.data() + b * n,
                       &ref_info[b], 1);
  }
  for (const GetrfConfig& cfg : getrf_configs()) {
    SCOPED_TRACE(::testing::Message() << cfg.name << " n=" << n << " NaN column " << c << " "
                                      << sizeof(T) * 8 << "-bit");
    std::vector<T> a;
    std::vector<index_t> piv, info;
    ASSERT_NO_FATAL_FAILURE(getrf_on_device(cfg, bt, a, piv, info));
    for (index_t b = 0; b < count; ++b) {
      SCOPED_TRACE(::testing::Message() << "matrix " << b);
      EXPECT_EQ(info[b], ref_info[b]);
      EXPECT_EQ(bt.touched_padding(a, b), -1);
      const bool planted = b == 1 || b == 3;
      const Mat<T> lu = bt.matrix(a, b), ref_lu = bt.matrix(ref_a, b);
      bool same_pivots = true;
      for (index_t i = 0; i < n; ++i) {
        const index_t p = piv[b * n + i];
        ASSERT_TRUE(p >= i + 1 && p <= n) << "pivot " << i << " = " << p;
        if (sizeof(T) == 8) EXPECT_EQ(p, ref_piv[b * n + i]) << "pivot " << i;
        same_pivots = same_pivots && p == ref_piv[b * n + i];
      }
      double diff = 0.0, norm = 0.0;
      for (index_t k = 0; k < n; ++k) {
        for (index_t i = 0; i < n; ++i) {
          const bool nan = planted && (k == c || (i > c && k > c));
          ASSERT_EQ(std::isnan(lu(i, k)), nan) << "entry (" << i << ", " << k << ")";
          if (nan) continue;
          diff += std::pow(static_cast<double>(lu(i, k)) - ref_lu(i, k), 2);
          norm += std::pow(static_cast<double>(ref_lu(i, k)), 2);
        }
      }
      if (same_pivots) {
        EXPECT_LE(std::sqrt(diff / std::max(norm, 1e-300)), 1e3 * n * unit_roundoff<T>());
      }
    }
  }
}

TEST(BatchedFactorCuda, GetrfNanColumnGivesPivotsInRangeOnEveryPath) {
  PRISM_SKIP_WITHOUT_GPU();
  for (index_t n : {1, 7, 16, 20, 32, 33, 44, 64, 100, 200}) {
    for (index_t c : {index_t{0}, n / 2}) {
      check_getrf_nan_column<double>(n, c);
      check_getrf_nan_column<float>(n, c);
      if (HasFailure()) return;
    }
  }
}

TEST(BatchedFactorCuda, GetrfRejectsMissingWorkspaceAndBadSizes) {
  PRISM_SKIP_WITHOUT_GPU();
  gpu::GetrfOptions o;
  o.trtri_rowblock = true;
  const index_t n = 200, count = 2;
  ASSERT_GT(gpu::getrf_workspace_bytes(n, count, sizeof(double), o), 0u);
  DeviceBuffer<double> a(static_cast<std::size_t>(n) * n * count);
  DeviceBuffer<index_t> piv(static_cast<std::size_t>(n) * count), info(count);
  EXPECT_THROW(gpu::getrf_batched(n, DeviceMatrixBatch<double>::strided(a.data(), n, n * n),
                                  piv.data(), info.data(), count, nullptr, 0, nullptr, o),
               prism::ConfigError);
  EXPECT_THROW(gpu::getrf_batched(513, DeviceMatrixBatch<double>::strided(a.data(), 513, 0),
                                  piv.data(), info.data(), 1, nullptr, 0, nullptr, o),
               prism::ConfigError);
  EXPECT_THROW(gpu::getrf_batched(n, DeviceMatrixBatch<double>::strided(a.data(), n - 1, n * n),
                                  piv.data(), info.data(), count, nullptr, 0, nullptr, o),
               prism::ConfigError);
}

TEST(BatchedFactorCuda, GetrfVariableSizeIsEquivalentToReferenceDouble) {
  PRISM_SKIP_WITHOUT_GPU();
  check_vbatched<double>(kVarSizes, 128);
}
TEST(BatchedFactorCuda, GetrfVariableSizeIsEquivalentToReferenceFloat) {
  PRISM_SKIP_WITHOUT_GPU();
  check_vbatched<float>(kVarSizes, 128);
}

template <typename T>
void check_getrs(index_t n, index_t nrhs, index_t count) {
  SCOPED_TRACE(::testing::Message() << "getrs n=" << n << " nrhs=" << nrhs << " batch=" << count
                                    << " " << sizeof(T) * 8 << "-bit");
  Batch<T> bt(Kind::pivoting, n, n + 1, count, n % 2 == 0, 23);
  DeviceBuffer<index_t> d_piv(static_cast<std::size_t>(n) * count), d_info(count);
  gpu::GetrfOptions o;
  const std::size_t ws_bytes = gpu::getrf_workspace_bytes(n, count, sizeof(T), o);
  DeviceBuffer<unsigned char> ws(ws_bytes);
  gpu::getrf_batched(n, bt.view(), d_piv.data(), d_info.data(), count, ws.data(), ws_bytes, nullptr,
                     o);
  const index_t ldb = n + 2;
  const std::int64_t stride_b = static_cast<std::int64_t>(ldb) * nrhs;
  std::vector<T> rhs(static_cast<std::size_t>(stride_b) * count);
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(-1, 1);
  for (auto& v : rhs) v = static_cast<T>(u(rng));
  DeviceBuffer<T> d_b(rhs.size());
  upload(d_b, rhs);
  gpu::getrs_batched(n, nrhs, bt.view(), d_piv.data(),
                     DeviceMatrixBatch<T>::strided(d_b.data(), ldb, stride_b), count, nullptr);
  sync();
  const auto x = download(d_b);
  for (index_t b = 0; b < count; ++b) {
    Mat<double> bm(n, nrhs), xm(n, nrhs);
    for (index_t c = 0; c < nrhs; ++c) {
      for (index_t i = 0; i < n; ++i) {
        bm(i, c) = rhs[b * stride_b + c * ldb + i];
        xm(i, c) = x[b * stride_b + c * ldb + i];
      }
    }
    const Mat<double> a = bt.matrix(bt.host, b).template cast<double>();
    EXPECT_LE((a * xm - bm).norm() / (a.norm() * xm.norm()), 8.0 * n * unit_roundoff<T>())
        << "matrix " << b;
  }
}

// Sizes are device data, so getrf_vbatched checks them on the device: a matrix with n < 0,
// n > max_n (which would overrun the shared memory sized for max_n) or lda < max(1, n) is
// reported in its info (-1 or -4) and left untouched; the others of the batch are factored.
TEST(BatchedFactorCuda, GetrfVariableSizeRejectsIllegalSizesPerMatrix) {
  PRISM_SKIP_WITHOUT_GPU();
  const index_t max_n = 16, count = 5, cap = 64;  // cap: elements each buffer holds
  const std::vector<index_t> sizes = {5, 200, -3, 7, 9}, lda = {5, 200, 1, 7, 4};
  const std::vector<index_t> expected_info = {0, -1, -1, 0, -4};
  std::vector<std::vector<double>> host(count);
  std::vector<DeviceBuffer<double>> dev;
  std::vector<double*> ptrs;
  for (index_t b = 0; b < count; ++b) {
    host[b].assign(cap, kSentinel<double>);
    if (expected_info[b] == 0) {
      const Mat<double> m = make_matrix<double>(Kind::pivoting, sizes[b], b, 5);
      for (index_t j = 0; j < sizes[b]; ++j) {
        for (index_t i = 0; i < sizes[b]; ++i) host[b][i + j * lda[b]] = m(i, j);
      }
    }
    dev.emplace_back(host[b].size());
    upload(dev.back(), host[b]);
    ptrs.push_back(dev.back().data());
  }
  DeviceBuffer<index_t> d_n(count), d_lda(count), d_piv(max_n * count), d_info(count);
  DeviceBuffer<double*> d_ptrs(count);
  upload(d_n, sizes);
  upload(d_lda, lda);
  upload(d_ptrs, ptrs);
  ASSERT_NO_THROW(gpu::getrf_vbatched(d_n.data(), max_n, d_ptrs.data(), d_lda.data(), d_piv.data(),
                                      max_n, d_info.data(), count, nullptr));
  sync();
  const auto info = download(d_info);
  for (index_t b = 0; b < count; ++b) {
    SCOPED_TRACE(::testing::Message() << "matrix " << b << " n=" << sizes[b] << " lda=" << lda[b]);
    EXPECT_EQ(info[b], expected_info[b]);
    const auto got = download(dev[b]);
    if (expected_info[b] != 0) {
      EXPECT_EQ(got, host[b]);
      continue;
    }
    std::vector<double> ref = host[b];
    std::vector<index_t> ref_piv(sizes[b]);
    index_t ref_info = 0;
    ref::getrf_batched(sizes[b], ref.data(), lda[b], 0, ref_piv.data(), &ref_info, 1);
    EXPECT_EQ(info[b], ref_info);
    for (std::size_t e = 0; e < got.size(); ++e) {
      EXPECT_NEAR(got[e], ref[e], 1e3 * sizes[b] * unit_roundoff<double>() * (1 + std::abs(ref[e])))
          << "entry " << e;
    }
  }
}

TEST(BatchedFactorCuda, GetrsSolves) {
  PRISM_SKIP_WITHOUT_GPU();
  for (index_t n : {1, 7, 32, 33, 64, 100, 255, 512}) {
    for (index_t nrhs : {1, 3, 17}) {
      check_getrs<double>(n, nrhs, 3);
      check_getrs<float>(n, nrhs, 3);
    }
  }
  check_getrs<double>(32, 2, 1000);
}

TEST(BatchedFactorCuda, PotrfSpdIsEquivalentToReferenceDouble) {
  PRISM_SKIP_WITHOUT_GPU();
  run_potrf<double>(Kind::spd);
}
TEST(BatchedFactorCuda, PotrfSpdIsEquivalentToReferenceFloat) {
  PRISM_SKIP_WITHOUT_GPU();
  run_potrf<float>(Kind::spd);
}
TEST(BatchedFactorCuda, PotrfNotSpdReportsInfoDouble) {
  PRISM_SKIP_WITHOUT_GPU();
  run_potrf<double>(Kind::not_spd);
}
TEST(BatchedFactorCuda, PotrfNotSpdReportsInfoFloat) {
  PRISM_SKIP_WITHOUT_GPU();
  run_potrf<float>(Kind::not_spd);
}

template <typename T>
void check_potrs(index_t n, index_t nrhs, index_t count) {
  SCOPED_TRACE(::testing::Message() << "potrs n=" << n << " nrhs=" << nrhs << " batch=" << count
                                    << " " << sizeof(T) * 8 << "-bit");
  Batch<T> bt(Kind::spd, n, n, count, false, 29);
  DeviceBuffer<index_t> d_info(count);
  gpu::potrf_batched(n, bt.view(), d_info.data(), count, nullptr);
  const std::int64_t stride_b = static_cast<std::int64_t>(n) * nrhs;
  std::vector<T> rhs(static_cast<std::size_t>(stride_b) * count);
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1, 1);
  for (auto& v : rhs) v = static_cast<T>(u(rng));
  DeviceBuffer<T> d_b(rhs.size());
  upload(d_b, rhs);
  gpu::potrs_batched(n, nrhs, bt.view(), DeviceMatrixBatch<T>::strided(d_b.data(), n, stride_b),
                     count, nullptr);
  sync();
  const auto x = download(d_b);
  for (index_t b = 0; b < count; ++b) {
    const Eigen::Map<const Mat<T>> bm(rhs.data() + b * stride_b, n, nrhs);
    const Eigen::Map<const Mat<T>> xm(x.data() + b * stride_b, n, nrhs);
    const Mat<double> a = bt.matrix(bt.host, b).template cast<double>();
    const Mat<double> xd = xm.template cast<double>();
    EXPECT_LE((a * xd - bm.template cast<double>()).norm() / (a.norm() * xd.norm()),
              8.0 * n * unit_roundoff<T>())
        << "matrix " << b;
  }
}

TEST(BatchedFactorCuda, PotrsSolves) {
  PRISM_SKIP_WITHOUT_GPU();
  for (index_t n : {1, 7, 32, 33, 64, 100, 255, 512}) {
    for (index_t nrhs : {1, 3, 17}) {
      check_potrs<double>(n, nrhs, 3);
      check_potrs<float>(n, nrhs, 3);
    }
  }
}

}  // namespace
