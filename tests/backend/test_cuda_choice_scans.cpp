// `preconditioner: auto`'s scans on the GPU (issue 47): the kernels of
// kernels/cuda/choice_scans.hpp give the reference's node blocks, 1 / sqrt(a_ii) bit for bit,
// first bad row, count and links (strengths tied or within ulps of the thresholds included); the
// cuda set-up session's scans equal the host functions after its check at each level; and
// solver::resolve_type with the session equals it without, field by field. Through the
// solver, the set-up report lists the device steps. Skips without a device.

#include <prism/blocks.hpp>
#include <prism/lines.hpp>
#include <prism/solver.hpp>

#include "backend/cuda/cuda_setup.hpp"
#include "common/gpu.hpp"
#include "kernels/choice_scan_matrices.hpp"
#include "kernels/choice_scans.hpp"
#include "kernels/cuda/choice_scans.hpp"
#include "kernels/cuda/device_memory.hpp"
#include "kernels/cuda/matrix_values.hpp"
#include "solver/preconditioner_choice.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace {

using prism::CsrMatrix;
using prism::index_t;
using prism::test::ChoiceCase;
namespace k = prism::kernels::cuda;
namespace ref = prism::kernels::reference;

/// A's arrays in device memory.
struct DeviceCsr {
  explicit DeviceCsr(const CsrMatrix<double>& a)
      : rows(a.rows),
        cols(a.cols),
        row_ptr(k::upload_and_wait(a.row_ptr, nullptr)),
        col_idx(k::upload_and_wait(a.col_idx, nullptr)),
        values(k::upload_and_wait(a.values, nullptr)) {}
  prism::kernels::CsrView<double> view() const {
    return {rows, cols, row_ptr.data(), col_idx.data(), values.data()};
  }
  index_t rows, cols;
  k::DeviceBuffer<index_t> row_ptr, col_idx;
  k::DeviceBuffer<double> values;
};

prism::kernels::CsrView<double> host_view(const CsrMatrix<double>& a) {
  return {a.rows, a.cols, a.row_ptr.data(), a.col_idx.data(), a.values.data()};
}

std::vector<ChoiceCase> good_cases() {
  std::vector<ChoiceCase> cases = prism::test::generator_choice_cases();
  for (auto& c : prism::test::awkward_choice_cases()) cases.push_back(std::move(c));
  return cases;
}

std::vector<ChoiceCase> all_cases() {
  std::vector<ChoiceCase> cases = good_cases();
  for (auto& c : prism::test::bad_diagonal_cases()) cases.push_back(std::move(c));
  return cases;
}

std::vector<prism::LineOptions> line_options() {
  std::vector<prism::LineOptions> out(4);
  out[1].dominance = 2.5;
  out[1].min_strength = 0.0;
  out[2].min_strength = 0.25;
  out[3].dominance = 1.5;
  out[3].min_strength = 0.05;
  return out;
}

/// The first row whose diagonal entry is not positive and finite, -1 when none.
index_t first_bad_diagonal(const CsrMatrix<double>& a) {
  std::vector<double> r(static_cast<std::size_t>(a.rows));
  return ref::inverse_sqrt_diagonal(host_view(a), r.data());
}

TEST(ChoiceScansCuda, NodeBlockPtrIsEquivalentToReference) {
  PRISM_SKIP_WITHOUT_GPU();
  std::vector<ChoiceCase> cases = all_cases();
  cases.push_back({"empty", CsrMatrix<double>{0, 0, {0}, {}, {}}});
  for (const auto& [name, a] : cases) {
    SCOPED_TRACE(name);
    const DeviceCsr d(a);
    for (const index_t max_size : {1, 2, 3, 64, 1000}) {
      std::vector<index_t> expected(static_cast<std::size_t>(a.rows) + 1);
      expected.resize(
          static_cast<std::size_t>(ref::node_block_ptr(host_view(a), max_size, expected.data())) +
          1);
      k::DeviceBuffer<index_t> ptr(static_cast<std::size_t>(a.rows) + 1);
      const index_t count = k::node_block_ptr(d.view(), max_size, ptr.data(), nullptr);
      ASSERT_EQ(static_cast<std::size_t>(count) + 1, expected.size()) << "max_size " << max_size;
      EXPECT_EQ(k::download_and_wait(ptr.data(), expected.size(), nullptr), expected)
          << "max_size " << max_size;
    }
  }
}

