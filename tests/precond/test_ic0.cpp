#include <prism/analysis.hpp>
#include <prism/errors.hpp>
#include <prism/generators.hpp>
#include <prism/matrix_market.hpp>

#include "backend/cpu_backend.hpp"
#include "common/host_threads.hpp"
#include "common/test_matrices.hpp"
#include "precond/ic0_pattern.hpp"
#include "precond/preconditioner.hpp"

#include <gtest/gtest.h>
#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace {

using prism::CsrMatrix;
using prism::index_t;

Eigen::MatrixXd dense(const CsrMatrix<double>& a) {
  return Eigen::MatrixXd(prism::test::to_eigen(a));
}

// Tridiagonal SPD matrix with uneven diagonal, so the unit-diagonal scaling matters.
CsrMatrix<double> tridiagonal(index_t n) {
  std::vector<prism::Triplet> t;
  for (index_t i = 0; i < n; ++i) {
    t.push_back({i, i, 3.0 + i % 5});
    if (i + 1 < n) {
      t.push_back({i, i + 1, -1.0 - 0.1 * (i % 3)});
      t.push_back({i + 1, i, -1.0 - 0.1 * (i % 3)});
    }
  }
  return prism::csr_from_triplets(n, n, t);
}

// A star (tree) whose hub is numbered last: eliminating the leaves first creates no fill.
CsrMatrix<double> star(index_t n) {
  std::vector<prism::Triplet> t;
  const index_t hub = n - 1;
  for (index_t i = 0; i < hub; ++i) {
    t.push_back({i, i, 2.0 + 0.25 * (i % 4)});
    t.push_back({i, hub, 0.5 + 0.1 * (i % 3)});  // positive off-diagonals, like FEM
    t.push_back({hub, i, 0.5 + 0.1 * (i % 3)});
  }
  t.push_back({hub, hub, 0.6 * n + 1.0});
  return prism::csr_from_triplets(n, n, t);
}

TEST(Ic0Factor, EqualsExactCholeskyWithoutFill) {
  for (const CsrMatrix<double>& a :
       {tridiagonal(1), tridiagonal(2), tridiagonal(33), star(2), star(17), star(100)}) {
    prism::precond::Ic0Pattern pattern(a);
    const prism::FactorizationReport report = pattern.factorize(a, {});
    EXPECT_TRUE(report.performed);
    EXPECT_EQ(report.retries, 0);
    EXPECT_EQ(report.shift, 0.0);
    const Eigen::MatrixXd exact = dense(a).llt().matrixL();
    EXPECT_LE((dense(pattern.lower()) - exact).norm(), 1e-13 * exact.norm()) << "n=" << a.rows;
    // U holds L^T.
    EXPECT_LE((dense(pattern.upper()) - exact.transpose()).norm(), 1e-13 * exact.norm());
  }
}

TEST(Ic0Factor, UpperStoresDiagonalFirstAndLowerDiagonalLast) {
  const CsrMatrix<double> a = prism::poisson2d(7, 5);
  prism::precond::Ic0Pattern pattern(a);
  pattern.factorize(a, {});
  for (index_t i = 0; i < a.rows; ++i) {
    EXPECT_EQ(pattern.lower().col_idx[pattern.lower().row_ptr[i + 1] - 1], i);
    EXPECT_EQ(pattern.upper().col_idx[pattern.upper().row_ptr[i]], i);
  }
  EXPECT_EQ(pattern.lower().nnz(), (a.nnz() + a.rows) / 2);
}

