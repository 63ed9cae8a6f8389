// preconditioner.type auto, the default: block_ic where the pattern has node blocks of 2
// rows or more on average (or block_ic.block_size >= 2 is given) and the options let it
// run, else ic0; the report names the type it chose and the plan says why. Whole solves
// against Eigen run with every type in test_pcg.cpp (PcgMatchesEigen, auto_*).

#include <prism/errors.hpp>
#include <prism/generators.hpp>
#include <prism/solver.hpp>

#include "common/test_matrices.hpp"

#include <gtest/gtest.h>

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

/// Rows 0 and 1 coupled to each other only (one node block of 2), then a chain of 8 rows
/// (blocks of 1): 9 blocks of 10 rows, 1.11 on average.
CsrMatrix<double> one_pair_and_a_chain() {
  std::vector<prism::Triplet> t{{0, 0, 4.0}, {0, 1, -1.0}, {1, 0, -1.0}, {1, 1, 4.0}};
  for (prism::index_t i = 2; i < 10; ++i) {
    t.push_back({i, i, 4.0});
    if (i + 1 < 10) {
      t.push_back({i, i + 1, -1.0});
      t.push_back({i + 1, i, -1.0});
    }
  }
  return prism::csr_from_triplets(10, 10, std::move(t));
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
  expect_auto_chooses(config(), prism::poisson3d(9, 8, 7), "ic0",
                      "no node blocks: every row its own");
  expect_auto_chooses(config(), prism::test::random_symmetric(300, 900, 5), "ic0",
                      "no node blocks: every row its own");
  expect_auto_chooses(config(), one_pair_and_a_chain(), "ic0",
                      "node blocks of 1.11 rows on average, found from the pattern; block_ic "
                      "needs 2");
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
  EXPECT_EQ(choice_line(r), "preconditioner: auto chose ic0 (no node blocks: every row its own)");
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
