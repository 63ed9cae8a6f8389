// The color-set reference solve against the row-by-row reference solves, and the
// independent row blocks it runs on.

#include <prism/analysis.hpp>
#include <prism/errors.hpp>
#include <prism/generators.hpp>

#include "backend/host_kernels.hpp"
#include "backend/split_triangle.hpp"
#include "common/host_threads.hpp"
#include "common/test_matrices.hpp"
#include "kernels/colorset.hpp"
#include "kernels/trisolve.hpp"
#include "precond/ic0_pattern.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

namespace {

using prism::CsrMatrix;
using prism::index_t;
using prism::backend::SplitTriangle;
using prism::backend::Triangle;

/// No strict-triangle entry couples two rows of one block.
void expect_independent(const SplitTriangle& s) {
  const auto& m = s.strict();
  const auto& ptr = s.block_ptr();
  ASSERT_EQ(ptr.front(), 0);
  ASSERT_EQ(ptr.back(), m.rows);
  for (std::size_t b = 0; b + 1 < ptr.size(); ++b) {
    ASSERT_LT(ptr[b], ptr[b + 1]);
    for (index_t i = ptr[b]; i < ptr[b + 1]; ++i) {
      for (index_t k = m.row_ptr[i]; k < m.row_ptr[i + 1]; ++k) {
        const index_t j = m.col_idx[k];
        EXPECT_FALSE(j >= ptr[b] && j < ptr[b + 1]) << "rows " << i << " and " << j;
      }
    }
  }
}

struct Factored {
  std::string name;
  CsrMatrix<double> a;
  int colors;  // 0: natural order
};

std::vector<Factored> cases() {
  std::vector<Factored> out;
  auto colored = [&](const std::string& name, const CsrMatrix<double>& a) {
    const auto c = prism::color_matrix(a, prism::VertexOrder::natural);
    out.push_back({name + "_color", prism::permute_symmetric(a, c.permutation), c.num_colors});
    out.push_back({name + "_natural", a, 0});
  };
  colored("n1", prism::poisson2d(1, 1));
  colored("diagonal", prism::csr_from_triplets(33, 33, [] {
            std::vector<prism::Triplet> t;
            for (index_t i = 0; i < 33; ++i) t.push_back({i, i, 2.0 + i});
            return t;
          }()));
  colored("poisson2d_31x17", prism::poisson2d(31, 17));
  colored("poisson3d27_9x7x5", prism::poisson3d(9, 7, 5, 27));
  colored("bcsstk08",
          prism::read_matrix_market(std::string(PRISM_TEST_DATA_DIR) + "/bcsstk08.mtx"));
  return out;
}

TEST(Colorset, BlocksAreIndependentAndFollowTheColors) {
  for (const Factored& f : cases()) {
    SCOPED_TRACE(f.name);
    prism::precond::Ic0Pattern factor(f.a);
    factor.factorize(f.a, {});
    const SplitTriangle lower(factor.lower(), Triangle::lower);
    const SplitTriangle upper(factor.upper(), Triangle::upper);
    expect_independent(lower);
    expect_independent(upper);
    if (f.colors > 0) {
      // Greedy blocks never split a color, and may merge uncoupled neighbours.
      EXPECT_LE(lower.num_blocks(), f.colors);
      EXPECT_LE(upper.num_blocks(), f.colors);
    }
  }
  // A tridiagonal matrix in natural order is one long chain: one row per block.
  const auto chain = prism::poisson2d(40, 1);
  prism::precond::Ic0Pattern factor(chain);
  factor.factorize(chain, {});
  EXPECT_EQ(SplitTriangle(factor.lower(), Triangle::lower).num_blocks(), 40);
}

TEST(Colorset, ReferenceSolveEqualsRowByRowSolve) {
  for (const Factored& f : cases()) {
    SCOPED_TRACE(f.name);
    prism::precond::Ic0Pattern factor(f.a);
    factor.factorize(f.a, {});
    const std::vector<double> b = prism::test::random_vector(f.a.rows, 17);
    for (Triangle tri : {Triangle::lower, Triangle::upper}) {
      const CsrMatrix<double>& t = tri == Triangle::lower ? factor.lower() : factor.upper();
      const prism::kernels::CsrView<double> view{t.rows, t.cols, t.row_ptr.data(), t.col_idx.data(),
                                                 t.values.data()};
      std::vector<double> expected(b.size()), got(b.size());
      if (tri == Triangle::lower) {
        prism::kernels::reference::lower_solve(view, b.data(), expected.data());
      } else {
        prism::kernels::reference::upper_solve(view, b.data(), expected.data());
      }
      const SplitTriangle split(t, tri);
      prism::kernels::reference::colorset_solve(split.view(), split.inverse_diagonal().data(),
                                                split.block_ptr().data(), split.num_blocks(),
                                                tri == Triangle::lower, b.data(), got.data());
      double scale = 1.0;
      for (double v : expected) scale = std::max(scale, std::abs(v));
      for (std::size_t i = 0; i < b.size(); ++i) {
        ASSERT_NEAR(got[i], expected[i], 1e-13 * scale) << "row " << i;
      }
      // In place: x aliases b.
      std::vector<double> inplace = b;
      prism::kernels::reference::colorset_solve(
          split.view(), split.inverse_diagonal().data(), split.block_ptr().data(),
          split.num_blocks(), tri == Triangle::lower, inplace.data(), inplace.data());
      EXPECT_EQ(inplace, got);
    }
  }
}

// The split and its maps, entry by entry against t; unit_values: the same pattern with
// every value 1, and update() then gives the split of the factor; pattern_only: the
// pattern alone.
void expect_split_of(const CsrMatrix<double>& t, Triangle tri) {
  const SplitTriangle split(t, tri);
  const prism::backend::StrictTriangle& s = split.strict();
  ASSERT_EQ(s.col_idx.size(), t.col_idx.size() - static_cast<std::size_t>(t.rows));
  for (index_t i = 0; i < t.rows; ++i) {
    ASSERT_EQ(t.col_idx[split.diagonal_source()[i]], i);
    ASSERT_EQ(split.inverse_diagonal()[i], 1.0 / t.values[split.diagonal_source()[i]]);
    for (index_t k = s.row_ptr[i]; k < s.row_ptr[i + 1]; ++k) {
      const index_t from = split.strict_source()[k];
      ASSERT_GE(from, t.row_ptr[i]);
      ASSERT_LT(from, t.row_ptr[i + 1]);
      ASSERT_EQ(s.col_idx[k], t.col_idx[from]);
      ASSERT_NE(s.col_idx[k], i);
      ASSERT_EQ(s.values[k], t.values[from]);
    }
  }
  SplitTriangle unit = SplitTriangle::unit_values(t, tri);
  EXPECT_EQ(unit.strict().row_ptr, s.row_ptr);
  EXPECT_EQ(unit.strict().col_idx, s.col_idx);
  EXPECT_EQ(unit.strict_source(), split.strict_source());
  EXPECT_EQ(unit.diagonal_source(), split.diagonal_source());
  EXPECT_EQ(unit.block_ptr(), split.block_ptr());
  for (double v : unit.strict().values) ASSERT_EQ(v, 1.0);
  for (double v : unit.inverse_diagonal()) ASSERT_EQ(v, 1.0);
  unit.update(t.values);
  EXPECT_EQ(unit.strict().values, s.values);
  EXPECT_EQ(unit.inverse_diagonal(), split.inverse_diagonal());
  // pattern_only: the same pattern and maps without any values, and none taken later.
  SplitTriangle pattern = SplitTriangle::pattern_only(t, tri);
  EXPECT_EQ(pattern.strict().row_ptr, s.row_ptr);
  EXPECT_EQ(pattern.strict().col_idx, s.col_idx);
  EXPECT_EQ(pattern.strict_source(), split.strict_source());
  EXPECT_EQ(pattern.diagonal_source(), split.diagonal_source());
  EXPECT_EQ(pattern.block_ptr(), split.block_ptr());
  EXPECT_EQ(pattern.strict().values.size(), 0U);
  EXPECT_EQ(pattern.inverse_diagonal().size(), 0U);
  if (t.rows > 0) EXPECT_THROW(pattern.update(t.values), prism::Error);
  // Placed by the threaded kernels (first written in the solves' parts): the same split.
  for (int threads : {1, 2, 3, 4}) {
    const auto kernels = prism::backend::make_host_kernels(prism::CpuKernels::threaded, threads);
    const SplitTriangle placed(t, tri, prism::Precision::fp64, kernels.get());
    EXPECT_EQ(placed.strict().row_ptr, s.row_ptr) << threads << " threads";
    EXPECT_EQ(placed.strict().col_idx, s.col_idx) << threads << " threads";
    EXPECT_EQ(placed.strict().values, s.values) << threads << " threads";
    EXPECT_EQ(placed.inverse_diagonal(), split.inverse_diagonal()) << threads << " threads";
    EXPECT_EQ(placed.block_ptr(), split.block_ptr()) << threads << " threads";
  }
}

TEST(Colorset, SplitKeepsEveryOffDiagonalEntryAndUnitValuesOnlyThePattern) {
  for (const Factored& f : cases()) {
    SCOPED_TRACE(f.name);
    prism::precond::Ic0Pattern factor(f.a);
    factor.factorize(f.a, {});
    expect_split_of(factor.lower(), Triangle::lower);
    expect_split_of(factor.upper(), Triangle::upper);
  }
}

// Rows split in parts on host threads: the same checks on a factor of 50k rows, and a
// diagonal missing in two parts names the first row.
TEST(Colorset, SplitOnHostThreads) {
  const prism::test::ScopedHostThreads threads(4);
  const CsrMatrix<double> grid = prism::poisson3d(50, 40, 25);
  const auto c = prism::color_matrix(grid, prism::VertexOrder::natural);
  const CsrMatrix<double> a = prism::permute_symmetric(grid, c.permutation);
  prism::precond::Ic0Pattern factor(a);
  factor.factorize(a, {});
  expect_split_of(factor.lower(), Triangle::lower);
  expect_split_of(factor.upper(), Triangle::upper);
  CsrMatrix<double> broken = factor.lower();
  for (const index_t i : {40000, 30000}) broken.col_idx[broken.row_ptr[i + 1] - 1] = i - 1;
  try {
    const SplitTriangle split(broken, Triangle::lower);
    FAIL() << "no exception";
  } catch (const prism::InvalidMatrixError& e) {
    EXPECT_EQ(std::string(e.what()),
              "triangular factor: row 30001 does not store its diagonal last");
  }
}

/// The split's arrays and blocks against a plain construction on one thread: t without
/// its diagonal, and the blocks of kernels::independent_blocks.
void expect_plain_split(const CsrMatrix<double>& t, Triangle tri) {
  std::vector<index_t> row_ptr{0}, col_idx, source;
  for (index_t i = 0; i < t.rows; ++i) {
    for (index_t k = t.row_ptr[i]; k < t.row_ptr[i + 1]; ++k) {
      if (t.col_idx[k] == i) continue;
      col_idx.push_back(t.col_idx[k]);
      source.push_back(k);
    }
    row_ptr.push_back(static_cast<index_t>(col_idx.size()));
  }
  const bool lower = tri == Triangle::lower;
  const std::vector<index_t> blocks = prism::kernels::independent_blocks(
      {t.rows, t.cols, row_ptr.data(), col_idx.data(), nullptr}, lower);
  const SplitTriangle split = SplitTriangle::pattern_only(t, tri);
  const auto as_vector = [](const auto& v) { return std::vector<index_t>(v.begin(), v.end()); };
  EXPECT_EQ(as_vector(split.strict().row_ptr), row_ptr);
  EXPECT_EQ(as_vector(split.strict().col_idx), col_idx);
  EXPECT_EQ(as_vector(split.strict_source()), source);
  EXPECT_EQ(as_vector(split.block_ptr()), blocks);
}

// On 1, 2 and 4 host threads the split equals the plain one: rows with the diagonal
// alone, one row, one block, a block a row, blocks of many sizes.
TEST(Colorset, SplitOnAnyThreadCountEqualsThePlainSplit) {
  std::vector<std::pair<std::string, CsrMatrix<double>>> matrices{
      {"one row", prism::test::diagonal_only(1)},
      {"diagonal only", prism::test::diagonal_only(70000)},
      {"poisson3d natural", prism::poisson3d(45, 40, 40)}};
  for (const unsigned seed : {1u, 2u}) {
    const CsrMatrix<double> a = prism::test::random_symmetric(70000, 20000 * seed * seed, seed);
    const auto c = prism::color_matrix(a, prism::VertexOrder::natural);
    matrices.push_back({"random " + std::to_string(seed), a});
    matrices.push_back(
        {"random colored " + std::to_string(seed), prism::permute_symmetric(a, c.permutation)});
  }
  for (const int threads : {1, 2, 4}) {
    const prism::test::ScopedHostThreads scoped(threads);
    for (const auto& [name, a] : matrices) {
      SCOPED_TRACE(name + ", " + std::to_string(threads) + " threads");
      const prism::precond::Ic0Pattern factor(a);
      expect_plain_split(factor.lower(), Triangle::lower);
      expect_plain_split(factor.upper(), Triangle::upper);
    }
  }
}

TEST(Colorset, SplitRejectsMisplacedDiagonalAndZeroPivot) {
  // Lower factor whose row 1 stores its diagonal first.
  CsrMatrix<double> bad = prism::csr_from_triplets(2, 2, {{0, 0, 1.0}, {1, 1, 2.0}, {1, 0, 1.0}});
  EXPECT_THROW(SplitTriangle(prism::transpose(bad), Triangle::lower), prism::InvalidMatrixError);
  CsrMatrix<double> zero = prism::csr_from_triplets(2, 2, {{0, 0, 1.0}, {1, 1, 0.0}});
  EXPECT_THROW(SplitTriangle(zero, Triangle::lower), prism::InvalidMatrixError);
}

}  // namespace
