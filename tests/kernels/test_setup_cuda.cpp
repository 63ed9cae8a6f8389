// The GPU set-up (issue 47) against its references: the pattern checks
// (kernels/cuda/setup_checks.hpp) give the reference's flags and mirror map, the parallel
// colorings (kernels/cuda/parallel_coloring.hpp) the reference's colorings exactly, on the
// awkward cases of setup_test_matrices.hpp (the ordered greedy one in several vertex
// orders and past its round limit); through the solver, the cuda backend rejects the same
// bad matrices with the host's messages, its jones_plassmann ordering is the host's, and
// its parallel_greedy ordering is Boost's greedy one. Skips without a device.

#include <prism/errors.hpp>
#include <prism/solver.hpp>

#include "common/gpu.hpp"
#include "kernels/cuda/device_memory.hpp"
#include "kernels/cuda/parallel_coloring.hpp"
#include "kernels/cuda/setup_checks.hpp"
#include "kernels/parallel_coloring.hpp"
#include "kernels/setup_checks.hpp"
#include "kernels/setup_test_matrices.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace {

using prism::CsrMatrix;
using prism::index_t;
namespace k = prism::kernels::cuda;

/// A's arrays in device memory.
struct DeviceCsr {
  explicit DeviceCsr(const CsrMatrix<double>& a)
      : rows(a.rows),
        cols(a.cols),
        row_ptr(k::upload_and_wait(a.row_ptr, nullptr)),
        col_idx(k::upload_and_wait(a.col_idx, nullptr)),
        values(k::upload_and_wait(a.values, nullptr)) {}
  prism::kernels::CsrView<double> view() const {
    return {rows, cols, row_ptr.data(), col_idx.data(), values.data()};
  }
  index_t rows, cols;
  k::DeviceBuffer<index_t> row_ptr, col_idx;
  k::DeviceBuffer<double> values;
};

prism::kernels::CsrView<double> host_view(const CsrMatrix<double>& a) {
  return {a.rows, a.cols, a.row_ptr.data(), a.col_idx.data(), a.values.data()};
}

TEST(SetupChecksCuda, PatternDefectsIsEquivalentToReference) {
  PRISM_SKIP_WITHOUT_GPU();
  std::vector<prism::test::NamedMatrix> cases = prism::test::defect_cases();
  for (auto& c : prism::test::coloring_cases()) cases.push_back(std::move(c));
  for (const auto& [name, a] : cases) {
    for (const bool structure : {false, true}) {
      SCOPED_TRACE(name + (structure ? ", structure" : ", storage"));
      std::vector<index_t> want_mirror(a.col_idx.size(), -1);
      const int want = prism::kernels::reference::pattern_defects(host_view(a), a.nnz(), structure,
                                                                  want_mirror.data());
      const DeviceCsr d(a);
      k::DeviceBuffer<index_t> mirror(std::max<std::size_t>(a.col_idx.size(), 1));
      k::DeviceBuffer<int> found(1);
      k::pattern_defects(d.view(), a.nnz(), structure, mirror.data(), found.data(), nullptr);
      EXPECT_EQ(k::download_and_wait(found, nullptr)[0], want);
      if (structure && want == prism::kernels::kNoDefect) {
        std::vector<index_t> got = k::download_and_wait(mirror, nullptr);
        got.resize(a.col_idx.size());
        EXPECT_EQ(got, want_mirror);
      }
    }
  }
}

TEST(ParallelColoringCuda, JonesPlassmannIsEquivalentToReference) {
  PRISM_SKIP_WITHOUT_GPU();
  std::vector<prism::test::NamedMatrix> cases = prism::test::coloring_cases();
  cases.push_back({"poisson3d 64x64x33", prism::poisson3d(64, 64, 33)});
  cases.push_back({"random 100003", prism::test::random_symmetric(100003, 400000, 3)});
  for (const auto& [name, a] : cases) {
    SCOPED_TRACE(name);
    std::vector<int> want(static_cast<std::size_t>(a.rows));
    const int want_count =
        prism::kernels::reference::jones_plassmann_coloring(host_view(a), want.data());
    const DeviceCsr d(a);
    k::DeviceBuffer<int> colors(want.size());
    EXPECT_EQ(k::jones_plassmann_coloring(d.view(), colors.data(), nullptr), want_count);
    EXPECT_EQ(k::download_and_wait(colors, nullptr), want);
  }
}

// Vertex orders (rank[row]) for the ordered greedy coloring: natural (empty), reversed,
// shuffled.
std::vector<std::vector<index_t>> test_ranks(index_t n) {
  std::vector<index_t> reversed(static_cast<std::size_t>(n));
  for (index_t v = 0; v < n; ++v) reversed[v] = n - 1 - v;
  std::vector<index_t> shuffled(reversed);
  std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937(12345));
  return {{}, reversed, shuffled};
}

