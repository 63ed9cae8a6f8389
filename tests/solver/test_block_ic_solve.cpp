// block_ic through the Solver: its blocks (found or given), the block coloring, the
// report, and the options it refuses. Its solves against Eigen run with every other
// preconditioner in test_pcg.cpp (PcgMatchesEigen).

#include <prism/errors.hpp>
#include <prism/generators.hpp>
#include <prism/matrix_market.hpp>
#include <prism/solver.hpp>

#include "common/test_matrices.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace {

using prism::CsrMatrix;

prism::SolverConfig block_ic(int block_size) {
  prism::SolverConfig c;
  c.backend = prism::BackendKind::cpu;
  c.preconditioner.type = "block_ic";
  c.preconditioner.block_ic.block_size = block_size;
  c.solver.tolerance = 1e-10;
  return c;
}

prism::SolveReport solve(const prism::SolverConfig& c, const CsrMatrix<double>& a) {
  prism::Solver s(c);
  s.setup(a);
  std::vector<double> x;
  const prism::SolveReport r = s.solve(prism::test::random_vector(a.rows, 3), x);
  EXPECT_LE(prism::test::relative_residual(a, x, prism::test::random_vector(a.rows, 3)), 1e-9);
  return r;
}

const std::string* find_prefix(const std::vector<std::string>& lines, const std::string& prefix) {
  for (const std::string& line : lines) {
    if (line.rfind(prefix, 0) == 0) return &line;
  }
  return nullptr;
}

// Elasticity's nodes are found from the pattern: the same blocks as block_size 3, the
// same solve, and 8 block colors where ic0 colors 24 unknowns.
TEST(BlockIcSolve, NodeBlocksOfElasticityEqualBlockSizeThree) {
  const CsrMatrix<double> a = prism::elasticity3d(5, 4, 6, 2, {1.0, 100.0});
  const prism::SolveReport found = solve(block_ic(0), a);
  const prism::SolveReport given = solve(block_ic(3), a);
  ASSERT_TRUE(found.converged()) << found.diagnosis;
  EXPECT_EQ(found.iterations, given.iterations);
  EXPECT_EQ(found.relative_residual, given.relative_residual);
  EXPECT_EQ(found.ordering.colors.count, 8);
  const std::string* blocks = find_prefix(found.plan, "blocks: ");
  ASSERT_NE(blocks, nullptr);
  EXPECT_NE(blocks->find("of 3 rows (3 to 3; node blocks from the pattern)"), std::string::npos)
      << *blocks;
  prism::SolverConfig ic0 = block_ic(0);
  ic0.preconditioner.type = "ic0";
  EXPECT_GT(solve(ic0, a).ordering.colors.count, found.ordering.colors.count);
}

// A block size that does not divide the rows, blocks of one row, and the natural order.
TEST(BlockIcSolve, AwkwardBlockSizesAndOrders) {
  const CsrMatrix<double> a = prism::elasticity3d(4, 3, 3, 1, {1.0});
  for (const int size : {1, 2, 5, 7, 64}) {
    for (const prism::Ordering ordering : {prism::Ordering::color, prism::Ordering::natural}) {
      SCOPED_TRACE(std::to_string(size) + " " + std::string(prism::to_string(ordering)));
      prism::SolverConfig c = block_ic(size);
      c.preconditioner.ordering = ordering;
      const prism::SolveReport r = solve(c, a);
      EXPECT_TRUE(r.converged()) << r.diagnosis;
      EXPECT_EQ(r.preconditioner, "block_ic");
    }
  }
}

// Supernodes (in block-colored and in natural order): fewer, larger blocks, fewer
// iterations than the node blocks.
TEST(BlockIcSolve, SupernodesTakeFewerIterations) {
  const CsrMatrix<double> a = prism::elasticity3d(6, 5, 6, 2, {1.0, 100.0});
  const prism::SolveReport nodes = solve(block_ic(0), a);
  for (const prism::Ordering ordering : {prism::Ordering::color, prism::Ordering::natural}) {
    prism::SolverConfig c = block_ic(0);
    c.preconditioner.block_ic.supernode = 48;
    c.preconditioner.ordering = ordering;
    const prism::SolveReport r = solve(c, a);
    ASSERT_TRUE(r.converged()) << r.diagnosis;
    EXPECT_LT(r.iterations, nodes.iterations);
    const std::string* blocks = find_prefix(r.plan, "blocks: ");
    ASSERT_NE(blocks, nullptr);
    EXPECT_NE(blocks->find("supernodes of up to 48 rows"), std::string::npos) << *blocks;
  }
}

