// preconditioner.type auto, the default: block_ic where the pattern has node blocks of 2
// rows or more on average (or block_ic.block_size >= 2 is given) and the options let it
// run, else line_ic where lines of 4 rows or more on average hold most rows and most of the
// off-diagonal weight (anisotropic along x or z, stretched, rotated), else ic0 (isotropic,
// planes, layered, circuit-like); the report names the type it chose and the plan says
// why. Whole solves against Eigen run with every type in test_pcg.cpp (PcgMatchesEigen,
// auto_*).

#include <prism/errors.hpp>
#include <prism/generators.hpp>
#include <prism/solver.hpp>

#include "common/host_threads.hpp"
#include "common/test_matrices.hpp"
#include "solver/preconditioner_choice.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace {

using prism::CsrMatrix;

prism::SolverConfig config(const std::string& type = "auto") {
  prism::SolverConfig c;
  c.backend = prism::BackendKind::cpu;
  c.preconditioner.type = type;
  c.solver.tolerance = 1e-10;
  c.solver.max_iterations = 5000;
  return c;
}

struct Solved {
  prism::SolveReport report;
  std::vector<double> x;
};

Solved solve(const prism::SolverConfig& c, const CsrMatrix<double>& a) {
  prism::Solver s(c);
  s.setup(a);
  Solved out;
  const std::vector<double> b = prism::test::random_vector(a.rows, 7);
  out.report = s.solve(b, out.x);
  EXPECT_TRUE(out.report.converged()) << out.report.diagnosis;
  EXPECT_LE(prism::test::relative_residual(a, out.x, b), 1e-9);
  return out;
}

/// The plan line of the choice; "" when there is none.
std::string choice_line(const prism::SolveReport& r) {
  for (const std::string& line : r.plan) {
    if (line.rfind("preconditioner: ", 0) == 0) return line;
  }
  return "";
}

/// Solves with auto and with `type` given: the same type, the same iterations and solution
/// bit for bit, and the plan's first line says what auto chose and why.
void expect_auto_chooses(const prism::SolverConfig& automatic, const CsrMatrix<double>& a,
                         const std::string& type, const std::string& why) {
  prism::SolverConfig explicit_type = automatic;
  explicit_type.preconditioner.type = type;
  const Solved chosen = solve(automatic, a);
  const Solved given = solve(explicit_type, a);
  EXPECT_EQ(chosen.report.preconditioner, type);
  EXPECT_EQ(chosen.report.iterations, given.report.iterations);
  EXPECT_EQ(chosen.x, given.x);
  EXPECT_EQ(chosen.report.ordering.colors.count, given.report.ordering.colors.count);
  ASSERT_FALSE(chosen.report.plan.empty());
  EXPECT_EQ(chosen.report.plan.front(), "preconditioner: auto chose " + type + " (" + why + ")");
  EXPECT_EQ(choice_line(given.report), "") << "an explicit type has no choice to explain";
}

/// Rows 0 and 1 coupled to each other only (one node block of 2, and a line of 2), then a
/// chain of 8 rows (a line of 8) or a 3 x 3 Poisson grid (lines of 1: no row has one or two
/// dominant couplings that are returned); every row a block of 1 but the pair.
CsrMatrix<double> one_pair_and(bool chain) {
  std::vector<prism::Triplet> t{{0, 0, 4.0}, {0, 1, -1.0}, {1, 0, -1.0}, {1, 1, 4.0}};
  const auto couple = [&](prism::index_t i, prism::index_t j) {
    t.push_back({i, j, -1.0});
    t.push_back({j, i, -1.0});
  };
  const prism::index_t rows = chain ? 10 : 11;
  for (prism::index_t i = 2; i < rows; ++i) t.push_back({i, i, 4.0});
  for (prism::index_t i = 2; i < rows; ++i) {
    const prism::index_t k = i - 2;  // the grid's x + 3 y
    if (chain && i + 1 < rows) couple(i, i + 1);
    if (!chain && k % 3 < 2) couple(i, i + 1);
    if (!chain && k < 6) couple(i, i + 3);
  }
  return prism::csr_from_triplets(rows, rows, std::move(t));
}

