// The staged IC(0) factorization's plan (kernels/cuda/ic0.hpp: ic0_staging), made on the
// host. Needs no device, but the planning is compiled with the CUDA kernels, so this
// builds only with CUDA.

#include "kernels/ic0_staging.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace {

using prism::index_t;

// The staged factorization's planning runs on the host (no device needed): a warp takes
// the most rows, a power of two up to 32, whose entries and matches fit its shared
// memory and whose entries, for more than one row, are at most kIc0StagedLaneEntries a
// lane; none where a single row does not fit.
TEST(Ic0Staging, TakesTheMostRowsAWarpWhoseDataFitsItsSharedMemory) {
  namespace kc = prism::kernels::cuda;
  // `rows` rows of `entries` entries (diagonal included), `pairs` matches per row.
  const auto uniform = [](index_t rows, index_t entries, index_t pairs) {
    std::vector<index_t> row_ptr{0}, match_ptr{0};
    for (index_t i = 0; i < rows; ++i) {
      row_ptr.push_back(row_ptr.back() + entries);
      for (index_t e = 0; e < entries; ++e) {
        match_ptr.push_back(match_ptr.back() + (e == 0 ? pairs : 0));
      }
    }
    return std::make_pair(row_ptr, match_ptr);
  };
  for (const auto& [rows, entries, pairs] : std::vector<std::tuple<index_t, index_t, index_t>>{
           {100, 5, 8}, {37, 27, 88}, {50, 60, 400}, {3, 2000, 4000}, {1, 1, 0}}) {
    SCOPED_TRACE(std::to_string(rows) + " rows of " + std::to_string(entries) + " entries, " +
                 std::to_string(pairs) + " matches");
    const auto [row_ptr, match_ptr] = uniform(rows, entries, pairs);
    const kc::Ic0Staging s = kc::ic0_staging(row_ptr.data(), match_ptr.data(), 0, rows);
    int expected = 32;
    const auto taken_rows = [&](int r) { return std::min<index_t>(rows, r); };
    while (
        expected > 0 &&
        (kc::ic0_staged_bytes(expected * entries, expected * pairs) > kc::kIc0StagedSharedBytes ||
         (expected > 1 && taken_rows(expected) * entries > 32 * kc::kIc0StagedLaneEntries))) {
      expected /= 2;
    }
    // A warp of fewer rows than it could take: the block's rows are all there are.
    ASSERT_EQ(s.rows_per_warp, expected);
    if (expected == 0) continue;
    const index_t taken = std::min<index_t>(rows, expected);
    EXPECT_EQ(s.entries, taken * entries);
    EXPECT_EQ(s.pairs, taken * pairs);
    EXPECT_LE(kc::ic0_staged_bytes(s.entries, s.pairs), kc::kIc0StagedSharedBytes);
    // The scaling (Ic0Source) takes 8 bytes more an entry.
    EXPECT_EQ(kc::ic0_staged_bytes(s.entries, s.pairs, true),
              kc::ic0_staged_bytes(s.entries, s.pairs) + 8 * static_cast<std::size_t>(s.entries));
  }
  // Rows of 27 entries with 88 matches each: 2 rows a warp (8 would fit the memory).
  const auto [grid_rows, grid_matches] = uniform(64, 27, 88);
  EXPECT_EQ(kc::ic0_staging(grid_rows.data(), grid_matches.data(), 0, 64).rows_per_warp, 2);
  // Uneven rows: the warp's room is the most any of its warps needs.
  std::vector<index_t> row_ptr{0}, match_ptr{0};
  for (index_t i = 0; i < 40; ++i) {
    const index_t entries = i == 33 ? 50 : 1;
    row_ptr.push_back(row_ptr.back() + entries);
    for (index_t e = 0; e < entries; ++e) match_ptr.push_back(match_ptr.back() + 1);
  }
  const kc::Ic0Staging s = kc::ic0_staging(row_ptr.data(), match_ptr.data(), 0, 40);
  ASSERT_EQ(s.rows_per_warp, 32);
  EXPECT_EQ(s.entries, 50 + 7);  // rows 32..39, with the long row, need the most
  EXPECT_EQ(s.pairs, 50 + 7);
}

}  // namespace
