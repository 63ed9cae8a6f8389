// The CUDA backend's vector operations, fused CG steps, SpMV, cuSPARSE triangular solves,
// value checks and phase timer against the CPU (reference) backend on the same data, on
// awkward sizes. The other backend suites: test_cuda_colorset.cpp, test_cuda_ic0_*.cpp,
// test_cuda_solve*.cpp. Skipped without a GPU.

#include <prism/analysis.hpp>
#include <prism/errors.hpp>
#include <prism/generators.hpp>

#include "backend/cuda_test_support.hpp"
#include "kernels/cuda/device_info.hpp"
#include "kernels/sell.hpp"
#include "precond/ic0_pattern.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace {

using prism::CsrMatrix;
using prism::index_t;
using prism::backend::Backend;
using prism::backend::Scalar;
using prism::test::CudaBackendTest;
using prism::test::DeviceValues;
using prism::test::max_abs_diff;
using prism::test::random_vector;

const std::vector<index_t> kSizes{1, 31, 32, 33, 1000, 100003};

TEST_F(CudaBackendTest, VectorOperationsAreEquivalentToReference) {
  for (index_t n : kSizes) {
    SCOPED_TRACE(n);
    const auto xv = random_vector(n, 1), yv = random_vector(n, 2), dv = random_vector(n, 3);
    auto x = both(xv), y = both(yv), d = both(dv);

    gpu->dot(*x.g, *y.g, Scalar::pq);
    cpu->dot(*x.c, *y.c, Scalar::pq);
    const double dg = gpu->read_scalars()[2], dc = cpu->read_scalars()[2];
    EXPECT_NEAR(dg, dc, 1e-12 * n);

    gpu->axpy(-0.75, *x.g, *y.g);
    cpu->axpy(-0.75, *x.c, *y.c);
    EXPECT_LE(max_abs_diff(host(*gpu, *y.g), host(*cpu, *y.c)), 1e-15);

    gpu->pointwise_multiply(*d.g, *x.g, *y.g);
    cpu->pointwise_multiply(*d.c, *x.c, *y.c);
    EXPECT_EQ(host(*gpu, *y.g), host(*cpu, *y.c));

    gpu->copy(*x.g, *y.g);
    EXPECT_EQ(host(*gpu, *y.g), xv);
  }
}

TEST_F(CudaBackendTest, FusedCgStepsAreEquivalentToReference) {
  for (index_t n : kSizes) {
    SCOPED_TRACE(n);
    auto p = both(random_vector(n, 4)), q = both(random_vector(n, 5)),
         x = both(random_vector(n, 6)), r = both(random_vector(n, 7)),
         z = both(random_vector(n, 8));
    for (Backend* b : {gpu.get(), cpu.get()}) {
      auto& P = b == gpu.get() ? p.g : p.c;
      auto& Q = b == gpu.get() ? q.g : q.c;
      auto& R = b == gpu.get() ? r.g : r.c;
      auto& Z = b == gpu.get() ? z.g : z.c;
      b->dot(*P, *P, Scalar::rz);  // rz > 0
      b->dot(*P, *Q, Scalar::pq);
      b->dot(*P, *P, Scalar::pq);  // make pq > 0 too
      b->dot(*R, *Z, Scalar::rz_new);
    }
    gpu->cg_update(*p.g, *q.g, *x.g, *r.g);
    cpu->cg_update(*p.c, *q.c, *x.c, *r.c);
    EXPECT_LE(max_abs_diff(host(*gpu, *x.g), host(*cpu, *x.c)), 1e-14);
    EXPECT_LE(max_abs_diff(host(*gpu, *r.g), host(*cpu, *r.c)), 1e-14);
    gpu->cg_direction(*z.g, *p.g);
    cpu->cg_direction(*z.c, *p.c);
    EXPECT_LE(max_abs_diff(host(*gpu, *p.g), host(*cpu, *p.c)), 1e-13);
    const auto sg = gpu->read_scalars(), sc = cpu->read_scalars();
    for (int i = 0; i < prism::backend::kNumScalars; ++i) {
      EXPECT_NEAR(sg[i], sc[i], 1e-11 * (1.0 + std::abs(sc[i]))) << "scalar " << i;
    }
  }
}

