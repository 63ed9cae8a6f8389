// The multi-column solve (Solver::solve with `columns`) on the cpu backend: each column's
// result is that of a one-column solve of it (timing: phases), bit for bit: iterations,
// status, residuals and x; on Poisson and elasticity, for every preconditioner (those that
// read their factor once for all columns and those that go column by column), with the
// reference and the threaded kernels; columns that stop at different iterations (a zero
// column at iteration 0, a tiny one under an absolute tolerance early, a broken one at
// once), residual replacements and stagnation, check_every and the iteration limit; the
// backend-memory path; bad input named.

#include <prism/errors.hpp>
#include <prism/generators.hpp>
#include <prism/matrix_market.hpp>
#include <prism/solver.hpp>

#include "common/test_matrices.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace {

using prism::CsrMatrix;
using prism::index_t;
using prism::test::random_vector;

prism::SolverConfig config(const std::string& type,
                           prism::CpuKernels kernels = prism::CpuKernels::threaded) {
  prism::SolverConfig c;
  c.backend = prism::BackendKind::cpu;
  c.cpu_kernels = kernels;
  c.solver.tolerance = 1e-10;
  c.preconditioner.type = type;
  return c;
}

/// k columns of n, column j from seed base + j.
std::vector<double> block(index_t n, int k, unsigned base) {
  std::vector<double> out;
  for (int j = 0; j < k; ++j) {
    const std::vector<double> c = random_vector(n, base + static_cast<unsigned>(j));
    out.insert(out.end(), c.begin(), c.end());
  }
  return out;
}

std::vector<double> column(const std::vector<double>& v, index_t n, int j) {
  return {v.begin() + static_cast<std::ptrdiff_t>(j) * n,
          v.begin() + static_cast<std::ptrdiff_t>(j + 1) * n};
}

/// Solves the k columns together and one by one; every column the same, bit for bit.
prism::MultiSolveReport expect_columns_equal_single_solves(prism::Solver& solver, index_t n,
                                                           const std::vector<double>& b,
                                                           const std::vector<double>& x0) {
  const int k = static_cast<int>(b.size() / static_cast<std::size_t>(n));
  std::vector<double> x = x0;
  const prism::MultiSolveReport multi = solver.solve(b, x, k);
  EXPECT_EQ(multi.columns, k);
  EXPECT_EQ(static_cast<int>(multi.column.size()), k);
  int most = 0;
  for (int j = 0; j < k; ++j) {
    SCOPED_TRACE("column " + std::to_string(j));
    std::vector<double> xj = column(x0, n, j);
    const prism::SolveReport single = solver.solve(column(b, n, j), xj);
    const prism::ColumnReport& c = multi.column[j];
    // Equal, or both NaN (a broken column's norms).
    const auto same = [](double x, double y) { return x == y || (std::isnan(x) && std::isnan(y)); };
    EXPECT_EQ(c.status, single.status);
    EXPECT_EQ(c.iterations, single.iterations);
    EXPECT_TRUE(same(c.rhs_norm, single.rhs_norm)) << "rhs_norm";
    EXPECT_TRUE(same(c.initial_residual_norm, single.initial_residual_norm))
        << "initial_residual_norm";
    EXPECT_TRUE(same(c.relative_residual, single.relative_residual)) << "relative_residual";
    EXPECT_TRUE(same(c.true_relative_residual, single.true_relative_residual))
        << "true_relative_residual";
    EXPECT_EQ(c.residual_replacements, single.residual_replacements);
    EXPECT_EQ(c.diagnosis, single.diagnosis);
    EXPECT_EQ(c.history.size(), single.history.size());
    for (std::size_t h = 0; h < c.history.size() && h < single.history.size(); ++h) {
      EXPECT_EQ(c.history[h].iteration, single.history[h].iteration);
      EXPECT_TRUE(same(c.history[h].residual_norm, single.history[h].residual_norm));
    }
    const std::vector<double> got = column(x, n, j);
    index_t differ = 0;  // bit for bit (a NaN matching a NaN)
    for (index_t i = 0; i < n; ++i) {
      if (!(got[i] == xj[i] || (std::isnan(got[i]) && std::isnan(xj[i])))) ++differ;
    }
    EXPECT_EQ(differ, 0) << "entries of x differ";
    most = std::max(most, single.iterations);
  }
  EXPECT_EQ(multi.iterations, most);
  return multi;
}

