// The set-up kernels' references: the pattern checks (kernels/setup_checks.hpp) reject
// exactly what the host checks reject, level by level, and find the host's mirror map; the
// parallel coloring (kernels/parallel_coloring.hpp) is a valid coloring, reproducible, with
// colors within a bound of Boost's greedy coloring; the ordered greedy coloring is Boost's
// greedy coloring exactly in each vertex order, and past its round limit still valid.

#include <prism/analysis.hpp>
#include <prism/errors.hpp>

#include "analysis/color_order.hpp"
#include "kernels/matrix_values.hpp"
#include "kernels/parallel_coloring.hpp"
#include "kernels/setup_checks.hpp"
#include "kernels/setup_test_matrices.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace {

using prism::CsrMatrix;
using prism::index_t;
using prism::MatrixCheck;
namespace ref = prism::kernels::reference;

prism::kernels::CsrView<double> view_of(const CsrMatrix<double>& a) {
  return {a.rows, a.cols, a.row_ptr.data(), a.col_idx.data(), a.values.data()};
}

bool host_rejects(const CsrMatrix<double>& a, MatrixCheck level) {
  try {
    if (level == MatrixCheck::full)
      prism::check_spd_candidate(a, prism::kernels::kSymmetryTolerance);
    if (level == MatrixCheck::pattern) prism::check_pattern(a);
    if (level == MatrixCheck::none) prism::check_storage(a);
  } catch (const prism::InvalidMatrixError&) {
    return true;
  }
  return false;
}

/// What a backend session concludes with the reference kernels: a defect of the pattern,
/// or for full a value that first_bad_value rejects.
bool kernels_reject(const CsrMatrix<double>& a, MatrixCheck level) {
  std::vector<index_t> mirror(a.col_idx.size(), -1);
  const bool structure = level != MatrixCheck::none;
  if (ref::pattern_defects(view_of(a), a.nnz(), structure, mirror.data()) != 0) return true;
  return level == MatrixCheck::full &&
         ref::first_bad_value(a.nnz(), a.values.data(), mirror.data(),
                              prism::kernels::kSymmetryTolerance) >= 0;
}

TEST(SetupChecks, ReferenceRejectsWhatTheHostChecksReject) {
  for (const auto& [name, a] : prism::test::defect_cases()) {
    for (const MatrixCheck level : {MatrixCheck::none, MatrixCheck::pattern, MatrixCheck::full}) {
      SCOPED_TRACE(name + ", check " + std::string(prism::to_string(level)));
      EXPECT_EQ(kernels_reject(a, level), host_rejects(a, level));
    }
    if (name.rfind("valid", 0) == 0) EXPECT_FALSE(host_rejects(a, MatrixCheck::full)) << name;
  }
}

TEST(SetupChecks, ReferenceMirrorsAreTheHostMirrors) {
  for (const auto& [name, a] : prism::test::coloring_cases()) {
    SCOPED_TRACE(name);
    std::vector<index_t> mirror(a.col_idx.size(), -1);
    EXPECT_EQ(ref::pattern_defects(view_of(a), a.nnz(), true, mirror.data()),
              name.find("empty row") == std::string::npos ? prism::kernels::kNoDefect
                                                          : prism::kernels::kMissingDiagonal);
    EXPECT_EQ(mirror, prism::mirror_entries(a));
  }
}

TEST(SetupChecks, ReferenceFlagsEachDefectKind) {
  for (const auto& [name, a] : prism::test::defect_cases()) {
    std::vector<index_t> mirror(a.col_idx.size(), -1);
    const int found = ref::pattern_defects(view_of(a), a.nnz(), true, mirror.data());
    if (name == "entry without mirror") EXPECT_EQ(found, prism::kernels::kNoMirror) << name;
    if (name == "missing diagonal") EXPECT_EQ(found, prism::kernels::kMissingDiagonal) << name;
    if (name.find("column") != std::string::npos || name.find("row pointer") != std::string::npos) {
      EXPECT_EQ(found, prism::kernels::kBadStorage) << name;
    }
  }
}

TEST(ParallelColoring, ReferenceIsValidReproducibleAndNearGreedy) {
  for (const auto& [name, a] : prism::test::coloring_cases()) {
    SCOPED_TRACE(name);
    std::vector<int> colors(static_cast<std::size_t>(a.rows), -7);
    const int count = ref::jones_plassmann_coloring(view_of(a), colors.data());
    EXPECT_TRUE(prism::is_valid_coloring(a, colors));
    EXPECT_EQ(count, *std::max_element(colors.begin(), colors.end()) + 1);
    for (int c = 0; c < count; ++c) {  // no color left empty
      EXPECT_NE(std::find(colors.begin(), colors.end(), c), colors.end()) << "color " << c;
    }
    std::vector<int> again(colors.size());
    EXPECT_EQ(ref::jones_plassmann_coloring(view_of(a), again.data()), count);
    EXPECT_EQ(again, colors);
    // First fit needs at most the largest degree + 1 colors; random priorities lose the
    // natural order's parity on grids (5 colors for greedy's 2 on 7-point grids, 14 for 8
    // on 27-point ones), hence the bound of twice greedy's and one.
    index_t degree = 0;
    for (index_t i = 0; i < a.rows; ++i) {
      degree = std::max(degree, a.row_ptr[i + 1] - a.row_ptr[i]);
    }
    EXPECT_LE(count, degree + 1);
    const int greedy = prism::color_matrix(a, prism::VertexOrder::natural).num_colors;
    EXPECT_LE(count, 2 * greedy + 1) << "greedy: " << greedy;
  }
}

