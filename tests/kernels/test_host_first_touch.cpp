// The first writes of the cpu backend's storage (kernels/host: fill, copy_csr,
// block_ic_touch, colorset_touch; sell_place in test_host_sell.cpp) run in the parts of
// the kernels that read it; what they write must be what a plain copy or zero fill
// writes, for any number of threads, on awkward shapes.

#include <prism/analysis.hpp>
#include <prism/blocks.hpp>
#include <prism/generators.hpp>

#include "backend/host_kernels.hpp"
#include "backend/split_triangle.hpp"
#include "common/test_matrices.hpp"
#include "kernels/host/threaded.hpp"
#include "precond/block_ic/block_factor.hpp"
#include "precond/block_ic/block_plan.hpp"
#include "precond/block_ic/block_sweeps.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace {

namespace host = prism::kernels::host;
using prism::CsrMatrix;
using prism::index_t;

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

TEST(HostFirstTouch, CopyCsrIsACopy) {
  // Every third row empty, the others one entry.
  CsrMatrix<double> empty_rows{5000, 5000, {0}, {}, {}};
  for (index_t i = 0; i < 5000; ++i) {
    if (i % 3 != 0) empty_rows.col_idx.push_back(i), empty_rows.values.push_back(i + 0.5);
    empty_rows.row_ptr.push_back(static_cast<index_t>(empty_rows.col_idx.size()));
  }
  const std::vector<std::pair<std::string, CsrMatrix<double>>> cases = {
      {"n1", prism::poisson2d(1, 1)},
      {"poisson3d 30x30x29", prism::poisson3d(30, 30, 29)},
      {"random", prism::test::random_symmetric(3001, 9000, 3)},
      {"empty rows", empty_rows}};
  for (const auto& [name, a] : cases) {
    for (int threads : {1, 2, 3, 4}) {
      SCOPED_TRACE(name + ", " + std::to_string(threads) + " threads");
      std::vector<index_t> row_ptr(a.row_ptr.size(), -1), col_idx(a.col_idx.size(), -1);
      std::vector<double> values(a.values.size(), kNan);
      host::copy_csr(threads, {a.rows, a.cols, a.row_ptr.data(), a.col_idx.data(), a.values.data()},
                     row_ptr.data(), col_idx.data(), values.data());
      EXPECT_EQ(row_ptr, a.row_ptr);
      EXPECT_EQ(col_idx, a.col_idx);
      EXPECT_EQ(values, a.values);
    }
  }
}

TEST(HostFirstTouch, FillWritesEveryEntry) {
  for (index_t n : {0, 1, 1023, 1025, 40000}) {
    for (int threads : {1, 2, 4}) {
      std::vector<double> x(static_cast<std::size_t>(n), kNan);
      host::fill(threads, n, 0.0, x.data());
      EXPECT_EQ(x, std::vector<double>(x.size(), 0.0)) << n << " entries, " << threads;
    }
  }
}

// Every value of the factor and of the inverted blocks is zeroed: a block-colored order
// (wide levels) and a natural one (many narrow levels), blocks of mixed sizes.
TEST(HostFirstTouch, BlockIcTouchZeroesTheWholeFactor) {
  const CsrMatrix<double> e = prism::elasticity3d(9, 9, 9, 2, {1.0, 50.0});
  const prism::BlockColoring c =
      prism::color_blocks(e, prism::find_node_blocks(e), prism::VertexOrder::natural);
  const CsrMatrix<double> colored = prism::permute_symmetric(e, c.permutation);
  const CsrMatrix<double> natural = prism::poisson2d(40, 30);
  const std::vector<std::pair<const CsrMatrix<double>*, prism::BlockPartition>> cases = {
      {&colored, c.blocks}, {&natural, prism::uniform_blocks(natural.rows, 3)}};
  for (const auto& [a, blocks] : cases) {
    const prism::precond::BlockFactor f = prism::precond::analyze_block_factor(*a, blocks);
    const prism::precond::BlockSweeps sweeps = prism::precond::block_sweeps_pattern(f);
    const prism::kernels::BlockIcPlan plan = prism::precond::block_ic_plan(*a, f, sweeps);
    for (int threads : {1, 2, 4}) {
      std::vector<double> values(static_cast<std::size_t>(plan.value_count), kNan);
      std::vector<double> inverse(static_cast<std::size_t>(plan.inverse_count), kNan);
      host::block_ic_touch(threads, plan.view(), plan.level_ptr, values.data(), inverse.data());
      EXPECT_EQ(values, std::vector<double>(values.size(), 0.0)) << threads << " threads";
      EXPECT_EQ(inverse, std::vector<double>(inverse.size(), 0.0)) << threads << " threads";
    }
  }
}

