// find_lines with the cuda set-up session (issue 47): each row's choice and the mutual
// links on the device, the chains, their order and the report on the host, equal to
// prism::find_lines field by field after the session's check at each level, on the suite's
// generators (anisotropic, stretched, rotated, Poisson, elasticity), ties and strengths at
// the thresholds, chains cut by max_length, rings of links (cycles) and one row; left to
// the host where find_lines throws or the check did not pass. solver::order_by_lines with
// the session equals it without; through the solver the set-up report lists the device
// step. Skips without a device.

#include <prism/generators.hpp>
#include <prism/lines.hpp>
#include <prism/solver.hpp>

#include "backend/cuda/cuda_setup.hpp"
#include "common/gpu.hpp"
#include "kernels/choice_scan_matrices.hpp"
#include "solver/line_order.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace {

using prism::CsrMatrix;
using prism::index_t;
using prism::test::ChoiceCase;

std::vector<ChoiceCase> cases() {
  std::vector<ChoiceCase> out = prism::test::generator_choice_cases();
  for (auto& c : prism::test::awkward_choice_cases()) out.push_back(std::move(c));
  for (auto& c : prism::test::ring_cases()) out.push_back(std::move(c));
  // Over several parts of the host's threaded passes (common::kRowsPerPart rows).
  out.push_back({"anisotropic3d 40x30x20", prism::anisotropic3d(40, 30, 20, 1.0, 1e-3, 1e-3)});
  out.push_back({"rotated3d 60x60x20", prism::rotated3d(60, 60, 20, 30.0, 1.0, 1.0)});
  return out;
}

std::vector<prism::LineOptions> options() {
  std::vector<prism::LineOptions> out(6);
  out[1].dominance = 2.5;
  out[1].min_strength = 0.0;
  out[2].min_strength = 0.25;
  out[3].max_length = 1;
  out[4].max_length = 5;
  out[5].max_length = 7;
  out[5].dominance = 1.5;
  return out;
}

void expect_same_lines(const prism::Lines& got, const prism::Lines& expected) {
  EXPECT_EQ(got.permutation, expected.permutation);
  EXPECT_EQ(got.lines.ptr, expected.lines.ptr);
  const prism::LineReport &x = got.report, &y = expected.report;
  EXPECT_EQ(x.lengths.count, y.lengths.count);
  EXPECT_EQ(x.lengths.min_size, y.lengths.min_size);
  EXPECT_EQ(x.lengths.max_size, y.lengths.max_size);
  EXPECT_EQ(x.lengths.mean_size, y.lengths.mean_size);
  EXPECT_EQ(x.linked_rows, y.linked_rows);
  EXPECT_EQ(x.inside_weight, y.inside_weight);
}

constexpr prism::MatrixCheck kLevels[] = {prism::MatrixCheck::full, prism::MatrixCheck::pattern,
                                          prism::MatrixCheck::none};

TEST(FindLinesCuda, SessionLinesEqualTheHostLines) {
  PRISM_SKIP_WITHOUT_GPU();
  index_t linked = 0;
  for (const auto& [name, a] : cases()) {
    for (const prism::MatrixCheck level : kLevels) {
      SCOPED_TRACE(name + ", check " + std::string(prism::to_string(level)));
      const auto session = prism::backend::cuda::make_cuda_setup_session(a, nullptr);
      ASSERT_TRUE(session->check(level, 1e-12));
      for (const prism::LineOptions& o : options()) {
        SCOPED_TRACE("dominance " + std::to_string(o.dominance) + ", max_length " +
                     std::to_string(o.max_length));
        const prism::Lines expected = prism::find_lines(a, o);
        prism::Lines got;
        ASSERT_TRUE(session->find_lines(o, got));
        expect_same_lines(got, expected);
        linked += expected.report.linked_rows;
        // Again after the count, which releases the session's 1 / sqrt(a_ii).
        EXPECT_EQ(session->rows_choosing_links(o), prism::rows_choosing_links(a, o));
        ASSERT_TRUE(session->find_lines(o, got));
        expect_same_lines(got, expected);
      }
    }
  }
  EXPECT_GT(linked, 0);
}

