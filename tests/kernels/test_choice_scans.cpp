// The reference scans of `preconditioner: auto` (kernels/choice_scans.hpp) against the host
// functions they stand for: node blocks equal to prism::find_node_blocks for several block
// limits, the first bad diagonal equal to a scan in row order, the count equal to
// prism::rows_choosing_links for several options, on the cases of choice_scan_matrices.hpp
// (ties and strengths at the thresholds included), and the reference's links traced on the host
// equal to find_lines. The CUDA twins are held to the reference
// in tests/backend/test_cuda_choice_scans.cpp.

#include <prism/blocks.hpp>
#include <prism/errors.hpp>
#include <prism/lines.hpp>

#include "analysis/line_links.hpp"
#include "kernels/choice_scan_matrices.hpp"
#include "kernels/choice_scans.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace {

using prism::CsrMatrix;
using prism::index_t;
namespace ref = prism::kernels::reference;

prism::kernels::CsrView<double> view(const CsrMatrix<double>& a) {
  return {a.rows, a.cols, a.row_ptr.data(), a.col_idx.data(), a.values.data()};
}

std::vector<prism::test::ChoiceCase> good_cases() {
  std::vector<prism::test::ChoiceCase> cases = prism::test::generator_choice_cases();
  for (auto& c : prism::test::awkward_choice_cases()) cases.push_back(std::move(c));
  return cases;
}

/// The first row whose diagonal entry is not positive and finite, -1 when none.
index_t first_bad_diagonal(const CsrMatrix<double>& a) {
  for (index_t i = 0; i < a.rows; ++i) {
    double d = 0.0;
    for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
      if (a.col_idx[k] == i) d = a.values[k];
    }
    if (!(d > 0.0) || !std::isfinite(d)) return i;
  }
  return -1;
}

std::vector<prism::LineOptions> line_options() {
  std::vector<prism::LineOptions> out(4);
  out[1].dominance = 2.5;
  out[1].min_strength = 0.0;
  out[2].min_strength = 0.25;
  out[3].dominance = 1.5;
  out[3].min_strength = 0.05;
  return out;
}

TEST(ChoiceScans, NodeBlockPtrEqualsFindNodeBlocks) {
  for (const auto& [name, a] : good_cases()) {
    SCOPED_TRACE(name);
    for (const index_t max_size : {1, 2, 3, 64, 1000}) {
      std::vector<index_t> ptr(static_cast<std::size_t>(a.rows) + 1, -1);
      const index_t count = ref::node_block_ptr(view(a), max_size, ptr.data());
      ptr.resize(static_cast<std::size_t>(count) + 1);
      EXPECT_EQ(ptr, prism::find_node_blocks(a, max_size).ptr) << "max_size " << max_size;
    }
  }
  // The awkward cases hold what they are named for: a run past 64 rows, a cut node.
  const CsrMatrix<double> dense = prism::test::dense_blocks({150});
  EXPECT_EQ(prism::find_node_blocks(dense).ptr, (std::vector<index_t>{0, 64, 128, 150}));
  const CsrMatrix<double> nodes = prism::test::node_chain(3 * 11 + 2, 3);
  EXPECT_EQ(prism::find_node_blocks(nodes).count(), 12);
}

TEST(ChoiceScans, InverseSqrtDiagonalFindsTheFirstBadRow) {
  std::vector<prism::test::ChoiceCase> cases = good_cases();
  for (auto& c : prism::test::bad_diagonal_cases()) cases.push_back(std::move(c));
  for (const auto& [name, a] : cases) {
    SCOPED_TRACE(name);
    std::vector<double> r(static_cast<std::size_t>(a.rows), 0.0);
    const index_t bad = ref::inverse_sqrt_diagonal(view(a), r.data());
    EXPECT_EQ(bad, first_bad_diagonal(a));
    for (index_t i = 0; i < (bad < 0 ? a.rows : bad); ++i) {
      double d = 0.0;
      for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
        if (a.col_idx[k] == i) d = a.values[k];
      }
      ASSERT_EQ(r[i], 1.0 / std::sqrt(d)) << "row " << i;
    }
  }
  EXPECT_EQ(first_bad_diagonal(prism::test::bad_diagonal_cases()[2].a), 17);
}

