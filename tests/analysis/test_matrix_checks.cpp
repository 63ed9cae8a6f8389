#include <prism/analysis.hpp>
#include <prism/errors.hpp>
#include <prism/generators.hpp>

#include <gtest/gtest.h>

#include "common/host_threads.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace prism {
namespace {

CsrMatrix<double> from(index_t rows, index_t cols, std::vector<Triplet> t) {
  return csr_from_triplets(rows, cols, std::move(t));
}

// A 10 x 10 SPD-looking matrix (diagonal 4, a few symmetric couplings) to break.
std::vector<Triplet> good_entries() {
  std::vector<Triplet> t;
  for (index_t i = 0; i < 10; ++i) t.push_back({i, i, 4.0});
  for (const auto& [i, j] : std::vector<std::pair<index_t, index_t>>{{0, 3}, {2, 7}, {4, 8}}) {
    t.push_back({i, j, -1.0});
    t.push_back({j, i, -1.0});
  }
  return t;
}

// The message of check_spd_candidate with rows and columns numbered from 1 (as the command
// line asks, for its Matrix Market files): the expectations below read as the files do.
std::string message_of(const CsrMatrix<double>& a) {
  try {
    check_spd_candidate(a, 1e-12, Numbering::from_one);
  } catch (const InvalidMatrixError& e) {
    return e.what();
  }
  return "(no exception)";
}

TEST(MatrixChecks, GoodMatrixPasses) {
  const CsrMatrix<double> a = from(10, 10, good_entries());
  EXPECT_NO_THROW(check_spd_candidate(a));
  const MatrixProperties p = inspect_matrix(a);
  EXPECT_TRUE(p.square);
  EXPECT_TRUE(p.structurally_symmetric);
  EXPECT_TRUE(p.numerically_symmetric);
  EXPECT_TRUE(p.full_diagonal);
  EXPECT_TRUE(p.positive_diagonal);
  EXPECT_EQ(p.first_bad_row, -1);
  EXPECT_EQ(p.max_asymmetry, 0.0);
  EXPECT_NO_THROW(check_spd_candidate(poisson3d(4, 4, 4, 27)));
  EXPECT_NO_THROW(check_spd_candidate(CsrMatrix<double>{}));
}

TEST(MatrixChecks, NotSquare) {
  const CsrMatrix<double> a = from(3, 4, {{0, 0, 1.0}});
  EXPECT_EQ(message_of(a), "matrix is not square (3 x 4)");
  EXPECT_FALSE(inspect_matrix(a).square);
}

/// The message of `check`, or "(no exception)".
template <typename Check>
std::string thrown_by(const Check& check) {
  try {
    check();
  } catch (const InvalidMatrixError& e) {
    return e.what();
  }
  return "(no exception)";
}

// By default the messages number rows and columns from 0, as the CSR arrays index them.
TEST(MatrixChecks, MessagesNumberFromZeroByDefault) {
  std::vector<Triplet> t = good_entries();
  t.push_back({4, 9, 0.5});  // no (9, 4)
  const CsrMatrix<double> one_sided = from(10, 10, t);
  const std::string no_mirror = "matrix is not symmetric: entry (4, 9) has no mirror (9, 4)";
  EXPECT_EQ(thrown_by([&] { check_spd_candidate(one_sided); }), no_mirror);
  EXPECT_EQ(thrown_by([&] { check_pattern(one_sided); }), no_mirror);
  EXPECT_EQ(thrown_by([&] { mirror_entries(one_sided); }), no_mirror);

  t = good_entries();
  t.push_back({4, 8, 2.0});  // a(4,8) = 1 while a(8,4) = -1
  const CsrMatrix<double> asymmetric = from(10, 10, t);
  const std::string values = "matrix is not symmetric: a(4,8) = 1 but a(8,4) = -1";
  EXPECT_EQ(thrown_by([&] { check_spd_candidate(asymmetric); }), values);
  const std::vector<index_t> mirror = mirror_entries(asymmetric);
  EXPECT_EQ(thrown_by([&] { check_spd_candidate_values(asymmetric, mirror); }), values);
  EXPECT_EQ(thrown_by([&] {
              check_spd_candidate_values(asymmetric, mirror, 1e-12, Numbering::from_one);
            }),
            "matrix is not symmetric: a(5,9) = 1 but a(9,5) = -1");

  CsrMatrix<double> out_of_range = from(10, 10, good_entries());
  out_of_range.col_idx.back() = 10;
  EXPECT_EQ(thrown_by([&] { check_storage(out_of_range); }),
            "column index 10 of row 9 is outside [0, 9]");
  CsrMatrix<double> negative = from(10, 10, good_entries());
  negative.values[0] = -4.0;
  EXPECT_EQ(thrown_by([&] { check_spd_candidate(negative); }),
            "diagonal entry of row 0 is not positive (-4)");
}

TEST(MatrixChecks, EntryWithoutMirror) {
  std::vector<Triplet> t = good_entries();
  t.push_back({4, 8 + 1, 0.5});  // (5, 10) in 1-based terms, no (10, 5)
  const CsrMatrix<double> a = from(10, 10, t);
  EXPECT_EQ(message_of(a), "matrix is not symmetric: entry (5, 10) has no mirror (10, 5)");
  const MatrixProperties p = inspect_matrix(a);
  EXPECT_FALSE(p.structurally_symmetric);
  EXPECT_FALSE(p.numerically_symmetric);
  EXPECT_EQ(p.first_bad_row, 4);
}

TEST(MatrixChecks, LowerEntryWithoutMirror) {
  std::vector<Triplet> t = good_entries();
  t.push_back({8, 4 + 1, 0.5});
  EXPECT_EQ(message_of(from(10, 10, t)),
            "matrix is not symmetric: entry (9, 6) has no mirror (6, 9)");
}

TEST(MatrixChecks, ValuesNotSymmetric) {
  std::vector<Triplet> t = good_entries();
  t.push_back({4, 8, 2.0});  // a(5,9) = -1 + 2 = 1 while a(9,5) = -1
  const CsrMatrix<double> a = from(10, 10, t);
  EXPECT_EQ(message_of(a), "matrix is not symmetric: a(5,9) = 1 but a(9,5) = -1");
  const MatrixProperties p = inspect_matrix(a);
  EXPECT_TRUE(p.structurally_symmetric);
  EXPECT_FALSE(p.numerically_symmetric);
  EXPECT_DOUBLE_EQ(p.max_asymmetry, 2.0);
  EXPECT_EQ(p.first_bad_row, 4);
}

TEST(MatrixChecks, AsymmetryWithinToleranceIsAccepted) {
  // Tolerance 1e-12 * max|a| = 4e-12 here.
  std::vector<Triplet> t = good_entries();
  t.push_back({2, 7, 1e-12});
  const CsrMatrix<double> close = from(10, 10, t);
  EXPECT_NO_THROW(check_spd_candidate(close));
  EXPECT_TRUE(inspect_matrix(close).numerically_symmetric);
  EXPECT_GT(inspect_matrix(close).max_asymmetry, 0.0);

  t.push_back({2, 7, 1e-11});
  const CsrMatrix<double> far = from(10, 10, t);
  // Shortest round-trip printing tells the two values apart.
  EXPECT_EQ(message_of(far), "matrix is not symmetric: a(3,8) = -0.999999999989 but a(8,3) = -1");
}

TEST(MatrixChecks, MissingDiagonal) {
  std::vector<Triplet> t;
  for (const Triplet& e : good_entries()) {
    if (!(e.row == 6 && e.col == 6)) t.push_back(e);
  }
  const CsrMatrix<double> a = from(10, 10, t);
  EXPECT_EQ(message_of(a), "diagonal entry of row 7 is missing");
  const MatrixProperties p = inspect_matrix(a);
  EXPECT_FALSE(p.full_diagonal);
  EXPECT_FALSE(p.positive_diagonal);
  EXPECT_TRUE(p.numerically_symmetric);
  EXPECT_EQ(p.first_bad_row, 6);
}

TEST(MatrixChecks, NonPositiveDiagonal) {
  std::vector<Triplet> t = good_entries();
  t.push_back({6, 6, -7.0});  // 4 - 7 = -3
  const CsrMatrix<double> a = from(10, 10, t);
  EXPECT_EQ(message_of(a), "diagonal entry of row 7 is not positive (-3)");
  const MatrixProperties p = inspect_matrix(a);
  EXPECT_TRUE(p.full_diagonal);
  EXPECT_FALSE(p.positive_diagonal);
  EXPECT_EQ(p.first_bad_row, 6);

  std::vector<Triplet> zero = good_entries();
  zero.push_back({0, 0, -4.0});
  EXPECT_EQ(message_of(from(10, 10, zero)), "diagonal entry of row 1 is not positive (0)");
}

TEST(MatrixChecks, NonFiniteValues) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  for (const double bad : {nan, inf}) {
    std::vector<Triplet> t = good_entries();
    // Build with a finite value, then plant the bad one: the builder may reject NaN.
    CsrMatrix<double> a = from(10, 10, t);
    // (3, 8) 1-based is the entry (2, 7); find its slot.
    for (index_t k = a.row_ptr[2]; k < a.row_ptr[3]; ++k) {
      if (a.col_idx[k] == 7) a.values[k] = bad;
    }
    const std::string expected =
        std::string("matrix has a non-finite entry: a(3,8) = ") + (bad == inf ? "inf" : "nan");
    EXPECT_EQ(message_of(a), expected);
    const MatrixProperties p = inspect_matrix(a);
    EXPECT_FALSE(p.numerically_symmetric);
    EXPECT_EQ(p.first_bad_row, 2);
  }
}