TEST(FindLinesCuda, LeavesToTheHostWhatItCannotAnswer) {
  PRISM_SKIP_WITHOUT_GPU();
  const CsrMatrix<double> a = prism::anisotropic3d(9, 6, 5, 1.0, 1e-3, 1e-3);
  prism::Lines lines;
  {
    const auto unchecked = prism::backend::cuda::make_cuda_setup_session(a, nullptr);
    EXPECT_FALSE(unchecked->find_lines(prism::LineOptions{}, lines)) << "before check()";
  }
  const auto session = prism::backend::cuda::make_cuda_setup_session(a, nullptr);
  ASSERT_TRUE(session->check(prism::MatrixCheck::full, 1e-12));
  prism::LineOptions refused;
  refused.dominance = 1.0;
  EXPECT_FALSE(session->find_lines(refused, lines)) << "the host's ConfigError";
  refused = {};
  refused.max_length = 0;
  EXPECT_FALSE(session->find_lines(refused, lines)) << "the host's ConfigError";
  // A bad diagonal passes the storage check alone; find_lines throws on it.
  for (const auto& [name, bad] : prism::test::bad_diagonal_cases()) {
    SCOPED_TRACE(name);
    const auto none = prism::backend::cuda::make_cuda_setup_session(bad, nullptr);
    ASSERT_TRUE(none->check(prism::MatrixCheck::none, 1e-12));
    EXPECT_FALSE(none->find_lines(prism::LineOptions{}, lines));
  }
}

TEST(FindLinesCuda, OrderByLinesWithTheSessionEqualsWithout) {
  PRISM_SKIP_WITHOUT_GPU();
  for (const auto& [name, a] : cases()) {
    SCOPED_TRACE(name);
    const auto session = prism::backend::cuda::make_cuda_setup_session(a, nullptr);
    ASSERT_TRUE(session->check(prism::MatrixCheck::full, 1e-12));
    for (const prism::LineOptions& o : options()) {
      const prism::solver::LineOrder with = prism::solver::order_by_lines(a, o, session.get());
      const prism::solver::LineOrder without = prism::solver::order_by_lines(a, o);
      EXPECT_EQ(with.permutation, without.permutation);
      EXPECT_EQ(with.lines.ptr, without.lines.ptr);
      EXPECT_EQ(with.description, without.description);
    }
  }
}

// Through the solver on the cuda backend, auto's line_ic: the plan equals the cpu
// backend's (but for the line naming the backend whose SpMV choice it is), and the set-up
// report lists the links as a device step, the chains as a host one.
TEST(FindLinesCuda, SetupFindsTheLinksOnTheDevice) {
  PRISM_SKIP_WITHOUT_GPU();
  const CsrMatrix<double> a = prism::anisotropic3d(24, 8, 8, 1.0, 1e-3, 1e-3);
  prism::SolverConfig config;
  config.backend = prism::BackendKind::cpu;
  prism::Solver host(config);
  host.setup(a);
  config.backend = prism::BackendKind::cuda;
  prism::Solver device(config);
  device.setup(a);
  std::vector<double> b(static_cast<std::size_t>(a.rows), 1.0), x_host, x_device;
  const prism::SolveReport on_host = host.solve(b, x_host);
  const prism::SolveReport on_device = device.solve(b, x_device);
  ASSERT_EQ(on_host.preconditioner, "line_ic");
  EXPECT_EQ(on_device.preconditioner, on_host.preconditioner);
  std::vector<std::string> host_plan = on_host.plan;
  for (std::string& line : host_plan) {
    const std::string cpu = "the cpu backend's";
    if (const std::size_t at = line.find(cpu); at != std::string::npos) {
      line.replace(at, cpu.size(), "the cuda backend's");
    }
  }
  EXPECT_EQ(on_device.plan, host_plan);
  const auto has = [&](const std::string& name, bool on_device_step) {
    const std::vector<prism::SetupStep>& steps = device.setup_report().steps;
    return std::any_of(steps.begin(), steps.end(), [&](const prism::SetupStep& t) {
      return t.name == name && t.device == on_device_step;
    });
  };
  EXPECT_TRUE(has("lines: choices, links (device)", true));
  EXPECT_TRUE(has("lines: chains", false));
  EXPECT_TRUE(has("lines: order, report", false));
  EXPECT_FALSE(has("lines: choices, links", false)) << "not on the host";
}

}  // namespace
