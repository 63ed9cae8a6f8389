#include "kernels/cuda/blas1.hpp"
#include "kernels/cuda/block_reduce.cuh"
#include "kernels/cuda/check.hpp"
#include "kernels/cuda/dependent_launch.cuh"
#include "kernels/cuda/device_info.hpp"
#include "kernels/cuda/sell.hpp"
#include "kernels/cuda/sell_sum.cuh"

#include <algorithm>

namespace prism::kernels::cuda {
namespace {

constexpr int kBlockThreads = 256;

/// Blocks per SM asked of ptxas for the IC(0) halves (sell_llt_forward_rows and
/// sell_llt_backward_rows): 8, i.e. at most 32 registers and every warp slot of an SM
/// filled. In double they took 36-40 registers unasked, and registers go to a warp 256 at a
/// time, so only 6 or 7 blocks (48 or 56 warps) would stay resident. Capped, they do not
/// spill, and the full SM pays on the 7-point grids and G3_circuit; the 27-point grids
/// (13 entries a row) are even.
constexpr int kSolveMinBlocks = 8;

/// sum_k A(row, k) x(col k) over lane `lane` of slice `slice`; `ready` as in sell_sum.
template <typename V, typename Ready>
__device__ __forceinline__ double sell_row_sum(SellView<V> a, index_t slice, int lane,
                                               const double* x, Ready ready) {
  return sell_sum(
      a.col_idx, a.values, a.slice_ptr[slice] + lane, a.slice_ptr[slice + 1],
      [x](index_t c) { return x[c]; }, ready);
}

template <typename V>
__device__ __forceinline__ double sell_row_sum(SellView<V> a, index_t slice, int lane,
                                               const double* x) {
  return sell_row_sum(a, slice, lane, x, [] {});
}

__global__ void __launch_bounds__(kBlockThreads)
    sell_spmv_kernel(index_t rows, SellView<double> a, const double* __restrict__ x,
                     double* __restrict__ y) {
  const index_t row = static_cast<index_t>(blockIdx.x) * kBlockThreads + threadIdx.x;
  if (row >= rows) return;
  y[row] = sell_row_sum(a, row / kSellSlice, row % kSellSlice, x);
}

/// Grid-stride over the rows, so a fixed number of blocks writes the partial sums.
__global__ void __launch_bounds__(kBlockThreads)
    sell_spmv_dot_kernel(index_t rows, SellView<double> a, const double* __restrict__ x,
                         double* __restrict__ y, double* __restrict__ partials) {
  wait_for_previous();
  allow_next();
  double dot = 0.0;
  for (index_t row = static_cast<index_t>(blockIdx.x) * kBlockThreads + threadIdx.x; row < rows;
       row += static_cast<index_t>(gridDim.x) * kBlockThreads) {
    const double yi = sell_row_sum(a, row / kSellSlice, row % kSellSlice, x);
    y[row] = yi;
    dot += x[row] * yi;
  }
  dot = block_sum<kBlockThreads>(dot);
  if (threadIdx.x == 0) partials[blockIdx.x] = dot;
}

/// Rows [begin, end) of one independent block, its slices from first_slice on. Columns
/// below `scaled_end` (0: none) hold l_rc * dl_c (sell.hpp, first_scaled) and multiply b,
/// the others x. b[row] is read only by the thread that writes x[row], and b below
/// scaled_end only before that range is solved (solve() runs it last): in-place solves
/// are safe. Launched after the previous kernel; with `prefetch` (every launch of a solve
/// but its first) the first entries and the inverse diagonal are read before the wait
/// (start_after_previous).
template <typename V>
__global__ void __launch_bounds__(kBlockThreads)
    sell_colorset_rows(index_t begin, index_t end, index_t first_slice, index_t scaled_end,
                       bool prefetch, SellView<V> s, const V* __restrict__ inverse_diagonal,
                       const double* b, double* x) {
  start_after_previous(prefetch);
  const index_t t = static_cast<index_t>(blockIdx.x) * kBlockThreads + threadIdx.x;
  const index_t row = begin + t;
  if (row >= end) {
    wait_for_previous();
    return;
  }
  const index_t slice = first_slice + t / kSellSlice;
  const double scale = static_cast<double>(inverse_diagonal[row]);
  const double sum = sell_sum(
      s.col_idx, s.values, s.slice_ptr[slice] + t % kSellSlice, s.slice_ptr[slice + 1],
      [=](index_t c) { return c < scaled_end ? b[c] : x[c]; }, wait_for_previous);
  x[row] = (b[row] - sum) * scale;
}

/// partials[blockIdx.x] = sum of `value` over the block (a dot's first pass).
__device__ __forceinline__ void write_block_partial(double value, double* __restrict__ partials) {
  value = block_sum<kBlockThreads>(value);
  if (threadIdx.x == 0) partials[blockIdx.x] = value;
}

/// Forward half of (L L^T)^{-1}: rows of one range of L after the first. y on the first
/// range [0, first_end) is b * dl, never formed: L's entries in those columns hold
/// l_rc * dl_c (sell.hpp, first_scaled) and multiply b; rows from z_begin on (no entry of L^T)
/// also write z = y * du, and the last range writes only z. With Dot, partials[block] =
/// the block's part of |y|^2 (sell.hpp, sell_llt_forward).
/// Launched after the previous kernel (launch_after_previous): with `prefetch` the factor
/// (layout, values, diagonals) is read before waiting for that kernel, the vectors after;
/// that is safe only behind another launch of the same half, which never writes the
/// factor and let this one start only after the caller's kernels were done (the first
/// launch of a half, behind a kernel of the caller's, runs without prefetch).
/// A grid-stride loop over the rows with at most the blocks that stay resident
/// (solve_grid), so that the blocks end together instead of the last ones trailing.
template <typename V, bool Dot>
__global__ void __launch_bounds__(kBlockThreads, kSolveMinBlocks)
    sell_llt_forward_rows(index_t begin, index_t end, index_t first_slice, index_t first_end,
                          index_t z_begin, bool last, bool prefetch, SellView<V> l,
                          const V* __restrict__ dl, const V* __restrict__ du,
                          const double* __restrict__ b, double* y, double* __restrict__ z,
                          double* __restrict__ partials) {
  start_after_previous(prefetch);
  const index_t rows = end - begin;
  index_t t = static_cast<index_t>(blockIdx.x) * kBlockThreads + threadIdx.x;
  if (t >= rows) wait_for_previous();
  double square = 0.0;
  for (; t < rows; t += static_cast<index_t>(gridDim.x) * kBlockThreads) {
    const index_t row = begin + t;
    const index_t slice = first_slice + t / kSellSlice;
    const double scale = static_cast<double>(dl[row]);
    const bool writes_z = row >= z_begin;
    const double scale_z = writes_z ? static_cast<double>(du[row]) : 0.0;
    // The first range's own step, (b - 0) * dl, rounds as b * dl does.
    const double sum = sell_sum(
        l.col_idx, l.values, l.slice_ptr[slice] + t % kSellSlice, l.slice_ptr[slice + 1],
        [=](index_t c) { return c < first_end ? b[c] : y[c]; }, wait_for_previous);
    const double v = (b[row] - sum) * scale;
    if (writes_z) z[row] = v * scale_z;
    if (!last) y[row] = v;
    square += v * v;
  }
  if constexpr (Dot) write_block_partial(square, partials);
}

/// Backward half: rows of one range of L^T, those from z_begin on done already. With
/// Dot, partials[block] = the block's part of |y|^2 over its rows of the first range
/// (y = b * dl there, formed here; the forward half has the other rows).
/// Launched after the previous kernel, as the forward half; a grid-stride loop, as it.
template <typename V, bool Dot>
__global__ void __launch_bounds__(kBlockThreads, kSolveMinBlocks)
    sell_llt_backward_rows(index_t begin, index_t end, index_t first_slice, index_t first_end,
                           index_t z_begin, bool prefetch, SellView<V> u, const V* __restrict__ dl,
                           const V* __restrict__ du, const double* __restrict__ b,
                           const double* __restrict__ y, double* z, double* __restrict__ partials) {
  start_after_previous(prefetch);
  const index_t rows = min(end, z_begin) - begin;
  index_t t = static_cast<index_t>(blockIdx.x) * kBlockThreads + threadIdx.x;
  if (t >= rows) wait_for_previous();
  double own_square = 0.0;
  for (; t < rows; t += static_cast<index_t>(gridDim.x) * kBlockThreads) {
    const index_t row = begin + t;
    const index_t slice = first_slice + t / kSellSlice;
    const double scale = static_cast<double>(du[row]);
    const double own_scale = row < first_end ? static_cast<double>(dl[row]) : 0.0;
    const double sum = sell_sum(
        u.col_idx, u.values, u.slice_ptr[slice] + t % kSellSlice, u.slice_ptr[slice + 1],
        [z](index_t c) { return z[c]; }, wait_for_previous);
    const double own = row < first_end ? b[row] * own_scale : y[row];
    z[row] = (own - sum) * scale;
    if (row < first_end) own_square += own * own;
  }
  if constexpr (Dot) write_block_partial(own_square, partials);
}

int blocks_for(index_t n) {
  return static_cast<int>((static_cast<long long>(n) + kBlockThreads - 1) / kBlockThreads);
}

/// Blocks of a grid-stride launch over n rows: one a row up to the blocks of kBlockThreads
/// the device keeps resident.
int solve_grid(index_t n) {
  const int resident = resident_threads() / kBlockThreads;
  return resident > 0 ? std::min(blocks_for(n), resident) : blocks_for(n);
}

/// Lower: ranges first to last; first_scaled (the first range's dl in L's entries): ranges 1 to
/// last, then the first, whose b the others read. Upper: last to first.
template <typename V>
void solve(SellView<V> strict, const V* inverse_diagonal, const std::vector<index_t>& range_ptr,
           const std::vector<index_t>& range_slice, bool lower, bool first_scaled, const double* b,
           double* x, cudaStream_t stream) {
  const std::size_t ranges = range_ptr.size() - 1;
  const index_t scaled_end = first_scaled && lower && ranges > 1 ? range_ptr[1] : 0;
  bool prefetch = false;  // only behind a launch of this loop
  for (std::size_t i = 0; i < ranges; ++i) {
    const std::size_t r = !lower ? ranges - 1 - i : (scaled_end > 0 ? (i + 1) % ranges : i);
    const index_t begin = range_ptr[r], end = range_ptr[r + 1];
    if (end <= begin) continue;
    launch_after_previous(sell_colorset_rows<V>, blocks_for(end - begin), kBlockThreads, stream,
                          begin, end, range_slice[r], scaled_end, prefetch, strict,
                          inverse_diagonal, b, x);
    prefetch = true;
  }
}

/// First row whose backward step the forward half does (sell.hpp, sell_llt_forward): the
/// lower triangle's last range, and before it the rows of the upper triangle's last range
/// (they have no entry of L^T), but not the first range (no forward launch there). One
/// range: every row.
template <typename V>
index_t folded_begin(const SellTriangle<V>& lower, const SellTriangle<V>& upper) {
  return sell_llt_folded_begin(*lower.range_ptr, *upper.range_ptr);
}

template <typename V>
int llt_forward(const SellTriangle<V>& lower, const SellTriangle<V>& upper, const double* b,
                double* y, double* z, double* partials, cudaStream_t stream) {
  const std::vector<index_t>& ptr = *lower.range_ptr;
  if (ptr.size() < 2) return 0;
  const std::size_t ranges = ptr.size() - 1;
  const index_t first_end = ptr[1];
  const index_t z_begin = folded_begin(lower, upper);
  const bool dot = partials != nullptr;
  int count = 0;
  bool prefetch = false;  // only behind a launch of this loop
  // The first range is skipped unless it is also the last (a diagonal triangle).
  for (std::size_t r = ranges == 1 ? 0 : 1; r < ranges; ++r) {
    const index_t begin = ptr[r], end = ptr[r + 1];
    if (end <= begin) continue;
    const int blocks = solve_grid(end - begin);
    launch_after_previous(dot ? sell_llt_forward_rows<V, true> : sell_llt_forward_rows<V, false>,
                          blocks, kBlockThreads, stream, begin, end, (*lower.range_slice)[r],
                          first_end, z_begin, r + 1 == ranges, prefetch, lower.strict,
                          lower.inverse_diagonal, upper.inverse_diagonal, b, y, z,
                          dot ? partials + count : nullptr);
    if (dot) count += blocks;
    prefetch = true;
  }
  return count;
}

template <typename V>
int llt_backward(const SellTriangle<V>& upper, const SellTriangle<V>& lower, const double* b,
                 const double* y, double* z, double* partials, cudaStream_t stream) {
  const std::vector<index_t>& lp = *lower.range_ptr;
  const std::vector<index_t>& up = *upper.range_ptr;
  if (lp.size() < 2) return 0;
  const index_t first_end = lp[1], z_begin = folded_begin(lower, upper);
  int count = 0;
  bool prefetch = false;  // only behind a launch of this loop
  for (std::size_t i = 0; i + 1 < up.size(); ++i) {
    const std::size_t r = up.size() - 2 - i;
    const index_t begin = up[r], end = std::min(up[r + 1], z_begin);
    if (end <= begin) continue;
    // Only rows of the first range add to the dot here.
    const bool dot = partials != nullptr && begin < first_end;
    const int blocks = solve_grid(end - begin);
    launch_after_previous(dot ? sell_llt_backward_rows<V, true> : sell_llt_backward_rows<V, false>,
                          blocks, kBlockThreads, stream, begin, end, (*upper.range_slice)[r],
                          first_end, z_begin, prefetch, upper.strict, lower.inverse_diagonal,
                          upper.inverse_diagonal, b, y, z, dot ? partials + count : nullptr);
    if (dot) count += blocks;
    prefetch = true;
  }
  return count;
}

}  // namespace

int sell_llt_forward(const SellTriangle<double>& lower, const SellTriangle<double>& upper,
                     const double* b, double* y, double* z, double* partials, cudaStream_t stream) {
  return llt_forward(lower, upper, b, y, z, partials, stream);
}
int sell_llt_forward(const SellTriangle<float>& lower, const SellTriangle<float>& upper,
                     const double* b, double* y, double* z, double* partials, cudaStream_t stream) {
  return llt_forward(lower, upper, b, y, z, partials, stream);
}
int sell_llt_backward(const SellTriangle<double>& upper, const SellTriangle<double>& lower,
                      const double* b, const double* y, double* z, double* partials,
                      cudaStream_t stream) {
  return llt_backward(upper, lower, b, y, z, partials, stream);
}
int sell_llt_backward(const SellTriangle<float>& upper, const SellTriangle<float>& lower,
                      const double* b, const double* y, double* z, double* partials,
                      cudaStream_t stream) {
  return llt_backward(upper, lower, b, y, z, partials, stream);
}

index_t sell_llt_folded_begin(const std::vector<index_t>& lower_ranges,
                              const std::vector<index_t>& upper_ranges) {
  const std::vector<index_t>& lp = lower_ranges;
  const std::vector<index_t>& up = upper_ranges;
  if (lp.size() <= 2) return 0;
  const index_t first_end = lp[1], last_begin = lp[lp.size() - 2];
  const index_t upper_last = up.size() >= 2 ? up[up.size() - 2] : last_begin;
  return std::max(first_end, std::min(last_begin, upper_last));
}

int sell_llt_dot_capacity(const std::vector<index_t>& lower_ranges,
                          const std::vector<index_t>& upper_ranges) {
  const index_t rows = lower_ranges.empty() ? 0 : lower_ranges.back();
  // Each half covers every row at most once, one partial per started block of a range.
  return 2 * blocks_for(rows) + static_cast<int>(lower_ranges.size() + upper_ranges.size());
}

void sell_spmv(index_t rows, SellView<double> a, const double* x, double* y, cudaStream_t stream) {
  if (rows == 0) return;
  sell_spmv_kernel<<<blocks_for(rows), kBlockThreads, 0, stream>>>(rows, a, x, y);
  PRISM_CUDA_CHECK_LAUNCH();
}

int sell_spmv_dot(index_t rows, SellView<double> a, const double* x, double* y, double* partials,
                  cudaStream_t stream) {
  const int blocks = std::max(1, std::min(blocks_for(rows), kReductionBlocks));
  launch_after_previous(sell_spmv_dot_kernel, blocks, kBlockThreads, stream, rows, a, x, y,
                        partials);
  return blocks;
}

void sell_colorset_solve(SellView<double> strict, const double* inverse_diagonal,
                         const std::vector<index_t>& range_ptr,
                         const std::vector<index_t>& range_slice, bool lower, bool first_scaled,
                         const double* b, double* x, cudaStream_t stream) {
  solve(strict, inverse_diagonal, range_ptr, range_slice, lower, first_scaled, b, x, stream);
}

void sell_colorset_solve(SellView<float> strict, const float* inverse_diagonal,
                         const std::vector<index_t>& range_ptr,
                         const std::vector<index_t>& range_slice, bool lower, bool first_scaled,
                         const double* b, double* x, cudaStream_t stream) {
  solve(strict, inverse_diagonal, range_ptr, range_slice, lower, first_scaled, b, x, stream);
}

}  // namespace prism::kernels::cuda