TEST(MatrixChecks, FirstBadRowIsTheSmallestOverAllProblems) {
  std::vector<Triplet> t = good_entries();
  t.push_back({8, 8, -10.0});  // row 8: negative diagonal
  t.push_back({2, 7, 0.5});    // rows 2 and 7: asymmetric values
  const CsrMatrix<double> a = from(10, 10, t);
  EXPECT_EQ(inspect_matrix(a).first_bad_row, 2);
  // Symmetry is reported before the diagonal.
  EXPECT_EQ(message_of(a), "matrix is not symmetric: a(3,8) = -0.5 but a(8,3) = -1");
}

// The scan finds mirrors by binary search: against a plain dense reference on random patterns with
// entries dropped (mirrors and diagonals missing), values perturbed and nothing changed, every
// property agrees.
TEST(MatrixChecks, PropertiesMatchADenseReferenceOnRandomPatterns) {
  std::mt19937 gen(11);
  for (int trial = 0; trial < 200; ++trial) {
    SCOPED_TRACE(trial);
    const index_t n = 1 + static_cast<index_t>(gen() % 40);
    std::vector<std::vector<double>> dense(n, std::vector<double>(n, 0.0));
    std::vector<std::vector<bool>> stored(n, std::vector<bool>(n, false));
    for (index_t i = 0; i < n; ++i) {
      stored[i][i] = true;
      dense[i][i] = 1.0 + static_cast<double>(gen() % 5) - (gen() % 10 == 0 ? 6.0 : 0.0);
      for (int e = 0; e < 3; ++e) {
        const index_t j = static_cast<index_t>(gen() % n);
        if (j == i) continue;
        stored[i][j] = stored[j][i] = true;
        dense[i][j] = dense[j][i] = -1.0;
      }
    }
    const int kind = trial % 4;  // 0: unchanged, 1: drop entries, 2: perturb, 3: both
    for (int change = 0; kind != 0 && change < 2; ++change) {
      const index_t i = static_cast<index_t>(gen() % n), j = static_cast<index_t>(gen() % n);
      if ((kind & 1) != 0) stored[i][j] = false;
      if ((kind & 2) != 0 && stored[i][j]) dense[i][j] += 0.5;
    }
    std::vector<Triplet> t;
    for (index_t i = 0; i < n; ++i) {
      for (index_t j = 0; j < n; ++j) {
        if (stored[i][j]) t.push_back({i, j, dense[i][j]});
      }
    }
    const MatrixProperties p = inspect_matrix(from(n, n, t));
    bool structural = true, numeric = true, diagonal = true, positive = true;
    index_t first_bad = -1;
    double max_asymmetry = 0.0;
    const auto bad = [&](index_t row) {
      if (first_bad < 0 || row < first_bad) first_bad = row;
    };
    for (index_t i = 0; i < n; ++i) {
      if (!stored[i][i]) {
        diagonal = positive = false;
        bad(i);
      } else if (!(dense[i][i] > 0.0)) {
        positive = false;
        bad(i);
      }
      for (index_t j = 0; j < n; ++j) {
        if (j == i || !stored[i][j]) continue;
        if (!stored[j][i]) {
          structural = numeric = false;
          bad(i);
        } else if (dense[i][j] != dense[j][i]) {
          numeric = false;
          bad(std::min(i, j));
          max_asymmetry = std::max(max_asymmetry, std::abs(dense[i][j] - dense[j][i]));
        }
      }
    }
    EXPECT_EQ(p.structurally_symmetric, structural);
    EXPECT_EQ(p.numerically_symmetric, numeric);
    EXPECT_EQ(p.full_diagonal, diagonal);
    EXPECT_EQ(p.positive_diagonal, positive);
    EXPECT_EQ(p.first_bad_row, first_bad);
    EXPECT_EQ(p.max_asymmetry, max_asymmetry);
  }
}