// The pattern is built on several host threads; U = L^T comes from A's upper half when
// the pattern is symmetric and from a counting sort when not: both against a plain
// transposition of L.
TEST(Ic0Factor, PatternOnHostThreadsIsLAndItsTranspose) {
  const prism::test::ScopedHostThreads threads(4);
  CsrMatrix<double> grid = prism::poisson3d(40, 30, 30, 27);  // 36k rows
  std::vector<prism::Triplet> t;
  for (index_t i = 0; i < grid.rows; ++i) {
    for (index_t k = grid.row_ptr[i]; k < grid.row_ptr[i + 1]; ++k) {
      // Without (i, i + 1) for every 1000th row below the diagonal: not symmetric.
      const index_t j = grid.col_idx[k];
      if (!(i % 1000 == 1 && j == i - 1)) t.push_back({i, j, grid.values[k]});
    }
  }
  const CsrMatrix<double> one_sided = prism::csr_from_triplets(grid.rows, grid.cols, t);
  for (const CsrMatrix<double>* a : {static_cast<const CsrMatrix<double>*>(&grid), &one_sided}) {
    const prism::precond::Ic0Pattern pattern(*a);
    const CsrMatrix<double>& l = pattern.lower();
    const CsrMatrix<double> expected_l = prism::lower_triangle(*a);
    EXPECT_EQ(l.row_ptr, expected_l.row_ptr);
    EXPECT_EQ(l.col_idx, expected_l.col_idx);
    for (std::size_t k = 0; k < l.col_idx.size(); ++k) {
      ASSERT_EQ(a->values[pattern.lower_source()[k]], expected_l.values[k]);
    }
    const CsrMatrix<double> lt = prism::transpose(l);
    EXPECT_EQ(pattern.upper().row_ptr, lt.row_ptr);
    EXPECT_EQ(pattern.upper().col_idx, lt.col_idx);
    for (index_t c = 0; c < lt.rows; ++c) {
      for (index_t k = lt.row_ptr[c]; k < lt.row_ptr[c + 1]; ++k) {
        const index_t source = pattern.upper_source()[k];
        ASSERT_EQ(l.col_idx[source], c);
        ASSERT_GE(source, l.row_ptr[lt.col_idx[k]]);
        ASSERT_LT(source, l.row_ptr[lt.col_idx[k] + 1]);
      }
    }
  }
  // Rows 25000 and 30000 lose their diagonal to a copy of the entry before it; the
  // preconditioner alone names rows of its matrix from 0 (Solver renames them).
  for (const index_t i : {30000, 25000}) {
    const auto d = std::find(grid.col_idx.begin() + grid.row_ptr[i],
                             grid.col_idx.begin() + grid.row_ptr[i + 1], i);
    *d = *(d - 1);
  }
  try {
    const prism::precond::Ic0Pattern pattern(grid);
    FAIL() << "no exception";
  } catch (const prism::InvalidMatrixError& e) {
    EXPECT_EQ(std::string(e.what()), "ic0: diagonal entry of row 25000 is missing");
  }
}

/// Ic0Pattern's arrays built plainly, on one thread: L row by row, U by a counting sort.
struct PlainPattern {
  std::vector<index_t> l_row_ptr{0}, l_col_idx, lower_source;
  std::vector<index_t> u_row_ptr, u_col_idx, upper_source;
};

PlainPattern plain_pattern(const CsrMatrix<double>& a) {
  PlainPattern p;
  for (index_t i = 0; i < a.rows; ++i) {
    for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1] && a.col_idx[k] <= i; ++k) {
      p.l_col_idx.push_back(a.col_idx[k]);
      p.lower_source.push_back(k);
    }
    p.l_row_ptr.push_back(static_cast<index_t>(p.l_col_idx.size()));
  }
  p.u_row_ptr.assign(a.rows + 1, 0);
  for (const index_t c : p.l_col_idx) ++p.u_row_ptr[c + 1];
  for (index_t i = 0; i < a.rows; ++i) p.u_row_ptr[i + 1] += p.u_row_ptr[i];
  p.u_col_idx.resize(p.l_col_idx.size());
  p.upper_source.resize(p.l_col_idx.size());
  std::vector<index_t> next(p.u_row_ptr.begin(), p.u_row_ptr.end() - 1);
  for (index_t i = 0; i < a.rows; ++i) {
    for (index_t k = p.l_row_ptr[i]; k < p.l_row_ptr[i + 1]; ++k) {
      const index_t dst = next[p.l_col_idx[k]]++;
      p.u_col_idx[dst] = i;
      p.upper_source[dst] = k;
    }
  }
  return p;
}

/// `a` without the entries (i, i - 1) of every `every`-th row i: not symmetric.
CsrMatrix<double> one_sided(const CsrMatrix<double>& a, index_t every) {
  std::vector<prism::Triplet> t;
  for (index_t i = 0; i < a.rows; ++i) {
    for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
      if (i % every != every - 1 || a.col_idx[k] != i - 1)
        t.push_back({i, a.col_idx[k], a.values[k]});
    }
  }
  return prism::csr_from_triplets(a.rows, a.cols, t);
}

