#include "kernels/cuda/setup_permute.hpp"

#include "kernels/cuda/check.hpp"
#include "kernels/cuda/device_memory.hpp"

#include <algorithm>

#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_sort.cuh>

namespace prism::kernels::cuda {
namespace {

constexpr int kThreads = 256;

int blocks_for(long long n) {
  return static_cast<int>((n + kThreads - 1) / kThreads);
}

/// inverse[perm[i]] = i, and length[i] = the length of B's row i (A's row perm[i]).
__global__ void invert_and_measure(index_t rows, const index_t* __restrict__ a_row_ptr,
                                   const index_t* __restrict__ perm, index_t* __restrict__ inverse,
                                   index_t* __restrict__ length) {
  const index_t i = static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (i >= rows) return;
  const index_t old = perm[i];
  inverse[old] = i;
  length[i] = a_row_ptr[old + 1] - a_row_ptr[old];
}

/// B's rows unsorted: new columns and A's entries, a warp a row (rows of any length read
/// coalesced; the sort orders them after).
__global__ void scatter_rows(index_t rows, const index_t* __restrict__ a_row_ptr,
                             const index_t* __restrict__ a_col_idx,
                             const index_t* __restrict__ perm, const index_t* __restrict__ inverse,
                             const index_t* __restrict__ b_row_ptr, index_t* __restrict__ columns,
                             index_t* __restrict__ entries) {
  const long long thread = static_cast<long long>(blockIdx.x) * kThreads + threadIdx.x;
  const auto i = static_cast<index_t>(thread / 32);
  const int lane = static_cast<int>(thread % 32);
  if (i >= rows) return;
  const index_t begin = a_row_ptr[perm[i]], length = b_row_ptr[i + 1] - b_row_ptr[i];
  for (index_t t = lane; t < length; t += 32) {
    const index_t k = begin + t;
    columns[b_row_ptr[i] + t] = inverse[a_col_idx[k]];
    entries[b_row_ptr[i] + t] = k;
  }
}

__global__ void gather(index_t nnz, const double* __restrict__ values,
                       const index_t* __restrict__ source, double* __restrict__ out) {
  const long long k = static_cast<long long>(blockIdx.x) * kThreads + threadIdx.x;
  if (k < nnz) out[k] = values[source[k]];
}

}  // namespace

void permute_symmetric(const CsrView<double>& a, index_t nnz, const index_t* perm,
                       index_t* b_row_ptr, index_t* b_col_idx, double* b_values, index_t* source,
                       cudaStream_t stream) {
  const index_t n = a.rows;
  // Row lengths into b_row_ptr[0, n), the last made 0: the exclusive sum of n + 1 entries
  // is the row pointer.
  PRISM_CUDA_CHECK(cudaMemsetAsync(b_row_ptr + n, 0, sizeof(index_t), stream));
  if (n == 0) return;
  DeviceBuffer<index_t> inverse(static_cast<std::size_t>(n));
  invert_and_measure<<<blocks_for(n), kThreads, 0, stream>>>(n, a.row_ptr, perm, inverse.data(),
                                                             b_row_ptr);
  PRISM_CUDA_CHECK_LAUNCH();
  std::size_t scan_bytes = 0;
  PRISM_CUDA_CHECK(
      cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, b_row_ptr, b_row_ptr, n + 1, stream));
  {
    // Never null: CUB takes a null scratch pointer for a size query.
    DeviceBuffer<unsigned char> scratch(std::max<std::size_t>(scan_bytes, 1));
    PRISM_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(scratch.data(), scan_bytes, b_row_ptr, b_row_ptr,
                                                   n + 1, stream));
  }
  if (nnz == 0) return;
  DeviceBuffer<index_t> columns(static_cast<std::size_t>(nnz));
  DeviceBuffer<index_t> entries(static_cast<std::size_t>(nnz));
  scatter_rows<<<blocks_for(32LL * n), kThreads, 0, stream>>>(
      n, a.row_ptr, a.col_idx, perm, inverse.data(), b_row_ptr, columns.data(), entries.data());
  PRISM_CUDA_CHECK_LAUNCH();
  // Columns are unique within a row, so the order is the host's whatever the sort.
  std::size_t sort_bytes = 0;
  PRISM_CUDA_CHECK(cub::DeviceSegmentedSort::SortPairs(nullptr, sort_bytes, columns.data(),
                                                       b_col_idx, entries.data(), source, nnz, n,
                                                       b_row_ptr, b_row_ptr + 1, stream));
  {
    DeviceBuffer<unsigned char> scratch(std::max<std::size_t>(sort_bytes, 1));
    PRISM_CUDA_CHECK(cub::DeviceSegmentedSort::SortPairs(scratch.data(), sort_bytes, columns.data(),
                                                         b_col_idx, entries.data(), source, nnz, n,
                                                         b_row_ptr, b_row_ptr + 1, stream));
  }
  if (a.values != nullptr) {
    gather<<<blocks_for(nnz), kThreads, 0, stream>>>(nnz, a.values, source, b_values);
    PRISM_CUDA_CHECK_LAUNCH();
  }
}

}  // namespace prism::kernels::cuda