TEST(MatrixChecks, BrokenStorageIsReported) {
  CsrMatrix<double> a = from(10, 10, good_entries());
  std::swap(a.col_idx[a.row_ptr[0]], a.col_idx[a.row_ptr[0] + 1]);
  EXPECT_EQ(message_of(a), "column indices of row 1 are not sorted and unique");
  EXPECT_FALSE(inspect_matrix(a).structurally_symmetric);

  CsrMatrix<double> out_of_range = from(10, 10, good_entries());
  out_of_range.col_idx.back() = 10;
  EXPECT_EQ(message_of(out_of_range), "column index 11 of row 10 is outside [1, 10]");

  // Row pointers out of order or past the entries are found before any row is read
  // through them; a bad column in an earlier row still comes first.
  CsrMatrix<double> pointers = from(10, 10, good_entries());
  pointers.row_ptr[3] = 1000000;
  EXPECT_EQ(message_of(pointers),
            "matrix storage is inconsistent: row pointers pass the entries at row 3");
  EXPECT_EQ(inspect_matrix(pointers).first_bad_row, 2);
  pointers.row_ptr[3] = pointers.row_ptr[2] - 1;
  EXPECT_EQ(message_of(pointers), "matrix storage is inconsistent: row pointers decrease at row 3");
  pointers.col_idx[0] = 10;
  EXPECT_EQ(message_of(pointers), "column index 11 of row 1 is outside [1, 10]");
}