// Blocks of one row are IC(0): the same preconditioner through other operators (the
// inverted 1 x 1 blocks and a unit-diagonal triangle), so the same iterations up to
// rounding.
TEST(BlockIcSolve, BlocksOfOneRowIterateAsIc0) {
  for (const CsrMatrix<double>& a :
       {prism::poisson3d(9, 8, 7), prism::elasticity3d(4, 4, 3, 2, {1.0, 30.0})}) {
    for (const prism::Ordering ordering : {prism::Ordering::color, prism::Ordering::natural}) {
      prism::SolverConfig c = block_ic(1);
      c.preconditioner.ordering = ordering;
      const prism::SolveReport blocks = solve(c, a);
      c.preconditioner.type = "ic0";
      const prism::SolveReport ic0 = solve(c, a);
      ASSERT_TRUE(blocks.converged()) << blocks.diagnosis;
      EXPECT_EQ(blocks.factorization.shift, ic0.factorization.shift);
      EXPECT_EQ(blocks.ordering.colors.count, ic0.ordering.colors.count);
      // Rounding differs (a product with 1 / l_ii where ic0 divides by l_ii).
      EXPECT_LE(std::abs(blocks.iterations - ic0.iterations), 1) << a.rows;
    }
  }
}

// The factorization in the backend's memory (on the cpu backend: the kernels' reference,
// level by level) iterates as the host's, also with supernodes, a shift, and mixed
// precision; refactor_on_backend takes the same path.
TEST(BlockIcSolve, BackendFactorizationIteratesAsTheHosts) {
  const CsrMatrix<double> a = prism::elasticity3d(5, 4, 4, 2, {1.0, 100.0});
  for (const int supernode : {0, 12}) {
    for (const prism::Precision precision : {prism::Precision::fp64, prism::Precision::mixed}) {
      SCOPED_TRACE(std::to_string(supernode) + " " + std::string(prism::to_string(precision)));
      prism::SolverConfig c = block_ic(0);
      c.preconditioner.block_ic.supernode = supernode;
      c.preconditioner.block_ic.precision = precision;
      c.preconditioner.block_ic.factorization = prism::Ic0Factorization::host;
      const prism::SolveReport host = solve(c, a);
      c.preconditioner.block_ic.factorization = prism::Ic0Factorization::backend;
      const prism::SolveReport backend = solve(c, a);
      ASSERT_TRUE(backend.converged()) << backend.diagnosis;
      EXPECT_LE(std::abs(backend.iterations - host.iterations), 1);
      EXPECT_EQ(backend.factorization.shift, host.factorization.shift);

      prism::Solver s(c);
      s.setup(a);
      const CsrMatrix<double> scaled = prism::test::scaled_and_shifted(a, 3.0, 0.5);
      s.refactor_on_backend(scaled.values.data(), scaled.values.size());
      prism::Solver host_values(c);  // the same blocks (supernodes depend on the values)
      host_values.setup(a);
      host_values.refactor(scaled);
      std::vector<double> x1, x2;
      const std::vector<double> b = prism::test::random_vector(a.rows, 5);
      EXPECT_EQ(s.solve(b, x1).iterations, host_values.solve(b, x2).iterations);
      EXPECT_EQ(x1, x2);
    }
  }
}

// A matrix whose node blocks need the shift: the backend's ladder finds the host's shift.
TEST(BlockIcSolve, BackendFactorizationTakesTheShiftLadder) {
  const CsrMatrix<double> a =
      prism::read_matrix_market(std::string(PRISM_TEST_DATA_DIR) + "/bcsstk08.mtx");
  prism::SolverConfig c = block_ic(2);
  c.solver.max_iterations = 5000;
  c.preconditioner.block_ic.factorization = prism::Ic0Factorization::host;
  const prism::SolveReport host = solve(c, a);
  c.preconditioner.block_ic.factorization = prism::Ic0Factorization::backend;
  const prism::SolveReport backend = solve(c, a);
  EXPECT_EQ(backend.factorization.shift, host.factorization.shift);
  EXPECT_EQ(backend.factorization.retries, host.factorization.retries);
  EXPECT_LE(std::abs(backend.iterations - host.iterations), 2);
}

