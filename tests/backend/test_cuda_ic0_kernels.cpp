// The IC(0) factorization kernels one by one (kernels/cuda/ic0.hpp, ic0_levels.hpp)
// against the reference factorization, bit for bit: the match table and its runs, every
// merge method, scaling as it reads, ladders of shifts by blocks and by levels, and how a
// ladder's result is kept. Skipped without a GPU.

#include <prism/analysis.hpp>
#include <prism/errors.hpp>
#include <prism/generators.hpp>

#include "backend/cuda_test_support.hpp"
#include "common/device_copy.hpp"
#include "kernels/colorset.hpp"
#include "kernels/cuda/device_memory.hpp"
#include "kernels/cuda/ic0.hpp"
#include "kernels/cuda/ic0_levels.hpp"
#include "kernels/ic0.hpp"
#include "kernels/ic0_levels.hpp"
#include "precond/ic0_pattern.hpp"

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace {

using prism::CsrMatrix;
using prism::index_t;
using prism::test::CudaBackendTest;
using prism::test::download;
using prism::test::random_band;

/// The matches (and pivot positions) of Ic0Matches, found on the host by a plain merge.
struct HostMatches {
  std::vector<index_t> ptr{0};
  std::vector<std::uint16_t> own;
  std::vector<index_t> other;
  std::vector<index_t> pivot;
};
HostMatches host_matches(const CsrMatrix<double>& lower) {
  HostMatches m;
  for (index_t i = 0; i < lower.rows; ++i) {
    const index_t first = lower.row_ptr[i], diag = lower.row_ptr[i + 1] - 1;
    for (index_t p = first; p <= diag; ++p) {
      m.pivot.push_back(p < diag ? lower.row_ptr[lower.col_idx[p] + 1] - 1 : p);
      if (p < diag) {
        const index_t k = lower.col_idx[p];
        for (index_t a = first; a < p; ++a) {
          for (index_t b = lower.row_ptr[k]; b + 1 < lower.row_ptr[k + 1]; ++b) {
            if (lower.col_idx[a] == lower.col_idx[b]) {
              m.own.push_back(static_cast<std::uint16_t>(a - first));
              m.other.push_back(b);
            }
          }
        }
      }
      m.ptr.push_back(static_cast<index_t>(m.own.size()));
    }
  }
  return m;
}

// The GPU factorization kernels (merges by one thread and by one warp per row, and warps
// staging a few rows at a time from the matches found once) against the reference
// factorization bit for bit, block by block as the engine runs them: short rows
// (Poisson), rows longer than a warp's 32 (band), one row per block (natural order), and
// breakdowns (the same first failed row, and the blocks after it skipped); a ladder of
// shifts block by block and by levels in one cooperative launch. The match table against
// a plain merge on the host, and its runs against their definition.
TEST_F(CudaBackendTest, Ic0FactorKernelsEqualTheReferenceBitForBit) {
  namespace kc = prism::kernels::cuda;
  const auto colored = [](const CsrMatrix<double>& a) {
    return prism::permute_symmetric(
        a, prism::color_matrix(a, prism::VertexOrder::natural).permutation);
  };
  const CsrMatrix<double> band = random_band(1000, 90, 1.0, 7);
  std::vector<std::pair<std::string, CsrMatrix<double>>> matrices{
      {"n1", prism::poisson2d(1, 1)},
      {"poisson3d27", colored(prism::poisson3d(13, 11, 9, 27))},
      {"band", colored(band)},
      {"band natural", band},
      {"band indefinite", colored(random_band(777, 70, 0.3, 8))},
      {"bcsstk08",
       colored(prism::read_matrix_market(std::string(PRISM_TEST_DATA_DIR) + "/bcsstk08.mtx"))}};
  int staged_scaling_runs = 0;  // matrices factored staged from the source too
  int level_runs = 0;           // matrices factored by levels too
  for (const auto& [name, a] : matrices) {
    prism::precond::Ic0Pattern pattern(a);
    const CsrMatrix<double>& lower = pattern.lower();
    const prism::kernels::CsrView<double> view{lower.rows, lower.cols, lower.row_ptr.data(),
                                               lower.col_idx.data(), nullptr};
    std::vector<double> scaled(lower.col_idx.size()), row_scale(a.rows);
    ASSERT_TRUE(prism::kernels::reference::ic0_scale(view, pattern.lower_source().data(),
                                                     a.values.data(), scaled.data(),
                                                     row_scale.data())
                    .ok());
    // The blocks of the strict lower triangle, as the engine's.
    CsrMatrix<double> strict{lower.rows, lower.cols, {0}, {}, {}};
    index_t longest = 0;
    for (index_t i = 0; i < lower.rows; ++i) {
      for (index_t k = lower.row_ptr[i]; k + 1 < lower.row_ptr[i + 1]; ++k) {
        strict.col_idx.push_back(lower.col_idx[k]);
      }
      strict.row_ptr.push_back(static_cast<index_t>(strict.col_idx.size()));
      longest = std::max(longest, lower.row_ptr[i + 1] - lower.row_ptr[i] - 1);
    }
    const std::vector<index_t> blocks = prism::kernels::independent_blocks(
        {strict.rows, strict.cols, strict.row_ptr.data(), strict.col_idx.data(), nullptr}, true);
    auto row_ptr = kc::upload_and_wait(lower.row_ptr, nullptr);
    auto col_idx = kc::upload_and_wait(lower.col_idx, nullptr);
    const prism::kernels::CsrView<double> device{lower.rows, lower.cols, row_ptr.data(),
                                                 col_idx.data(), nullptr};
    std::vector<index_t> entry_row;
    for (index_t i = 0; i < lower.rows; ++i) {
      entry_row.insert(entry_row.end(), lower.row_ptr[i + 1] - lower.row_ptr[i], i);
    }
    const auto device_entry_row = kc::upload_and_wait(entry_row, nullptr);
    const kc::Ic0MatchTable table =
        kc::ic0_match_table(device, static_cast<index_t>(lower.col_idx.size()),
                            device_entry_row.data(), longest + 1, nullptr);
    // No table where no entry subtracts a product (n1): the merges find nothing either.
    const HostMatches expected_matches = host_matches(lower);
    const bool has_pairs = !expected_matches.own.empty();
    ASSERT_EQ(table.valid(), has_pairs);
    if (has_pairs) {
      EXPECT_EQ(download(table.ptr), expected_matches.ptr);
      std::vector<std::uint16_t> own = download(table.own);
      ASSERT_EQ(own.size(), expected_matches.own.size() + 2);  // padded to whole words
      own.resize(expected_matches.own.size());
      EXPECT_EQ(own, expected_matches.own);
      EXPECT_EQ(download(table.other), expected_matches.other);
      EXPECT_EQ(download(table.pivot), expected_matches.pivot);
      // The runs: no entry of a run pairs with another of it, and each run after a row's
      // first starts with an entry that pairs with one of the run before (the fewest runs).
      std::vector<std::uint16_t> run_end = download(table.run_end);
      ASSERT_EQ(run_end.size(), lower.col_idx.size() + 2);  // padded to whole words
      const std::vector<index_t>& match_ptr = expected_matches.ptr;
      const std::vector<std::uint16_t>& match_own = expected_matches.own;
      for (index_t i = 0; i < lower.rows; ++i) {
        const index_t first = lower.row_ptr[i], diag = lower.row_ptr[i + 1] - 1;
        EXPECT_EQ(run_end[diag], diag - first);
        index_t previous = first;
        for (index_t run = first; run < diag;) {
          const index_t stop = first + run_end[run];
          ASSERT_GT(stop, run);
          ASSERT_LE(stop, diag);
          bool pairs_with_previous = false;
          for (index_t p = run; p < stop; ++p) {
            EXPECT_EQ(first + run_end[p], stop);
            for (index_t q = match_ptr[p]; q < match_ptr[p + 1]; ++q) {
              EXPECT_LT(first + match_own[q], run) << "row " << i << " entry " << p;
              if (p == run && first + match_own[q] >= previous) pairs_with_previous = true;
            }
          }
          if (run > first) EXPECT_TRUE(pairs_with_previous) << "row " << i << " run " << run;
          previous = run;
          run = stop;
        }
      }
    }
    const kc::Ic0Matches matches = table.view();
    // Block b of the engine's blocks, factored by `method`.
    const auto block_rows = [&](std::size_t b, kc::Ic0Method method) {
      kc::Ic0Rows rows;
      rows.begin = blocks[b];
      rows.end = blocks[b + 1];
      rows.method = method;
      rows.staging =
          kc::ic0_staging(lower.row_ptr.data(), expected_matches.ptr.data(), rows.begin, rows.end);
      return rows;
    };
    const auto method_name = [](kc::Ic0Method method) {
      return method == kc::Ic0Method::merge        ? ", merge"
             : method == kc::Ic0Method::warp_merge ? ", warp merge"
                                                   : ", staged";
    };
    // The reference factor with `shift`, its verdict, and the rows it finishes (all, or
    // those before a breakdown).
    const auto reference_factor = [&](double shift) {
      std::vector<double> expected = scaled;
      const prism::kernels::Ic0Status status =
          prism::kernels::reference::ic0_factorize(view, expected.data(), shift);
      const index_t good_rows = status.ok() ? a.rows : status.failed_row;
      return std::make_tuple(expected, status, good_rows);
    };
    for (double shift : {0.0, 0.5}) {
      const auto [expected, status, good_rows] = reference_factor(shift);
      for (kc::Ic0Method method :
           {kc::Ic0Method::merge, kc::Ic0Method::warp_merge, kc::Ic0Method::staged}) {
        if (method == kc::Ic0Method::staged && !has_pairs) continue;
        SCOPED_TRACE(name + ", longest row " + std::to_string(longest) + ", shift " +
                     std::to_string(shift) + method_name(method));
        auto values = kc::upload_and_wait(scaled, nullptr);
        auto failed = kc::upload_and_wait(std::vector<int>{kc::kNoFailedRow}, nullptr);
        for (std::size_t b = 0; b + 1 < blocks.size(); ++b) {
          const kc::Ic0Rows rows = block_rows(b, method);
          if (method == kc::Ic0Method::staged) ASSERT_GT(rows.staging.rows_per_warp, 0);
          kc::ic0_factor_rows(rows, device, values.data(), shift, failed.data(), nullptr, &matches);
        }
        std::vector<double> got(scaled.size());
        int failed_row = 0;
        ASSERT_EQ(cudaMemcpy(got.data(), values.data(), got.size() * sizeof(double),
                             cudaMemcpyDeviceToHost),
                  cudaSuccess);
        ASSERT_EQ(cudaMemcpy(&failed_row, failed.data(), sizeof(int), cudaMemcpyDeviceToHost),
                  cudaSuccess);
        EXPECT_EQ(failed_row, status.ok() ? kc::kNoFailedRow : status.failed_row);
        // Rows before a breakdown (all rows without one): the same bits.
        const auto end = static_cast<std::size_t>(lower.row_ptr[good_rows]);
        EXPECT_TRUE(std::equal(got.begin(), got.begin() + end, expected.begin()));
        // After a breakdown the later blocks return at once: their rows keep their input.
        if (!status.ok()) {
          const auto later = std::upper_bound(blocks.begin(), blocks.end(), status.failed_row);
          ASSERT_NE(later, blocks.end());
          const auto from = static_cast<std::size_t>(lower.row_ptr[*later]);
          EXPECT_TRUE(std::equal(got.begin() + from, got.end(), scaled.begin() + from));
        }
      }
    }
    // Scaling as it reads (Ic0Source): the caller's values, and the same factor, row
    // scales and verdicts as ic0_scale followed by the factorization. `values` starts
    // as NaN: every entry is written. A bad diagonal in the last block is found even
    // where an earlier block breaks down (ic0_scale checks every row first).
    const auto lower_source = kc::upload_and_wait(pattern.lower_source(), nullptr);
    const std::vector<index_t>& host_source = pattern.lower_source();
    // Staged only where every block's rows fit with the scaling's 8 bytes an entry.
    bool staged_scales = has_pairs;
    for (std::size_t b = 0; staged_scales && b + 1 < blocks.size(); ++b) {
      const kc::Ic0Staging st = block_rows(b, kc::Ic0Method::staged).staging;
      staged_scales = st.rows_per_warp > 0 &&
                      kc::ic0_staged_bytes(st.entries, st.pairs, true) <= kc::kIc0StagedSharedBytes;
    }
    if (staged_scales) ++staged_scaling_runs;
    for (bool bad_last_row : {false, true}) {
      std::vector<double> a_values = a.values;
      const index_t bad_row = a.rows - 1;
      if (bad_last_row) a_values[host_source[lower.row_ptr[bad_row + 1] - 1]] = -1.0;
      const auto device_a = kc::upload_and_wait(a_values, nullptr);
      for (double shift : {0.0, 0.5}) {
        const auto [expected, status, good_rows] = reference_factor(shift);
        for (kc::Ic0Method method :
             {kc::Ic0Method::merge, kc::Ic0Method::warp_merge, kc::Ic0Method::staged}) {
          if (method == kc::Ic0Method::staged && !staged_scales) continue;
          SCOPED_TRACE(name + ", from the source, shift " + std::to_string(shift) +
                       method_name(method) + (bad_last_row ? ", bad last diagonal" : ""));
          auto values = kc::upload_and_wait(
              std::vector<double>(scaled.size(), std::numeric_limits<double>::quiet_NaN()),
              nullptr);
          kc::DeviceBuffer<double> device_scale(static_cast<std::size_t>(a.rows));
          kc::DeviceBuffer<double> device_inverse(static_cast<std::size_t>(a.rows));
          auto flags =
              kc::upload_and_wait(std::vector<int>{kc::kNoFailedRow, kc::kNoFailedRow}, nullptr);
          const kc::Ic0Source source{device_a.data(), lower_source.data(), device_scale.data(),
                                     device_inverse.data(), flags.data() + 1};
          for (std::size_t b = 0; b + 1 < blocks.size(); ++b) {
            kc::ic0_factor_rows(block_rows(b, method), device, values.data(), shift, flags.data(),
                                nullptr, &matches, nullptr, nullptr, &source);
          }
          const std::vector<int> verdicts = download(flags);
          const std::vector<double> got = download(values);
          if (bad_last_row) {
            EXPECT_EQ(verdicts[1], bad_row);
            // Rows of the blocks before the bad row's: as ic0_scale then the factorization
            // would have them, up to a breakdown.
            const auto its_block = std::upper_bound(blocks.begin(), blocks.end(), bad_row) - 1;
            const index_t rows = std::min(good_rows, *its_block);
            const auto end = static_cast<std::size_t>(lower.row_ptr[rows]);
            EXPECT_TRUE(std::equal(got.begin(), got.begin() + end, expected.begin()));
            continue;
          }
          EXPECT_EQ(verdicts[1], kc::kNoFailedRow);
          EXPECT_EQ(verdicts[0], status.ok() ? kc::kNoFailedRow : status.failed_row);
          const auto end = static_cast<std::size_t>(lower.row_ptr[good_rows]);
          EXPECT_TRUE(std::equal(got.begin(), got.begin() + end, expected.begin()));
          if (!status.ok()) continue;
          EXPECT_EQ(download(device_scale), row_scale);
          std::vector<double> inverse(row_scale.size());
          for (std::size_t i = 0; i < inverse.size(); ++i) inverse[i] = 1.0 / row_scale[i];
          EXPECT_EQ(download(device_inverse), inverse);
        }
      }
    }
    // Nor does it run in a ladder.
    {
      const kc::Ic0Source some{a.values.data(), nullptr, nullptr, nullptr, nullptr};
      const double one_shift = 0.0;
      const kc::Ic0Attempts one{1, &one_shift, 0};
      EXPECT_THROW(kc::ic0_factor_rows(block_rows(0, kc::Ic0Method::merge), device, nullptr, 0.0,
                                       nullptr, nullptr, nullptr, nullptr, &one, &some),
                   prism::ConfigError);
    }

    // A ladder of attempts in one launch per block: each attempt as if alone.
    const std::vector<double> shifts{0.0, 0.5, 1e-3};
    const std::size_t nnz = scaled.size();
    // Each attempt t of a ladder's values `got` and failed rows: the reference's verdict
    // with shifts[t], and its bits up to the failed row (all rows without one).
    const auto expect_ladder = [&](const std::vector<double>& got,
                                   const std::vector<int>& failed_rows) {
      for (std::size_t t = 0; t < shifts.size(); ++t) {
        SCOPED_TRACE(shifts[t]);
        std::vector<double> expected = scaled;
        const prism::kernels::Ic0Status status =
            prism::kernels::reference::ic0_factorize(view, expected.data(), shifts[t]);
        EXPECT_EQ(failed_rows[t], status.ok() ? kc::kNoFailedRow : status.failed_row);
        const index_t good_rows = status.ok() ? a.rows : status.failed_row;
        const auto end = static_cast<std::ptrdiff_t>(lower.row_ptr[good_rows]);
        const auto first = got.begin() + static_cast<std::ptrdiff_t>(t * nnz);
        EXPECT_TRUE(std::equal(first, first + end, expected.begin()));
      }
    };
    // A ladder's device data: the scaled values once per shift, the shifts, and each
    // attempt's failed row.
    const auto upload_ladder = [&] {
      std::vector<double> copies;
      for (std::size_t t = 0; t < shifts.size(); ++t) {
        copies.insert(copies.end(), scaled.begin(), scaled.end());
      }
      return std::make_tuple(
          kc::upload_and_wait(copies, nullptr), kc::upload_and_wait(shifts, nullptr),
          kc::upload_and_wait(std::vector<int>(shifts.size(), kc::kNoFailedRow), nullptr));
    };
    for (kc::Ic0Method method :
         {kc::Ic0Method::merge, kc::Ic0Method::warp_merge, kc::Ic0Method::staged}) {
      if (method == kc::Ic0Method::staged && !has_pairs) continue;
      SCOPED_TRACE(name + ", ladder" + method_name(method));
      auto [values, device_shifts, failed] = upload_ladder();
      const kc::Ic0Attempts ladder{static_cast<int>(shifts.size()), device_shifts.data(), nnz};
      for (std::size_t b = 0; b + 1 < blocks.size(); ++b) {
        kc::ic0_factor_rows(block_rows(b, method), device, values.data(), -1.0, failed.data(),
                            nullptr, &matches, nullptr, &ladder);
      }
      expect_ladder(download(values), download(failed));
    }
    // The same ladder by levels, all blocks in one cooperative launch.
    if (kc::ic0_levels_supported()) {
      SCOPED_TRACE(name + ", ladder by levels");
      const prism::kernels::Ic0LevelPlan plan = prism::kernels::ic0_level_plan(
          view, expected_matches.ptr.data(), expected_matches.own.data(),
          expected_matches.other.data(), blocks);
      kc::Ic0LevelTable table(plan, static_cast<int>(shifts.size()), nullptr);
      auto [values, device_shifts, failed] = upload_ladder();
      const kc::Ic0Attempts ladder{static_cast<int>(shifts.size()), device_shifts.data(), nnz};
      kc::ic0_factor_levels(table, values.data(), failed.data(), ladder, nullptr);
      expect_ladder(download(values), download(failed));
      // More attempts than the table was made for.
      const kc::Ic0Attempts too_many{ladder.count + 1, device_shifts.data(), nnz};
      EXPECT_THROW(kc::ic0_factor_levels(table, values.data(), failed.data(), too_many, nullptr),
                   prism::ConfigError);
      ++level_runs;
    }
  }
  EXPECT_EQ(level_runs, kc::ic0_levels_supported() ? static_cast<int>(matrices.size()) : 0);
  EXPECT_GE(staged_scaling_runs, 2);  // poisson3d27 and bcsstk08 at least
}

// A ladder's end on the device: ic0_failed_pivots reads each failed attempt's pivot from
// its failed row's diagonal slot, and ic0_emit with Ic0Kept copies the first attempt that
// did not fail into the kept values and writes it out exactly as ic0_emit of that attempt
// alone does; where every attempt failed, nothing is written.
TEST_F(CudaBackendTest, Ic0LadderKeepsTheFirstAttemptThatDidNotFail) {
  namespace kc = prism::kernels::cuda;
  const CsrMatrix<double> a = prism::poisson2d(5, 4);
  prism::precond::Ic0Pattern pattern(a);
  const CsrMatrix<double>& lower = pattern.lower();
  const index_t n = lower.rows;
  const std::size_t nnz = lower.col_idx.size();
  std::vector<index_t> entry_row, dest(nnz);
  for (index_t i = 0; i < n; ++i) {
    entry_row.insert(entry_row.end(), lower.row_ptr[i + 1] - lower.row_ptr[i], i);
  }
  std::iota(dest.begin(), dest.end(), 0);
  constexpr int kAttempts = 3;
  std::vector<double> ladder(kAttempts * nnz);  // distinct values in every slot
  for (std::size_t k = 0; k < ladder.size(); ++k) ladder[k] = 1.0 + 0.01 * static_cast<double>(k);
  const auto row_ptr = kc::upload_and_wait(lower.row_ptr, nullptr);
  const auto col_idx = kc::upload_and_wait(lower.col_idx, nullptr);
  const auto device_entry_row = kc::upload_and_wait(entry_row, nullptr);
  const auto device_dest = kc::upload_and_wait(dest, nullptr);
  const auto device_ladder = kc::upload_and_wait(ladder, nullptr);
  const auto row_scale = kc::upload_and_wait(std::vector<double>(n, 2.0), nullptr);
  const prism::kernels::CsrView<double> view{n, n, row_ptr.data(), col_idx.data(), nullptr};
  constexpr double kUnwritten = -7.0;
  // What ic0_emit writes (both copies and both inverse diagonals) and the kept values.
  const auto emit = [&](const double* values, const std::vector<int>* failed_rows) {
    auto lower_copy = kc::upload_and_wait(std::vector<double>(nnz, kUnwritten), nullptr);
    auto upper_copy = kc::upload_and_wait(std::vector<double>(nnz, kUnwritten), nullptr);
    auto lower_inverse = kc::upload_and_wait(std::vector<double>(n, kUnwritten), nullptr);
    auto upper_inverse = kc::upload_and_wait(std::vector<double>(n, kUnwritten), nullptr);
    auto kept_values = kc::upload_and_wait(std::vector<double>(nnz, kUnwritten), nullptr);
    kc::Ic0Output out;
    out.lower_dest = device_dest.data();
    out.upper_dest = device_dest.data();
    out.row_scale = row_scale.data();
    out.lower = lower_copy.data();
    out.upper = upper_copy.data();
    out.lower_inverse = lower_inverse.data();
    out.upper_inverse = upper_inverse.data();
    kc::DeviceBuffer<int> flags;
    kc::Ic0Kept kept;
    if (failed_rows != nullptr) {
      flags = kc::upload_and_wait(*failed_rows, nullptr);
      kept = {flags.data(), kAttempts, nnz, kept_values.data()};
    }
    kc::ic0_emit(view, static_cast<index_t>(nnz), device_entry_row.data(), values, out, nullptr,
                 failed_rows != nullptr ? &kept : nullptr);
    return std::vector<std::vector<double>>{download(lower_copy), download(upper_copy),
                                            download(lower_inverse), download(upper_inverse),
                                            download(kept_values)};
  };
  // Attempts 1 and 2 succeed: attempt 1 is kept, as if emitted alone.
  const std::vector<int> first_fails{2, kc::kNoFailedRow, kc::kNoFailedRow};
  const auto kept = emit(device_ladder.data(), &first_fails);
  auto alone = emit(device_ladder.data() + nnz, nullptr);
  EXPECT_EQ(alone[0], kept[0]);
  EXPECT_EQ(alone[1], kept[1]);
  EXPECT_EQ(alone[2], kept[2]);
  EXPECT_EQ(alone[3], kept[3]);
  EXPECT_NE(alone[0], std::vector<double>(nnz, kUnwritten));
  EXPECT_EQ(kept[4], std::vector<double>(ladder.begin() + static_cast<std::ptrdiff_t>(nnz),
                                         ladder.begin() + static_cast<std::ptrdiff_t>(2 * nnz)));
  // Every attempt failed: nothing written.
  const std::vector<int> all_fail{1, 0, 3};
  const auto none = emit(device_ladder.data(), &all_fail);
  EXPECT_EQ(none[0], std::vector<double>(nnz, kUnwritten));
  EXPECT_EQ(none[2], std::vector<double>(n, kUnwritten));
  EXPECT_EQ(none[4], std::vector<double>(nnz, kUnwritten));
  // The failed attempts' pivots: their failed rows' diagonal slots, 0 for the others.
  const std::vector<int> mixed{2, kc::kNoFailedRow, 5};
  const auto flags = kc::upload_and_wait(mixed, nullptr);
  kc::DeviceBuffer<double> pivots(kAttempts);
  kc::ic0_failed_pivots(flags.data(), kAttempts, device_ladder.data(), nnz, row_ptr.data(),
                        pivots.data(), nullptr);
  const auto diagonal = [&](int attempt, index_t row) {
    return ladder[static_cast<std::size_t>(attempt) * nnz + lower.row_ptr[row + 1] - 1];
  };
  EXPECT_EQ(download(pivots), (std::vector<double>{diagonal(0, 2), 0.0, diagonal(2, 5)}));
}

}  // namespace