// Rows are scanned in parts on host threads: problems planted in several parts are
// reported as in row order (the first problem kind found, its first row; the smallest bad
// row over all kinds), and every property holds for the whole matrix.
TEST(MatrixChecks, ProblemsInSeveralPartsAreReportedInRowOrder) {
  const test::ScopedHostThreads threads(4);
  const CsrMatrix<double> grid = poisson2d(250, 200);  // 50k rows: three parts
  const auto entry = [&](const CsrMatrix<double>& a, index_t i, index_t j) {
    const auto* begin = a.col_idx.data() + a.row_ptr[i];
    const auto* end = a.col_idx.data() + a.row_ptr[i + 1];
    return static_cast<std::size_t>(std::lower_bound(begin, end, j) - a.col_idx.data());
  };
  EXPECT_NO_THROW(check_spd_candidate(grid));

  CsrMatrix<double> a = grid;
  a.values[entry(a, 45000, 45000)] = -1.0;   // third part: a negative diagonal
  a.values[entry(a, 30000, 30001)] += 0.5;   // second part: asymmetric values
  a.values[entry(a, 40000, 40001)] += 0.25;  // second part: a later one
  MatrixProperties p = inspect_matrix(a);
  EXPECT_EQ(p.first_bad_row, 30000);
  EXPECT_TRUE(p.structurally_symmetric);
  EXPECT_FALSE(p.numerically_symmetric);
  EXPECT_FALSE(p.positive_diagonal);
  EXPECT_TRUE(p.full_diagonal);
  EXPECT_EQ(p.max_asymmetry, 0.5);
  EXPECT_EQ(message_of(a),
            "matrix is not symmetric: a(30001,30002) = -0.5 but a(30002,30001) = -1");
  a.values[entry(a, 100, 100)] = 0.0;  // first part: a zero diagonal
  EXPECT_EQ(inspect_matrix(a).first_bad_row, 100);
  EXPECT_EQ(message_of(a),
            "matrix is not symmetric: a(30001,30002) = -0.5 but a(30002,30001) = -1");

  // Mirrors missing in two parts: the first in row order is named.
  std::vector<Triplet> t;
  for (index_t i = 0; i < grid.rows; ++i) {
    for (index_t k = grid.row_ptr[i]; k < grid.row_ptr[i + 1]; ++k) {
      const index_t j = grid.col_idx[k];
      if ((i == 42000 && j == 42001) || (i == 21001 && j == 21000)) continue;
      t.push_back({i, j, grid.values[k]});
    }
  }
  const CsrMatrix<double> one_sided = from(grid.rows, grid.cols, t);
  EXPECT_EQ(message_of(one_sided),
            "matrix is not symmetric: entry (21001, 21002) has no mirror (21002, 21001)");
  EXPECT_EQ(inspect_matrix(one_sided).first_bad_row, 21000);
  try {
    mirror_entries(one_sided, Numbering::from_one);
    FAIL() << "no exception";
  } catch (const InvalidMatrixError& e) {
    EXPECT_EQ(std::string(e.what()),
              "matrix is not symmetric: entry (21001, 21002) has no mirror (21002, 21001)");
  }
  const std::vector<index_t> mirror = mirror_entries(grid);
  for (index_t i = 0; i < grid.rows; ++i) {
    for (index_t k = grid.row_ptr[i]; k < grid.row_ptr[i + 1]; ++k) {
      ASSERT_EQ(mirror[k], entry(grid, grid.col_idx[k], i));
    }
  }
}

