// Every operation of the CUDA backend against the CPU (reference) backend on the same
// data, on awkward sizes; whole GPU solves against CPU solves. Skipped without a GPU.

#include <prism/analysis.hpp>
#include <prism/errors.hpp>
#include <prism/generators.hpp>
#include <prism/solver.hpp>

#include "backend/backend.hpp"
#include "backend/cpu_backend.hpp"
#include "backend/split_triangle.hpp"
#include "common/gpu.hpp"
#include "common/test_matrices.hpp"
#include "kernels/colorset.hpp"
#include "kernels/cuda/colorset.hpp"
#include "kernels/cuda/device_info.hpp"
#include "kernels/cuda/device_memory.hpp"
#include "kernels/cuda/ic0.hpp"
#include "kernels/cuda/ic0_levels.hpp"
#include "kernels/ic0.hpp"
#include "kernels/sell.hpp"
#include "precond/ic0_factor.hpp"

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>
#include <tuple>

namespace {

using prism::CsrMatrix;
using prism::index_t;
using prism::backend::Backend;
using prism::backend::Scalar;

using prism::test::random_band;
using prism::test::random_vector;

/// The entries of the 2D Poisson grid g, its diagonal raised by `shift`.
std::vector<prism::Triplet> shifted_grid(const CsrMatrix<double>& g, double shift) {
  std::vector<prism::Triplet> t;
  for (index_t i = 0; i < g.rows; ++i) {
    for (index_t k = g.row_ptr[i]; k < g.row_ptr[i + 1]; ++k) {
      t.push_back({i, g.col_idx[k], g.values[k] + (g.col_idx[k] == i ? shift : 0.0)});
    }
  }
  return t;
}

/// Entries (i, j) and (j, i) of value v.
void couple(std::vector<prism::Triplet>& t, index_t i, index_t j, double v) {
  t.push_back({i, j, v});
  t.push_back({j, i, v});
}

/// A diagonally dominant 2D Poisson grid (48 x 48) plus a clique of 12 rows, each tied to
/// one grid row: greedy coloring gives two colors of about 1152 rows (their own launches
/// in the CSR color-set solve) and about ten small ones (a fused single-block run).
CsrMatrix<double> grid_and_clique() {
  const CsrMatrix<double> g = prism::poisson2d(48, 48);
  std::vector<prism::Triplet> t = shifted_grid(g, 12.0);
  for (index_t a = 0; a < 12; ++a) {
    t.push_back({g.rows + a, g.rows + a, 16.0});
    couple(t, g.rows + a, 100 * a, -0.5);
    for (index_t b = a + 1; b < 12; ++b) couple(t, g.rows + a, g.rows + b, -0.25);
  }
  return prism::csr_from_triplets(g.rows + 12, g.rows + 12, t);
}

/// A 2D grid with three hub rows, each coupled to every second grid node (800 entries):
/// the long rows of the color-set solves (colorset_schedule), in natural order in the
/// lower triangle, in a largest-first coloring (hubs first) in the upper.
CsrMatrix<double> grid_and_hubs() {
  const CsrMatrix<double> g = prism::poisson2d(40, 40);
  std::vector<prism::Triplet> t = shifted_grid(g, 1.0);
  for (index_t h = 0; h < 3; ++h) {
    t.push_back({g.rows + h, g.rows + h, 1000.0});
    for (index_t j = h % 2; j < g.rows; j += 2) couple(t, g.rows + h, j, -0.1);
  }
  return prism::csr_from_triplets(g.rows + 3, g.rows + 3, t);
}

/// What `call` throws as InvalidMatrixError, or "no error".
template <typename Call>
std::string invalid_matrix_message(const Call& call) {
  try {
    call();
  } catch (const prism::InvalidMatrixError& e) {
    return e.what();
  }
  return "no error";
}

/// Values in device memory, as a GPU assembly would hand them over.
class DeviceValues {
 public:
  explicit DeviceValues(const std::vector<double>& v) : size_(v.size()) {
    EXPECT_EQ(cudaMalloc(reinterpret_cast<void**>(&data_),
                         std::max<std::size_t>(size_, 1) * sizeof(double)),
              cudaSuccess);
    EXPECT_EQ(cudaMemcpy(data_, v.data(), size_ * sizeof(double), cudaMemcpyHostToDevice),
              cudaSuccess);
    // From pageable memory cudaMemcpy may return before the copy lands, and the solver's
    // stream does not wait for the default stream: the caller's duty, as for any writer.
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  }
  ~DeviceValues() { cudaFree(data_); }
  DeviceValues(const DeviceValues&) = delete;
  DeviceValues& operator=(const DeviceValues&) = delete;
  const double* data() const { return data_; }
  std::size_t size() const { return size_; }
  /// New contents, as a GPU assembly reusing its buffer would write them.
  void write(const std::vector<double>& v) {
    ASSERT_EQ(v.size(), size_);
    EXPECT_EQ(cudaMemcpy(data_, v.data(), size_ * sizeof(double), cudaMemcpyHostToDevice),
              cudaSuccess);
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  }

 private:
  double* data_ = nullptr;
  std::size_t size_;
};

double max_abs_diff(const std::vector<double>& a, const std::vector<double>& b) {
  EXPECT_EQ(a.size(), b.size());
  double d = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) d = std::max(d, std::abs(a[i] - b[i]));
  return d;
}

class CudaBackendTest : public ::testing::Test {
 protected:
  void SetUp() override {
    PRISM_SKIP_WITHOUT_GPU();
    gpu = prism::backend::make_backend(prism::BackendKind::cuda);
    cpu = prism::backend::make_cpu_backend();
  }
  /// Uploads the same host vector to both backends.
  struct Pair {
    std::unique_ptr<prism::backend::Vector> g, c;
  };
  Pair both(const std::vector<double>& v) {
    Pair p{gpu->make_vector(static_cast<index_t>(v.size())),
           cpu->make_vector(static_cast<index_t>(v.size()))};
    gpu->copy_from_host(v, *p.g);
    cpu->copy_from_host(v, *p.c);
    return p;
  }
  std::vector<double> host(Backend& b, const prism::backend::Vector& v) {
    std::vector<double> out;
    b.copy_to_host(v, out);
    return out;
  }
  /// The GPU solve with `algorithm` equals the CPU reference solve on the factor t, and
  /// still does after new values arrive through update_values (the refactor path). With
  /// Precision::mixed the reference is the CPU color-set twin on the same float values.
  void expect_trisolve_matches_reference(
      const CsrMatrix<double>& t, prism::backend::Triangle tri, prism::TrisolveAlgorithm algorithm,
      unsigned seed, prism::Precision precision = prism::Precision::fp64,
      prism::ColorsetLayout layout = prism::ColorsetLayout::automatic) {
    auto sg = gpu->make_triangular_solver(t, tri, {algorithm, precision, layout});
    if (layout != prism::ColorsetLayout::automatic) {
      EXPECT_EQ(sg->layout(), prism::to_string(layout));
    }
    auto sc = cpu->make_triangular_solver(
        t, tri,
        {precision == prism::Precision::mixed ? prism::TrisolveAlgorithm::colorset
                                              : prism::TrisolveAlgorithm::reference,
         precision});
    EXPECT_EQ(sg->algorithm(), prism::to_string(algorithm));
    auto b = both(random_vector(t.rows, seed)), x = both(std::vector<double>(t.rows, 0.0));
    sg->solve(*b.g, *x.g);
    sc->solve(*b.c, *x.c);
    const auto xc = host(*cpu, *x.c);
    double scale = 1.0;
    for (double v : xc) scale = std::max(scale, std::abs(v));
    EXPECT_LE(max_abs_diff(host(*gpu, *x.g), xc), 1e-12 * scale);

    // Twice the factor: the solution halves, with the analysis reused.
    std::vector<double> doubled = t.values;
    for (double& v : doubled) v *= 2.0;
    sg->update_values(doubled);
    sg->solve(*b.g, *x.g);
    auto xg = host(*gpu, *x.g);
    for (double& v : xg) v *= 2.0;
    EXPECT_LE(max_abs_diff(xg, xc), 1e-12 * scale);
  }

  /// The engine's two halves of (L L^T)^{-1} r (folded passes with SELL) equal the two
  /// solves bit for bit; the traffic model saves bytes exactly when passes are folded;
  /// the r.z they form is within dot_tolerance * sum |r_i z_i| of the one summed here.
  void expect_halves_equal_solves(prism::backend::Ic0Factor& engine, index_t rows, unsigned seed,
                                  double dot_tolerance = 1e-12) {
    using prism::backend::Triangle;
    const std::vector<double> nan(static_cast<std::size_t>(rows), std::nan(""));
    auto r = both(random_vector(rows, seed)), work = both(nan), z = both(nan);
    auto y = both(nan), z_solves = both(nan);
    engine.forward(*r.g, *work.g, *z.g, std::nullopt);
    engine.backward(*r.g, *work.g, *z.g, std::nullopt);
    engine.solve(Triangle::lower, *r.g, *y.g);
    engine.solve(Triangle::upper, *y.g, *z_solves.g);
    const std::vector<double> zh = host(*gpu, *z_solves.g);
    EXPECT_EQ(host(*gpu, *z.g), zh);
    // The lower solve in place too (with SELL it folds the first color's inverse diagonal
    // into L and so runs that color last, when nothing reads its b any more).
    auto in_place = both(host(*gpu, *r.g));
    engine.solve(Triangle::lower, *in_place.g, *in_place.g);
    EXPECT_EQ(host(*gpu, *in_place.g), host(*gpu, *y.g));
    EXPECT_EQ(engine.apply_bytes_saved() > 0.0, engine.layout() == "sell");
    // With SELL the halves also form (r, z) as |L^{-1} r|^2 (every row's y once over the
    // two halves): the same z, and the dot to rounding.
    EXPECT_EQ(engine.forms_dot(), engine.layout() == "sell");
    if (!engine.forms_dot()) return;
    auto z_dot = both(nan);
    engine.forward(*r.g, *work.g, *z_dot.g, Scalar::rz_new);
    engine.backward(*r.g, *work.g, *z_dot.g, Scalar::rz_new);
    EXPECT_EQ(host(*gpu, *z_dot.g), zh);
    const std::vector<double> rh = host(*gpu, *r.g);
    double rz = 0.0, scale = 0.0;
    for (std::size_t i = 0; i < rh.size(); ++i) {
      rz += rh[i] * zh[i];
      scale += std::abs(rh[i] * zh[i]);
    }
    const double formed = gpu->read_scalars()[static_cast<int>(Scalar::rz_new)];
    EXPECT_GT(formed, 0.0);
    EXPECT_NEAR(formed, rz, dot_tolerance * scale);
  }

  std::unique_ptr<Backend> gpu, cpu;
};

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

