// Solver::setup_on_backend with the matrix in device memory (what a GPU assembly writes):
// the same plan, ordering, factor and iterates, bit for bit, as setup() on a host copy,
// for the three types auto chooses among; the set-up copies the arrays on the device
// instead of uploading them; arrays in host memory and a defect in the values get clear
// errors (the defect the same message as setup()'s). Skips without a device.

#include <prism/csr_view.hpp>
#include <prism/errors.hpp>
#include <prism/generators.hpp>
#include <prism/solver.hpp>

#include "common/gpu.hpp"

#include <cuda_runtime.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace {

using prism::CsrMatrix;
using prism::index_t;

/// A's arrays in device memory, freed with it.
class DeviceCsr {
 public:
  explicit DeviceCsr(const CsrMatrix<double>& a) : rows_(a.rows) {
    row_ptr_ = copy(a.row_ptr);
    col_idx_ = copy(a.col_idx);
    values_ = copy(a.values);
    // A pageable cudaMemcpy may return before its DMA lands; the solver's contract wants
    // the writes finished.
    cudaDeviceSynchronize();
  }
  ~DeviceCsr() {
    cudaFree(row_ptr_);
    cudaFree(col_idx_);
    cudaFree(values_);
  }
  DeviceCsr(const DeviceCsr&) = delete;
  DeviceCsr& operator=(const DeviceCsr&) = delete;
  prism::CsrView32 view() const { return {rows_, rows_, row_ptr_, col_idx_, values_}; }

 private:
  template <typename T>
  static T* copy(const std::vector<T>& host) {
    T* device = nullptr;
    const std::size_t bytes = std::max<std::size_t>(1, host.size()) * sizeof(T);
    if (cudaMalloc(&device, bytes) != cudaSuccess) throw prism::Error("cudaMalloc failed");
    cudaMemcpy(device, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice);
    return device;
  }
  index_t rows_ = 0;
  index_t* row_ptr_ = nullptr;
  index_t* col_idx_ = nullptr;
  double* values_ = nullptr;
};

prism::SolverConfig cuda_config() {
  prism::SolverConfig config;
  config.backend = prism::BackendKind::cuda;
  config.solver.tolerance = 1e-9;
  config.solver.max_iterations = 3000;
  return config;
}

bool has_step(const prism::Solver& solver, const std::string& name) {
  for (const prism::SetupStep& s : solver.setup_report().steps) {
    if (s.name == name) return true;
  }
  return false;
}

TEST(CudaSetupOnBackend, SolvesAsSetupOnAHostCopy) {
  PRISM_SKIP_WITHOUT_GPU();
  const std::vector<std::pair<std::string, CsrMatrix<double>>> cases = {
      {"ic0", prism::poisson3d(11, 9, 7)},
      {"block_ic", prism::elasticity3d(4, 3, 5, 2, {1.0, 1000.0})},
      {"line_ic", prism::anisotropic3d(12, 10, 8, 1.0, 1e-3, 1e-3)}};
  for (const auto& [type, a] : cases) {
    SCOPED_TRACE(type);
    const std::vector<double> b(static_cast<std::size_t>(a.rows), 1.0);
    prism::Solver host(cuda_config());
    host.setup(a);
    std::vector<double> x_host, x_device;
    const prism::SolveReport want = host.solve(b, x_host);
    const DeviceCsr device_a(a);
    prism::Solver device(cuda_config());
    device.setup_on_backend(device_a.view());
    const prism::SolveReport got = device.solve(b, x_device);
    ASSERT_EQ(want.preconditioner, type);
    EXPECT_EQ(got.preconditioner, want.preconditioner);
    EXPECT_EQ(got.plan, want.plan);
    EXPECT_EQ(got.iterations, want.iterations);
    EXPECT_EQ(x_device, x_host);
    EXPECT_TRUE(has_step(device, "check: the matrix copied to the host"));
    EXPECT_TRUE(has_step(device, "permutation: pattern and values, kept on the device"));
    // New values from the host afterwards: the pattern kept on the host compares them.
    device.refactor(a);
    host.refactor(a);
    EXPECT_EQ(device.solve(b, x_device).iterations, host.solve(b, x_host).iterations);
    EXPECT_EQ(x_device, x_host);
  }
}

TEST(CudaSetupOnBackend, HostArraysAndBadValuesAreNamed) {
  PRISM_SKIP_WITHOUT_GPU();
  CsrMatrix<double> a = prism::poisson2d(6, 5);
  prism::Solver solver(cuda_config());
  try {
    solver.setup_on_backend(prism::view_of(a));
    ADD_FAILURE() << "host arrays were taken as device memory";
  } catch (const prism::InvalidMatrixError& e) {
    EXPECT_NE(std::string(e.what()).find("row_ptr is not in memory the cuda backend reads"),
              std::string::npos);
  }
  for (index_t k = a.row_ptr[7]; k < a.row_ptr[8]; ++k) {
    if (a.col_idx[k] == 7) a.values[k] = -2.0;
  }
  std::string messages[2];
  try {
    prism::Solver(cuda_config()).setup(a);
  } catch (const prism::Error& e) {
    messages[0] = e.what();
  }
  const DeviceCsr device_a(a);
  try {
    prism::Solver(cuda_config()).setup_on_backend(device_a.view());
  } catch (const prism::Error& e) {
    messages[1] = e.what();
  }
  EXPECT_FALSE(messages[0].empty());
  EXPECT_EQ(messages[1], messages[0]);
}

}  // namespace
