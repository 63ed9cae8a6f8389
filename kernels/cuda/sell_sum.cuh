#pragma once
// The sum of one row of a SELL-32 layout (kernels/sell.hpp) against a gathered vector,
// shared by the SELL kernels (kernels/cuda/sell.cu) and line IC's solves
// (kernels/cuda/line_ic.cu).

#include "kernels/sell.hpp"

namespace prism::kernels::cuda {

/// Entries fetched together by a thread before any is used: one row's loop is a chain
/// of dependent loads (column, then x[column]), so with one at a time a thread of a long
/// row waits a memory latency per entry (rows of 13 entries left of the diagonal gain;
/// 7-point grids are unchanged).
inline constexpr int kSellBatch = 4;

/// sum over the stored entries [begin, end) of one lane (stride kSellSlice) of
/// value * x(column), padding (column -1) skipped, in entry order (batching changes only
/// when the loads are issued, not the sum). `ready()` runs once, after the first batch of
/// columns and values is requested and before the first x(column): the point where a
/// dependent launch waits for the vector.
template <typename V, typename Gather, typename Ready>
__device__ __forceinline__ double sell_sum(const index_t* __restrict__ col_idx,
                                           const V* __restrict__ values, index_t begin, index_t end,
                                           Gather x, Ready ready) {
  double sum = 0.0;
  index_t c[kSellBatch];
  V v[kSellBatch];
#pragma unroll
  for (int u = 0; u < kSellBatch; ++u) {
    const index_t k = begin + u * kSellSlice;
    c[u] = k < end ? col_idx[k] : -1;
    v[u] = k < end ? values[k] : V(0);
  }
  ready();
  index_t k = begin;
  for (;;) {
#pragma unroll
    for (int u = 0; u < kSellBatch; ++u) {
      if (c[u] >= 0) sum += static_cast<double>(v[u]) * x(c[u]);
    }
    k += kSellBatch * kSellSlice;
    if (k >= end) break;
#pragma unroll
    for (int u = 0; u < kSellBatch; ++u) {
      const index_t kk = k + u * kSellSlice;
      c[u] = kk < end ? col_idx[kk] : -1;
      v[u] = kk < end ? values[kk] : V(0);
    }
  }
  return sum;
}

template <typename V, typename Gather>
__device__ __forceinline__ double sell_sum(const index_t* __restrict__ col_idx,
                                           const V* __restrict__ values, index_t begin, index_t end,
                                           Gather x) {
  return sell_sum(col_idx, values, begin, end, x, [] {});
}

}  // namespace prism::kernels::cuda