TEST_F(CudaBackendTest, UpdateIsSkippedWhenCurvatureIsNotPositive) {
  const index_t n = 77;
  auto p = both(random_vector(n, 1)), q = both(random_vector(n, 2)), x = both(random_vector(n, 3)),
       r = both(random_vector(n, 4));
  auto zero = both(std::vector<double>(n, 0.0));
  gpu->dot(*p.g, *p.g, Scalar::rz);
  gpu->dot(*zero.g, *p.g, Scalar::pq);  // pq = 0: alpha must be 0, x and r unchanged
  const auto x0 = host(*gpu, *x.g);
  gpu->cg_update(*p.g, *q.g, *x.g, *r.g);
  EXPECT_EQ(host(*gpu, *x.g), x0);
}

TEST_F(CudaBackendTest, SpmvIsEquivalentToReference) {
  for (const CsrMatrix<double>& a :
       {prism::poisson2d(1, 1), prism::poisson2d(31, 33), prism::poisson3d(17, 9, 13, 27),
        prism::read_matrix_market(std::string(PRISM_TEST_DATA_DIR) + "/bcsstk08.mtx"),
        prism::csr_from_triplets(3, 3, {{0, 0, 1.0}, {2, 2, 2.0}}),  // an empty row
        prism::poisson3d(10, 10, 10, 27)}) {                         // 32 threads per row
    SCOPED_TRACE(a.rows);
    auto ac = cpu->make_matrix(a, prism::SpmvAlgorithm::automatic);
    auto x = both(random_vector(a.rows, 9)), y = both(std::vector<double>(a.rows, 0.0));
    cpu->spmv(*ac, *x.c, *y.c);
    double scale = 0.0;
    for (double v : a.values) scale = std::max(scale, std::abs(v));
    for (auto algorithm : {prism::SpmvAlgorithm::cusparse, prism::SpmvAlgorithm::csr_vector,
                           prism::SpmvAlgorithm::sell}) {
      SCOPED_TRACE(prism::to_string(algorithm));
      auto ag = gpu->make_matrix(a, algorithm);
      EXPECT_EQ(ag->algorithm(), prism::to_string(algorithm));
      gpu->spmv(*ag, *x.g, *y.g);
      EXPECT_LE(max_abs_diff(host(*gpu, *y.g), host(*cpu, *y.c)), 1e-13 * scale * 27);
      // y = A x with x . y in the same pass (fused for sell).
      EXPECT_EQ(gpu->fuses_spmv_dot(*ag), algorithm == prism::SpmvAlgorithm::sell);
      auto y2 = both(std::vector<double>(a.rows, 0.0));
      gpu->spmv_dot(*ag, *x.g, *y2.g, Scalar::pq);
      cpu->spmv_dot(*ac, *x.c, *y2.c, Scalar::pq);
      EXPECT_LE(max_abs_diff(host(*gpu, *y2.g), host(*cpu, *y2.c)), 1e-13 * scale * 27);
      const double pq_g = gpu->read_scalars()[static_cast<int>(Scalar::pq)];
      const double pq_c = cpu->read_scalars()[static_cast<int>(Scalar::pq)];
      EXPECT_NEAR(pq_g, pq_c, 1e-12 * (1.0 + std::abs(pq_c)) * std::sqrt(a.rows + 1.0));
      // New values on the same pattern (refactor): 3 A x.
      std::vector<double> tripled = a.values;
      for (double& v : tripled) v *= 3.0;
      ag->update_values(tripled);
      gpu->spmv(*ag, *x.g, *y.g);
      auto y3 = host(*gpu, *y.g);
      for (double& v : y3) v /= 3.0;
      EXPECT_LE(max_abs_diff(y3, host(*cpu, *y.c)), 1e-13 * scale * 27);
    }
  }
}