// The coloring cases and a path, whose natural order needs a round per row.
std::vector<prism::test::NamedMatrix> ordered_cases() {
  std::vector<prism::test::NamedMatrix> cases = prism::test::coloring_cases();
  cases.push_back({"path 50", prism::poisson2d(50, 1)});
  return cases;
}

TEST(OrderedGreedyColoring, ReferenceIsBoostsGreedyColoring) {
  for (const auto& [name, a] : ordered_cases()) {
    for (const auto& [order, order_name] : prism::enum_names<prism::VertexOrder>()) {
      SCOPED_TRACE(name + ", " + std::string(order_name));
      const std::vector<index_t> rank = prism::analysis::greedy_rank(a, order);
      std::vector<int> colors(static_cast<std::size_t>(a.rows), -7);
      const prism::kernels::GreedyColoring got = ref::ordered_greedy_coloring(
          view_of(a), rank.empty() ? nullptr : rank.data(), 1 << 30, colors.data());
      EXPECT_TRUE(got.exact);
      const prism::Coloring boost = prism::color_matrix(a, order);
      EXPECT_EQ(got.colors, boost.num_colors);
      EXPECT_EQ(prism::coloring_of(colors, got.colors).color, boost.color);
      EXPECT_EQ(prism::parallel_greedy_coloring(a, order).color, boost.color);
    }
  }
}

TEST(OrderedGreedyColoring, NaturalOrderRoundsAreTheLongestIncreasingPath) {
  const auto rounds = [](const CsrMatrix<double>& a) {
    std::vector<int> colors(static_cast<std::size_t>(a.rows));
    return ref::ordered_greedy_coloring(view_of(a), nullptr, 1 << 30, colors.data()).rounds;
  };
  EXPECT_EQ(rounds(prism::poisson3d(13, 9, 7)), 13 + 9 + 7 - 2);
  EXPECT_EQ(rounds(prism::poisson2d(50, 1)), 50);
  EXPECT_EQ(rounds(prism::test::diagonal_only(33)), 1);
  EXPECT_EQ(rounds(CsrMatrix<double>{0, 0, {0}, {}, {}}), 0);
}

TEST(OrderedGreedyColoring, PastTheRoundLimitStillValid) {
  for (const auto& [name, a] : ordered_cases()) {
    for (const int limit : {0, 1, 3}) {
      SCOPED_TRACE(name + ", limit " + std::to_string(limit));
      std::vector<int> colors(static_cast<std::size_t>(a.rows), -7);
      const prism::kernels::GreedyColoring got =
          ref::ordered_greedy_coloring(view_of(a), nullptr, limit, colors.data());
      EXPECT_TRUE(prism::is_valid_coloring(a, colors));
      EXPECT_LE(got.rounds, limit);
      index_t degree = 0;
      for (index_t i = 0; i < a.rows; ++i) {
        degree = std::max(degree, a.row_ptr[i + 1] - a.row_ptr[i]);
      }
      EXPECT_LE(got.colors, degree + 1);
      if (a.rows > 0) EXPECT_EQ(got.colors, *std::max_element(colors.begin(), colors.end()) + 1);
      std::vector<int> natural(colors.size());
      const int rounds =
          ref::ordered_greedy_coloring(view_of(a), nullptr, 1 << 30, natural.data()).rounds;
      EXPECT_EQ(got.exact, rounds <= limit);
      if (got.exact) EXPECT_EQ(colors, natural);
    }
  }
}

TEST(ParallelColoring, HostColoringOrdersRowsByColor) {
  const CsrMatrix<double> a = prism::test::grid_and_hubs();
  const prism::Coloring c = prism::jones_plassmann_coloring(a);
  EXPECT_TRUE(prism::is_valid_coloring(a, c.color));
  ASSERT_EQ(c.color_ptr.size(), static_cast<std::size_t>(c.num_colors) + 1);
  EXPECT_EQ(c.color_ptr.back(), a.rows);
  for (int k = 0; k < c.num_colors; ++k) {
    for (index_t p = c.color_ptr[k]; p < c.color_ptr[k + 1]; ++p) {
      EXPECT_EQ(c.color[c.permutation[p]], k);
    }
    if (k > 0) EXPECT_GE(c.color_ptr[k] - c.color_ptr[k - 1], c.color_ptr[k + 1] - c.color_ptr[k]);
  }
  EXPECT_THROW(prism::jones_plassmann_coloring(CsrMatrix<double>{2, 3, {0, 0, 0}, {}, {}}),
               prism::InvalidMatrixError);
}

}  // namespace
