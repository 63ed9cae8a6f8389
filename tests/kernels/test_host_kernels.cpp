// The threaded host kernels (kernels/host) against the reference kernels on the same
// data, on 1 to 7 threads: every element and row the same bits as the reference, every
// sum the same bits for any number of threads (and within rounding of the reference's).
// Sizes around the reduction chunk, n = 0 and 1, a natural order's chains of one-row
// blocks and a colored order's wide blocks.

#include <prism/analysis.hpp>
#include <prism/generators.hpp>

#include "backend/split_triangle.hpp"
#include "common/test_matrices.hpp"
#include "kernels/blas1.hpp"
#include "kernels/colorset.hpp"
#include "kernels/host/threaded.hpp"
#include "kernels/matrix_values.hpp"
#include "kernels/spmv.hpp"
#include "precond/ic0_pattern.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace {

namespace ref = prism::kernels::reference;
namespace host = prism::kernels::host;
using prism::CsrMatrix;
using prism::index_t;
using prism::backend::SplitTriangle;
using prism::backend::Triangle;
using prism::test::random_vector;

constexpr int kThreads[] = {1, 2, 3, 4, 7};
constexpr index_t kChunk = host::kReductionChunk;
const std::vector<index_t> kSizes{0,          1, 5, kChunk - 1, kChunk, kChunk + 1, 17 * kChunk + 3,
                                  40 * kChunk};

prism::kernels::CsrView<double> view(const CsrMatrix<double>& a) {
  return {a.rows, a.cols, a.row_ptr.data(), a.col_idx.data(), a.values.data()};
}

void expect_close(double got, double expected, double scale) {
  EXPECT_NEAR(got, expected, 1e-12 * std::max(1.0, std::abs(scale)));
}

/// A sum on every thread count: the same bits on each, near the reference's.
template <typename Sum>
void expect_deterministic_sum(double reference, double scale, const Sum& sum) {
  const double first = sum(1);
  expect_close(first, reference, scale);
  for (int t : kThreads) EXPECT_EQ(sum(t), first) << t << " threads";
}

TEST(HostKernels, VectorOperationsAreTheReferenceBits) {
  for (index_t n : kSizes) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const std::vector<double> x = random_vector(n, 1), y0 = random_vector(n, 2);
    const std::vector<double> z = random_vector(n, 3);
    std::vector<index_t> perm(static_cast<std::size_t>(n));
    for (index_t i = 0; i < n; ++i) perm[i] = (i * 7 + 3) % n;
    for (int t : kThreads) {
      std::vector<double> want = y0, got = y0;
      ref::axpy(n, 0.3, x.data(), want.data());
      host::axpy(t, n, 0.3, x.data(), got.data());
      EXPECT_EQ(got, want) << "axpy";
      ref::xpay(n, x.data(), -1.7, want.data());
      host::xpay(t, n, x.data(), -1.7, got.data());
      EXPECT_EQ(got, want) << "xpay";
      std::vector<double> p_want = y0, p_got = y0, x_want = x, x_got = x;
      ref::axpy(n, 0.25, p_want.data(), x_want.data());
      ref::xpay(n, z.data(), 0.5, p_want.data());
      host::axpy_xpay(t, n, 0.25, 0.5, z.data(), p_got.data(), x_got.data());
      EXPECT_EQ(x_got, x_want) << "axpy_xpay x";
      EXPECT_EQ(p_got, p_want) << "axpy_xpay p";
      ref::pointwise_multiply(n, x.data(), z.data(), want.data());
      host::pointwise_multiply(t, n, x.data(), z.data(), got.data());
      EXPECT_EQ(got, want) << "pointwise_multiply";
      host::copy(t, n, z.data(), got.data());
      EXPECT_EQ(got, z) << "copy";
      ref::gather(n, perm.data(), x.data(), want.data());
      host::gather(t, n, perm.data(), x.data(), got.data());
      EXPECT_EQ(got, want) << "gather";
    }
  }
}

TEST(HostKernels, SumsAreTheSameForAnyThreadCount) {
  for (index_t n : kSizes) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const std::vector<double> x = random_vector(n, 4), y = random_vector(n, 5);
    const std::vector<double> p = random_vector(n, 6), q = random_vector(n, 7);
    const double scale = static_cast<double>(n);
    expect_deterministic_sum(ref::dot(n, x.data(), y.data()), scale,
                             [&](int t) { return host::dot(t, n, x.data(), y.data()); });

    std::vector<double> x_ref = x, r_ref = y;
    const double rr = ref::cg_update(n, 0.7, p.data(), q.data(), x_ref.data(), r_ref.data());
    expect_deterministic_sum(rr, scale, [&](int t) {
      std::vector<double> xt = x, rt = y;
      const double s = host::cg_update(t, n, 0.7, p.data(), q.data(), xt.data(), rt.data());
      EXPECT_EQ(xt, x_ref);
      EXPECT_EQ(rt, r_ref);
      return s;
    });
    r_ref = y;
    const double res = ref::cg_residual(n, -0.4, q.data(), r_ref.data());
    expect_deterministic_sum(res, scale, [&](int t) {
      std::vector<double> rt = y;
      const double s = host::cg_residual(t, n, -0.4, q.data(), rt.data());
      EXPECT_EQ(rt, r_ref);
      return s;
    });
  }
}

