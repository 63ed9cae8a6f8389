// Whole solves against an independent answer (Eigen's SimplicialLLT) and the true
// residual, for every preconditioner and both orderings, written once for all.

#include <prism/errors.hpp>
#include <prism/generators.hpp>
#include <prism/solver.hpp>

#include "common/host_threads.hpp"
#include "common/param_names.hpp"
#include "common/test_matrices.hpp"

#include <gtest/gtest.h>
#include <Eigen/SparseCholesky>

#include <cmath>
#include <limits>
#include <random>
#include <tuple>

namespace {

using prism::CsrMatrix;
using prism::index_t;

struct Case {
  std::string name;
  CsrMatrix<double> a;
};

std::vector<Case> cases() {
  std::vector<Case> out;
  out.push_back({"poisson2d_31x17", prism::poisson2d(31, 17)});
  out.push_back({"poisson3d_9x10x11", prism::poisson3d(9, 10, 11)});
  out.push_back({"poisson3d27_7x6x5", prism::poisson3d(7, 6, 5, 27)});
  out.push_back({"anisotropic2d", prism::anisotropic2d(20, 20, 1.0, 100.0)});
  out.push_back({"layered3d", prism::layered(8, 8, 8, 4, {1.0, 1000.0})});
  out.push_back({"elasticity3d", prism::elasticity3d(4, 3, 5, 5, {1.0, 100.0})});
  out.push_back({"n1", prism::poisson2d(1, 1)});
  out.push_back(
      {"bcsstk08", prism::read_matrix_market(std::string(PRISM_TEST_DATA_DIR) + "/bcsstk08.mtx")});
  out.push_back(
      {"1138_bus_laplacian", prism::test::graph_laplacian_plus_identity(prism::read_matrix_market(
                                 std::string(PRISM_TEST_DATA_DIR) + "/1138_bus.mtx"))});
  return out;
}

using prism::test::random_vector;

prism::SolverConfig config(const std::string& precond, prism::Ordering ordering) {
  prism::SolverConfig c;
  c.backend = prism::BackendKind::cpu;
  c.preconditioner.type = precond;
  c.preconditioner.ordering = ordering;
  c.solver.tolerance = 1e-10;
  c.solver.max_iterations = 20000;
  return c;
}

class PcgMatchesEigen : public ::testing::TestWithParam<std::tuple<std::string, prism::Ordering>> {
};

TEST_P(PcgMatchesEigen, OnEveryMatrix) {
  const auto& [precond, ordering] = GetParam();
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    const index_t n = c.a.rows;
    const std::vector<double> b = random_vector(n, 11);
    const std::vector<double> b_copy = b;

    Eigen::SimplicialLLT<Eigen::SparseMatrix<double>> llt(prism::test::to_eigen(c.a));
    ASSERT_EQ(llt.info(), Eigen::Success);
    const Eigen::VectorXd exact = llt.solve(prism::test::to_eigen(b));

    prism::Solver solver(config(precond, ordering));
    solver.setup(c.a);
    std::vector<double> x;
    const prism::SolveReport r = solver.solve(b, x);

    EXPECT_EQ(b, b_copy) << "b must be untouched";
    ASSERT_TRUE(r.converged()) << prism::status_name(r.status) << " after " << r.iterations;
    EXPECT_LE(r.relative_residual, 1e-10);
    const double true_res = prism::test::relative_residual(c.a, x, b);
    EXPECT_NEAR(r.true_relative_residual, true_res, 1e-12 + 1e-6 * true_res);
    EXPECT_LE(true_res, 1e-8);
    const double err = (prism::test::to_eigen(x) - exact).norm() / exact.norm();
    // Forward error <= cond(A) * residual; these matrices have cond(A) <= ~1e7.
    EXPECT_LE(err, 1e-3) << "relative error against Eigen's direct solve";
    EXPECT_EQ(r.history.size(), static_cast<std::size_t>(r.iterations) + 1);
  }
}

INSTANTIATE_TEST_SUITE_P(AllPreconditioners, PcgMatchesEigen,
                         prism::test::all_preconditioners_and_orderings(),
                         prism::test::precond_ordering_name);

