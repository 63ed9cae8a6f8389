// The CUDA BSR SpMV (kernels/cuda/bsr.hpp) against the reference on the awkward cases
// (bsr_test_matrices.hpp: b = 1..9, so the warp kernels for 2..8 and the row kernel for
// the others, padded last block rows and columns, empty block rows), plus grids of
// thousands of block rows (many thread blocks) and long block rows (many chunks per warp);
// and the device gather against the host's. Skips without a device.

#include <prism/generators.hpp>

#include "common/device_copy.hpp"
#include "common/gpu.hpp"
#include "common/test_matrices.hpp"
#include "kernels/bsr.hpp"
#include "kernels/bsr_test_matrices.hpp"
#include "kernels/cuda/bsr.hpp"
#include "kernels/cuda/device_memory.hpp"

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace {

using prism::CsrMatrix;
using prism::index_t;
using prism::kernels::BsrLayout;
using prism::kernels::cuda::DeviceBuffer;
using prism::kernels::cuda::upload_and_wait;
using prism::test::BsrCase;
using prism::test::csr_view;
namespace ref = prism::kernels::reference;

constexpr double kSentinel = -7.0;

std::vector<BsrCase> all_cases() {
  std::vector<BsrCase> cases = prism::test::bsr_cases();
  const CsrMatrix<double> grid = prism::poisson2d(60, 61);  // 3660 rows
  for (int b = 1; b <= 9; ++b) cases.push_back({"poisson2d 60x61", grid, b});
  cases.push_back({"elasticity3d 6x5x4", prism::elasticity3d(6, 5, 4, 2, {1.0, 30.0}), 3});
  // Block rows of up to 150 blocks: many chunks per warp for every b.
  const CsrMatrix<double> wide = prism::test::random_pattern(45, 301, 0.5, 20, 24, 11);
  for (int b : {2, 3, 4, 5, 6, 7, 8, 10}) cases.push_back({"random 45x301", wide, b});
  return cases;
}

/// y = A x on the device from the layout and values, into rows + 1 entries (the last a
/// sentinel that must stay).
std::vector<double> device_spmv(const BsrLayout& s, const std::vector<double>& values,
                                const std::vector<double>& x) {
  const auto row_ptr = upload_and_wait(s.block_row_ptr, nullptr);
  const auto col_idx = upload_and_wait(s.block_col_idx, nullptr);
  const auto v = upload_and_wait(values, nullptr);
  const auto dx = upload_and_wait(x, nullptr);
  auto dy = upload_and_wait(std::vector<double>(static_cast<std::size_t>(s.rows) + 1, kSentinel),
                            nullptr);
  prism::kernels::BsrView<double> view = s.view(v.data());
  view.block_row_ptr = row_ptr.data();
  view.block_col_idx = col_idx.data();
  prism::kernels::cuda::bsr_spmv(view, dx.data(), dy.data(), nullptr);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  return prism::test::download(dy);
}

TEST(BsrSpmvCuda, IsEquivalentToReference) {
  PRISM_SKIP_WITHOUT_GPU();
  for (const BsrCase& c : all_cases()) {
    SCOPED_TRACE(c.name + ", b = " + std::to_string(c.block_size));
    const BsrLayout s = ref::bsr_layout(csr_view(c.a), c.block_size);
    std::vector<double> values;
    ref::bsr_gather(s, c.a.values.data(), values);
    const std::vector<double> x = prism::test::random_vector(c.a.cols, 17);
    std::vector<double> expected(static_cast<std::size_t>(c.a.rows));
    ref::bsr_spmv(s.view(values.data()), x.data(), expected.data());
    std::vector<double> y = device_spmv(s, values, x);
    ASSERT_EQ(y.size(), expected.size() + 1);
    EXPECT_EQ(y.back(), kSentinel);  // nothing written past the last row
    y.pop_back();
    for (index_t i = 0; i < c.a.rows; ++i) {
      double scale = 0.0;  // sum |a_ij x_j|: the rounding of any summation order
      for (index_t k = c.a.row_ptr[i]; k < c.a.row_ptr[i + 1]; ++k) {
        scale += std::abs(c.a.values[k] * x[c.a.col_idx[k]]);
      }
      ASSERT_NEAR(y[i], expected[i], 1e-15 * (c.a.row_ptr[i + 1] - c.a.row_ptr[i] + 1) * scale)
          << "row " << i;
    }
    // Deterministic: the same sums, in the same order, run to run.
    std::vector<double> again = device_spmv(s, values, x);
    again.pop_back();
    EXPECT_EQ(again, y);
  }
}

TEST(BsrSpmvCuda, GatherIsEquivalentToReference) {
  PRISM_SKIP_WITHOUT_GPU();
  for (const BsrCase& c : all_cases()) {
    SCOPED_TRACE(c.name + ", b = " + std::to_string(c.block_size));
    const BsrLayout s = ref::bsr_layout(csr_view(c.a), c.block_size);
    std::vector<double> fresh(c.a.values.size());
    for (std::size_t e = 0; e < fresh.size(); ++e) fresh[e] = 0.5 + static_cast<double>(e);
    std::vector<double> expected;
    ref::bsr_gather(s, fresh.data(), expected);
    const auto source = upload_and_wait(s.source, nullptr);
    const auto csr = upload_and_wait(fresh, nullptr);
    // Filled with a sentinel first: the padding must be written as 0, not left alone.
    auto out = upload_and_wait(std::vector<double>(expected.size(), kSentinel), nullptr);
    prism::kernels::cuda::bsr_gather(static_cast<index_t>(expected.size()), source.data(),
                                     csr.data(), out.data(), nullptr);
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_EQ(prism::test::download(out), expected);
  }
}

}  // namespace
