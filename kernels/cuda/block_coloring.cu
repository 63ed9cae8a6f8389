#include "kernels/cuda/block_coloring.hpp"

#include "kernels/cuda/check.hpp"

#include <algorithm>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_sort.cuh>

namespace prism::kernels::cuda {
namespace {

constexpr int kThreads = 256;

int blocks_for(long long n) {
  return static_cast<int>((n + kThreads - 1) / kThreads);
}

/// The last q with ptr[q] <= i, for ptr strictly increasing from ptr[0] = 0 and i < ptr[count].
__device__ index_t position_of(index_t i, const index_t* __restrict__ ptr, index_t count) {
  index_t lo = 0, hi = count;  // ptr[lo] <= i < ptr[hi]
  while (hi - lo > 1) {
    const index_t mid = lo + (hi - lo) / 2;
    if (ptr[mid] <= i) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return lo;
}

/// block_of[G[p]] = the block of grouped row p, length[p] = the length of A's row G[p].
__global__ void block_of_rows(index_t n, const index_t* __restrict__ row_ptr,
                              const index_t* __restrict__ grouping, index_t blocks,
                              const index_t* __restrict__ block_ptr, index_t* __restrict__ block_of,
                              index_t* __restrict__ length) {
  const index_t p = static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (p >= n) return;
  const index_t old = grouping != nullptr ? grouping[p] : p;
  block_of[old] = position_of(p, block_ptr, blocks);
  length[p] = row_ptr[old + 1] - row_ptr[old];
}

/// The blocks of grouped row p's columns from offset[p] on, a warp a row (long rows read
/// coalesced).
__global__ void block_columns(index_t n, const index_t* __restrict__ row_ptr,
                              const index_t* __restrict__ col_idx,
                              const index_t* __restrict__ grouping,
                              const index_t* __restrict__ block_of,
                              const index_t* __restrict__ offset, index_t* __restrict__ columns) {
  const long long thread = static_cast<long long>(blockIdx.x) * kThreads + threadIdx.x;
  const auto p = static_cast<index_t>(thread / 32);
  const int lane = static_cast<int>(thread % 32);
  if (p >= n) return;
  const index_t old = grouping != nullptr ? grouping[p] : p;
  const index_t begin = row_ptr[old], length = row_ptr[old + 1] - begin;
  for (index_t t = lane; t < length; t += 32) columns[offset[p] + t] = block_of[col_idx[begin + t]];
}

/// segment[b] = where block row b's columns start (b <= blocks).
__global__ void segment_bounds(index_t blocks, const index_t* __restrict__ block_ptr,
                               const index_t* __restrict__ offset, index_t* __restrict__ segment) {
  const index_t b = static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (b <= blocks) segment[b] = offset[block_ptr[b]];
}

/// keep[e] = 1 where the sorted column differs from the one before (not yet the segment
/// starts: mark_segment_starts adds them).
__global__ void mark_changes(index_t nnz, const index_t* __restrict__ sorted,
                             index_t* __restrict__ keep) {
  const index_t e = static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (e < nnz) keep[e] = e == 0 || sorted[e] != sorted[e - 1] ? 1 : 0;
}

__global__ void mark_segment_starts(index_t blocks, const index_t* __restrict__ segment,
                                    index_t* __restrict__ keep) {
  const index_t b = static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (b < blocks && segment[b] < segment[b + 1]) keep[segment[b]] = 1;
}

/// The quotient's row pointer and columns from the kept entries' positions pos (the
/// exclusive sum of the keep flags, nnz + 1 entries).
__global__ void quotient_rows(index_t blocks, const index_t* __restrict__ segment,
                              const index_t* __restrict__ pos, index_t* __restrict__ q_row_ptr) {
  const index_t b = static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (b <= blocks) q_row_ptr[b] = pos[segment[b]];
}

__global__ void compact(index_t nnz, const index_t* __restrict__ sorted,
                        const index_t* __restrict__ pos, index_t* __restrict__ q_col_idx) {
  const index_t e = static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (e < nnz && pos[e + 1] != pos[e]) q_col_idx[pos[e]] = sorted[e];
}

/// The sort key of vertex v (~degree: the largest degree first) and v itself.
__global__ void degree_keys(index_t n, const index_t* __restrict__ row_ptr,
                            const index_t* __restrict__ col_idx, unsigned* __restrict__ keys,
                            index_t* __restrict__ vertices) {
  const index_t v = static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (v >= n) return;
  unsigned degree = 0;
  for (index_t k = row_ptr[v]; k < row_ptr[v + 1]; ++k) degree += col_idx[k] != v ? 1U : 0U;
  keys[v] = ~degree;
  vertices[v] = v;
}

__global__ void invert(index_t n, const index_t* __restrict__ visit, index_t* __restrict__ rank) {
  const index_t p = static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (p < n) rank[visit[p]] = p;
}

__global__ void ordered_sizes(index_t blocks, const index_t* __restrict__ block_ptr,
                              const index_t* __restrict__ order, index_t* __restrict__ sizes) {
  const index_t q = static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (q < blocks) sizes[q] = block_ptr[order[q] + 1] - block_ptr[order[q]];
}

__global__ void expand_blocks(index_t rows, index_t blocks, const index_t* __restrict__ block_ptr,
                              const index_t* __restrict__ grouping,
                              const index_t* __restrict__ order,
                              const index_t* __restrict__ new_ptr, index_t* __restrict__ perm) {
  const index_t k = static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (k >= rows) return;
  const index_t q = position_of(k, new_ptr, blocks);
  const index_t source = block_ptr[order[q]] + (k - new_ptr[q]);
  perm[k] = grouping != nullptr ? grouping[source] : source;
}

/// In-place exclusive sum of data[0, count).
void exclusive_sum(index_t* data, index_t count, cudaStream_t stream) {
  std::size_t bytes = 0;
  PRISM_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, data, data, count, stream));
  // Never null: CUB takes a null scratch pointer for a size query.
  DeviceBuffer<unsigned char> scratch(std::max<std::size_t>(bytes, 1));
  PRISM_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(scratch.data(), bytes, data, data, count, stream));
}

}  // namespace

