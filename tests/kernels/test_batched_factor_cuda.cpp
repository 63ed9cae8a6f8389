// CUDA batched getrf / potrf / getrs / potrs against the reference loops on the same data:
// n in {1, 2, 7, 16, 31, 32, 33, 64, 100, 128, 255, 512}, batches {1, 3, 1000} ({1, 3, 20}
// for n >= 255), both precisions, every getrf path and technique switch (register kernel,
// shared-memory kernel, blocked with each of the paper's techniques on and off), strided
// and pointer-array batches, lda = n and lda = n + 3. Skips without a device.
//
// Criteria (documented in test_batched_factor.cpp, which checks the reference itself):
//  - info equal to the reference's (exact: singular matrices have an exactly zero column,
//    non-SPD ones a negative diagonal entry, so the failing step is known);
//  - ||P A - L U||_F <= 4 n eps ||A||_F for the GPU factors (first 64 matrices of a batch);
//  - double: the same pivots as the reference, and factors within 1e3 n eps of its factors
//    (relative, Frobenius); float pivots may differ on near ties, so only the bound counts;
//  - no NaN/Inf in singular factors, padding rows and gaps between matrices untouched;
//  - getrs / potrs: ||A X - B||_F <= 8 n eps ||A||_F ||X||_F.

#include <gtest/gtest.h>

#include <Eigen/Dense>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "common/gpu.hpp"
#include "kernels/batched_factor.hpp"
#include "kernels/batched_factor_test_matrices.hpp"
#include "kernels/cuda/batched_factor.hpp"
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

// A host batch (strided, padded) and its device copy, optionally with a pointer array.
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
    stride = static_cast<std::int64_t>(lda) * n + 5;
    host.assign(static_cast<std::size_t>(stride) * count, kSentinel<T>);
    for (index_t b = 0; b < count; ++b) {
      const Mat<T> m = make_matrix<T>(kind, n, b, seed);
      for (index_t j = 0; j < n; ++j) {
        for (index_t i = 0; i < n; ++i)
          host[b * stride + i + static_cast<std::int64_t>(j) * lda] = m(i, j);
      }
    }
    dev = DeviceBuffer<T>(host.size());
    upload(dev, host);
    if (pointer_array) {
      std::vector<T*> p(count);
      for (index_t b = 0; b < count; ++b) p[b] = dev.data() + b * stride;
      ptrs = DeviceBuffer<T*>(count);
      upload(ptrs, p);
    }
  }
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
};

std::vector<index_t> pivots_to_perm(const index_t* ipiv, index_t n) {
  std::vector<index_t> perm(n);
  for (index_t i = 0; i < n; ++i) perm[i] = i;
  for (index_t i = 0; i < n; ++i) std::swap(perm[i], perm[ipiv[i] - 1]);
  return perm;
}

template <typename T>
double lu_backward_error(const Mat<T>& a, const Mat<T>& lu, const index_t* ipiv) {
  const index_t n = static_cast<index_t>(a.rows());
  const Mat<double> l = lu.template cast<double>().template triangularView<Eigen::UnitLower>();
  const Mat<double> u = lu.template cast<double>().template triangularView<Eigen::Upper>();
  const auto perm = pivots_to_perm(ipiv, n);
  Mat<double> pa(n, n);
  for (index_t i = 0; i < n; ++i) pa.row(i) = a.template cast<double>().row(perm[i]);
  const double an = a.template cast<double>().norm();
  return an > 0 ? (pa - l * u).norm() / an : (pa - l * u).norm();  // zero matrix: absolute
}

struct Config {
  const char* name;
  gpu::GetrfOptions opt;
};

