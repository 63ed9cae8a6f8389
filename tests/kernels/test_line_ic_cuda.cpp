// Line IC's GPU solves (kernels/cuda/line_ic.hpp, through the cuda backend's LineIcSolver)
// against the reference on the awkward cases of line_ic_test_factors.hpp: a single row,
// lines of 1, 2 and 37 rows a color each, mixed lengths, many lines in four colors (tiles
// of several lines), lines longer than a tile (run in chunks), colors of lines of one row
// alone (the points path) and with longer lines (a launch of both). The sweeps run as
// scans and the row sums add products before subtracting them, so the criterion is
// closeness to rounding. Skips without a device.

#include "backend/backend.hpp"
#include "common/gpu.hpp"
#include "common/test_matrices.hpp"
#include "kernels/line_ic.hpp"
#include "kernels/line_ic_test_factors.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace {

using prism::index_t;

double relative_difference(const std::vector<double>& got, const std::vector<double>& want) {
  double diff = 0.0, norm = 0.0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    diff = std::max(diff, std::abs(got[i] - want[i]));
    norm = std::max(norm, std::abs(want[i]));
  }
  return norm > 0.0 ? diff / norm : diff;
}

TEST(LineIcCuda, SolvesAreEquivalentToReference) {
  PRISM_SKIP_WITHOUT_GPU();
  auto backend = prism::backend::make_backend(prism::BackendKind::cuda, nullptr);
  unsigned seed = 21;
  for (const auto& lengths : prism::test::line_ic_cases()) {
    const auto f = prism::test::random_line_ic_factor(lengths, seed++);
    const auto v = prism::test::line_ic_view(f);
    const index_t n = f.line_ptr.back();
    SCOPED_TRACE(std::to_string(n) + " rows, " + std::to_string(lengths.size()) + " colors");
    const std::vector<double> r = prism::test::random_vector(n, seed);
    std::vector<double> w(static_cast<std::size_t>(n)), z(w.size());
    prism::kernels::reference::line_ic_forward(v, r.data(), w.data());
    prism::kernels::reference::line_ic_backward(v, w.data(), z.data());

    auto solver = backend->make_line_ic_solver(f);
    solver->update_values(f);
    auto rd = backend->make_vector(n), wd = backend->make_vector(n), zd = backend->make_vector(n);
    backend->copy_from_host(r, *rd);
    solver->forward(*rd, *wd);
    solver->backward(*wd, *zd);
    std::vector<double> w_got, z_got;
    backend->copy_to_host(*wd, w_got);
    backend->copy_to_host(*zd, z_got);
    EXPECT_LE(relative_difference(w_got, w), 1e-13);
    EXPECT_LE(relative_difference(z_got, z), 1e-13);
  }
}

}  // namespace
