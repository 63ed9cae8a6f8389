// The device IC(0) analysis (kernels/cuda/ic0_analysis.hpp) against its host reference,
// the host analysis itself: L's pattern and map into A as precond::Ic0Pattern builds them,
// the strict triangles and their maps into L as SplitTriangle::pattern_only splits them,
// the reaches (and the row blocks the host scan and the device find from them), each
// block's longest row and staging extents, the composed maps; and the color-set layouts
// laid out from device memory (DeviceColorset's second constructor) against those laid
// out from the host split: the same layout and the same destination of every factor
// entry. Skipped without a GPU.

#include "backend/cuda/colorset_trisolve.hpp"
#include "backend/handles.hpp"
#include "backend/ic0_analysis_cases.hpp"
#include "backend/split_triangle.hpp"
#include "common/gpu.hpp"
#include "kernels/cuda/device_memory.hpp"
#include "kernels/cuda/ic0_analysis.hpp"
#include "kernels/cuda/independent_blocks.hpp"
#include "kernels/ic0_staging.hpp"
#include "precond/ic0_pattern.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

namespace {

using prism::CsrMatrix;
using prism::index_t;
using prism::backend::SplitTriangle;
using prism::backend::Triangle;
namespace k = prism::kernels::cuda;

template <typename Array>
std::vector<index_t> plain(const Array& a) {
  return std::vector<index_t>(a.begin(), a.end());
}

std::vector<index_t> down(const k::DeviceBuffer<index_t>& d) {
  return k::download_and_wait(d, nullptr);
}

std::vector<index_t> down(const k::DeviceSpan& d) {
  return k::download_and_wait(static_cast<const index_t*>(d.data()), d.size(), nullptr);
}

/// Each strict row's largest (lower) or smallest (upper) column, -1 or rows when empty.
std::vector<index_t> host_reach(const prism::backend::StrictTriangle& s, bool lower) {
  std::vector<index_t> reach(static_cast<std::size_t>(s.rows));
  for (index_t i = 0; i < s.rows; ++i) {
    const auto begin = s.col_idx.begin() + s.row_ptr[i], end = s.col_idx.begin() + s.row_ptr[i + 1];
    reach[i] = begin == end
                   ? (lower ? -1 : s.rows)
                   : (lower ? *std::max_element(begin, end) : *std::min_element(begin, end));
  }
  return reach;
}

/// ic0_staging_extents + ic0_staging_pick against ic0_staging, block by block.
void expect_staging_is_host(const index_t* device_row_ptr, const std::vector<index_t>& row_ptr,
                            const std::vector<index_t>& match_ptr,
                            const std::vector<index_t>& blocks) {
  const auto device_match = k::upload_and_wait(match_ptr, nullptr);
  const std::vector<index_t> extents =
      k::ic0_staging_extents(device_row_ptr, device_match.data(), blocks, nullptr);
  ASSERT_EQ(extents.size(), (blocks.size() - 1) * 2 * k::kIc0StagingChoices);
  for (std::size_t b = 0; b + 1 < blocks.size(); ++b) {
    const k::Ic0Staging want =
        k::ic0_staging(row_ptr.data(), match_ptr.data(), blocks[b], blocks[b + 1]);
    const k::Ic0Staging got = k::ic0_staging_pick(extents.data() + b * 2 * k::kIc0StagingChoices);
    EXPECT_EQ(got.rows_per_warp, want.rows_per_warp) << "block " << b;
    EXPECT_EQ(got.entries, want.entries) << "block " << b;
    EXPECT_EQ(got.pairs, want.pairs) << "block " << b;
  }
}

void expect_analysis_is_host(const CsrMatrix<double>& a) {
  const auto row_ptr = k::upload_and_wait(a.row_ptr, nullptr);
  const auto col_idx = k::upload_and_wait(a.col_idx, nullptr);
  const k::DeviceIc0Pattern p =
      k::ic0_analysis({a.rows, a.cols, row_ptr.data(), col_idx.data(), nullptr}, a.nnz(), nullptr);
  const prism::precond::Ic0Pattern host(a);
  const SplitTriangle sl = SplitTriangle::pattern_only(host.lower(), Triangle::lower);
  const SplitTriangle su = SplitTriangle::pattern_only(host.upper(), Triangle::upper);

  EXPECT_EQ(p.rows, a.rows);
  EXPECT_EQ(down(p.l_row_ptr), host.lower().row_ptr);
  EXPECT_EQ(down(p.l_col_idx), host.lower().col_idx);
  EXPECT_EQ(down(p.lower_source), host.lower_source());
  std::vector<index_t> entry_row(host.lower().col_idx.size());
  for (index_t i = 0; i < a.rows; ++i) {
    for (index_t q = host.lower().row_ptr[i]; q < host.lower().row_ptr[i + 1]; ++q)
      entry_row[q] = i;
  }
  EXPECT_EQ(down(p.entry_row), entry_row);

  EXPECT_EQ(down(p.strict_lower_ptr), plain(sl.strict().row_ptr));
  EXPECT_EQ(down(p.strict_lower_col), plain(sl.strict().col_idx));
  EXPECT_EQ(down(p.strict_lower_source), sl.strict_source());
  EXPECT_EQ(p.strict_nnz(), sl.strict().nnz());
  EXPECT_EQ(down(p.strict_upper_ptr), plain(su.strict().row_ptr));
  EXPECT_EQ(down(p.strict_upper_col), plain(su.strict().col_idx));
  std::vector<index_t> upper_from_l(su.strict_source().size());
  for (std::size_t q = 0; q < upper_from_l.size(); ++q) {
    upper_from_l[q] = host.upper_source()[su.strict_source()[q]];
  }
  EXPECT_EQ(down(p.strict_upper_source), upper_from_l);

  const std::vector<index_t> lower_reach = down(p.lower_reach), upper_reach = down(p.upper_reach);
  EXPECT_EQ(lower_reach, host_reach(sl.strict(), true));
  EXPECT_EQ(upper_reach, host_reach(su.strict(), false));
  EXPECT_EQ(prism::backend::independent_blocks_from_reach(lower_reach.data(), a.rows, true),
            sl.block_ptr());
  EXPECT_EQ(prism::backend::independent_blocks_from_reach(upper_reach.data(), a.rows, false),
            su.block_ptr());
  // The same blocks found on the device, unless a triangle has too many of them.
  const k::DeviceBlocks found =
      k::independent_blocks_device(p.lower_reach.data(), p.upper_reach.data(), a.rows, nullptr);
  const auto within = [](const std::vector<index_t>& ptr) {
    return static_cast<index_t>(ptr.size()) - 1 <= k::kDeviceBlocksLimit;
  };
  ASSERT_EQ(found.lower.has_value(), within(sl.block_ptr()));
  ASSERT_EQ(found.upper.has_value(), within(su.block_ptr()));
  if (found.lower) EXPECT_EQ(*found.lower, sl.block_ptr());
  if (found.upper) EXPECT_EQ(*found.upper, su.block_ptr());

  // Each block's longest row left of the diagonal, as the host factor finds it.
  const std::vector<index_t>& blocks = sl.block_ptr();
  std::vector<index_t> longest(blocks.size() - 1, 0);
  for (std::size_t b = 0; b < longest.size(); ++b) {
    for (index_t i = blocks[b]; i < blocks[b + 1]; ++i) {
      longest[b] = std::max(longest[b], host.lower().row_ptr[i + 1] - host.lower().row_ptr[i] - 1);
    }
  }
  EXPECT_EQ(k::ic0_block_longest(p.l_row_ptr.data(), blocks, nullptr), longest);

  // Each block's staging from extents found on the device, as ic0_staging plans it from
  // host copies; any nondecreasing pointers stand in for the match table's.
  std::vector<index_t> match_ptr(host.lower().col_idx.size() + 1, 0);
  for (std::size_t q = 1; q < match_ptr.size(); ++q) {
    match_ptr[q] = match_ptr[q - 1] + static_cast<index_t>((q * 7) % 5);
  }
  expect_staging_is_host(p.l_row_ptr.data(), host.lower().row_ptr, match_ptr, blocks);

  // L's map into A composed with a map of A's entries (reversed), and each row's diagonal.
  std::vector<index_t> a_source(static_cast<std::size_t>(a.nnz()));
  for (std::size_t q = 0; q < a_source.size(); ++q) {
    a_source[q] = static_cast<index_t>(a_source.size() - 1 - q);
  }
  const auto device_source = k::upload_and_wait(a_source, nullptr);
  k::DeviceBuffer<index_t> composed(host.lower_source().size());
  k::compose_maps(composed.size(), p.lower_source.data(), device_source.data(), composed.data(),
                  nullptr);
  const std::vector<index_t> want = prism::backend::compose_source(host.lower_source(), a_source);
  EXPECT_EQ(down(composed), want);
  k::DeviceBuffer<index_t> diagonal(static_cast<std::size_t>(a.rows));
  k::row_last_entries(a.rows, p.l_row_ptr.data(), composed.data(), diagonal.data(), nullptr);
  std::vector<index_t> want_diagonal(static_cast<std::size_t>(a.rows));
  for (index_t i = 0; i < a.rows; ++i) want_diagonal[i] = want[host.lower().row_ptr[i + 1] - 1];
  EXPECT_EQ(down(diagonal), want_diagonal);
}

TEST(Ic0AnalysisCuda, IsEquivalentToReference) {
  PRISM_SKIP_WITHOUT_GPU();
  {
    SCOPED_TRACE("no rows");
    expect_analysis_is_host(prism::test::empty_matrix());
  }
  for (const prism::test::OrderedCase& c : prism::test::ordered_cases()) {
    SCOPED_TRACE(c.name);
    expect_analysis_is_host(c.ordered);
  }
}

// Blocks found on the device from awkward reaches against the host scan: chains of one
// row a block (past kDeviceBlocksLimit: none found), sparse and dense random reaches.
TEST(Ic0AnalysisCuda, DeviceBlocksAreTheHostScans) {
  PRISM_SKIP_WITHOUT_GPU();
  std::mt19937 random(47);
  for (const index_t n : {1, 2, 3, 37, 1000, k::kDeviceBlocksLimit + 9}) {
    for (int kind = 0; kind < 3; ++kind) {
      SCOPED_TRACE("rows " + std::to_string(n) + ", kind " + std::to_string(kind));
      std::vector<index_t> lower(static_cast<std::size_t>(n)), upper(lower.size());
      for (index_t i = 0; i < n; ++i) {
        const bool reaches = kind == 0 || random() % (kind == 1 ? 50 : 2) == 0;
        lower[i] = kind == 0 ? i - 1 : (reaches && i > 0 ? static_cast<index_t>(random() % i) : -1);
        upper[i] = kind == 0              ? i + 1
                   : reaches && i + 1 < n ? i + 1 + static_cast<index_t>(random() % (n - i - 1))
                                          : n;
      }
      const auto dl = k::upload_and_wait(lower, nullptr), du = k::upload_and_wait(upper, nullptr);
      const k::DeviceBlocks found = k::independent_blocks_device(dl.data(), du.data(), n, nullptr);
      const std::vector<index_t> want_lower =
          prism::backend::independent_blocks_from_reach(lower.data(), n, true);
      const std::vector<index_t> want_upper =
          prism::backend::independent_blocks_from_reach(upper.data(), n, false);
      const auto within = [](const std::vector<index_t>& ptr) {
        return static_cast<index_t>(ptr.size()) - 1 <= k::kDeviceBlocksLimit;
      };
      ASSERT_EQ(found.lower.has_value(), within(want_lower));
      ASSERT_EQ(found.upper.has_value(), within(want_upper));
      if (found.lower) EXPECT_EQ(*found.lower, want_lower);
      if (found.upper) EXPECT_EQ(*found.upper, want_upper);
    }
  }
}

// Staging extents over awkward blocks: one row, empty, not a multiple of 32, the rest.
TEST(Ic0AnalysisCuda, StagingExtentsAreTheHostPlans) {
  PRISM_SKIP_WITHOUT_GPU();
  std::mt19937 random(7);
  const index_t n = 1000;
  std::vector<index_t> row_ptr{0}, match_ptr{0};
  for (index_t i = 0; i < n; ++i) row_ptr.push_back(row_ptr.back() + 1 + random() % 40);
  for (index_t q = 0; q < row_ptr.back(); ++q) match_ptr.push_back(match_ptr.back() + random() % 9);
  const auto device_row_ptr = k::upload_and_wait(row_ptr, nullptr);
  expect_staging_is_host(device_row_ptr.data(), row_ptr, match_ptr,
                         {0, 1, 1, 2, 35, 67, 131, 500, 999, n});
}

// Padding (-1) passes through a composed map as -1.
TEST(Ic0AnalysisCuda, ComposedMapsKeepPadding) {
  PRISM_SKIP_WITHOUT_GPU();
  const std::vector<index_t> through{-1, 0, 2, -1, 1}, source{7, 5, 3};
  const auto t = k::upload_and_wait(through, nullptr), s = k::upload_and_wait(source, nullptr);
  k::DeviceBuffer<index_t> out(through.size());
  k::compose_maps(through.size(), t.data(), s.data(), out.data(), nullptr);
  EXPECT_EQ(down(out), prism::backend::compose_source(through, source));
}

// The layouts from device memory against those from the host split, for both triangles,
// every layout and precision: the same layout and the same stored place of every factor
// entry (the factor destinations the factorization writes through).
TEST(Ic0AnalysisCuda, DeviceColorsetLaysOutAsTheHost) {
  PRISM_SKIP_WITHOUT_GPU();
  using prism::backend::cuda::DeviceColorset;
  using prism::backend::cuda::DeviceStrict;
  for (const prism::test::OrderedCase& c : prism::test::ordered_cases()) {
    const CsrMatrix<double>& a = c.ordered;
    const auto row_ptr = k::upload_and_wait(a.row_ptr, nullptr);
    const auto col_idx = k::upload_and_wait(a.col_idx, nullptr);
    const k::DeviceIc0Pattern p = k::ic0_analysis(
        {a.rows, a.cols, row_ptr.data(), col_idx.data(), nullptr}, a.nnz(), nullptr);
    const prism::precond::Ic0Pattern host(a);
    const SplitTriangle sl = SplitTriangle::pattern_only(host.lower(), Triangle::lower);
    const SplitTriangle su = SplitTriangle::pattern_only(host.upper(), Triangle::upper);
    std::vector<index_t> upper_from_l(su.strict_source().size());
    for (std::size_t q = 0; q < upper_from_l.size(); ++q) {
      upper_from_l[q] = host.upper_source()[su.strict_source()[q]];
    }
    const std::size_t factor_entries = host.lower().col_idx.size();
    for (auto layout : {prism::ColorsetLayout::csr, prism::ColorsetLayout::sell,
                        prism::ColorsetLayout::automatic}) {
      for (auto precision : {prism::Precision::fp64, prism::Precision::mixed}) {
        SCOPED_TRACE(c.name + ", " + std::string(prism::to_string(layout)) + ", " +
                     std::string(prism::to_string(precision)));
        const DeviceColorset host_lower(sl, sl.strict_source(), precision, layout, nullptr);
        const DeviceColorset host_upper(su, upper_from_l, precision, layout, nullptr);
        k::DeviceBuffer<index_t> lower_dest, upper_dest;
        const DeviceColorset device_lower(
            DeviceStrict{true, a.rows, p.strict_nnz(), p.strict_lower_ptr.data(),
                         p.strict_lower_col.data(), p.strict_lower_source.data(), sl.block_ptr()},
            factor_entries, lower_dest, precision, layout, nullptr);
        const DeviceColorset device_upper(
            DeviceStrict{false, a.rows, static_cast<index_t>(p.strict_upper_col.size()),
                         p.strict_upper_ptr.data(), p.strict_upper_col.data(),
                         p.strict_upper_source.data(), su.block_ptr()},
            factor_entries, upper_dest, precision, layout, nullptr);
        EXPECT_EQ(device_lower.layout(), host_lower.layout());
        EXPECT_EQ(device_upper.layout(), host_upper.layout());
        EXPECT_EQ(down(lower_dest), host_lower.factor_destinations(factor_entries));
        EXPECT_EQ(down(upper_dest), host_upper.factor_destinations(factor_entries));
        EXPECT_EQ(DeviceColorset::pair_dot_capacity(device_lower, device_upper),
                  DeviceColorset::pair_dot_capacity(host_lower, host_upper));
      }
    }
  }
}

}  // namespace
