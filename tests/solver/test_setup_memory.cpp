// SetupReport::memory: what the solver keeps after setup against the input matrix, and
// that the host copies released after setup are not needed by a refactor or a solve.

#include <prism/errors.hpp>
#include <prism/generators.hpp>
#include <prism/solver.hpp>

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

using prism::CsrMatrix;

prism::SolverConfig cpu_config(const std::string& type) {
  prism::SolverConfig c;
  c.backend = prism::BackendKind::cpu;
  c.solver.tolerance = 1e-10;
  c.preconditioner.type = type;
  return c;
}

std::size_t bytes_of(const CsrMatrix<double>& a) {
  return a.row_ptr.size() * sizeof(prism::index_t) + a.col_idx.size() * sizeof(prism::index_t) +
         a.values.size() * sizeof(double);
}

/// The same solve after setup(2 A) then refactor(A) as after setup(A): the refactor
/// refills what setup released.
void expect_refactor_matches_setup(const prism::SolverConfig& config, const CsrMatrix<double>& a) {
  const std::vector<double> b(static_cast<std::size_t>(a.rows), 1.0);
  prism::Solver fresh(config);
  fresh.setup(a);
  std::vector<double> x_fresh;
  const prism::SolveReport expected = fresh.solve(b, x_fresh);

  CsrMatrix<double> doubled = a;
  for (double& v : doubled.values) v *= 2.0;
  prism::Solver reused(config);
  reused.setup(doubled);
  reused.refactor(a);
  std::vector<double> x_reused;
  const prism::SolveReport got = reused.solve(b, x_reused);
  EXPECT_TRUE(got.converged());
  EXPECT_EQ(got.iterations, expected.iterations);
  EXPECT_EQ(x_reused, x_fresh);
}

TEST(SetupMemory, CpuCountsTheMatrixItKeepsAndNoDeviceMemory) {
  const CsrMatrix<double> a = prism::poisson3d(12, 11, 10);
  for (const std::string type : {"ic0", "block_ic", "jacobi", "none"}) {
    SCOPED_TRACE(type);
    prism::Solver solver(cpu_config(type));
    solver.setup(a);
    const prism::MemoryReport& m = solver.setup_report().memory;
    EXPECT_EQ(m.input_bytes, bytes_of(a));
    // The cpu backend's SpMV reads its own copy of the (reordered) matrix.
    EXPECT_GE(m.host_bytes, bytes_of(a));
    EXPECT_EQ(m.device_bytes, 0u);
#if defined(__linux__)
    EXPECT_GT(m.resident_before_bytes, 0u);
    EXPECT_GT(m.resident_after_bytes, 0u);
#endif
    // A refactor keeps setup()'s figures.
    solver.refactor(a);
    EXPECT_EQ(solver.setup_report().memory.host_bytes, m.host_bytes);
  }
}

TEST(SetupMemory, ReleasedCopiesAreNotNeededByRefactor) {
  const CsrMatrix<double> a = prism::poisson3d(9, 8, 7);
  for (const std::string type : {"ic0", "block_ic", "jacobi"}) {
    SCOPED_TRACE(type);
    expect_refactor_matches_setup(cpu_config(type), a);
  }
  prism::SolverConfig backend_ic0 = cpu_config("ic0");
  backend_ic0.preconditioner.ic0.factorization = prism::Ic0Factorization::backend;
  expect_refactor_matches_setup(backend_ic0, a);
  prism::SolverConfig backend_block = cpu_config("block_ic");
  backend_block.preconditioner.block_ic.factorization = prism::Ic0Factorization::backend;
  expect_refactor_matches_setup(backend_block, a);
}

TEST(SetupMemory, RefactorOnBackendAfterReleaseMatchesSetup) {
  const CsrMatrix<double> a = prism::poisson3d(9, 8, 7);
  for (const std::string type : {"ic0", "block_ic", "jacobi"}) {
    SCOPED_TRACE(type);
    const std::vector<double> b(static_cast<std::size_t>(a.rows), 1.0);
    prism::Solver fresh(cpu_config(type));
    fresh.setup(a);
    std::vector<double> x_fresh;
    const prism::SolveReport expected = fresh.solve(b, x_fresh);
    CsrMatrix<double> doubled = a;
    for (double& v : doubled.values) v *= 2.0;
    prism::Solver reused(cpu_config(type));
    reused.setup(doubled);
    reused.refactor_on_backend(a.values.data(), a.values.size());
    std::vector<double> x_reused;
    EXPECT_EQ(reused.solve(b, x_reused).iterations, expected.iterations);
    EXPECT_EQ(x_reused, x_fresh);
  }
}

// setup() keeps no mirror map on the host: the value checks of the refactors make it from
// the pattern when they first need it (on the GPU path into device memory).
TEST(SetupMemory, SetupKeepsNoMirrorMap) {
  const CsrMatrix<double> a = prism::poisson3d(12, 11, 10);
  for (const std::string type : {"ic0", "jacobi"}) {
    SCOPED_TRACE(type);
    prism::SolverConfig unchecked = cpu_config(type);
    unchecked.solver.check = prism::MatrixCheck::none;
    prism::Solver full(cpu_config(type)), none(unchecked);
    full.setup(a);
    none.setup(a);
    EXPECT_EQ(full.setup_report().memory.host_bytes, none.setup_report().memory.host_bytes);
  }
}

// The value checks after the releases: the mirror map made from the pattern names the
// entry as setup() would, numbered from 0 (the API's numbering), for every refactor door.
TEST(SetupMemory, RefactorChecksValuesWithoutTheKeptMirror) {
  const CsrMatrix<double> a = prism::poisson2d(6, 5);
  CsrMatrix<double> bad = a;
  bad.values[1] -= 0.5;  // a(0, 1) without its mirror a(1, 0)
  const std::string expected = "matrix is not symmetric: a(0,1) = -1.5 but a(1,0) = -1";
  const auto message = [](const auto& call) {
    try {
      call();
    } catch (const prism::InvalidMatrixError& e) {
      return std::string(e.what());
    }
    return std::string("(no exception)");
  };
  for (const prism::Ic0Factorization where :
       {prism::Ic0Factorization::host, prism::Ic0Factorization::backend}) {
    prism::SolverConfig config = cpu_config("ic0");
    config.preconditioner.ic0.factorization = where;
    prism::Solver solver(config);
    solver.setup(a);
    EXPECT_EQ(message([&] { solver.refactor(bad); }), expected);
    EXPECT_EQ(message([&] { solver.refactor_on_backend(bad.values.data(), bad.values.size()); }),
              expected);
    solver.refactor(a);  // good values after the bad ones
    std::vector<double> x;
    EXPECT_TRUE(
        solver.solve(std::vector<double>(static_cast<std::size_t>(a.rows), 1.0), x).converged());
  }
}

}  // namespace