std::vector<Config> getrf_configs() {
  std::vector<Config> c;
  c.push_back({"default", {}});
  gpu::GetrfOptions o;
  o.register_max_n = 0;
  o.shared_max_n = 128;
  c.push_back({"shared<=128", o});
  o = {};
  o.register_max_n = 0;
  o.shared_max_n = 0;  // blocked for every n
  c.push_back({"blocked-all-on", o});
  o.parallel_swap = false;
  o.recursive_panel = false;
  o.trtri_rowblock = false;
  o.update_depth = 1;
  c.push_back({"blocked-all-off", o});
  o.update_depth = 4;
  c.push_back({"blocked-depth4-trsm", o});
  o = {};
  o.register_max_n = 0;
  o.shared_max_n = 0;
  o.recursive_panel = false;
  o.update_depth = 4;
  c.push_back({"blocked-classic-panel-depth4", o});
  return c;
}

const index_t kSizes[] = {1, 2, 7, 16, 31, 32, 33, 64, 100, 128, 255, 512};

std::vector<index_t> batches_for(index_t n) {
  if (n <= 128) return {1, 3, 1000};
  return {1, 3, 20};  // the reference (unblocked, one core) dominates the time here
}

template <typename T>
void check_getrf(const Config& cfg, Kind kind, index_t n, index_t count) {
  const bool padded = count == 3;
  const bool pointers = count != 1000 && n % 2 == 1;
  SCOPED_TRACE(::testing::Message() << cfg.name << " n=" << n << " batch=" << count
                                    << " kind=" << static_cast<int>(kind) << " padded=" << padded
                                    << " pointers=" << pointers << " " << sizeof(T) * 8 << "-bit");
  const index_t lda = padded ? n + 3 : n;
  Batch<T> bt(kind, n, lda, count, pointers, 11);
  // reference
  std::vector<T> ref_a = bt.host;
  std::vector<index_t> ref_piv(static_cast<std::size_t>(n) * count), ref_info(count);
  ref::getrf_batched(n, ref_a.data(), lda, bt.stride, ref_piv.data(), ref_info.data(), count);
  // GPU
  DeviceBuffer<index_t> d_piv(static_cast<std::size_t>(n) * count), d_info(count);
  const std::size_t ws_bytes = gpu::getrf_workspace_bytes(n, count, sizeof(T), cfg.opt);
  DeviceBuffer<unsigned char> ws(ws_bytes);
  gpu::getrf_batched(n, bt.view(), d_piv.data(), d_info.data(), count, ws.data(), ws_bytes, nullptr,
                     cfg.opt);
  sync();
  const std::vector<T> a = download(bt.dev);
  const std::vector<index_t> piv = download(d_piv), info = download(d_info);

  const double bound = 4.0 * n * unit_roundoff<T>();
  for (index_t b = 0; b < count; ++b) {
    SCOPED_TRACE(::testing::Message() << "matrix " << b);
    ASSERT_EQ(info[b], ref_info[b]);
    for (std::int64_t e = 0; e < bt.stride; ++e) {
      const std::int64_t i = e % lda, j = e / lda;
      if (i >= n || j >= n) ASSERT_EQ(a[b * bt.stride + e], kSentinel<T>) << "padding " << e;
    }
    const index_t* p = piv.data() + static_cast<std::ptrdiff_t>(b) * n;
    const index_t* rp = ref_piv.data() + static_cast<std::ptrdiff_t>(b) * n;
    for (index_t i = 0; i < n; ++i) {
      ASSERT_GE(p[i], i + 1);
      ASSERT_LE(p[i], n);
    }
    const Mat<T> lu = bt.matrix(a, b);
    ASSERT_TRUE(lu.allFinite());
    if (sizeof(T) == 8 && kind != Kind::singular) {
      for (index_t i = 0; i < n; ++i) ASSERT_EQ(p[i], rp[i]) << "pivot " << i;
      const Mat<T> lu_ref = bt.matrix(ref_a, b);
      EXPECT_LE((lu - lu_ref).norm() / lu_ref.norm(), 1e3 * n * unit_roundoff<T>());
    }
    if (b < 64) {
      EXPECT_LE(lu_backward_error(bt.matrix(bt.host, b), lu, p), bound);
    }
  }
}

