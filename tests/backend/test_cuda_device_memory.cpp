// Out of device memory: a problem too large for the GPU fails with a DeviceMemoryError
// (one line, nothing written by the CLI), leaves the device usable, and under
// `backend: auto` goes to the CPU instead. The memory cap is real: this process holds
// all but a little of the GPU's free memory while the solver (or a child prism) runs.

#include <prism/errors.hpp>
#include <prism/generators.hpp>
#include <prism/solver.hpp>

#include "common/gpu.hpp"
#include "common/test_matrices.hpp"

#include <cuda_runtime.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace {

namespace fs = std::filesystem;

/// Holds all but `leave` bytes of the device's free memory while it lives.
class MemoryHog {
 public:
  explicit MemoryHog(std::size_t leave) {
    std::size_t free_bytes = 0, total_bytes = 0;
    EXPECT_EQ(cudaMemGetInfo(&free_bytes, &total_bytes), cudaSuccess);
    if (free_bytes > leave) {
      EXPECT_EQ(cudaMalloc(&data_, free_bytes - leave), cudaSuccess);
    }
    EXPECT_EQ(cudaMemGetInfo(&free_bytes, &total_bytes), cudaSuccess);
    EXPECT_LE(free_bytes, leave + (std::size_t{16} << 20)) << "the cap did not hold";
  }
  ~MemoryHog() { cudaFree(data_); }
  MemoryHog(const MemoryHog&) = delete;
  MemoryHog& operator=(const MemoryHog&) = delete;

 private:
  void* data_ = nullptr;
};

constexpr std::size_t kLeave = std::size_t{48} << 20;

// 110^3 rows, 9.1M entries: about 110 MB as CSR alone, more than the 48 MiB left.
prism::CsrMatrix<double> too_large() {
  return prism::poisson3d(110, 110, 110);
}

prism::SolverConfig config(prism::BackendKind backend) {
  prism::SolverConfig c;
  c.backend = backend;
  c.preconditioner.type = "jacobi";
  c.solver.tolerance = 1e-6;
  return c;
}

TEST(CudaDeviceMemory, TooLargeIsADeviceMemoryErrorAndTheDeviceStaysUsable) {
  PRISM_SKIP_WITHOUT_GPU();
  const prism::CsrMatrix<double> a = too_large();
  {
    prism::Solver s(config(prism::BackendKind::cuda));
    const MemoryHog hog(kLeave);
    try {
      s.setup(a);
      FAIL() << "setup fit in " << (kLeave >> 20) << " MiB";
    } catch (const prism::DeviceMemoryError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("out of device memory"), std::string::npos) << what;
      EXPECT_NE(what.find("MiB free of"), std::string::npos) << what;
    }
  }
  // With the memory back, the same solver type sets up and solves on the GPU.
  prism::Solver s(config(prism::BackendKind::cuda));
  s.setup(a);
  std::vector<double> x;
  const prism::SolveReport r = s.solve(std::vector<double>(a.rows, 1.0), x);
  EXPECT_TRUE(r.converged()) << r.diagnosis;
  EXPECT_EQ(r.backend, "cuda");
}

TEST(CudaDeviceMemory, AutoFallsBackToTheCpuWithTheReason) {
  PRISM_SKIP_WITHOUT_GPU();
  const prism::CsrMatrix<double> a = too_large();
  prism::Solver s(config(prism::BackendKind::automatic));
  EXPECT_EQ(s.backend_name(), "cuda");
  const MemoryHog hog(kLeave);
  s.setup(a);
  EXPECT_EQ(s.backend_name(), "cpu");
  const std::string& choice = s.setup_report().backend_choice;
  EXPECT_NE(choice.find("backend: auto fell back to cpu: out of device memory"), std::string::npos)
      << choice;
  std::vector<double> x;
  const prism::SolveReport r = s.solve(std::vector<double>(a.rows, 1.0), x);
  EXPECT_TRUE(r.converged()) << r.diagnosis;
  EXPECT_EQ(r.backend, "cpu");
  ASSERT_FALSE(r.plan.empty());
  EXPECT_EQ(r.plan.front(), choice);
}

// The CLI under a cap, as a child process: exit 1, one line naming the cause, and no
// output file. The child's own CUDA context needs a few hundred MiB, so it is left 1 GiB
// and given a problem of about 1.5 GB (260^3 rows).
TEST(CudaDeviceMemory, CliReportsItInOneLineAndWritesNothing) {
  PRISM_SKIP_WITHOUT_GPU();
  const fs::path dir = fs::temp_directory_path() / "prism_device_memory_cli";
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "big.yaml") << "matrix: {generator: poisson3d, nx: 260, ny: 260, nz: 260}\n"
                                     "preconditioner: {type: jacobi}\n";
  const std::string command = std::string(PRISM_CLI) + " solve " + (dir / "big.yaml").string() +
                              " --backend cuda --report " + (dir / "r.json").string() +
                              " --solution " + (dir / "x.mtx").string() + " > " +
                              (dir / "out.txt").string() + " 2> " + (dir / "err.txt").string();
  int status = 0;
  {
    const MemoryHog hog(std::size_t{1} << 30);
    status = std::system(command.c_str());
  }
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 1);
  std::ifstream err(dir / "err.txt");
  std::string line, rest;
  std::getline(err, line);
  EXPECT_FALSE(std::getline(err, rest)) << "a second line: " << rest;
  EXPECT_EQ(line.rfind("prism: error: out of device memory", 0), 0u) << line;
  EXPECT_FALSE(fs::exists(dir / "r.json"));
  EXPECT_FALSE(fs::exists(dir / "x.mtx"));
  fs::remove_all(dir);
}

}  // namespace
