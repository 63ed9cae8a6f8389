// New values on the same pattern: refactor_on_backend from device memory and refactor()
// from the host against a fresh set-up and each other, bit for bit, including repeated
// calls on one buffer (replayed) and bad values. Skipped without a GPU.

#include <prism/analysis.hpp>
#include <prism/errors.hpp>
#include <prism/generators.hpp>
#include <prism/solver.hpp>

#include "backend/cuda_test_support.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

namespace {

using prism::CsrMatrix;
using prism::index_t;
using prism::test::DeviceValues;
using prism::test::invalid_matrix_message;
using prism::test::random_vector;

// New values from device memory: the same factor, bit for bit, as refactor() from the
// host, for every way the preconditioner is set up (the cuSPARSE path through the host).
TEST(GpuSolveRefactor, OnBackendEqualsRefactor) {
  PRISM_SKIP_WITHOUT_GPU();
  const CsrMatrix<double> a = prism::poisson3d(20, 19, 18);
  const CsrMatrix<double> a2 = prism::test::scaled_and_shifted(a, 3.0, 0.5);
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
    config.preconditioner.type = "ic0";  // its shift retries on bcsstk13
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
    const CsrMatrix<double> a = prism::test::scaled_and_shifted(a0, 1.0 + step, 0.5 * step);
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

}  // namespace
