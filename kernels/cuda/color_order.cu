#include "kernels/cuda/color_order.hpp"

#include "kernels/cuda/check.hpp"
#include "kernels/cuda/device_memory.hpp"

#include <algorithm>

#include <cub/device/device_histogram.cuh>
#include <cub/device/device_radix_sort.cuh>

namespace prism::kernels::cuda {
namespace {

constexpr int kThreads = 256;

int blocks_for(index_t n) {
  return static_cast<int>((static_cast<long long>(n) + kThreads - 1) / kThreads);
}

/// colors[i] = new_id[colors[i]], and rows[i] = i: the sort's keys and values.
__global__ void renumber(index_t n, int* __restrict__ colors, const int* __restrict__ new_id,
                         index_t* __restrict__ rows) {
  const index_t i = static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (i >= n) return;
  colors[i] = new_id[colors[i]];
  rows[i] = i;
}

}  // namespace

void color_sizes(index_t n, const int* colors, int count, index_t* sizes, cudaStream_t stream) {
  if (count <= 0) return;
  if (n == 0) {
    PRISM_CUDA_CHECK(
        cudaMemsetAsync(sizes, 0, static_cast<std::size_t>(count) * sizeof(index_t), stream));
    return;
  }
  // count + 1 levels 0, 1, ..., count: bin c is [c, c + 1), color c exactly.
  std::size_t bytes = 0;
  PRISM_CUDA_CHECK(cub::DeviceHistogram::HistogramEven(nullptr, bytes, colors, sizes, count + 1, 0,
                                                       count, n, stream));
  // Never null: CUB takes a null scratch pointer for a size query.
  DeviceBuffer<unsigned char> scratch(std::max<std::size_t>(bytes, 1));
  PRISM_CUDA_CHECK(cub::DeviceHistogram::HistogramEven(scratch.data(), bytes, colors, sizes,
                                                       count + 1, 0, count, n, stream));
}

void order_by_color(index_t n, int* colors, const int* new_id, int count, index_t* perm,
                    cudaStream_t stream) {
  if (n == 0) return;
  DeviceBuffer<index_t> rows(static_cast<std::size_t>(n));
  DeviceBuffer<int> sorted_colors(static_cast<std::size_t>(n));
  renumber<<<blocks_for(n), kThreads, 0, stream>>>(n, colors, new_id, rows.data());
  PRISM_CUDA_CHECK_LAUNCH();
  // The new colors are below count: only their low bits take passes. The sort is stable,
  // so the rows of a color stay in increasing index.
  int bits = 1;
  while (bits < 31 && (1 << bits) < count) ++bits;
  std::size_t bytes = 0;
  PRISM_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, colors, sorted_colors.data(),
                                                   rows.data(), perm, n, 0, bits, stream));
  DeviceBuffer<unsigned char> scratch(std::max<std::size_t>(bytes, 1));
  PRISM_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(
      scratch.data(), bytes, colors, sorted_colors.data(), rows.data(), perm, n, 0, bits, stream));
}

}  // namespace prism::kernels::cuda