TEST(ParallelColoringCuda, OrderedGreedyIsEquivalentToReference) {
  PRISM_SKIP_WITHOUT_GPU();
  std::vector<prism::test::NamedMatrix> cases = prism::test::coloring_cases();
  cases.push_back({"path 50", prism::poisson2d(50, 1)});
  cases.push_back({"poisson3d 40x33x31", prism::poisson3d(40, 33, 31)});
  // More rows than the sweep has tiles in flight, irregular chains in every order.
  cases.push_back({"random 100003", prism::test::random_symmetric(100003, 400000, 3)});
  for (const auto& [name, a] : cases) {
    const std::vector<std::vector<index_t>> ranks = test_ranks(a.rows);
    for (std::size_t r = 0; r < ranks.size(); ++r) {
      for (const int limit : {1 << 30, 0, 3, 40}) {
        SCOPED_TRACE(name + ", order " + std::to_string(r) + ", limit " + std::to_string(limit));
        const index_t* host_rank = ranks[r].empty() ? nullptr : ranks[r].data();
        std::vector<int> want(static_cast<std::size_t>(a.rows));
        const prism::kernels::GreedyColoring expected =
            prism::kernels::reference::ordered_greedy_coloring(host_view(a), host_rank, limit,
                                                               want.data());
        const DeviceCsr d(a);
        const k::DeviceBuffer<index_t> rank = k::upload_and_wait(ranks[r], nullptr);
        k::DeviceBuffer<int> colors(static_cast<std::size_t>(a.rows));
        const prism::kernels::GreedyColoring got = k::ordered_greedy_coloring(
            d.view(), host_rank == nullptr ? nullptr : rank.data(), limit, colors.data(), nullptr);
        EXPECT_EQ(got.colors, expected.colors);
        EXPECT_EQ(got.rounds, expected.rounds);
        EXPECT_EQ(got.exact, expected.exact);
        EXPECT_EQ(k::download_and_wait(colors, nullptr), want);
      }
    }
  }
}

// A pattern that is not structurally symmetric (the lower or the upper triangle of a grid)
// gives no meaningful coloring, but the sweep still ends: every vertex is counted off as
// often as it waits, and every color it returns is below the count.
TEST(ParallelColoringCuda, OrderedGreedyEndsOnAPatternThatIsNotSymmetric) {
  PRISM_SKIP_WITHOUT_GPU();
  const CsrMatrix<double> grid = prism::poisson2d(40, 37);
  for (const bool lower : {true, false}) {
    SCOPED_TRACE(lower ? "lower triangle" : "upper triangle");
    CsrMatrix<double> a{grid.rows, grid.cols, {0}, {}, {}};
    for (index_t i = 0; i < grid.rows; ++i) {
      for (index_t p = grid.row_ptr[i]; p < grid.row_ptr[i + 1]; ++p) {
        const index_t j = grid.col_idx[p];
        if (lower ? j <= i : j >= i) {
          a.col_idx.push_back(j);
          a.values.push_back(grid.values[p]);
        }
      }
      a.row_ptr.push_back(static_cast<index_t>(a.col_idx.size()));
    }
    const DeviceCsr d(a);
    k::DeviceBuffer<int> colors(static_cast<std::size_t>(a.rows));
    const prism::kernels::GreedyColoring got = k::ordered_greedy_coloring(
        d.view(), nullptr, prism::kernels::kGreedyRoundLimit, colors.data(), nullptr);
    ASSERT_TRUE(got.exact);
    for (const int c : k::download_and_wait(colors, nullptr)) {
      ASSERT_TRUE(c >= 0 && c < got.colors) << c << " of " << got.colors;
    }
  }
}

std::string setup_message(const CsrMatrix<double>& a, prism::BackendKind backend,
                          prism::MatrixCheck level) {
  prism::SolverConfig config;
  config.backend = backend;
  config.solver.check = level;
  config.preconditioner.type = "jacobi";
  try {
    prism::Solver solver(config);
    solver.setup(a);
  } catch (const prism::InvalidMatrixError& e) {
    return e.what();
  }
  return "accepted";
}

TEST(CudaSetup, ChecksRejectWithTheHostMessages) {
  PRISM_SKIP_WITHOUT_GPU();
  for (const auto& [name, a] : prism::test::defect_cases()) {
    for (const auto level :
         {prism::MatrixCheck::none, prism::MatrixCheck::pattern, prism::MatrixCheck::full}) {
      SCOPED_TRACE(name + ", check " + std::string(prism::to_string(level)));
      EXPECT_EQ(setup_message(a, prism::BackendKind::cuda, level),
                setup_message(a, prism::BackendKind::cpu, level));
    }
  }
}

