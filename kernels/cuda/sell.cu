#include "kernels/cuda/blas1.hpp"
#include "kernels/cuda/block_reduce.cuh"
#include "kernels/cuda/check.hpp"
#include "kernels/cuda/sell.hpp"

#include <algorithm>

namespace prism::kernels::cuda {
namespace {

constexpr int kBlockThreads = 256;

/// sum_k A(row, k) x(col k) over lane `lane` of slice `slice`.
template <typename V>
__device__ __forceinline__ double sell_row_sum(SellView<V> a, index_t slice, int lane,
                                               const double* x) {
  const index_t begin = a.slice_ptr[slice] + lane, end = a.slice_ptr[slice + 1];
  double sum = 0.0;
  for (index_t k = begin; k < end; k += kSellSlice) {
    const index_t c = a.col_idx[k];
    if (c >= 0) sum += static_cast<double>(a.values[k]) * x[c];
  }
  return sum;
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

/// Rows [begin, end) of one independent block, its slices from first_slice on. b is
/// read only by the thread that writes x[row]: in-place solves are safe.
template <typename V>
__global__ void __launch_bounds__(kBlockThreads)
    sell_colorset_rows(index_t begin, index_t end, index_t first_slice, SellView<V> s,
                       const V* __restrict__ inverse_diagonal, const double* b, double* x) {
  const index_t t = static_cast<index_t>(blockIdx.x) * kBlockThreads + threadIdx.x;
  const index_t row = begin + t;
  if (row >= end) return;
  const double sum = sell_row_sum(s, first_slice + t / kSellSlice, t % kSellSlice, x);
  x[row] = (b[row] - sum) * static_cast<double>(inverse_diagonal[row]);
}

int blocks_for(index_t n) {
  return static_cast<int>((static_cast<long long>(n) + kBlockThreads - 1) / kBlockThreads);
}

template <typename V>
void solve(SellView<V> strict, const V* inverse_diagonal, const std::vector<index_t>& range_ptr,
           const std::vector<index_t>& range_slice, bool lower, const double* b, double* x,
           cudaStream_t stream) {
  const std::size_t ranges = range_ptr.size() - 1;
  for (std::size_t i = 0; i < ranges; ++i) {
    const std::size_t r = lower ? i : ranges - 1 - i;
    const index_t begin = range_ptr[r], end = range_ptr[r + 1];
    if (end <= begin) continue;
    sell_colorset_rows<V><<<blocks_for(end - begin), kBlockThreads, 0, stream>>>(
        begin, end, range_slice[r], strict, inverse_diagonal, b, x);
    PRISM_CUDA_CHECK_LAUNCH();
  }
}

}  // namespace

void sell_spmv(index_t rows, SellView<double> a, const double* x, double* y, cudaStream_t stream) {
  if (rows == 0) return;
  sell_spmv_kernel<<<blocks_for(rows), kBlockThreads, 0, stream>>>(rows, a, x, y);
  PRISM_CUDA_CHECK_LAUNCH();
}

int sell_spmv_dot(index_t rows, SellView<double> a, const double* x, double* y, double* partials,
                  cudaStream_t stream) {
  const int blocks = std::max(1, std::min(blocks_for(rows), kReductionBlocks));
  sell_spmv_dot_kernel<<<blocks, kBlockThreads, 0, stream>>>(rows, a, x, y, partials);
  PRISM_CUDA_CHECK_LAUNCH();
  return blocks;
}

void sell_colorset_solve(SellView<double> strict, const double* inverse_diagonal,
                         const std::vector<index_t>& range_ptr,
                         const std::vector<index_t>& range_slice, bool lower, const double* b,
                         double* x, cudaStream_t stream) {
  solve(strict, inverse_diagonal, range_ptr, range_slice, lower, b, x, stream);
}

void sell_colorset_solve(SellView<float> strict, const float* inverse_diagonal,
                         const std::vector<index_t>& range_ptr,
                         const std::vector<index_t>& range_slice, bool lower, const double* b,
                         double* x, cudaStream_t stream) {
  solve(strict, inverse_diagonal, range_ptr, range_slice, lower, b, x, stream);
}

}  // namespace prism::kernels::cuda
