// The block coloring on the GPU: its kernels (kernels/cuda/block_coloring.hpp) against
// their twins (prism::quotient_matrix of the grouped matrix, kernels/block_coloring.hpp's
// references) and the cuda set-up session's color_blocks (backend/setup.hpp) against the
// host's color_blocks composed through the grouping, field by field, in every vertex order
// (or refused), with permute() on the permutation it kept equal to the host's. Node blocks
// and supernodes of elasticity, uniform blocks with a short last one, lines of anisotropic
// and stretched grids, one row, one block, no rows, 100000 random rows. Skips without a
// device.

#include <prism/analysis.hpp>
#include <prism/blocks.hpp>

#include "analysis/color_order.hpp"
#include "backend/cuda/cuda_setup.hpp"
#include "common/gpu.hpp"
#include "common/setup_steps.hpp"
#include "kernels/block_coloring.hpp"
#include "kernels/block_coloring_cases.hpp"
#include "kernels/cuda/block_coloring.hpp"
#include "kernels/cuda/device_memory.hpp"
#include "kernels/parallel_coloring.hpp"
#include "kernels/setup_test_matrices.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

namespace {

using prism::CsrMatrix;
using prism::index_t;
using prism::test::BlockCase;
namespace k = prism::kernels::cuda;
namespace ref = prism::kernels::reference;

CsrMatrix<double> quotient_of(const BlockCase& c) {
  return prism::quotient_matrix(
      c.grouping.empty() ? c.a : prism::permute_symmetric(c.a, c.grouping), c.blocks);
}

/// c's matrix, grouping and blocks in device memory.
struct OnDevice {
  explicit OnDevice(const BlockCase& c)
      : row_ptr(k::upload_and_wait(c.a.row_ptr, nullptr)),
        col_idx(k::upload_and_wait(c.a.col_idx, nullptr)),
        grouping(k::upload_and_wait(c.grouping, nullptr)),
        block_ptr(k::upload_and_wait(c.blocks.ptr, nullptr)) {}
  prism::kernels::CsrView<double> view(const BlockCase& c) const {
    return {c.a.rows, c.a.cols, row_ptr.data(), col_idx.data(), nullptr};
  }
  const index_t* grouping_or_null() const {
    return grouping.size() > 0 ? grouping.data() : nullptr;
  }
  k::DeviceBuffer<index_t> row_ptr, col_idx, grouping, block_ptr;
};

TEST(BlockColoringCuda, QuotientPatternIsTheHosts) {
  PRISM_SKIP_WITHOUT_GPU();
  for (const BlockCase& c : prism::test::block_coloring_cases()) {
    SCOPED_TRACE(c.name);
    const CsrMatrix<double> host = quotient_of(c);
    const OnDevice d(c);
    const k::DevicePattern q = k::quotient_pattern(d.view(c), c.a.nnz(), d.grouping_or_null(),
                                                   c.blocks.count(), d.block_ptr.data(), nullptr);
    EXPECT_EQ(q.rows, host.rows);
    EXPECT_EQ(k::download_and_wait(q.row_ptr, nullptr), host.row_ptr);
    EXPECT_EQ(k::download_and_wait(q.col_idx, nullptr), host.col_idx);
  }
}

TEST(BlockColoringCuda, LargestFirstRankIsTheReferences) {
  PRISM_SKIP_WITHOUT_GPU();
  std::vector<prism::test::NamedMatrix> patterns = prism::test::coloring_cases();
  for (const BlockCase& c : prism::test::block_coloring_cases()) {
    patterns.push_back({c.name + ", quotient", quotient_of(c)});
  }
  for (const auto& [name, a] : patterns) {
    SCOPED_TRACE(name);
    std::vector<index_t> expected(static_cast<std::size_t>(a.rows));
    ref::largest_first_rank(a.rows, a.row_ptr.data(), a.col_idx.data(), expected.data());
    const k::DeviceBuffer<index_t> row_ptr = k::upload_and_wait(a.row_ptr, nullptr);
    const k::DeviceBuffer<index_t> col_idx = k::upload_and_wait(a.col_idx, nullptr);
    k::DeviceBuffer<index_t> rank(expected.size());
    k::largest_first_rank(a.rows, row_ptr.data(), col_idx.data(), rank.data(), nullptr);
    EXPECT_EQ(k::download_and_wait(rank, nullptr), expected);
  }
}

TEST(BlockColoringCuda, RowsInBlockOrderIsTheReferences) {
  PRISM_SKIP_WITHOUT_GPU();
  unsigned seed = 1;
  for (const BlockCase& c : prism::test::block_coloring_cases()) {
    SCOPED_TRACE(c.name);
    const index_t count = c.blocks.count();
    std::vector<index_t> order = prism::test::random_permutation(count, ++seed);
    std::vector<index_t> new_ptr(c.blocks.ptr.size()), perm(static_cast<std::size_t>(c.a.rows));
    ref::rows_in_block_order(count, c.blocks.ptr.data(),
                             c.grouping.empty() ? nullptr : c.grouping.data(), order.data(),
                             new_ptr.data(), perm.data());
    const OnDevice d(c);
    const k::DeviceBuffer<index_t> device_order = k::upload_and_wait(order, nullptr);
    k::DeviceBuffer<index_t> device_new_ptr(new_ptr.size()), device_perm(perm.size());
    k::rows_in_block_order(c.a.rows, count, d.block_ptr.data(), d.grouping_or_null(),
                           device_order.data(), device_new_ptr.data(), device_perm.data(), nullptr);
    EXPECT_EQ(k::download_and_wait(device_new_ptr, nullptr), new_ptr);
    EXPECT_EQ(k::download_and_wait(device_perm, nullptr), perm);
  }
}

/// Whether the ordered rounds on c's quotient graph stay within their limit (the reference
/// rounds): then the session must give the host's answer.
bool rounds_exact(const BlockCase& c, prism::VertexOrder order) {
  const CsrMatrix<double> q = quotient_of(c);
  const std::vector<index_t> rank = prism::analysis::greedy_rank(q, order);
  std::vector<int> colors(static_cast<std::size_t>(q.rows));
  const prism::kernels::CsrView<double> view{q.rows, q.cols, q.row_ptr.data(), q.col_idx.data(),
                                             q.values.data()};
  return ref::ordered_greedy_coloring(view, rank.empty() ? nullptr : rank.data(),
                                      prism::kernels::kGreedyRoundLimit, colors.data())
      .exact;
}

bool has_device_step(const std::vector<prism::SetupStep>& steps, const std::string& name) {
  return std::any_of(steps.begin(), steps.end(),
                     [&](const prism::SetupStep& s) { return s.name == name && s.device; });
}

TEST(CudaSetupBlockColoring, IsTheHostsInEveryVertexOrder) {
  PRISM_SKIP_WITHOUT_GPU();
  using prism::VertexOrder;
  for (const BlockCase& c : prism::test::block_coloring_cases()) {
    for (const VertexOrder order :
         {VertexOrder::natural, VertexOrder::largest_first, VertexOrder::smallest_last}) {
      SCOPED_TRACE(c.name + ", " + std::string(prism::to_string(order)));
      const prism::BlockColoring expected = prism::test::host_block_coloring(c, order);
      auto session = prism::backend::cuda::make_cuda_setup_session(c.a, nullptr);
      // Storage only: the pattern check rejects the empty row's missing diagonal.
      ASSERT_TRUE(session->check(prism::MatrixCheck::none, 0.0));
      std::vector<prism::SetupStep> steps;
      prism::BlockColoring out;
      bool colored = false;
      {
        const prism::common::StepRecording recording(steps);
        colored = session->color_blocks(c.grouping, c.blocks, order, out);
      }
      // Smallest-last has no device twin; the others give the host's answer unless the
      // rounds pass their limit.
      EXPECT_EQ(colored, order != VertexOrder::smallest_last && rounds_exact(c, order));
      if (!colored) continue;
      EXPECT_EQ(out.num_colors, expected.num_colors);
      EXPECT_EQ(out.permutation, expected.permutation);
      EXPECT_EQ(out.blocks.ptr, expected.blocks.ptr);
      EXPECT_EQ(out.color_ptr, expected.color_ptr);
      EXPECT_EQ(out.color_rows, expected.color_rows);
      for (const char* name : {"coloring: blocks quotient pattern (device)",
                               "coloring: blocks ordered rounds (device)",
                               "coloring: blocks by color, permutation (device)"}) {
        EXPECT_TRUE(has_device_step(steps, name)) << name;
      }
      // permute() on the kept permutation, then on a copy (uploaded): the host's matrix.
      std::vector<index_t> source;
      const CsrMatrix<double> host = prism::permute_symmetric(c.a, expected.permutation, &source);
      const std::vector<index_t> copied = out.permutation;
      const std::vector<index_t>* kept = &out.permutation;
      for (const std::vector<index_t>* given : {kept, &copied}) {
        SCOPED_TRACE(given == &copied ? "a copy of the permutation" : "the kept permutation");
        CsrMatrix<double> ordered;
        std::vector<index_t> ordered_source;
        ASSERT_TRUE(session->permute(*given, ordered, ordered_source));
        EXPECT_EQ(ordered.row_ptr, host.row_ptr);
        EXPECT_EQ(ordered.col_idx, host.col_idx);
        EXPECT_EQ(ordered.values, host.values);
        EXPECT_EQ(ordered_source, source);
      }
    }
  }
}

// line_ic's own host coloring (solver::color_lines) is the composition the session gives.
TEST(CudaSetupBlockColoring, IsColorLinesOnLines) {
  PRISM_SKIP_WITHOUT_GPU();
  const CsrMatrix<double> a = prism::anisotropic3d(5, 6, 33, 1e-2, 1e-3, 1.0);
  prism::solver::LineOrder order = prism::solver::order_lines(prism::find_lines(a));
  const std::vector<index_t> grouping = order.permutation;
  const prism::BlockPartition lines = order.lines;
  prism::solver::color_lines(a, order, prism::VertexOrder::natural);
  auto session = prism::backend::cuda::make_cuda_setup_session(a, nullptr);
  ASSERT_TRUE(session->check(prism::MatrixCheck::pattern, 0.0));
  prism::BlockColoring out;
  ASSERT_TRUE(session->color_blocks(grouping, lines, prism::VertexOrder::natural, out));
  EXPECT_EQ(out.permutation, order.permutation);
  EXPECT_EQ(out.blocks.ptr, order.lines.ptr);
  EXPECT_EQ(out.color_ptr, order.color_ptr);
  EXPECT_EQ(out.color_rows, order.color_rows);
}

// Blocks or a grouping that do not fit A go to the host, whose checks name the defect, and
// so does a matrix not yet checked.
TEST(CudaSetupBlockColoring, LeavesBlocksThatDoNotFitToTheHost) {
  PRISM_SKIP_WITHOUT_GPU();
  const CsrMatrix<double> a = prism::poisson2d(9, 7);
  auto session = prism::backend::cuda::make_cuda_setup_session(a, nullptr);
  prism::BlockColoring out;
  const auto natural = prism::VertexOrder::natural;
  EXPECT_FALSE(session->color_blocks({}, prism::uniform_blocks(a.rows, 3), natural, out))
      << "before check()";
  ASSERT_TRUE(session->check(prism::MatrixCheck::pattern, 0.0));
  EXPECT_FALSE(session->color_blocks({}, prism::uniform_blocks(a.rows - 1, 3), natural, out));
  prism::BlockPartition empty_block = prism::uniform_blocks(a.rows, 3);
  empty_block.ptr.insert(empty_block.ptr.begin() + 1, 0);
  EXPECT_FALSE(session->color_blocks({}, empty_block, natural, out));
  EXPECT_FALSE(session->color_blocks({0, 1, 2}, prism::uniform_blocks(a.rows, 3), natural, out));
  EXPECT_TRUE(session->color_blocks({}, prism::uniform_blocks(a.rows, 3), natural, out));
}

}  // namespace