TEST_F(CudaBackendTest, AutoLayoutsPickSellUnlessPaddingIsLarge) {
  // Poisson: SELL-32 stores ~1.0 entries per nonzero.
  const CsrMatrix<double> p = prism::poisson3d(20, 20, 20);
  EXPECT_EQ(gpu->make_matrix(p, prism::SpmvAlgorithm::automatic)->algorithm(), "sell");
  // An arrow matrix: one dense row pads its whole slice, 32x the nonzeros of the rest.
  std::vector<prism::Triplet> t;
  const index_t n = 4096;
  for (index_t i = 0; i < n; ++i) t.push_back({i, i, 4.0});
  for (index_t j = 1; j < n; ++j) t.push_back({0, j, 1.0});
  EXPECT_EQ(gpu->make_matrix(prism::csr_from_triplets(n, n, t), prism::SpmvAlgorithm::automatic)
                ->algorithm(),
            "cusparse");
  // Color-set solves: SELL on a colored factor whose colors fill a quarter of the GPU's
  // resident threads (131k rows per color); CSR where the blocks are smaller (4k rows
  // per color; a natural order: one partial slice per block).
  const auto colored = [](const CsrMatrix<double>& a) {
    return prism::permute_symmetric(
        a, prism::color_matrix(a, prism::VertexOrder::natural).permutation);
  };
  const CsrMatrix<double> large = colored(prism::poisson3d(64, 64, 64));
  ASSERT_GE(large.rows / 2,
            prism::kernels::kSellAutoMinBlockFraction * prism::kernels::cuda::resident_threads());
  const auto lower = prism::backend::Triangle::lower;
  for (const auto& [a, expected] : std::vector<std::pair<CsrMatrix<double>, std::string>>{
           {large, "sell"}, {colored(p), "csr"}, {p, "csr"}}) {
    prism::precond::Ic0Pattern f(a);
    f.factorize(a, {});
    EXPECT_EQ(gpu->make_triangular_solver(f.lower(), lower, {prism::TrisolveAlgorithm::colorset})
                  ->layout(),
              expected);
  }
}

TEST_F(CudaBackendTest, CusparseTriangularSolvesAreEquivalentToReference) {
  std::vector<CsrMatrix<double>> matrices{
      prism::poisson2d(1, 1), prism::poisson3d(13, 11, 9),
      prism::read_matrix_market(std::string(PRISM_TEST_DATA_DIR) + "/bcsstk08.mtx")};
  // The same factor in color order: what ordering: color feeds the solves.
  const auto coloring = prism::color_matrix(matrices[1], prism::VertexOrder::natural);
  matrices.push_back(prism::permute_symmetric(matrices[1], coloring.permutation));
  for (const CsrMatrix<double>& a : matrices) {
    SCOPED_TRACE(a.rows);
    prism::precond::Ic0Pattern factor(a);
    factor.factorize(a, {});
    for (auto tri : {prism::backend::Triangle::lower, prism::backend::Triangle::upper}) {
      const CsrMatrix<double>& t =
          tri == prism::backend::Triangle::lower ? factor.lower() : factor.upper();
      expect_trisolve_matches_reference(t, tri, prism::TrisolveAlgorithm::cusparse, 10);
    }
  }
}

TEST_F(CudaBackendTest, ReferenceTrisolveIsRejectedOnTheGpu) {
  const auto a = prism::poisson2d(3, 3);
  EXPECT_THROW(
      gpu->make_triangular_solver(a, prism::backend::Triangle::lower,
                                  {prism::TrisolveAlgorithm::reference, prism::Precision::fp64}),
      prism::ConfigError);
}