// Runs of two or more consecutive small steps (at most kFusedStepRows rows, and at most
// kFusedLaneEntries entries a lane once threads per row are lowered to fit one pass)
// become one single-block launch. Planned on the host: no device needed.
TEST(ColorsetSchedule, FusesRunsOfSmallSteps) {
  namespace kc = prism::kernels::cuda;
  static_assert(kc::kFusedStepRows == 1024 && kc::kFusedLaneEntries == 8);
  // (rows, strict entries per row) of each step.
  const std::vector<std::pair<index_t, index_t>> steps{
      {2000, 40}, {10, 40},  {20, 40},   {128, 40},  // 128 x 40: 8 threads a row, 5 entries a lane
      {129, 40},                                     // 4 threads a row, 10 entries a lane
      {5, 40},    {6, 40},   {3000, 40}, {7, 40},    // a lone small step is a plain launch
      {1024, 9},                                     // one thread a row, 9 entries a lane
      {1024, 8},  {1000, 1},                         // one thread a row, 8 and 1 entries a lane
      {0, 0},     {2000, 0}};                        // an empty block has no step
  std::vector<index_t> block_ptr{0}, row_ptr{0};
  for (const auto& [rows, entries] : steps) {
    for (index_t i = 0; i < rows; ++i) row_ptr.push_back(row_ptr.back() + entries);
    block_ptr.push_back(block_ptr.back() + rows);
  }
  const kc::ColorsetSchedule plan = kc::colorset_schedule(row_ptr.data(), block_ptr);
  ASSERT_EQ(plan.steps.size(), steps.size() - 1);  // the empty block has no step
  const std::vector<std::tuple<int, int, bool>> expected{
      {0, 1, false}, {1, 3, true},  {4, 1, false}, {5, 2, true},  {7, 1, false},
      {8, 1, false}, {9, 1, false}, {10, 2, true}, {12, 1, false}};
  ASSERT_EQ(plan.runs.size(), expected.size());
  for (std::size_t r = 0; r < expected.size(); ++r) {
    SCOPED_TRACE(r);
    EXPECT_EQ(plan.runs[r].first, std::get<0>(expected[r]));
    EXPECT_EQ(plan.runs[r].count, std::get<1>(expected[r]));
    EXPECT_EQ(plan.runs[r].fused, std::get<2>(expected[r]));
  }
  const std::vector<int> threads{32, 32, 32, 8, 32, 32, 32, 32, 32, 8, 1, 1, 1};
  ASSERT_EQ(plan.steps.size(), threads.size());
  for (std::size_t i = 0; i < threads.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(plan.steps[i].threads_per_row, threads[i]);
  }
}

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
      const CsrMatrix<double>& strict = split.strict();
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

// Threads per row: the fewest (a power of two, at most a warp) whose lanes hold the
// step's mean entries per row at kColorsetLaneEntries each. Host only.
TEST(ColorsetSchedule, ThreadsPerRowFollowMeanEntries) {
  static_assert(prism::kernels::cuda::kColorsetLaneEntries == 2);
  const std::vector<std::pair<index_t, int>> entries_and_threads{
      {0, 1},  {1, 1},   {2, 1},   {3, 2},   {4, 2},   {13, 8},
      {16, 8}, {17, 16}, {26, 16}, {64, 32}, {200, 32}};
  const index_t rows = 2 * prism::kernels::cuda::kFusedStepRows;  // no fused runs
  std::vector<index_t> block_ptr{0}, row_ptr{0};
  for (const auto& [entries, threads] : entries_and_threads) {
    for (index_t i = 0; i < rows; ++i) row_ptr.push_back(row_ptr.back() + entries);
    block_ptr.push_back(block_ptr.back() + rows);
  }
  const auto plan = prism::kernels::cuda::colorset_schedule(row_ptr.data(), block_ptr);
  ASSERT_EQ(plan.steps.size(), entries_and_threads.size());
  for (std::size_t i = 0; i < entries_and_threads.size(); ++i) {
    SCOPED_TRACE(entries_and_threads[i].first);
    EXPECT_EQ(plan.steps[i].threads_per_row, entries_and_threads[i].second);
    EXPECT_FALSE(plan.runs[i].fused);
  }
}

// Long rows: more than kLongRowLaneEntries entries a lane of the step's threads per row,
// listed step by step in row order; a step with one is never fused. Host only.
TEST(ColorsetSchedule, LongRowsAreListedAndNeverFused) {
  namespace kc = prism::kernels::cuda;
  static_assert(kc::kLongRowLaneEntries == 16 && kc::kColorsetLaneEntries == 2);
  // Step 0: 3000 rows of 2 entries but rows 5 and 17 (40) and 9 (32): 2 threads a row,
  // long above 32. Step 1: 100 rows of 2 and row 3100 of 100 entries (mean 2.97: 2
  // threads). Steps 2 and 3: small, fused. Step 4: one warp a row (64), long above 512.
  std::vector<index_t> lengths(3000, 2);
  lengths[5] = lengths[17] = 40;
  lengths[9] = 32;
  lengths.resize(3101, 2);
  lengths[3100] = 100;
  lengths.resize(3201, 2);
  lengths.resize(3251, 2);
  for (int i = 0; i < 2000; ++i) lengths.push_back(i == 7 ? 513 : 64);
  const std::vector<index_t> block_ptr{0, 3000, 3101, 3201, 3251, 5251};
  std::vector<index_t> row_ptr{0};
  for (index_t n : lengths) row_ptr.push_back(row_ptr.back() + n);
  const kc::ColorsetSchedule plan = kc::colorset_schedule(row_ptr.data(), block_ptr);
  EXPECT_EQ(plan.long_rows, (std::vector<index_t>{5, 17, 3100, 3258}));
  ASSERT_EQ(plan.steps.size(), 5u);
  const std::vector<std::tuple<int, index_t, index_t, index_t>> expected{
      {2, 32, 0, 2}, {2, 32, 2, 3}, {1, 16, 3, 3}, {1, 16, 3, 3}, {32, 512, 3, 4}};
  for (std::size_t i = 0; i < expected.size(); ++i) {
    SCOPED_TRACE(i);
    const auto& [threads, long_entries, long_begin, long_end] = expected[i];
    EXPECT_EQ(plan.steps[i].long_row_entries, long_entries);
    EXPECT_EQ(plan.steps[i].long_begin, long_begin);
    EXPECT_EQ(plan.steps[i].long_end, long_end);
    if (i != 2 && i != 3) EXPECT_EQ(plan.steps[i].threads_per_row, threads);
  }
  // Step 1 is small (101 rows, 1.5 entries a lane at its fused threads per row) but has a
  // long row: a launch of its own; steps 2 and 3 are one fused run.
  ASSERT_EQ(plan.runs.size(), 4u);
  EXPECT_FALSE(plan.runs[1].fused);
  EXPECT_EQ(plan.runs[1].first, 1);
  EXPECT_TRUE(plan.runs[2].fused);
  EXPECT_EQ(plan.runs[2].first, 2);
  EXPECT_EQ(plan.runs[2].count, 2);
}

