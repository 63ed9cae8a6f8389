// solver::resolve_type with a backend set-up session (the cuda backend's on the GPU): the
// choice made from the session's scans equals the one made from the host's, field by field,
// whether the session answers every scan or leaves some to the host; the set-up report
// lists the scans the session ran as device steps. The session here answers with the
// reference kernels (kernels/choice_scans.hpp), so this runs without a GPU; the cuda
// session itself is held to the host in tests/backend/test_cuda_choice_scans.cpp.

#include <prism/blocks.hpp>
#include <prism/lines.hpp>

#include "analysis/line_links.hpp"
#include "backend/setup.hpp"
#include "common/setup_steps.hpp"
#include "kernels/choice_scan_matrices.hpp"
#include "kernels/choice_scans.hpp"
#include "solver/preconditioner_choice.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace {

using prism::CsrMatrix;
using prism::index_t;
namespace ref = prism::kernels::reference;

/// A session whose choice scans are the reference kernels, each one answered or declined.
class ReferenceSession final : public prism::backend::SetupSession {
 public:
  ReferenceSession(const CsrMatrix<double>& a, bool blocks, bool diagonal, bool links)
      : a_(a), blocks_(blocks), diagonal_(diagonal), links_(links) {}

  bool check(prism::MatrixCheck, double) override { return true; }
  int color_rows(std::vector<int>&) override { return 0; }
  prism::kernels::GreedyColoring color_rows_in_order(const std::vector<index_t>&,
                                                     std::vector<int>&) override {
    return {};
  }
  bool permute(const std::vector<index_t>&, CsrMatrix<double>&, std::vector<index_t>&) override {
    return false;
  }

  bool find_node_blocks(index_t max_size, prism::BlockPartition& blocks) override {
    if (!blocks_) return false;
    blocks.ptr.assign(static_cast<std::size_t>(a_.rows) + 1, 0);
    blocks.ptr.resize(
        static_cast<std::size_t>(ref::node_block_ptr(view(), max_size, blocks.ptr.data())) + 1);
    return true;
  }
  bool first_bad_diagonal(index_t& row) override {
    if (!diagonal_) return false;
    std::vector<double> r(static_cast<std::size_t>(a_.rows));
    row = ref::inverse_sqrt_diagonal(view(), r.data());
    return true;
  }
  index_t rows_choosing_links(const prism::LineOptions& options) override {
    std::vector<double> r(static_cast<std::size_t>(a_.rows));
    if (!links_ || ref::inverse_sqrt_diagonal(view(), r.data()) >= 0) return -1;
    return ref::rows_choosing_links(view(), r.data(), options.dominance, options.min_strength);
  }
  /// The reference's links, traced on the host, as the cuda session does with its own.
  bool find_lines(const prism::LineOptions& options, prism::Lines& out) override {
    std::vector<double> r(static_cast<std::size_t>(a_.rows));
    if (!links_ || ref::inverse_sqrt_diagonal(view(), r.data()) >= 0) return false;
    std::vector<index_t> chosen(2 * r.size()), links(2 * r.size());
    ref::chosen_links(view(), r.data(), options.dominance, options.min_strength, chosen.data());
    ref::mutual_links(a_.rows, chosen.data(), links.data());
    out = prism::analysis::lines_from_links(a_, links, options.max_length);
    return true;
  }

 private:
  prism::kernels::CsrView<double> view() const {
    return {a_.rows, a_.cols, a_.row_ptr.data(), a_.col_idx.data(), a_.values.data()};
  }
  const CsrMatrix<double>& a_;
  bool blocks_, diagonal_, links_;
};

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
  EXPECT_EQ(with.lines->report.linked_rows, without.lines->report.linked_rows);
  EXPECT_EQ(with.lines->report.inside_weight, without.lines->report.inside_weight);
  EXPECT_EQ(with.lines->report.lengths.count, without.lines->report.lengths.count);
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

bool has_step(const std::vector<prism::SetupStep>& steps, const std::string& name) {
  return std::any_of(steps.begin(), steps.end(),
                     [&](const prism::SetupStep& s) { return s.name == name && s.device; });
}

TEST(AutoChoiceSession, EqualsTheHostChoiceWhateverTheSessionAnswers) {
  std::vector<prism::test::ChoiceCase> cases = prism::test::generator_choice_cases();
  for (auto& c : prism::test::awkward_choice_cases()) cases.push_back(std::move(c));
  for (auto& c : prism::test::bad_diagonal_cases()) cases.push_back(std::move(c));
  int types[3] = {0, 0, 0};  // ic0, block_ic, line_ic
  for (const auto& [name, a] : cases) {
    for (int answers = 0; answers < 8; ++answers) {  // which scans the session answers
      ReferenceSession session(a, answers & 1, answers & 2, answers & 4);
      const std::vector<prism::PreconditionerOptions> options = choice_options();
      for (std::size_t o = 0; o < options.size(); ++o) {
        SCOPED_TRACE(name + ", answers " + std::to_string(answers) + ", options " +
                     std::to_string(o));
        const prism::solver::TypeChoice without = prism::solver::resolve_type(options[o], a);
        std::vector<prism::SetupStep> steps;
        prism::solver::TypeChoice with;
        {
          const prism::common::StepRecording recording(steps);
          with = prism::solver::resolve_type(options[o], a, &session);
        }
        expect_same_choice(with, without);
        types[0] += without.type == "ic0";
        types[1] += without.type == "block_ic";
        types[2] += without.type == "line_ic";
        // A step is listed where the session ran it, never where the host did.
        if (!(answers & 1)) EXPECT_FALSE(has_step(steps, "node blocks (device)"));
        if (!(answers & 2)) EXPECT_FALSE(has_step(steps, "preconditioner auto: diagonal (device)"));
        if (!(answers & 4)) {
          EXPECT_FALSE(has_step(steps, "preconditioner auto: rows choosing links (device)"));
        }
        if (answers == 7 && o == 0) {
          EXPECT_TRUE(has_step(steps, "node blocks (device)"));
        }
      }
    }
  }
  for (const int count : types) EXPECT_GT(count, 0) << "every type was chosen";
}

}  // namespace