TEST(Pcg, IcPreconditionerNeedsFewerIterationsThanJacobiAndNone) {
  const CsrMatrix<double> a = prism::poisson3d(24, 24, 24);
  const std::vector<double> b(static_cast<std::size_t>(a.rows), 1.0);
  auto iterations = [&](const std::string& p, prism::Ordering o) {
    prism::Solver s(config(p, o));
    s.setup(a);
    std::vector<double> x;
    return s.solve(b, x).iterations;
  };
  const int none = iterations("none", prism::Ordering::natural);
  const int ic_natural = iterations("ic0", prism::Ordering::natural);
  const int ic_color = iterations("ic0", prism::Ordering::color);
  EXPECT_LT(ic_natural, none);
  EXPECT_LT(ic_color, none);
  // The multicolor penalty: red-black IC(0) converges slower than natural IC(0).
  EXPECT_GE(ic_color, ic_natural);
}

TEST(Pcg, ColorOrderingReportsAValidPartition) {
  const CsrMatrix<double> a = prism::poisson2d(40, 30);
  prism::Solver s(config("ic0", prism::Ordering::color));
  s.setup(a);
  std::vector<double> x;
  const prism::SolveReport r = s.solve(std::vector<double>(1200, 1.0), x);
  EXPECT_EQ(r.ordering.ordering, "color");
  EXPECT_EQ(r.ordering.colors.count, 2);  // red-black
  EXPECT_EQ(r.ordering.levels.count, 2);  // in color order the lower solve has 2 levels
  EXPECT_DOUBLE_EQ(r.ordering.colors.phi, 600.0);
}

// ordering: auto colors for ic0 only; jacobi and none keep the user's order (a coloring
// would only cost set-up and the SpMV's locality), and an explicit choice is kept.
TEST(Pcg, AutomaticOrderingColorsOnlyForIc0) {
  const CsrMatrix<double> a = prism::poisson2d(40, 30);
  const auto ordering_of = [&](const std::string& precond, prism::Ordering ordering) {
    prism::Solver s(config(precond, ordering));
    s.setup(a);
    std::vector<double> x;
    return s.solve(std::vector<double>(1200, 1.0), x).ordering.ordering;
  };
  EXPECT_EQ(ordering_of("ic0", prism::Ordering::automatic), "color");
  EXPECT_EQ(ordering_of("jacobi", prism::Ordering::automatic), "natural");
  EXPECT_EQ(ordering_of("none", prism::Ordering::automatic), "natural");
  EXPECT_EQ(ordering_of("jacobi", prism::Ordering::color), "color");
  EXPECT_EQ(ordering_of("ic0", prism::Ordering::natural), "natural");
  prism::PreconditionerOptions options;
  EXPECT_EQ(options.ordering, prism::Ordering::automatic);
  EXPECT_EQ(prism::resolved_ordering(options), prism::Ordering::color);
  options.type = "jacobi";
  EXPECT_EQ(prism::resolved_ordering(options), prism::Ordering::natural);
}

TEST(Pcg, InitialGuessIsUsedAndExactGuessNeedsNoIteration) {
  const CsrMatrix<double> a = prism::poisson2d(12, 12);
  std::vector<double> ones(144, 1.0), b(144);
  const Eigen::VectorXd eb = prism::test::to_eigen(a) * prism::test::to_eigen(ones);
  for (int i = 0; i < 144; ++i) b[i] = eb[i];
  prism::Solver s(config("ic0", prism::Ordering::color));
  s.setup(a);
  std::vector<double> x = ones;
  const prism::SolveReport r = s.solve(b, x);
  EXPECT_TRUE(r.converged());
  EXPECT_EQ(r.iterations, 0);
  EXPECT_EQ(x, ones);
}

TEST(Pcg, ZeroRightHandSideGivesZeroSolution) {
  const CsrMatrix<double> a = prism::poisson2d(5, 5);
  prism::Solver s(config("ic0", prism::Ordering::natural));
  s.setup(a);
  std::vector<double> x(25, 3.0);
  const prism::SolveReport r = s.solve(std::vector<double>(25, 0.0), x);
  EXPECT_TRUE(r.converged());
  EXPECT_EQ(x, std::vector<double>(25, 0.0));
}

