// Solver::setup_on_backend on the cpu backend, whose memory is host memory: the same
// solver as setup() on the matrix, and the view's contract checked with clear errors. The
// cuda twin (device arrays) is tests/backend/test_cuda_setup_on_backend.cpp.

#include <prism/csr_view.hpp>
#include <prism/errors.hpp>
#include <prism/generators.hpp>
#include <prism/solver.hpp>

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

using prism::CsrMatrix;

prism::SolverConfig cpu_config(const std::string& type) {
  prism::SolverConfig config;
  config.backend = prism::BackendKind::cpu;
  config.preconditioner.type = type;
  config.solver.tolerance = 1e-9;
  return config;
}

TEST(SetupOnBackend, CpuTakesHostMemoryAsSetupDoes) {
  const std::vector<std::pair<std::string, CsrMatrix<double>>> cases = {
      {"auto", prism::poisson3d(7, 6, 5)},
      {"auto", prism::elasticity3d(3, 3, 2, 1, {1.0})},
      {"line_ic", prism::anisotropic3d(9, 6, 5, 1.0, 1e-3, 1e-3)}};
  for (const auto& [type, a] : cases) {
    SCOPED_TRACE(type + ", " + std::to_string(a.rows) + " rows");
    const std::vector<double> b(static_cast<std::size_t>(a.rows), 1.0);
    prism::Solver host(cpu_config(type));
    host.setup(a);
    std::vector<double> x_host, x_view;
    const prism::SolveReport want = host.solve(b, x_host);
    prism::Solver view(cpu_config(type));
    view.setup_on_backend(prism::view_of(a));
    const prism::SolveReport got = view.solve(b, x_view);
    EXPECT_TRUE(want.converged());
    EXPECT_EQ(got.preconditioner, want.preconditioner);
    EXPECT_EQ(got.iterations, want.iterations);
    EXPECT_EQ(x_view, x_host);
    const std::vector<prism::SetupStep>& steps = view.setup_report().steps;
    ASSERT_FALSE(steps.empty());
    EXPECT_EQ(steps.front().name, "check: the matrix copied to the host");
  }
}

template <typename Exception>
std::string message_of(const prism::CsrView32& a) {
  prism::Solver solver(cpu_config("ic0"));
  try {
    solver.setup_on_backend(a);
  } catch (const Exception& e) {
    return e.what();
  }
  return "no exception";
}

TEST(SetupOnBackend, BreaksOfTheViewAreNamed) {
  const CsrMatrix<double> a = prism::poisson2d(4, 3);
  EXPECT_NE(
      message_of<prism::ConfigError>(prism::view_of(a, prism::Storage::lower)).find("one triangle"),
      std::string::npos);
  prism::CsrView32 wide = prism::view_of(a);
  wide.cols = a.rows + 1;
  EXPECT_NE(message_of<prism::InvalidMatrixError>(wide).find("not square"), std::string::npos);
  prism::CsrView32 no_rows = prism::view_of(a);
  no_rows.row_ptr = nullptr;
  EXPECT_NE(message_of<prism::InvalidMatrixError>(no_rows).find("row_ptr is not in memory"),
            std::string::npos);
  std::vector<prism::index_t> shifted(a.row_ptr.begin(), a.row_ptr.end());
  for (prism::index_t& p : shifted) ++p;
  prism::CsrView32 bad_start = prism::view_of(a);
  bad_start.row_ptr = shifted.data();
  EXPECT_NE(message_of<prism::InvalidMatrixError>(bad_start).find("row_ptr[0] is 1"),
            std::string::npos);
}

}  // namespace