// Same entry counts in both halves, yet not symmetric: (2, 0) below, (0, 1) above.
CsrMatrix<double> mirrored_counts() {
  return prism::csr_from_triplets(
      3, 3, {{0, 0, 4.0}, {0, 1, 1.0}, {1, 1, 4.0}, {2, 0, 1.0}, {2, 2, 4.0}});
}

// The pattern on 1, 2 and 4 host threads has the plain construction's arrays, entry for
// entry: symmetric patterns (U from A's upper half) and others (the counting sort),
// matrices large enough to be split among the threads.
TEST(Ic0Factor, PatternOnAnyThreadCountEqualsThePlainConstruction) {
  const CsrMatrix<double> sparse = prism::test::random_symmetric(70000, 30000, 5);
  const CsrMatrix<double> dense_rows = prism::test::random_symmetric(70001, 400000, 6);
  const std::vector<std::pair<std::string, CsrMatrix<double>>> matrices{
      {"one row", prism::test::diagonal_only(1)},
      {"diagonal only", prism::test::diagonal_only(70000)},
      {"random, many rows with the diagonal alone", sparse},
      {"random", dense_rows},
      {"poisson3d 27-point", prism::poisson3d(41, 40, 40, 27)},
      {"not symmetric", one_sided(dense_rows, 7)},
      {"not symmetric, rows alike", one_sided(prism::poisson2d(300, 300), 1)},
      {"not symmetric, halves of one size", mirrored_counts()}};
  for (const int threads : {1, 2, 4}) {
    const prism::test::ScopedHostThreads scoped(threads);
    for (const auto& [name, a] : matrices) {
      SCOPED_TRACE(name + ", " + std::to_string(threads) + " threads");
      const PlainPattern expected = plain_pattern(a);
      const prism::precond::Ic0Pattern pattern(a);
      EXPECT_EQ(pattern.lower().row_ptr, expected.l_row_ptr);
      EXPECT_EQ(pattern.lower().col_idx, expected.l_col_idx);
      EXPECT_EQ(pattern.lower_source(), expected.lower_source);
      EXPECT_EQ(pattern.upper().row_ptr, expected.u_row_ptr);
      EXPECT_EQ(pattern.upper().col_idx, expected.u_col_idx);
      EXPECT_EQ(pattern.upper_source(), expected.upper_source);
      EXPECT_EQ(pattern.upper().values, std::vector<double>(expected.u_col_idx.size(), 0.0));
    }
  }
}

TEST(Ic0Factor, ResidualIsZeroOnThePattern) {
  // IC(0) reproduces A exactly on the pattern of tril(A): (L L^T)_ij = a_ij there.
  const CsrMatrix<double> a = prism::poisson3d(5, 4, 3, 27);
  prism::precond::Ic0Pattern pattern(a);
  pattern.factorize(a, {});
  const Eigen::MatrixXd l = dense(pattern.lower());
  const Eigen::MatrixXd llt = l * l.transpose();
  const Eigen::MatrixXd ad = dense(a);
  for (index_t i = 0; i < a.rows; ++i) {
    for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
      const index_t j = a.col_idx[k];
      EXPECT_NEAR(llt(i, j), ad(i, j), 1e-12 * std::abs(ad(i, i))) << i << "," << j;
    }
  }
}

TEST(Ic0Factor, ShiftRetryRecoversOnBcsstk13) {
  const std::string path = prism::test::shared_matrix("bcsstk13.mtx.gz");
  if (path.empty()) GTEST_SKIP() << "shared/matrices/bcsstk13.mtx.gz not available";
  const CsrMatrix<double> a = prism::read_matrix_market(path);
  prism::precond::Ic0Pattern pattern(a);

  // Without a shift, plain IC(0) breaks down on this stiffness matrix...
  prism::Ic0Options no_retry;
  no_retry.max_shift_retries = 0;
  try {
    pattern.factorize(a, no_retry);
    FAIL() << "expected a breakdown without a shift";
  } catch (const prism::NumericalError& e) {
    EXPECT_NE(std::string(e.what()).find("broke down at row"), std::string::npos) << e.what();
  }
  // ...and the shift retry recovers, reporting what it did.
  const prism::FactorizationReport report = pattern.factorize(a, {});
  EXPECT_GT(report.retries, 0);
  EXPECT_GT(report.shift, 0.0);
  EXPECT_EQ(report.shift, 1e-3 * std::pow(2.0, report.retries - 1));
  for (double v : pattern.lower().values) EXPECT_TRUE(std::isfinite(v));
}

