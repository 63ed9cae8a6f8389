// Line IC's solves (kernels/line_ic.hpp): the reference against dense solves with the same
// operators, the threaded kernels against the reference's bits, and the tiles of the
// GPU launches, on the awkward cases of line_ic_test_factors.hpp.

#include "common/test_matrices.hpp"
#include "kernels/line_ic.hpp"
#include "kernels/line_ic_test_factors.hpp"

#include <prism/errors.hpp>

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

using prism::index_t;

std::string describe(const std::vector<std::vector<index_t>>& lengths) {
  std::string out;
  for (const auto& color : lengths) {
    out += "{";
    for (std::size_t l = 0; l < color.size() && l < 6; ++l) out += std::to_string(color[l]) + " ";
    out += color.size() > 6 ? "...}" : "}";
  }
  return out;
}

TEST(LineIcKernels, ReferenceSolvesTheDenseOperators) {
  unsigned seed = 1;
  for (const auto& lengths : prism::test::line_ic_cases()) {
    SCOPED_TRACE(describe(lengths));
    const auto f = prism::test::random_line_ic_factor(lengths, seed++);
    const index_t n = f.line_ptr.back();
    if (n > 4000) continue;  // the dense check stays small
    const std::vector<double> r = prism::test::random_vector(n, seed);
    std::vector<double> w(static_cast<std::size_t>(n)), z(w.size());
    prism::kernels::reference::line_ic_forward(prism::test::line_ic_view(f), r.data(), w.data());
    prism::kernels::reference::line_ic_backward(prism::test::line_ic_view(f), w.data(), z.data());
    Eigen::MatrixXd d, l;
    prism::test::dense_line_ic(f, d, l);
    // w = (D + L)^{-1} r, z = (D + L^T)^{-1} D w
    const Eigen::VectorXd want_w =
        (d + l).partialPivLu().solve(Eigen::Map<const Eigen::VectorXd>(r.data(), n));
    const Eigen::VectorXd want_z = (d + l.transpose()).partialPivLu().solve(d * want_w);
    const Eigen::Map<const Eigen::VectorXd> got_w(w.data(), n), got_z(z.data(), n);
    EXPECT_LE((got_w - want_w).norm(), 1e-12 * want_w.norm());
    EXPECT_LE((got_z - want_z).norm(), 1e-12 * want_z.norm());
  }
}

TEST(LineIcKernels, ThreadedAreTheReferenceBits) {
  unsigned seed = 11;
  for (const auto& lengths : prism::test::line_ic_cases()) {
    SCOPED_TRACE(describe(lengths));
    const auto f = prism::test::random_line_ic_factor(lengths, seed++);
    const auto v = prism::test::line_ic_view(f);
    const index_t n = f.line_ptr.back();
    const std::vector<double> r = prism::test::random_vector(n, seed);
    std::vector<double> w(static_cast<std::size_t>(n)), z(w.size());
    prism::kernels::reference::line_ic_forward(v, r.data(), w.data());
    prism::kernels::reference::line_ic_backward(v, w.data(), z.data());
    for (const int threads : {1, 2, 3, 8}) {
      std::vector<double> wt(w.size(), -1.0), zt(w.size(), -1.0);
      prism::kernels::host::line_ic_forward(threads, v, r.data(), wt.data());
      prism::kernels::host::line_ic_backward(threads, v, wt.data(), zt.data());
      EXPECT_EQ(wt, w) << threads << " threads";
      EXPECT_EQ(zt, z) << threads << " threads";
    }
  }
}

// A color's trailing lines of one row are its points part; tiles close before the line
// that would pass the limit; a longer line is a tile alone.
TEST(LineIcKernels, PlanOfTheGpuLaunches) {
  // Color 0: lines of 300, 100, 100, 100, 1 rows; color 1: 2, 2; color 2: 1, 1, 1;
  // color 3: 1, 3, 1.
  const std::vector<index_t> line_ptr{0,   300, 400, 500, 600, 601, 603,
                                      605, 606, 607, 608, 609, 612, 613};
  const std::vector<index_t> color_ptr{0, 5, 7, 10, 13};
  const prism::kernels::LineIcPlan p = prism::kernels::line_ic_plan(line_ptr, color_ptr, 256);
  EXPECT_EQ(p.range_ptr, (std::vector<index_t>{0, 600, 601, 605, 605, 605, 608, 612, 613}));
  EXPECT_EQ(p.tile_begin, (std::vector<index_t>{0, 300, 500, 601, 608}));
  EXPECT_EQ(p.tile_end, (std::vector<index_t>{300, 500, 600, 605, 612}));
  EXPECT_EQ(p.color_tile, (std::vector<index_t>{0, 3, 4, 4, 5}));
  const prism::kernels::LineIcPlan one =
      prism::kernels::line_ic_plan(line_ptr, color_ptr, 1);  // every line alone
  EXPECT_EQ(one.tile_begin, (std::vector<index_t>{0, 300, 400, 500, 601, 603, 608, 609}));
  EXPECT_EQ(one.color_tile, (std::vector<index_t>{0, 4, 6, 6, 8}));
  EXPECT_EQ(one.range_ptr, p.range_ptr);
  EXPECT_THROW(prism::kernels::line_ic_plan(line_ptr, color_ptr, 0), prism::Error);
}

}  // namespace