// Grid and hexahedral FEM matrices in color order have no long rows (their steps keep the
// plain kernel); the hubs of grid_and_hubs have, and so has bcsstk08 (rows of mean 12 and
// up to 339 entries). Host only.
TEST(ColorsetSchedule, LongRowsOnlyWhereRowsAreFarAboveTheMean) {
  const std::vector<std::tuple<std::string, CsrMatrix<double>, bool>> cases{
      {"poisson2d", prism::poisson2d(60, 50), false},
      {"poisson3d", prism::poisson3d(20, 18, 16), false},
      {"poisson3d27", prism::poisson3d(16, 15, 14, 27), false},
      {"elasticity3d", prism::elasticity3d(8, 7, 6, 2, {1.0, 100.0}), false},
      {"bcsstk08", prism::read_matrix_market(std::string(PRISM_TEST_DATA_DIR) + "/bcsstk08.mtx"),
       true},
      {"grid_and_hubs", grid_and_hubs(), true}};
  for (const auto& [name, m, hubs] : cases) {
    for (auto order : {prism::VertexOrder::natural, prism::VertexOrder::largest_first}) {
      SCOPED_TRACE(name + " " + std::string(prism::to_string(order)));
      const CsrMatrix<double> a =
          prism::permute_symmetric(m, prism::color_matrix(m, order).permutation);
      prism::precond::Ic0Pattern factor(a);
      factor.factorize(a, {});
      std::size_t long_rows = 0;
      for (auto tri : {prism::backend::Triangle::lower, prism::backend::Triangle::upper}) {
        const prism::backend::SplitTriangle split(
            tri == prism::backend::Triangle::lower ? factor.lower() : factor.upper(), tri);
        long_rows += prism::kernels::cuda::colorset_schedule(split.strict().row_ptr.data(),
                                                             split.block_ptr())
                         .long_rows.size();
      }
      if (hubs) {
        EXPECT_GE(long_rows, 3u);  // grid_and_hubs: each hub in one triangle at least
      } else {
        EXPECT_EQ(long_rows, 0u);
      }
    }
  }
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

TEST_F(CudaBackendTest, DeviceIc0FactorIsEquivalentToReference) {
  std::vector<prism::Triplet> diagonal;
  for (index_t i = 0; i < 37; ++i) diagonal.push_back({i, i, 1.0 + i});
  std::vector<std::pair<std::string, CsrMatrix<double>>> matrices{
      {"n1", prism::poisson2d(1, 1)},
      {"diagonal", prism::csr_from_triplets(37, 37, diagonal)},
      {"poisson2d", prism::poisson2d(31, 33)},
      {"poisson3d_natural", prism::poisson3d(11, 9, 7)},
      {"poisson3d27", prism::poisson3d(19, 17, 15, 27)},
      {"bcsstk08", prism::read_matrix_market(std::string(PRISM_TEST_DATA_DIR) + "/bcsstk08.mtx")},
      {"grid_and_clique", grid_and_clique()},
      {"grid_and_hubs", grid_and_hubs()}};
  const std::string bcsstk13 = prism::test::shared_matrix("bcsstk13.mtx.gz");
  if (!bcsstk13.empty()) matrices.push_back({"bcsstk13", prism::read_matrix_market(bcsstk13)});
  for (const auto& [name, original] : matrices) {
    for (bool colored : {false, true}) {
      SCOPED_TRACE(name + (colored ? " color" : " natural"));
      const CsrMatrix<double> a =
          colored ? prism::permute_symmetric(
                        original,
                        prism::color_matrix(original, prism::VertexOrder::natural).permutation)
                  : original;
      prism::precond::Ic0Pattern host_factor(a);
      const prism::FactorizationReport rh = host_factor.factorize(a, {});
      for (auto layout : {prism::ColorsetLayout::csr, prism::ColorsetLayout::sell}) {
        SCOPED_TRACE(prism::to_string(layout));
        prism::precond::Ic0Pattern pattern(a);
        auto engine = gpu->make_ic0_factor(
            pattern.lower(), pattern.upper(), pattern.upper_source(), pattern.lower_source(),
            {prism::TrisolveAlgorithm::automatic, prism::Precision::fp64, layout});
        EXPECT_EQ(engine->layout(), prism::to_string(layout));
        const prism::FactorizationReport rg = pattern.factorize(a, {}, *engine);
        // Same breakdowns (bcsstk13 needs the shift), same shift.
        EXPECT_EQ(rg.retries, rh.retries);
        EXPECT_EQ(rg.shift, rh.shift);
        // A's values scaled on the device (refactor_on_backend): the same factor, bit
        // for bit, as scaled on the host.
        auto from_device = gpu->make_ic0_factor(
            pattern.lower(), pattern.upper(), pattern.upper_source(), pattern.lower_source(),
            {prism::TrisolveAlgorithm::automatic, prism::Precision::fp64, layout});
        const DeviceValues a_values(a.values);
        std::vector<index_t> identity(a.values.size());
        std::iota(identity.begin(), identity.end(), 0);
        const prism::FactorizationReport rd =
            pattern.factorize({a_values.data(), &identity}, {}, *from_device);
        EXPECT_EQ(rd.retries, rh.retries);
        EXPECT_EQ(rd.shift, rh.shift);
        // Natural order: the upper solve's row blocks differ from the lower one's.
        expect_halves_equal_solves(*engine, a.rows, 34);
        for (auto tri : {prism::backend::Triangle::lower, prism::backend::Triangle::upper}) {
          auto reference = cpu->make_triangular_solver(
              tri == prism::backend::Triangle::lower ? host_factor.lower() : host_factor.upper(),
              tri, {prism::TrisolveAlgorithm::reference, prism::Precision::fp64});
          auto b = both(random_vector(a.rows, 31)), x = both(std::vector<double>(a.rows, 0.0));
          auto xd = both(std::vector<double>(a.rows, 0.0));
          from_device->solve(tri, *b.g, *xd.g);
          engine->solve(tri, *b.g, *x.g);
          EXPECT_EQ(host(*gpu, *xd.g), host(*gpu, *x.g));
          reference->solve(*b.c, *x.c);
          const auto xc = host(*cpu, *x.c);
          double scale = 1.0;
          for (double v : xc) scale = std::max(scale, std::abs(v));
          EXPECT_LE(max_abs_diff(host(*gpu, *x.g), xc), 1e-12 * scale);
        }
      }
    }
  }
}

/// The matches (and pivot positions) of Ic0Matches, found on the host by a plain merge.
struct HostMatches {
  std::vector<index_t> ptr{0};
  std::vector<std::uint16_t> own;
  std::vector<index_t> other;
  std::vector<index_t> pivot;
};
HostMatches host_matches(const CsrMatrix<double>& lower) {
  HostMatches m;
  for (index_t i = 0; i < lower.rows; ++i) {
    const index_t first = lower.row_ptr[i], diag = lower.row_ptr[i + 1] - 1;
    for (index_t p = first; p <= diag; ++p) {
      m.pivot.push_back(p < diag ? lower.row_ptr[lower.col_idx[p] + 1] - 1 : p);
      if (p < diag) {
        const index_t k = lower.col_idx[p];
        for (index_t a = first; a < p; ++a) {
          for (index_t b = lower.row_ptr[k]; b + 1 < lower.row_ptr[k + 1]; ++b) {
            if (lower.col_idx[a] == lower.col_idx[b]) {
              m.own.push_back(static_cast<std::uint16_t>(a - first));
              m.other.push_back(b);
            }
          }
        }
      }
      m.ptr.push_back(static_cast<index_t>(m.own.size()));
    }
  }
  return m;
}

template <typename T>
std::vector<T> download(const prism::kernels::cuda::DeviceBuffer<T>& d) {
  std::vector<T> h(d.size());
  if (!h.empty()) {
    EXPECT_EQ(cudaMemcpy(h.data(), d.data(), h.size() * sizeof(T), cudaMemcpyDeviceToHost),
              cudaSuccess);
  }
  return h;
}

// The SELL halves loop over their rows with at most the resident blocks (a grid-stride
// loop): on colors of more rows than the device keeps threads resident, threads take
// several rows. The halves still equal the two plain solves (one thread a row) bit for
// bit and form r.z to rounding, and the plain solves equal the CPU reference's to
// rounding.
TEST_F(CudaBackendTest, SellHalvesOnColorsLongerThanTheResidentThreads) {
  const index_t resident = prism::kernels::cuda::resident_threads();
  ASSERT_GT(resident, 0);
  // Two colors of about 1.3 resident threads' rows each: the red-black 2D grid.
  const index_t nx = 1000, ny = (13 * resident / 5 + nx - 1) / nx;
  const CsrMatrix<double> grid = prism::poisson2d(nx, ny);
  const prism::Coloring coloring = prism::color_matrix(grid, prism::VertexOrder::natural);
  const CsrMatrix<double> a = prism::permute_symmetric(grid, coloring.permutation);
  ASSERT_EQ(coloring.num_colors, 2);
  prism::precond::Ic0Pattern pattern(a);
  auto engine = gpu->make_ic0_factor(
      pattern.lower(), pattern.upper(), pattern.upper_source(), pattern.lower_source(),
      {prism::TrisolveAlgorithm::automatic, prism::Precision::fp64, prism::ColorsetLayout::sell});
  pattern.factorize(a, {}, *engine);
  ASSERT_EQ(engine->layout(), "sell");
  expect_halves_equal_solves(*engine, a.rows, 36);
  // The plain solves against the CPU reference's.
  prism::precond::Ic0Pattern cpu_pattern(a);
  auto reference =
      cpu->make_ic0_factor(cpu_pattern.lower(), cpu_pattern.upper(), cpu_pattern.upper_source(),
                           cpu_pattern.lower_source(), {prism::TrisolveAlgorithm::automatic});
  cpu_pattern.factorize(a, {}, *reference);
  for (auto tri : {prism::backend::Triangle::lower, prism::backend::Triangle::upper}) {
    auto b = both(random_vector(a.rows, 37)), x = both(std::vector<double>(a.rows, 0.0));
    engine->solve(tri, *b.g, *x.g);
    reference->solve(tri, *b.c, *x.c);
    const std::vector<double> xg = host(*gpu, *x.g), xc = host(*cpu, *x.c);
    double scale = 1.0, error = 0.0;
    for (std::size_t i = 0; i < xc.size(); ++i) {
      scale = std::max(scale, std::abs(xc[i]));
      error = std::max(error, std::abs(xg[i] - xc[i]));
    }
    EXPECT_LE(error, 1e-12 * scale);
  }
}

// The GPU factorization kernels (merges by one thread and by one warp per row, and warps
// staging a few rows at a time from the matches found once) against the reference
// factorization bit for bit, block by block as the engine runs them: short rows
// (Poisson), rows longer than a warp's 32 (band), one row per block (natural order), and
// breakdowns (the same first failed row, and the blocks after it skipped); a ladder of
// shifts block by block and by levels in one cooperative launch. The match table against
// a plain merge on the host, and its runs against their definition.
TEST_F(CudaBackendTest, Ic0FactorKernelsEqualTheReferenceBitForBit) {
  namespace kc = prism::kernels::cuda;
  const auto colored = [](const CsrMatrix<double>& a) {
    return prism::permute_symmetric(
        a, prism::color_matrix(a, prism::VertexOrder::natural).permutation);
  };
  const CsrMatrix<double> band = random_band(1000, 90, 1.0, 7);
  std::vector<std::pair<std::string, CsrMatrix<double>>> matrices{
      {"n1", prism::poisson2d(1, 1)},
      {"poisson3d27", colored(prism::poisson3d(13, 11, 9, 27))},
      {"band", colored(band)},
      {"band natural", band},
      {"band indefinite", colored(random_band(777, 70, 0.3, 8))},
      {"bcsstk08",
       colored(prism::read_matrix_market(std::string(PRISM_TEST_DATA_DIR) + "/bcsstk08.mtx"))}};
  int staged_scaling_runs = 0;  // matrices factored staged from the source too
  int level_runs = 0;           // matrices factored by levels too
  for (const auto& [name, a] : matrices) {
    prism::precond::Ic0Pattern pattern(a);
    const CsrMatrix<double>& lower = pattern.lower();
    const prism::kernels::CsrView<double> view{lower.rows, lower.cols, lower.row_ptr.data(),
                                               lower.col_idx.data(), nullptr};
    std::vector<double> scaled(lower.col_idx.size()), row_scale(a.rows);
    ASSERT_TRUE(prism::kernels::reference::ic0_scale(view, pattern.lower_source().data(),
                                                     a.values.data(), scaled.data(),
                                                     row_scale.data())
                    .ok());
    // The blocks of the strict lower triangle, as the engine's.
    CsrMatrix<double> strict{lower.rows, lower.cols, {0}, {}, {}};
    index_t longest = 0;
    for (index_t i = 0; i < lower.rows; ++i) {
      for (index_t k = lower.row_ptr[i]; k + 1 < lower.row_ptr[i + 1]; ++k) {
        strict.col_idx.push_back(lower.col_idx[k]);
      }
      strict.row_ptr.push_back(static_cast<index_t>(strict.col_idx.size()));
      longest = std::max(longest, lower.row_ptr[i + 1] - lower.row_ptr[i] - 1);
    }
    const std::vector<index_t> blocks = prism::kernels::independent_blocks(
        {strict.rows, strict.cols, strict.row_ptr.data(), strict.col_idx.data(), nullptr}, true);
    auto row_ptr = kc::upload_and_wait(lower.row_ptr, nullptr);
    auto col_idx = kc::upload_and_wait(lower.col_idx, nullptr);
    const prism::kernels::CsrView<double> device{lower.rows, lower.cols, row_ptr.data(),
                                                 col_idx.data(), nullptr};
    std::vector<index_t> entry_row;
    for (index_t i = 0; i < lower.rows; ++i) {
      entry_row.insert(entry_row.end(), lower.row_ptr[i + 1] - lower.row_ptr[i], i);
    }
    const auto device_entry_row = kc::upload_and_wait(entry_row, nullptr);
    const kc::Ic0MatchTable table =
        kc::ic0_match_table(device, static_cast<index_t>(lower.col_idx.size()),
                            device_entry_row.data(), longest + 1, nullptr);
    // No table where no entry subtracts a product (n1): the merges find nothing either.
    const HostMatches expected_matches = host_matches(lower);
    const bool has_pairs = !expected_matches.own.empty();
    ASSERT_EQ(table.valid(), has_pairs);
    if (has_pairs) {
      EXPECT_EQ(download(table.ptr), expected_matches.ptr);
      std::vector<std::uint16_t> own = download(table.own);
      ASSERT_EQ(own.size(), expected_matches.own.size() + 2);  // padded to whole words
      own.resize(expected_matches.own.size());
      EXPECT_EQ(own, expected_matches.own);
      EXPECT_EQ(download(table.other), expected_matches.other);
      EXPECT_EQ(download(table.pivot), expected_matches.pivot);
      // The runs: no entry of a run pairs with another of it, and each run after a row's
      // first starts with an entry that pairs with one of the run before (the fewest runs).
      std::vector<std::uint16_t> run_end = download(table.run_end);
      ASSERT_EQ(run_end.size(), lower.col_idx.size() + 2);  // padded to whole words
      const std::vector<index_t>& match_ptr = expected_matches.ptr;
      const std::vector<std::uint16_t>& match_own = expected_matches.own;
      for (index_t i = 0; i < lower.rows; ++i) {
        const index_t first = lower.row_ptr[i], diag = lower.row_ptr[i + 1] - 1;
        EXPECT_EQ(run_end[diag], diag - first);
        index_t previous = first;
        for (index_t run = first; run < diag;) {
          const index_t stop = first + run_end[run];
          ASSERT_GT(stop, run);
          ASSERT_LE(stop, diag);
          bool pairs_with_previous = false;
          for (index_t p = run; p < stop; ++p) {
            EXPECT_EQ(first + run_end[p], stop);
            for (index_t q = match_ptr[p]; q < match_ptr[p + 1]; ++q) {
              EXPECT_LT(first + match_own[q], run) << "row " << i << " entry " << p;
              if (p == run && first + match_own[q] >= previous) pairs_with_previous = true;
            }
          }
          if (run > first) EXPECT_TRUE(pairs_with_previous) << "row " << i << " run " << run;
          previous = run;
          run = stop;
        }
      }
    }
    const kc::Ic0Matches matches = table.view();
    // Block b of the engine's blocks, factored by `method`.
    const auto block_rows = [&](std::size_t b, kc::Ic0Method method) {
      kc::Ic0Rows rows;
      rows.begin = blocks[b];
      rows.end = blocks[b + 1];
      rows.method = method;
      rows.staging =
          kc::ic0_staging(lower.row_ptr.data(), expected_matches.ptr.data(), rows.begin, rows.end);
      return rows;
    };
    const auto method_name = [](kc::Ic0Method method) {
      return method == kc::Ic0Method::merge        ? ", merge"
             : method == kc::Ic0Method::warp_merge ? ", warp merge"
                                                   : ", staged";
    };
    // The reference factor with `shift`, its verdict, and the rows it finishes (all, or
    // those before a breakdown).
    const auto reference_factor = [&](double shift) {
      std::vector<double> expected = scaled;
      const prism::kernels::Ic0Status status =
          prism::kernels::reference::ic0_factorize(view, expected.data(), shift);
      const index_t good_rows = status.ok() ? a.rows : status.failed_row;
      return std::make_tuple(expected, status, good_rows);
    };
    for (double shift : {0.0, 0.5}) {
      const auto [expected, status, good_rows] = reference_factor(shift);
      for (kc::Ic0Method method :
           {kc::Ic0Method::merge, kc::Ic0Method::warp_merge, kc::Ic0Method::staged}) {
        if (method == kc::Ic0Method::staged && !has_pairs) continue;
        SCOPED_TRACE(name + ", longest row " + std::to_string(longest) + ", shift " +
                     std::to_string(shift) + method_name(method));
        auto values = kc::upload_and_wait(scaled, nullptr);
        auto failed = kc::upload_and_wait(std::vector<int>{kc::kNoFailedRow}, nullptr);
        for (std::size_t b = 0; b + 1 < blocks.size(); ++b) {
          const kc::Ic0Rows rows = block_rows(b, method);
          if (method == kc::Ic0Method::staged) ASSERT_GT(rows.staging.rows_per_warp, 0);
          kc::ic0_factor_rows(rows, device, values.data(), shift, failed.data(), nullptr, &matches);
        }
        std::vector<double> got(scaled.size());
        int failed_row = 0;
        ASSERT_EQ(cudaMemcpy(got.data(), values.data(), got.size() * sizeof(double),
                             cudaMemcpyDeviceToHost),
                  cudaSuccess);
        ASSERT_EQ(cudaMemcpy(&failed_row, failed.data(), sizeof(int), cudaMemcpyDeviceToHost),
                  cudaSuccess);
        EXPECT_EQ(failed_row, status.ok() ? kc::kNoFailedRow : status.failed_row);
        // Rows before a breakdown (all rows without one): the same bits.
        const auto end = static_cast<std::size_t>(lower.row_ptr[good_rows]);
        EXPECT_TRUE(std::equal(got.begin(), got.begin() + end, expected.begin()));
        // After a breakdown the later blocks return at once: their rows keep their input.
        if (!status.ok()) {
          const auto later = std::upper_bound(blocks.begin(), blocks.end(), status.failed_row);
          ASSERT_NE(later, blocks.end());
          const auto from = static_cast<std::size_t>(lower.row_ptr[*later]);
          EXPECT_TRUE(std::equal(got.begin() + from, got.end(), scaled.begin() + from));
        }
      }
    }
    // Scaling as it reads (Ic0Source): the caller's values, and the same factor, row
    // scales and verdicts as ic0_scale followed by the factorization. `values` starts
    // as NaN: every entry is written. A bad diagonal in the last block is found even
    // where an earlier block breaks down (ic0_scale checks every row first).
    const auto lower_source = kc::upload_and_wait(pattern.lower_source(), nullptr);
    const std::vector<index_t>& host_source = pattern.lower_source();
    // Staged only where every block's rows fit with the scaling's 8 bytes an entry.
    bool staged_scales = has_pairs;
    for (std::size_t b = 0; staged_scales && b + 1 < blocks.size(); ++b) {
      const kc::Ic0Staging st = block_rows(b, kc::Ic0Method::staged).staging;
      staged_scales = st.rows_per_warp > 0 &&
                      kc::ic0_staged_bytes(st.entries, st.pairs, true) <= kc::kIc0StagedSharedBytes;
    }
    if (staged_scales) ++staged_scaling_runs;
    for (bool bad_last_row : {false, true}) {
      std::vector<double> a_values = a.values;
      const index_t bad_row = a.rows - 1;
      if (bad_last_row) a_values[host_source[lower.row_ptr[bad_row + 1] - 1]] = -1.0;
      const auto device_a = kc::upload_and_wait(a_values, nullptr);
      for (double shift : {0.0, 0.5}) {
        const auto [expected, status, good_rows] = reference_factor(shift);
        for (kc::Ic0Method method :
             {kc::Ic0Method::merge, kc::Ic0Method::warp_merge, kc::Ic0Method::staged}) {
          if (method == kc::Ic0Method::staged && !staged_scales) continue;
          SCOPED_TRACE(name + ", from the source, shift " + std::to_string(shift) +
                       method_name(method) + (bad_last_row ? ", bad last diagonal" : ""));
          auto values = kc::upload_and_wait(
              std::vector<double>(scaled.size(), std::numeric_limits<double>::quiet_NaN()),
              nullptr);
          kc::DeviceBuffer<double> device_scale(static_cast<std::size_t>(a.rows));
          kc::DeviceBuffer<double> device_inverse(static_cast<std::size_t>(a.rows));
          auto flags =
              kc::upload_and_wait(std::vector<int>{kc::kNoFailedRow, kc::kNoFailedRow}, nullptr);
          const kc::Ic0Source source{device_a.data(), lower_source.data(), device_scale.data(),
                                     device_inverse.data(), flags.data() + 1};
          for (std::size_t b = 0; b + 1 < blocks.size(); ++b) {
            kc::ic0_factor_rows(block_rows(b, method), device, values.data(), shift, flags.data(),
                                nullptr, &matches, nullptr, nullptr, &source);
          }
          const std::vector<int> verdicts = download(flags);
          const std::vector<double> got = download(values);
          if (bad_last_row) {
            EXPECT_EQ(verdicts[1], bad_row);
            // Rows of the blocks before the bad row's: as ic0_scale then the factorization
            // would have them, up to a breakdown.
            const auto its_block = std::upper_bound(blocks.begin(), blocks.end(), bad_row) - 1;
            const index_t rows = std::min(good_rows, *its_block);
            const auto end = static_cast<std::size_t>(lower.row_ptr[rows]);
            EXPECT_TRUE(std::equal(got.begin(), got.begin() + end, expected.begin()));
            continue;
          }
          EXPECT_EQ(verdicts[1], kc::kNoFailedRow);
          EXPECT_EQ(verdicts[0], status.ok() ? kc::kNoFailedRow : status.failed_row);
          const auto end = static_cast<std::size_t>(lower.row_ptr[good_rows]);
          EXPECT_TRUE(std::equal(got.begin(), got.begin() + end, expected.begin()));
          if (!status.ok()) continue;
          EXPECT_EQ(download(device_scale), row_scale);
          std::vector<double> inverse(row_scale.size());
          for (std::size_t i = 0; i < inverse.size(); ++i) inverse[i] = 1.0 / row_scale[i];
          EXPECT_EQ(download(device_inverse), inverse);
        }
      }
    }
    // Nor does it run in a ladder.
    {
      const kc::Ic0Source some{a.values.data(), nullptr, nullptr, nullptr, nullptr};
      const double one_shift = 0.0;
      const kc::Ic0Attempts one{1, &one_shift, 0};
      EXPECT_THROW(kc::ic0_factor_rows(block_rows(0, kc::Ic0Method::merge), device, nullptr, 0.0,
                                       nullptr, nullptr, nullptr, nullptr, &one, &some),
                   prism::ConfigError);
    }

    // A ladder of attempts in one launch per block: each attempt as if alone.
    const std::vector<double> shifts{0.0, 0.5, 1e-3};
    const std::size_t nnz = scaled.size();
    // Each attempt t of a ladder's values `got` and failed rows: the reference's verdict
    // with shifts[t], and its bits up to the failed row (all rows without one).
    const auto expect_ladder = [&](const std::vector<double>& got,
                                   const std::vector<int>& failed_rows) {
      for (std::size_t t = 0; t < shifts.size(); ++t) {
        SCOPED_TRACE(shifts[t]);
        std::vector<double> expected = scaled;
        const prism::kernels::Ic0Status status =
            prism::kernels::reference::ic0_factorize(view, expected.data(), shifts[t]);
        EXPECT_EQ(failed_rows[t], status.ok() ? kc::kNoFailedRow : status.failed_row);
        const index_t good_rows = status.ok() ? a.rows : status.failed_row;
        const auto end = static_cast<std::ptrdiff_t>(lower.row_ptr[good_rows]);
        const auto first = got.begin() + static_cast<std::ptrdiff_t>(t * nnz);
        EXPECT_TRUE(std::equal(first, first + end, expected.begin()));
      }
    };
    for (kc::Ic0Method method :
         {kc::Ic0Method::merge, kc::Ic0Method::warp_merge, kc::Ic0Method::staged}) {
      if (method == kc::Ic0Method::staged && !has_pairs) continue;
      SCOPED_TRACE(name + ", ladder" + method_name(method));
      std::vector<double> copies;
      for (std::size_t t = 0; t < shifts.size(); ++t) {
        copies.insert(copies.end(), scaled.begin(), scaled.end());
      }
      auto values = kc::upload_and_wait(copies, nullptr);
      auto device_shifts = kc::upload_and_wait(shifts, nullptr);
      auto failed = kc::upload_and_wait(std::vector<int>(shifts.size(), kc::kNoFailedRow), nullptr);
      const kc::Ic0Attempts ladder{static_cast<int>(shifts.size()), device_shifts.data(), nnz};
      for (std::size_t b = 0; b + 1 < blocks.size(); ++b) {
        kc::ic0_factor_rows(block_rows(b, method), device, values.data(), -1.0, failed.data(),
                            nullptr, &matches, nullptr, &ladder);
      }
      expect_ladder(download(values), download(failed));
    }
    // The same ladder by levels, all blocks in one cooperative launch.
    if (kc::ic0_levels_supported()) {
      SCOPED_TRACE(name + ", ladder by levels");
      const prism::kernels::Ic0LevelPlan plan = prism::kernels::ic0_level_plan(
          view, expected_matches.ptr.data(), expected_matches.own.data(),
          expected_matches.other.data(), blocks);
      kc::Ic0LevelTable table(plan, static_cast<int>(shifts.size()), nullptr);
      std::vector<double> copies;
      for (std::size_t t = 0; t < shifts.size(); ++t) {
        copies.insert(copies.end(), scaled.begin(), scaled.end());
      }
      auto values = kc::upload_and_wait(copies, nullptr);
      auto device_shifts = kc::upload_and_wait(shifts, nullptr);
      auto failed = kc::upload_and_wait(std::vector<int>(shifts.size(), kc::kNoFailedRow), nullptr);
      const kc::Ic0Attempts ladder{static_cast<int>(shifts.size()), device_shifts.data(), nnz};
      kc::ic0_factor_levels(table, values.data(), failed.data(), ladder, nullptr);
      expect_ladder(download(values), download(failed));
      // More attempts than the table was made for.
      const kc::Ic0Attempts too_many{ladder.count + 1, device_shifts.data(), nnz};
      EXPECT_THROW(kc::ic0_factor_levels(table, values.data(), failed.data(), too_many, nullptr),
                   prism::ConfigError);
      ++level_runs;
    }
  }
  EXPECT_EQ(level_runs, kc::ic0_levels_supported() ? static_cast<int>(matrices.size()) : 0);
  EXPECT_GE(staged_scaling_runs, 2);  // poisson3d27 and bcsstk08 at least
}

// The staged factorization's planning runs on the host (no device needed): a warp takes
// the most rows, a power of two up to 32, whose entries and matches fit its shared
// memory and whose entries, for more than one row, are at most kIc0StagedLaneEntries a
// lane; none where a single row does not fit.
TEST(Ic0Staging, TakesTheMostRowsAWarpWhoseDataFitsItsSharedMemory) {
  namespace kc = prism::kernels::cuda;
  // `rows` rows of `entries` entries (diagonal included), `pairs` matches per row.
  const auto uniform = [](index_t rows, index_t entries, index_t pairs) {
    std::vector<index_t> row_ptr{0}, match_ptr{0};
    for (index_t i = 0; i < rows; ++i) {
      row_ptr.push_back(row_ptr.back() + entries);
      for (index_t e = 0; e < entries; ++e) {
        match_ptr.push_back(match_ptr.back() + (e == 0 ? pairs : 0));
      }
    }
    return std::make_pair(row_ptr, match_ptr);
  };
  for (const auto& [rows, entries, pairs] : std::vector<std::tuple<index_t, index_t, index_t>>{
           {100, 5, 8}, {37, 27, 88}, {50, 60, 400}, {3, 2000, 4000}, {1, 1, 0}}) {
    SCOPED_TRACE(std::to_string(rows) + " rows of " + std::to_string(entries) + " entries, " +
                 std::to_string(pairs) + " matches");
    const auto [row_ptr, match_ptr] = uniform(rows, entries, pairs);
    const kc::Ic0Staging s = kc::ic0_staging(row_ptr.data(), match_ptr.data(), 0, rows);
    int expected = 32;
    const auto taken_rows = [&](int r) { return std::min<index_t>(rows, r); };
    while (
        expected > 0 &&
        (kc::ic0_staged_bytes(expected * entries, expected * pairs) > kc::kIc0StagedSharedBytes ||
         (expected > 1 && taken_rows(expected) * entries > 32 * kc::kIc0StagedLaneEntries))) {
      expected /= 2;
    }
    // A warp of fewer rows than it could take: the block's rows are all there are.
    ASSERT_EQ(s.rows_per_warp, expected);
    if (expected == 0) continue;
    const index_t taken = std::min<index_t>(rows, expected);
    EXPECT_EQ(s.entries, taken * entries);
    EXPECT_EQ(s.pairs, taken * pairs);
    EXPECT_LE(kc::ic0_staged_bytes(s.entries, s.pairs), kc::kIc0StagedSharedBytes);
    // The scaling (Ic0Source) takes 8 bytes more an entry.
    EXPECT_EQ(kc::ic0_staged_bytes(s.entries, s.pairs, true),
              kc::ic0_staged_bytes(s.entries, s.pairs) + 8 * static_cast<std::size_t>(s.entries));
  }
  // Rows of 27 entries with 88 matches each: 2 rows a warp (8 would fit the memory).
  const auto [grid_rows, grid_matches] = uniform(64, 27, 88);
  EXPECT_EQ(kc::ic0_staging(grid_rows.data(), grid_matches.data(), 0, 64).rows_per_warp, 2);
  // Uneven rows: the warp's room is the most any of its warps needs.
  std::vector<index_t> row_ptr{0}, match_ptr{0};
  for (index_t i = 0; i < 40; ++i) {
    const index_t entries = i == 33 ? 50 : 1;
    row_ptr.push_back(row_ptr.back() + entries);
    for (index_t e = 0; e < entries; ++e) match_ptr.push_back(match_ptr.back() + 1);
  }
  const kc::Ic0Staging s = kc::ic0_staging(row_ptr.data(), match_ptr.data(), 0, 40);
  ASSERT_EQ(s.rows_per_warp, 32);
  EXPECT_EQ(s.entries, 50 + 7);  // rows 32..39, with the long row, need the most
  EXPECT_EQ(s.pairs, 50 + 7);
}

// A ladder's end on the device: ic0_failed_pivots reads each failed attempt's pivot from
// its failed row's diagonal slot, and ic0_emit with Ic0Kept copies the first attempt that
// did not fail into the kept values and writes it out exactly as ic0_emit of that attempt
// alone does; where every attempt failed, nothing is written.
TEST_F(CudaBackendTest, Ic0LadderKeepsTheFirstAttemptThatDidNotFail) {
  namespace kc = prism::kernels::cuda;
  const CsrMatrix<double> a = prism::poisson2d(5, 4);
  prism::precond::Ic0Pattern pattern(a);
  const CsrMatrix<double>& lower = pattern.lower();
  const index_t n = lower.rows;
  const std::size_t nnz = lower.col_idx.size();
  std::vector<index_t> entry_row, dest(nnz);
  for (index_t i = 0; i < n; ++i) {
    entry_row.insert(entry_row.end(), lower.row_ptr[i + 1] - lower.row_ptr[i], i);
  }
  std::iota(dest.begin(), dest.end(), 0);
  constexpr int kAttempts = 3;
  std::vector<double> ladder(kAttempts * nnz);  // distinct values in every slot
  for (std::size_t k = 0; k < ladder.size(); ++k) ladder[k] = 1.0 + 0.01 * static_cast<double>(k);
  const auto row_ptr = kc::upload_and_wait(lower.row_ptr, nullptr);
  const auto col_idx = kc::upload_and_wait(lower.col_idx, nullptr);
  const auto device_entry_row = kc::upload_and_wait(entry_row, nullptr);
  const auto device_dest = kc::upload_and_wait(dest, nullptr);
  const auto device_ladder = kc::upload_and_wait(ladder, nullptr);
  const auto row_scale = kc::upload_and_wait(std::vector<double>(n, 2.0), nullptr);
  const prism::kernels::CsrView<double> view{n, n, row_ptr.data(), col_idx.data(), nullptr};
  constexpr double kUnwritten = -7.0;
  // What ic0_emit writes (both copies and both inverse diagonals) and the kept values.
  const auto emit = [&](const double* values, const std::vector<int>* failed_rows) {
    auto lower_copy = kc::upload_and_wait(std::vector<double>(nnz, kUnwritten), nullptr);
    auto upper_copy = kc::upload_and_wait(std::vector<double>(nnz, kUnwritten), nullptr);
    auto lower_inverse = kc::upload_and_wait(std::vector<double>(n, kUnwritten), nullptr);
    auto upper_inverse = kc::upload_and_wait(std::vector<double>(n, kUnwritten), nullptr);
    auto kept_values = kc::upload_and_wait(std::vector<double>(nnz, kUnwritten), nullptr);
    kc::Ic0Output out;
    out.lower_dest = device_dest.data();
    out.upper_dest = device_dest.data();
    out.row_scale = row_scale.data();
    out.lower = lower_copy.data();
    out.upper = upper_copy.data();
    out.lower_inverse = lower_inverse.data();
    out.upper_inverse = upper_inverse.data();
    kc::DeviceBuffer<int> flags;
    kc::Ic0Kept kept;
    if (failed_rows != nullptr) {
      flags = kc::upload_and_wait(*failed_rows, nullptr);
      kept = {flags.data(), kAttempts, nnz, kept_values.data()};
    }
    kc::ic0_emit(view, static_cast<index_t>(nnz), device_entry_row.data(), values, out, nullptr,
                 failed_rows != nullptr ? &kept : nullptr);
    return std::vector<std::vector<double>>{download(lower_copy), download(upper_copy),
                                            download(lower_inverse), download(upper_inverse),
                                            download(kept_values)};
  };
  // Attempts 1 and 2 succeed: attempt 1 is kept, as if emitted alone.
  const std::vector<int> first_fails{2, kc::kNoFailedRow, kc::kNoFailedRow};
  const auto kept = emit(device_ladder.data(), &first_fails);
  auto alone = emit(device_ladder.data() + nnz, nullptr);
  EXPECT_EQ(alone[0], kept[0]);
  EXPECT_EQ(alone[1], kept[1]);
  EXPECT_EQ(alone[2], kept[2]);
  EXPECT_EQ(alone[3], kept[3]);
  EXPECT_NE(alone[0], std::vector<double>(nnz, kUnwritten));
  EXPECT_EQ(kept[4], std::vector<double>(ladder.begin() + static_cast<std::ptrdiff_t>(nnz),
                                         ladder.begin() + static_cast<std::ptrdiff_t>(2 * nnz)));
  // Every attempt failed: nothing written.
  const std::vector<int> all_fail{1, 0, 3};
  const auto none = emit(device_ladder.data(), &all_fail);
  EXPECT_EQ(none[0], std::vector<double>(nnz, kUnwritten));
  EXPECT_EQ(none[2], std::vector<double>(n, kUnwritten));
  EXPECT_EQ(none[4], std::vector<double>(nnz, kUnwritten));
  // The failed attempts' pivots: their failed rows' diagonal slots, 0 for the others.
  const std::vector<int> mixed{2, kc::kNoFailedRow, 5};
  const auto flags = kc::upload_and_wait(mixed, nullptr);
  kc::DeviceBuffer<double> pivots(kAttempts);
  kc::ic0_failed_pivots(flags.data(), kAttempts, device_ladder.data(), nnz, row_ptr.data(),
                        pivots.data(), nullptr);
  const auto diagonal = [&](int attempt, index_t row) {
    return ladder[static_cast<std::size_t>(attempt) * nnz + lower.row_ptr[row + 1] - 1];
  };
  EXPECT_EQ(download(pivots), (std::vector<double>{diagonal(0, 2), 0.0, diagonal(2, 5)}));
}

// A row longer than a match's 16-bit offsets (an arrow: the last row couples to every
// other) leaves no match table, and the engine factors by merging rows instead.
TEST_F(CudaBackendTest, DeviceIc0FactorMergesRowsBeyondTheMatchOffsets) {
  namespace kc = prism::kernels::cuda;
  const index_t n = kc::kIc0MatchRowLimit + 5;
  std::vector<prism::Triplet> t;
  for (index_t i = 0; i + 1 < n; ++i) {
    t.push_back({i, i, 1.0});
    t.push_back({n - 1, i, -0.5});
    t.push_back({i, n - 1, -0.5});
  }
  t.push_back({n - 1, n - 1, static_cast<double>(n)});
  const CsrMatrix<double> a = prism::csr_from_triplets(n, n, std::move(t));
  prism::precond::Ic0Pattern host_factor(a), pattern(a);
  host_factor.factorize(a, {});
  const CsrMatrix<double>& lower = pattern.lower();
  std::vector<index_t> entry_row;
  for (index_t i = 0; i < n; ++i) {
    entry_row.insert(entry_row.end(), lower.row_ptr[i + 1] - lower.row_ptr[i], i);
  }
  auto row_ptr = kc::upload_and_wait(lower.row_ptr, nullptr);
  auto col_idx = kc::upload_and_wait(lower.col_idx, nullptr);
  const auto device_entry_row = kc::upload_and_wait(entry_row, nullptr);
  EXPECT_FALSE(kc::ic0_match_table({n, n, row_ptr.data(), col_idx.data(), nullptr},
                                   static_cast<index_t>(entry_row.size()), device_entry_row.data(),
                                   n, nullptr)
                   .valid());
  auto engine = gpu->make_ic0_factor(pattern.lower(), pattern.upper(), pattern.upper_source(),
                                     pattern.lower_source(),
                                     {prism::TrisolveAlgorithm::automatic, prism::Precision::fp64});
  EXPECT_EQ(pattern.factorize(a, {}, *engine).retries, 0);
  for (auto tri : {prism::backend::Triangle::lower, prism::backend::Triangle::upper}) {
    auto reference = cpu->make_triangular_solver(
        tri == prism::backend::Triangle::lower ? host_factor.lower() : host_factor.upper(), tri,
        {prism::TrisolveAlgorithm::reference, prism::Precision::fp64});
    auto b = both(random_vector(n, 36)), x = both(std::vector<double>(n, 0.0));
    engine->solve(tri, *b.g, *x.g);
    reference->solve(*b.c, *x.c);
    const auto xc = host(*cpu, *x.c);
    double scale = 1.0;
    for (double v : xc) scale = std::max(scale, std::abs(v));
    EXPECT_LE(max_abs_diff(host(*gpu, *x.g), xc), 1e-12 * scale);
  }
}

// In CSR the device's float solves read the CPU twin's float values; in SELL the lower
// copy's first-color entries hold float(l_ik * dl_k) instead (Ic0Output::scaled_end), so
// the two differ by float rounding there.
TEST_F(CudaBackendTest, DeviceIc0FactorInMixedPrecisionMatchesItsCpuTwin) {
  const CsrMatrix<double> original = prism::poisson3d(19, 17, 15, 27);
  const CsrMatrix<double> a = prism::permute_symmetric(
      original, prism::color_matrix(original, prism::VertexOrder::natural).permutation);
  prism::precond::Ic0Pattern pc(a);
  auto ec = cpu->make_ic0_factor(pc.lower(), pc.upper(), pc.upper_source(), pc.lower_source(),
                                 {prism::TrisolveAlgorithm::automatic, prism::Precision::mixed});
  pc.factorize(a, {}, *ec);
  for (auto layout : {prism::ColorsetLayout::csr, prism::ColorsetLayout::sell}) {
    SCOPED_TRACE(prism::to_string(layout));
    prism::precond::Ic0Pattern pg(a);
    auto eg = gpu->make_ic0_factor(
        pg.lower(), pg.upper(), pg.upper_source(), pg.lower_source(),
        {prism::TrisolveAlgorithm::automatic, prism::Precision::mixed, layout});
    EXPECT_EQ(eg->layout(), prism::to_string(layout));
    pg.factorize(a, {}, *eg);
    // The halves form r.z as |L^{-1} r|^2, which is (r, z) where the lower copy is the
    // transpose of the upper one; in SELL its first-color entries hold float(l_ik dl_k)
    // where the upper copy holds float(l_ik) and float(dl_k): a float rounding apart.
    expect_halves_equal_solves(*eg, a.rows, 35,
                               layout == prism::ColorsetLayout::sell ? 1e-8 : 1e-12);
    for (auto tri : {prism::backend::Triangle::lower, prism::backend::Triangle::upper}) {
      auto b = both(random_vector(a.rows, 32)), x = both(std::vector<double>(a.rows, 0.0));
      eg->solve(tri, *b.g, *x.g);
      ec->solve(tri, *b.c, *x.c);
      const auto xc = host(*cpu, *x.c);
      double scale = 1.0;
      for (double v : xc) scale = std::max(scale, std::abs(v));
      // CSR: the same float values on both sides (the factorization is bit-identical in
      // double); only the summation order of the double sums differs. SELL's lower
      // triangle: a float rounding (2^-24) of each first-color product, through the
      // solve's few colors.
      const bool rounded =
          layout == prism::ColorsetLayout::sell && tri == prism::backend::Triangle::lower;
      EXPECT_LE(max_abs_diff(host(*gpu, *x.g), xc), (rounded ? 1e-6 : 1e-12) * scale);
      if (rounded) EXPECT_GT(max_abs_diff(host(*gpu, *x.g), xc), 0.0);
    }
  }
}

// Values from device memory with a bad diagonal: the device engine's first attempt
// reports it and the retry loop stops with the host path's message; the engine then
// still factors good values (a retry after a breakdown reloads them too). bcsstk08 is
// factored staged, the 5-point grids by merging rows (both scaled as the factorization
// reads them, Ic0Source; the retries that run together scaled by ic0_scale first); the
// second grid, its off-diagonal entries made larger, breaks down and takes shift retries.
TEST_F(CudaBackendTest, DeviceIc0FactorFromDeviceValuesReportsBadDiagonalsAndRetries) {
  CsrMatrix<double> strong = prism::poisson2d(37, 29);
  for (index_t i = 0; i < strong.rows; ++i) {
    for (index_t k = strong.row_ptr[i]; k < strong.row_ptr[i + 1]; ++k) {
      if (strong.col_idx[k] != i) strong.values[k] *= 1.6;
    }
  }
  const std::vector<std::pair<CsrMatrix<double>, index_t>> cases{
      {prism::read_matrix_market(std::string(PRISM_TEST_DATA_DIR) + "/bcsstk08.mtx"), 700},
      {prism::poisson2d(37, 29), 1000},
      {strong, 500}};
  for (const auto& [good, bad_row] : cases) {
    SCOPED_TRACE(std::to_string(good.rows) + " rows, bad diagonal in row " +
                 std::to_string(bad_row));
    CsrMatrix<double> bad = good;
    index_t diag = bad.row_ptr[bad_row];
    while (bad.col_idx[diag] != bad_row) ++diag;
    bad.values[diag] = 0.0;
    prism::precond::Ic0Pattern on_host(good), pattern(good);
    auto engine = gpu->make_ic0_factor(
        pattern.lower(), pattern.upper(), pattern.upper_source(), pattern.lower_source(),
        {prism::TrisolveAlgorithm::automatic, prism::Precision::fp64});
    std::vector<index_t> identity(good.values.size());
    std::iota(identity.begin(), identity.end(), 0);
    const DeviceValues bad_values(bad.values), good_values(good.values);
    const std::string expected = invalid_matrix_message([&] { on_host.factorize(bad, {}); });
    EXPECT_NE(expected.find("row " + std::to_string(bad_row + 1)), std::string::npos) << expected;
    EXPECT_EQ(invalid_matrix_message([&] {
                pattern.factorize({bad_values.data(), &identity}, {}, *engine);
              }),
              expected);
    const prism::FactorizationReport rh = on_host.factorize(good, {});
    const prism::FactorizationReport rd =
        pattern.factorize({good_values.data(), &identity}, {}, *engine);
    EXPECT_EQ(rd.retries, rh.retries);
    EXPECT_EQ(rd.shift, rh.shift);
    if (&good == &cases.back().first) EXPECT_GT(rh.retries, 0);
    auto b = both(random_vector(good.rows, 33)), x = both(std::vector<double>(good.rows, 0.0));
    auto reference =
        cpu->make_triangular_solver(on_host.lower(), prism::backend::Triangle::lower,
                                    {prism::TrisolveAlgorithm::reference, prism::Precision::fp64});
    engine->solve(prism::backend::Triangle::lower, *b.g, *x.g);
    reference->solve(*b.c, *x.c);
    const auto xc = host(*cpu, *x.c);
    double scale = 1.0;
    for (double v : xc) scale = std::max(scale, std::abs(v));
    EXPECT_LE(max_abs_diff(host(*gpu, *x.g), xc), 1e-12 * scale);
  }
}

TEST(GpuSolveBackendFactorization, MatchesHostFactorizationAndRefactors) {
  PRISM_SKIP_WITHOUT_GPU();
  CsrMatrix<double> a = prism::poisson3d(24, 22, 20);
  const std::vector<double> b = random_vector(a.rows, 6);
  prism::SolverConfig config;
  config.backend = prism::BackendKind::cuda;
  config.solver.tolerance = 1e-10;
  prism::Solver host(config);
  config.preconditioner.ic0.factorization = prism::Ic0Factorization::backend;
  prism::Solver device(config);
  host.setup(a);
  device.setup(a);
  std::vector<double> xh, xd;
  const auto rh = host.solve(b, xh);
  const auto rd = device.solve(b, xd);
  ASSERT_TRUE(rd.converged());
  EXPECT_EQ(rd.trisolve, "colorset");
  EXPECT_LE(std::abs(rd.iterations - rh.iterations), 2);
  EXPECT_LE(prism::test::relative_residual(a, xd, b), 1e-9);

  // Refactor on the device equals a fresh device setup.
  for (index_t i = 0; i < a.rows; ++i) {
    for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
      a.values[k] = 2.0 * a.values[k] + (a.col_idx[k] == i ? 1.0 : 0.0);
    }
  }
  device.refactor(a);
  prism::Solver fresh(config);
  fresh.setup(a);
  std::vector<double> x1, x2;
  const auto r1 = device.solve(b, x1);
  const auto r2 = fresh.solve(b, x2);
  EXPECT_EQ(r1.iterations, r2.iterations);
  EXPECT_LE(max_abs_diff(x1, x2), 1e-12);
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

// Whole solves: GPU against CPU, every preconditioner and ordering. CG iterates the
// same recurrence on both, but the GPU sums in another order; on well-conditioned
// problems the iteration counts agree within 2, on ill-conditioned ones (jumping
// coefficients, stiffness matrices) rounding shifts them by a few percent.
class GpuSolve : public ::testing::TestWithParam<std::tuple<std::string, prism::Ordering>> {};

void compare_gpu_with_cpu(const std::string& precond, prism::Ordering ordering,
                          const CsrMatrix<double>& a, int allowed_difference) {
  const std::vector<double> b = random_vector(a.rows, 21);
  prism::SolverConfig config;
  config.preconditioner.type = precond;
  config.preconditioner.ordering = ordering;
  config.solver.tolerance = 1e-10;
  config.solver.max_iterations = 20000;
  config.backend = prism::BackendKind::cpu;
  prism::Solver cpu(config);
  config.backend = prism::BackendKind::cuda;
  prism::Solver gpu(config);
  cpu.setup(a);
  gpu.setup(a);
  std::vector<double> xc, xg;
  const prism::SolveReport rc = cpu.solve(b, xc);
  const prism::SolveReport rg = gpu.solve(b, xg);
  ASSERT_TRUE(rc.converged());
  ASSERT_TRUE(rg.converged());
  EXPECT_EQ(rg.backend, "cuda");
  EXPECT_LE(std::abs(rg.iterations - rc.iterations), allowed_difference)
      << "gpu " << rg.iterations << ", cpu " << rc.iterations;
  EXPECT_LE(prism::test::relative_residual(a, xg, b), 1e-9);
  EXPECT_NEAR(rg.true_relative_residual, prism::test::relative_residual(a, xg, b), 1e-11);
  EXPECT_EQ(rg.factorization.retries, rc.factorization.retries);
  EXPECT_EQ(rg.ordering.colors.count, rc.ordering.colors.count);
}

TEST_P(GpuSolve, MatchesCpuSolveWithin2IterationsOnWellConditionedProblems) {
  PRISM_SKIP_WITHOUT_GPU();
  const auto& [precond, ordering] = GetParam();
  for (const CsrMatrix<double>& a :
       {prism::poisson2d(61, 47), prism::poisson3d(12, 11, 10, 27), prism::poisson2d(1, 1)}) {
    SCOPED_TRACE(a.rows);
    compare_gpu_with_cpu(precond, ordering, a, 2);
  }
}

TEST_P(GpuSolve, MatchesCpuSolveOnIllConditionedProblems) {
  PRISM_SKIP_WITHOUT_GPU();
  const auto& [precond, ordering] = GetParam();
  if (precond == "none") GTEST_SKIP() << "plain CG needs > 10^4 iterations here";
  std::vector<std::pair<std::string, CsrMatrix<double>>> cases{
      {"layered3d", prism::layered(16, 16, 16, 4, {1.0, 1000.0})},
      {"elasticity3d", prism::elasticity3d(12, 12, 12, 3, {1.0, 100.0})},
      {"bcsstk08", prism::read_matrix_market(std::string(PRISM_TEST_DATA_DIR) + "/bcsstk08.mtx")},
      {"grid_and_clique", grid_and_clique()},
      {"grid_and_hubs", grid_and_hubs()}};
  const std::string bcsstk13 = prism::test::shared_matrix("bcsstk13.mtx.gz");
  if (!bcsstk13.empty() && precond == "ic0") {
    cases.push_back({"bcsstk13", prism::read_matrix_market(bcsstk13)});
  }
  for (const auto& [name, a] : cases) {
    SCOPED_TRACE(name);
    compare_gpu_with_cpu(precond, ordering, a, 30);
  }
}

INSTANTIATE_TEST_SUITE_P(AllPreconditioners, GpuSolve,
                         ::testing::Combine(::testing::Values("none", "jacobi", "ic0"),
                                            ::testing::Values(prism::Ordering::natural,
                                                              prism::Ordering::color)),
                         [](const auto& info) {
                           return std::get<0>(info.param) + "_" +
                                  std::string(prism::to_string(std::get<1>(info.param)));
                         });

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
      EXPECT_EQ(gpu->first_bad_value(dv.data(), *gmap), cpu->first_bad_value(v.data(), *cmap));
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

// New values from device memory: the same factor, bit for bit, as refactor() from the
// host, for every way the preconditioner is set up (the cuSPARSE path through the host).
TEST(GpuSolveRefactor, OnBackendEqualsRefactor) {
  PRISM_SKIP_WITHOUT_GPU();
  const CsrMatrix<double> a = prism::poisson3d(20, 19, 18);
  CsrMatrix<double> a2 = a;
  for (index_t i = 0; i < a.rows; ++i) {
    for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
      a2.values[k] = 3.0 * a.values[k] + (a.col_idx[k] == i ? 0.5 : 0.0);
    }
  }
  const std::vector<double> b = random_vector(a.rows, 15);
  struct Path {
    std::string name, type;
    prism::TrisolveAlgorithm trisolve;
    prism::Precision precision;
  };
  for (const Path& path : std::vector<Path>{
           {"ic0 default", "ic0", prism::TrisolveAlgorithm::automatic, prism::Precision::fp64},
           {"ic0 mixed", "ic0", prism::TrisolveAlgorithm::automatic, prism::Precision::mixed},
           {"ic0 cusparse (host)", "ic0", prism::TrisolveAlgorithm::cusparse,
            prism::Precision::fp64},
           {"jacobi", "jacobi", prism::TrisolveAlgorithm::automatic, prism::Precision::fp64},
           {"none", "none", prism::TrisolveAlgorithm::automatic, prism::Precision::fp64}}) {
    SCOPED_TRACE(path.name);
    prism::SolverConfig config;
    config.backend = prism::BackendKind::cuda;
    config.preconditioner.type = path.type;
    config.preconditioner.trisolve = path.trisolve;
    config.preconditioner.ic0.precision = path.precision;
    prism::Solver host(config), device(config);
    host.setup(a);
    device.setup(a);
    host.refactor(a2);
    const DeviceValues values(a2.values);
    device.refactor_on_backend(values.data(), values.size());
    std::vector<double> xh, xd;
    const auto rh = host.solve(b, xh);
    const auto rd = device.solve(b, xd);
    ASSERT_TRUE(rd.converged());
    EXPECT_EQ(rd.iterations, rh.iterations);
    EXPECT_EQ(xd, xh);
    EXPECT_EQ(device.setup_report().factorization_seconds > 0.0, true);
    // Host memory is refused with a clear error, not a fault.
    EXPECT_THROW(device.refactor_on_backend(a2.values.data(), a2.values.size()),
                 prism::InvalidMatrixError);
    // Bad values (the check's verdict is read after the factorization was queued, or
    // when it fails): the message of refactor().
    for (const auto& [entry, value] : std::vector<std::pair<index_t, double>>{
             {a.row_ptr[3], std::nan("")}, {a.row_ptr[3], 1.5 * a2.values[a.row_ptr[3]]}}) {
      CsrMatrix<double> bad = a2;
      bad.values[entry] = value;
      const std::string expected = invalid_matrix_message([&] { host.refactor(bad); });
      const DeviceValues bad_values(bad.values);
      EXPECT_NE(expected, "no error");
      EXPECT_EQ(invalid_matrix_message(
                    [&] { device.refactor_on_backend(bad_values.data(), bad_values.size()); }),
                expected);
    }
  }
}