TEST(ChoiceScans, RowsChoosingLinksEqualsTheHostCount) {
  for (const auto& [name, a] : good_cases()) {
    SCOPED_TRACE(name);
    std::vector<double> r(static_cast<std::size_t>(a.rows));
    ASSERT_EQ(ref::inverse_sqrt_diagonal(view(a), r.data()), -1);
    for (const prism::LineOptions& o : line_options()) {
      EXPECT_EQ(ref::rows_choosing_links(view(a), r.data(), o.dominance, o.min_strength),
                prism::rows_choosing_links(a, o))
          << "dominance " << o.dominance << ", min_strength " << o.min_strength;
    }
  }
}

// The reference's choice and mutual links, traced on the host (what a backend's
// SetupSession::find_lines does with the links it finds), give find_lines' lines and report
// exactly: the cases with ties and strengths at the thresholds, chains cut by max_length,
// cycles with a weakest link and with tied ones.
TEST(ChoiceScans, MutualLinksGiveFindLinesLines) {
  std::vector<prism::test::ChoiceCase> cases = good_cases();
  for (auto& c : prism::test::ring_cases()) cases.push_back(std::move(c));
  std::vector<prism::LineOptions> options = line_options();
  for (const index_t max_length : {1, 5, 7}) {
    options.emplace_back();
    options.back().max_length = max_length;
  }
  int cycles = 0;
  for (const auto& [name, a] : cases) {
    SCOPED_TRACE(name);
    const auto n = static_cast<std::size_t>(a.rows);
    std::vector<double> r(n);
    ASSERT_EQ(ref::inverse_sqrt_diagonal(view(a), r.data()), -1);
    for (const prism::LineOptions& o : options) {
      SCOPED_TRACE("dominance " + std::to_string(o.dominance) + ", max_length " +
                   std::to_string(o.max_length));
      std::vector<index_t> chosen(2 * n), links(2 * n);
      ref::chosen_links(view(a), r.data(), o.dominance, o.min_strength, chosen.data());
      ref::mutual_links(a.rows, chosen.data(), links.data());
      const prism::Lines got = prism::analysis::lines_from_links(a, links, o.max_length);
      const prism::Lines expected = prism::find_lines(a, o);
      EXPECT_EQ(got.permutation, expected.permutation);
      EXPECT_EQ(got.lines.ptr, expected.lines.ptr);
      EXPECT_EQ(got.report.lengths.count, expected.report.lengths.count);
      EXPECT_EQ(got.report.lengths.mean_size, expected.report.lengths.mean_size);
      EXPECT_EQ(got.report.linked_rows, expected.report.linked_rows);
      EXPECT_EQ(got.report.inside_weight, expected.report.inside_weight);
      const bool all_linked =
          std::all_of(links.begin(), links.end(), [](index_t j) { return j >= 0; });
      cycles += all_linked && a.rows > 2 ? 1 : 0;
    }
  }
  EXPECT_GE(cycles, 3 * 6);  // the rings are cycles under every option
}

// The threshold cases fall as their names say under the default options (ties choose), so
// the device test's equality covers both sides of each threshold.
TEST(ChoiceScans, TheThresholdCasesFallBothWays) {
  using prism::test::threshold_grid;
  const double up = std::nextafter(0.1, 1.0), down = std::nextafter(0.1, 0.0);
  const auto choosing = [](const CsrMatrix<double>& a) { return prism::rows_choosing_links(a); };
  const index_t rows = 19 * 6;
  EXPECT_EQ(choosing(threshold_grid(19, 6, 1.0, 0.4, 0.1)), rows);
  // Just past dominance 4 only the corners choose: their second coupling is absent.
  EXPECT_EQ(choosing(threshold_grid(19, 6, 1.0, 0.4, up)), 4);
  EXPECT_EQ(choosing(threshold_grid(19, 6, 1.0, 0.4, down)), rows);
  EXPECT_EQ(choosing(threshold_grid(19, 6, 1.0, 0.1, 0.01)), rows);
  EXPECT_EQ(choosing(threshold_grid(19, 6, 1.0, down, 0.01)), 0);
  const index_t near = choosing(prism::test::near_threshold_grid(64, 65, 2));
  EXPECT_GT(near, 0);
  EXPECT_LT(near, 64 * 65);
}

TEST(ChoiceScans, RowsChoosingLinksNeedsGoodDiagonals) {
  for (const auto& [name, a] : prism::test::bad_diagonal_cases()) {
    SCOPED_TRACE(name);
    std::vector<double> r(static_cast<std::size_t>(a.rows));
    EXPECT_GE(ref::inverse_sqrt_diagonal(view(a), r.data()), 0);
    EXPECT_THROW(prism::rows_choosing_links(a), prism::InvalidMatrixError);
  }
}

}  // namespace