TEST(MultiRhs, EachColumnEqualsItsSingleSolve) {
  struct Problem {
    const char* name;
    CsrMatrix<double> a;
  };
  const Problem problems[] = {{"poisson3d", prism::poisson3d(11, 9, 8)},
                              {"elasticity3d", prism::elasticity3d(4, 3, 3, 1, {1.0})}};
  struct Type {
    const char* name;
    bool reads_once;
  };
  const Type types[] = {{"ic0", true},       {"jacobi", true},   {"none", true},
                        {"block_ic", false}, {"line_ic", false}, {"line_jacobi", false}};
  for (const Problem& p : problems) {
    for (const Type& t : types) {
      for (const auto kernels : {prism::CpuKernels::threaded, prism::CpuKernels::reference}) {
        SCOPED_TRACE(std::string(p.name) + ", " + t.name +
                     (kernels == prism::CpuKernels::reference ? ", reference" : ", threaded"));
        prism::Solver solver(config(t.name, kernels));
        solver.setup(p.a);
        const index_t n = p.a.rows;
        for (int k : {1, 3, 8}) {
          const prism::MultiSolveReport r =
              expect_columns_equal_single_solves(solver, n, block(n, k, 10), block(n, k, 40));
          EXPECT_TRUE(r.converged());
          // ic0 on the reference kernels takes the row-by-row reference solves, which go
          // column by column.
          const bool row_by_row =
              std::string(t.name) == "ic0" && kernels == prism::CpuKernels::reference;
          EXPECT_EQ(r.preconditioner_reads_once, t.reads_once && !row_by_row);
          EXPECT_EQ(r.preconditioner, t.name);
        }
      }
    }
  }
}

// Where the threaded kernels' single solves read SELL copies (SpMV, color-set solves), the
// multi-column kernels read the CSR ones in the same entry order: still the same bits.
TEST(MultiRhs, EqualsSingleSolvesThatReadSell) {
  const CsrMatrix<double> a = prism::poisson3d(20, 20, 20);
  prism::Solver solver(config("ic0"));
  solver.setup(a);
  const index_t n = a.rows;
  std::vector<double> x(static_cast<std::size_t>(n), 0.0);
  const prism::SolveReport single = solver.solve(random_vector(n, 3), x);
  EXPECT_EQ(single.spmv, "sell");
  EXPECT_EQ(single.trisolve_layout, "sell");
  expect_columns_equal_single_solves(solver, n, block(n, 3, 10), block(n, 3, 40));
}

// A caller's preconditioner goes column by column: called once per active column and
// iteration, on pointers into the blocks; each column as its single solve.
TEST(MultiRhs, UserPreconditionerGoesColumnByColumn) {
  const CsrMatrix<double> a = prism::poisson3d(9, 8, 7);
  const index_t n = a.rows;
  std::vector<double> inverse_diagonal(static_cast<std::size_t>(n));
  for (index_t i = 0; i < n; ++i) {
    for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
      if (a.col_idx[k] == i) inverse_diagonal[i] = 1.0 / a.values[k];
    }
  }
  prism::Solver solver(config("user"));
  int calls = 0;
  solver.set_preconditioner_callback([&](const double* r, double* z, std::size_t size) {
    ++calls;
    for (std::size_t i = 0; i < size; ++i) z[i] = inverse_diagonal[i] * r[i];
  });
  solver.setup(a);
  const prism::MultiSolveReport r =
      expect_columns_equal_single_solves(solver, n, block(n, 3, 80), block(n, 3, 81));
  EXPECT_FALSE(r.preconditioner_reads_once);
  EXPECT_GT(calls, 3 * r.iterations);
}