// ic0 in color order with `method` and `order` on `backend`, b = 1, to 1e-8.
prism::SolveReport colored_solve(prism::BackendKind backend, prism::ColoringMethod method,
                                 prism::VertexOrder order, const CsrMatrix<double>& a) {
  prism::SolverConfig config;
  config.backend = backend;
  config.preconditioner.type = "ic0";
  config.preconditioner.ordering = prism::Ordering::color;
  config.preconditioner.coloring.method = method;
  config.preconditioner.coloring.vertex_order = order;
  config.solver.tolerance = 1e-8;
  prism::Solver solver(config);
  solver.setup(a);
  const std::vector<double> b(static_cast<std::size_t>(a.rows), 1.0);
  std::vector<double> x(b.size(), 0.0);
  return solver.solve(b, x);
}

TEST(CudaSetup, JonesPlassmannOrderingIsTheHostOrdering) {
  PRISM_SKIP_WITHOUT_GPU();
  const CsrMatrix<double> a = prism::poisson3d(30, 31, 29);
  prism::SolveReport reports[2];
  int slot = 0;
  for (const auto backend : {prism::BackendKind::cpu, prism::BackendKind::cuda}) {
    reports[slot++] = colored_solve(backend, prism::ColoringMethod::jones_plassmann,
                                    prism::VertexOrder::natural, a);
  }
  ASSERT_TRUE(reports[0].converged() && reports[1].converged());
  EXPECT_EQ(reports[0].ordering.method, "jones_plassmann");
  EXPECT_EQ(reports[1].ordering.colors.count, reports[0].ordering.colors.count);
  EXPECT_EQ(reports[1].ordering.colors.min_size, reports[0].ordering.colors.min_size);
  EXPECT_EQ(reports[1].ordering.colors.max_size, reports[0].ordering.colors.max_size);
  // The same ordering and factor: the iterations differ at most by rounding.
  EXPECT_NEAR(reports[1].iterations, reports[0].iterations, 1);
}

TEST(CudaSetup, ParallelGreedyOrderingIsBoostsGreedyOrdering) {
  PRISM_SKIP_WITHOUT_GPU();
  const CsrMatrix<double> a = prism::test::random_symmetric(20000, 90000, 3);
  for (const auto order : {prism::VertexOrder::natural, prism::VertexOrder::largest_first}) {
    SCOPED_TRACE(std::string(prism::to_string(order)));
    prism::SolveReport reports[2];
    int slot = 0;
    for (const auto method :
         {prism::ColoringMethod::greedy, prism::ColoringMethod::parallel_greedy}) {
      reports[slot++] = colored_solve(prism::BackendKind::cuda, method, order, a);
    }
    ASSERT_TRUE(reports[0].converged() && reports[1].converged());
    EXPECT_EQ(reports[1].ordering.method, "parallel_greedy");
    EXPECT_EQ(reports[1].ordering.colors.count, reports[0].ordering.colors.count);
    EXPECT_EQ(reports[1].ordering.colors.min_size, reports[0].ordering.colors.min_size);
    EXPECT_EQ(reports[1].ordering.colors.max_size, reports[0].ordering.colors.max_size);
    EXPECT_NEAR(reports[1].iterations, reports[0].iterations, 1);
  }
}

// coloring.method: auto (the default) colors by parallel_greedy's rounds on the GPU in
// the orders they take, with greedy's colors, and by Boost's greedy in smallest_last.
TEST(CudaSetup, AutoColorsByRoundsWhereTheyTakeTheOrder) {
  PRISM_SKIP_WITHOUT_GPU();
  const CsrMatrix<double> a = prism::test::random_symmetric(20000, 90000, 5);
  for (const auto order : {prism::VertexOrder::natural, prism::VertexOrder::largest_first,
                           prism::VertexOrder::smallest_last}) {
    SCOPED_TRACE(std::string(prism::to_string(order)));
    prism::SolveReport reports[2];
    int slot = 0;
    for (const auto method : {prism::ColoringMethod::greedy, prism::ColoringMethod::automatic}) {
      reports[slot++] = colored_solve(prism::BackendKind::cuda, method, order, a);
    }
    ASSERT_TRUE(reports[0].converged() && reports[1].converged());
    EXPECT_EQ(reports[1].ordering.method,
              order == prism::VertexOrder::smallest_last ? "greedy" : "parallel_greedy");
    EXPECT_EQ(reports[1].ordering.colors.count, reports[0].ordering.colors.count);
    EXPECT_EQ(reports[1].ordering.colors.min_size, reports[0].ordering.colors.min_size);
    EXPECT_EQ(reports[1].ordering.colors.max_size, reports[0].ordering.colors.max_size);
    EXPECT_EQ(reports[1].iterations, reports[0].iterations);
  }
}

}  // namespace
