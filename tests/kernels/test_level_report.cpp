// The level report's reference (kernels/level_report.hpp): range by range, the level sets'
// level_ptr (prism::level_sets) wherever the ranges are independent, false where a range
// couples, and ConfigError where the ranges do not cover the rows; without ranges, the
// dataflow's form (dataflow_level_ptr): the level sets' level_ptr where every entry below
// the diagonal has its mirror, false where one has not.

#include <prism/analysis.hpp>
#include <prism/errors.hpp>

#include "kernels/level_report.hpp"
#include "kernels/level_report_cases.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

using prism::index_t;

prism::kernels::CsrView<double> pattern(const prism::CsrMatrix<double>& a) {
  return {a.rows, a.cols, a.row_ptr.data(), a.col_idx.data(), nullptr};
}

TEST(LevelReport, RangesGiveTheLevelSets) {
  for (const prism::test::LevelCase& c : prism::test::level_report_cases()) {
    SCOPED_TRACE(c.name);
    std::vector<index_t> level_ptr{-7};
    const bool independent =
        prism::kernels::reference::range_level_ptr(pattern(c.a), c.ranges, level_ptr);
    EXPECT_EQ(independent, c.independent);
    if (independent) {
      EXPECT_EQ(level_ptr, prism::level_sets(c.a).level_ptr);
    } else {
      EXPECT_EQ(level_ptr, std::vector<index_t>{-7});  // untouched
    }
  }
}

TEST(LevelReport, EmptyMatrixHasNoLevel) {
  prism::CsrMatrix<double> empty;
  empty.row_ptr = {0};
  std::vector<index_t> level_ptr;
  EXPECT_TRUE(prism::kernels::reference::range_level_ptr(pattern(empty), {0, 0}, level_ptr));
  EXPECT_EQ(level_ptr, prism::level_sets(empty).level_ptr);
}

TEST(LevelReport, DataflowGivesTheLevelSets) {
  for (const prism::test::DataflowCase& c : prism::test::dataflow_level_cases()) {
    SCOPED_TRACE(c.name);
    std::vector<index_t> level_ptr{-7};
    EXPECT_EQ(prism::kernels::reference::dataflow_level_ptr(pattern(c.a), level_ptr), c.mirrored);
    if (c.mirrored) {
      EXPECT_EQ(level_ptr, prism::level_sets(c.a).level_ptr);
    } else {
      EXPECT_EQ(level_ptr, std::vector<index_t>{-7});  // untouched
    }
  }
  prism::CsrMatrix<double> empty;
  empty.row_ptr = {0};
  std::vector<index_t> level_ptr;
  EXPECT_TRUE(prism::kernels::reference::dataflow_level_ptr(pattern(empty), level_ptr));
  EXPECT_EQ(level_ptr, prism::level_sets(empty).level_ptr);
}

TEST(LevelReport, DataflowCasesSpanManyLevels) {
  // The orders the dataflow is for: block and line colors couple rows inside a color, and
  // natural orders run to hundreds of levels.
  for (const prism::test::DataflowCase& c : prism::test::dataflow_level_cases()) {
    const auto levels = prism::level_sets(c.a).num_levels;
    if (c.name.find("block-colored") != std::string::npos ||
        c.name.find("lines colored") != std::string::npos) {
      EXPECT_GT(levels, 8) << c.name;
    }
    if (c.name == "poisson2d 200x150, natural order") EXPECT_EQ(levels, 349);
  }
}

TEST(LevelReport, RangesMustCoverTheRows) {
  const prism::CsrMatrix<double> a = prism::poisson2d(3, 3);
  std::vector<index_t> level_ptr;
  for (const std::vector<index_t>& ranges :
       std::vector<std::vector<index_t>>{{}, {0}, {1, 9}, {0, 8}, {0, 5, 3, 9}}) {
    EXPECT_FALSE(prism::kernels::ranges_cover(ranges, a.rows));
    EXPECT_THROW(prism::kernels::reference::range_level_ptr(pattern(a), ranges, level_ptr),
                 prism::ConfigError);
  }
  EXPECT_TRUE(prism::kernels::ranges_cover({0, 0, 4, 4, 9, 9}, a.rows));
}

}  // namespace