// A zero column converges at iteration 0 (x = 0 exactly), a column scaled by 1e-6 under an
// absolute tolerance early, a column with a NaN breaks down at iteration 0; the others go
// on, each as its single solve.
TEST(MultiRhs, ColumnsStopAtDifferentIterations) {
  const CsrMatrix<double> a = prism::poisson3d(12, 10, 9);
  const index_t n = a.rows;
  for (const char* type : {"ic0", "jacobi", "block_ic"}) {
    SCOPED_TRACE(type);
    prism::SolverConfig c = config(type);
    c.solver.tolerance = 1e-9;
    c.solver.absolute_tolerance = 1e-12;
    prism::Solver solver(c);
    solver.setup(a);
    std::vector<double> b = block(n, 5, 70), x0 = block(n, 5, 90);
    const std::size_t m = static_cast<std::size_t>(n);
    for (std::size_t i = 0; i < m; ++i) {
      b[m + i] = 1e-6 * b[i];  // column 1: column 0 scaled by 1e-6
      x0[m + i] = 1e-6 * x0[i];
      b[2 * m + i] = x0[2 * m + i] = 0.0;  // column 2: zero
    }
    b[3 * m + 7] = std::numeric_limits<double>::quiet_NaN();  // column 3: broken
    const prism::MultiSolveReport r = expect_columns_equal_single_solves(solver, n, b, x0);
    EXPECT_EQ(r.column[2].status, prism::SolveStatus::converged);
    EXPECT_EQ(r.column[2].iterations, 0);
    EXPECT_EQ(r.column[3].status, prism::SolveStatus::breakdown);
    EXPECT_EQ(r.column[3].iterations, 0);
    EXPECT_FALSE(r.column[3].diagnosis.empty());
    EXPECT_TRUE(r.column[0].converged());
    EXPECT_TRUE(r.column[1].converged());
    EXPECT_TRUE(r.column[4].converged());
    EXPECT_LT(r.column[1].iterations, r.column[0].iterations);
    std::vector<double> x = x0;
    solver.solve(b, x, 5);
    for (index_t i = 0; i < n; ++i) EXPECT_EQ(x[2 * static_cast<std::size_t>(n) + i], 0.0);
  }
}

// A column with breakdown mid-way: A indefinite along it (a negative eigenvalue whose
// eigenvector only that column excites), the others converge.
TEST(MultiRhs, ColumnThatBreaksDownMidwayLeavesTheOthers) {
  // Diagonal blocks: rows [0, 10) an SPD tridiagonal block, rows [10, 20) the same block
  // shifted to be indefinite; column 0 lives in the first block, column 1 in both.
  std::vector<prism::Triplet> t;
  for (index_t block = 0; block < 2; ++block) {
    for (index_t i = 0; i < 10; ++i) {
      const index_t r = 10 * block + i;
      t.push_back({r, r, block == 0 ? 2.5 : (i % 2 == 0 ? 2.5 : -2.5)});
      if (i + 1 < 10) {
        t.push_back({r, r + 1, -1.0});
        t.push_back({r + 1, r, -1.0});
      }
    }
  }
  const CsrMatrix<double> a = prism::csr_from_triplets(20, 20, t);
  prism::SolverConfig c = config("none");
  c.solver.check = prism::MatrixCheck::pattern;  // a negative diagonal on purpose
  prism::Solver solver(c);
  solver.setup(a);
  std::vector<double> b(40, 0.0);
  for (index_t i = 0; i < 10; ++i) b[i] = 1.0 + i;
  for (index_t i = 0; i < 20; ++i) b[20 + i] = 1.0 + (i * 7) % 5;
  const prism::MultiSolveReport r =
      expect_columns_equal_single_solves(solver, 20, b, std::vector<double>(40, 0.0));
  EXPECT_TRUE(r.column[0].converged());
  EXPECT_EQ(r.column[1].status, prism::SolveStatus::breakdown);
  EXPECT_GT(r.column[1].iterations, 0);
}

// bcsstk08 at 1e-15: every column claims convergence, restarts from its true residual three
// times and stagnates, each as its single solve; the iteration limit and check_every too.
TEST(MultiRhs, ReplacementsStagnationLimitsAndCheckEveryAsSingleSolves) {
  const CsrMatrix<double> a =
      prism::read_matrix_market(std::string(PRISM_TEST_DATA_DIR) + "/bcsstk08.mtx");
  const index_t n = a.rows;
  {
    prism::SolverConfig c = config("ic0");
    c.solver.tolerance = 1e-15;
    prism::Solver solver(c);
    solver.setup(a);
    const prism::MultiSolveReport r =
        expect_columns_equal_single_solves(solver, n, block(n, 3, 11), std::vector<double>(3 * n));
    EXPECT_EQ(r.column[0].status, prism::SolveStatus::stagnated);
    EXPECT_EQ(r.column[0].residual_replacements, 3);
  }
  for (const int check_every : {1, 4}) {
    prism::SolverConfig c = config("jacobi");
    c.solver.max_iterations = 30;
    c.solver.check_every = check_every;
    prism::Solver solver(c);
    solver.setup(a);
    const prism::MultiSolveReport r =
        expect_columns_equal_single_solves(solver, n, block(n, 3, 21), block(n, 3, 31));
    EXPECT_EQ(r.column[1].status, prism::SolveStatus::max_iterations);
  }
}

