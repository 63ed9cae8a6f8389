// Color-set triangular solves on the device: the schedule uploaded, in place equal to out
// of place, CSR and SELL layouts in double and mixed precision against the reference, and
// the automatic choice between the color-set solve and cuSPARSE. Skipped without a GPU.

#include <prism/analysis.hpp>
#include <prism/errors.hpp>
#include <prism/generators.hpp>

#include "backend/cuda_test_support.hpp"
#include "backend/split_triangle.hpp"
#include "kernels/cuda/colorset.hpp"
#include "kernels/cuda/device_memory.hpp"
#include "precond/ic0_pattern.hpp"

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

namespace {

using prism::CsrMatrix;
using prism::index_t;
using prism::test::CudaBackendTest;
using prism::test::grid_and_clique;
using prism::test::grid_and_hubs;
using prism::test::max_abs_diff;
using prism::test::random_vector;

// colorset_plan is the schedule with its steps on the device.
TEST_F(CudaBackendTest, ColorsetPlanUploadsTheSchedule) {
  namespace kc = prism::kernels::cuda;
  std::vector<index_t> block_ptr{0, 3000, 3010, 3030, 3040}, row_ptr{0};
  for (index_t i = 0; i < block_ptr.back(); ++i) row_ptr.push_back(row_ptr.back() + 5);
  cudaStream_t stream = nullptr;
  const kc::ColorsetPlan plan = kc::colorset_plan(row_ptr.data(), block_ptr, stream);
  const kc::ColorsetSchedule schedule = kc::colorset_schedule(row_ptr.data(), block_ptr);
  ASSERT_EQ(plan.steps.size(), schedule.steps.size());
  ASSERT_EQ(plan.runs.size(), schedule.runs.size());
  std::vector<kc::ColorsetStep> device(plan.device_steps.size());
  ASSERT_EQ(device.size(), plan.steps.size());
  ASSERT_EQ(cudaMemcpy(device.data(), plan.device_steps.data(),
                       device.size() * sizeof(kc::ColorsetStep), cudaMemcpyDefault),
            cudaSuccess);
  for (std::size_t i = 0; i < plan.steps.size(); ++i) {
    for (const kc::ColorsetStep& s : {plan.steps[i], device[i]}) {
      EXPECT_EQ(s.begin, schedule.steps[i].begin);
      EXPECT_EQ(s.end, schedule.steps[i].end);
      EXPECT_EQ(s.threads_per_row, schedule.steps[i].threads_per_row);
    }
  }
  for (std::size_t r = 0; r < plan.runs.size(); ++r) {
    EXPECT_EQ(plan.runs[r].first, schedule.runs[r].first);
    EXPECT_EQ(plan.runs[r].count, schedule.runs[r].count);
    EXPECT_EQ(plan.runs[r].fused, schedule.runs[r].fused);
  }
  EXPECT_TRUE(plan.runs[1].fused);
}

// x may alias b (kernels/cuda/colorset.hpp): in place, the CSR color-set solve (plain
// launches and fused runs) gives the solution of the solve into another vector, bit for
// bit.
TEST_F(CudaBackendTest, ColorsetSolveInPlaceEqualsOutOfPlace) {
  using prism::kernels::cuda::DeviceBuffer;
  using prism::kernels::cuda::upload_and_wait;
  cudaStream_t stream = nullptr;
  bool fused = false;  // some plan has a fused run
  // Colored, and the natural-order 2D grid: about 6300 blocks of one or two rows, one
  // fused run.
  const std::vector<std::pair<CsrMatrix<double>, bool>> matrices{
      {prism::read_matrix_market(std::string(PRISM_TEST_DATA_DIR) + "/bcsstk08.mtx"), true},
      {prism::poisson3d(21, 19, 17, 27), true},
      {grid_and_clique(), true},
      {grid_and_hubs(), true},
      {grid_and_hubs(), false},
      {prism::poisson2d(80, 80), false}};
  for (const auto& [m, colored] : matrices) {
    SCOPED_TRACE(m.rows);
    const CsrMatrix<double> a =
        colored ? prism::permute_symmetric(
                      m, prism::color_matrix(m, prism::VertexOrder::largest_first).permutation)
                : m;
    prism::precond::Ic0Pattern factor(a);
    factor.factorize(a, {});
    for (auto tri : {prism::backend::Triangle::lower, prism::backend::Triangle::upper}) {
      const prism::backend::SplitTriangle split(
          tri == prism::backend::Triangle::lower ? factor.lower() : factor.upper(), tri);
      const prism::backend::StrictTriangle& strict = split.strict();
      const auto plan =
          prism::kernels::cuda::colorset_plan(strict.row_ptr.data(), split.block_ptr(), stream);
      for (std::size_t r = 0; r < plan.runs.size(); ++r) {
        fused = fused || plan.runs[r].fused;
      }
      const DeviceBuffer<index_t> row_ptr = upload_and_wait(strict.row_ptr, stream);
      const DeviceBuffer<index_t> col_idx = upload_and_wait(strict.col_idx, stream);
      const DeviceBuffer<double> values = upload_and_wait(strict.values, stream);
      const DeviceBuffer<double> inverse = upload_and_wait(split.inverse_diagonal(), stream);
      const std::vector<double> b = random_vector(a.rows, 21);
      DeviceBuffer<double> rhs = upload_and_wait(b, stream), x(b.size()),
                           in_place = upload_and_wait(b, stream);
      const prism::kernels::CsrView<double> view{a.rows, a.rows, row_ptr.data(), col_idx.data(),
                                                 values.data()};
      const bool lower = tri == prism::backend::Triangle::lower;
      prism::kernels::cuda::colorset_solve(view, inverse.data(), plan, lower, rhs.data(), x.data(),
                                           stream);
      prism::kernels::cuda::colorset_solve(view, inverse.data(), plan, lower, in_place.data(),
                                           in_place.data(), stream);
      std::vector<double> hx(b.size()), hi(b.size());
      ASSERT_EQ(cudaMemcpy(hx.data(), x.data(), hx.size() * sizeof(double), cudaMemcpyDefault),
                cudaSuccess);
      ASSERT_EQ(
          cudaMemcpy(hi.data(), in_place.data(), hi.size() * sizeof(double), cudaMemcpyDefault),
          cudaSuccess);
      EXPECT_EQ(hi, hx);
      EXPECT_NE(hx, b);
    }
  }
  EXPECT_TRUE(fused);
}

TEST_F(CudaBackendTest, ColorsetTriangularSolvesAreEquivalentToReference) {
  std::vector<std::pair<std::string, CsrMatrix<double>>> matrices{
      {"n1", prism::poisson2d(1, 1)},
      {"diagonal", prism::csr_from_triplets(37, 37,
                                            [] {
                                              std::vector<prism::Triplet> t;
                                              for (index_t i = 0; i < 37; ++i) {
                                                t.push_back({i, i, 1.0 + i});
                                              }
                                              return t;
                                            }())},
      {"poisson3d_natural", prism::poisson3d(13, 11, 9)},
      {"poisson3d27", prism::poisson3d(21, 19, 17, 27)},
      {"bcsstk08", prism::read_matrix_market(std::string(PRISM_TEST_DATA_DIR) + "/bcsstk08.mtx")},
      {"grid_and_clique", grid_and_clique()},
      {"grid_and_hubs", grid_and_hubs()}};
  const std::string bcsstk13 = prism::test::shared_matrix("bcsstk13.mtx.gz");
  if (!bcsstk13.empty()) matrices.push_back({"bcsstk13", prism::read_matrix_market(bcsstk13)});
  for (std::size_t m = 0; m < matrices.size(); ++m) {
    for (bool colored : {false, true}) {
      const std::string& name = matrices[m].first;
      SCOPED_TRACE(name + (colored ? " color" : " natural"));
      CsrMatrix<double> a = matrices[m].second;
      if (colored) {
        a = prism::permute_symmetric(
            a, prism::color_matrix(a, prism::VertexOrder::largest_first).permutation);
      }
      prism::precond::Ic0Pattern factor(a);
      factor.factorize(a, {});
      for (auto tri : {prism::backend::Triangle::lower, prism::backend::Triangle::upper}) {
        const CsrMatrix<double>& t =
            tri == prism::backend::Triangle::lower ? factor.lower() : factor.upper();
        for (auto layout : {prism::ColorsetLayout::csr, prism::ColorsetLayout::sell}) {
          SCOPED_TRACE(prism::to_string(layout));
          expect_trisolve_matches_reference(t, tri, prism::TrisolveAlgorithm::colorset, 12,
                                            prism::Precision::fp64, layout);
          expect_trisolve_matches_reference(t, tri, prism::TrisolveAlgorithm::colorset, 13,
                                            prism::Precision::mixed, layout);
        }
      }
    }
  }
}

TEST_F(CudaBackendTest, MixedPrecisionSolveDiffersFromDoubleByFloatRounding) {
  const CsrMatrix<double> a = prism::permute_symmetric(
      prism::poisson3d(17, 16, 15),
      prism::color_matrix(prism::poisson3d(17, 16, 15), prism::VertexOrder::natural).permutation);
  prism::precond::Ic0Pattern factor(a);
  factor.factorize(a, {});
  const auto lower = prism::backend::Triangle::lower;
  auto mixed = gpu->make_triangular_solver(
      factor.lower(), lower, {prism::TrisolveAlgorithm::automatic, prism::Precision::mixed});
  auto full = gpu->make_triangular_solver(
      factor.lower(), lower, {prism::TrisolveAlgorithm::automatic, prism::Precision::fp64});
  EXPECT_EQ(mixed->algorithm(), "colorset");
  auto b = both(random_vector(a.rows, 4)), xm = both(std::vector<double>(a.rows, 0.0)),
       xd = both(std::vector<double>(a.rows, 0.0));
  mixed->solve(*b.g, *xm.g);
  full->solve(*b.g, *xd.g);
  const auto vm = host(*gpu, *xm.g), vd = host(*gpu, *xd.g);
  double scale = 0.0;
  for (double v : vd) scale = std::max(scale, std::abs(v));
  // The factor's values carry float's relative error 2^-24 ~ 6e-8; a well-conditioned
  // solve passes it on, amplified at most by a small factor.
  const double diff = max_abs_diff(vm, vd);
  EXPECT_GT(diff, 0.0);
  EXPECT_LE(diff, 1e-5 * scale);
  // cusparse has no float factor in a double solve.
  EXPECT_THROW(
      gpu->make_triangular_solver(factor.lower(), lower,
                                  {prism::TrisolveAlgorithm::cusparse, prism::Precision::mixed}),
      prism::ConfigError);
}

TEST_F(CudaBackendTest, AutoTrisolvePicksColorsetForFewBlocksAndCusparseForMany) {
  const CsrMatrix<double> a = prism::poisson3d(30, 30, 30);
  prism::precond::Ic0Pattern natural(a);
  natural.factorize(a, {});
  EXPECT_EQ(
      gpu->make_triangular_solver(natural.lower(), prism::backend::Triangle::lower,
                                  {prism::TrisolveAlgorithm::automatic, prism::Precision::fp64})
          ->algorithm(),
      "cusparse");
  const CsrMatrix<double> colored =
      prism::permute_symmetric(a, prism::color_matrix(a, prism::VertexOrder::natural).permutation);
  prism::precond::Ic0Pattern factor(colored);
  factor.factorize(colored, {});
  EXPECT_EQ(
      gpu->make_triangular_solver(factor.lower(), prism::backend::Triangle::lower,
                                  {prism::TrisolveAlgorithm::automatic, prism::Precision::fp64})
          ->algorithm(),
      "colorset");
}

}  // namespace