TEST(ChoiceScansCuda, InverseSqrtDiagonalIsEquivalentToReference) {
  PRISM_SKIP_WITHOUT_GPU();
  for (const auto& [name, a] : all_cases()) {
    SCOPED_TRACE(name);
    const DeviceCsr d(a);
    std::vector<double> expected(static_cast<std::size_t>(a.rows), 0.0);
    const index_t bad = ref::inverse_sqrt_diagonal(host_view(a), expected.data());
    k::DeviceBuffer<double> r(static_cast<std::size_t>(a.rows));
    k::DeviceBuffer<int> first_bad(1);
    k::inverse_sqrt_diagonal(d.view(), r.data(), first_bad.data(), nullptr);
    const int found = k::download_and_wait(first_bad, nullptr)[0];
    EXPECT_EQ(found, bad < 0 ? k::kNoBadEntry : bad);
    if (bad >= 0) continue;  // r is unspecified past a bad row
    const std::vector<double> got = k::download_and_wait(r, nullptr);
    for (index_t i = 0; i < a.rows; ++i) ASSERT_EQ(got[i], expected[i]) << "row " << i;
  }
}

TEST(ChoiceScansCuda, RowsChoosingLinksIsEquivalentToReference) {
  PRISM_SKIP_WITHOUT_GPU();
  for (const auto& [name, a] : good_cases()) {
    SCOPED_TRACE(name);
    std::vector<double> r(static_cast<std::size_t>(a.rows));
    ASSERT_EQ(ref::inverse_sqrt_diagonal(host_view(a), r.data()), -1);
    const DeviceCsr d(a);
    const k::DeviceBuffer<double> device_r = k::upload_and_wait(r, nullptr);
    k::DeviceBuffer<index_t> count(1);
    for (const prism::LineOptions& o : line_options()) {
      k::rows_choosing_links(d.view(), device_r.data(), o.dominance, o.min_strength, count.data(),
                             nullptr);
      EXPECT_EQ(k::download_and_wait(count, nullptr)[0],
                ref::rows_choosing_links(host_view(a), r.data(), o.dominance, o.min_strength))
          << "dominance " << o.dominance << ", min_strength " << o.min_strength;
    }
  }
}

TEST(ChoiceScansCuda, ChosenAndMutualLinksAreEquivalentToReference) {
  PRISM_SKIP_WITHOUT_GPU();
  for (const auto& [name, a] : good_cases()) {
    SCOPED_TRACE(name);
    const auto n = static_cast<std::size_t>(a.rows);
    std::vector<double> r(n);
    ASSERT_EQ(ref::inverse_sqrt_diagonal(host_view(a), r.data()), -1);
    const DeviceCsr d(a);
    const k::DeviceBuffer<double> device_r = k::upload_and_wait(r, nullptr);
    k::DeviceBuffer<index_t> chosen(2 * n), links(2 * n);
    for (const prism::LineOptions& o : line_options()) {
      std::vector<index_t> expected_chosen(2 * n), expected_links(2 * n);
      ref::chosen_links(host_view(a), r.data(), o.dominance, o.min_strength,
                        expected_chosen.data());
      ref::mutual_links(a.rows, expected_chosen.data(), expected_links.data());
      k::chosen_links(d.view(), device_r.data(), o.dominance, o.min_strength, chosen.data(),
                      nullptr);
      k::mutual_links(a.rows, chosen.data(), links.data(), nullptr);
      EXPECT_EQ(k::download_and_wait(chosen, nullptr), expected_chosen)
          << "dominance " << o.dominance << ", min_strength " << o.min_strength;
      EXPECT_EQ(k::download_and_wait(links, nullptr), expected_links)
          << "dominance " << o.dominance << ", min_strength " << o.min_strength;
    }
  }
}

