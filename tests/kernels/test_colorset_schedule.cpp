// The color-set solve's schedule (kernels/cuda/colorset.hpp: colorset_schedule), planned
// on the host: threads per row, fused runs of small steps, long rows. Needs no device, but
// the planning is compiled with the CUDA kernels, so this builds only with CUDA.

#include <prism/analysis.hpp>
#include <prism/generators.hpp>

#include "backend/split_triangle.hpp"
#include "common/test_matrices.hpp"
#include "kernels/colorset_schedule.hpp"
#include "precond/ic0_pattern.hpp"

#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace {

using prism::CsrMatrix;
using prism::index_t;
using prism::test::grid_and_hubs;

// Runs of two or more consecutive small steps (at most kFusedStepRows rows, and at most
// kFusedLaneEntries entries a lane once threads per row are lowered to fit one pass)
// become one single-block launch. Planned on the host: no device needed.
TEST(ColorsetSchedule, FusesRunsOfSmallSteps) {
  namespace kc = prism::kernels::cuda;
  static_assert(kc::kFusedStepRows == 1024 && kc::kFusedLaneEntries == 8);
  // (rows, strict entries per row) of each step.
  const std::vector<std::pair<index_t, index_t>> steps{
      {2000, 40}, {10, 40},  {20, 40},   {128, 40},  // 128 x 40: 8 threads a row, 5 entries a lane
      {129, 40},                                     // 4 threads a row, 10 entries a lane
      {5, 40},    {6, 40},   {3000, 40}, {7, 40},    // a lone small step is a plain launch
      {1024, 9},                                     // one thread a row, 9 entries a lane
      {1024, 8},  {1000, 1},                         // one thread a row, 8 and 1 entries a lane
      {0, 0},     {2000, 0}};                        // an empty block has no step
  std::vector<index_t> block_ptr{0}, row_ptr{0};
  for (const auto& [rows, entries] : steps) {
    for (index_t i = 0; i < rows; ++i) row_ptr.push_back(row_ptr.back() + entries);
    block_ptr.push_back(block_ptr.back() + rows);
  }
  const kc::ColorsetSchedule plan = kc::colorset_schedule(row_ptr.data(), block_ptr);
  ASSERT_EQ(plan.steps.size(), steps.size() - 1);  // the empty block has no step
  const std::vector<std::tuple<int, int, bool>> expected{
      {0, 1, false}, {1, 3, true},  {4, 1, false}, {5, 2, true},  {7, 1, false},
      {8, 1, false}, {9, 1, false}, {10, 2, true}, {12, 1, false}};
  ASSERT_EQ(plan.runs.size(), expected.size());
  for (std::size_t r = 0; r < expected.size(); ++r) {
    SCOPED_TRACE(r);
    EXPECT_EQ(plan.runs[r].first, std::get<0>(expected[r]));
    EXPECT_EQ(plan.runs[r].count, std::get<1>(expected[r]));
    EXPECT_EQ(plan.runs[r].fused, std::get<2>(expected[r]));
  }
  const std::vector<int> threads{32, 32, 32, 8, 32, 32, 32, 32, 32, 8, 1, 1, 1};
  ASSERT_EQ(plan.steps.size(), threads.size());
  for (std::size_t i = 0; i < threads.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(plan.steps[i].threads_per_row, threads[i]);
  }
}

// Threads per row: the fewest (a power of two, at most a warp) whose lanes hold the
// step's mean entries per row at kColorsetLaneEntries each. Host only.
TEST(ColorsetSchedule, ThreadsPerRowFollowMeanEntries) {
  static_assert(prism::kernels::cuda::kColorsetLaneEntries == 2);
  const std::vector<std::pair<index_t, int>> entries_and_threads{
      {0, 1},  {1, 1},   {2, 1},   {3, 2},   {4, 2},   {13, 8},
      {16, 8}, {17, 16}, {26, 16}, {64, 32}, {200, 32}};
  const index_t rows = 2 * prism::kernels::cuda::kFusedStepRows;  // no fused runs
  std::vector<index_t> block_ptr{0}, row_ptr{0};
  for (const auto& [entries, threads] : entries_and_threads) {
    for (index_t i = 0; i < rows; ++i) row_ptr.push_back(row_ptr.back() + entries);
    block_ptr.push_back(block_ptr.back() + rows);
  }
  const auto plan = prism::kernels::cuda::colorset_schedule(row_ptr.data(), block_ptr);
  ASSERT_EQ(plan.steps.size(), entries_and_threads.size());
  for (std::size_t i = 0; i < entries_and_threads.size(); ++i) {
    SCOPED_TRACE(entries_and_threads[i].first);
    EXPECT_EQ(plan.steps[i].threads_per_row, entries_and_threads[i].second);
    EXPECT_FALSE(plan.runs[i].fused);
  }
}

