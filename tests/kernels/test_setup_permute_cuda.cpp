// The GPU symmetric permutation of the set-up (kernels/cuda/setup_permute.hpp, issue 47)
// against its reference, prism::permute_symmetric: the same row pointers, columns, values
// and value sources entry for entry, on the awkward cases of setup_test_matrices.hpp
// (one row, an empty row, rows longer than a warp, sizes not a multiple of 32) under
// random permutations, the identity and the reversal; and the cuda backend's set-up
// session, which permutes the matrix it holds, gives the same. Skips without a device.

#include <prism/analysis.hpp>

#include "backend/cuda/cuda_setup.hpp"
#include "common/gpu.hpp"
#include "kernels/cuda/device_memory.hpp"
#include "kernels/cuda/setup_permute.hpp"
#include "kernels/setup_test_matrices.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace {

using prism::CsrMatrix;
using prism::index_t;
namespace k = prism::kernels::cuda;

/// Permutations of n rows: the identity, the reversal and two random ones.
std::vector<std::pair<std::string, std::vector<index_t>>> permutations(index_t n) {
  std::vector<index_t> identity(static_cast<std::size_t>(n));
  std::iota(identity.begin(), identity.end(), 0);
  std::vector<index_t> reversal(identity.rbegin(), identity.rend());
  std::vector<std::pair<std::string, std::vector<index_t>>> out{{"identity", identity},
                                                                {"reversal", reversal}};
  for (const unsigned seed : {1u, 2u}) {
    std::vector<index_t> p = identity;
    std::shuffle(p.begin(), p.end(), std::mt19937(seed));
    out.emplace_back("random " + std::to_string(seed), std::move(p));
  }
  return out;
}

/// The device permutation of `a` by `perm`, read back (values skipped when !with_values).
CsrMatrix<double> device_permute(const CsrMatrix<double>& a, const std::vector<index_t>& perm,
                                 bool with_values, std::vector<index_t>& source) {
  const auto row_ptr = k::upload_and_wait(a.row_ptr, nullptr);
  const auto col_idx = k::upload_and_wait(a.col_idx, nullptr);
  const auto values = k::upload_and_wait(a.values, nullptr);
  const auto device_perm = k::upload_and_wait(perm, nullptr);
  k::DeviceBuffer<index_t> b_row_ptr(a.row_ptr.size()), b_col_idx(a.col_idx.size()),
      from(a.col_idx.size());
  k::DeviceBuffer<double> b_values(a.values.size());
  const prism::kernels::CsrView<double> view{a.rows, a.cols, row_ptr.data(), col_idx.data(),
                                             with_values ? values.data() : nullptr};
  k::permute_symmetric(view, a.nnz(), device_perm.data(), b_row_ptr.data(), b_col_idx.data(),
                       with_values ? b_values.data() : nullptr, from.data(), nullptr);
  CsrMatrix<double> b;
  b.rows = b.cols = a.rows;
  b.row_ptr = k::download_and_wait(b_row_ptr, nullptr);
  b.col_idx = k::download_and_wait(b_col_idx, nullptr);
  if (with_values) b.values = k::download_and_wait(b_values, nullptr);
  source = k::download_and_wait(from, nullptr);
  return b;
}

void expect_equal(const CsrMatrix<double>& got, const std::vector<index_t>& got_source,
                  const CsrMatrix<double>& want, const std::vector<index_t>& want_source,
                  bool with_values) {
  EXPECT_EQ(got.row_ptr, want.row_ptr);
  EXPECT_EQ(got.col_idx, want.col_idx);
  EXPECT_EQ(got_source, want_source);
  // Copied doubles: equal bit for bit.
  if (with_values) EXPECT_EQ(got.values, want.values);
}

TEST(PermuteCuda, SymmetricPermutationIsTheReference) {
  PRISM_SKIP_WITHOUT_GPU();
  for (const auto& [name, a] : prism::test::coloring_cases()) {
    for (const auto& [order, perm] : permutations(a.rows)) {
      for (const bool with_values : {true, false}) {
        SCOPED_TRACE(name + ", " + order + (with_values ? "" : ", no values"));
        std::vector<index_t> want_source, got_source;
        const CsrMatrix<double> want = prism::permute_symmetric(a, perm, &want_source);
        const CsrMatrix<double> got = device_permute(a, perm, with_values, got_source);
        expect_equal(got, got_source, want, want_source, with_values);
      }
    }
  }
}

TEST(PermuteCuda, SessionPermutesAsTheHost) {
  PRISM_SKIP_WITHOUT_GPU();
  int after_full_check = 0;
  for (const auto& [name, a] : prism::test::coloring_cases()) {
    // With the values uploaded by the full check and without (uploaded by permute); the
    // full check rejects the matrices it should (an empty row: no diagonal).
    for (const auto level : {prism::MatrixCheck::full, prism::MatrixCheck::none}) {
      SCOPED_TRACE(name + ", check " + std::string(prism::to_string(level)));
      const std::vector<index_t> perm = permutations(a.rows).back().second;
      auto session = prism::backend::cuda::make_cuda_setup_session(a, nullptr);
      const bool passed = session->check(level, 1e-12);
      if (level == prism::MatrixCheck::full && !passed) continue;
      ASSERT_TRUE(passed);
      if (level == prism::MatrixCheck::full) ++after_full_check;
      CsrMatrix<double> got;
      std::vector<index_t> got_source, want_source;
      ASSERT_TRUE(session->permute(perm, got, got_source));
      const CsrMatrix<double> want = prism::permute_symmetric(a, perm, &want_source);
      EXPECT_EQ(got.rows, want.rows);
      expect_equal(got, got_source, want, want_source, true);
    }
  }
  EXPECT_GT(after_full_check, 0);
}

}  // namespace