// A time loop that reassembles into one device buffer: the third and later calls with
// that pointer replay the second one's recorded work (upload_seconds is then 0), and each
// gives the factor refactor() gives for the same values, bit for bit, shift retries
// included (bcsstk13 needs 8 when the shared matrices are present). A bad value through
// the buffer is reported as refactor() reports it, and the buffer works again after;
// another buffer takes the plain path twice, then replays; alternating buffers never
// record.
TEST(GpuSolveRefactor, RepeatedCallsOnOneBufferEqualRefactor) {
  PRISM_SKIP_WITHOUT_GPU();
  std::vector<std::pair<std::string, CsrMatrix<double>>> matrices{
      {"poisson3d", prism::poisson3d(20, 19, 18)}};
  const std::string bcsstk13 = prism::test::shared_matrix("bcsstk13.mtx.gz");
  if (!bcsstk13.empty()) matrices.push_back({"bcsstk13", prism::read_matrix_market(bcsstk13)});
  for (const auto& [name, a] : matrices) {
    SCOPED_TRACE(name);
    const std::vector<double> b = random_vector(a.rows, 16);
    prism::SolverConfig config;
    config.backend = prism::BackendKind::cuda;
    prism::Solver host(config), device(config);
    host.setup(a);
    device.setup(a);
    DeviceValues buffer(a.values), other(a.values);
    auto step = [&](int k) {
      CsrMatrix<double> ak = a;
      for (index_t i = 0; i < a.rows; ++i) {
        for (index_t e = a.row_ptr[i]; e < a.row_ptr[i + 1]; ++e) {
          ak.values[e] = (1.0 + 0.25 * k) * a.values[e];
          if (a.col_idx[e] == i) ak.values[e] += 0.01 * k * std::abs(a.values[e]);
        }
      }
      return ak;
    };
    auto check = [&](const CsrMatrix<double>& ak, const DeviceValues& values, bool replayed) {
      host.refactor(ak);
      device.refactor_on_backend(values.data(), values.size());
      EXPECT_EQ(device.setup_report().upload_seconds == 0.0, replayed);
      std::vector<double> xh, xd;
      const auto rh = host.solve(b, xh);
      const auto rd = device.solve(b, xd);
      EXPECT_EQ(rd.iterations, rh.iterations);
      EXPECT_EQ(rd.factorization.retries, rh.factorization.retries);
      EXPECT_EQ(rd.factorization.shift, rh.factorization.shift);
      EXPECT_EQ(xd, xh);
      // And a fresh set-up's (whose factorization starts with the unshifted attempt
      // alone, where these start with the retries on bcsstk13, which needed a shift).
      prism::Solver fresh(config);
      fresh.setup(ak);
      std::vector<double> xf;
      const auto rf = fresh.solve(b, xf);
      EXPECT_EQ(rd.factorization.retries, rf.factorization.retries);
      EXPECT_EQ(rd.factorization.shift, rf.factorization.shift);
      EXPECT_EQ(xd, xf);
    };
    for (int k = 0; k < 4; ++k) {
      SCOPED_TRACE("step " + std::to_string(k));
      const CsrMatrix<double> ak = step(k);
      buffer.write(ak.values);
      check(ak, buffer, k > 1);
    }
    CsrMatrix<double> bad = step(4);
    bad.values[bad.row_ptr[2]] = std::nan("");
    const std::string expected = invalid_matrix_message([&] { host.refactor(bad); });
    buffer.write(bad.values);
    EXPECT_NE(expected, "no error");
    EXPECT_EQ(
        invalid_matrix_message([&] { device.refactor_on_backend(buffer.data(), buffer.size()); }),
        expected);
    const CsrMatrix<double> a5 = step(5);
    buffer.write(a5.values);
    check(a5, buffer, true);
    const CsrMatrix<double> a6 = step(6);
    other.write(a6.values);
    check(a6, other, false);
    buffer.write(a6.values);
    check(a6, buffer, false);  // alternating buffers: no recording
    check(a6, other, false);
    check(a6, other, false);
    check(a6, other, true);
  }
}