// The values-only check in row parts on host threads: a problem in any part (a value
// without its mirror's, a non-positive diagonal, a NaN) fails it with the full check's
// message; the unchanged matrix passes.
TEST(MatrixChecks, ValuesOnlyCheckOnHostThreads) {
  const test::ScopedHostThreads threads(4);
  const CsrMatrix<double> grid = poisson2d(250, 200);  // 50k rows: three parts
  const std::vector<index_t> mirror = mirror_entries(grid);
  EXPECT_NO_THROW(check_spd_candidate_values(grid, mirror));
  for (const index_t row : {10, 20000, 49000}) {
    for (int kind = 0; kind < 3; ++kind) {
      SCOPED_TRACE(std::to_string(row) + " " + std::to_string(kind));
      CsrMatrix<double> a = grid;
      const index_t k = a.row_ptr[row];  // an off-diagonal entry (the row's first)
      const auto d =
          static_cast<index_t>(std::lower_bound(a.col_idx.begin() + a.row_ptr[row],
                                                a.col_idx.begin() + a.row_ptr[row + 1], row) -
                               a.col_idx.begin());
      if (kind == 0) a.values[k] += 0.5;
      if (kind == 1) a.values[d] = 0.0;
      if (kind == 2) a.values[k] = std::nan("");
      const std::string expected = message_of(a);
      try {
        check_spd_candidate_values(a, mirror, 1e-12, Numbering::from_one);
        FAIL() << "no exception";
      } catch (const InvalidMatrixError& e) {
        EXPECT_EQ(std::string(e.what()), expected);
      }
    }
  }
}

}  // namespace
}  // namespace prism

