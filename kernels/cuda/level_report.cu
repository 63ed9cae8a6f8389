#include "kernels/cuda/level_report.hpp"

#include <prism/errors.hpp>

#include "kernels/cuda/check.hpp"
#include "kernels/cuda/device_memory.hpp"
#include "kernels/cuda/ready_queue.cuh"

#include <algorithm>
#include <numeric>

#include <cub/device/device_histogram.cuh>
#include <cub/device/device_reduce.cuh>

namespace prism::kernels::cuda {
namespace {

namespace rq = ready_queue;

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

// ---- Without independent ranges: the levels as a dataflow in row order ----
//
// Row v is ready once every row j < v holding v in its pattern has counted it off
// (waiting[v], set from those upper entries, reaches 0); its level is then 1 + the largest
// level among its entries j < v (0 without any). Those are all stored by then where each
// entry (v, j) below the diagonal has its mirror (j, v), which count_waiting checks first
// (found[0]); without it the sweep returns at once and the caller takes the host's level
// sets. The queue, the tiles and the memory order are those of parallel_coloring.cu's
// ordered sweep (see there: why it cannot deadlock on any grid, and why a tile goes on
// with a row it made ready), with the identity order and a level in place of a color.

// Lanes a row, threads and blocks a multiprocessor: as the ordered sweep.
constexpr int kSweepTile = 8;
constexpr int kSweepThreads = 256;
constexpr int kSweepBlocksPerSm = 2;

__device__ __forceinline__ int load_level(const int* p) {
  int l;
  asm volatile("ld.relaxed.gpu.global.b32 %0, [%1];" : "=r"(l) : "l"(p) : "memory");
  return l;
}

__device__ __forceinline__ void store_level(int* p, int l) {
  asm volatile("st.relaxed.gpu.global.b32 [%0], %1;" ::"l"(p), "r"(l) : "memory");
}

// Whether row `row` stores column `col`: a binary search (columns sorted in each row).
__device__ bool has_entry(const CsrView<double>& a, index_t row, index_t col) {
  index_t lo = a.row_ptr[row], hi = a.row_ptr[row + 1];
  while (lo < hi) {
    const index_t mid = lo + (hi - lo) / 2;
    const index_t c = a.col_idx[mid];
    if (c == col) return true;
    if (c < col) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return false;
}

// waiting[u] += 1 for each entry u > v of row v (waiting starts at 0: the counts the
// sweep's count-offs bring to 0, whatever the pattern); *unmirrored = 1 where an entry
// j < v of row v has no mirror (j, v).
__global__ void count_waiting(CsrView<double> a, index_t* waiting, int* unmirrored) {
  const index_t v = static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (v >= a.rows) return;
  bool missing = false;
  for (index_t k = a.row_ptr[v]; k < a.row_ptr[v + 1]; ++k) {
    const index_t u = a.col_idx[k];
    if (u > v) {
      atomicAdd(waiting + u, 1);
    } else if (u < v && !missing) {
      missing = !has_entry(a, u, v);
    }
  }
  if (missing) *unmirrored = 1;
}

// The rows nothing waits for take the first slots of the queue.
__global__ void push_first(index_t n, const index_t* __restrict__ waiting, index_t* queue,
                           unsigned* pushed) {
  const index_t v = static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (v < n && waiting[v] == 0) queue[rq::take_slot(pushed)] = v;
}

// The sweep (see above): levels stored to `level`, slots popped from *popped and pushed at
// *pushed (counts of slots taken so far).
__global__ void __launch_bounds__(kSweepThreads)
    level_sweep(CsrView<double> a, const int* __restrict__ unmirrored, int* level, index_t* waiting,
                index_t* queue, unsigned* popped, unsigned* pushed) {
  if (*unmirrored != 0) return;  // levels would be read before they are stored
  const int lane = static_cast<int>(threadIdx.x % kSweepTile);
  const unsigned mask = rq::tile_mask<kSweepTile>();
  index_t v = rq::kEmpty;  // the row this tile levels next, made ready by it; kEmpty: pop one
  for (;;) {
    const bool held = v >= 0;
    if (!held) {
      unsigned slot = 0;
      index_t entry = rq::kEmpty;
      if (lane == 0) slot = rq::take_slot(popped);
      slot = __shfl_sync(mask, slot, 0, kSweepTile);
      if (slot >= static_cast<unsigned>(a.rows)) return;
      if (lane == 0) {
        entry = rq::wait_slot(queue + slot);
        __threadfence();  // acquire: the levels stored before the push
      }
      __syncwarp(mask);
      v = __shfl_sync(mask, entry, 0, kSweepTile);
      if (v < 0) continue;  // a slot that only counts its row
    }
    unsigned count_slot = 0;  // a held row's slot, its store waits for the end
    if (held && lane == 0) count_slot = atomicAdd(pushed, 1u);
    int l = 0;  // 1 + the largest level among the entries before v
    const index_t end = a.row_ptr[v + 1];
    for (index_t k = a.row_ptr[v] + lane; k < end; k += kSweepTile) {
      const index_t j = a.col_idx[k];
      if (j < v) l = max(l, load_level(level + j) + 1);
    }
    l = rq::tile_max<kSweepTile>(mask, l);
    if (lane == 0) {
      store_level(level + v, l);
      if (held) rq::store_slot(queue + count_slot, rq::kCounted);
      __threadfence();  // release: the level before the counts go down
    }
    __syncwarp(mask);
    // v is counted off its later neighbours; those it was the last one for are ready.
    index_t ready = rq::kEmpty;  // the first this lane finds
    for (index_t k = a.row_ptr[v] + lane; k < end; k += kSweepTile) {
      const index_t u = a.col_idx[k];
      if (u <= v || atomicSub(waiting + u, 1) != 1) continue;
      __threadfence();  // acquire: u's earlier neighbours' levels; release for a push
      if (ready < 0) {
        ready = u;
      } else {
        rq::store_slot(queue + atomicAdd(pushed, 1u), u);
      }
    }
    __syncwarp(mask);
    const unsigned found = __ballot_sync(mask, ready >= 0);
    if (found == 0) {
      v = rq::kEmpty;
      continue;
    }
    const int first = __ffs(static_cast<int>(found)) - 1;  // a lane of the warp
    v = __shfl_sync(mask, ready, first % kSweepTile, kSweepTile);
    if (ready >= 0 && static_cast<int>(threadIdx.x % 32) != first) {
      rq::store_slot(queue + atomicAdd(pushed, 1u), ready);
    }
  }
}

// Blocks of the sweep: kSweepBlocksPerSm a multiprocessor, at most `needed`.
int sweep_blocks(long long needed) {
  int device = 0, sms = 0;
  PRISM_CUDA_CHECK(cudaGetDevice(&device));
  PRISM_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return static_cast<int>(
      std::max(1LL, std::min<long long>(needed, 1LL * kSweepBlocksPerSm * sms)));
}

/// level_ptr from the levels of rows [0, n) (n >= 1) where found[0], set by the launches
/// before, is 0: the largest level (CUB reduce into found[1]) comes back with found[0], then
/// the rows per level (CUB histogram); false (level_ptr untouched) where found[0] != 0.
bool level_ptr_of(const int* level, index_t n, int* found, std::vector<index_t>& level_ptr,
                  cudaStream_t stream) {
  int* largest = found + 1;
  std::size_t max_bytes = 0;
  PRISM_CUDA_CHECK(cub::DeviceReduce::Max(nullptr, max_bytes, level, largest, n, stream));
  {
    // Never null: CUB takes a null scratch pointer for a size query.
    DeviceBuffer<unsigned char> scratch(std::max<std::size_t>(max_bytes, 1));
    PRISM_CUDA_CHECK(cub::DeviceReduce::Max(scratch.data(), max_bytes, level, largest, n, stream));
  }
  int host_found[2] = {0, 0};
  PRISM_CUDA_CHECK(
      cudaMemcpyAsync(host_found, found, sizeof host_found, cudaMemcpyDeviceToHost, stream));
  PRISM_CUDA_CHECK(cudaStreamSynchronize(stream));
  if (host_found[0] != 0) return false;
  // Levels 0..largest: one bin of width 1 each, over [0, count).
  const int count = host_found[1] + 1;
  DeviceBuffer<int> rows_per_level(static_cast<std::size_t>(count));
  std::size_t histogram_bytes = 0;
  PRISM_CUDA_CHECK(cub::DeviceHistogram::HistogramEven(
      nullptr, histogram_bytes, level, rows_per_level.data(), count + 1, 0, count, n, stream));
  {
    DeviceBuffer<unsigned char> scratch(std::max<std::size_t>(histogram_bytes, 1));
    PRISM_CUDA_CHECK(cub::DeviceHistogram::HistogramEven(scratch.data(), histogram_bytes, level,
                                                         rows_per_level.data(), count + 1, 0, count,
                                                         n, stream));
  }
  const std::vector<int> sizes = download_and_wait(rows_per_level, stream);
  level_ptr.assign(static_cast<std::size_t>(count) + 1, 0);
  std::partial_sum(sizes.begin(), sizes.end(), level_ptr.begin() + 1);
  return true;
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
  return level_ptr_of(level.data(), n, found.data(), level_ptr, stream);
}

bool dataflow_level_ptr(const CsrView<double>& a, std::vector<index_t>& level_ptr,
                        cudaStream_t stream) {
  const index_t n = a.rows;
  if (n == 0) {
    level_ptr.assign(1, 0);
    return true;
  }
  const auto size = static_cast<std::size_t>(n);
  DeviceBuffer<int> level(size);
  DeviceBuffer<index_t> waiting(size), queue(size);
  DeviceBuffer<int> found(2);       // [0]: an entry without its mirror, [1]: the largest level
  DeviceBuffer<unsigned> slots(2);  // popped, pushed
  PRISM_CUDA_CHECK(cudaMemsetAsync(queue.data(), 0xff, size * sizeof(index_t), stream));  // kEmpty
  PRISM_CUDA_CHECK(cudaMemsetAsync(waiting.data(), 0, size * sizeof(index_t), stream));
  // Read by the reduce even where the sweep returns at once.
  PRISM_CUDA_CHECK(cudaMemsetAsync(level.data(), 0, size * sizeof(int), stream));
  PRISM_CUDA_CHECK(cudaMemsetAsync(found.data(), 0, 2 * sizeof(int), stream));
  PRISM_CUDA_CHECK(cudaMemsetAsync(slots.data(), 0, 2 * sizeof(unsigned), stream));
  const int blocks = static_cast<int>((static_cast<long long>(n) + kThreads - 1) / kThreads);
  count_waiting<<<blocks, kThreads, 0, stream>>>(a, waiting.data(), found.data());
  PRISM_CUDA_CHECK_LAUNCH();
  push_first<<<blocks, kThreads, 0, stream>>>(n, waiting.data(), queue.data(), slots.data() + 1);
  PRISM_CUDA_CHECK_LAUNCH();
  const long long needed = (1LL * n * kSweepTile + kSweepThreads - 1) / kSweepThreads;
  level_sweep<<<sweep_blocks(needed), kSweepThreads, 0, stream>>>(
      a, found.data(), level.data(), waiting.data(), queue.data(), slots.data(), slots.data() + 1);
  PRISM_CUDA_CHECK_LAUNCH();
  return level_ptr_of(level.data(), n, found.data(), level_ptr, stream);
}

}  // namespace prism::kernels::cuda
