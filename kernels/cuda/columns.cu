#include "kernels/cuda/columns.hpp"

#include "kernels/cg_scalars.hpp"
#include "kernels/cuda/blas1.hpp"
#include "kernels/cuda/block_reduce.cuh"
#include "kernels/cuda/check.hpp"
#include "kernels/cuda/columns_rows.cuh"

#include <math_constants.h>

#include <algorithm>
#include <cstddef>

namespace prism::kernels::cuda {
namespace {

using column_rows::column_at;
using column_rows::csr_row_sums;
using column_rows::group_offsets;
using column_rows::masked;
using column_rows::on;
using column_rows::sell_row_sums;

// blas1.cu's launch shape, so that each column's sums are those of the one-column kernels.
constexpr int kThreads = 256;

int grid_for(index_t n) {
  const long long blocks = (static_cast<long long>(n) + kThreads - 1) / kThreads;
  return static_cast<int>(std::max<long long>(1, std::min<long long>(blocks, 65535LL * 16)));
}

int reduction_grid(index_t n) {
  return std::min(grid_for(n), kReductionBlocks);
}

int row_blocks(index_t rows) {
  return static_cast<int>((static_cast<long long>(rows) + kThreads - 1) / kThreads);
}

__device__ bool is_positive(double v) {
  return v > 0.0 && isfinite(v);
}

__global__ void spmm_kernel(CsrView<double> a, const index_t* __restrict__ cols, int count,
                            const double* __restrict__ x, double* __restrict__ y) {
  const index_t row = static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (row >= a.rows) return;
  for (int first = 0; first < count; first += kColumnGroup) {
    const int group = min(kColumnGroup, count - first);
    std::ptrdiff_t off[kColumnGroup];
    double sum[kColumnGroup];
    const unsigned live = group_offsets(cols, first, group, a.rows, off);
    csr_row_sums(a, row, x, off, live, sum);
#pragma unroll
    for (int g = 0; g < kColumnGroup; ++g) {
      if (on(live, g)) y[off[g] + row] = sum[g];
    }
  }
}

__global__ void sell_spmm_kernel(index_t rows, SellView<double> a, const index_t* __restrict__ cols,
                                 int count, const double* __restrict__ x, double* __restrict__ y) {
  const index_t row = static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (row >= rows) return;
  const index_t slice = row / kSellSlice;
  const index_t begin = a.slice_ptr[slice] + row % kSellSlice, end = a.slice_ptr[slice + 1];
  for (int first = 0; first < count; first += kColumnGroup) {
    const int group = min(kColumnGroup, count - first);
    std::ptrdiff_t off[kColumnGroup];
    double sum[kColumnGroup];
    const unsigned live = group_offsets(cols, first, group, rows, off);
    sell_row_sums(a, begin, end, 0, x, x, off, live, sum);
#pragma unroll
    for (int g = 0; g < kColumnGroup; ++g) {
      if (on(live, g)) y[off[g] + row] = sum[g];
    }
  }
}

/// sell.cu's sell_spmv_dot_kernel for the group of up to kColumnGroup listed columns from
/// blockIdx.y * kColumnGroup: the same grid-stride rows and block sums per column, so each
/// column's y and partials are sell_spmv_dot's bits; the matrix is read once per group.
/// partials[c * kReductionBlocks + blockIdx.x] for listed column c.
__global__ void __launch_bounds__(kThreads)
    sell_spmm_dot_kernel(index_t rows, SellView<double> a, const index_t* __restrict__ cols,
                         int count, const double* __restrict__ x, double* __restrict__ y,
                         double* __restrict__ partials) {
  const int first = static_cast<int>(blockIdx.y) * kColumnGroup;
  const int group = min(kColumnGroup, count - first);
  std::ptrdiff_t off[kColumnGroup];
  const unsigned live = group_offsets(cols, first, group, rows, off);
  double dot[kColumnGroup];
#pragma unroll
  for (int g = 0; g < kColumnGroup; ++g) dot[g] = 0.0;
  for (index_t row = static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x; row < rows;
       row += static_cast<index_t>(gridDim.x) * kThreads) {
    const index_t slice = row / kSellSlice;
    const index_t begin = a.slice_ptr[slice] + row % kSellSlice, end = a.slice_ptr[slice + 1];
    double sum[kColumnGroup];
    sell_row_sums(a, begin, end, 0, x, x, off, live, sum);
#pragma unroll
    for (int g = 0; g < kColumnGroup; ++g) {
      if (on(live, g)) {
        y[off[g] + row] = sum[g];
        dot[g] += x[off[g] + row] * sum[g];
      }
    }
  }
  // `group` is the same over the block: every thread takes part in each block_sum (a
  // masked column's is 0, unread), and the barrier frees its shared slots for the next.
#pragma unroll
  for (int g = 0; g < kColumnGroup; ++g) {
    if (g >= group) break;
    const double total = block_sum<kThreads>(dot[g]);
    if (threadIdx.x == 0) partials[(first + g) * kReductionBlocks + blockIdx.x] = total;
    __syncthreads();
  }
}

/// blas1.cu's dot_partials_kernel for column blockIdx.y.
__global__ void dot_partials_columns(index_t n, const index_t* __restrict__ cols,
                                     const double* __restrict__ x, const double* __restrict__ y,
                                     double* __restrict__ partials) {
  if (masked(cols, blockIdx.y)) return;  // uniform over the block
  const std::ptrdiff_t o = column_at(cols, blockIdx.y, n);
  double sum = 0.0;
  for (index_t i = blockIdx.x * kThreads + threadIdx.x; i < n; i += gridDim.x * kThreads) {
    sum += x[o + i] * y[o + i];
  }
  sum = block_sum<kThreads>(sum);
  if (threadIdx.x == 0) partials[blockIdx.y * kReductionBlocks + blockIdx.x] = sum;
}

/// blas1.cu's finish_sum for column blockIdx.x: s[col][slot] = the sum of its partials,
/// `blocks` of them from blockIdx.x * stride.
__global__ void finish_columns(const index_t* __restrict__ cols,
                               const double* __restrict__ partials, int blocks, int stride,
                               double* __restrict__ s, int slot) {
  if (masked(cols, blockIdx.x)) return;
  const double* mine = partials + static_cast<std::ptrdiff_t>(blockIdx.x) * stride;
  double sum = 0.0;
  for (int i = threadIdx.x; i < blocks; i += kThreads) sum += mine[i];
  sum = block_sum<kThreads>(sum);
  if (threadIdx.x == 0) s[cols[blockIdx.x] * kCgScalarCount + slot] = sum;
}

__global__ void axpy_columns_kernel(index_t n, const index_t* __restrict__ cols, double a,
                                    const double* __restrict__ x, double* __restrict__ y) {
  if (masked(cols, blockIdx.y)) return;  // uniform over the block
  const std::ptrdiff_t o = column_at(cols, blockIdx.y, n);
  for (index_t i = blockIdx.x * kThreads + threadIdx.x; i < n; i += gridDim.x * kThreads) {
    y[o + i] += a * x[o + i];
  }
}

__global__ void copy_columns_kernel(index_t n, const index_t* __restrict__ cols,
                                    const double* __restrict__ x, double* __restrict__ y) {
  if (masked(cols, blockIdx.y)) return;  // uniform over the block
  const std::ptrdiff_t o = column_at(cols, blockIdx.y, n);
  for (index_t i = blockIdx.x * kThreads + threadIdx.x; i < n; i += gridDim.x * kThreads) {
    y[o + i] = x[o + i];
  }
}

__global__ void pointwise_columns_kernel(index_t n, const index_t* __restrict__ cols,
                                         const double* __restrict__ d, const double* __restrict__ x,
                                         double* __restrict__ y) {
  if (masked(cols, blockIdx.y)) return;  // uniform over the block
  const std::ptrdiff_t o = column_at(cols, blockIdx.y, n);
  for (index_t i = blockIdx.x * kThreads + threadIdx.x; i < n; i += gridDim.x * kThreads) {
    y[o + i] = d[i] * x[o + i];
  }
}

/// pointwise_columns_kernel and dot_partials_columns of x and y in one pass (Jacobi's
/// z = d .* r and r . z): the same products and, per column, the same partial sums.
__global__ void pointwise_dot_columns_kernel(index_t n, const index_t* __restrict__ cols,
                                             const double* __restrict__ d,
                                             const double* __restrict__ x, double* __restrict__ y,
                                             double* __restrict__ partials) {
  if (masked(cols, blockIdx.y)) return;  // uniform over the block
  const std::ptrdiff_t o = column_at(cols, blockIdx.y, n);
  double sum = 0.0;
  for (index_t i = blockIdx.x * kThreads + threadIdx.x; i < n; i += gridDim.x * kThreads) {
    const double xi = x[o + i];
    const double yi = d[i] * xi;
    y[o + i] = yi;
    sum += xi * yi;
  }
  sum = block_sum<kThreads>(sum);
  if (threadIdx.x == 0) partials[blockIdx.y * kReductionBlocks + blockIdx.x] = sum;
}

__device__ double cg_alpha(const double* sc) {
  const double rz = sc[kCgRz], pq = sc[kCgPq];
  return is_positive(rz) && is_positive(pq) ? rz / pq : 0.0;
}

/// x += alpha p (X: where x is updated here) and r -= alpha q with the block's part of
/// r . r; Defer: s[alpha] = alpha, the alpha p x owes (read by no block of this kernel).
template <bool X, bool Defer>
__global__ void cg_update_columns_kernel(index_t n, const index_t* __restrict__ cols,
                                         const double* __restrict__ p, const double* __restrict__ q,
                                         double* __restrict__ x, double* __restrict__ r,
                                         double* __restrict__ s, double* __restrict__ partials) {
  if (masked(cols, blockIdx.y)) return;  // uniform over the block
  double* sc = s + cols[blockIdx.y] * kCgScalarCount;
  const double alpha = cg_alpha(sc);
  const std::ptrdiff_t o = column_at(cols, blockIdx.y, n);
  double sum = 0.0;
  for (index_t i = blockIdx.x * kThreads + threadIdx.x; i < n; i += gridDim.x * kThreads) {
    if constexpr (X) x[o + i] += alpha * p[o + i];
    const double ri = r[o + i] - alpha * q[o + i];
    r[o + i] = ri;
    sum += ri * ri;
  }
  sum = block_sum<kThreads>(sum);
  if (threadIdx.x == 0) {
    partials[blockIdx.y * kReductionBlocks + blockIdx.x] = sum;
    if (Defer && blockIdx.x == 0) sc[kCgAlpha] = alpha;
  }
}

/// p = z + beta p; with X, first x += s[alpha] p where x owes it (s[alpha] not NaN).
template <bool X>
__global__ void cg_direction_columns_kernel(index_t n, const index_t* __restrict__ cols,
                                            const double* __restrict__ z, double* __restrict__ p,
                                            double* __restrict__ x, const double* __restrict__ s) {
  if (masked(cols, blockIdx.y)) return;  // uniform over the block
  const double* sc = s + cols[blockIdx.y] * kCgScalarCount;
  const double beta = is_positive(sc[kCgRz]) ? sc[kCgRzNew] / sc[kCgRz] : 0.0;
  const double alpha = X ? sc[kCgAlpha] : CUDART_NAN;
  const std::ptrdiff_t o = column_at(cols, blockIdx.y, n);
  if (isnan(alpha)) {
    for (index_t i = blockIdx.x * kThreads + threadIdx.x; i < n; i += gridDim.x * kThreads) {
      p[o + i] = z[o + i] + beta * p[o + i];
    }
    return;
  }
  for (index_t i = blockIdx.x * kThreads + threadIdx.x; i < n; i += gridDim.x * kThreads) {
    const double pi = p[o + i];
    x[o + i] += alpha * pi;
    p[o + i] = z[o + i] + beta * pi;
  }
}

/// x += s[alpha] p where x owes it.
__global__ void cg_finish_columns_kernel(index_t n, const index_t* __restrict__ cols,
                                         const double* __restrict__ p, double* __restrict__ x,
                                         const double* __restrict__ s) {
  if (masked(cols, blockIdx.y)) return;  // uniform over the block
  const double alpha = s[cols[blockIdx.y] * kCgScalarCount + kCgAlpha];
  if (isnan(alpha)) return;
  const std::ptrdiff_t o = column_at(cols, blockIdx.y, n);
  for (index_t i = blockIdx.x * kThreads + threadIdx.x; i < n; i += gridDim.x * kThreads) {
    x[o + i] += alpha * p[o + i];
  }
}

/// After every block of the kernel before has read the scalars (stream order): with
/// `rotate`, s[rz] = s[rz_new]; with `settle`, s[alpha] = NaN (x owes nothing).
__global__ void rotate_rz_columns(const index_t* __restrict__ cols, int count,
                                  double* __restrict__ s, bool rotate, bool settle) {
  for (int c = threadIdx.x; c < count; c += blockDim.x) {
    if (masked(cols, c)) continue;
    double* sc = s + cols[c] * kCgScalarCount;
    if (rotate) sc[kCgRz] = sc[kCgRzNew];
    if (settle) sc[kCgAlpha] = CUDART_NAN;
  }
}

/// Rows [begin, end) of one color-set step for every listed column, one thread a row.
template <typename V>
__global__ void colorset_rows_columns(index_t begin, index_t end, CsrView<V> s,
                                      const V* __restrict__ inverse_diagonal,
                                      const index_t* __restrict__ cols, int count, const double* b,
                                      double* x) {
  const index_t row = begin + static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (row >= end) return;
  const double scale = static_cast<double>(inverse_diagonal[row]);
  for (int first = 0; first < count; first += kColumnGroup) {
    const int group = min(kColumnGroup, count - first);
    std::ptrdiff_t off[kColumnGroup];
    double sum[kColumnGroup];
    const unsigned live = group_offsets(cols, first, group, s.rows, off);
    csr_row_sums(s, row, x, off, live, sum);
#pragma unroll
    for (int g = 0; g < kColumnGroup; ++g) {
      if (on(live, g)) x[off[g] + row] = (b[off[g] + row] - sum[g]) * scale;
    }
  }
}

/// sell.cu's sell_colorset_rows for every listed column.
template <typename V>
__global__ void sell_colorset_rows_columns(index_t rows, index_t begin, index_t end,
                                           index_t first_slice, index_t scaled_end, SellView<V> s,
                                           const V* __restrict__ inverse_diagonal,
                                           const index_t* __restrict__ cols, int count,
                                           const double* b, double* x) {
  const index_t t = static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x;
  const index_t row = begin + t;
  if (row >= end) return;
  const index_t slice = first_slice + t / kSellSlice;
  const index_t lane_begin = s.slice_ptr[slice] + t % kSellSlice, lane_end = s.slice_ptr[slice + 1];
  const double scale = static_cast<double>(inverse_diagonal[row]);
  for (int first = 0; first < count; first += kColumnGroup) {
    const int group = min(kColumnGroup, count - first);
    std::ptrdiff_t off[kColumnGroup];
    double sum[kColumnGroup];
    const unsigned live = group_offsets(cols, first, group, rows, off);
    sell_row_sums(s, lane_begin, lane_end, scaled_end, b, x, off, live, sum);
#pragma unroll
    for (int g = 0; g < kColumnGroup; ++g) {
      if (on(live, g)) x[off[g] + row] = (b[off[g] + row] - sum[g]) * scale;
    }
  }
}

template <typename V>
void csr_colorset(CsrView<V> strict, const V* inverse_diagonal, const ColorsetPlan& plan,
                  bool lower, const index_t* cols, int count, const double* b, double* x,
                  cudaStream_t stream) {
  if (count == 0) return;
  const std::size_t steps = plan.steps.size();
  for (std::size_t i = 0; i < steps; ++i) {
    const ColorsetStep& step = plan.steps[lower ? i : steps - 1 - i];
    if (step.end <= step.begin) continue;
    colorset_rows_columns<V><<<row_blocks(step.end - step.begin), kThreads, 0, stream>>>(
        step.begin, step.end, strict, inverse_diagonal, cols, count, b, x);
    PRISM_CUDA_CHECK_LAUNCH();
  }
}

// sell.cu's solve(): lower ranges first to last (first_scaled: 1 to last, then the first,
// whose b the others read), upper last to first.
template <typename V>
void sell_colorset(SellView<V> strict, const V* inverse_diagonal,
                   const std::vector<index_t>& range_ptr, const std::vector<index_t>& range_slice,
                   bool lower, bool first_scaled, const index_t* cols, int count, const double* b,
                   double* x, cudaStream_t stream) {
  if (count == 0 || range_ptr.size() < 2) return;
  const std::size_t ranges = range_ptr.size() - 1;
  const index_t rows = range_ptr.back();
  const index_t scaled_end = first_scaled && lower && ranges > 1 ? range_ptr[1] : 0;
  for (std::size_t i = 0; i < ranges; ++i) {
    const std::size_t r = !lower ? ranges - 1 - i : (scaled_end > 0 ? (i + 1) % ranges : i);
    const index_t begin = range_ptr[r], end = range_ptr[r + 1];
    if (end <= begin) continue;
    sell_colorset_rows_columns<V><<<row_blocks(end - begin), kThreads, 0, stream>>>(
        rows, begin, end, range_slice[r], scaled_end, strict, inverse_diagonal, cols, count, b, x);
    PRISM_CUDA_CHECK_LAUNCH();
  }
}

}  // namespace

void finish_column_partials(const index_t* cols, int count, const double* partials, int blocks,
                            int stride, double* s, int slot, cudaStream_t stream) {
  if (count == 0) return;
  finish_columns<<<count, kThreads, 0, stream>>>(cols, partials, blocks, stride, s, slot);
  PRISM_CUDA_CHECK_LAUNCH();
}

std::size_t column_partials_size(int count) {
  return static_cast<std::size_t>(std::max(count, 1)) * kReductionBlocks;
}

void spmm(CsrView<double> a, const index_t* cols, int count, const double* x, double* y,
          cudaStream_t stream) {
  if (count == 0 || a.rows == 0) return;
  spmm_kernel<<<row_blocks(a.rows), kThreads, 0, stream>>>(a, cols, count, x, y);
  PRISM_CUDA_CHECK_LAUNCH();
}

void sell_spmm(index_t rows, SellView<double> a, const index_t* cols, int count, const double* x,
               double* y, cudaStream_t stream) {
  if (count == 0 || rows == 0) return;
  sell_spmm_kernel<<<row_blocks(rows), kThreads, 0, stream>>>(rows, a, cols, count, x, y);
  PRISM_CUDA_CHECK_LAUNCH();
}

void sell_spmm_dot(index_t rows, SellView<double> a, const index_t* cols, int count,
                   const double* x, double* y, double* partials, double* s, int slot,
                   cudaStream_t stream) {
  if (count == 0) return;
  // sell.cu's sell_spmv_dot grid, for its sums per column.
  const int blocks = std::max(1, std::min(row_blocks(rows), kReductionBlocks));
  const int groups = (count + kColumnGroup - 1) / kColumnGroup;
  sell_spmm_dot_kernel<<<dim3(blocks, groups), kThreads, 0, stream>>>(rows, a, cols, count, x, y,
                                                                      partials);
  PRISM_CUDA_CHECK_LAUNCH();
  finish_columns<<<count, kThreads, 0, stream>>>(cols, partials, blocks, kReductionBlocks, s, slot);
  PRISM_CUDA_CHECK_LAUNCH();
}

void dot_columns(index_t n, const index_t* cols, int count, const double* x, const double* y,
                 double* partials, double* s, int slot, cudaStream_t stream) {
  if (count == 0) return;
  const int blocks = reduction_grid(n);
  dot_partials_columns<<<dim3(blocks, count), kThreads, 0, stream>>>(n, cols, x, y, partials);
  PRISM_CUDA_CHECK_LAUNCH();
  finish_columns<<<count, kThreads, 0, stream>>>(cols, partials, blocks, kReductionBlocks, s, slot);
  PRISM_CUDA_CHECK_LAUNCH();
}

void axpy_columns(index_t n, const index_t* cols, int count, double a, const double* x, double* y,
                  cudaStream_t stream) {
  if (count == 0) return;
  axpy_columns_kernel<<<dim3(grid_for(n), count), kThreads, 0, stream>>>(n, cols, a, x, y);
  PRISM_CUDA_CHECK_LAUNCH();
}

void copy_columns(index_t n, const index_t* cols, int count, const double* x, double* y,
                  cudaStream_t stream) {
  if (count == 0) return;
  copy_columns_kernel<<<dim3(grid_for(n), count), kThreads, 0, stream>>>(n, cols, x, y);
  PRISM_CUDA_CHECK_LAUNCH();
}

void pointwise_multiply_columns(index_t n, const index_t* cols, int count, const double* d,
                                const double* x, double* y, cudaStream_t stream) {
  if (count == 0) return;
  pointwise_columns_kernel<<<dim3(grid_for(n), count), kThreads, 0, stream>>>(n, cols, d, x, y);
  PRISM_CUDA_CHECK_LAUNCH();
}

void pointwise_multiply_dot_columns(index_t n, const index_t* cols, int count, const double* d,
                                    const double* x, double* y, double* partials, double* s,
                                    int slot, cudaStream_t stream) {
  if (count == 0) return;
  const int blocks = reduction_grid(n);
  pointwise_dot_columns_kernel<<<dim3(blocks, count), kThreads, 0, stream>>>(n, cols, d, x, y,
                                                                             partials);
  PRISM_CUDA_CHECK_LAUNCH();
  finish_columns<<<count, kThreads, 0, stream>>>(cols, partials, blocks, kReductionBlocks, s, slot);
  PRISM_CUDA_CHECK_LAUNCH();
}

void cg_update_columns(index_t n, const index_t* cols, int count, const double* p, const double* q,
                       double* x, double* r, double* partials, double* s, cudaStream_t stream) {
  if (count == 0) return;
  const int blocks = reduction_grid(n);
  cg_update_columns_kernel<true, false>
      <<<dim3(blocks, count), kThreads, 0, stream>>>(n, cols, p, q, x, r, s, partials);
  PRISM_CUDA_CHECK_LAUNCH();
  finish_columns<<<count, kThreads, 0, stream>>>(cols, partials, blocks, kReductionBlocks, s,
                                                 kCgRr);
  PRISM_CUDA_CHECK_LAUNCH();
}

void cg_residual_columns(index_t n, const index_t* cols, int count, const double* q, double* r,
                         double* partials, double* s, cudaStream_t stream) {
  if (count == 0) return;
  const int blocks = reduction_grid(n);
  cg_update_columns_kernel<false, true>
      <<<dim3(blocks, count), kThreads, 0, stream>>>(n, cols, nullptr, q, nullptr, r, s, partials);
  PRISM_CUDA_CHECK_LAUNCH();
  finish_columns<<<count, kThreads, 0, stream>>>(cols, partials, blocks, kReductionBlocks, s,
                                                 kCgRr);
  PRISM_CUDA_CHECK_LAUNCH();
}

void cg_direction_columns(index_t n, const index_t* cols, int count, const double* z, double* p,
                          double* s, cudaStream_t stream) {
  if (count == 0) return;
  cg_direction_columns_kernel<false>
      <<<dim3(grid_for(n), count), kThreads, 0, stream>>>(n, cols, z, p, nullptr, s);
  PRISM_CUDA_CHECK_LAUNCH();
  rotate_rz_columns<<<1, 32, 0, stream>>>(cols, count, s, true, false);
  PRISM_CUDA_CHECK_LAUNCH();
}

void cg_direction_x_columns(index_t n, const index_t* cols, int count, const double* z, double* p,
                            double* x, double* s, cudaStream_t stream) {
  if (count == 0) return;
  cg_direction_columns_kernel<true>
      <<<dim3(grid_for(n), count), kThreads, 0, stream>>>(n, cols, z, p, x, s);
  PRISM_CUDA_CHECK_LAUNCH();
  rotate_rz_columns<<<1, 32, 0, stream>>>(cols, count, s, true, true);
  PRISM_CUDA_CHECK_LAUNCH();
}

void cg_finish_columns(index_t n, const index_t* cols, int count, const double* p, double* x,
                       double* s, cudaStream_t stream) {
  if (count == 0) return;
  cg_finish_columns_kernel<<<dim3(grid_for(n), count), kThreads, 0, stream>>>(n, cols, p, x, s);
  PRISM_CUDA_CHECK_LAUNCH();
  owe_nothing_columns(cols, count, s, stream);
}

void owe_nothing_columns(const index_t* cols, int count, double* s, cudaStream_t stream) {
  if (count == 0) return;
  rotate_rz_columns<<<1, 32, 0, stream>>>(cols, count, s, false, true);
  PRISM_CUDA_CHECK_LAUNCH();
}

void colorset_solve_columns(CsrView<double> strict, const double* inverse_diagonal,
                            const ColorsetPlan& plan, bool lower, const index_t* cols, int count,
                            const double* b, double* x, cudaStream_t stream) {
  csr_colorset(strict, inverse_diagonal, plan, lower, cols, count, b, x, stream);
}

void colorset_solve_columns(CsrView<float> strict, const float* inverse_diagonal,
                            const ColorsetPlan& plan, bool lower, const index_t* cols, int count,
                            const double* b, double* x, cudaStream_t stream) {
  csr_colorset(strict, inverse_diagonal, plan, lower, cols, count, b, x, stream);
}

void sell_colorset_solve_columns(SellView<double> strict, const double* inverse_diagonal,
                                 const std::vector<index_t>& range_ptr,
                                 const std::vector<index_t>& range_slice, bool lower,
                                 bool first_scaled, const index_t* cols, int count, const double* b,
                                 double* x, cudaStream_t stream) {
  sell_colorset(strict, inverse_diagonal, range_ptr, range_slice, lower, first_scaled, cols, count,
                b, x, stream);
}

void sell_colorset_solve_columns(SellView<float> strict, const float* inverse_diagonal,
                                 const std::vector<index_t>& range_ptr,
                                 const std::vector<index_t>& range_slice, bool lower,
                                 bool first_scaled, const index_t* cols, int count, const double* b,
                                 double* x, cudaStream_t stream) {
  sell_colorset(strict, inverse_diagonal, range_ptr, range_slice, lower, first_scaled, cols, count,
                b, x, stream);
}

}  // namespace prism::kernels::cuda