/// Circuit-like: a random graph of `n` nodes and about 1.5 n edges (degree 3 on average)
/// whose conductances spread over six decades, the diagonal their sum plus a small leak, as
/// in a resistor network's nodal matrix (G3_circuit). Some rows have one or two dominant
/// conductances, so there are some short lines.
CsrMatrix<double> circuit_like(prism::index_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<prism::Triplet> t;
  std::vector<double> diagonal(static_cast<std::size_t>(n), 1e-3);
  for (prism::index_t e = 0; e < 3 * n / 2; ++e) {
    const auto i = static_cast<prism::index_t>(rng() % static_cast<unsigned>(n));
    const auto j = static_cast<prism::index_t>(rng() % static_cast<unsigned>(n));
    const double g = std::pow(10.0, 6.0 * (rng() / 4294967296.0) - 3.0);
    if (i == j) continue;
    t.push_back({i, j, -g});
    t.push_back({j, i, -g});
    diagonal[i] += g;
    diagonal[j] += g;
  }
  for (prism::index_t i = 0; i < n; ++i) t.push_back({i, i, diagonal[i]});
  return prism::csr_from_triplets(n, n, std::move(t));
}

/// The plan says auto chose line_ic, with the numbers, and the solve equals line_ic's.
void expect_auto_chooses_lines(const CsrMatrix<double>& a) {
  const Solved chosen = solve(config(), a);
  EXPECT_EQ(chosen.report.preconditioner, "line_ic");
  EXPECT_EQ(choice_line(chosen.report).rfind("preconditioner: auto chose line_ic (lines of ", 0),
            0u)
      << choice_line(chosen.report);
  EXPECT_EQ(chosen.report.ordering.method, "greedy (lines)");
  EXPECT_EQ(chosen.report.plan.at(1), "ordering: lines (line_ic solves each line's rows in order)");
  prism::SolverConfig line_ic = config("line_ic");
  const Solved given = solve(line_ic, a);
  EXPECT_EQ(chosen.report.iterations, given.report.iterations);
  EXPECT_EQ(chosen.x, given.x);
}

/// The plan says auto chose ic0 for want of node blocks and of lines, and why.
void expect_auto_refuses_lines(const CsrMatrix<double>& a, const std::string& lines_why) {
  expect_auto_chooses(config(), a, "ic0", "no node blocks: every row its own; " + lines_why);
}

TEST(AutoPreconditioner, IsTheDefault) {
  EXPECT_EQ(prism::SolverConfig{}.preconditioner.type, "auto");
  EXPECT_EQ(prism::resolved_ordering(prism::SolverConfig{}.preconditioner), prism::Ordering::color);
}

TEST(AutoPreconditioner, ChoosesBlockIcOnElasticityNodeBlocks) {
  const CsrMatrix<double> a = prism::elasticity3d(5, 4, 6, 2, {1.0, 100.0});
  expect_auto_chooses(config(), a, "block_ic",
                      "node blocks of 3.0 rows on average, found from the pattern");
  const Solved chosen = solve(config(), a);
  EXPECT_EQ(chosen.report.ordering.method, "greedy (blocks)");
  EXPECT_EQ(chosen.report.ordering.colors.count, 8);
}

TEST(AutoPreconditioner, ChoosesBlockIcWhereABlockSizeIsGiven) {
  // Poisson has no node blocks of its own; a block size of 2 or more is the caller's word.
  prism::SolverConfig c = config();
  c.preconditioner.block_ic.block_size = 2;
  expect_auto_chooses(c, prism::poisson2d(13, 11), "block_ic", "block_size 2 given");
  c.preconditioner.block_ic.block_size = 1;
  expect_auto_chooses(c, prism::poisson2d(13, 11), "ic0", "block_size 1: every row its own block");
}

TEST(AutoPreconditioner, ChoosesIc0WithoutNodeBlocks) {
  expect_auto_refuses_lines(prism::poisson3d(9, 8, 7), "no lines: every line is one row");
  expect_auto_chooses(config(), one_pair_and(false), "ic0",
                      "node blocks of 1.10 rows on average, found from the pattern; block_ic "
                      "needs 2; no lines: 54.5% of the rows have one or two dominant "
                      "couplings; line_ic needs 90% of the rows in lines");
}