TEST_F(CudaBackendTest, PhaseTimerRecordsEveryIteration) {
  auto x = both(random_vector(100000, 1));
  auto& t = gpu->timer();
  t.set_enabled(true);
  for (int it = 0; it < 3; ++it) {
    t.begin(prism::Phase::dot);
    gpu->dot(*x.g, *x.g, Scalar::rr);
    t.end(prism::Phase::dot);
    t.next_iteration();
  }
  const auto times = t.per_iteration();
  ASSERT_EQ(times.size(), 3u);
  for (const auto& rec : times) EXPECT_GT(rec[static_cast<int>(prism::Phase::dot)], 0.0);
  EXPECT_GT(gpu->reference_bandwidth(), 1e11);  // any GPU prism targets beats 100 GB/s
}

// The values check and the inversion of refactor_on_backend against the reference
// kernels, on awkward sizes, with problems planted alone and together.
TEST_F(CudaBackendTest, ValueChecksAreEquivalentToReference) {
  for (const CsrMatrix<double>& a :
       {prism::poisson2d(1, 1), prism::poisson2d(7, 5), prism::poisson3d(33, 31, 29)}) {
    const std::vector<index_t> mirror = prism::mirror_entries(a);
    const auto gmap = gpu->make_index_map(mirror);
    const auto cmap = cpu->make_index_map(mirror);
    const index_t nnz = a.nnz();
    index_t diag = 0;
    while (a.col_idx[diag] != 0) ++diag;
    const index_t late = nnz - 1, mid = nnz / 2;
    // A pair of mirror entries (up before low in storage): a change on either side must be
    // found, and reported at the pair's first entry.
    index_t up = 0;
    while (up < nnz && mirror[up] <= up) ++up;
    const index_t low = up < nnz ? mirror[up] : late;
    up = std::min(up, late);
    using Plant = std::vector<std::pair<index_t, double>>;
    for (const Plant& plant :
         {Plant{}, Plant{{diag, 0.0}}, Plant{{late, std::nan("")}},
          Plant{{mid, a.values[mid] + 1e-3}},
          Plant{{late, std::numeric_limits<double>::infinity()}, {diag, -2.0}},
          Plant{{mid, a.values[mid] + 1e-3}, {late, a.values[late] + 1e-3}},
          Plant{{late, -1.0}, {mid, a.values[mid] + 1e-3}},
          Plant{{mid, a.values[mid] * (1.0 + 1e-15)}}, Plant{{up, a.values[up] + 1e-3}},
          Plant{{low, a.values[low] - 1e-3}}}) {
      std::vector<double> v = a.values;
      for (const auto& [k, value] : plant) v[k] = value;
      SCOPED_TRACE("nnz " + std::to_string(nnz) + ", " + std::to_string(plant.size()) + " planted");
      const DeviceValues dv(v);
      EXPECT_TRUE(gpu->reads(dv.data()));
      EXPECT_FALSE(gpu->reads(v.data()));
      EXPECT_EQ(gpu->first_bad_value(dv.data(), *gmap, 1e-12),
                cpu->first_bad_value(v.data(), *cmap, 1e-12));
    }
  }
  for (index_t n : {1, 33, 1000, 100003}) {
    std::vector<double> d = random_vector(n, 3);
    for (double& x : d) x = 1.0 + std::abs(x);
    auto good = both(d);
    EXPECT_EQ(gpu->invert_positive(*good.g), -1);
    EXPECT_EQ(cpu->invert_positive(*good.c), -1);
    EXPECT_EQ(host(*gpu, *good.g), host(*cpu, *good.c));
    d[static_cast<std::size_t>(n - 1)] = 0.0;
    if (n > 40) d[37] = -1.0;
    auto bad = both(d);
    EXPECT_EQ(gpu->invert_positive(*bad.g), cpu->invert_positive(*bad.c));
  }
}

}  // namespace