template <typename T>
void run_getrf(Kind kind) {
  for (const Config& cfg : getrf_configs()) {
    for (index_t n : kSizes) {
      for (index_t count : batches_for(n)) {
        check_getrf<T>(cfg, kind, n, count);
        if (::testing::Test::HasFatalFailure()) return;
      }
    }
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

template <typename T>
void check_vbatched() {
  const std::vector<index_t> sizes = {1, 2, 7, 16, 31, 32, 33, 64, 100, 128, 5, 0, 128, 3};
  const index_t count = static_cast<index_t>(sizes.size());
  const index_t max_n = 128;
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
  gpu::getrf_vbatched(d_n.data(), max_n, d_ptrs.data(), d_lda.data(), d_piv.data(), max_n,
                      d_info.data(), count, nullptr);
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

TEST(BatchedFactorCuda, GetrfVariableSizeIsEquivalentToReferenceDouble) {
  PRISM_SKIP_WITHOUT_GPU();
  check_vbatched<double>();
}
TEST(BatchedFactorCuda, GetrfVariableSizeIsEquivalentToReferenceFloat) {
  PRISM_SKIP_WITHOUT_GPU();
  check_vbatched<float>();
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

template <typename T>
void check_potrf(Kind kind, index_t n, index_t count, int shared_max_n) {
  const bool padded = count == 3;
  SCOPED_TRACE(::testing::Message()
               << "potrf n=" << n << " batch=" << count << " kind=" << static_cast<int>(kind)
               << " shared_max_n=" << shared_max_n << " " << sizeof(T) * 8 << "-bit");
  const index_t lda = padded ? n + 3 : n;
  Batch<T> bt(kind, n, lda, count, n % 2 == 1, 17);
  std::vector<T> ref_a = bt.host;
  std::vector<index_t> ref_info(count);
  ref::potrf_batched(n, ref_a.data(), lda, bt.stride, ref_info.data(), count);
  DeviceBuffer<index_t> d_info(count);
  gpu::PotrfOptions o;
  o.shared_max_n = shared_max_n;
  gpu::potrf_batched(n, bt.view(), d_info.data(), count, nullptr, o);
  sync();
  const auto a = download(bt.dev);
  const auto info = download(d_info);
  for (index_t b = 0; b < count; ++b) {
    SCOPED_TRACE(::testing::Message() << "matrix " << b);
    ASSERT_EQ(info[b], ref_info[b]);
    const Mat<T> f = bt.matrix(a, b), orig = bt.matrix(bt.host, b);
    for (index_t j = 0; j < n; ++j) {
      for (index_t i = 0; i < j; ++i) ASSERT_EQ(f(i, j), orig(i, j)) << "upper touched";
    }
    for (std::int64_t e = 0; e < bt.stride; ++e) {
      const std::int64_t i = e % lda, j = e / lda;
      if (i >= n || j >= n) ASSERT_EQ(a[b * bt.stride + e], kSentinel<T>) << "padding " << e;
    }
    if (info[b] != 0) continue;
    const Mat<double> l = f.template cast<double>().template triangularView<Eigen::Lower>();
    const Mat<double> ad = orig.template cast<double>();
    if (b < 64) {
      EXPECT_LE((ad - l * l.transpose()).norm() / ad.norm(), 4.0 * n * unit_roundoff<T>());
    }
    const Mat<T> lr = bt.matrix(ref_a, b).template triangularView<Eigen::Lower>();
    const Mat<T> lo = f.template triangularView<Eigen::Lower>();
    EXPECT_LE((lo - lr).norm() / lr.norm(), 1e2 * n * unit_roundoff<T>());
  }
}

template <typename T>
void run_potrf(Kind kind) {
  for (int shared_max_n : {0, 64, 128}) {
    for (index_t n : kSizes) {
      for (index_t count : batches_for(n)) {
        check_potrf<T>(kind, n, count, shared_max_n);
        if (::testing::Test::HasFatalFailure()) return;
      }
    }
  }
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