/// The first row without a positive finite diagonal entry, by a scan in row order; rows
/// when there is none. The reference the threaded check in resolve_type must match.
prism::index_t first_bad_diagonal(const CsrMatrix<double>& a) {
  for (prism::index_t i = 0; i < a.rows; ++i) {
    double d = 0.0;
    for (prism::index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
      if (a.col_idx[k] == i) d = a.values[k];
    }
    if (!(d > 0.0) || !std::isfinite(d)) return i;
  }
  return a.rows;
}

// prism info resolves auto on matrices a solve would refuse: the reason names the first row
// without a positive diagonal, whichever part of the threaded check finds it first.
TEST(AutoPreconditioner, NamesTheFirstBadDiagonalWithAnyThreads) {
  const CsrMatrix<double> a = prism::poisson2d(300, 240);  // 72000 rows: 4 parts
  const prism::index_t last = a.rows - 1, middle = a.rows / 2;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<std::vector<prism::index_t>> cases = {
      {0}, {last}, {middle}, {middle - 1}, {last, middle + 7}, {last, 3 * a.rows / 4, 1}, {}};
  for (const int threads : {1, 2, 4}) {
    const prism::test::ScopedHostThreads scoped(threads);
    for (const std::vector<prism::index_t>& rows : cases) {
      for (const double value : {0.0, -1.0, nan}) {
        CsrMatrix<double> bad = a;
        for (const prism::index_t i : rows) {
          for (prism::index_t k = bad.row_ptr[i]; k < bad.row_ptr[i + 1]; ++k) {
            if (bad.col_idx[k] == i) bad.values[k] = value;
          }
        }
        const prism::index_t first = first_bad_diagonal(bad);
        ASSERT_EQ(first, rows.empty() ? a.rows : *std::min_element(rows.begin(), rows.end()));
        const std::string reason = prism::solver::resolve_type(config().preconditioner, bad).reason;
        if (first == a.rows) {
          EXPECT_EQ(reason.find("diagonal"), std::string::npos) << reason;
          continue;
        }
        EXPECT_EQ(reason,
                  "preconditioner: auto chose ic0 (no node blocks: every row its own; "
                  "no lines: row " +
                      std::to_string(first) + " has no positive diagonal entry)")
            << threads << " threads";
      }
    }
  }
}

// Lines of the strong axis hold every row and nearly all the weight: anisotropic3d with the
// strong direction along x or z at ratios 1e-2 to 1e-6, rotated3d (lines along the
// diagonals), and a chain (a 1D problem, where line_ic is a direct solve).
TEST(AutoPreconditioner, ChoosesLineIcWhereLinesHoldMostRowsAndWeight) {
  expect_auto_chooses(config(), prism::anisotropic3d(12, 5, 4, 1.0, 1e-3, 1e-3), "line_ic",
                      "lines of 12.0 rows on average hold 100.0% of the rows and 99.8% of the "
                      "off-diagonal sum |a_ij|");
  for (const double ratio : {1e-2, 1e-3, 1e-4, 1e-6}) {
    SCOPED_TRACE(ratio);
    expect_auto_chooses_lines(prism::anisotropic3d(9, 6, 5, 1.0, ratio, ratio));
    expect_auto_chooses_lines(prism::anisotropic3d(5, 6, 9, ratio, ratio, 1.0));
  }
  expect_auto_chooses_lines(prism::rotated3d(10, 10, 3, 1.0, 1e-3, 1e-3));
  expect_auto_chooses_lines(prism::rotated3d(10, 10, 3, 1e-4, 1.0, 1e-2));
  const Solved chain = solve(config(), one_pair_and(true));
  EXPECT_EQ(choice_line(chain.report),
            "preconditioner: auto chose line_ic (lines of 5.0 rows on average hold 100.0% of the "
            "rows and 100.0% of the off-diagonal sum |a_ij|)");
  EXPECT_EQ(chain.report.iterations, 1);
}