constexpr prism::MatrixCheck kLevels[] = {prism::MatrixCheck::full, prism::MatrixCheck::pattern,
                                          prism::MatrixCheck::none};

// After the session's check at each level, its scans equal the host functions; a level
// whose check fails leaves every scan to the host.
TEST(ChoiceScansCuda, SessionScansEqualTheHostFunctions) {
  PRISM_SKIP_WITHOUT_GPU();
  for (const auto& [name, a] : all_cases()) {
    const index_t bad = first_bad_diagonal(a);
    for (const prism::MatrixCheck level : kLevels) {
      SCOPED_TRACE(name + ", check " + std::string(prism::to_string(level)));
      const auto session = prism::backend::cuda::make_cuda_setup_session(a, nullptr);
      const bool checked = session->check(level, 1e-12);
      // Bad diagonals fail the values check; a missing one also the pattern check.
      const bool missing = name.find("no diagonal") != std::string::npos;
      const bool passes = level == prism::MatrixCheck::none ||
                          (level == prism::MatrixCheck::pattern ? !missing : bad < 0);
      EXPECT_EQ(checked, passes);
      prism::BlockPartition blocks;
      index_t row = -2;
      if (!checked) {
        EXPECT_FALSE(session->find_node_blocks(64, blocks));
        EXPECT_FALSE(session->first_bad_diagonal(row));
        EXPECT_EQ(session->rows_choosing_links(prism::LineOptions{}), -1);
        continue;
      }
      ASSERT_TRUE(session->find_node_blocks(64, blocks));
      EXPECT_EQ(blocks.ptr, prism::find_node_blocks(a).ptr);
      ASSERT_TRUE(session->find_node_blocks(3, blocks));
      EXPECT_EQ(blocks.ptr, prism::find_node_blocks(a, 3).ptr);
      EXPECT_FALSE(session->find_node_blocks(0, blocks));  // the host's ConfigError
      ASSERT_TRUE(session->first_bad_diagonal(row));
      EXPECT_EQ(row, bad);
      for (const prism::LineOptions& o : line_options()) {
        const index_t count = session->rows_choosing_links(o);
        if (bad >= 0) {
          EXPECT_EQ(count, -1) << "the host throws";
        } else {
          EXPECT_EQ(count, prism::rows_choosing_links(a, o)) << "dominance " << o.dominance;
        }
      }
      prism::LineOptions refused;
      refused.dominance = 1.0;
      EXPECT_EQ(session->rows_choosing_links(refused), -1) << "the host's ConfigError";
    }
  }
}

std::vector<prism::PreconditionerOptions> choice_options() {
  std::vector<prism::PreconditionerOptions> out(5);
  out[1].block_ic.block_size = 3;
  out[2].ordering = prism::Ordering::color;
  out[3].lines.dominance = 2.5;
  out[3].lines.min_strength = 0.0;
  out[4].lines.max_length = 5;
  return out;
}

