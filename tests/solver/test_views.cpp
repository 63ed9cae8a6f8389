// Solver::setup and refactor on CSR views (cpu backend): int64 indices and either triangle
// give the same solution, bit for bit, as the full int32 CsrMatrix they stand for;
// refactor_on_backend's contract after a triangle; broken contracts named with the fix.

#include <prism/csr_view.hpp>
#include <prism/errors.hpp>
#include <prism/generators.hpp>
#include <prism/solver.hpp>

#include "common/test_matrices.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace prism {
namespace {

using test::random_symmetric;
using test::random_vector;

struct Arrays64 {
  std::int64_t n = 0;
  std::vector<std::int64_t> row_ptr, col_idx;
  std::vector<double> values;

  explicit Arrays64(const CsrMatrix<double>& a)
      : n(a.rows),
        row_ptr(a.row_ptr.begin(), a.row_ptr.end()),
        col_idx(a.col_idx.begin(), a.col_idx.end()),
        values(a.values) {}
  CsrView64 view(Storage storage) const {
    return {n, n, row_ptr.data(), col_idx.data(), values.data(), storage};
  }
};

SolverConfig config(const std::string& preconditioner) {
  SolverConfig c;
  c.backend = BackendKind::cpu;
  c.solver.tolerance = 1e-10;
  c.preconditioner.type = preconditioner;
  return c;
}

struct Solution {
  std::vector<double> x;
  int iterations = 0;
};

template <typename Setup>
Solution solve_with(const std::string& preconditioner, const Setup& setup,
                    const std::vector<double>& b) {
  Solver solver(config(preconditioner));
  setup(solver);
  Solution s{std::vector<double>(b.size(), 0.0)};
  const SolveReport report = solver.solve(b, s.x);
  EXPECT_EQ(report.status, SolveStatus::converged);
  s.iterations = report.iterations;
  return s;
}

template <typename Call>
std::string invalid_message(const Call& call) {
  try {
    call();
  } catch (const InvalidMatrixError& e) {
    return e.what();
  }
  return "no error";
}

class Views : public ::testing::TestWithParam<std::string> {};

TEST_P(Views, Int64AndTrianglesSolveAsTheFullInt32Matrix) {
  const CsrMatrix<double> a = poisson2d(23, 17);
  const std::vector<double> b = random_vector(a.rows, 3);
  const Arrays64 full(a), lower(lower_triangle(a)), upper(transpose(lower_triangle(a)));
  const Solution reference = solve_with(
      GetParam(), [&](Solver& s) { s.setup(a); }, b);
  for (const auto& [arrays, storage] :
       {std::pair{&full, Storage::full}, std::pair{&lower, Storage::lower},
        std::pair{&upper, Storage::upper}}) {
    const Solution x = solve_with(
        GetParam(),
        [&, arrays = arrays, storage = storage](Solver& s) { s.setup(arrays->view(storage)); }, b);
    EXPECT_EQ(x.iterations, reference.iterations);
    EXPECT_EQ(x.x, reference.x);  // the same internal matrix: bit for bit
  }
}

TEST_P(Views, RefactorThroughATriangleMapsItsValues) {
  const CsrMatrix<double> a = random_symmetric(300, 900, 7);
  // New values, symmetric: each entry scaled by a factor of its (row, column) pair.
  CsrMatrix<double> a2 = a;
  for (index_t i = 0; i < a2.rows; ++i) {
    for (index_t k = a2.row_ptr[i]; k < a2.row_ptr[i + 1]; ++k) {
      a2.values[k] *= 1.5 + 0.01 * ((i + a2.col_idx[k]) % 5);
    }
  }
  const std::vector<double> b = random_vector(a.rows, 11);
  const Solution reference = solve_with(
      GetParam(),
      [&](Solver& s) {
        s.setup(a);
        s.refactor(a2);
      },
      b);
  const Arrays64 lower(lower_triangle(a)), lower2(lower_triangle(a2));
  const Solution x = solve_with(
      GetParam(),
      [&](Solver& s) {
        s.setup(lower.view(Storage::lower));
        s.refactor(lower2.view(Storage::lower));
      },
      b);
  EXPECT_EQ(x.iterations, reference.iterations);
  EXPECT_EQ(x.x, reference.x);
}

INSTANTIATE_TEST_SUITE_P(Preconditioners, Views, ::testing::Values("ic0", "jacobi"));

TEST(ViewsRefactor, ADifferentPatternIsRefused) {
  const CsrMatrix<double> a = poisson2d(6, 6);
  Solver solver(config("ic0"));
  solver.setup(Arrays64(lower_triangle(a)).view(Storage::lower));
  const Arrays64 other(lower_triangle(poisson2d(9, 4)));
  const std::string message = invalid_message([&] { solver.refactor(other.view(Storage::lower)); });
  EXPECT_NE(message.find("sparsity pattern given to setup()"), std::string::npos) << message;
}

TEST(ViewsRefactorOnBackend, ATrianglesCountIsAConfigErrorTheFullOrderWorks) {
  const CsrMatrix<double> a = poisson2d(8, 8);
  const Arrays64 lower(lower_triangle(a));
  Solver solver(config("ic0"));
  solver.setup(lower.view(Storage::lower));
  try {
    solver.refactor_on_backend(lower.values.data(), lower.values.size());
    ADD_FAILURE() << "no ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("expand_triangle()'s order"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("refactor(view)"), std::string::npos) << e.what();
  }
  // The full matrix's values in expand_triangle()'s order (a's own order) are taken.
  const CsrMatrix<double> expanded = expand_triangle(lower.view(Storage::lower));
  ASSERT_EQ(expanded.col_idx, a.col_idx);
  std::vector<double> doubled = a.values;
  for (double& v : doubled) v *= 2.0;
  solver.refactor_on_backend(doubled.data(), doubled.size());
  const std::vector<double> b = random_vector(a.rows, 2);
  std::vector<double> x(b.size(), 0.0);
  EXPECT_EQ(solver.solve(b, x).status, SolveStatus::converged);
}

TEST(ViewsSetup, UnsortedInputIsRefusedWithTheFixAndAcceptedAfterIt) {
  const CsrMatrix<double> a = poisson2d(5, 5);
  // Row 3's entries reversed, its diagonal split in two halves (a duplicate).
  Arrays64 raw(a);
  const auto begin = raw.row_ptr[3], end = raw.row_ptr[4];
  std::reverse(raw.col_idx.begin() + begin, raw.col_idx.begin() + end);
  std::reverse(raw.values.begin() + begin, raw.values.begin() + end);
  for (auto k = begin; k < end; ++k) {
    if (raw.col_idx[k] != 3) continue;
    raw.values[k] /= 2;
    raw.col_idx.insert(raw.col_idx.begin() + k + 1, 3);
    raw.values.insert(raw.values.begin() + k + 1, raw.values[k]);
    break;
  }
  for (std::size_t i = 4; i < raw.row_ptr.size(); ++i) ++raw.row_ptr[i];
  Solver solver(config("ic0"));
  const std::string message = invalid_message([&] { solver.setup(raw.view(Storage::full)); });
  EXPECT_NE(message.find("columns of row 3 are not sorted and unique"), std::string::npos)
      << message;
  EXPECT_NE(message.find("prism::sort_and_merge_duplicates"), std::string::npos) << message;

  sort_and_merge_duplicates(raw.row_ptr, raw.col_idx, raw.values);
  const std::vector<double> b = random_vector(a.rows, 4);
  const Solution merged = solve_with(
      "ic0", [&](Solver& s) { s.setup(raw.view(Storage::full)); }, b);
  const Solution reference = solve_with(
      "ic0", [&](Solver& s) { s.setup(a); }, b);
  EXPECT_EQ(merged.x, reference.x);
}

TEST(ViewsSetup, ValueProblemsCountAsTheApi) {
  CsrMatrix<double> a = poisson2d(4, 4);
  Arrays64 lower(lower_triangle(a));
  lower.values[lower.row_ptr[3] + (lower.row_ptr[4] - lower.row_ptr[3]) - 1] = -1.0;  // a(3, 3)
  Solver solver(config("ic0"));
  const std::string message = invalid_message([&] { solver.setup(lower.view(Storage::lower)); });
  EXPECT_EQ(message, "diagonal entry of row 3 is not positive (-1)");
  // The command line's numbering, asked for.
  SolverConfig from_one = config("ic0");
  from_one.numbering = Numbering::from_one;
  Solver file_solver(from_one);
  EXPECT_EQ(invalid_message([&] { file_solver.setup(lower.view(Storage::lower)); }),
            "diagonal entry of row 4 is not positive (-1)");
  const std::string too_big = invalid_message([&] {
    solver.setup(
        CsrView64{std::int64_t{1} << 32, std::int64_t{1} << 32, nullptr, nullptr, nullptr});
  });
  EXPECT_NE(too_big.find("32-bit indices"), std::string::npos) << too_big;
}

}  // namespace
}  // namespace prism