// No dominant direction, no lines: isotropic Poisson (7 and 27 points), two equally strong
// axes (planes), layered media (isotropic in each layer, however large the jump), a grid
// stretched toward one wall (lines from the wall through part of the rows), a circuit-like
// random graph; elasticity's node blocks go to block_ic, and its rows would
// not line up either.
TEST(AutoPreconditioner, ChoosesIc0WhereLinesDoNotHoldMostOfTheWeight) {
  const std::string none = "no lines: every line is one row";
  expect_auto_refuses_lines(prism::poisson3d(8, 7, 6, 27), none);
  // Planes: only the corner rows of each plane have two dominant couplings (x and y).
  expect_auto_refuses_lines(prism::anisotropic3d(8, 7, 6, 1.0, 1.0, 1e-3),
                            "no lines: 7.1% of the rows have one or two dominant couplings; "
                            "line_ic needs 90% of the rows in lines");
  expect_auto_refuses_lines(prism::layered(8, 8, 8, 4, {1.0, 1e6}), none);
  const Solved stretched = solve(config(), prism::stretched3d(10, 9, 16, 1000.0));
  EXPECT_EQ(stretched.report.preconditioner, "ic0") << choice_line(stretched.report);
  const Solved circuit = solve(config(), circuit_like(400, 5));
  EXPECT_EQ(circuit.report.preconditioner, "ic0");
  EXPECT_NE(choice_line(circuit.report).find("line_ic needs 90%"), std::string::npos)
      << choice_line(circuit.report);
  const CsrMatrix<double> elasticity = prism::elasticity3d(4, 4, 3, 2, {1.0, 1000.0});
  const prism::Lines lines = prism::find_lines(elasticity);
  EXPECT_FALSE(prism::solver::judge_lines(lines.report, elasticity.rows).take)
      << prism::solver::judge_lines(lines.report, elasticity.rows).why;
}

// The rule at its edges: 90% of the rows and half the weight in lines of 4 rows on average
// take line_ic; a row, a share of the weight or a row per line less do not.
TEST(AutoPreconditioner, JudgesLinesByRowsWeightAndLength) {
  const auto report = [](prism::index_t linked_rows, int linked_lines, double weight) {
    prism::LineReport r;
    r.linked_rows = linked_rows;
    r.lengths.count = linked_lines + (100 - linked_rows);
    r.inside_weight = weight;
    return r;
  };
  using prism::solver::judge_lines;
  const prism::solver::LineVerdict edge = judge_lines(report(92, 23, 0.5), 100);
  EXPECT_TRUE(edge.take);
  EXPECT_EQ(edge.why,
            "lines of 4.0 rows on average hold 92.0% of the rows and 50.0% of the off-diagonal "
            "sum |a_ij|");
  EXPECT_TRUE(judge_lines(report(90, 22, 0.5), 100).take);
  EXPECT_FALSE(judge_lines(report(89, 22, 0.9), 100).take);    // rows outside lines
  EXPECT_FALSE(judge_lines(report(92, 23, 0.499), 100).take);  // most weight outside
  EXPECT_FALSE(judge_lines(report(91, 23, 0.9), 100).take);    // 3.96 rows a line
  EXPECT_FALSE(judge_lines(report(100, 50, 1.0), 100).take);   // pairs
  const prism::solver::LineVerdict none = judge_lines(report(0, 0, 0.0), 100);
  EXPECT_FALSE(none.take);
  EXPECT_EQ(none.why, "no lines: every line is one row");
}

// Lines only where the ordering is left to the preconditioner (line_ic orders by its
// lines); greedy colors unbalanced, as line_ic colors its lines.
TEST(AutoPreconditioner, ChoosesIc0WhereTheOptionsRefuseLines) {
  const CsrMatrix<double> a = prism::anisotropic3d(9, 6, 5, 1.0, 1e-3, 1e-3);
  prism::SolverConfig color = config();
  color.preconditioner.ordering = prism::Ordering::color;
  expect_auto_chooses(color, a, "ic0",
                      "no node blocks: every row its own; ordering color: line_ic orders the "
                      "unknowns by its lines");
  prism::SolverConfig cyclic = config();
  cyclic.preconditioner.coloring.method = prism::ColoringMethod::level_cyclic;
  expect_auto_chooses(cyclic, a, "ic0",
                      "coloring.method level_cyclic: block_ic colors its blocks greedily");
}