// refactor() from the host on the GPU default (the values copied to the device, then
// refactor_on_backend's path; from the third call on a replay): each call gives the
// solution of a fresh set-up with the same values, bit for bit; bad values are named as
// the host check names them, and the next call works again.
TEST(GpuSolveRefactor, RefactorEqualsFreshSetup) {
  PRISM_SKIP_WITHOUT_GPU();
  const CsrMatrix<double> a0 = prism::poisson3d(20, 20, 20);
  const std::vector<double> b = random_vector(a0.rows, 5);
  prism::SolverConfig config;
  config.backend = prism::BackendKind::cuda;
  prism::Solver reused(config);
  reused.setup(a0);
  std::vector<double> x;
  reused.solve(b, x);
  for (int step = 1; step <= 4; ++step) {
    SCOPED_TRACE(step);
    CsrMatrix<double> a = a0;
    for (index_t i = 0; i < a.rows; ++i) {
      for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
        a.values[k] = (1.0 + step) * a.values[k] + (a.col_idx[k] == i ? 0.5 * step : 0.0);
      }
    }
    reused.refactor(a);
    std::vector<double> x1, x2;
    const auto r1 = reused.solve(b, x1);
    prism::Solver fresh(config);
    fresh.setup(a);
    const auto r2 = fresh.solve(b, x2);
    EXPECT_EQ(r1.iterations, r2.iterations);
    EXPECT_EQ(x1, x2);
    if (step == 2) {
      CsrMatrix<double> bad = a;
      bad.values[a.row_ptr[7]] *= 1.5;  // an entry whose mirror keeps its value
      const std::string expected = invalid_matrix_message([&] { prism::check_spd_candidate(bad); });
      EXPECT_NE(expected, "no error");
      EXPECT_EQ(invalid_matrix_message([&] { reused.refactor(bad); }), expected);
    }
  }
}