// solve: trsv applies the same factor as the inverted operators: the same iterations up to
// rounding (in double; mixed rounds other values), on both factorizations, with
// supernodes; and refactor_on_backend equals refactor.
TEST(BlockIcSolve, TrsvSolvesIterateAsTheInvertedOnes) {
  const CsrMatrix<double> a = prism::elasticity3d(5, 4, 4, 2, {1.0, 100.0});
  for (const int supernode : {0, 12}) {
    for (const prism::Precision precision : {prism::Precision::fp64, prism::Precision::mixed}) {
      for (const prism::Ic0Factorization where :
           {prism::Ic0Factorization::host, prism::Ic0Factorization::backend}) {
        SCOPED_TRACE(std::to_string(supernode) + " " + std::string(prism::to_string(precision)) +
                     " " + std::string(prism::to_string(where)));
        prism::SolverConfig c = block_ic(0);
        c.preconditioner.block_ic.supernode = supernode;
        c.preconditioner.block_ic.precision = precision;
        c.preconditioner.block_ic.factorization = where;
        const prism::SolveReport inverted = solve(c, a);
        c.preconditioner.block_ic.solve = prism::BlockIcSolve::trsv;
        const prism::SolveReport trsv = solve(c, a);
        ASSERT_TRUE(trsv.converged()) << trsv.diagnosis;
        // In mixed the two round different products to float (L_IJ, or L_II^{-1} L_IJ).
        const int slack = precision == prism::Precision::fp64 ? 1 : 2 + inverted.iterations / 5;
        EXPECT_LE(std::abs(trsv.iterations - inverted.iterations), slack);
        EXPECT_EQ(trsv.factorization.shift, inverted.factorization.shift);

        prism::Solver s(c);
        s.setup(a);
        const CsrMatrix<double> scaled = prism::test::scaled_and_shifted(a, 3.0, 0.5);
        s.refactor_on_backend(scaled.values.data(), scaled.values.size());
        prism::Solver again(c);
        again.setup(a);
        again.refactor(scaled);
        std::vector<double> x1, x2;
        const std::vector<double> b = prism::test::random_vector(a.rows, 5);
        EXPECT_EQ(s.solve(b, x1).iterations, again.solve(b, x2).iterations);
        EXPECT_EQ(x1, x2);
      }
    }
  }
}

// With trsv the trisolve key does not apply: mixed precision and the backend
// factorization take any trisolve.
TEST(BlockIcSolve, TrsvTakesAnyTrisolve) {
  prism::SolverConfig c = block_ic(0);
  c.preconditioner.trisolve = prism::TrisolveAlgorithm::reference;
  c.preconditioner.block_ic.precision = prism::Precision::mixed;
  c.preconditioner.block_ic.factorization = prism::Ic0Factorization::backend;
  EXPECT_THROW(prism::Solver{c}, prism::ConfigError);
  c.preconditioner.block_ic.solve = prism::BlockIcSolve::trsv;
  const prism::SolveReport r = solve(c, prism::elasticity3d(4, 3, 3, 1, {1.0}));
  EXPECT_TRUE(r.converged()) << r.diagnosis;
}

TEST(BlockIcSolve, RefusesColoringsItDoesNotHave) {
  prism::SolverConfig c = block_ic(0);
  c.preconditioner.coloring.method = prism::ColoringMethod::level_cyclic;
  EXPECT_THROW(prism::Solver{c}, prism::ConfigError);
  c = block_ic(0);
  c.preconditioner.coloring.balance = true;
  EXPECT_THROW(prism::Solver{c}, prism::ConfigError);
  c = block_ic(-1);
  EXPECT_THROW(prism::Solver{c}, prism::ConfigError);
}

}  // namespace