// Iterations past the converged one (check_every > 1) drive the residual to exactly 0, and
// with it (r, z) and (p, A p): the verdict at the check is convergence, not breakdown.
TEST(Pcg, ExactSolutionBetweenChecksIsConvergence) {
  const CsrMatrix<double> a = prism::csr_from_triplets(1, 1, {{0, 0, 4.0}});
  for (auto timing : {prism::TimingMode::phases, prism::TimingMode::total}) {
    prism::SolverConfig c = config("jacobi", prism::Ordering::natural);
    c.solver.check_every = 2;
    c.solver.timing = timing;
    prism::Solver s(c);
    s.setup(a);
    std::vector<double> x;
    const prism::SolveReport r = s.solve({8.0}, x);
    EXPECT_EQ(r.status, prism::SolveStatus::converged);
    EXPECT_EQ(x, std::vector<double>{2.0});
  }
}

TEST(Pcg, EmptyMatrixIsAnErrorNotAConvergedSolve) {
  prism::Solver s(config("jacobi", prism::Ordering::natural));
  EXPECT_THROW(s.setup(CsrMatrix<double>{}), prism::InvalidMatrixError);
}

TEST(Pcg, IterationLimitIsAStatusNotAnException) {
  const CsrMatrix<double> a = prism::poisson2d(30, 30);
  prism::SolverConfig c = config("none", prism::Ordering::natural);
  c.solver.max_iterations = 3;
  prism::Solver s(c);
  s.setup(a);
  std::vector<double> x;
  const prism::SolveReport r = s.solve(std::vector<double>(900, 1.0), x);
  EXPECT_EQ(r.status, prism::SolveStatus::max_iterations);
  EXPECT_EQ(r.iterations, 3);
}

TEST(Pcg, IndefiniteMatrixIsReportedAsBreakdown) {
  // Symmetric with a positive diagonal but indefinite: p'Ap <= 0 appears.
  const CsrMatrix<double> a =
      prism::csr_from_triplets(2, 2, {{0, 0, 1.0}, {0, 1, 2.0}, {1, 0, 2.0}, {1, 1, 1.0}});
  prism::Solver s(config("none", prism::Ordering::natural));
  s.setup(a);
  std::vector<double> x;
  const prism::SolveReport r = s.solve({1.0, -1.0}, x);
  EXPECT_EQ(r.status, prism::SolveStatus::breakdown);
}

TEST(Pcg, RefactorEqualsFreshSetup) {
  CsrMatrix<double> a = prism::poisson3d(8, 7, 6);
  const std::vector<double> b = random_vector(a.rows, 5);
  prism::Solver reused(config("ic0", prism::Ordering::color));
  reused.setup(a);
  std::vector<double> x0;
  reused.solve(b, x0);
  for (index_t i = 0; i < a.rows; ++i) {
    for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
      a.values[k] = 3.0 * a.values[k] + (a.col_idx[k] == i ? 0.5 : 0.0);
    }
  }
  reused.refactor(a);
  std::vector<double> x_reused;
  const prism::SolveReport r1 = reused.solve(b, x_reused);

  prism::Solver fresh(config("ic0", prism::Ordering::color));
  fresh.setup(a);
  std::vector<double> x_fresh;
  const prism::SolveReport r2 = fresh.solve(b, x_fresh);
  EXPECT_EQ(r1.iterations, r2.iterations);
  EXPECT_EQ(x_reused, x_fresh);
  EXPECT_EQ(reused.setup_report().coloring_seconds, 0.0) << "refactor must not recolor";
}

/// New values on the pattern of `a`: scaled, with a larger diagonal.
CsrMatrix<double> new_values(CsrMatrix<double> a) {
  for (index_t i = 0; i < a.rows; ++i) {
    for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
      a.values[k] = 3.0 * a.values[k] + (a.col_idx[k] == i ? 0.5 : 0.0);
    }
  }
  return a;
}

