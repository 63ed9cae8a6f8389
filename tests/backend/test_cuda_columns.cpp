// The multi-column operations on the GPU (kernels/cuda/columns.hpp through the cuda
// backend) against the cpu reference backend and against the GPU's one-column operations:
// the vector kernels and the SELL SpMM and color-set solves give the one-column kernels'
// bits per column, the CSR SpMM and color-set solves the reference's to rounding; columns
// left out of the set untouched. k = 1, 3, 8, 9, listed subsets, n not a multiple of 32.
// Then the solver: each column of a multi-column solve as its single solve (the same
// iterations, x to rounding), device memory equal to host memory bit for bit. Skipped
// without a GPU.

#include <prism/analysis.hpp>
#include <prism/generators.hpp>
#include <prism/solver.hpp>

#include "backend/cuda_test_support.hpp"
#include "precond/ic0_pattern.hpp"

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace {

using prism::CsrMatrix;
using prism::index_t;
using prism::backend::Scalar;
using prism::test::CudaBackendTest;
using prism::test::random_vector;

struct Case {
  int k;
  std::vector<index_t> cols;
};
std::vector<Case> cases() {
  std::vector<Case> out;
  for (int k : {1, 3, 8, 9}) {
    std::vector<index_t> all, some;
    for (index_t j = 0; j < k; ++j) all.push_back(j);
    for (index_t j = k - 1; j >= 0; j -= 2) some.insert(some.begin(), j);
    out.push_back({k, all});
    if (some.size() != all.size()) out.push_back({k, some});
  }
  return out;
}

std::vector<double> column(const std::vector<double>& v, index_t n, index_t j) {
  return {v.begin() + j * n, v.begin() + (j + 1) * n};
}

double largest(const std::vector<double>& v) {
  double m = 1.0;
  for (double x : v) m = std::max(m, std::abs(x));
  return m;
}

/// Bit for bit, NaN included (x's owed alpha is NaN where it owes nothing).
bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

CsrMatrix<double> colored(const CsrMatrix<double>& a) {
  return prism::permute_symmetric(a,
                                  prism::color_matrix(a, prism::VertexOrder::natural).permutation);
}

// One CG iteration's vector steps on the columns of a set, and on each column alone with
// the one-column operations: the same bits (the same grid and sums per column).
TEST_F(CudaBackendTest, ColumnVectorOperationsAreTheOneColumnBits) {
  const index_t n = 2431;
  constexpr int kS = prism::backend::kNumScalars;
  for (const Case& c : cases()) {
    SCOPED_TRACE("k = " + std::to_string(c.k) + ", " + std::to_string(c.cols.size()) + " listed");
    const auto gs = gpu->make_column_set(n, c.cols);
    std::vector<std::vector<double>> h;  // u, v, p, q, x, r, z
    for (unsigned seed = 1; seed <= 7; ++seed) h.push_back(random_vector(n * c.k, seed));
    std::vector<std::unique_ptr<prism::backend::Vector>> v;
    for (const auto& hv : h) {
      v.push_back(gpu->make_vector(n * c.k));
      gpu->copy_from_host(hv, *v.back());
    }
    prism::backend::Vector &u = *v[0], &w = *v[1], &p = *v[2], &q = *v[3], &x = *v[4], &r = *v[5],
                           &z = *v[6];
    auto s = gpu->make_vector(c.k * kS);
    gpu->column_dot(u, w, *gs, *s, Scalar::rz);
    gpu->column_dot(p, q, *gs, *s, Scalar::pq);
    gpu->column_cg_update(p, q, x, r, *gs, *s);
    gpu->column_dot(r, z, *gs, *s, Scalar::rz_new);
    gpu->column_cg_direction(z, p, *gs, *s);
    const std::vector<double> sg = host(*gpu, *s), xg = host(*gpu, x), rg = host(*gpu, r),
                              pg = host(*gpu, p);
    for (index_t j = 0; j < c.k; ++j) {
      const bool listed = std::find(c.cols.begin(), c.cols.end(), j) != c.cols.end();
      if (!listed) {
        EXPECT_EQ(column(xg, n, j), column(h[4], n, j));
        EXPECT_EQ(column(pg, n, j), column(h[2], n, j));
        continue;
      }
      std::vector<std::unique_ptr<prism::backend::Vector>> o;
      for (const auto& hv : h) {
        o.push_back(gpu->make_vector(n));
        gpu->copy_from_host(column(hv, n, j), *o.back());
      }
      gpu->dot(*o[0], *o[1], Scalar::rz);
      gpu->dot(*o[2], *o[3], Scalar::pq);
      gpu->cg_update(*o[2], *o[3], *o[4], *o[5]);
      const double rr = gpu->read_scalars()[static_cast<int>(Scalar::rr)];
      gpu->dot(*o[5], *o[6], Scalar::rz_new);
      gpu->cg_direction(*o[6], *o[2]);
      const prism::backend::ScalarValues one = gpu->read_scalars();
      EXPECT_EQ(sg[j * kS + static_cast<int>(Scalar::pq)], one[static_cast<int>(Scalar::pq)]);
      EXPECT_EQ(sg[j * kS + static_cast<int>(Scalar::rr)], rr);
      EXPECT_EQ(sg[j * kS + static_cast<int>(Scalar::rz)], one[static_cast<int>(Scalar::rz)]);
      EXPECT_EQ(column(xg, n, j), host(*gpu, *o[4])) << "x, column " << j;
      EXPECT_EQ(column(rg, n, j), host(*gpu, *o[5])) << "r, column " << j;
      EXPECT_EQ(column(pg, n, j), host(*gpu, *o[2])) << "p, column " << j;
    }
  }
}

TEST_F(CudaBackendTest, ColumnOperationsEqualTheReferenceBackend) {
  const index_t n = 2431;
  for (const Case& c : cases()) {
    SCOPED_TRACE("k = " + std::to_string(c.k) + ", " + std::to_string(c.cols.size()) + " listed");
    const auto gs = gpu->make_column_set(n, c.cols);
    const auto cs = cpu->make_column_set(n, c.cols);
    std::vector<double> s0 = random_vector(c.k * prism::backend::kNumScalars, 3);
    for (double& v : s0) v = 1.0 + std::abs(v);
    auto s = both(s0), p = both(random_vector(n * c.k, 4)), q = both(random_vector(n * c.k, 5)),
         x = both(random_vector(n * c.k, 6)), r = both(random_vector(n * c.k, 7)),
         z = both(random_vector(n * c.k, 8)), d = both(random_vector(n, 9));
    for (prism::backend::Backend* b : {gpu.get(), cpu.get()}) {
      const bool g = b == gpu.get();
      const prism::backend::ColumnSet& set = g ? *gs : *cs;
      const auto pick = [&](auto& pair) -> prism::backend::Vector& {
        return g ? *pair.g : *pair.c;
      };
      b->column_dot(pick(p), pick(q), set, pick(s), Scalar::pq);
      b->column_cg_update(pick(p), pick(q), pick(x), pick(r), set, pick(s));
      b->column_dot(pick(r), pick(z), set, pick(s), Scalar::rz_new);
      b->column_cg_direction(pick(z), pick(p), set, pick(s));
      b->column_axpy(-0.5, pick(q), pick(z), set);
      b->column_pointwise_multiply(pick(d), pick(r), pick(q), set);
      b->column_copy(pick(r), pick(x), set);
    }
    for (auto* pair : {&s, &p, &q, &x, &r, &z}) {
      const std::vector<double> want = host(*cpu, *pair->c);
      EXPECT_LE(prism::test::max_abs_diff(host(*gpu, *pair->g), want), 1e-12 * largest(want));
    }
  }
}

TEST_F(CudaBackendTest, SpmmEqualsSpmvPerColumn) {
  const CsrMatrix<double> a = prism::poisson3d(17, 13, 11, 27);
  const index_t n = a.rows;
  for (const auto algorithm : {prism::SpmvAlgorithm::cusparse, prism::SpmvAlgorithm::csr_vector,
                               prism::SpmvAlgorithm::sell, prism::SpmvAlgorithm::bsr}) {
    SCOPED_TRACE(prism::to_string(algorithm));
    const auto mg = gpu->make_matrix(a, algorithm);
    const auto mc = cpu->make_matrix(a, prism::SpmvAlgorithm::automatic);
    for (const Case& c : cases()) {
      const auto gs = gpu->make_column_set(n, c.cols);
      const auto cs = cpu->make_column_set(n, c.cols);
      auto x = both(random_vector(n * c.k, 11)), y = both(random_vector(n * c.k, 12));
      gpu->spmm(*mg, *x.g, *y.g, *gs);
      cpu->spmm(*mc, *x.c, *y.c, *cs);
      const std::vector<double> yg = host(*gpu, *y.g), yc = host(*cpu, *y.c);
      EXPECT_LE(prism::test::max_abs_diff(yg, yc), 1e-13 * largest(yc));
      if (algorithm != prism::SpmvAlgorithm::sell) continue;
      for (const index_t j : c.cols) {  // SELL: sell_spmv's bits
        auto xj = both(column(random_vector(n * c.k, 11), n, j)), yj = both(std::vector<double>(n));
        gpu->spmv(*mg, *xj.g, *yj.g);
        EXPECT_EQ(column(yg, n, j), host(*gpu, *yj.g)) << "column " << j;
      }
    }
  }
}

TEST_F(CudaBackendTest, ColorsetSolveColumnsEqualsSolvePerColumn) {
  const CsrMatrix<double> a = colored(prism::poisson3d(17, 13, 11));
  prism::precond::Ic0Pattern pattern(a);
  pattern.factorize(a, {});
  const index_t n = a.rows;
  using prism::backend::Triangle;
  for (const auto layout : {prism::ColorsetLayout::csr, prism::ColorsetLayout::sell}) {
    for (const auto precision : {prism::Precision::fp64, prism::Precision::mixed}) {
      for (const Triangle tri : {Triangle::lower, Triangle::upper}) {
        SCOPED_TRACE(std::string(prism::to_string(layout)) + ", " +
                     std::string(prism::to_string(precision)) +
                     (tri == Triangle::lower ? ", lower" : ", upper"));
        const CsrMatrix<double>& t = tri == Triangle::lower ? pattern.lower() : pattern.upper();
        auto solver = gpu->make_triangular_solver(
            t, tri, {prism::TrisolveAlgorithm::colorset, precision, layout});
        ASSERT_TRUE(solver->solves_columns());
        for (const Case& c : cases()) {
          const auto gs = gpu->make_column_set(n, c.cols);
          const std::vector<double> b0 = random_vector(n * c.k, 13),
                                    x0 = random_vector(n * c.k, 14);
          auto b = both(b0), x = both(x0);
          solver->solve_columns(*b.g, *x.g, *gs);
          const std::vector<double> xg = host(*gpu, *x.g);
          for (index_t j = 0; j < c.k; ++j) {
            const bool listed = std::find(c.cols.begin(), c.cols.end(), j) != c.cols.end();
            if (!listed) {
              EXPECT_EQ(column(xg, n, j), column(x0, n, j));
              continue;
            }
            auto bj = both(column(b0, n, j)), xj = both(std::vector<double>(n));
            solver->solve(*bj.g, *xj.g);
            const std::vector<double> want = host(*gpu, *xj.g);
            if (layout == prism::ColorsetLayout::sell) {
              EXPECT_EQ(column(xg, n, j), want) << "column " << j;  // the same sums
            } else {
              EXPECT_LE(prism::test::max_abs_diff(column(xg, n, j), want), 1e-12 * largest(want));
            }
          }
        }
      }
    }
  }
}

prism::SolverConfig gpu_config(const std::string& type) {
  prism::SolverConfig c;
  c.backend = prism::BackendKind::cuda;
  c.solver.tolerance = 1e-10;
  c.preconditioner.type = type;
  return c;
}

// Every column as its single solve: the same iterations and status, x to rounding; the
// device-memory path equals the host path bit for bit.
TEST_F(CudaBackendTest, MultiColumnSolveEqualsSingleSolves) {
  const CsrMatrix<double> problems[] = {prism::poisson3d(24, 20, 17),
                                        prism::elasticity3d(6, 5, 5, 1, {1.0})};
  for (const CsrMatrix<double>& a : problems) {
    const index_t n = a.rows;
    for (const char* type : {"ic0", "jacobi", "none", "block_ic"}) {
      SCOPED_TRACE(std::string(type) + ", " + std::to_string(n) + " rows");
      prism::Solver solver(gpu_config(type));
      solver.setup(a);
      for (int k : {1, 3, 8}) {
        std::vector<double> b, x0;
        for (int j = 0; j < k; ++j) {
          const auto bj = random_vector(n, 20 + j), xj = random_vector(n, 40 + j);
          b.insert(b.end(), bj.begin(), bj.end());
          x0.insert(x0.end(), xj.begin(), xj.end());
        }
        if (k > 1) {
          for (index_t i = 0; i < n; ++i) b[n + i] = 0.0;  // converges at iteration 0
        }
        std::vector<double> x = x0;
        const prism::MultiSolveReport multi = solver.solve(b, x, k);
        for (int j = 0; j < k; ++j) {
          std::vector<double> xj = column(x0, n, j);
          const prism::SolveReport single = solver.solve(column(b, n, j), xj);
          EXPECT_EQ(multi.column[j].status, single.status) << "column " << j;
          EXPECT_EQ(multi.column[j].iterations, single.iterations) << "column " << j;
          EXPECT_LE(prism::test::max_abs_diff(column(x, n, j), xj), 1e-9 * largest(xj));
        }
        prism::test::DeviceValues db(b), dx(x0);
        const prism::MultiSolveReport device =
            solver.solve_on_backend(db.data(), const_cast<double*>(dx.data()), n, k);
        std::vector<double> xd(x.size());
        ASSERT_EQ(
            cudaMemcpy(xd.data(), dx.data(), xd.size() * sizeof(double), cudaMemcpyDeviceToHost),
            cudaSuccess);
        EXPECT_EQ(xd, x);
        for (int j = 0; j < k; ++j) {
          EXPECT_EQ(device.column[j].iterations, multi.column[j].iterations);
        }
        EXPECT_EQ(multi.preconditioner_reads_once, std::string(type) != "block_ic");
      }
    }
  }
}

// Jacobi's z = d .* r and r . z in one pass: the bits of the two operations, columns left
// out untouched.
TEST_F(CudaBackendTest, PointwiseMultiplyDotIsPointwiseThenDot) {
  const index_t n = 2431;
  constexpr int kS = prism::backend::kNumScalars;
  constexpr int rz = static_cast<int>(Scalar::rz_new);
  for (const Case& c : cases()) {
    SCOPED_TRACE("k = " + std::to_string(c.k) + ", " + std::to_string(c.cols.size()) + " listed");
    const auto gs = gpu->make_column_set(n, c.cols);
    const std::vector<double> z0 = random_vector(n * c.k, 22), s0(c.k * kS, -1.0);
    auto d = both(random_vector(n, 20)), r = both(random_vector(n * c.k, 21));
    auto fused = both(z0), apart = both(z0), sf = both(s0), sa = both(s0);
    gpu->column_pointwise_multiply_dot(*d.g, *r.g, *fused.g, *gs, *sf.g, Scalar::rz_new);
    gpu->column_pointwise_multiply(*d.g, *r.g, *apart.g, *gs);
    gpu->column_dot(*r.g, *apart.g, *gs, *sa.g, Scalar::rz_new);
    EXPECT_EQ(host(*gpu, *fused.g), host(*gpu, *apart.g));
    const std::vector<double> s = host(*gpu, *sf.g);
    EXPECT_EQ(s, host(*gpu, *sa.g));
    for (index_t j = 0; j < c.k; ++j) {
      const bool listed = std::find(c.cols.begin(), c.cols.end(), j) != c.cols.end();
      EXPECT_EQ(s[j * kS + rz] == -1.0, !listed) << "column " << j;
    }
  }
}

// q = A p and p . q in one pass (SELL; the others as spmm then column_dot): per column the
// bits of the one-column fused pass (spmv_dot), columns left out untouched.
TEST_F(CudaBackendTest, SpmmDotEqualsSpmvDotPerColumn) {
  const CsrMatrix<double> a = prism::poisson3d(17, 13, 11, 27);
  const index_t n = a.rows;
  constexpr int kS = prism::backend::kNumScalars;
  constexpr int pq = static_cast<int>(Scalar::pq);
  for (const auto algorithm :
       {prism::SpmvAlgorithm::sell, prism::SpmvAlgorithm::csr_vector, prism::SpmvAlgorithm::bsr}) {
    SCOPED_TRACE(prism::to_string(algorithm));
    const auto mg = gpu->make_matrix(a, algorithm);
    const auto mc = cpu->make_matrix(a, prism::SpmvAlgorithm::automatic);
    for (const Case& c : cases()) {
      SCOPED_TRACE("k = " + std::to_string(c.k) + ", " + std::to_string(c.cols.size()) + " listed");
      const auto gs = gpu->make_column_set(n, c.cols);
      const std::vector<double> x0 = random_vector(n * c.k, 15), y0 = random_vector(n * c.k, 16);
      auto x = both(x0), y = both(y0), s = both(std::vector<double>(c.k * kS, -1.0));
      gpu->spmm_dot(*mg, *x.g, *y.g, *gs, *s.g, Scalar::pq);
      const std::vector<double> yg = host(*gpu, *y.g), sg = host(*gpu, *s.g);
      const auto cs = cpu->make_column_set(n, c.cols);
      cpu->spmm_dot(*mc, *x.c, *y.c, *cs, *s.c, Scalar::pq);  // the reference kernels
      EXPECT_LE(prism::test::max_abs_diff(yg, host(*cpu, *y.c)), 1e-13 * largest(yg));
      EXPECT_LE(prism::test::max_abs_diff(sg, host(*cpu, *s.c)), 1e-12 * largest(sg));
      for (index_t j = 0; j < c.k; ++j) {
        const bool listed = std::find(c.cols.begin(), c.cols.end(), j) != c.cols.end();
        if (!listed) {
          EXPECT_EQ(column(yg, n, j), column(y0, n, j));
          EXPECT_EQ(sg[j * kS + pq], -1.0);
          continue;
        }
        auto xj = both(column(x0, n, j)), yj = both(std::vector<double>(n));
        gpu->spmv_dot(*mg, *xj.g, *yj.g, Scalar::pq);
        const double want = gpu->read_scalars()[pq];
        const std::vector<double> ys = host(*gpu, *yj.g);
        if (algorithm == prism::SpmvAlgorithm::sell) {
          EXPECT_EQ(column(yg, n, j), ys) << "column " << j;
          EXPECT_EQ(sg[j * kS + pq], want) << "column " << j;
        } else {
          EXPECT_LE(prism::test::max_abs_diff(column(yg, n, j), ys), 1e-13 * largest(ys));
          EXPECT_NEAR(sg[j * kS + pq], want, 1e-12 * std::abs(want)) << "column " << j;
        }
      }
    }
  }
}

// The IC(0) engine's halves on columns (SELL: folded, forming (r_j, z_j) as |L^{-1} r_j|^2)
// against its halves on each column alone: z the same bits (CSR: to rounding, as the
// color-set solves), the dot to rounding (the partials are summed in another order);
// columns left out untouched.
TEST_F(CudaBackendTest, Ic0HalvesOnColumnsEqualHalvesPerColumn) {
  const CsrMatrix<double> a = colored(prism::poisson3d(17, 13, 11));
  const index_t n = a.rows;
  constexpr int kS = prism::backend::kNumScalars;
  constexpr int rz = static_cast<int>(Scalar::rz_new);
  for (const auto layout : {prism::ColorsetLayout::csr, prism::ColorsetLayout::sell}) {
    for (const auto precision : {prism::Precision::fp64, prism::Precision::mixed}) {
      SCOPED_TRACE(std::string(prism::to_string(layout)) + ", " +
                   std::string(prism::to_string(precision)));
      prism::precond::Ic0Pattern pattern(a);
      auto engine = gpu->make_ic0_factor(pattern.lower(), pattern.upper(), pattern.upper_source(),
                                         pattern.lower_source(),
                                         {prism::TrisolveAlgorithm::colorset, precision, layout});
      pattern.factorize(a, {}, *engine);
      ASSERT_TRUE(engine->solves_columns());
      const bool forms = engine->forms_dot();
      EXPECT_EQ(forms, layout == prism::ColorsetLayout::sell);
      const std::optional<Scalar> dot =
          forms ? std::optional<Scalar>(Scalar::rz_new) : std::nullopt;
      for (const Case& c : cases()) {
        SCOPED_TRACE("k = " + std::to_string(c.k) + ", " + std::to_string(c.cols.size()) +
                     " listed");
        const auto gs = gpu->make_column_set(n, c.cols);
        const std::vector<double> r0 = random_vector(n * c.k, 51), z0 = random_vector(n * c.k, 52);
        auto r = both(r0), z = both(z0), work = both(std::vector<double>(n * c.k));
        auto s = both(std::vector<double>(c.k * kS, -1.0));
        engine->forward_columns(*r.g, *work.g, *z.g, *gs, s.g.get(), dot);
        engine->backward_columns(*r.g, *work.g, *z.g, *gs, s.g.get(), dot);
        const std::vector<double> zg = host(*gpu, *z.g), sg = host(*gpu, *s.g);
        for (index_t j = 0; j < c.k; ++j) {
          const bool listed = std::find(c.cols.begin(), c.cols.end(), j) != c.cols.end();
          if (!listed) {
            EXPECT_EQ(column(zg, n, j), column(z0, n, j));
            EXPECT_EQ(sg[j * kS + rz], -1.0);
            continue;
          }
          auto rj = both(column(r0, n, j)), wj = both(std::vector<double>(n)),
               zj = both(std::vector<double>(n));
          engine->forward(*rj.g, *wj.g, *zj.g, dot);
          engine->backward(*rj.g, *wj.g, *zj.g, dot);
          const std::vector<double> want = host(*gpu, *zj.g);
          if (layout == prism::ColorsetLayout::sell) {
            EXPECT_EQ(column(zg, n, j), want) << "column " << j;  // the same sums
          } else {
            EXPECT_LE(prism::test::max_abs_diff(column(zg, n, j), want), 1e-12 * largest(want));
          }
          if (forms) {
            const double want = gpu->read_scalars()[rz];
            EXPECT_NEAR(sg[j * kS + rz], want, 1e-12 * std::abs(want)) << "column " << j;
          } else {
            EXPECT_EQ(sg[j * kS + rz], -1.0);
          }
        }
      }
    }
  }
}

// x lagging one step (the device loop's steps): column_cg_residual, then
// column_cg_direction_x or column_cg_finish, give the bits of column_cg_update and
// column_cg_direction; x owes nothing at the start (s[alpha] NaN) and after them.
TEST_F(CudaBackendTest, DeferredXIsTheImmediateUpdate) {
  const index_t n = 2431;
  constexpr int kS = prism::backend::kNumScalars;
  constexpr int alpha = static_cast<int>(Scalar::alpha);
  for (const Case& c : cases()) {
    SCOPED_TRACE("k = " + std::to_string(c.k) + ", " + std::to_string(c.cols.size()) + " listed");
    const auto gs = gpu->make_column_set(n, c.cols);
    std::vector<double> s0 = random_vector(c.k * kS, 3);
    for (double& v : s0) v = 1.0 + std::abs(v);
    for (int j = 0; j < c.k; ++j) s0[j * kS + alpha] = std::nan("");
    const std::vector<double> p0 = random_vector(n * c.k, 4), q0 = random_vector(n * c.k, 5),
                              x0 = random_vector(n * c.k, 6), r0 = random_vector(n * c.k, 7),
                              z0 = random_vector(n * c.k, 8);
    auto s = both(s0), p = both(p0), q = both(q0), x = both(x0), r = both(r0), z = both(z0);
    auto& g = *gpu;
    // Immediate (on the .c copies, also on the GPU) and deferred (.g): two steps, then one.
    auto sd = g.make_vector(c.k * kS), pd = g.make_vector(n * c.k), xd = g.make_vector(n * c.k),
         rd = g.make_vector(n * c.k);
    g.copy_from_host(s0, *sd);
    g.copy_from_host(p0, *pd);
    g.copy_from_host(x0, *xd);
    g.copy_from_host(r0, *rd);
    for (int step = 0; step < 2; ++step) {
      g.column_cg_update(*pd, *q.g, *xd, *rd, *gs, *sd);
      g.column_dot(*rd, *z.g, *gs, *sd, Scalar::rz_new);
      g.column_cg_direction(*z.g, *pd, *gs, *sd);
      g.column_cg_residual(*p.g, *q.g, *x.g, *r.g, *gs, *s.g);
      g.column_dot(*r.g, *z.g, *gs, *s.g, Scalar::rz_new);
      g.column_cg_direction_x(*z.g, *p.g, *x.g, *gs, *s.g);
    }
    g.column_cg_update(*pd, *q.g, *xd, *rd, *gs, *sd);
    g.column_cg_residual(*p.g, *q.g, *x.g, *r.g, *gs, *s.g);
    g.column_cg_finish(*p.g, *x.g, *gs, *s.g);
    EXPECT_EQ(host(g, *x.g), host(g, *xd));
    EXPECT_EQ(host(g, *r.g), host(g, *rd));
    EXPECT_EQ(host(g, *p.g), host(g, *pd));
    const std::vector<double> sg = host(g, *s.g), si = host(g, *sd);
    for (int j = 0; j < c.k; ++j) {
      EXPECT_TRUE(std::isnan(sg[j * kS + alpha])) << "column " << j;
      for (const Scalar slot : {Scalar::rz, Scalar::rz_new, Scalar::pq, Scalar::rr}) {
        const int i = j * kS + static_cast<int>(slot);
        EXPECT_EQ(sg[i], si[i]) << "column " << j << ", slot " << static_cast<int>(slot);
      }
    }
  }
}

// A set with columns masked (mask_columns) computes its live columns as a set of only those
// would, bit for bit, in every operation of the device loop, and leaves the masked ones
// (vectors and scalars) untouched: SELL and CSR SpMM, the vector steps, Jacobi's fused
// apply, the IC(0) engine's halves (SELL and CSR).
TEST_F(CudaBackendTest, MaskedColumnsAreLeftOut) {
  const CsrMatrix<double> a = colored(prism::poisson3d(17, 13, 11));
  const index_t n = a.rows;
  constexpr int kS = prism::backend::kNumScalars;
  const int k = 11;
  std::vector<index_t> all(k);
  for (int j = 0; j < k; ++j) all[j] = j;
  const std::vector<index_t> live = {1, 2, 5, 8, 10};
  for (const auto layout : {prism::ColorsetLayout::sell, prism::ColorsetLayout::csr}) {
    prism::precond::Ic0Pattern pattern(a);
    const auto algorithm = layout == prism::ColorsetLayout::sell ? prism::SpmvAlgorithm::sell
                                                                 : prism::SpmvAlgorithm::csr_vector;
    SCOPED_TRACE(prism::to_string(algorithm));
    const auto m = gpu->make_matrix(a, algorithm);
    ASSERT_TRUE(gpu->can_mask_columns(*m));
    auto engine = gpu->make_ic0_factor(
        pattern.lower(), pattern.upper(), pattern.upper_source(), pattern.lower_source(),
        {prism::TrisolveAlgorithm::colorset, prism::Precision::fp64, layout});
    pattern.factorize(a, {}, *engine);
    const std::optional<Scalar> dot =
        engine->forms_dot() ? std::optional<Scalar>(Scalar::rz_new) : std::nullopt;
    std::vector<double> s0 = random_vector(k * kS, 3);
    for (double& v : s0) v = 1.0 + std::abs(v);
    std::vector<std::vector<double>> h;  // p, q, x, r, z, work, d
    for (unsigned seed = 1; seed <= 7; ++seed) h.push_back(random_vector(n * k, 20 + seed));
    std::vector<std::vector<double>> out[2];
    for (int masked = 0; masked < 2; ++masked) {
      const auto set = gpu->make_column_set(n, masked ? all : live);
      if (masked) gpu->mask_columns(*set, live);
      std::vector<std::unique_ptr<prism::backend::Vector>> v;
      for (const auto& hv : h) {
        v.push_back(gpu->make_vector(n * k));
        gpu->copy_from_host(hv, *v.back());
      }
      auto s = gpu->make_vector(k * kS);
      gpu->copy_from_host(s0, *s);
      prism::backend::Vector &p = *v[0], &q = *v[1], &x = *v[2], &r = *v[3], &z = *v[4],
                             &work = *v[5], &d = *v[6];
      engine->forward_columns(r, work, z, *set, s.get(), dot);
      engine->backward_columns(r, work, z, *set, s.get(), dot);
      gpu->column_cg_direction_x(z, p, x, *set, *s);
      gpu->spmm_dot(*m, p, q, *set, *s, Scalar::pq);
      gpu->column_cg_residual(p, q, x, r, *set, *s);
      gpu->column_cg_finish(p, x, *set, *s);
      gpu->column_pointwise_multiply_dot(d, r, z, *set, *s, Scalar::rz_new);
      gpu->column_cg_direction(z, p, *set, *s);
      gpu->spmm(*m, p, q, *set);
      gpu->column_cg_update(p, q, x, r, *set, *s);
      gpu->column_axpy(0.5, q, z, *set);
      gpu->column_copy(r, work, *set);
      gpu->column_pointwise_multiply(d, z, q, *set);
      for (auto& vec : v) out[masked].push_back(host(*gpu, *vec));
      out[masked].push_back(host(*gpu, *s));
    }
    for (std::size_t i = 0; i < out[0].size(); ++i) {
      const bool scalars = i + 1 == out[0].size();
      EXPECT_TRUE(same_bits(out[1][i], out[0][i])) << "output " << i;
      const index_t len = scalars ? kS : n;
      for (int j = 0; j < k; ++j) {
        if (std::find(live.begin(), live.end(), j) != live.end()) continue;
        const std::vector<double>& before = scalars ? s0 : h[i];
        EXPECT_TRUE(std::equal(out[1][i].begin() + j * len, out[1][i].begin() + (j + 1) * len,
                               before.begin() + j * len))
            << "output " << i << ", masked column " << j;
      }
    }
  }
}

prism::SolverConfig total_config(const std::string& type, prism::GraphMode graph, int check_every,
                                 int max_iterations) {
  prism::SolverConfig c = gpu_config(type);
  c.solver.timing = prism::TimingMode::total;
  c.solver.graph = graph;
  c.solver.check_every = check_every;
  c.solver.max_iterations = max_iterations;
  return c;
}

// With timing: total the columns iterate in a device-side loop (where the driver runs
// while nodes): the same kernels in the same order as launch by launch, so the same bits,
// iterations, statuses and residual histories; and each column as its single solve with
// timing: total (the same iterations, x to rounding; with check_every 1, as a single
// solve's loop tests every iteration). A zero column converges at iteration 0; check_every
// 1 and 4; a limit of 7 iterations stops every column there.
TEST_F(CudaBackendTest, MultiColumnLoopEqualsLaunchesAndSingleSolves) {
  const CsrMatrix<double> a = prism::poisson3d(24, 20, 17);
  const index_t n = a.rows;
  const int k = 8;
  std::vector<double> b, x0;
  for (int j = 0; j < k; ++j) {
    const auto bj = random_vector(n, 60 + j), xj = random_vector(n, 80 + j);
    b.insert(b.end(), bj.begin(), bj.end());
    x0.insert(x0.end(), xj.begin(), xj.end());
  }
  for (index_t i = 0; i < n; ++i) b[2 * n + i] = 0.0;
  for (const char* type : {"ic0", "jacobi", "none", "block_ic"}) {
    for (const auto [check_every, max_iterations] : {std::pair{1, 1000}, {4, 1000}, {1, 7}}) {
      SCOPED_TRACE(std::string(type) + ", check_every " + std::to_string(check_every) +
                   ", max_iterations " + std::to_string(max_iterations));
      prism::Solver solver(
          total_config(type, prism::GraphMode::automatic, check_every, max_iterations));
      solver.setup(a);
      std::vector<double> x = x0;
      const prism::MultiSolveReport looped = solver.solve(b, x, k);
      EXPECT_EQ(looped.device_loop, gpu->can_loop_columns());
      solver.set_solver_options(
          total_config(type, prism::GraphMode::off, check_every, max_iterations).solver);
      std::vector<double> x_launched = x0;
      const prism::MultiSolveReport launched = solver.solve(b, x_launched, k);
      EXPECT_FALSE(launched.device_loop);
      EXPECT_EQ(x, x_launched);
      ASSERT_EQ(looped.column.size(), launched.column.size());
      for (int j = 0; j < k; ++j) {
        const prism::ColumnReport &l = looped.column[j], &o = launched.column[j];
        EXPECT_EQ(l.status, o.status) << "column " << j;
        EXPECT_EQ(l.iterations, o.iterations) << "column " << j;
        ASSERT_EQ(l.history.size(), o.history.size()) << "column " << j;
        for (std::size_t h = 0; h < l.history.size(); ++h) {
          EXPECT_EQ(l.history[h].iteration, o.history[h].iteration);
          EXPECT_EQ(l.history[h].residual_norm, o.history[h].residual_norm);
        }
      }
      EXPECT_EQ(looped.column[2].iterations, 0);
      // A single solve's device loop tests every iteration, whatever check_every.
      if (check_every != 1) continue;
      solver.set_solver_options(
          total_config(type, prism::GraphMode::automatic, check_every, max_iterations).solver);
      for (int j = 0; j < k; ++j) {
        std::vector<double> xj = column(x0, n, j);
        const prism::SolveReport single = solver.solve(column(b, n, j), xj);
        EXPECT_EQ(looped.column[j].status, single.status) << "column " << j;
        EXPECT_EQ(looped.column[j].iterations, single.iterations) << "column " << j;
        EXPECT_LE(prism::test::max_abs_diff(column(x, n, j), xj), 1e-9 * largest(xj));
      }
    }
  }
}

}  // namespace