TEST(Ic0Factor, RefactorWithNewValuesEqualsFreshFactor) {
  CsrMatrix<double> a = prism::poisson2d(9, 8);
  prism::precond::Ic0Pattern reused(a);
  reused.factorize(a, {});
  // New values on the same pattern, as in a time step: 2 A + I.
  for (index_t i = 0; i < a.rows; ++i) {
    for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
      a.values[k] = 2.0 * a.values[k] + (a.col_idx[k] == i ? 1.0 : 0.0);
    }
  }
  reused.factorize(a, {});
  prism::precond::Ic0Pattern fresh(a);
  fresh.factorize(a, {});
  EXPECT_EQ(reused.lower().values, fresh.lower().values);
  EXPECT_EQ(reused.upper().values, fresh.upper().values);
}

// `matrices`, and bcsstk13 (needs 8 shift retries) where shared/ has it.
std::vector<CsrMatrix<double>> with_bcsstk13(std::vector<CsrMatrix<double>> matrices) {
  const std::string path = prism::test::shared_matrix("bcsstk13.mtx.gz");
  if (!path.empty()) matrices.push_back(prism::read_matrix_market(path));
  return matrices;
}

TEST(Ic0Factor, BackendEngineOnTheCpuMatchesTheHostFactorization) {
  // The engine path (scaling and retry on the host, attempts in the backend) with the
  // CPU backend's reference twin: same shift, same retries, same solves.
  const std::vector<CsrMatrix<double>> matrices = with_bcsstk13({prism::poisson3d(9, 8, 7)});
  auto backend = prism::backend::make_cpu_backend();
  for (const CsrMatrix<double>& a : matrices) {
    SCOPED_TRACE(a.rows);
    prism::precond::Ic0Pattern host(a);
    const prism::FactorizationReport rh = host.factorize(a, {});
    prism::precond::Ic0Pattern pattern(a);
    auto engine = backend->make_ic0_factor(
        pattern.lower(), pattern.upper(), pattern.upper_source(), pattern.lower_source(),
        {prism::TrisolveAlgorithm::automatic, prism::Precision::fp64});
    const prism::FactorizationReport re = pattern.factorize(a, {}, *engine);
    EXPECT_EQ(re.retries, rh.retries);
    EXPECT_EQ(re.shift, rh.shift);

    const std::vector<double> b = prism::test::random_vector(a.rows, 3);
    auto bv = backend->make_vector(a.rows), xv = backend->make_vector(a.rows);
    backend->copy_from_host(b, *bv);
    for (auto tri : {prism::backend::Triangle::lower, prism::backend::Triangle::upper}) {
      engine->solve(tri, *bv, *xv);
      std::vector<double> x;
      backend->copy_to_host(*xv, x);
      auto solver = backend->make_triangular_solver(
          tri == prism::backend::Triangle::lower ? host.lower() : host.upper(), tri,
          {prism::TrisolveAlgorithm::reference, prism::Precision::fp64});
      solver->solve(*bv, *xv);
      std::vector<double> expected;
      backend->copy_to_host(*xv, expected);
      double scale = 1.0;
      for (double v : expected) scale = std::max(scale, std::abs(v));
      for (std::size_t i = 0; i < x.size(); ++i) ASSERT_NEAR(x[i], expected[i], 1e-12 * scale);
    }
  }
}