// The host's set-up work runs in parts on host threads (checks, coloring's permutation,
// the reordered values, the IC(0) pattern and the triangles' split): a problem large
// enough for several parts gives the same solution, bit for bit, on 1 and on 5 threads,
// after set-up and after refactor().
TEST(Pcg, HostThreadsGiveTheSameSolution) {
  const CsrMatrix<double> a = prism::poisson3d(40, 40, 30, 27);  // 48k rows, 1.2M entries
  const CsrMatrix<double> a2 = new_values(a);
  const std::vector<double> b = random_vector(a.rows, 8);
  std::vector<std::vector<double>> solutions;
  for (const int threads : {1, 5}) {
    const prism::test::ScopedHostThreads scoped(threads);
    prism::Solver solver(config("ic0", prism::Ordering::color));
    solver.setup(a);
    std::vector<double> x;
    EXPECT_TRUE(solver.solve(b, x).converged());
    solutions.push_back(x);
    solver.refactor(a2);
    EXPECT_TRUE(solver.solve(b, x).converged());
    solutions.push_back(x);
  }
  EXPECT_EQ(solutions[0], solutions[2]);
  EXPECT_EQ(solutions[1], solutions[3]);
  EXPECT_NE(solutions[0], solutions[1]);
}

// Values handed over in the backend's memory (host memory on the cpu) give the very
// refactor() that the same values in a CsrMatrix give, for every way to factor.
TEST(Pcg, RefactorOnBackendEqualsRefactor) {
  const CsrMatrix<double> a = prism::poisson3d(8, 7, 6);
  const CsrMatrix<double> a2 = new_values(a);
  const std::vector<double> b = random_vector(a.rows, 9);
  struct Path {
    std::string precond;
    prism::Ordering ordering;
    prism::Ic0Factorization factorization;
  };
  for (const Path& path : std::vector<Path>{
           {"none", prism::Ordering::natural, prism::Ic0Factorization::automatic},
           {"jacobi", prism::Ordering::color, prism::Ic0Factorization::automatic},
           {"ic0", prism::Ordering::color, prism::Ic0Factorization::host},     // through the host
           {"ic0", prism::Ordering::color, prism::Ic0Factorization::backend},  // the backend's
           {"ic0", prism::Ordering::natural, prism::Ic0Factorization::backend}}) {
    SCOPED_TRACE(path.precond + " " + std::string(prism::to_string(path.ordering)) + " " +
                 std::string(prism::to_string(path.factorization)));
    prism::SolverConfig c = config(path.precond, path.ordering);
    c.preconditioner.ic0.factorization = path.factorization;
    prism::Solver host(c), backend(c);
    host.setup(a);
    backend.setup(a);
    host.refactor(a2);
    backend.refactor_on_backend(a2.values.data(), a2.values.size());
    std::vector<double> xh, xb;
    const prism::SolveReport rh = host.solve(b, xh);
    const prism::SolveReport rb = backend.solve(b, xb);
    ASSERT_TRUE(rb.converged());
    EXPECT_EQ(rb.iterations, rh.iterations);
    EXPECT_EQ(xb, xh);
    EXPECT_EQ(backend.setup_report().coloring_seconds, 0.0) << "refactor must not recolor";
  }
}

