// Reference batched getrf / potrf / getrs / potrs against Eigen (PartialPivLU, LLT) for
// n in {1, 2, 7, 16, 31, 32, 33, 64, 100, 128, 255, 512}, batches {1, 3, 1000} (fewer
// matrices for large n: 1000 for n <= 33, 100 up to n = 128, 3 beyond), both precisions,
// lda = n and lda = n + 3.
//
// Kinds: random entries in (-1, 1); "pivoting" (random with the diagonal scaled by 1e-9,
// so nearly every step must swap); "singular" (matrix b has column b mod n set to zero:
// info must be exactly (b mod n) + 1); SPD (M M^T / n + I) and non-SPD (SPD with
// a(k, k) = -1 for k = b mod n: potrf info must be exactly k + 1).
//
// Documented bounds (backward error of LU / Cholesky, Higham Thm 9.3 / 10.3, with a
// safety factor for growth on these matrices):
//   ||P A - L U||_F <= 4 n eps ||A||_F,   ||A - L L^T||_F <= 4 n eps ||A||_F,
//   ||A X - B||_F <= 8 n eps ||A||_F ||X||_F  (getrs / potrs residual),
// with eps the unit roundoff of the precision (2^-53 / 2^-24) and n >= 1.

#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <Eigen/Dense>
#include <Eigen/LU>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <prism/errors.hpp>

#include "kernels/batched_factor.hpp"
#include "kernels/batched_factor_test_matrices.hpp"

