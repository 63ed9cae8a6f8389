#include "kernels/cuda/triangle_split.hpp"

#include "kernels/cuda/check.hpp"

#include <algorithm>

namespace prism::kernels::cuda {
namespace {

constexpr int kThreads = 256;
// Lanes a row in fill_strict: rows of a few to a few dozen entries (the dense blocks of
// block IC's operators) read their columns in one or a few coalesced steps.
constexpr int kRowLanes = 8;

int blocks_for(long long n) {
  return static_cast<int>((n + kThreads - 1) / kThreads);
}

/// Row i's diagonal entry (last or first) and its check (the smallest bad row into *bad),
/// and the strict row pointers, i <= rows: every row less its diagonal.
__global__ void check_rows(index_t rows, const index_t* __restrict__ row_ptr,
                           const index_t* __restrict__ col_idx, bool lower,
                           index_t* __restrict__ diagonal, index_t* __restrict__ strict_ptr,
                           int* __restrict__ bad) {
  const index_t i = static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (i > rows) return;
  strict_ptr[i] = row_ptr[i] - i;
  if (i == rows) return;
  const index_t begin = row_ptr[i], end = row_ptr[i + 1];
  const index_t d = lower ? end - 1 : begin;
  diagonal[i] = d;
  if (end <= begin || col_idx[d] != i) atomicMin(bad, static_cast<int>(i));
}

/// kRowLanes lanes a row: its strict entries (all but the last of a lower row, all but
/// the first of an upper one) with their factor entries, and the row's reach.
__global__ void fill_strict(index_t rows, const index_t* __restrict__ row_ptr,
                            const index_t* __restrict__ col_idx, bool lower,
                            index_t* __restrict__ strict_col, index_t* __restrict__ source,
                            index_t* __restrict__ reach) {
  const long long thread = static_cast<long long>(blockIdx.x) * kThreads + threadIdx.x;
  const auto i = static_cast<index_t>(thread / kRowLanes);
  const int lane = static_cast<int>(thread % kRowLanes);
  if (i >= rows) return;  // a row's lanes leave together: the group below stays whole
  const index_t first = lower ? row_ptr[i] : row_ptr[i] + 1;
  const index_t last = lower ? row_ptr[i + 1] - 1 : row_ptr[i + 1];
  const index_t to = first - i - (lower ? 0 : 1);  // strict entry of factor entry `first`
  index_t far = lower ? -1 : rows;
  for (index_t k = first + lane; k < last; k += kRowLanes) {
    const index_t c = col_idx[k];
    strict_col[to + (k - first)] = c;
    source[to + (k - first)] = k;
    far = lower ? max(far, c) : min(far, c);
  }
  const int warp_lane = static_cast<int>(threadIdx.x % 32);
  const unsigned group = 0xffu << (warp_lane & ~(kRowLanes - 1));
  far = lower ? __reduce_max_sync(group, far) : __reduce_min_sync(group, far);
  if (lane == 0) reach[i] = far;
}

}  // namespace

DeviceTriangleSplit triangle_split(index_t rows, const index_t* row_ptr, const index_t* col_idx,
                                   index_t nnz, bool lower, cudaStream_t stream) {
  const auto n = static_cast<std::size_t>(rows);
  DeviceTriangleSplit s;
  s.row_ptr = DeviceBuffer<index_t>(n + 1);
  s.diagonal = DeviceBuffer<index_t>(n);
  DeviceBuffer<int> bad(1);
  PRISM_CUDA_CHECK(cudaMemsetAsync(bad.data(), 0x7f, sizeof(int), stream));  // no row
  check_rows<<<blocks_for(static_cast<long long>(rows) + 1), kThreads, 0, stream>>>(
      rows, row_ptr, col_idx, lower, s.diagonal.data(), s.row_ptr.data(), bad.data());
  PRISM_CUDA_CHECK_LAUNCH();
  int first_bad = 0;
  PRISM_CUDA_CHECK(
      cudaMemcpyAsync(&first_bad, bad.data(), sizeof(int), cudaMemcpyDeviceToHost, stream));
  PRISM_CUDA_CHECK(cudaStreamSynchronize(stream));
  if (first_bad < rows) {
    s = DeviceTriangleSplit{};
    s.bad_row = first_bad;
    return s;
  }
  // Every row stores its diagonal: nnz >= rows.
  const auto strict = static_cast<std::size_t>(nnz - rows);
  s.col_idx = DeviceBuffer<index_t>(strict);
  s.source = DeviceBuffer<index_t>(strict);
  s.reach = DeviceBuffer<index_t>(n);
  if (rows > 0) {
    fill_strict<<<blocks_for(static_cast<long long>(kRowLanes) * rows), kThreads, 0, stream>>>(
        rows, row_ptr, col_idx, lower, s.col_idx.data(), s.source.data(), s.reach.data());
    PRISM_CUDA_CHECK_LAUNCH();
  }
  return s;
}

}  // namespace prism::kernels::cuda