/// The preconditioner paths a recorded graph must reproduce.
struct GraphPath {
  std::string name;
  std::string type;
  prism::TrisolveAlgorithm trisolve;
  prism::Ic0Factorization factorization;
  prism::Precision precision;
  prism::ColorsetLayout layout = prism::ColorsetLayout::automatic;
};

std::vector<GraphPath> graph_paths() {
  return {{"none", "none", prism::TrisolveAlgorithm::automatic, prism::Ic0Factorization::host,
           prism::Precision::fp64},
          {"jacobi", "jacobi", prism::TrisolveAlgorithm::automatic, prism::Ic0Factorization::host,
           prism::Precision::fp64},
          {"ic0 colorset", "ic0", prism::TrisolveAlgorithm::colorset, prism::Ic0Factorization::host,
           prism::Precision::fp64},
          {"ic0 cusparse", "ic0", prism::TrisolveAlgorithm::cusparse, prism::Ic0Factorization::host,
           prism::Precision::fp64},
          {"ic0 device factor mixed", "ic0", prism::TrisolveAlgorithm::automatic,
           prism::Ic0Factorization::backend, prism::Precision::mixed},
          // The folded SELL halves, which also form (r, z) under timing: total.
          {"ic0 device factor sell", "ic0", prism::TrisolveAlgorithm::automatic,
           prism::Ic0Factorization::backend, prism::Precision::fp64, prism::ColorsetLayout::sell}};
}