// Options block_ic refuses make auto take ic0 on a matrix with node blocks, and say why.
TEST(AutoPreconditioner, ChoosesIc0WhereTheOptionsRefuseBlockIc) {
  const CsrMatrix<double> a = prism::elasticity3d(4, 4, 3, 2, {1.0, 30.0});
  prism::SolverConfig cyclic = config();
  cyclic.preconditioner.coloring.method = prism::ColoringMethod::level_cyclic;
  expect_auto_chooses(cyclic, a, "ic0",
                      "coloring.method level_cyclic: block_ic colors its blocks greedily");
  EXPECT_EQ(solve(cyclic, a).report.ordering.method, "level_cyclic");
  prism::SolverConfig balanced = config();
  balanced.preconditioner.coloring.balance = true;
  expect_auto_chooses(balanced, a, "ic0",
                      "coloring.balance: block_ic does not balance its block colors");
  prism::SolverConfig natural = config();
  natural.preconditioner.ordering = prism::Ordering::natural;
  expect_auto_chooses(natural, a, "ic0",
                      "ordering natural: block_ic is measured faster only in its block coloring");
  // The explicit type keeps refusing them.
  cyclic.preconditioner.type = "block_ic";
  EXPECT_THROW(prism::Solver{cyclic}, prism::ConfigError);
}

// The choice is made per setup(): one solver follows the matrix it is given.
TEST(AutoPreconditioner, ChoosesAgainAtEachSetup) {
  prism::Solver s(config());
  const CsrMatrix<double> elasticity = prism::elasticity3d(4, 3, 3, 1, {1.0});
  const CsrMatrix<double> poisson = prism::poisson2d(10, 9);
  std::vector<double> x;
  s.setup(elasticity);
  EXPECT_EQ(s.solve(prism::test::random_vector(elasticity.rows, 1), x).preconditioner, "block_ic");
  s.setup(poisson);
  x.clear();
  const prism::SolveReport r = s.solve(prism::test::random_vector(poisson.rows, 1), x);
  EXPECT_EQ(r.preconditioner, "ic0");
  EXPECT_EQ(choice_line(r),
            "preconditioner: auto chose ic0 (no node blocks: every row its own; no lines: 4.4% of "
            "the rows have one or two dominant couplings; line_ic needs 90% of the rows in "
            "lines)");
  s.refactor(prism::test::scaled_and_shifted(poisson, 2.0, 0.5));
  x.clear();
  EXPECT_EQ(s.solve(prism::test::random_vector(poisson.rows, 1), x).preconditioner, "ic0");
}

// The plan: the choice first, then the ordering for both candidates, then the chosen
// type's own choices.
TEST(AutoPreconditioner, PlanExplainsTheChoiceAndTheOrdering) {
  const prism::SolveReport r = solve(config(), prism::elasticity3d(4, 3, 3, 1, {1.0})).report;
  ASSERT_GE(r.plan.size(), 2u);
  EXPECT_EQ(r.plan[1],
            "ordering: color (the ic0 or block_ic factor and solves run color by color)");
  bool blocks = false, factorization = false;
  for (const std::string& line : r.plan) {
    blocks = blocks || line.rfind("blocks: ", 0) == 0;
    factorization = factorization || line.rfind("block_ic.factorization: ", 0) == 0;
  }
  EXPECT_TRUE(blocks);
  EXPECT_TRUE(factorization);
}

// block_ic's options are checked with auto as with block_ic, since auto may pick it.
TEST(AutoPreconditioner, ChecksTheOptionsOfBothTypes) {
  for (const char* type : {"auto", "block_ic"}) {
    prism::SolverConfig c = config(type);
    c.preconditioner.trisolve = prism::TrisolveAlgorithm::reference;
    c.preconditioner.block_ic.precision = prism::Precision::mixed;
    EXPECT_THROW(prism::Solver{c}, prism::ConfigError) << type;
    c.preconditioner.block_ic.precision = prism::Precision::fp64;
    c.preconditioner.block_ic.factorization = prism::Ic0Factorization::backend;
    EXPECT_THROW(prism::Solver{c}, prism::ConfigError) << type;
    c.preconditioner.block_ic.factorization = prism::Ic0Factorization::automatic;
    c.preconditioner.ic0.precision = prism::Precision::mixed;
    EXPECT_THROW(prism::Solver{c}, prism::ConfigError) << type;
  }
  prism::SolverConfig ic0 = config("ic0");  // block_ic's options do not concern ic0
  ic0.preconditioner.trisolve = prism::TrisolveAlgorithm::reference;
  ic0.preconditioner.block_ic.precision = prism::Precision::mixed;
  EXPECT_NO_THROW(prism::Solver{ic0});
}

}  // namespace