// Long rows: more than kLongRowLaneEntries entries a lane of the step's threads per row,
// listed step by step in row order; a step with one is never fused. Host only.
TEST(ColorsetSchedule, LongRowsAreListedAndNeverFused) {
  namespace kc = prism::kernels::cuda;
  static_assert(kc::kLongRowLaneEntries == 16 && kc::kColorsetLaneEntries == 2);
  // Step 0: 3000 rows of 2 entries but rows 5 and 17 (40) and 9 (32): 2 threads a row,
  // long above 32. Step 1: 100 rows of 2 and row 3100 of 100 entries (mean 2.97: 2
  // threads). Steps 2 and 3: small, fused. Step 4: one warp a row (64), long above 512.
  std::vector<index_t> lengths(3000, 2);
  lengths[5] = lengths[17] = 40;
  lengths[9] = 32;
  lengths.resize(3101, 2);
  lengths[3100] = 100;
  lengths.resize(3201, 2);
  lengths.resize(3251, 2);
  for (int i = 0; i < 2000; ++i) lengths.push_back(i == 7 ? 513 : 64);
  const std::vector<index_t> block_ptr{0, 3000, 3101, 3201, 3251, 5251};
  std::vector<index_t> row_ptr{0};
  for (index_t n : lengths) row_ptr.push_back(row_ptr.back() + n);
  const kc::ColorsetSchedule plan = kc::colorset_schedule(row_ptr.data(), block_ptr);
  EXPECT_EQ(plan.long_rows, (std::vector<index_t>{5, 17, 3100, 3258}));
  ASSERT_EQ(plan.steps.size(), 5u);
  const std::vector<std::tuple<int, index_t, index_t, index_t>> expected{
      {2, 32, 0, 2}, {2, 32, 2, 3}, {1, 16, 3, 3}, {1, 16, 3, 3}, {32, 512, 3, 4}};
  for (std::size_t i = 0; i < expected.size(); ++i) {
    SCOPED_TRACE(i);
    const auto& [threads, long_entries, long_begin, long_end] = expected[i];
    EXPECT_EQ(plan.steps[i].long_row_entries, long_entries);
    EXPECT_EQ(plan.steps[i].long_begin, long_begin);
    EXPECT_EQ(plan.steps[i].long_end, long_end);
    if (i != 2 && i != 3) EXPECT_EQ(plan.steps[i].threads_per_row, threads);
  }
  // Step 1 is small (101 rows, 1.5 entries a lane at its fused threads per row) but has a
  // long row: a launch of its own; steps 2 and 3 are one fused run.
  ASSERT_EQ(plan.runs.size(), 4u);
  EXPECT_FALSE(plan.runs[1].fused);
  EXPECT_EQ(plan.runs[1].first, 1);
  EXPECT_TRUE(plan.runs[2].fused);
  EXPECT_EQ(plan.runs[2].first, 2);
  EXPECT_EQ(plan.runs[2].count, 2);
}

// Grid and hexahedral FEM matrices in color order have no long rows (their steps keep the
// plain kernel); the hubs of grid_and_hubs have, and so has bcsstk08 (rows of mean 12 and
// up to 339 entries). Host only.
TEST(ColorsetSchedule, LongRowsOnlyWhereRowsAreFarAboveTheMean) {
  const std::vector<std::tuple<std::string, CsrMatrix<double>, bool>> cases{
      {"poisson2d", prism::poisson2d(60, 50), false},
      {"poisson3d", prism::poisson3d(20, 18, 16), false},
      {"poisson3d27", prism::poisson3d(16, 15, 14, 27), false},
      {"elasticity3d", prism::elasticity3d(8, 7, 6, 2, {1.0, 100.0}), false},
      {"bcsstk08", prism::read_matrix_market(std::string(PRISM_TEST_DATA_DIR) + "/bcsstk08.mtx"),
       true},
      {"grid_and_hubs", grid_and_hubs(), true}};
  for (const auto& [name, m, hubs] : cases) {
    for (auto order : {prism::VertexOrder::natural, prism::VertexOrder::largest_first}) {
      SCOPED_TRACE(name + " " + std::string(prism::to_string(order)));
      const CsrMatrix<double> a =
          prism::permute_symmetric(m, prism::color_matrix(m, order).permutation);
      prism::precond::Ic0Pattern factor(a);
      factor.factorize(a, {});
      std::size_t long_rows = 0;
      for (auto tri : {prism::backend::Triangle::lower, prism::backend::Triangle::upper}) {
        const prism::backend::SplitTriangle split(
            tri == prism::backend::Triangle::lower ? factor.lower() : factor.upper(), tri);
        long_rows += prism::kernels::cuda::colorset_schedule(split.strict().row_ptr.data(),
                                                             split.block_ptr())
                         .long_rows.size();
      }
      if (hubs) {
        EXPECT_GE(long_rows, 3u);  // grid_and_hubs: each hub in one triangle at least
      } else {
        EXPECT_EQ(long_rows, 0u);
      }
    }
  }
}

}  // namespace