DevicePattern quotient_pattern(const CsrView<double>& a, index_t nnz, const index_t* grouping,
                               index_t blocks, const index_t* block_ptr, cudaStream_t stream) {
  const index_t n = a.rows;
  DevicePattern q;
  q.rows = blocks;
  q.row_ptr = DeviceBuffer<index_t>(static_cast<std::size_t>(blocks) + 1);
  if (n == 0 || blocks == 0 || nnz == 0) {
    PRISM_CUDA_CHECK(
        cudaMemsetAsync(q.row_ptr.data(), 0, q.row_ptr.size() * sizeof(index_t), stream));
    return q;
  }
  // Each grouped row's entries at offset[p] of the block rows' columns: the exclusive sum
  // of the lengths, the last made 0.
  DeviceBuffer<index_t> block_of(static_cast<std::size_t>(n));
  DeviceBuffer<index_t> offset(static_cast<std::size_t>(n) + 1);
  PRISM_CUDA_CHECK(cudaMemsetAsync(offset.data() + n, 0, sizeof(index_t), stream));
  block_of_rows<<<blocks_for(n), kThreads, 0, stream>>>(n, a.row_ptr, grouping, blocks, block_ptr,
                                                        block_of.data(), offset.data());
  PRISM_CUDA_CHECK_LAUNCH();
  exclusive_sum(offset.data(), n + 1, stream);
  // One more entry than the columns: the keep flags and their sum reuse it after the sort.
  DeviceBuffer<index_t> columns(static_cast<std::size_t>(nnz) + 1);
  block_columns<<<blocks_for(32LL * n), kThreads, 0, stream>>>(
      n, a.row_ptr, a.col_idx, grouping, block_of.data(), offset.data(), columns.data());
  PRISM_CUDA_CHECK_LAUNCH();
  DeviceBuffer<index_t> segment(static_cast<std::size_t>(blocks) + 1);
  segment_bounds<<<blocks_for(blocks + 1LL), kThreads, 0, stream>>>(blocks, block_ptr,
                                                                    offset.data(), segment.data());
  PRISM_CUDA_CHECK_LAUNCH();
  block_of = DeviceBuffer<index_t>();
  offset = DeviceBuffer<index_t>();

  DeviceBuffer<index_t> sorted(static_cast<std::size_t>(nnz));
  std::size_t sort_bytes = 0;
  PRISM_CUDA_CHECK(cub::DeviceSegmentedSort::SortKeys(nullptr, sort_bytes, columns.data(),
                                                      sorted.data(), nnz, blocks, segment.data(),
                                                      segment.data() + 1, stream));
  {
    DeviceBuffer<unsigned char> scratch(std::max<std::size_t>(sort_bytes, 1));
    PRISM_CUDA_CHECK(cub::DeviceSegmentedSort::SortKeys(scratch.data(), sort_bytes, columns.data(),
                                                        sorted.data(), nnz, blocks, segment.data(),
                                                        segment.data() + 1, stream));
  }
  // The first of each run of equal columns in a block row stays: keep flags, then their
  // exclusive sum (the kept entry's place) in the same buffer.
  index_t* pos = columns.data();
  PRISM_CUDA_CHECK(cudaMemsetAsync(pos + nnz, 0, sizeof(index_t), stream));
  mark_changes<<<blocks_for(nnz), kThreads, 0, stream>>>(nnz, sorted.data(), pos);
  PRISM_CUDA_CHECK_LAUNCH();
  mark_segment_starts<<<blocks_for(blocks), kThreads, 0, stream>>>(blocks, segment.data(), pos);
  PRISM_CUDA_CHECK_LAUNCH();
  exclusive_sum(pos, nnz + 1, stream);
  quotient_rows<<<blocks_for(blocks + 1LL), kThreads, 0, stream>>>(blocks, segment.data(), pos,
                                                                   q.row_ptr.data());
  PRISM_CUDA_CHECK_LAUNCH();
  const index_t q_nnz = download_and_wait(pos + nnz, 1, stream)[0];
  q.col_idx = DeviceBuffer<index_t>(static_cast<std::size_t>(q_nnz));
  compact<<<blocks_for(nnz), kThreads, 0, stream>>>(nnz, sorted.data(), pos, q.col_idx.data());
  PRISM_CUDA_CHECK_LAUNCH();
  return q;
}