namespace {

TEST(MatrixChecks, MirrorEntriesPointAtTheTransposedEntry) {
  const prism::CsrMatrix<double> a = prism::poisson3d(5, 4, 3, 27);
  const std::vector<prism::index_t> mirror = prism::mirror_entries(a);
  for (prism::index_t i = 0; i < a.rows; ++i) {
    for (prism::index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
      const prism::index_t m = mirror[k];
      ASSERT_EQ(a.col_idx[m], i);
      ASSERT_GE(m, a.row_ptr[a.col_idx[k]]);
      ASSERT_LT(m, a.row_ptr[a.col_idx[k] + 1]);
    }
  }
  const auto one_sided = prism::csr_from_triplets(2, 2, {{0, 0, 1.0}, {0, 1, 1.0}, {1, 1, 1.0}});
  EXPECT_THROW(prism::mirror_entries(one_sided), prism::InvalidMatrixError);
}

TEST(MatrixChecks, ValuesOnlyCheckAcceptsAndRejectsLikeTheFullCheck) {
  prism::CsrMatrix<double> a = prism::poisson2d(6, 5);
  const std::vector<prism::index_t> mirror = prism::mirror_entries(a);
  EXPECT_NO_THROW(prism::check_spd_candidate_values(a, mirror));
  prism::CsrMatrix<double> asym = a;
  asym.values[1] += 0.5;  // an off-diagonal entry of row 1 without its mirror changing
  try {
    prism::check_spd_candidate_values(asym, mirror);
    FAIL() << "expected InvalidMatrixError";
  } catch (const prism::InvalidMatrixError& e) {
    EXPECT_NE(std::string(e.what()).find("not symmetric"), std::string::npos) << e.what();
  }
  prism::CsrMatrix<double> negative = a;
  negative.values[0] = -4.0;  // row 1's diagonal
  EXPECT_THROW(prism::check_spd_candidate_values(negative, mirror), prism::InvalidMatrixError);
}

}  // namespace

namespace prism {
namespace {  // the same unnamed namespace as the tests above: good_entries(), from()

// solver.symmetry_tolerance: the same rule with another relative tolerance, at set-up and
// for new values.
TEST(MatrixChecks, SymmetryToleranceIsTheCallersChoice) {
  std::vector<Triplet> t = good_entries();
  t.push_back({2, 7, 1e-8});  // |a_38 - a_83| = 1e-8 = 2.5e-9 max|a|
  const CsrMatrix<double> a = from(10, 10, t);
  EXPECT_THROW(check_spd_candidate(a), InvalidMatrixError);
  EXPECT_THROW(check_spd_candidate(a, 1e-9), InvalidMatrixError);
  EXPECT_NO_THROW(check_spd_candidate(a, 1e-8));
  const std::vector<index_t> mirror = mirror_entries(a);
  EXPECT_THROW(check_spd_candidate_values(a, mirror), InvalidMatrixError);
  EXPECT_NO_THROW(check_spd_candidate_values(a, mirror, 1e-8));
}

// check_pattern (solver.check: pattern) reads no value: bad values pass, a bad pattern
// does not; check_storage (none) also lets an unsymmetric pattern and a missing diagonal
// pass, but never storage that would be read out of bounds.
TEST(MatrixChecks, PatternAndStorageChecksStopAtTheirLevel) {
  std::vector<Triplet> t = good_entries();
  t.push_back({2, 7, 5.0});
  t.push_back({1, 1, -9.0});
  t.push_back({5, 5, std::numeric_limits<double>::quiet_NaN()});
  const CsrMatrix<double> bad_values = from(10, 10, t);
  EXPECT_THROW(check_spd_candidate(bad_values), InvalidMatrixError);
  EXPECT_NO_THROW(check_pattern(bad_values));
  EXPECT_NO_THROW(check_storage(bad_values));

  std::vector<Triplet> one_sided = good_entries();
  one_sided.push_back({1, 6, -1.0});
  const CsrMatrix<double> unsymmetric = from(10, 10, one_sided);
  const auto pattern_message = [](const CsrMatrix<double>& m) {
    try {
      check_pattern(m, Numbering::from_one);
    } catch (const InvalidMatrixError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(pattern_message(unsymmetric),
            "matrix is not symmetric: entry (2, 7) has no mirror (7, 2)");
  EXPECT_NO_THROW(check_storage(unsymmetric));

  std::vector<Triplet> no_diagonal;
  for (const Triplet& e : good_entries()) {
    if (e.row != 4 || e.col != 4) no_diagonal.push_back(e);
  }
  const CsrMatrix<double> missing = from(10, 10, no_diagonal);
  EXPECT_EQ(pattern_message(missing), "diagonal entry of row 5 is missing");
  EXPECT_NO_THROW(check_storage(missing));

  CsrMatrix<double> broken = from(10, 10, good_entries());
  broken.col_idx.back() = 10;
  EXPECT_THROW(check_storage(broken), InvalidMatrixError);
  EXPECT_THROW(check_pattern(broken), InvalidMatrixError);
  EXPECT_THROW(check_storage(from(10, 9, {})), InvalidMatrixError);
}

}  // namespace
}  // namespace prism
