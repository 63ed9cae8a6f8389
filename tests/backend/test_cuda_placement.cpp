// SolverConfig::device and ::stream: the solver works on the device it is given and
// leaves the caller's current device as it found it; work the caller queues on the
// solver's stream is ordered before the solver's; placements that cannot serve are
// ConfigErrors. The cases that need two GPUs skip on one. Skipped without a GPU.

#include <prism/errors.hpp>
#include <prism/generators.hpp>
#include <prism/solver.hpp>

#include "common/gpu.hpp"
#include "kernels/cuda/device_info.hpp"

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

namespace {

int current_device() {
  int device = -1;
  EXPECT_EQ(cudaGetDevice(&device), cudaSuccess);
  return device;
}

/// n doubles of device memory on `device`, allocated with that device current and the
/// caller's given back.
class DeviceArray {
 public:
  DeviceArray(int device, std::size_t n) : n_(n) {
    const int previous = current_device();
    EXPECT_EQ(cudaSetDevice(device), cudaSuccess);
    EXPECT_EQ(cudaMalloc(reinterpret_cast<void**>(&data_), n * sizeof(double)), cudaSuccess);
    EXPECT_EQ(cudaSetDevice(previous), cudaSuccess);
  }
  ~DeviceArray() { cudaFree(data_); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  double* data() { return data_; }
  std::vector<double> host() const {
    std::vector<double> v(n_);
    EXPECT_EQ(cudaMemcpy(v.data(), data_, n_ * sizeof(double), cudaMemcpyDeviceToHost),
              cudaSuccess);
    return v;
  }

 private:
  double* data_ = nullptr;
  std::size_t n_;
};

prism::SolverConfig config_on(int device, void* stream = nullptr) {
  prism::SolverConfig c;
  c.backend = prism::BackendKind::cuda;
  c.solver.tolerance = 1e-10;
  c.device = device;
  c.stream = stream;
  return c;
}

std::vector<double> rhs(std::size_t n) {
  std::vector<double> b(n);
  for (std::size_t i = 0; i < n; ++i) b[i] = 1.0 + static_cast<double>(i % 7);
  return b;
}

TEST(CudaPlacement, ADeviceTheMachineLacksIsAConfigError) {
  PRISM_SKIP_WITHOUT_GPU();
  const int count = prism::kernels::cuda::device_count();
  try {
    prism::Solver solver(config_on(count));
    FAIL() << "device " << count << " accepted";
  } catch (const prism::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("device " + std::to_string(count)), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(prism::Solver(config_on(-2)), prism::ConfigError);
}

// The last device, with device 0 current: every call leaves device 0 current, and the
// solve equals one on device 0 bit for bit (on one GPU both are device 0).
TEST(CudaPlacement, WorksOnItsDeviceAndLeavesTheCallersCurrent) {
  PRISM_SKIP_WITHOUT_GPU();
  const int last = prism::kernels::cuda::device_count() - 1;
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  const prism::CsrMatrix<double> a = prism::poisson3d(12, 11, 10);
  const std::vector<double> b = rhs(static_cast<std::size_t>(a.rows));

  std::vector<double> x_reference(b.size(), 0.0);
  prism::Solver reference(config_on(0));
  reference.setup(a);
  ASSERT_TRUE(reference.solve(b, x_reference).converged());

  std::vector<double> x(b.size(), 0.0);
  {
    prism::Solver solver(config_on(last));
    EXPECT_EQ(current_device(), 0);
    solver.setup(a);
    EXPECT_EQ(current_device(), 0);
    const prism::SolveReport r = solver.solve(b, x);
    EXPECT_EQ(current_device(), 0);
    ASSERT_TRUE(r.converged());
    EXPECT_EQ(x, x_reference);

    DeviceArray b_dev(last, b.size()), x_dev(last, b.size());
    ASSERT_EQ(cudaMemcpy(b_dev.data(), b.data(), b.size() * sizeof(double), cudaMemcpyDefault),
              cudaSuccess);
    ASSERT_EQ(cudaMemset(x_dev.data(), 0, b.size() * sizeof(double)), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);  // the copies landed: the solver's
                                                      // stream does not wait for them
    ASSERT_TRUE(solver.solve_on_backend(b_dev.data(), x_dev.data(), b.size()).converged());
    EXPECT_EQ(current_device(), 0);
    EXPECT_EQ(x_dev.host(), x_reference);

    solver.refactor(a);
    EXPECT_EQ(current_device(), 0);
    std::vector<double> z;
    solver.apply_preconditioner(b, z);
    EXPECT_EQ(current_device(), 0);
  }
  EXPECT_EQ(current_device(), 0);  // the destructor too
}

TEST(CudaPlacement, MemoryOfAnotherDeviceIsRefused) {
  PRISM_SKIP_WITHOUT_GPU();
  if (prism::kernels::cuda::device_count() < 2) GTEST_SKIP() << "needs two GPUs";
  const prism::CsrMatrix<double> a = prism::poisson2d(20, 20);
  prism::Solver solver(config_on(1));
  solver.setup(a);
  DeviceArray b(0, static_cast<std::size_t>(a.rows)), x(0, static_cast<std::size_t>(a.rows));
  try {
    solver.solve_on_backend(b.data(), x.data(), static_cast<std::size_t>(a.rows));
    FAIL() << "device 0 memory accepted by a solver on device 1";
  } catch (const prism::InvalidMatrixError& e) {
    EXPECT_NE(std::string(e.what()).find("solver's device"), std::string::npos) << e.what();
  }
}

// b copied in on the caller's stream and not waited for: the solve, queued after it on
// the same stream, reads it; x is complete when the solve returns. Graph replay (timing
// total) and the operation-by-operation loop (timing phases) both run on that stream.
TEST(CudaPlacement, WorkOnTheCallersStreamIsOrderedBeforeTheSolve) {
  PRISM_SKIP_WITHOUT_GPU();
  const prism::CsrMatrix<double> a = prism::poisson3d(16, 15, 14);
  const std::size_t n = static_cast<std::size_t>(a.rows);
  const std::vector<double> b = rhs(n);
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  double* pinned = nullptr;
  ASSERT_EQ(cudaMallocHost(reinterpret_cast<void**>(&pinned), n * sizeof(double)), cudaSuccess);
  for (const prism::TimingMode timing : {prism::TimingMode::total, prism::TimingMode::phases}) {
    SCOPED_TRACE(static_cast<int>(timing));
    prism::SolverConfig c = config_on(-1, stream);
    c.solver.timing = timing;
    std::vector<double> x_host(n, 0.0);
    prism::Solver solver(c);
    solver.setup(a);
    ASSERT_TRUE(solver.solve(b, x_host).converged());

    DeviceArray b_dev(current_device(), n), x_dev(current_device(), n);
    std::copy(b.begin(), b.end(), pinned);
    ASSERT_EQ(cudaMemsetAsync(b_dev.data(), 0, n * sizeof(double), stream), cudaSuccess);
    ASSERT_EQ(
        cudaMemcpyAsync(b_dev.data(), pinned, n * sizeof(double), cudaMemcpyHostToDevice, stream),
        cudaSuccess);
    ASSERT_EQ(cudaMemsetAsync(x_dev.data(), 0, n * sizeof(double), stream), cudaSuccess);
    const prism::SolveReport r = solver.solve_on_backend(b_dev.data(), x_dev.data(), n);
    ASSERT_TRUE(r.converged());
    EXPECT_EQ(x_dev.host(), x_host);
  }
  cudaFreeHost(pinned);
  cudaStreamDestroy(stream);
}

TEST(CudaPlacement, StreamsThatCannotServeAreConfigErrors) {
  PRISM_SKIP_WITHOUT_GPU();
  EXPECT_THROW(prism::Solver(config_on(-1, static_cast<void*>(cudaStreamLegacy))),
               prism::ConfigError);
  if (prism::kernels::cuda::device_count() < 2) return;  // no stream of another device
  ASSERT_EQ(cudaSetDevice(1), cudaSuccess);
  cudaStream_t other = nullptr;
  ASSERT_EQ(cudaStreamCreate(&other), cudaSuccess);
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  try {
    prism::Solver solver(config_on(0, other));
    FAIL() << "a stream of device 1 accepted for device 0";
  } catch (const prism::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("device 1"), std::string::npos) << e.what();
  }
  cudaStreamDestroy(other);
}

}  // namespace