// A backend may run the retries' attempts several at a time and stop early
// (Ic0Factor::attempts): the retry then asks again with the shifts left. An engine that
// answers one or two attempts a call gives the report and the error of the serial one.
class ChunkedEngine final : public prism::backend::Ic0Factor {
 public:
  ChunkedEngine(std::unique_ptr<prism::backend::Ic0Factor> inner, int chunk)
      : inner_(std::move(inner)), chunk_(chunk) {}
  void load(const std::vector<double>& scaled, const std::vector<double>& row_scale) override {
    inner_->load(scaled, row_scale);
  }
  void load(const prism::backend::SourceValues& a) override { inner_->load(a); }
  prism::kernels::Ic0Status attempt(double shift) override { return inner_->attempt(shift); }
  std::vector<prism::kernels::Ic0Status> attempts(const double* shifts, int count) override {
    ++calls;
    asked.push_back(count);
    return inner_->attempts(shifts, std::min(count, chunk_));
  }
  void finish() override { inner_->finish(); }
  void solve(prism::backend::Triangle t, const prism::backend::Vector& b,
             prism::backend::Vector& x) override {
    inner_->solve(t, b, x);
  }
  int calls = 0;
  std::vector<int> asked;  ///< the count of each attempts() call

 private:
  std::unique_ptr<prism::backend::Ic0Factor> inner_;
  int chunk_;
};

TEST(Ic0Factor, RetriesAnsweredInChunksGiveTheSerialReport) {
  const std::vector<CsrMatrix<double>> matrices =
      with_bcsstk13({prism::test::random_band(300, 20, 0.5, 8)});
  auto backend = prism::backend::make_cpu_backend();
  for (const CsrMatrix<double>& a : matrices) {
    SCOPED_TRACE(a.rows);
    prism::precond::Ic0Pattern host(a);
    const prism::FactorizationReport serial = host.factorize(a, {});
    ASSERT_GT(serial.retries, 2);
    prism::Ic0Options few;
    few.max_shift_retries = serial.retries - 1;
    std::string serial_error;
    try {
      host.factorize(a, few);
    } catch (const prism::NumericalError& e) {
      serial_error = e.what();
    }
    ASSERT_FALSE(serial_error.empty());
    for (int chunk : {1, 2, 100}) {
      SCOPED_TRACE(chunk);
      prism::precond::Ic0Pattern pattern(a);
      const auto make = [&] {
        return std::make_unique<ChunkedEngine>(
            backend->make_ic0_factor(pattern.lower(), pattern.upper(), pattern.upper_source(),
                                     pattern.lower_source(),
                                     {prism::TrisolveAlgorithm::automatic, prism::Precision::fp64}),
            chunk);
      };
      auto engine = make();
      const prism::FactorizationReport chunked = pattern.factorize(a, {}, *engine);
      EXPECT_EQ(chunked.retries, serial.retries);
      EXPECT_EQ(chunked.shift, serial.shift);
      EXPECT_EQ(engine->calls, (serial.retries + chunk - 1) / chunk);
      auto failing = make();
      try {
        pattern.factorize(a, few, *failing);
        ADD_FAILURE() << "expected a breakdown after " << few.max_shift_retries << " retries";
      } catch (const prism::NumericalError& e) {
        EXPECT_EQ(std::string(e.what()), serial_error);
      }
      // From the backend's memory, the unshifted attempt alone first or as the first of
      // the retries: the same report and error; with the retries, one call fewer or the
      // same, the unshifted attempt riding along.
      std::vector<index_t> identity(a.values.size());
      for (std::size_t k = 0; k < identity.size(); ++k) identity[k] = static_cast<index_t>(k);
      const prism::backend::SourceValues values{a.values.data(), &identity};
      using First = prism::precond::Ic0Pattern::FirstAttempt;
      for (First first : {First::alone, First::with_retries}) {
        SCOPED_TRACE(first == First::alone ? "alone" : "with the retries");
        const int attempts = serial.retries + (first == First::alone ? 0 : 1);
        auto from_values = make();
        const prism::FactorizationReport report =
            pattern.factorize(values, {}, *from_values, first);
        EXPECT_EQ(report.retries, serial.retries);
        EXPECT_EQ(report.shift, serial.shift);
        EXPECT_EQ(from_values->calls, (attempts + chunk - 1) / chunk);
        auto failing_values = make();
        try {
          pattern.factorize(values, few, *failing_values, first);
          ADD_FAILURE() << "expected a breakdown after " << few.max_shift_retries << " retries";
        } catch (const prism::NumericalError& e) {
          EXPECT_EQ(std::string(e.what()), serial_error);
        }
        // A first ladder of at most `ladder` attempts (a refactor's: the set-up's
        // successful attempt and one more), shorter than needed too: the same report; the
        // first call asks for no more, the later ones for all that are left.
        for (int ladder : {1, attempts, attempts + 1}) {
          if (ladder < 1) continue;
          SCOPED_TRACE(ladder);
          auto limited = make();
          const prism::FactorizationReport r =
              pattern.factorize(values, {}, *limited, first, ladder);
          EXPECT_EQ(r.retries, serial.retries);
          EXPECT_EQ(r.shift, serial.shift);
          if (attempts == 0) continue;  // the unshifted attempt alone succeeded
          ASSERT_FALSE(limited->asked.empty());
          EXPECT_LE(limited->asked.front(), ladder);
          const int first_call = std::min({ladder, chunk, limited->asked.front()});
          const int rest = std::max(0, attempts - first_call);
          EXPECT_EQ(limited->calls, 1 + (rest + chunk - 1) / chunk);
        }
      }
    }
  }
}