prism::SolverConfig graph_config(const GraphPath& path, prism::GraphMode graph) {
  prism::SolverConfig config;
  config.backend = prism::BackendKind::cuda;
  config.preconditioner.type = path.type;
  config.preconditioner.trisolve = path.trisolve;
  config.preconditioner.ic0.factorization = path.factorization;
  config.preconditioner.ic0.precision = path.precision;
  config.preconditioner.colorset_layout = path.layout;
  config.solver.tolerance = 1e-9;
  config.solver.timing = prism::TimingMode::total;
  config.solver.graph = graph;
  return config;
}

/// The iteration replayed as a CUDA graph runs the very same kernels on the very same
/// data as plain launches: identical iterations and bit-identical solutions, for every
/// preconditioner path and with and without check_every.
TEST(GpuSolveGraph, ReplayEqualsPlainLaunches) {
  PRISM_SKIP_WITHOUT_GPU();
  const CsrMatrix<double> a = prism::poisson3d(21, 20, 19);
  const std::vector<double> b = random_vector(a.rows, 12);
  for (const GraphPath& path : graph_paths()) {
    for (int check_every : {1, 4}) {
      SCOPED_TRACE(path.name + " check_every " + std::to_string(check_every));
      prism::SolverConfig config = graph_config(path, prism::GraphMode::off);
      config.solver.check_every = check_every;
      prism::Solver plain(config);
      config.solver.graph = prism::GraphMode::on;
      prism::Solver graph(config);
      plain.setup(a);
      graph.setup(a);
      std::vector<double> xp, xg;
      const auto rp = plain.solve(b, xp);
      const auto rg = graph.solve(b, xg);
      ASSERT_TRUE(rg.converged());
      EXPECT_FALSE(rp.graph);
      EXPECT_TRUE(rg.graph);
      EXPECT_EQ(rg.iterations, rp.iterations);
      EXPECT_EQ(rg.history.size(), rp.history.size());
      EXPECT_EQ(xg, xp);
      EXPECT_EQ(rg.phase_bytes, rp.phase_bytes);
      // A second solve records its own graph on the same solver.
      std::vector<double> xg2;
      EXPECT_EQ(graph.solve(b, xg2).iterations, rg.iterations);
      EXPECT_EQ(xg2, xg);
    }
  }
}