// Blocks of 0, 1, a few hundred and many thousand rows: every row written once.
TEST(HostFirstTouch, ColorsetTouchWritesEveryRowOnce) {
  const std::vector<index_t> block_ptr{0, 1, 300, 300, 1000, 1001, 5000, 5003, 20000, 20001};
  const index_t rows = block_ptr.back();
  for (int threads : {1, 2, 3, 4}) {
    std::vector<int> writes(static_cast<std::size_t>(rows), 0);
    host::colorset_touch(threads, rows, block_ptr.data(), static_cast<int>(block_ptr.size()) - 1,
                         [&](index_t begin, index_t end) {
                           for (index_t i = begin; i < end; ++i) ++writes[i];
                         });
    EXPECT_EQ(writes, std::vector<int>(writes.size(), 1)) << threads << " threads";
  }
}

/// The lower (diagonal last) or upper (diagonal first) triangle of a with its values.
CsrMatrix<double> triangle_of(const CsrMatrix<double>& a, bool lower) {
  CsrMatrix<double> t{a.rows, a.cols, {0}, {}, {}};
  for (index_t i = 0; i < a.rows; ++i) {
    for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
      const index_t j = a.col_idx[k];
      if (lower ? j <= i : j >= i) t.col_idx.push_back(j), t.values.push_back(a.values[k]);
    }
    t.row_ptr.push_back(static_cast<index_t>(t.col_idx.size()));
  }
  return t;
}

// A split factor placed by the threaded kernels (colors of thousands of rows, so every
// thread writes a part) holds what the unplaced split holds.
TEST(HostFirstTouch, PlacedSplitTriangleIsTheSplit) {
  const CsrMatrix<double> p = prism::poisson3d(30, 30, 29);
  const CsrMatrix<double> a =
      prism::permute_symmetric(p, prism::color_matrix(p, prism::VertexOrder::natural).permutation);
  for (bool lower : {true, false}) {
    const CsrMatrix<double> t = triangle_of(a, lower);
    const auto tri = lower ? prism::backend::Triangle::lower : prism::backend::Triangle::upper;
    const prism::backend::SplitTriangle plain(t, tri);
    ASSERT_GT(plain.block_ptr()[1], 1024);  // wide colors
    for (int threads : {1, 2, 4}) {
      SCOPED_TRACE(std::to_string(threads) + " threads, " + (lower ? "lower" : "upper"));
      const auto kernels = prism::backend::make_host_kernels(prism::CpuKernels::threaded, threads);
      const prism::backend::SplitTriangle placed(t, tri, prism::Precision::fp64, kernels.get());
      EXPECT_EQ(placed.strict().row_ptr, plain.strict().row_ptr);
      EXPECT_EQ(placed.strict().col_idx, plain.strict().col_idx);
      EXPECT_EQ(placed.strict().values, plain.strict().values);
      EXPECT_EQ(placed.inverse_diagonal(), plain.inverse_diagonal());
      EXPECT_EQ(placed.block_ptr(), plain.block_ptr());
    }
  }
}

}  // namespace