// A factor that needed no shift, started with the retries: the unshifted attempt is the
// first of them and succeeds alone (report: no retry, shift 0).
TEST(Ic0Factor, RetriesFirstWithoutABreakdownReportNoRetry) {
  const CsrMatrix<double> a = prism::poisson2d(9, 7);
  auto backend = prism::backend::make_cpu_backend();
  prism::precond::Ic0Pattern pattern(a);
  auto engine = std::make_unique<ChunkedEngine>(
      backend->make_ic0_factor(pattern.lower(), pattern.upper(), pattern.upper_source(),
                               pattern.lower_source(),
                               {prism::TrisolveAlgorithm::automatic, prism::Precision::fp64}),
      4);
  std::vector<index_t> identity(a.values.size());
  for (std::size_t k = 0; k < identity.size(); ++k) identity[k] = static_cast<index_t>(k);
  const prism::FactorizationReport report =
      pattern.factorize(prism::backend::SourceValues{a.values.data(), &identity}, {}, *engine,
                        prism::precond::Ic0Pattern::FirstAttempt::with_retries);
  EXPECT_TRUE(report.performed);
  EXPECT_EQ(report.retries, 0);
  EXPECT_EQ(report.shift, 0.0);
  EXPECT_EQ(engine->calls, 1);
}

TEST(Ic0Factor, EngineHalvesFormTheDotOfRAndZ) {
  // The halves with a dot: z unchanged bit for bit, and the backend scalar (r, z) formed
  // as |L^{-1} r|^2, equal to the dot to rounding (both sums of n positive-weighted terms
  // of size |r||z|: relative 1e-12 on a few hundred rows).
  const CsrMatrix<double> a = prism::permute_symmetric(
      prism::poisson3d(9, 8, 7),
      prism::color_matrix(prism::poisson3d(9, 8, 7), prism::VertexOrder::natural).permutation);
  auto backend = prism::backend::make_cpu_backend();
  prism::precond::Ic0Pattern pattern(a);
  auto engine = backend->make_ic0_factor(
      pattern.lower(), pattern.upper(), pattern.upper_source(), pattern.lower_source(),
      {prism::TrisolveAlgorithm::automatic, prism::Precision::fp64});
  pattern.factorize(a, {}, *engine);
  ASSERT_TRUE(engine->forms_dot());
  auto r = backend->make_vector(a.rows), work = backend->make_vector(a.rows);
  auto z = backend->make_vector(a.rows), z_dot = backend->make_vector(a.rows);
  backend->copy_from_host(prism::test::random_vector(a.rows, 8), *r);
  engine->forward(*r, *work, *z, std::nullopt);
  engine->backward(*r, *work, *z, std::nullopt);
  engine->forward(*r, *work, *z_dot, prism::backend::Scalar::rz_new);
  engine->backward(*r, *work, *z_dot, prism::backend::Scalar::rz_new);
  std::vector<double> zh, zh_dot, rh;
  backend->copy_to_host(*z, zh);
  backend->copy_to_host(*z_dot, zh_dot);
  backend->copy_to_host(*r, rh);
  EXPECT_EQ(zh_dot, zh);
  double rz = 0.0, scale = 0.0;
  for (std::size_t i = 0; i < rh.size(); ++i) {
    rz += rh[i] * zh[i];
    scale += std::abs(rh[i] * zh[i]);
  }
  const double formed = backend->read_scalars()[static_cast<int>(prism::backend::Scalar::rz_new)];
  EXPECT_GT(formed, 0.0);
  EXPECT_NEAR(formed, rz, 1e-12 * scale);
}