// The device-side loop (a graph while node testing convergence on the device) against
// plain launches checked on the host every iteration: same stop, same history, same bits.
TEST(GpuSolveGraph, DeviceLoopEqualsHostChecks) {
  PRISM_SKIP_WITHOUT_GPU();
  const CsrMatrix<double> a = prism::poisson3d(21, 20, 19);
  const std::vector<double> b = random_vector(a.rows, 13);
  for (const GraphPath& path : graph_paths()) {
    for (int max_iterations : {1000, 2, 9}) {
      SCOPED_TRACE(path.name + " max_iterations " + std::to_string(max_iterations));
      prism::SolverConfig config = graph_config(path, prism::GraphMode::off);
      config.solver.max_iterations = max_iterations;
      prism::Solver plain(config);
      config.solver.graph = prism::GraphMode::automatic;  // auto takes the loop on a GPU
      prism::Solver loop(config);
      plain.setup(a);
      loop.setup(a);
      std::vector<double> xp, xl;
      const auto rp = plain.solve(b, xp);
      const auto rl = loop.solve(b, xl);
      EXPECT_EQ(rp.status, max_iterations == 1000 ? prism::SolveStatus::converged
                                                  : prism::SolveStatus::max_iterations);
      EXPECT_EQ(rl.status, rp.status);
      EXPECT_TRUE(rl.graph);
      EXPECT_TRUE(rl.device_loop);
      EXPECT_EQ(rl.iterations, rp.iterations);
      ASSERT_EQ(rl.history.size(), rp.history.size());
      for (std::size_t i = 0; i < rp.history.size(); ++i) {
        EXPECT_EQ(rl.history[i].iteration, rp.history[i].iteration);
        EXPECT_EQ(rl.history[i].residual_norm, rp.history[i].residual_norm);
      }
      EXPECT_EQ(xl, xp);
      EXPECT_EQ(rl.phase_bytes, rp.phase_bytes);
      std::vector<double> xl2;  // a second solve records its own loop
      EXPECT_EQ(loop.solve(b, xl2).iterations, rl.iterations);
      EXPECT_EQ(xl2, xl);
    }
  }
}

// The device-side loop on a system of 300k rows, whose reductions run their full grid of
// blocks (kReductionBlocks partial sums for the loop's test to finish): same stops, norms
// and bits as host checks, over several solves of one solver.
TEST(GpuSolveGraph, DeviceLoopEqualsHostChecksOnAFullReductionGrid) {
  PRISM_SKIP_WITHOUT_GPU();
  const CsrMatrix<double> a = prism::poisson2d(560, 540);
  const std::vector<double> b = random_vector(a.rows, 15);
  const GraphPath path = graph_paths().back();  // the default GPU path: SELL halves
  for (int max_iterations : {60, 3}) {
    SCOPED_TRACE("max_iterations " + std::to_string(max_iterations));
    prism::SolverConfig config = graph_config(path, prism::GraphMode::off);
    config.solver.max_iterations = max_iterations;
    prism::Solver plain(config);
    config.solver.graph = prism::GraphMode::automatic;
    prism::Solver loop(config);
    plain.setup(a);
    loop.setup(a);
    std::vector<double> xp, xl;
    const auto rp = plain.solve(b, xp);
    for (int solve = 0; solve < 3; ++solve) {
      xl.clear();  // x is the initial guess: start each solve from zero
      const auto rl = loop.solve(b, xl);
      EXPECT_EQ(rl.status, prism::SolveStatus::max_iterations);
      EXPECT_TRUE(rl.device_loop);
      EXPECT_EQ(rl.iterations, rp.iterations);
      ASSERT_EQ(rl.history.size(), rp.history.size());
      for (std::size_t i = 0; i < rp.history.size(); ++i) {
        EXPECT_EQ(rl.history[i].residual_norm, rp.history[i].residual_norm);
      }
      EXPECT_EQ(xl, xp);
    }
  }
}

// timing: total takes the fused steps (cg_step, cg_direction_dot; x updated one step
// late), timing: phases one operation per phase: the same iterates, bit for bit, except
// where the SELL halves form (r, z) under timing: total (rz rounds differently).
TEST(GpuSolveGraph, FusedStepsEqualPhaseTimedSteps) {
  PRISM_SKIP_WITHOUT_GPU();
  const CsrMatrix<double> a = prism::poisson3d(21, 20, 19);
  const std::vector<double> b = random_vector(a.rows, 14);
  for (const GraphPath& path : graph_paths()) {
    SCOPED_TRACE(path.name);
    prism::SolverConfig config = graph_config(path, prism::GraphMode::off);
    prism::Solver fused(config);
    config.solver.timing = prism::TimingMode::phases;
    prism::Solver phased(config);
    fused.setup(a);
    phased.setup(a);
    std::vector<double> xf, xp;
    const auto rf = fused.solve(b, xf);
    const auto rp = phased.solve(b, xp);
    ASSERT_TRUE(rf.converged());
    if (path.factorization == prism::Ic0Factorization::backend && rf.trisolve_layout == "sell") {
      ASSERT_TRUE(rp.converged());
      EXPECT_LE(std::abs(rf.iterations - rp.iterations), 1);
      EXPECT_LE(prism::test::relative_residual(a, xf, b), 1e-8);
      continue;
    }
    EXPECT_EQ(rf.iterations, rp.iterations);
    ASSERT_EQ(rf.history.size(), rp.history.size());
    for (std::size_t i = 0; i < rp.history.size(); ++i) {
      EXPECT_EQ(rf.history[i].residual_norm, rp.history[i].residual_norm);
    }
    EXPECT_EQ(xf, xp);
  }
}

TEST(GpuSolveGraph, GraphOnWithPhaseTimingIsAConfigError) {
  PRISM_SKIP_WITHOUT_GPU();
  prism::SolverConfig config;
  config.backend = prism::BackendKind::cuda;
  config.solver.graph = prism::GraphMode::on;
  prism::Solver s(config);
  s.setup(prism::poisson2d(10, 10));
  std::vector<double> x;
  EXPECT_THROW(s.solve(std::vector<double>(100, 1.0), x), prism::ConfigError);
}

TEST(GpuSolveMixed, ConvergesWithinTwoIterationsOfDouble) {
  PRISM_SKIP_WITHOUT_GPU();
  const CsrMatrix<double> a = prism::poisson3d(30, 28, 26);
  const std::vector<double> b = random_vector(a.rows, 21);
  for (auto factorization : {prism::Ic0Factorization::host, prism::Ic0Factorization::backend}) {
    prism::SolverConfig config;
    config.backend = prism::BackendKind::cuda;
    config.solver.tolerance = 1e-10;
    config.preconditioner.ic0.factorization = factorization;
    prism::Solver full(config);
    config.preconditioner.ic0.precision = prism::Precision::mixed;
    prism::Solver mixed(config);
    full.setup(a);
    mixed.setup(a);
    std::vector<double> xf, xm;
    const auto rf = full.solve(b, xf);
    const auto rm = mixed.solve(b, xm);
    ASSERT_TRUE(rm.converged());
    EXPECT_EQ(rm.precision, "mixed");
    EXPECT_EQ(rf.precision, "double");
    EXPECT_LE(std::abs(rm.iterations - rf.iterations), 2);
    EXPECT_LE(prism::test::relative_residual(a, xm, b), 1e-9);
    // The float factor halves the value bytes of both solves.
    const int lower = static_cast<int>(prism::Phase::lower_solve);
    EXPECT_LT(rm.phase_bytes[lower] / rm.iterations, rf.phase_bytes[lower] / rf.iterations);
  }
}

TEST(GpuSolveChecks, CheckEveryAndTimingTotal) {
  PRISM_SKIP_WITHOUT_GPU();
  const CsrMatrix<double> a = prism::poisson3d(24, 24, 24);
  const std::vector<double> b = random_vector(a.rows, 8);
  prism::SolverConfig config;
  config.backend = prism::BackendKind::cuda;
  config.solver.check_every = 10;
  config.solver.timing = prism::TimingMode::total;
  for (auto graph : {prism::GraphMode::on, prism::GraphMode::automatic}) {
    SCOPED_TRACE(std::string(prism::to_string(graph)));
    config.solver.graph = graph;
    prism::Solver s(config);
    s.setup(a);
    std::vector<double> x;
    const auto r = s.solve(b, x);
    ASSERT_TRUE(r.converged());
    EXPECT_TRUE(r.graph);  // graph: auto records when nothing is timed per phase
    if (graph == prism::GraphMode::on) {
      EXPECT_FALSE(r.device_loop);
      EXPECT_EQ(r.iterations % 10, 0);  // the host checks every 10th iteration
    } else {
      // auto takes the device-side loop, which tests every iteration by itself.
      EXPECT_TRUE(r.device_loop);
      EXPECT_EQ(r.history.size(), static_cast<std::size_t>(r.iterations) + 1);
    }
    for (double t : r.phase_seconds) EXPECT_EQ(t, 0.0);
    EXPECT_LE(prism::test::relative_residual(a, x, b), 1e-8);
  }
}

}  // namespace
