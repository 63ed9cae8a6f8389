#include "kernels/cuda/level_report.hpp"

#include <prism/errors.hpp>

#include "kernels/cuda/check.hpp"
#include "kernels/cuda/device_memory.hpp"

#include <algorithm>
#include <numeric>

#include <cub/device/device_histogram.cuh>
#include <cub/device/device_reduce.cuh>

namespace prism::kernels::cuda {
namespace {

constexpr int kThreads = 256;

/// level[i] for the rows i of [begin, end): 1 + the largest level of its entries before
/// the range (written by earlier launches), 0 without any; *coupled = 1 where an entry
/// lies in an earlier row of the range itself (the levels are then discarded).
__global__ void level_rows(index_t begin, index_t end, const index_t* __restrict__ row_ptr,
                           const index_t* __restrict__ col_idx, int* __restrict__ level,
                           int* __restrict__ coupled) {
  const long long i = begin + static_cast<long long>(blockIdx.x) * kThreads + threadIdx.x;
  if (i >= end) return;
  int l = 0;
  bool couples = false;
  for (index_t k = row_ptr[i]; k < row_ptr[i + 1]; ++k) {
    const index_t j = col_idx[k];
    couples |= j >= begin && j < i;
    if (j < begin) l = max(l, level[j] + 1);
  }
  level[i] = l;
  if (couples) *coupled = 1;
}

}  // namespace

bool range_level_ptr(const CsrView<double>& a, const std::vector<index_t>& ranges,
                     std::vector<index_t>& level_ptr, cudaStream_t stream) {
  if (!ranges_cover(ranges, a.rows)) {
    throw ConfigError("range_level_ptr: the ranges must run from 0 to the rows in order");
  }
  const index_t n = a.rows;
  if (n == 0) {
    level_ptr.assign(1, 0);
    return true;
  }
  DeviceBuffer<int> level(static_cast<std::size_t>(n));
  DeviceBuffer<int> found(2);  // [0]: a range couples, [1]: the largest level
  PRISM_CUDA_CHECK(cudaMemsetAsync(found.data(), 0, 2 * sizeof(int), stream));
  for (std::size_t r = 0; r + 1 < ranges.size(); ++r) {
    const index_t rows = ranges[r + 1] - ranges[r];
    if (rows == 0) continue;
    level_rows<<<(rows + kThreads - 1) / kThreads, kThreads, 0, stream>>>(
        ranges[r], ranges[r + 1], a.row_ptr, a.col_idx, level.data(), found.data());
    PRISM_CUDA_CHECK_LAUNCH();
  }
  int* largest = found.data() + 1;
  std::size_t max_bytes = 0;
  PRISM_CUDA_CHECK(cub::DeviceReduce::Max(nullptr, max_bytes, level.data(), largest, n, stream));
  {
    // Never null: CUB takes a null scratch pointer for a size query.
    DeviceBuffer<unsigned char> scratch(std::max<std::size_t>(max_bytes, 1));
    PRISM_CUDA_CHECK(
        cub::DeviceReduce::Max(scratch.data(), max_bytes, level.data(), largest, n, stream));
  }
  int host_found[2] = {0, 0};
  PRISM_CUDA_CHECK(
      cudaMemcpyAsync(host_found, found.data(), sizeof host_found, cudaMemcpyDeviceToHost, stream));
  PRISM_CUDA_CHECK(cudaStreamSynchronize(stream));
  if (host_found[0] != 0) return false;
  // Levels 0..largest: one bin of width 1 each, over [0, count).
  const int count = host_found[1] + 1;
  DeviceBuffer<int> rows_per_level(static_cast<std::size_t>(count));
  std::size_t histogram_bytes = 0;
  PRISM_CUDA_CHECK(cub::DeviceHistogram::HistogramEven(nullptr, histogram_bytes, level.data(),
                                                       rows_per_level.data(), count + 1, 0, count,
                                                       n, stream));
  {
    DeviceBuffer<unsigned char> scratch(std::max<std::size_t>(histogram_bytes, 1));
    PRISM_CUDA_CHECK(cub::DeviceHistogram::HistogramEven(scratch.data(), histogram_bytes,
                                                         level.data(), rows_per_level.data(),
                                                         count + 1, 0, count, n, stream));
  }
  const std::vector<int> sizes = download_and_wait(rows_per_level, stream);
  level_ptr.assign(static_cast<std::size_t>(count) + 1, 0);
  std::partial_sum(sizes.begin(), sizes.end(), level_ptr.begin() + 1);
  return true;
}

}  // namespace prism::kernels::cuda
