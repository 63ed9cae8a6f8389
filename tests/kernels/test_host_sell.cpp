// The threaded SELL-8 kernels against the reference kernels on the same data, on 1, 2, 3
// and 4 threads: the SpMV (kernels/host/sell.cpp) every row reference::spmv's bits, its
// fused dot the bits of dot(); the color-set solve (kernels/host/colorset.cpp) every row
// reference::colorset_solve's bits; the storage they are placed in a copy of the layout.
// Sizes of 1, 7 and 1003 rows, rows of very different lengths (hubs), empty rows, padding
// next to a non-finite x, and matrices of many reduction chunks and wide colors, where
// every thread takes part.

#include <prism/analysis.hpp>
#include <prism/errors.hpp>
#include <prism/generators.hpp>

#include "backend/split_triangle.hpp"

#include "common/test_matrices.hpp"
#include "kernels/colorset.hpp"
#include "kernels/host/threaded.hpp"
#include "kernels/sell.hpp"
#include "kernels/spmv.hpp"
#include "precond/ic0_pattern.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

namespace {

namespace ref = prism::kernels::reference;
namespace host = prism::kernels::host;
using prism::CsrMatrix;
using prism::index_t;
using prism::kernels::kHostSellSlice;
using prism::kernels::SellLayout;
using prism::kernels::SellView;

constexpr int kThreads[] = {1, 2, 3, 4};

prism::kernels::CsrView<double> view(const CsrMatrix<double>& a) {
  return {a.rows, a.cols, a.row_ptr.data(), a.col_idx.data(), a.values.data()};
}

/// Rows i with i % 3 == 0 empty, the others 1 + i % 5 entries (a band).
CsrMatrix<double> with_empty_rows(index_t n) {
  std::vector<prism::Triplet> t;
  for (index_t i = 0; i < n; ++i) {
    if (i % 3 == 0) continue;
    for (index_t k = 0; k <= i % 5; ++k) t.push_back({i, (i + 7 * k) % n, 1.0 + 0.25 * k + i});
  }
  return prism::csr_from_triplets(n, n, std::move(t));
}

/// 7 rows of 1 to 7 entries in a scrambled order.
CsrMatrix<double> seven_rows() {
  std::vector<prism::Triplet> t;
  const index_t lengths[] = {3, 7, 1, 5, 2, 6, 4};
  for (index_t i = 0; i < 7; ++i) {
    for (index_t k = 0; k < lengths[i]; ++k) t.push_back({i, (i + 2 * k) % 7, 0.5 + i - 0.3 * k});
  }
  return prism::csr_from_triplets(7, 7, std::move(t));
}

struct Named {
  std::string name;
  CsrMatrix<double> a;
};

std::vector<Named> matrices() {
  return {{"n1", prism::poisson2d(1, 1)},
          {"seven rows", seven_rows()},
          {"random 1003", prism::test::random_symmetric(1003, 3000, 4)},
          {"grid and hubs", prism::test::grid_and_hubs()},
          {"empty rows 1003", with_empty_rows(1003)},
          {"empty rows 40000", with_empty_rows(40000)},
          {"poisson3d 30^3", prism::poisson3d(30, 30, 30)},
          {"poisson3d27 13x14x15", prism::poisson3d(13, 14, 15, 27)},
          {"random 20003", prism::test::random_symmetric(20003, 60000, 9)}};
}

/// The layout of `a` placed by sell_place and sell_values on `threads` threads, into
/// storage holding garbage before.
struct Placed {
  std::vector<index_t> slice_ptr, col_idx, source;
  std::vector<double> values;
  SellView view(const CsrMatrix<double>& a) const {
    return {a.rows, a.cols, slice_ptr.data(), col_idx.data(), values.data()};
  }
};

Placed place(const CsrMatrix<double>& a, const SellLayout& layout, int threads) {
  Placed p;
  p.slice_ptr.assign(layout.slice_ptr.size(), -7);
  p.col_idx.assign(layout.col_idx.size(), -7);
  p.source.assign(layout.source.size(), -7);
  p.values.assign(layout.source.size(), std::numeric_limits<double>::quiet_NaN());
  host::sell_place(threads, layout, p.slice_ptr.data(), p.col_idx.data(), p.source.data());
  host::sell_values(threads, p.view(a), p.source.data(), a.values.data(), p.values.data());
  return p;
}

TEST(HostSell, PlacementIsACopyOfTheLayout) {
  for (const Named& m : matrices()) {
    const SellLayout layout = prism::kernels::sell_layout(view(m.a), {0, m.a.rows}, kHostSellSlice);
    std::vector<double> gathered;
    prism::kernels::sell_gather(layout, m.a.values.data(), gathered);
    EXPECT_EQ(prism::kernels::sell_stored(view(m.a), {0, m.a.rows}, kHostSellSlice),
              layout.stored())
        << m.name;
    for (int t : kThreads) {
      SCOPED_TRACE(m.name + ", " + std::to_string(t) + " threads");
      const Placed p = place(m.a, layout, t);
      EXPECT_EQ(p.slice_ptr, layout.slice_ptr);
      EXPECT_EQ(p.col_idx, layout.col_idx);
      EXPECT_EQ(p.source, layout.source);
      EXPECT_EQ(p.values, gathered);
    }
  }
}

TEST(HostSell, SpmvIsTheReferenceBitsAndItsDotIsDot) {
  for (const Named& m : matrices()) {
    const CsrMatrix<double>& a = m.a;
    const SellLayout layout = prism::kernels::sell_layout(view(a), {0, a.rows}, kHostSellSlice);
    const std::vector<double> x = prism::test::random_vector(a.rows, 8);
    std::vector<double> want(x.size());
    ref::spmv(view(a), x.data(), want.data());
    const double dot = host::dot(1, a.rows, x.data(), want.data());
    for (int t : kThreads) {
      SCOPED_TRACE(m.name + ", " + std::to_string(t) + " threads");
      const Placed p = place(a, layout, t);
      std::vector<double> got(x.size(), -1.0);
      host::sell_spmv(t, p.view(a), x.data(), got.data());
      EXPECT_EQ(got, want);
      std::fill(got.begin(), got.end(), -1.0);
      EXPECT_EQ(host::sell_spmv_dot(t, p.view(a), x.data(), got.data()), dot);
      EXPECT_EQ(got, want);
    }
  }
}

// Padding reads x[0] and multiplies it by 0: with x[0] infinite that is NaN, which the
// kernel must drop, as the reference (which reads no padding) has no such term.
TEST(HostSell, PaddingAddsNothingWhateverXHolds) {
  std::vector<prism::Triplet> t{{0, 0, 2.0}};
  for (index_t i = 1; i < 20; ++i) {
    for (index_t k = 0; k <= i % 4; ++k) t.push_back({i, 1 + (i + k) % 19, 1.0 + k});
  }
  const CsrMatrix<double> a = prism::csr_from_triplets(20, 20, std::move(t));
  const SellLayout layout = prism::kernels::sell_layout(view(a), {0, a.rows}, kHostSellSlice);
  ASSERT_GT(layout.stored(), a.nnz());
  std::vector<double> x = prism::test::random_vector(a.rows, 2);
  x[0] = std::numeric_limits<double>::infinity();
  std::vector<double> want(x.size()), got(x.size());
  ref::spmv(view(a), x.data(), want.data());
  const Placed p = place(a, layout, 1);
  host::sell_spmv(1, p.view(a), x.data(), got.data());
  EXPECT_EQ(got, want);
}

TEST(HostSell, PlaceTakesOnlyItsOwnLayout) {
  const CsrMatrix<double> a = prism::poisson2d(10, 10);
  std::vector<index_t> slice_ptr(100), col_idx(1000), source(1000);
  const SellLayout warp = prism::kernels::sell_layout(view(a), {0, a.rows});  // C = 32
  EXPECT_THROW(host::sell_place(2, warp, slice_ptr.data(), col_idx.data(), source.data()),
               prism::ConfigError);
  const SellLayout ranges = prism::kernels::sell_layout(view(a), {0, 50, a.rows}, kHostSellSlice);
  EXPECT_THROW(host::sell_place(2, ranges, slice_ptr.data(), col_idx.data(), source.data()),
               prism::ConfigError);
  EXPECT_THROW(host::colorset_sell_place(2, warp, slice_ptr.data(), col_idx.data(), source.data()),
               prism::ConfigError);
}

/// The color-set solve's SELL-8 storage of a split, placed on `threads` threads.
struct PlacedRanges {
  SellLayout layout;
  std::vector<index_t> slice_ptr, col_idx, source;
  std::vector<double> values;
  prism::kernels::SellRangesView view() const {
    return {layout.rows,
            static_cast<int>(layout.range_ptr.size()) - 1,
            layout.range_ptr.data(),
            layout.range_slice.data(),
            slice_ptr.data(),
            col_idx.data(),
            values.data()};
  }
};

PlacedRanges place_split(const prism::backend::SplitTriangle& s, int threads) {
  PlacedRanges p{prism::kernels::sell_layout(s.view(), s.block_ptr(), kHostSellSlice)};
  p.slice_ptr.assign(p.layout.slice_ptr.size(), -7);
  p.col_idx.assign(p.layout.col_idx.size(), -7);
  p.source.assign(p.layout.source.size(), -7);
  p.values.assign(p.layout.source.size(), std::numeric_limits<double>::quiet_NaN());
  host::colorset_sell_place(threads, p.layout, p.slice_ptr.data(), p.col_idx.data(),
                            p.source.data());
  host::colorset_sell_values(threads, p.view(), p.source.data(), s.strict().values.data(),
                             p.values.data());
  return p;
}

std::vector<Named> solve_matrices() {
  std::vector<Named> out;
  auto both = [&](const std::string& name, const CsrMatrix<double>& a) {
    const auto c = prism::color_matrix(a, prism::VertexOrder::natural);
    out.push_back({name + " color", prism::permute_symmetric(a, c.permutation)});
    out.push_back({name + " natural", a});
  };
  both("n1", prism::poisson2d(1, 1));
  both("seven rows", seven_rows());
  both("poisson2d 31x17", prism::poisson2d(31, 17));
  both("grid and hubs", prism::test::grid_and_hubs());
  both("poisson3d 24^3", prism::poisson3d(24, 24, 24));
  both("poisson3d27 16x15x14", prism::poisson3d(16, 15, 14, 27));
  both("elasticity3d", prism::elasticity3d(8, 8, 8, 1, {1.0}));
  return out;
}

TEST(HostSell, ColorsetSolveIsTheReferenceBits) {
  using prism::backend::Triangle;
  for (const Named& m : solve_matrices()) {
    prism::precond::Ic0Pattern factor(m.a);
    factor.factorize(m.a, {});
    const std::vector<double> b = prism::test::random_vector(m.a.rows, 12);
    for (Triangle tri : {Triangle::lower, Triangle::upper}) {
      const bool lower = tri == Triangle::lower;
      const prism::backend::SplitTriangle s(lower ? factor.lower() : factor.upper(), tri);
      std::vector<double> want(b.size());
      ref::colorset_solve(s.view(), s.inverse_diagonal().data(), s.block_ptr().data(),
                          s.num_blocks(), lower, b.data(), want.data());
      std::vector<double> gathered;
      for (int t : kThreads) {
        SCOPED_TRACE(m.name + (lower ? ", lower, " : ", upper, ") + std::to_string(t) + " threads");
        const PlacedRanges p = place_split(s, t);
        prism::kernels::sell_gather(p.layout, s.strict().values.data(), gathered);
        EXPECT_EQ(p.slice_ptr, p.layout.slice_ptr);
        EXPECT_EQ(p.col_idx, p.layout.col_idx);
        EXPECT_EQ(p.source, p.layout.source);
        EXPECT_EQ(p.values, gathered);
        std::vector<double> got(b.size(), -1.0);
        host::colorset_solve_sell(t, p.view(), s.inverse_diagonal().data(), lower, b.data(),
                                  got.data());
        EXPECT_EQ(got, want);
        std::vector<double> inplace = b;  // x aliases b
        host::colorset_solve_sell(t, p.view(), s.inverse_diagonal().data(), lower, inplace.data(),
                                  inplace.data());
        EXPECT_EQ(inplace, want);
      }
    }
  }
}

}  // namespace