namespace {

using prism::index_t;
namespace ref = prism::kernels::reference;
using namespace prism::test::batched;

// Batch in strided storage with leading dimension lda (padding filled with a sentinel).
template <typename T>
struct Batch {
  index_t n = 0, lda = 0, count = 0;
  std::int64_t stride = 0;
  std::vector<T> data;
  std::vector<Mat<T>> original;
};

template <typename T>
Batch<T> make_batch(Kind kind, index_t n, index_t lda, index_t count, std::uint64_t seed) {
  Batch<T> bt;
  bt.n = n;
  bt.lda = lda;
  bt.count = count;
  bt.stride = static_cast<std::int64_t>(lda) * n + 5;  // not a multiple of lda on purpose
  bt.data.assign(static_cast<std::size_t>(bt.stride) * count, kSentinel<T>);
  for (index_t b = 0; b < count; ++b) {
    bt.original.push_back(make_matrix<T>(kind, n, b, seed));
    for (index_t j = 0; j < n; ++j) {
      for (index_t i = 0; i < n; ++i) {
        bt.data[b * bt.stride + i + static_cast<std::int64_t>(j) * lda] = bt.original[b](i, j);
      }
    }
  }
  return bt;
}

template <typename T>
Mat<T> extract(const Batch<T>& bt, index_t b) {
  Mat<T> m(bt.n, bt.n);
  for (index_t j = 0; j < bt.n; ++j) {
    for (index_t i = 0; i < bt.n; ++i) {
      m(i, j) = bt.data[b * bt.stride + i + static_cast<std::int64_t>(j) * bt.lda];
    }
  }
  return m;
}

// Padding rows (lda > n) and the gap between matrices must be untouched.
template <typename T>
void expect_padding_untouched(const Batch<T>& bt) {
  for (index_t b = 0; b < bt.count; ++b) {
    for (std::int64_t e = 0; e < bt.stride; ++e) {
      const std::int64_t i = e % bt.lda, j = e / bt.lda;
      if (i < bt.n && j < bt.n) continue;
      ASSERT_EQ(bt.data[b * bt.stride + e], kSentinel<T>) << "matrix " << b << " offset " << e;
    }
  }
}

template <typename T>
void check_getrf(Kind kind, index_t n, index_t count, bool padded) {
  SCOPED_TRACE(::testing::Message()
               << "getrf kind=" << kind_name(kind) << " n=" << n << " batch=" << count
               << " padded=" << padded << " " << sizeof(T) * 8 << "-bit");
  const index_t lda = padded ? n + 3 : std::max<index_t>(n, 1);
  Batch<T> bt = make_batch<T>(kind, n, lda, count, 11);
  std::vector<index_t> ipiv(static_cast<std::size_t>(n) * count, -1), info(count, -1);
  ref::getrf_batched(n, bt.data.data(), lda, bt.stride, ipiv.data(), info.data(), count);
  expect_padding_untouched(bt);

  const double bound = 4.0 * n * unit_roundoff<T>();
  for (index_t b = 0; b < count; ++b) {
    SCOPED_TRACE(::testing::Message() << "matrix " << b);
    const index_t* piv = ipiv.data() + static_cast<std::ptrdiff_t>(b) * n;
    for (index_t i = 0; i < n; ++i) {
      ASSERT_GE(piv[i], i + 1);
      ASSERT_LE(piv[i], n);
    }
    const Mat<T> lu = extract(bt, b);
    ASSERT_TRUE(lu.allFinite());
    if (kind == Kind::singular) {
      ASSERT_EQ(info[b], b % n + 1);
    } else {
      ASSERT_EQ(info[b], 0);
    }
    EXPECT_LE(lu_backward_error(bt.original[b], lu, piv), bound);
    if (kind == Kind::pivoting && n > 1) {
      // The tiny diagonal forces a swap at step 0 at least.
      EXPECT_NE(piv[0], 1);
    }
    if (kind == Kind::singular) continue;
    // Same permutation and factors as Eigen's partial-pivoting LU (blocked, so the factors
    // agree to rounding, not bitwise). Float pivots may differ on near ties: skip them.
    Eigen::PartialPivLU<Mat<T>> eig(bt.original[b]);
    if (sizeof(T) == 8) {
      const auto perm = pivots_to_perm(piv, n);
      Mat<T> pa_ours(n, n);
      for (index_t i = 0; i < n; ++i) pa_ours.row(i) = bt.original[b].row(perm[i]);
      const Mat<T> pa_eigen = eig.permutationP() * bt.original[b];
      ASSERT_EQ(pa_ours, pa_eigen) << "pivots differ from Eigen";
      const double diff = (lu - eig.matrixLU()).norm() / eig.matrixLU().norm();
      EXPECT_LE(diff, 1e3 * n * unit_roundoff<T>());
    }
  }
}

template <typename T>
void check_getrs(index_t n, index_t nrhs, index_t count) {
  SCOPED_TRACE(::testing::Message() << "getrs n=" << n << " nrhs=" << nrhs << " batch=" << count
                                    << " " << sizeof(T) * 8 << "-bit");
  Batch<T> bt = make_batch<T>(Kind::pivoting, n, n + 1, count, 23);
  std::vector<index_t> ipiv(static_cast<std::size_t>(n) * count), info(count);
  ref::getrf_batched(n, bt.data.data(), bt.lda, bt.stride, ipiv.data(), info.data(), count);
  const index_t ldb = n + 2;
  const std::int64_t stride_b = static_cast<std::int64_t>(ldb) * nrhs;
  const std::vector<T> rhs = random_rhs<T>(static_cast<std::size_t>(stride_b) * count, 5);
  std::vector<T> x = rhs;
  ref::getrs_batched(n, nrhs, bt.data.data(), bt.lda, bt.stride, ipiv.data(), x.data(), ldb,
                     stride_b, count);
  for (index_t b = 0; b < count; ++b) {
    ASSERT_EQ(info[b], 0);
    Mat<double> bm(n, nrhs), xm(n, nrhs);
    for (index_t c = 0; c < nrhs; ++c) {
      for (index_t i = 0; i < n; ++i) {
        bm(i, c) = rhs[b * stride_b + c * ldb + i];
        xm(i, c) = x[b * stride_b + c * ldb + i];
      }
    }
    const Mat<double> a = bt.original[b].template cast<double>();
    const double res = (a * xm - bm).norm() / (a.norm() * xm.norm());
    EXPECT_LE(res, 8.0 * n * unit_roundoff<T>()) << "matrix " << b;
  }
}

template <typename T>
void check_potrf(Kind kind, index_t n, index_t count, bool padded) {
  SCOPED_TRACE(::testing::Message()
               << "potrf kind=" << kind_name(kind) << " n=" << n << " batch=" << count
               << " padded=" << padded << " " << sizeof(T) * 8 << "-bit");
  const index_t lda = padded ? n + 3 : std::max<index_t>(n, 1);
  Batch<T> bt = make_batch<T>(kind, n, lda, count, 17);
  std::vector<index_t> info(count, -1);
  ref::potrf_batched(n, bt.data.data(), lda, bt.stride, info.data(), count);
  expect_padding_untouched(bt);
  for (index_t b = 0; b < count; ++b) {
    SCOPED_TRACE(::testing::Message() << "matrix " << b);
    const Mat<T> f = extract(bt, b);
    // The strictly upper triangle is never touched.
    for (index_t j = 0; j < n; ++j) {
      for (index_t i = 0; i < j; ++i) ASSERT_EQ(f(i, j), bt.original[b](i, j));
    }
    if (kind == Kind::not_spd) {
      ASSERT_EQ(info[b], b % n + 1);
      continue;
    }
    ASSERT_EQ(info[b], 0);
    const Mat<double> l = f.template cast<double>().template triangularView<Eigen::Lower>();
    const Mat<double> a = bt.original[b].template cast<double>();
    EXPECT_LE((a - l * l.transpose()).norm() / a.norm(), 4.0 * n * unit_roundoff<T>());
    Eigen::LLT<Mat<T>> eig(bt.original[b]);
    const Mat<T> le = eig.matrixL();
    const Mat<T> lo = f.template triangularView<Eigen::Lower>();
    EXPECT_LE((lo - le).norm() / le.norm(), 1e2 * n * unit_roundoff<T>());
  }
}

template <typename T>
void check_potrs(index_t n, index_t nrhs, index_t count) {
  SCOPED_TRACE(::testing::Message() << "potrs n=" << n << " nrhs=" << nrhs << " batch=" << count
                                    << " " << sizeof(T) * 8 << "-bit");
  Batch<T> bt = make_batch<T>(Kind::spd, n, n, count, 29);
  std::vector<index_t> info(count);
  ref::potrf_batched(n, bt.data.data(), bt.lda, bt.stride, info.data(), count);
  const index_t ldb = n;
  const std::int64_t stride_b = static_cast<std::int64_t>(ldb) * nrhs;
  const std::vector<T> rhs = random_rhs<T>(static_cast<std::size_t>(stride_b) * count, 7);
  std::vector<T> x = rhs;
  ref::potrs_batched(n, nrhs, bt.data.data(), bt.lda, bt.stride, x.data(), ldb, stride_b, count);
  for (index_t b = 0; b < count; ++b) {
    ASSERT_EQ(info[b], 0);
    const Eigen::Map<const Mat<T>> bm(rhs.data() + b * stride_b, n, nrhs);
    const Eigen::Map<const Mat<T>> xm(x.data() + b * stride_b, n, nrhs);
    const Mat<double> a = bt.original[b].template cast<double>();
    const Mat<double> xd = xm.template cast<double>();
    const double res = (a * xd - bm.template cast<double>()).norm() / (a.norm() * xd.norm());
    EXPECT_LE(res, 8.0 * n * unit_roundoff<T>()) << "matrix " << b;
  }
}

const index_t kSizes[] = {1, 2, 7, 16, 31, 32, 33, 64, 100, 128, 255, 512};

std::vector<index_t> batches_for(index_t n) {
  if (n <= 33) return {1, 3, 1000};
  if (n <= 128) return {1, 3, 100};
  return {1, 3};
}

template <typename T>
void run_getrf_all(Kind kind) {
  for (index_t n : kSizes) {
    for (index_t count : batches_for(n)) {
      check_getrf<T>(kind, n, count, /*padded=*/count == 3);
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

template <typename T>
void run_potrf_all(Kind kind) {
  for (index_t n : kSizes) {
    for (index_t count : batches_for(n)) {
      check_potrf<T>(kind, n, count, /*padded=*/count == 3);
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

TEST(BatchedFactorReference, GetrfRandomMatchesEigenDouble) {
  run_getrf_all<double>(Kind::random);
}
TEST(BatchedFactorReference, GetrfRandomFloat) {
  run_getrf_all<float>(Kind::random);
}
TEST(BatchedFactorReference, GetrfForcedPivotingDouble) {
  run_getrf_all<double>(Kind::pivoting);
}
TEST(BatchedFactorReference, GetrfForcedPivotingFloat) {
  run_getrf_all<float>(Kind::pivoting);
}
TEST(BatchedFactorReference, GetrfSingularReportsInfoDouble) {
  run_getrf_all<double>(Kind::singular);
}
TEST(BatchedFactorReference, GetrfSingularReportsInfoFloat) {
  run_getrf_all<float>(Kind::singular);
}

TEST(BatchedFactorReference, GetrfAllZeroMatrix) {
  const index_t n = 5;
  std::vector<double> a(n * n, 0.0);
  std::vector<index_t> ipiv(n);
  index_t info = -1;
  ref::getrf_batched(n, a.data(), n, n * n, ipiv.data(), &info, 1);
  EXPECT_EQ(info, 1);
  for (index_t i = 0; i < n; ++i) EXPECT_EQ(ipiv[i], i + 1);
  for (double v : a) EXPECT_EQ(v, 0.0);
}

TEST(BatchedFactorReference, GetrfEmptyBatchAndZeroSize) {
  ref::getrf_batched(0, static_cast<double*>(nullptr), 1, 0, nullptr, nullptr, 0);
  index_t info = -1;
  ref::getrf_batched(0, static_cast<double*>(nullptr), 1, 0, nullptr, &info, 1);
  EXPECT_EQ(info, 0);
}

TEST(BatchedFactorReference, RejectsBadLeadingDimension) {
  std::vector<double> a(16);
  std::vector<index_t> ipiv(4);
  index_t info = 0;
  EXPECT_THROW(ref::getrf_batched(4, a.data(), 3, 16, ipiv.data(), &info, 1), prism::ConfigError);
  EXPECT_THROW(ref::potrf_batched(-1, a.data(), 1, 16, &info, 1), prism::ConfigError);
}

TEST(BatchedFactorReference, GetrfVariableSizeMatchesUniform) {
  const std::vector<index_t> sizes = {1, 2, 7, 16, 31, 32, 33, 64, 100, 128, 5, 0};
  const index_t count = static_cast<index_t>(sizes.size());
  const index_t max_n = 128;
  std::vector<Batch<double>> singles;
  std::vector<double*> ptrs;
  std::vector<index_t> lda;
  for (index_t b = 0; b < count; ++b) {
    singles.push_back(make_batch<double>(Kind::pivoting, sizes[b], sizes[b] + 1, 1, 31 + b));
    ptrs.push_back(singles.back().data.data());
    lda.push_back(sizes[b] + 1);
  }
  std::vector<index_t> ipiv(static_cast<std::size_t>(max_n) * count, 0), info(count, -1);
  ref::getrf_vbatched(sizes.data(), ptrs.data(), lda.data(), ipiv.data(), max_n, info.data(),
                      count);
  for (index_t b = 0; b < count; ++b) {
    Batch<double> again = make_batch<double>(Kind::pivoting, sizes[b], sizes[b] + 1, 1, 31 + b);
    std::vector<index_t> piv1(sizes[b]);
    index_t info1 = -1;
    ref::getrf_batched(sizes[b], again.data.data(), again.lda, again.stride, piv1.data(), &info1,
                       1);
    EXPECT_EQ(info[b], info1);
    EXPECT_EQ(singles[b].data, again.data) << "matrix " << b;
    for (index_t i = 0; i < sizes[b]; ++i) EXPECT_EQ(ipiv[b * max_n + i], piv1[i]);
  }
}

TEST(BatchedFactorReference, GetrsSolvesDouble) {
  for (index_t n : {1, 7, 32, 33, 100, 255}) {
    for (index_t nrhs : {1, 3}) check_getrs<double>(n, nrhs, 3);
  }
}
TEST(BatchedFactorReference, GetrsSolvesFloat) {
  for (index_t n : {1, 7, 32, 33, 100}) {
    for (index_t nrhs : {1, 4}) check_getrs<float>(n, nrhs, 3);
  }
}

TEST(BatchedFactorReference, PotrfSpdMatchesEigenDouble) {
  run_potrf_all<double>(Kind::spd);
}
TEST(BatchedFactorReference, PotrfSpdMatchesEigenFloat) {
  run_potrf_all<float>(Kind::spd);
}
TEST(BatchedFactorReference, PotrfNotSpdReportsInfoDouble) {
  run_potrf_all<double>(Kind::not_spd);
}
TEST(BatchedFactorReference, PotrfNotSpdReportsInfoFloat) {
  run_potrf_all<float>(Kind::not_spd);
}

TEST(BatchedFactorReference, PotrsSolvesDouble) {
  for (index_t n : {1, 7, 32, 33, 100, 255}) {
    for (index_t nrhs : {1, 3}) check_potrs<double>(n, nrhs, 3);
  }
}
TEST(BatchedFactorReference, PotrsSolvesFloat) {
  for (index_t n : {1, 7, 32, 33, 100}) {
    for (index_t nrhs : {1, 4}) check_potrs<float>(n, nrhs, 3);
  }
}

}  // namespace
