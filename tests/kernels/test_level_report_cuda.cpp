// The level report on the device (kernels/cuda/level_report.hpp) against its reference,
// kernels::reference::range_level_ptr: the same verdict (independent ranges or not) and
// the same level_ptr, on the orders of level_report_cases.hpp (greedy and level-cyclic
// colors with empty ranges planted, natural orders with a range a row and one coupled
// range, one row, more than 64 colors, hubs) and on no rows; and the dataflow without
// ranges (dataflow_level_ptr) against reference::dataflow_level_ptr on
// dataflow_level_cases (block- and line-colored orders, natural orders of hundreds of
// levels, one row, a diagonal, random patterns, missing mirrors). Skips without a device.

#include <prism/analysis.hpp>
#include <prism/errors.hpp>
#include <prism/generators.hpp>

#include "common/gpu.hpp"
#include "kernels/cuda/device_memory.hpp"
#include "kernels/cuda/level_report.hpp"
#include "kernels/level_report.hpp"
#include "kernels/level_report_cases.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace {

using prism::CsrMatrix;
using prism::index_t;
namespace k = prism::kernels::cuda;

/// The device verdict and level_ptr of `a` with `ranges` (level_ptr {-7} where untouched).
bool device_level_ptr(const CsrMatrix<double>& a, const std::vector<index_t>& ranges,
                      std::vector<index_t>& level_ptr) {
  const auto row_ptr = k::upload_and_wait(a.row_ptr, nullptr);
  const auto col_idx = k::upload_and_wait(a.col_idx, nullptr);
  level_ptr = {-7};
  return k::range_level_ptr({a.rows, a.cols, row_ptr.data(), col_idx.data(), nullptr}, ranges,
                            level_ptr, nullptr);
}

TEST(LevelReportCuda, LevelsAreEquivalentToReference) {
  PRISM_SKIP_WITHOUT_GPU();
  for (const prism::test::LevelCase& c : prism::test::level_report_cases()) {
    SCOPED_TRACE(c.name);
    std::vector<index_t> want{-7}, got;
    const bool want_independent = prism::kernels::reference::range_level_ptr(
        {c.a.rows, c.a.cols, c.a.row_ptr.data(), c.a.col_idx.data(), nullptr}, c.ranges, want);
    ASSERT_EQ(want_independent, c.independent);
    EXPECT_EQ(device_level_ptr(c.a, c.ranges, got), want_independent);
    EXPECT_EQ(got, want);
  }
}

TEST(LevelReportCuda, NoRowsHaveNoLevel) {
  PRISM_SKIP_WITHOUT_GPU();
  CsrMatrix<double> empty;
  empty.row_ptr = {0};
  std::vector<index_t> got;
  EXPECT_TRUE(device_level_ptr(empty, {0, 0, 0}, got));
  EXPECT_EQ(got, std::vector<index_t>{0});
}

/// The device dataflow's verdict and level_ptr of `a` (level_ptr {-7} where untouched).
bool device_dataflow(const CsrMatrix<double>& a, std::vector<index_t>& level_ptr) {
  const auto row_ptr = k::upload_and_wait(a.row_ptr, nullptr);
  const auto col_idx = k::upload_and_wait(a.col_idx, nullptr);
  level_ptr = {-7};
  return k::dataflow_level_ptr({a.rows, a.cols, row_ptr.data(), col_idx.data(), nullptr}, level_ptr,
                               nullptr);
}

TEST(LevelReportCuda, DataflowIsEquivalentToReference) {
  PRISM_SKIP_WITHOUT_GPU();
  for (const prism::test::DataflowCase& c : prism::test::dataflow_level_cases()) {
    SCOPED_TRACE(c.name);
    std::vector<index_t> want{-7}, got;
    const bool want_mirrored = prism::kernels::reference::dataflow_level_ptr(
        {c.a.rows, c.a.cols, c.a.row_ptr.data(), c.a.col_idx.data(), nullptr}, want);
    ASSERT_EQ(want_mirrored, c.mirrored);
    EXPECT_EQ(device_dataflow(c.a, got), want_mirrored);
    EXPECT_EQ(got, want);
  }
}

TEST(LevelReportCuda, DataflowIsTheSameEveryRun) {
  // Scheduling differs from run to run; the levels may not.
  PRISM_SKIP_WITHOUT_GPU();
  const CsrMatrix<double> a = prism::poisson3d(40, 40, 40);
  const std::vector<index_t> want = prism::level_sets(a).level_ptr;
  for (int run = 0; run < 3; ++run) {
    std::vector<index_t> got;
    EXPECT_TRUE(device_dataflow(a, got));
    EXPECT_EQ(got, want) << "run " << run;
  }
}

TEST(LevelReportCuda, DataflowOnNoRowsHasNoLevel) {
  PRISM_SKIP_WITHOUT_GPU();
  CsrMatrix<double> empty;
  empty.row_ptr = {0};
  std::vector<index_t> got;
  EXPECT_TRUE(device_dataflow(empty, got));
  EXPECT_EQ(got, std::vector<index_t>{0});
}

TEST(LevelReportCuda, RangesMustCoverTheRows) {
  // Checked before any device work: no device needed.
  std::vector<index_t> level_ptr;
  EXPECT_THROW(
      k::range_level_ptr({9, 9, nullptr, nullptr, nullptr}, {0, 5, 3, 9}, level_ptr, nullptr),
      prism::ConfigError);
  EXPECT_THROW(k::range_level_ptr({9, 9, nullptr, nullptr, nullptr}, {0, 8}, level_ptr, nullptr),
               prism::ConfigError);
}

}  // namespace
