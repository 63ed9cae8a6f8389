// The device order of a coloring (kernels/cuda/color_order.hpp) against its reference
// (kernels/color_order.hpp) and prism::coloring_of on awkward colorings: no rows, one
// row, one color, empty colors, ties in the sizes, thousands of colors; and the cuda
// set-up session's ordered_coloring (backend/setup.hpp) against coloring_of of the colors
// its plain coloring calls give, with permute() on the permutation it kept equal to the
// host's; through the solver, the device's coloring steps and the host's with balance.
// Skips without a device.

#include <prism/analysis.hpp>
#include <prism/generators.hpp>
#include <prism/solver.hpp>

#include "analysis/color_order.hpp"
#include "backend/cuda/cuda_setup.hpp"
#include "common/gpu.hpp"
#include "kernels/color_order.hpp"
#include "kernels/cuda/color_order.hpp"
#include "kernels/cuda/device_memory.hpp"
#include "kernels/setup_test_matrices.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

namespace {

using prism::index_t;
namespace k = prism::kernels::cuda;

struct NamedColors {
  std::string name;
  std::vector<int> colors;
  int count;
};

std::vector<int> random_colors(index_t n, int count, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> pick(0, count - 1);
  std::vector<int> colors(static_cast<std::size_t>(n));
  for (int& c : colors) c = pick(gen);
  return colors;
}

std::vector<NamedColors> awkward_colorings() {
  std::vector<NamedColors> cases{{"no rows", {}, 0},
                                 {"one row", {0}, 1},
                                 {"one color", std::vector<int>(1000, 0), 1},
                                 {"empty colors", {3, 0, 3, 3, 0, 5, 3}, 7},
                                 {"ties", {2, 1, 0, 0, 1, 2, 3, 3, 1, 0, 2, 3}, 4},
                                 {"ties after the first", {1, 2, 0, 0, 2, 1, 0, 4, 3}, 5}};
  cases.push_back({"8 colors, 100000 rows", random_colors(100000, 8, 3), 8});
  cases.push_back({"3000 colors, 70001 rows", random_colors(70001, 3000, 5), 3000});
  cases.push_back({"40000 colors, 50000 rows", random_colors(50000, 40000, 9), 40000});
  return cases;
}

TEST(ColorOrderCuda, IsTheReferencesAndColoringOf) {
  PRISM_SKIP_WITHOUT_GPU();
  for (const auto& [name, colors, count] : awkward_colorings()) {
    SCOPED_TRACE(name);
    const auto n = static_cast<index_t>(colors.size());
    std::vector<index_t> sizes(static_cast<std::size_t>(count));
    prism::kernels::reference::color_sizes(n, colors.data(), count, sizes.data());
    k::DeviceBuffer<int> device_colors = k::upload_and_wait(colors, nullptr);
    k::DeviceBuffer<index_t> device_sizes(sizes.size());
    k::color_sizes(n, device_colors.data(), count, device_sizes.data(), nullptr);
    EXPECT_EQ(k::download_and_wait(device_sizes, nullptr), sizes);

    const std::vector<int> new_id = prism::kernels::colors_by_size(sizes);
    std::vector<int> renumbered = colors;
    std::vector<index_t> perm(colors.size());
    prism::kernels::reference::order_by_color(n, renumbered.data(), new_id.data(), count,
                                              perm.data());
    const k::DeviceBuffer<int> device_new_id = k::upload_and_wait(new_id, nullptr);
    k::DeviceBuffer<index_t> device_perm(perm.size());
    k::order_by_color(n, device_colors.data(), device_new_id.data(), count, device_perm.data(),
                      nullptr);
    EXPECT_EQ(k::download_and_wait(device_perm, nullptr), perm);
    EXPECT_EQ(k::download_and_wait(device_colors, nullptr), renumbered);

    const prism::Coloring host = prism::coloring_of(colors, count);
    EXPECT_EQ(perm, host.permutation);
    EXPECT_EQ(renumbered, host.color);
    EXPECT_EQ(prism::kernels::renumbered_color_ptr(sizes, new_id), host.color_ptr);
  }
}

/// The colors and count of the session's plain coloring call for `method`.
prism::Coloring plain_coloring(const prism::CsrMatrix<double>& a, prism::ColoringMethod method,
                               const std::vector<index_t>& rank,
                               prism::kernels::GreedyColoring& result) {
  auto session = prism::backend::cuda::make_cuda_setup_session(a, nullptr);
  std::vector<int> colors;
  if (method == prism::ColoringMethod::jones_plassmann) {
    result = prism::kernels::GreedyColoring{};
    result.colors = session->color_rows(colors);
  } else {
    result = session->color_rows_in_order(rank, colors);
  }
  return prism::coloring_of(std::move(colors), result.colors);
}

TEST(CudaSetupColoring, OrderedColoringIsColoringOfTheSessionsColors) {
  PRISM_SKIP_WITHOUT_GPU();
  using prism::ColoringMethod;
  using prism::VertexOrder;
  const std::vector<std::pair<ColoringMethod, VertexOrder>> runs{
      {ColoringMethod::jones_plassmann, VertexOrder::natural},
      {ColoringMethod::parallel_greedy, VertexOrder::natural},
      {ColoringMethod::parallel_greedy, VertexOrder::largest_first}};
  for (const auto& [name, a] : prism::test::coloring_cases()) {
    for (const auto& [method, order] : runs) {
      for (const bool with_colors : {false, true}) {
        SCOPED_TRACE(name + ", " + std::string(prism::to_string(method)) + ", " +
                     std::string(prism::to_string(order)) + (with_colors ? ", colors" : ""));
        const std::vector<index_t> rank = prism::analysis::greedy_rank(a, order);
        prism::kernels::GreedyColoring expected_result;
        const prism::Coloring expected = plain_coloring(a, method, rank, expected_result);

        auto session = prism::backend::cuda::make_cuda_setup_session(a, nullptr);
        prism::Coloring coloring;
        prism::kernels::GreedyColoring result;
        ASSERT_TRUE(session->ordered_coloring(method, rank, with_colors, coloring, result));
        EXPECT_EQ(result.colors, expected_result.colors);
        EXPECT_EQ(result.rounds, expected_result.rounds);
        EXPECT_EQ(result.exact, expected_result.exact);
        EXPECT_EQ(coloring.num_colors, expected.num_colors);
        EXPECT_EQ(coloring.permutation, expected.permutation);
        EXPECT_EQ(coloring.color_ptr, expected.color_ptr);
        EXPECT_EQ(coloring.color, with_colors ? expected.color : std::vector<int>{});

        // permute() on the kept permutation, then on a copy (uploaded): the host's matrix.
        std::vector<index_t> source;
        const prism::CsrMatrix<double> host =
            prism::permute_symmetric(a, expected.permutation, &source);
        for (const bool copy : {false, true}) {
          SCOPED_TRACE(copy ? "a copy of the permutation" : "the kept permutation");
          const std::vector<index_t> copied = coloring.permutation;
          const std::vector<index_t>* given = copy ? &copied : &coloring.permutation;
          prism::CsrMatrix<double> ordered;
          std::vector<index_t> ordered_source;
          ASSERT_TRUE(session->permute(*given, ordered, ordered_source));
          EXPECT_EQ(ordered.row_ptr, host.row_ptr);
          EXPECT_EQ(ordered.col_idx, host.col_idx);
          EXPECT_EQ(ordered.values, host.values);
          EXPECT_EQ(ordered_source, source);
        }
      }
    }
  }
}

// Through the solver: the device's coloring steps run and fit in coloring_seconds, with
// the Boost greedy's colors and iterations; coloring.balance orders on the host.
TEST(CudaSetupColoring, SolverOrdersOnTheDeviceUnlessBalanced) {
  PRISM_SKIP_WITHOUT_GPU();
  const prism::CsrMatrix<double> a = prism::poisson3d(20, 17, 11);
  const std::vector<double> b(static_cast<std::size_t>(a.rows), 1.0);
  const auto solve = [&](prism::ColoringMethod method, bool balance, prism::SetupReport& setup) {
    prism::SolverConfig config;
    config.backend = prism::BackendKind::cuda;
    config.preconditioner.type = "ic0";
    config.preconditioner.coloring.method = method;
    config.preconditioner.coloring.balance = balance;
    config.solver.tolerance = 1e-8;
    prism::Solver solver(config);
    solver.setup(a);
    setup = solver.setup_report();
    std::vector<double> x(b.size(), 0.0);
    return solver.solve(b, x);
  };
  const auto has = [](const prism::SetupReport& s, const std::string& name) {
    return std::any_of(s.steps.begin(), s.steps.end(),
                       [&](const prism::SetupStep& t) { return t.name == name && t.device; });
  };
  const std::string rounds = "coloring: ordered rounds (device)";
  const std::string order = "coloring: colors by size, permutation (device)";
  prism::SetupReport greedy_setup, auto_setup, balanced_setup;
  const prism::SolveReport greedy = solve(prism::ColoringMethod::greedy, false, greedy_setup);
  const prism::SolveReport automatic = solve(prism::ColoringMethod::automatic, false, auto_setup);
  ASSERT_TRUE(greedy.converged() && automatic.converged());
  EXPECT_EQ(automatic.ordering.method, "parallel_greedy");
  EXPECT_TRUE(has(auto_setup, rounds) && has(auto_setup, order));
  double coloring_steps = 0.0;
  for (const prism::SetupStep& t : auto_setup.steps) {
    if (t.name.rfind("coloring:", 0) == 0) coloring_steps += t.seconds;
  }
  EXPECT_LE(coloring_steps, auto_setup.coloring_seconds);
  EXPECT_EQ(automatic.ordering.colors.count, greedy.ordering.colors.count);
  EXPECT_EQ(automatic.ordering.colors.max_size, greedy.ordering.colors.max_size);
  EXPECT_EQ(automatic.iterations, greedy.iterations);

  const prism::SolveReport balanced = solve(prism::ColoringMethod::automatic, true, balanced_setup);
  ASSERT_TRUE(balanced.converged());
  EXPECT_TRUE(balanced.ordering.balanced);
  EXPECT_FALSE(has(balanced_setup, order));
  EXPECT_EQ(balanced.ordering.colors.count, greedy.ordering.colors.count);
}

}  // namespace