std::vector<CsrMatrix<double>> spmv_matrices() {
  std::vector<CsrMatrix<double>> out{prism::poisson2d(1, 1), prism::poisson2d(31, 17),
                                     prism::poisson3d(30, 30, 30),
                                     prism::poisson3d(13, 14, 15, 27)};
  out.push_back(prism::test::grid_and_hubs());  // a few very long rows
  out.push_back(prism::test::random_symmetric(20000, 6, 9));
  return out;
}

TEST(HostKernels, SpmvIsTheReferenceAndItsDotIsDot) {
  for (const CsrMatrix<double>& a : spmv_matrices()) {
    SCOPED_TRACE("rows = " + std::to_string(a.rows));
    const std::vector<double> x = random_vector(a.rows, 8);
    std::vector<double> want(x.size()), got(x.size());
    ref::spmv(view(a), x.data(), want.data());
    for (int t : kThreads) {
      host::spmv(t, view(a), x.data(), got.data());
      EXPECT_EQ(got, want) << t << " threads";
      std::fill(got.begin(), got.end(), 0.0);
      const double s = host::spmv_dot(t, view(a), x.data(), got.data());
      EXPECT_EQ(got, want) << t << " threads";
      EXPECT_EQ(s, host::dot(1, a.rows, x.data(), want.data())) << t << " threads";
    }
  }
}

struct Ordered {
  std::string name;
  CsrMatrix<double> a;
};

std::vector<Ordered> solve_matrices() {
  std::vector<Ordered> out;
  auto both = [&](const std::string& name, const CsrMatrix<double>& a) {
    const auto c = prism::color_matrix(a, prism::VertexOrder::natural);
    out.push_back({name + "_color", prism::permute_symmetric(a, c.permutation)});
    out.push_back({name + "_natural", a});
  };
  both("n1", prism::poisson2d(1, 1));
  both("poisson2d_31x17", prism::poisson2d(31, 17));
  both("poisson3d_24", prism::poisson3d(24, 24, 24));
  both("poisson3d27_16x15x14", prism::poisson3d(16, 15, 14, 27));
  both("elasticity3d", prism::elasticity3d(8, 8, 8, 1, {1.0}));
  return out;
}

TEST(HostKernels, ColorsetSolveIsTheReferenceBits) {
  for (const Ordered& o : solve_matrices()) {
    SCOPED_TRACE(o.name);
    prism::precond::Ic0Pattern factor(o.a);
    factor.factorize(o.a, {});
    const std::vector<double> b = random_vector(o.a.rows, 12);
    for (Triangle tri : {Triangle::lower, Triangle::upper}) {
      const SplitTriangle s(tri == Triangle::lower ? factor.lower() : factor.upper(), tri);
      const bool lower = tri == Triangle::lower;
      std::vector<double> want(b.size()), got(b.size());
      ref::colorset_solve(s.view(), s.inverse_diagonal().data(), s.block_ptr().data(),
                          s.num_blocks(), lower, b.data(), want.data());
      for (int t : kThreads) {
        std::fill(got.begin(), got.end(), 0.0);
        host::colorset_solve(t, s.view(), s.inverse_diagonal().data(), s.block_ptr().data(),
                             s.num_blocks(), lower, b.data(), got.data());
        EXPECT_EQ(got, want) << t << " threads";
        std::vector<double> inplace = b;  // x aliases b
        host::colorset_solve(t, s.view(), s.inverse_diagonal().data(), s.block_ptr().data(),
                             s.num_blocks(), lower, inplace.data(), inplace.data());
        EXPECT_EQ(inplace, want) << t << " threads, in place";
      }
    }
  }
}

TEST(HostKernels, ValueChecksFindTheReferencesIndex) {
  const index_t n = 9 * kChunk + 11;
  std::vector<double> values = random_vector(n, 13);
  for (double& v : values) v = 1.0 + std::abs(v);
  std::vector<index_t> mirror(static_cast<std::size_t>(n));
  for (index_t k = 0; k < n; ++k) mirror[k] = k;  // all diagonal: positive is good
  const double inf = std::numeric_limits<double>::infinity();
  for (index_t planted : {index_t{-1}, index_t{0}, kChunk, 5 * kChunk + 7, n - 1}) {
    SCOPED_TRACE("planted at " + std::to_string(planted));
    for (double bad : {-1.0, 0.0, inf, std::nan("")}) {
      std::vector<double> v = values;
      if (planted >= 0) v[planted] = bad;
      if (planted >= 0 && planted + 3 < n) v[planted + 3] = bad;  // a later one too
      const index_t want = ref::first_bad_value(n, v.data(), mirror.data(), 1e-12);
      std::vector<double> inv_want = v;
      const index_t inv_index = ref::invert_positive(n, inv_want.data());
      for (int t : kThreads) {
        EXPECT_EQ(host::first_bad_value(t, n, v.data(), mirror.data(), 1e-12), want);
        EXPECT_EQ(host::largest_finite_magnitude(t, n, v.data()),
                  ref::largest_finite_magnitude(n, v.data()));
        std::vector<double> inv = v;
        EXPECT_EQ(host::invert_positive(t, n, inv.data()), inv_index);
        if (inv_index < 0) EXPECT_EQ(inv, inv_want);
      }
    }
  }
}

}  // namespace
