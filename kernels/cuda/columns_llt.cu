// The two halves of z = (L L^T)^{-1} b (kernels/cuda/sell.hpp, sell_llt_forward and
// sell_llt_backward) for several columns: the same launches, grids and sums per column,
// each row of the factor read once for a group of up to kColumnGroup columns (grid y).

#include "kernels/cuda/block_reduce.cuh"
#include "kernels/cuda/check.hpp"
#include "kernels/cuda/columns.hpp"
#include "kernels/cuda/columns_rows.cuh"
#include "kernels/cuda/device_info.hpp"

#include <algorithm>
#include <cstddef>

namespace prism::kernels::cuda {
namespace {

using column_rows::group_offsets;
using column_rows::on;
using column_rows::sell_row_sums;

constexpr int kThreads = 256;  // sell.cu's, for its grids and block sums

int blocks_for(index_t n) {
  return static_cast<int>((static_cast<long long>(n) + kThreads - 1) / kThreads);
}

/// sell.cu's solve_grid: one block a row range of kThreads up to the resident blocks.
int solve_grid(index_t n) {
  const int resident = resident_threads() / kThreads;
  return resident > 0 ? std::min(blocks_for(n), resident) : blocks_for(n);
}

int groups_of(int count) {
  return (count + kColumnGroup - 1) / kColumnGroup;
}

/// partials[(first + g) * stride + blockIdx.x] = the block's sum of part[g], per column
/// (a masked column's 0, unread). `group` is the same over the block: every thread takes
/// part in each block_sum, and the barrier frees its shared slots for the next.
__device__ __forceinline__ void write_group_partials(const double* part, int first, int group,
                                                     int stride, double* __restrict__ partials) {
#pragma unroll
  for (int g = 0; g < kColumnGroup; ++g) {
    if (g >= group) break;
    const double total = block_sum<kThreads>(part[g]);
    if (threadIdx.x == 0) {
      partials[static_cast<std::ptrdiff_t>(first + g) * stride + blockIdx.x] = total;
    }
    __syncthreads();
  }
}

/// sell.cu's sell_llt_forward_rows for the group of listed columns from blockIdx.y *
/// kColumnGroup (blocks of n rows).
template <typename V, bool Dot>
__global__ void __launch_bounds__(kThreads)
    llt_forward_rows_columns(index_t n, index_t begin, index_t end, index_t first_slice,
                             index_t first_end, index_t z_begin, bool last, SellView<V> l,
                             const V* __restrict__ dl, const V* __restrict__ du,
                             const index_t* __restrict__ cols, int count, const double* b,
                             double* y, double* z, double* __restrict__ partials, int stride) {
  const int first = static_cast<int>(blockIdx.y) * kColumnGroup;
  const int group = min(kColumnGroup, count - first);
  std::ptrdiff_t off[kColumnGroup];
  const unsigned live = group_offsets(cols, first, group, n, off);
  double square[kColumnGroup];
#pragma unroll
  for (int g = 0; g < kColumnGroup; ++g) square[g] = 0.0;
  const index_t rows = end - begin;
  for (index_t t = static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x; t < rows;
       t += static_cast<index_t>(gridDim.x) * kThreads) {
    const index_t row = begin + t;
    const index_t slice = first_slice + t / kSellSlice;
    const double scale = static_cast<double>(dl[row]);
    const bool writes_z = row >= z_begin;
    const double scale_z = writes_z ? static_cast<double>(du[row]) : 0.0;
    double sum[kColumnGroup];
    sell_row_sums(l, l.slice_ptr[slice] + t % kSellSlice, l.slice_ptr[slice + 1], first_end, b, y,
                  off, live, sum);
#pragma unroll
    for (int g = 0; g < kColumnGroup; ++g) {
      if (!on(live, g)) continue;
      const double v = (b[off[g] + row] - sum[g]) * scale;
      if (writes_z) z[off[g] + row] = v * scale_z;
      if (!last) y[off[g] + row] = v;
      square[g] += v * v;
    }
  }
  if constexpr (Dot) write_group_partials(square, first, group, stride, partials);
}

/// sell.cu's sell_llt_backward_rows for the group of listed columns from blockIdx.y *
/// kColumnGroup.
template <typename V, bool Dot>
__global__ void __launch_bounds__(kThreads)
    llt_backward_rows_columns(index_t n, index_t begin, index_t end, index_t first_slice,
                              index_t first_end, index_t z_begin, SellView<V> u,
                              const V* __restrict__ dl, const V* __restrict__ du,
                              const index_t* __restrict__ cols, int count, const double* b,
                              const double* y, double* z, double* __restrict__ partials,
                              int stride) {
  const int first = static_cast<int>(blockIdx.y) * kColumnGroup;
  const int group = min(kColumnGroup, count - first);
  std::ptrdiff_t off[kColumnGroup];
  const unsigned live = group_offsets(cols, first, group, n, off);
  double own_square[kColumnGroup];
#pragma unroll
  for (int g = 0; g < kColumnGroup; ++g) own_square[g] = 0.0;
  const index_t rows = min(end, z_begin) - begin;
  for (index_t t = static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x; t < rows;
       t += static_cast<index_t>(gridDim.x) * kThreads) {
    const index_t row = begin + t;
    const index_t slice = first_slice + t / kSellSlice;
    const double scale = static_cast<double>(du[row]);
    const bool in_first = row < first_end;
    const double own_scale = in_first ? static_cast<double>(dl[row]) : 0.0;
    double sum[kColumnGroup];
    sell_row_sums(u, u.slice_ptr[slice] + t % kSellSlice, u.slice_ptr[slice + 1], 0, z, z, off,
                  live, sum);
#pragma unroll
    for (int g = 0; g < kColumnGroup; ++g) {
      if (!on(live, g)) continue;
      const double own = in_first ? b[off[g] + row] * own_scale : y[off[g] + row];
      z[off[g] + row] = (own - sum[g]) * scale;
      if (in_first) own_square[g] += own * own;
    }
  }
  if constexpr (Dot) write_group_partials(own_square, first, group, stride, partials);
}

template <typename V>
int forward(const SellTriangle<V>& lower, const SellTriangle<V>& upper, const index_t* cols,
            int count, const double* b, double* y, double* z, double* partials, int stride,
            cudaStream_t stream) {
  const std::vector<index_t>& ptr = *lower.range_ptr;
  if (ptr.size() < 2 || count == 0) return 0;
  const std::size_t ranges = ptr.size() - 1;
  const index_t n = ptr.back();
  const index_t first_end = ptr[1];
  const index_t z_begin = sell_llt_folded_begin(*lower.range_ptr, *upper.range_ptr);
  const bool dot = partials != nullptr;
  int used = 0;
  for (std::size_t r = ranges == 1 ? 0 : 1; r < ranges; ++r) {
    const index_t begin = ptr[r], end = ptr[r + 1];
    if (end <= begin) continue;
    const int blocks = solve_grid(end - begin);
    const dim3 grid(blocks, groups_of(count));
    const auto kernel =
        dot ? llt_forward_rows_columns<V, true> : llt_forward_rows_columns<V, false>;
    kernel<<<grid, kThreads, 0, stream>>>(n, begin, end, (*lower.range_slice)[r], first_end,
                                          z_begin, r + 1 == ranges, lower.strict,
                                          lower.inverse_diagonal, upper.inverse_diagonal, cols,
                                          count, b, y, z, dot ? partials + used : nullptr, stride);
    PRISM_CUDA_CHECK_LAUNCH();
    if (dot) used += blocks;
  }
  return used;
}

template <typename V>
int backward(const SellTriangle<V>& upper, const SellTriangle<V>& lower, const index_t* cols,
             int count, const double* b, const double* y, double* z, double* partials, int stride,
             cudaStream_t stream) {
  const std::vector<index_t>& lp = *lower.range_ptr;
  const std::vector<index_t>& up = *upper.range_ptr;
  if (lp.size() < 2 || count == 0) return 0;
  const index_t n = lp.back();
  const index_t first_end = lp[1], z_begin = sell_llt_folded_begin(lp, up);
  int used = 0;
  for (std::size_t i = 0; i + 1 < up.size(); ++i) {
    const std::size_t r = up.size() - 2 - i;
    const index_t begin = up[r], end = std::min(up[r + 1], z_begin);
    if (end <= begin) continue;
    const bool dot = partials != nullptr && begin < first_end;  // sell.cu's rule
    const int blocks = solve_grid(end - begin);
    const dim3 grid(blocks, groups_of(count));
    const auto kernel =
        dot ? llt_backward_rows_columns<V, true> : llt_backward_rows_columns<V, false>;
    kernel<<<grid, kThreads, 0, stream>>>(n, begin, end, (*upper.range_slice)[r], first_end,
                                          z_begin, upper.strict, lower.inverse_diagonal,
                                          upper.inverse_diagonal, cols, count, b, y, z,
                                          dot ? partials + used : nullptr, stride);
    PRISM_CUDA_CHECK_LAUNCH();
    if (dot) used += blocks;
  }
  return used;
}

}  // namespace

int sell_llt_forward_columns(const SellTriangle<double>& lower, const SellTriangle<double>& upper,
                             const index_t* cols, int count, const double* b, double* y, double* z,
                             double* partials, int stride, cudaStream_t stream) {
  return forward(lower, upper, cols, count, b, y, z, partials, stride, stream);
}
int sell_llt_forward_columns(const SellTriangle<float>& lower, const SellTriangle<float>& upper,
                             const index_t* cols, int count, const double* b, double* y, double* z,
                             double* partials, int stride, cudaStream_t stream) {
  return forward(lower, upper, cols, count, b, y, z, partials, stride, stream);
}
int sell_llt_backward_columns(const SellTriangle<double>& upper, const SellTriangle<double>& lower,
                              const index_t* cols, int count, const double* b, const double* y,
                              double* z, double* partials, int stride, cudaStream_t stream) {
  return backward(upper, lower, cols, count, b, y, z, partials, stride, stream);
}
int sell_llt_backward_columns(const SellTriangle<float>& upper, const SellTriangle<float>& lower,
                              const index_t* cols, int count, const double* b, const double* y,
                              double* z, double* partials, int stride, cudaStream_t stream) {
  return backward(upper, lower, cols, count, b, y, z, partials, stride, stream);
}

}  // namespace prism::kernels::cuda