TEST(Ic0Factor, RejectsMissingOrNonPositiveDiagonalAndWrongPattern) {
  CsrMatrix<double> no_diag =
      prism::csr_from_triplets(2, 2, {{0, 1, 1.0}, {1, 0, 1.0}, {1, 1, 2.0}});
  EXPECT_THROW(prism::precond::Ic0Pattern{no_diag}, prism::InvalidMatrixError);

  CsrMatrix<double> neg = prism::csr_from_triplets(2, 2, {{0, 0, -1.0}, {1, 1, 2.0}});
  prism::precond::Ic0Pattern p(neg);
  EXPECT_THROW(p.factorize(neg, {}), prism::InvalidMatrixError);

  const CsrMatrix<double> other = prism::poisson2d(3, 3);
  EXPECT_THROW(p.factorize(other, {}), prism::InvalidMatrixError);
}

// The engine's load from values in the backend's memory reports a bad diagonal through
// the next attempt; the retry loop stops at once and names the row, as the host path does.
TEST(Ic0Factor, EngineLoadFromBackendValuesReportsABadDiagonal) {
  CsrMatrix<double> a = prism::poisson2d(4, 3);
  index_t diag = a.row_ptr[5];
  while (a.col_idx[diag] != 5) ++diag;
  a.values[diag] = -3.0;
  auto backend = prism::backend::make_cpu_backend();
  prism::precond::Ic0Pattern host(a), pattern(a);
  auto engine = backend->make_ic0_factor(
      pattern.lower(), pattern.upper(), pattern.upper_source(), pattern.lower_source(),
      {prism::TrisolveAlgorithm::automatic, prism::Precision::fp64});
  std::vector<index_t> identity(a.values.size());
  for (std::size_t k = 0; k < identity.size(); ++k) identity[k] = static_cast<index_t>(k);
  std::string expected, got;
  try {
    host.factorize(a, {});
  } catch (const prism::InvalidMatrixError& e) {
    expected = e.what();
  }
  try {
    pattern.factorize(prism::backend::SourceValues{a.values.data(), &identity}, {}, *engine);
  } catch (const prism::InvalidMatrixError& e) {
    got = e.what();
  }
  EXPECT_NE(expected.find("row 5 "), std::string::npos) << expected;  // from 0, as ic0 numbers
  EXPECT_EQ(got, expected);
}

}  // namespace

namespace {

// With the factor in the backend, the host pattern goes after each factorization from host
// values; a second one rebuilds it and gives the fresh preconditioner's factor.
TEST(Ic0Factor, BackendFactorRebuildsItsReleasedPattern) {
  CsrMatrix<double> a = prism::poisson3d(7, 6, 5);
  auto backend = prism::backend::make_cpu_backend();
  prism::PreconditionerOptions options;
  options.ic0.factorization = prism::Ic0Factorization::backend;
  const auto apply = [&](prism::precond::Preconditioner& m) {
    auto r = backend->make_vector(a.rows), z = backend->make_vector(a.rows);
    backend->copy_from_host(prism::test::random_vector(a.rows, 5), *r);
    m.apply(*r, *z, nullptr, std::nullopt);
    std::vector<double> out;
    backend->copy_to_host(*z, out);
    return out;
  };
  auto reused = prism::precond::Registry::instance().create("ic0", *backend, options);
  reused->analyze(a);
  reused->factorize(a);
  for (double& v : a.values) v *= 2.0;
  reused->factorize(a);
  auto fresh = prism::precond::Registry::instance().create("ic0", *backend, options);
  fresh->analyze(a);
  fresh->factorize(a);
  EXPECT_EQ(apply(*reused), apply(*fresh));
}

}  // namespace
