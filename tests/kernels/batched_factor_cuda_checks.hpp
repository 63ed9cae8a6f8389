#pragma once
// The checks of the CUDA batched factorizations, shared by SharedMemoryEdges and the
// getrf and potrf tests: every configuration of getrf and potrf against the reference on
// one batch, and getrf_vbatched on a batch of mixed sizes.

#include <gtest/gtest.h>

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <sstream>
#include <vector>

#include "common/device_copy.hpp"
#include "kernels/batched_factor.hpp"
#include "kernels/batched_factor_cuda_support.hpp"
#include "kernels/batched_factor_test_matrices.hpp"
#include "kernels/cuda/batched_factor.hpp"

namespace prism::test::batched {

// ---------------------------------------------------------------------------------------
// getrf

struct GetrfConfig {
  const char* name;
  gpu::GetrfOptions opt;
};

inline std::vector<GetrfConfig> getrf_configs() {
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
  device_sync();
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
inline constexpr index_t kSizes[] = {1, 2, 7, 16, 20, 31, 32, 33, 44, 64, 100, 128, 255, 512};

inline std::vector<index_t> batches_for(index_t n) {
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

inline std::vector<PotrfConfig> potrf_configs() {
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
  device_sync();
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
  device_sync();
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

}  // namespace prism::test::batched
