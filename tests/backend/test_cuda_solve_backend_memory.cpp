// Solves and preconditioner applies on device memory: Solver::solve_on_backend equals
// solve() on the same values bit for bit, every preconditioner, ordering and run mode;
// apply_preconditioner_on_backend equals the host apply; a caller's preconditioner on
// device pointers iterates as the built-in one; host memory is refused. Skipped without
// a GPU.

#include <prism/errors.hpp>
#include <prism/generators.hpp>
#include <prism/solver.hpp>

#include "backend/cuda_test_support.hpp"

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace {

using prism::CsrMatrix;
using prism::test::CudaBackendTest;
using prism::test::random_vector;

/// A vector in device memory that the test writes and reads back.
class DeviceArray {
 public:
  explicit DeviceArray(const std::vector<double>& v) : size_(v.size()) {
    EXPECT_EQ(cudaMalloc(reinterpret_cast<void**>(&data_), size_ * sizeof(double)), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(data_, v.data(), size_ * sizeof(double), cudaMemcpyHostToDevice),
              cudaSuccess);
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  }
  ~DeviceArray() { cudaFree(data_); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  double* data() { return data_; }
  std::vector<double> host() const {
    std::vector<double> v(size_);
    EXPECT_EQ(cudaMemcpy(v.data(), data_, size_ * sizeof(double), cudaMemcpyDeviceToHost),
              cudaSuccess);
    return v;
  }

 private:
  double* data_ = nullptr;
  std::size_t size_;
};

prism::SolverConfig gpu_config(const std::string& type, prism::TimingMode timing) {
  prism::SolverConfig c;
  c.backend = prism::BackendKind::cuda;
  c.solver.tolerance = 1e-10;
  c.solver.timing = timing;
  c.preconditioner.type = type;
  return c;
}

void expect_same_solve(prism::Solver& solver, const std::vector<double>& b,
                       const std::vector<double>& x0) {
  std::vector<double> x_host = x0;
  const prism::SolveReport host = solver.solve(b, x_host);
  DeviceArray b_dev(b), x_dev(x0);
  const prism::SolveReport device = solver.solve_on_backend(b_dev.data(), x_dev.data(), b.size());
  ASSERT_TRUE(host.converged());
  EXPECT_EQ(device.status, host.status);
  EXPECT_EQ(device.iterations, host.iterations);
  EXPECT_EQ(device.relative_residual, host.relative_residual);
  EXPECT_EQ(device.true_relative_residual, host.true_relative_residual);
  EXPECT_EQ(x_dev.host(), x_host);  // bit for bit
  EXPECT_EQ(b_dev.host(), b);       // b is only read
}

// ic0 (multicolor order, factor on the device: the reordering gathers on the device),
// jacobi and none (natural order: the solve runs in the caller's arrays), launched one by
// one (timing: phases) and as a graph / device-side loop (timing: total).
TEST(GpuSolveOnBackend, EqualsHostSolveBitForBit) {
  PRISM_SKIP_WITHOUT_GPU();
  const CsrMatrix<double> a = prism::poisson3d(21, 19, 17);
  const std::vector<double> b = random_vector(a.rows, 11);
  const std::vector<double> x0 = random_vector(a.rows, 12);
  for (const char* type : {"ic0", "jacobi", "none"}) {
    for (const auto timing : {prism::TimingMode::phases, prism::TimingMode::total}) {
      SCOPED_TRACE(std::string(type) + (timing == prism::TimingMode::total ? " total" : ""));
      prism::Solver solver(gpu_config(type, timing));
      solver.setup(a);
      expect_same_solve(solver, b, x0);
      expect_same_solve(solver, b, std::vector<double>(b.size(), 0.0));
    }
  }
}

// Vectors whose squared norms leave the range of doubles: the device finds their largest
// magnitude and scales as solve() does on the host.
TEST(GpuSolveOnBackend, EqualsHostSolveWhereTheVectorsAreScaled) {
  PRISM_SKIP_WITHOUT_GPU();
  const CsrMatrix<double> a = prism::poisson2d(40, 37);
  for (const double scale : {std::ldexp(1.0, 600), std::ldexp(1.0, -600)}) {
    std::vector<double> b = random_vector(a.rows, 13);
    for (double& v : b) v *= scale;
    for (const char* type : {"ic0", "jacobi"}) {
      SCOPED_TRACE(type);
      prism::Solver solver(gpu_config(type, prism::TimingMode::phases));
      solver.setup(a);
      expect_same_solve(solver, b, std::vector<double>(b.size(), 0.0));
    }
  }
}

TEST(GpuSolveOnBackend, RefusesHostMemoryNamingIt) {
  PRISM_SKIP_WITHOUT_GPU();
  const CsrMatrix<double> a = prism::poisson2d(12, 11);
  prism::Solver solver(gpu_config("ic0", prism::TimingMode::phases));
  solver.setup(a);
  std::vector<double> b(a.rows, 1.0), x(a.rows, 0.0);
  DeviceArray x_dev(x), z_dev(x);
  const std::string message = prism::test::invalid_matrix_message(
      [&] { solver.solve_on_backend(b.data(), x_dev.data(), b.size()); });
  EXPECT_NE(message.find("b is not in memory the cuda backend reads"), std::string::npos)
      << message;
  EXPECT_NE(prism::test::invalid_matrix_message([&] {
              solver.apply_preconditioner_on_backend(x_dev.data(), x.data(), x.size());
            }).find("z is not in memory the cuda backend reads"),
            std::string::npos);
  EXPECT_NE(prism::test::invalid_matrix_message([&] {
              solver.apply_preconditioner_on_backend(x_dev.data(), x_dev.data(), x.size());
            }).find("r and z overlap"),
            std::string::npos);
  solver.apply_preconditioner_on_backend(x_dev.data(), z_dev.data(), x.size());  // well formed
}

// The queued apply on the caller's stream: the same z as the waiting apply, bit for bit,
// once the stream gets there (several applies queued back to back, z overwritten between);
// its refusals name the queued call.
TEST(GpuApplyPreconditioner, QueuedOnTheCallersStreamEqualsTheWaitingApply) {
  PRISM_SKIP_WITHOUT_GPU();
  const CsrMatrix<double> a = prism::poisson3d(13, 11, 9);
  const std::vector<double> r = random_vector(a.rows, 15);
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  for (const char* type : {"ic0", "block_ic", "jacobi"}) {
    SCOPED_TRACE(type);
    prism::SolverConfig c = gpu_config(type, prism::TimingMode::total);
    c.stream = stream;
    prism::Solver solver(c);
    solver.setup(a);
    DeviceArray r_dev(r), z_dev(std::vector<double>(r.size(), 0.0)),
        z_twice(std::vector<double>(r.size(), 0.0));
    solver.apply_preconditioner_on_backend(r_dev.data(), z_dev.data(), r.size());
    const std::vector<double> expected = z_dev.host();
    ASSERT_EQ(cudaMemsetAsync(z_dev.data(), 0, r.size() * sizeof(double), stream), cudaSuccess);
    solver.queue_preconditioner_on_backend(r_dev.data(), z_twice.data(), r.size());
    solver.queue_preconditioner_on_backend(r_dev.data(), z_dev.data(), r.size());
    ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    EXPECT_EQ(z_dev.host(), expected);
    EXPECT_EQ(z_twice.host(), expected);
    EXPECT_NE(prism::test::invalid_matrix_message([&] {
                solver.queue_preconditioner_on_backend(r_dev.data(), r_dev.data(), r.size());
              }).find("queue_preconditioner_on_backend"),
              std::string::npos);
  }
  cudaStreamDestroy(stream);
}

// The device apply runs the kernels the solves run: equal to the host apply bit for bit,
// and jacobi's is r ./ diag(A) (as 1 / a_ii times r_i).
TEST(GpuApplyPreconditioner, OnDeviceMemoryEqualsHostApply) {
  PRISM_SKIP_WITHOUT_GPU();
  const CsrMatrix<double> a =
      prism::test::scaled_and_shifted(prism::poisson3d(17, 15, 13), 1.5, 0.5);
  const std::vector<double> r = random_vector(a.rows, 14);
  for (const char* type : {"ic0", "jacobi", "none"}) {
    SCOPED_TRACE(type);
    prism::Solver solver(gpu_config(type, prism::TimingMode::phases));
    solver.setup(a);
    std::vector<double> z;
    solver.apply_preconditioner(r, z);
    DeviceArray r_dev(r), z_dev(std::vector<double>(r.size(), 0.0));
    solver.apply_preconditioner_on_backend(r_dev.data(), z_dev.data(), r.size());
    EXPECT_EQ(z_dev.host(), z);
    if (std::string(type) != "jacobi") continue;
    for (prism::index_t i = 0; i < a.rows; ++i) {
      double d = 0.0;
      for (prism::index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
        if (a.col_idx[k] == i) d = a.values[k];
      }
      EXPECT_EQ(z[i], (1.0 / d) * r[i]) << i;
    }
  }
}

// A callback on device pointers that applies another solver's Jacobi: the iterations and
// the solution of the built-in jacobi run the same way (launched one by one: a callback is
// never recorded).
TEST(GpuUserPreconditioner, DeviceJacobiCallbackIteratesAsTheBuiltIn) {
  PRISM_SKIP_WITHOUT_GPU();
  const CsrMatrix<double> a =
      prism::test::scaled_and_shifted(prism::poisson3d(19, 17, 15), 2.0, 0.5);
  const std::vector<double> b = random_vector(a.rows, 15);
  for (const auto timing : {prism::TimingMode::phases, prism::TimingMode::total}) {
    SCOPED_TRACE(timing == prism::TimingMode::total ? "total" : "phases");
    prism::SolverConfig c = gpu_config("jacobi", timing);
    c.solver.graph = prism::GraphMode::off;
    prism::Solver builtin(c);
    builtin.setup(a);
    c.preconditioner.type = "user";
    c.solver.graph = prism::GraphMode::automatic;
    prism::Solver user(c);
    user.set_preconditioner_callback([&](const double* r, double* z, std::size_t n) {
      cudaPointerAttributes attributes{};
      ASSERT_EQ(cudaPointerGetAttributes(&attributes, r), cudaSuccess);
      ASSERT_EQ(attributes.type, cudaMemoryTypeDevice);
      builtin.apply_preconditioner_on_backend(r, z, n);
    });
    user.setup(a);
    std::vector<double> x_builtin, x_user;
    const prism::SolveReport expected = builtin.solve(b, x_builtin);
    const prism::SolveReport got = user.solve(b, x_user);
    ASSERT_TRUE(got.converged());
    EXPECT_EQ(got.iterations, expected.iterations);
    EXPECT_EQ(x_user, x_builtin);
    EXPECT_FALSE(got.graph);  // a callback is never recorded
  }
  prism::SolverConfig on = gpu_config("user", prism::TimingMode::total);
  on.solver.graph = prism::GraphMode::on;
  prism::Solver graphed(on);
  graphed.set_preconditioner_callback([](const double* r, double* z, std::size_t n) {
    cudaMemcpy(z, r, n * 8, cudaMemcpyDefault);
  });
  graphed.setup(a);
  std::vector<double> x;
  EXPECT_THROW(graphed.solve(b, x), prism::ConfigError);
}

// Backend::largest_finite_magnitude (kernels::cuda::largest_finite_magnitude) against the
// reference: infinities and NaN skipped, n = 1, n not a multiple of 32, more blocks than
// the grid, no finite value at all.
TEST_F(CudaBackendTest, LargestFiniteMagnitudeIsEquivalentToReference) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<std::vector<double>> cases = {{-3.0}, {inf, nan, -inf}, {0.0, -0.0}};
  for (const std::size_t n : {33u, 1000u, 300001u}) {
    std::vector<double> v = random_vector(static_cast<prism::index_t>(n), static_cast<unsigned>(n));
    v[n / 3] = -1e300;
    v[n / 2] = inf;
    v[n - 1] = nan;
    cases.push_back(v);
  }
  for (const std::vector<double>& v : cases) {
    SCOPED_TRACE(v.size());
    DeviceArray d(v);
    EXPECT_EQ(gpu->largest_finite_magnitude(d.data(), v.size()),
              cpu->largest_finite_magnitude(v.data(), v.size()));
  }
  EXPECT_EQ(gpu->largest_finite_magnitude(nullptr, 0), 0.0);
}

}  // namespace