void expect_same_choice(const prism::solver::TypeChoice& with,
                        const prism::solver::TypeChoice& without) {
  EXPECT_EQ(with.type, without.type);
  EXPECT_EQ(with.reason, without.reason);
  ASSERT_EQ(with.blocks.has_value(), without.blocks.has_value());
  if (with.blocks) EXPECT_EQ(with.blocks->ptr, without.blocks->ptr);
  ASSERT_EQ(with.lines.has_value(), without.lines.has_value());
  if (!with.lines) return;
  EXPECT_EQ(with.lines->permutation, without.lines->permutation);
  EXPECT_EQ(with.lines->lines.ptr, without.lines->lines.ptr);
  const prism::LineReport &x = with.lines->report, &y = without.lines->report;
  EXPECT_EQ(x.lengths.count, y.lengths.count);
  EXPECT_EQ(x.lengths.min_size, y.lengths.min_size);
  EXPECT_EQ(x.lengths.max_size, y.lengths.max_size);
  EXPECT_EQ(x.lengths.mean_size, y.lengths.mean_size);
  EXPECT_EQ(x.linked_rows, y.linked_rows);
  EXPECT_EQ(x.inside_weight, y.inside_weight);
}

TEST(ChoiceScansCuda, ResolveTypeWithTheSessionEqualsWithout) {
  PRISM_SKIP_WITHOUT_GPU();
  int line_ic = 0, block_ic = 0, bad_diagonal = 0;
  for (const auto& [name, a] : all_cases()) {
    for (const prism::MatrixCheck level : kLevels) {
      const auto session = prism::backend::cuda::make_cuda_setup_session(a, nullptr);
      session->check(level, 1e-12);
      const std::vector<prism::PreconditionerOptions> options = choice_options();
      for (std::size_t o = 0; o < options.size(); ++o) {
        SCOPED_TRACE(name + ", check " + std::string(prism::to_string(level)) + ", options " +
                     std::to_string(o));
        const prism::solver::TypeChoice without = prism::solver::resolve_type(options[o], a);
        expect_same_choice(prism::solver::resolve_type(options[o], a, session.get()), without);
        line_ic += without.type == "line_ic";
        block_ic += without.type == "block_ic";
        bad_diagonal += without.reason.find("positive diagonal") != std::string::npos;
      }
    }
  }
  // Every branch of the choice was taken.
  EXPECT_GT(line_ic, 0);
  EXPECT_GT(block_ic, 0);
  EXPECT_GT(bad_diagonal, 0);
}

// Through the solver on the cuda backend: the plan's choice is the cpu backend's, and the
// set-up report lists the scans as device steps.
TEST(ChoiceScansCuda, SetupRunsTheScansOnTheDevice) {
  PRISM_SKIP_WITHOUT_GPU();
  const auto has = [](const prism::SetupReport& s, const std::string& name) {
    return std::any_of(s.steps.begin(), s.steps.end(),
                       [&](const prism::SetupStep& t) { return t.name == name && t.device; });
  };
  for (const CsrMatrix<double>& a :
       {prism::poisson3d(12, 11, 10), prism::anisotropic3d(9, 6, 5, 1.0, 1e-3, 1e-3),
        prism::elasticity3d(4, 3, 3, 2, {1.0, 100.0})}) {
    for (const prism::MatrixCheck level : kLevels) {
      prism::SolverConfig config;
      config.solver.check = level;
      config.backend = prism::BackendKind::cpu;
      prism::Solver host(config);
      host.setup(a);
      config.backend = prism::BackendKind::cuda;
      prism::Solver device(config);
      device.setup(a);
      std::vector<double> b(static_cast<std::size_t>(a.rows), 1.0), x_host, x_device;
      const prism::SolveReport on_host = host.solve(b, x_host);
      const prism::SolveReport on_device = device.solve(b, x_device);
      EXPECT_EQ(on_device.preconditioner, on_host.preconditioner);
      ASSERT_FALSE(on_device.plan.empty());
      EXPECT_EQ(on_device.plan.front(), on_host.plan.front());
      const prism::SetupReport& s = device.setup_report();
      EXPECT_TRUE(has(s, "node blocks (device)"));
      if (on_host.preconditioner != "block_ic") {
        EXPECT_TRUE(has(s, "preconditioner auto: diagonal (device)"));
        EXPECT_TRUE(has(s, "preconditioner auto: rows choosing links (device)"));
      }
    }
  }
}

}  // namespace