// solve_on_backend with columns (cpu: host memory) equals the host multi-column solve bit
// for bit: in the natural order on the caller's arrays, permuted, and scaled into range.
TEST(MultiRhs, OnBackendEqualsHostSolve) {
  const CsrMatrix<double> a = prism::poisson3d(10, 9, 7);
  const index_t n = a.rows;
  for (const char* type : {"ic0", "jacobi"}) {  // a color order, the natural one
    SCOPED_TRACE(type);
    prism::Solver solver(config(type));
    solver.setup(a);
    std::vector<double> b = block(n, 3, 50);
    for (index_t i = 0; i < n; ++i) b[static_cast<std::size_t>(n) + i] *= 1e300;  // scaled
    const std::vector<double> x0 = block(n, 3, 60);
    std::vector<double> x_host = x0, x_backend = x0;
    const prism::MultiSolveReport host = solver.solve(b.data(), x_host.data(), n, 3);
    const prism::MultiSolveReport backend =
        solver.solve_on_backend(b.data(), x_backend.data(), n, 3);
    EXPECT_EQ(x_backend, x_host);
    for (int j = 0; j < 3; ++j) {
      EXPECT_EQ(backend.column[j].iterations, host.column[j].iterations);
      EXPECT_EQ(backend.column[j].true_relative_residual, host.column[j].true_relative_residual);
      EXPECT_TRUE(host.column[j].converged());
    }
    expect_columns_equal_single_solves(solver, n, b, x0);
  }
}

template <typename Call>
std::string invalid_message(const Call& call) {
  try {
    call();
  } catch (const prism::InvalidMatrixError& e) {
    return e.what();
  }
  return "no error";
}

TEST(MultiRhs, BadInputIsNamed) {
  const CsrMatrix<double> a = prism::poisson3d(4, 4, 4);
  const index_t n = a.rows;
  prism::Solver solver(config("jacobi"));
  solver.setup(a);
  std::vector<double> b(2 * n, 1.0), x(2 * n, 0.0);
  EXPECT_NE(invalid_message([&] { solver.solve(b.data(), x.data(), n, 0); }).find("columns is 0"),
            std::string::npos);
  EXPECT_NE(invalid_message([&] {
              solver.solve(b.data(), x.data(), n - 1, 2);
            }).find("rows is 63, the matrix has 64 rows"),
            std::string::npos);
  EXPECT_NE(invalid_message([&] { solver.solve(b.data(), b.data() + 1, n, 1); }).find("overlap"),
            std::string::npos);
  EXPECT_NE(invalid_message([&] {
              solver.solve_on_backend(nullptr, x.data(), n, 2);
            }).find("b is a null pointer"),
            std::string::npos);
  {
    const CsrMatrix<double> large = prism::poisson2d(200, 200);  // 40000 rows
    prism::Solver big(config("jacobi"));
    big.setup(large);
    // Refused before b and x are read: 60000 columns of 40000 rows.
    EXPECT_NE(invalid_message([&] {
                big.solve(b.data(), x.data(), 40000, 60000);
              }).find("exceed 2^31 - 1 entries"),
              std::string::npos);
  }
  EXPECT_NE(invalid_message([&] {
              solver.solve(b.data(), x.data(), n, 1 << 16);
            }).find("columns is 65536; give 1 to 65535"),
            std::string::npos);
  std::vector<double> odd(2 * n + 1, 1.0);
  EXPECT_NE(invalid_message([&] { solver.solve(odd, x, 2); }).find("not a multiple of 2"),
            std::string::npos);
  std::vector<double> empty;
  EXPECT_EQ(invalid_message([&] { solver.solve(b, empty, 2); }), "no error");
  EXPECT_EQ(empty.size(), b.size());
}

}  // namespace
