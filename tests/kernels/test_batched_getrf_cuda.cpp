// CUDA batched getrf (every configuration; batches beyond the resident grid; NaN columns;
// bad arguments), getrf_vbatched and getrs against the reference. The checks and their
// bounds: test_batched_factor_cuda.cpp and batched_factor_cuda_checks.hpp. Skips without a
// device.

#include <gtest/gtest.h>

#include <Eigen/Dense>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include <prism/errors.hpp>

#include "common/device_copy.hpp"
#include "common/gpu.hpp"
#include "kernels/batched_factor_cuda_checks.hpp"
#include "kernels/cuda/device_info.hpp"

namespace {

using namespace prism::test::batched;
using prism::test::download;

const std::vector<index_t> kVarSizes = {1, 2, 7, 16, 31, 32, 33, 64, 100, 128, 5, 0, 128, 3};

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
  const std::vector<T> rhs = random_rhs<T>(static_cast<std::size_t>(stride_b) * count, 5);
  DeviceBuffer<T> d_b(rhs.size());
  upload(d_b, rhs);
  gpu::getrs_batched(n, nrhs, bt.view(), d_piv.data(),
                     DeviceMatrixBatch<T>::strided(d_b.data(), ldb, stride_b), count, nullptr);
  device_sync();
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
  device_sync();
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

}  // namespace
