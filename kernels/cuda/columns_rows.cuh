#pragma once
// Device helpers of the multi-column kernels (kernels/cuda/columns.cu, columns_llt.cu):
// where a listed column starts, whether it is masked, and one row of a CSR or SELL matrix
// times a group of up to kColumnGroup columns, each sum in entry order (the one-column
// kernels' order).

#include "kernels/csr_view.hpp"
#include "kernels/cuda/columns.hpp"
#include "kernels/cuda/sell.hpp"

#include <cstddef>

namespace prism::kernels::cuda::column_rows {

/// Where listed column c starts in a block of n rows (c not masked).
__device__ __forceinline__ std::ptrdiff_t column_at(const index_t* cols, int c, index_t n) {
  return static_cast<std::ptrdiff_t>(cols[c]) * n;
}

/// Whether listed column c is masked (a negative entry, kernels/cuda/columns.hpp).
__device__ __forceinline__ bool masked(const index_t* cols, int c) {
  return cols[c] < 0;
}

/// The offsets of the group of listed columns from `first` (0 past the group's end or where
/// masked); returns the columns to compute, bit g for column first + g.
__device__ __forceinline__ unsigned group_offsets(const index_t* cols, int first, int group,
                                                  index_t n, std::ptrdiff_t* off) {
  unsigned live = 0;
#pragma unroll
  for (int g = 0; g < kColumnGroup; ++g) {
    const bool use = g < group && !masked(cols, first + g);
    off[g] = use ? column_at(cols, first + g, n) : 0;
    if (use) live |= 1u << g;
  }
  return live;
}

/// Whether bit g of a group_offsets mask is set.
__device__ __forceinline__ bool on(unsigned live, int g) {
  return (live >> g) & 1u;
}

/// Row `row` of a CSR matrix times the group's live columns of x, in entry order.
template <typename V>
__device__ __forceinline__ void csr_row_sums(CsrView<V> a, index_t row, const double* x,
                                             const std::ptrdiff_t* off, unsigned live,
                                             double* sum) {
#pragma unroll
  for (int g = 0; g < kColumnGroup; ++g) sum[g] = 0.0;
  for (index_t k = a.row_ptr[row]; k < a.row_ptr[row + 1]; ++k) {
    const double v = static_cast<double>(a.values[k]);
    const index_t c = a.col_idx[k];
#pragma unroll
    for (int g = 0; g < kColumnGroup; ++g) {
      if (on(live, g)) sum[g] += v * x[off[g] + c];
    }
  }
}

/// Lane entries [begin, end) (stride kSellSlice) of a SELL row times the group's columns,
/// in entry order, padding skipped; columns below scaled_end multiply b (sell.hpp,
/// first_scaled), the others x.
template <typename V>
__device__ __forceinline__ void sell_row_sums(SellView<V> a, index_t begin, index_t end,
                                              index_t scaled_end, const double* b, const double* x,
                                              const std::ptrdiff_t* off, unsigned live,
                                              double* sum) {
#pragma unroll
  for (int g = 0; g < kColumnGroup; ++g) sum[g] = 0.0;
  for (index_t k = begin; k < end; k += kSellSlice) {
    const index_t c = a.col_idx[k];
    if (c < 0) continue;
    const double v = static_cast<double>(a.values[k]);
    const double* from = c < scaled_end ? b : x;
#pragma unroll
    for (int g = 0; g < kColumnGroup; ++g) {
      if (on(live, g)) sum[g] += v * from[off[g] + c];
    }
  }
}

}  // namespace prism::kernels::cuda::column_rows