TEST(Pcg, RefactorOnBackendRejectsBadValuesLikeRefactor) {
  const CsrMatrix<double> a = prism::poisson2d(6, 5);
  prism::SolverConfig c = config("ic0", prism::Ordering::color);
  c.preconditioner.ic0.factorization = prism::Ic0Factorization::backend;
  prism::Solver s(c);
  EXPECT_THROW(s.refactor_on_backend(a.values.data(), a.values.size()), prism::Error)
      << "before setup";
  s.setup(a);
  EXPECT_THROW(s.refactor_on_backend(a.values.data(), a.values.size() - 1),
               prism::InvalidMatrixError);
  EXPECT_THROW(s.refactor_on_backend(nullptr, a.values.size()), prism::InvalidMatrixError);
  auto message = [](const auto& call) {
    try {
      call();
    } catch (const prism::InvalidMatrixError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const index_t off = a.row_ptr[3];  // an off-diagonal entry of row 4 (the first is (4, 3))
  ASSERT_NE(a.col_idx[off], 3);
  index_t diag = a.row_ptr[7];
  while (a.col_idx[diag] != 7) ++diag;
  for (const auto& [what, entry, value] : std::vector<std::tuple<std::string, index_t, double>>{
           {"asymmetric", off, a.values[off] * (1.0 + 1e-6)},
           {"not finite", off, std::nan("")},
           {"diagonal not positive", diag, -1.0}}) {
    SCOPED_TRACE(what);
    CsrMatrix<double> bad = a;
    bad.values[entry] = value;
    const std::string expected = message([&] { s.refactor(bad); });
    EXPECT_NE(expected, "no error");
    EXPECT_EQ(message([&] { s.refactor_on_backend(bad.values.data(), bad.values.size()); }),
              expected);
  }
  // Asymmetry within the tolerance (1e-12 of the largest entry) is accepted.
  CsrMatrix<double> close = a;
  close.values[off] *= 1.0 + 1e-14;
  EXPECT_NO_THROW(s.refactor_on_backend(close.values.data(), close.values.size()));
  std::vector<double> x;
  EXPECT_TRUE(s.solve(std::vector<double>(a.rows, 1.0), x).converged());
}

TEST(Pcg, RefactorRejectsADifferentPattern) {
  prism::Solver s(config("ic0", prism::Ordering::natural));
  s.setup(prism::poisson2d(4, 4));
  EXPECT_THROW(s.refactor(prism::poisson2d(4, 5)), prism::InvalidMatrixError);
  EXPECT_THROW(s.refactor(prism::poisson3d(2, 2, 4, 27)), prism::InvalidMatrixError);
}

TEST(Pcg, BadInputsThrowTypedErrors) {
  prism::Solver s(config("ic0", prism::Ordering::natural));
  std::vector<double> x;
  EXPECT_THROW(s.solve({1.0}, x), prism::Error) << "solve before setup";
  // Unsymmetric matrix.
  EXPECT_THROW(s.setup(prism::csr_from_triplets(2, 2, {{0, 0, 1.0}, {0, 1, 1.0}, {1, 1, 1.0}})),
               prism::InvalidMatrixError);
  s.setup(prism::poisson2d(3, 3));
  EXPECT_THROW(s.solve(std::vector<double>(8, 1.0), x), prism::InvalidMatrixError);
  x.assign(5, 0.0);
  EXPECT_THROW(s.solve(std::vector<double>(9, 1.0), x), prism::InvalidMatrixError);
}

TEST(Pcg, CheckingEveryKIterationsRecordsOnlyThoseAndStillConverges) {
  const CsrMatrix<double> a = prism::poisson2d(40, 40);
  const std::vector<double> b = random_vector(a.rows, 3);
  prism::SolverConfig c = config("ic0", prism::Ordering::color);
  prism::Solver every(c);
  every.setup(a);
  std::vector<double> x1;
  const prism::SolveReport r1 = every.solve(b, x1);

  c.solver.check_every = 7;
  prism::Solver sparse(c);
  sparse.setup(a);
  std::vector<double> x7;
  const prism::SolveReport r7 = sparse.solve(b, x7);
  ASSERT_TRUE(r7.converged());
  EXPECT_EQ(r7.iterations % 7, 0);
  EXPECT_GE(r7.iterations, r1.iterations);
  EXPECT_LT(r7.iterations, r1.iterations + 7);
  EXPECT_EQ(r7.history.size(), static_cast<std::size_t>(r7.iterations / 7) + 1);
  for (std::size_t i = 1; i < r7.history.size(); ++i) {
    EXPECT_EQ(r7.history[i].iteration, static_cast<int>(7 * i));
  }
  EXPECT_LE(prism::test::relative_residual(a, x7, b), 1e-9);
}

// With the factor from the host the solves are the same in both timing modes, bit for
// bit (a factor from the backend's threads folds (r, z) into the solves under total).
TEST(Pcg, TimingTotalRecordsNoPhasesButSameIterations) {
  const CsrMatrix<double> a = prism::poisson3d(10, 10, 10);
  const std::vector<double> b = random_vector(a.rows, 9);
  prism::SolverConfig c = config("ic0", prism::Ordering::color);
  c.preconditioner.ic0.factorization = prism::Ic0Factorization::host;
  c.solver.timing = prism::TimingMode::total;
  prism::Solver s(c);
  s.setup(a);
  std::vector<double> x;
  const prism::SolveReport r = s.solve(b, x);
  ASSERT_TRUE(r.converged());
  for (double t : r.phase_seconds) EXPECT_EQ(t, 0.0);
  EXPECT_GT(r.solve_seconds, 0.0);

  c.solver.timing = prism::TimingMode::phases;
  prism::Solver timed(c);
  timed.setup(a);
  std::vector<double> x2;
  EXPECT_EQ(timed.solve(b, x2).iterations, r.iterations);
  EXPECT_EQ(x, x2);
}

TEST(Pcg, ColorsetReferenceSolvesLikeRowByRowReference) {
  const CsrMatrix<double> a = prism::poisson3d(14, 13, 12);
  const std::vector<double> b = random_vector(a.rows, 4);
  prism::SolverConfig c = config("ic0", prism::Ordering::color);
  c.cpu_kernels = prism::CpuKernels::reference;  // whose trisolve auto is row by row
  prism::Solver reference(c);
  c.preconditioner.trisolve = prism::TrisolveAlgorithm::colorset;
  prism::Solver colorset(c);
  reference.setup(a);
  colorset.setup(a);
  std::vector<double> x1, x2;
  const prism::SolveReport r1 = reference.solve(b, x1);
  const prism::SolveReport r2 = colorset.solve(b, x2);
  EXPECT_EQ(r2.trisolve, "colorset");
  EXPECT_EQ(r1.trisolve, "reference");
  EXPECT_LE(std::abs(r1.iterations - r2.iterations), 1);
  EXPECT_LE(prism::test::relative_residual(a, x2, b), 1e-9);
}

TEST(Pcg, MixedPrecisionFactorConvergesLikeDouble) {
  const CsrMatrix<double> a = prism::poisson3d(14, 13, 12);
  const std::vector<double> b = random_vector(a.rows, 5);
  prism::SolverConfig c = config("ic0", prism::Ordering::color);
  prism::Solver full(c);
  c.preconditioner.ic0.precision = prism::Precision::mixed;
  prism::Solver mixed(c);
  c.preconditioner.ic0.factorization = prism::Ic0Factorization::backend;
  prism::Solver engine(c);
  full.setup(a);
  mixed.setup(a);
  engine.setup(a);
  std::vector<double> xf, xm, xe;
  const prism::SolveReport rf = full.solve(b, xf);
  const prism::SolveReport rm = mixed.solve(b, xm);
  const prism::SolveReport re = engine.solve(b, xe);
  ASSERT_TRUE(rm.converged());
  EXPECT_EQ(rm.precision, "mixed");
  EXPECT_EQ(rm.trisolve, "colorset");  // auto picks the solve that has the float factor
  EXPECT_EQ(rf.precision, "double");
  EXPECT_LE(std::abs(rm.iterations - rf.iterations), 2);
  EXPECT_LE(prism::test::relative_residual(a, xm, b), 1e-9);
  EXPECT_NE(xm, xf);  // the factor really was rounded
  // The host factor and the factorization engine round the same double factor; the
  // engine also forms (r, z) as |L^{-1} r|^2, which rounds differently from the dot.
  EXPECT_LE(std::abs(re.iterations - rm.iterations), 1);
  EXPECT_LE(prism::test::relative_residual(a, xe, b), 1e-9);
  // Modeled traffic: 4 instead of 8 value bytes per factor entry.
  const int lower = static_cast<int>(prism::Phase::lower_solve);
  EXPECT_LT(rm.phase_bytes[lower] / rm.iterations, rf.phase_bytes[lower] / rf.iterations);
}

TEST(Pcg, MixedPrecisionNeedsTheColorsetSolve) {
  prism::SolverConfig c = config("ic0", prism::Ordering::color);
  c.preconditioner.ic0.precision = prism::Precision::mixed;
  c.preconditioner.trisolve = prism::TrisolveAlgorithm::reference;
  EXPECT_THROW(prism::Solver{c}, prism::ConfigError);
}

TEST(Pcg, GraphOnIsAConfigErrorOnTheCpuAndWithPhaseTiming) {
  const CsrMatrix<double> a = prism::poisson2d(10, 10);
  const std::vector<double> b(a.rows, 1.0);
  prism::SolverConfig c = config("jacobi", prism::Ordering::natural);
  c.solver.graph = prism::GraphMode::on;
  c.solver.timing = prism::TimingMode::total;
  prism::Solver cpu(c);
  cpu.setup(a);
  std::vector<double> x;
  EXPECT_THROW(cpu.solve(b, x), prism::ConfigError);  // the cpu backend records no graphs
  c.solver.timing = prism::TimingMode::phases;        // graph: on needs timing: total
  EXPECT_THROW(prism::Solver{c}, prism::ConfigError);
  // auto: plain launches on the cpu.
  c.solver.graph = prism::GraphMode::automatic;
  c.solver.timing = prism::TimingMode::total;
  prism::Solver automatic(c);
  automatic.setup(a);
  const prism::SolveReport r = automatic.solve(b, x);
  EXPECT_TRUE(r.converged());
  EXPECT_FALSE(r.graph);
}

// graph: loop on the cpu runs the device loop's logic on the host: it must stop where the
// host check with check_every 1 stops, for the same reason, with the same history.
TEST(Pcg, LoopStopsWhereTheHostCheckStops) {
  struct Run {
    std::string name;
    CsrMatrix<double> a;
    std::vector<double> b;
    std::string precond;
    int max_iterations;
    prism::SolveStatus status;
  };
  const CsrMatrix<double> p3 = prism::poisson3d(9, 10, 11);
  const CsrMatrix<double> indefinite =
      prism::csr_from_triplets(2, 2, {{0, 0, 1.0}, {0, 1, 2.0}, {1, 0, 2.0}, {1, 1, 1.0}});
  const std::vector<Run> runs{
      {"ic0 converges", p3, random_vector(p3.rows, 4), "ic0", 1000, prism::SolveStatus::converged},
      {"jacobi converges", p3, random_vector(p3.rows, 5), "jacobi", 1000,
       prism::SolveStatus::converged},
      {"iteration limit", p3, random_vector(p3.rows, 6), "none", 7,
       prism::SolveStatus::max_iterations},
      {"limit of 2: one loop pass", p3, random_vector(p3.rows, 7), "none", 2,
       prism::SolveStatus::max_iterations},
      {"breakdown", indefinite, {1.0, -1.0}, "none", 1000, prism::SolveStatus::breakdown}};
  for (const Run& run : runs) {
    SCOPED_TRACE(run.name);
    prism::SolverConfig c = config(run.precond, prism::Ordering::color);
    c.solver.max_iterations = run.max_iterations;
    c.solver.timing = prism::TimingMode::total;
    c.solver.graph = prism::GraphMode::off;
    prism::Solver host(c);
    c.solver.graph = prism::GraphMode::loop;
    c.solver.check_every = 5;  // no effect on the loop: it tests every iteration
    prism::Solver loop(c);
    host.setup(run.a);
    loop.setup(run.a);
    std::vector<double> xh, xl;
    const prism::SolveReport rh = host.solve(run.b, xh);
    const prism::SolveReport rl = loop.solve(run.b, xl);
    EXPECT_EQ(rh.status, run.status);
    EXPECT_EQ(rl.status, rh.status);
    EXPECT_TRUE(rl.device_loop);
    EXPECT_FALSE(rh.device_loop);
    EXPECT_EQ(rl.iterations, rh.iterations);
    EXPECT_EQ(rl.relative_residual, rh.relative_residual);
    ASSERT_EQ(rl.history.size(), rh.history.size());
    for (std::size_t i = 0; i < rh.history.size(); ++i) {
      EXPECT_EQ(rl.history[i].iteration, rh.history[i].iteration);
      EXPECT_EQ(rl.history[i].residual_norm, rh.history[i].residual_norm);
    }
    EXPECT_EQ(xl, xh);
    EXPECT_EQ(rl.phase_bytes, rh.phase_bytes);
  }
}

TEST(Pcg, LoopNeedsTotalTimingAndABoundedIterationCount) {
  prism::SolverConfig c = config("jacobi", prism::Ordering::natural);
  c.solver.graph = prism::GraphMode::loop;
  c.solver.timing = prism::TimingMode::phases;
  EXPECT_THROW(prism::Solver{c}, prism::ConfigError);
  c.solver.timing = prism::TimingMode::total;
  c.solver.max_iterations = std::numeric_limits<int>::max();  // a residual each: too many
  EXPECT_THROW(prism::Solver{c}, prism::ConfigError);
  // The same rules hold for options changed after construction.
  c.solver.max_iterations = 100;
  prism::Solver s(c);
  prism::SolverOptions phases = c.solver;
  phases.timing = prism::TimingMode::phases;
  EXPECT_THROW(s.set_solver_options(phases), prism::ConfigError);
}

// Level-cyclic coloring with at least as many colors as the natural order has levels
// keeps every coupling in natural-order direction: the factor is natural-order IC(0)
// (up to the summation order), so the iterations are natural order's. With few colors
// it is a valid multicolor order that converges.
TEST(Pcg, LevelCyclicColoringSpansNaturalToMulticolor) {
  const CsrMatrix<double> a = prism::poisson3d(12, 11, 10);  // 31 levels i + j + k
  const std::vector<double> b = random_vector(a.rows, 17);
  prism::Solver natural(config("ic0", prism::Ordering::natural));
  natural.setup(a);
  std::vector<double> xn;
  const prism::SolveReport rn = natural.solve(b, xn);
  for (int colors : {64, 8}) {
    SCOPED_TRACE(colors);
    prism::SolverConfig c = config("ic0", prism::Ordering::color);
    c.preconditioner.coloring.method = prism::ColoringMethod::level_cyclic;
    c.preconditioner.coloring.colors = colors;
    prism::Solver s(c);
    s.setup(a);
    std::vector<double> x;
    const prism::SolveReport r = s.solve(b, x);
    ASSERT_TRUE(r.converged());
    EXPECT_EQ(r.ordering.method, "level_cyclic");
    EXPECT_LE(prism::test::relative_residual(a, x, b), 1e-9);
    if (colors == 64) {
      EXPECT_EQ(r.ordering.colors.count, 31);  // empty colors dropped
      EXPECT_LE(std::abs(r.iterations - rn.iterations), 1);
    } else {
      EXPECT_EQ(r.ordering.colors.count, 8);
    }
  }
  prism::SolverConfig c = config("ic0", prism::Ordering::color);
  c.preconditioner.coloring.method = prism::ColoringMethod::level_cyclic;
  c.preconditioner.coloring.balance = true;
  EXPECT_THROW(prism::Solver{c}, prism::ConfigError);
}

TEST(Pcg, CpuBackendRejectsGpuOnlyTrisolve) {
  prism::SolverConfig c = config("ic0", prism::Ordering::natural);
  c.preconditioner.trisolve = prism::TrisolveAlgorithm::cusparse;
  prism::Solver s(c);
  EXPECT_THROW(s.setup(prism::poisson2d(4, 4)), prism::ConfigError);
}

TEST(Pcg, CudaBackendRequestFailsClearlyWithoutDevice) {
  if (prism::cuda_available()) GTEST_SKIP() << "a CUDA device is present";
  prism::SolverConfig c;
  c.backend = prism::BackendKind::cuda;
  EXPECT_THROW(prism::Solver{c}, prism::BackendError);
}

TEST(Pcg, PerIterationRecordsHaveTimesAndBytes) {
  const CsrMatrix<double> a = prism::poisson2d(50, 50);
  prism::Solver s(config("ic0", prism::Ordering::color));
  s.setup(a);
  std::vector<double> x;
  const prism::SolveReport r = s.solve(std::vector<double>(2500, 1.0), x);
  ASSERT_GT(r.iterations, 1);
  double sum = 0.0;
  for (const auto& rec : r.history) {
    for (double t : rec.seconds) {
      EXPECT_GE(t, 0.0);
      sum += t;
    }
  }
  EXPECT_GT(sum, 0.0);
  EXPECT_LE(sum, r.solve_seconds * 1.01 + 1e-6);
  // IC(0) is timed as its two triangular solves; `precond` is for the others.
  for (prism::Phase p : {prism::Phase::spmv, prism::Phase::lower_solve, prism::Phase::upper_solve,
                         prism::Phase::dot, prism::Phase::update}) {
    EXPECT_GT(r.phase_bytes[static_cast<int>(p)], 0.0) << prism::phase_name(p);
  }
  EXPECT_EQ(r.phase_bytes[static_cast<int>(prism::Phase::precond)], 0.0);
  // SpMV bytes per iteration: 12 B/nnz + 4 B/(row+1) + 16 B/row.
  EXPECT_DOUBLE_EQ(r.phase_bytes[0] / r.iterations, 12.0 * a.nnz() + 4.0 * 2501 + 16.0 * 2500);
}

}  // namespace