void largest_first_rank(index_t n, const index_t* row_ptr, const index_t* col_idx, index_t* rank,
                        cudaStream_t stream) {
  if (n == 0) return;
  DeviceBuffer<unsigned> keys(static_cast<std::size_t>(n)), sorted_keys(keys.size());
  DeviceBuffer<index_t> vertices(keys.size()), visit(keys.size());
  degree_keys<<<blocks_for(n), kThreads, 0, stream>>>(n, row_ptr, col_idx, keys.data(),
                                                      vertices.data());
  PRISM_CUDA_CHECK_LAUNCH();
  // The radix sort is stable: vertices of one degree keep their increasing index.
  std::size_t bytes = 0;
  PRISM_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, keys.data(), sorted_keys.data(),
                                                   vertices.data(), visit.data(), n, 0, 32,
                                                   stream));
  {
    DeviceBuffer<unsigned char> scratch(std::max<std::size_t>(bytes, 1));
    PRISM_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(scratch.data(), bytes, keys.data(),
                                                     sorted_keys.data(), vertices.data(),
                                                     visit.data(), n, 0, 32, stream));
  }
  invert<<<blocks_for(n), kThreads, 0, stream>>>(n, visit.data(), rank);
  PRISM_CUDA_CHECK_LAUNCH();
  // The buffers' cudaFree waits for the work.
}

void rows_in_block_order(index_t rows, index_t blocks, const index_t* block_ptr,
                         const index_t* grouping, const index_t* order, index_t* new_ptr,
                         index_t* perm, cudaStream_t stream) {
  // The sizes in the new order into new_ptr[0, blocks), the last made 0: their exclusive
  // sum is the pointer.
  PRISM_CUDA_CHECK(cudaMemsetAsync(new_ptr + blocks, 0, sizeof(index_t), stream));
  if (blocks == 0) return;
  ordered_sizes<<<blocks_for(blocks), kThreads, 0, stream>>>(blocks, block_ptr, order, new_ptr);
  PRISM_CUDA_CHECK_LAUNCH();
  exclusive_sum(new_ptr, blocks + 1, stream);
  if (rows == 0) return;
  expand_blocks<<<blocks_for(rows), kThreads, 0, stream>>>(rows, blocks, block_ptr, grouping, order,
                                                           new_ptr, perm);
  PRISM_CUDA_CHECK_LAUNCH();
}

}  // namespace prism::kernels::cuda
