#include "kernels/cuda/ic0_analysis.hpp"

#include "kernels/cuda/check.hpp"
#include "kernels/ic0_staging.hpp"

#include <algorithm>

#include <cub/device/device_scan.cuh>

namespace prism::kernels::cuda {
namespace {

constexpr int kThreads = 256;
// Lanes a row in fill_rows: rows of a few to a few dozen entries (grids, FEM) read their
// columns in one or a few coalesced steps without idling most of a warp.
constexpr int kRowLanes = 8;

int blocks_for(long long n) {
  return static_cast<int>((n + kThreads - 1) / kThreads);
}

/// The first position in [begin, end) whose column is >= c (columns sorted).
__device__ index_t lower_bound(const index_t* __restrict__ col_idx, index_t begin, index_t end,
                               index_t c) {
  while (begin < end) {
    const index_t mid = begin + (end - begin) / 2;
    if (col_idx[mid] < c) {
      begin = mid + 1;
    } else {
      end = mid;
    }
  }
  return begin;
}

/// Row i's diagonal position, its L row length (into l_length[i], scanned after) and the
/// reaches of its strict rows: sorted columns put the lower one's largest column just
/// left of the diagonal and the upper one's smallest just right of it.
__global__ void measure_rows(index_t rows, const index_t* __restrict__ row_ptr,
                             const index_t* __restrict__ col_idx, index_t* __restrict__ diagonal,
                             index_t* __restrict__ l_length, index_t* __restrict__ lower_reach,
                             index_t* __restrict__ upper_reach) {
  const index_t i = static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (i >= rows) return;
  const index_t begin = row_ptr[i], end = row_ptr[i + 1];
  const index_t d = lower_bound(col_idx, begin, end, i);
  diagonal[i] = d;
  l_length[i] = d - begin + 1;
  lower_reach[i] = d > begin ? col_idx[d - 1] : -1;
  upper_reach[i] = d + 1 < end ? col_idx[d + 1] : rows;
}

/// The strict triangles' row pointers, i <= rows: a row's strict lower entries start at
/// its L start less the diagonals above it; the strict upper ones at A's start less the
/// L entries above it (U's row start less the diagonals above).
__global__ void strict_pointers(index_t rows, const index_t* __restrict__ row_ptr,
                                const index_t* __restrict__ l_row_ptr,
                                index_t* __restrict__ strict_lower_ptr,
                                index_t* __restrict__ strict_upper_ptr) {
  const index_t i = static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (i > rows) return;
  strict_lower_ptr[i] = l_row_ptr[i] - i;
  strict_upper_ptr[i] = row_ptr[i] - l_row_ptr[i];
}

struct FillOutput {
  index_t* l_col_idx;
  index_t* lower_source;
  index_t* entry_row;
  index_t* strict_lower_col;
  index_t* strict_lower_source;
  index_t* strict_upper_col;
  index_t* strict_upper_source;
};

/// kRowLanes lanes a row: A's entries left of and at the diagonal into L (and the strict
/// lower triangle), those right of it into U's strict triangle, each mapped to its L entry
/// (the mirror (c, i) of entry (i, c), found in A's row c: L's row c is its prefix).
__global__ void fill_rows(index_t rows, const index_t* __restrict__ row_ptr,
                          const index_t* __restrict__ col_idx, const index_t* __restrict__ diagonal,
                          const index_t* __restrict__ l_row_ptr, FillOutput out) {
  const long long thread = static_cast<long long>(blockIdx.x) * kThreads + threadIdx.x;
  const auto i = static_cast<index_t>(thread / kRowLanes);
  const int lane = static_cast<int>(thread % kRowLanes);
  if (i >= rows) return;
  const index_t begin = row_ptr[i], end = row_ptr[i + 1], d = diagonal[i], lp = l_row_ptr[i];
  for (index_t k = begin + lane; k < end; k += kRowLanes) {
    const index_t c = col_idx[k];
    if (k <= d) {
      const index_t p = lp + (k - begin);
      out.l_col_idx[p] = c;
      out.lower_source[p] = k;
      out.entry_row[p] = i;
      if (k < d) {
        out.strict_lower_col[p - i] = c;
        out.strict_lower_source[p - i] = p;
      }
    } else {
      const index_t s = (begin - lp) + (k - d - 1);
      const index_t mirror = lower_bound(col_idx, row_ptr[c], row_ptr[c + 1], i);
      out.strict_upper_col[s] = c;
      out.strict_upper_source[s] = l_row_ptr[c] + (mirror - row_ptr[c]);
    }
  }
}

/// The block [block_ptr[b], block_ptr[b + 1]) of row i: the last b < blocks whose start
/// is at most i.
__device__ int block_of(index_t i, const index_t* __restrict__ block_ptr, int blocks) {
  int lo = 0, hi = blocks;
  while (hi - lo > 1) {
    const int mid = lo + (hi - lo) / 2;
    if (block_ptr[mid] <= i) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return lo;
}

/// out[slot] = max(out[slot], v) from each lane, `same` the lanes of its warp with the same
/// slot (all lanes of the warp call): one atomic a slot a warp, not one a row (a block of
/// a million rows would queue its rows' atomics on one address). 0 adds nothing.
__device__ void warp_max_into(index_t* out, int slot, unsigned same, index_t v) {
  const index_t m = __reduce_max_sync(same, v);
  if (slot >= 0 && m > 0 && static_cast<int>(threadIdx.x % 32) == __ffs(same) - 1) {
    atomicMax(out + slot, m);
  }
}

/// longest[b] = max over the rows i of block b of L's entries left of the diagonal.
__global__ void block_longest(index_t rows, const index_t* __restrict__ l_row_ptr,
                              const index_t* __restrict__ block_ptr, int blocks,
                              index_t* __restrict__ longest) {
  const index_t i = static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x;
  const int b = i < rows ? block_of(i, block_ptr, blocks) : -1;
  const index_t entries = i < rows ? l_row_ptr[i + 1] - l_row_ptr[i] - 1 : 0;
  warp_max_into(longest, b, __match_any_sync(0xffffffffu, b), entries);
}

/// ic0_staging's extents of every block at once: for choice j (r = 32 >> j rows a warp),
/// the group of r rows of block b that row i starts (i - begin a multiple of r, the last
/// group cut at the block's end) into extents[(b * kIc0StagingChoices + j) * 2] (its
/// entries of L) and [... + 1] (its matches).
__global__ void staging_extents(index_t rows, const index_t* __restrict__ l_row_ptr,
                                const index_t* __restrict__ match_ptr,
                                const index_t* __restrict__ block_ptr, int blocks,
                                index_t* __restrict__ extents) {
  const index_t i = static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x;
  const int b = i < rows ? block_of(i, block_ptr, blocks) : -1;
  const unsigned same = __match_any_sync(0xffffffffu, b);
  const index_t begin = b >= 0 ? block_ptr[b] : 0, end = b >= 0 ? block_ptr[b + 1] : 0;
  for (int j = 0; j < kIc0StagingChoices; ++j) {
    const index_t r = kIc0StagedThreads >> j;
    index_t entries = 0, pairs = 0;
    if (b >= 0 && (i - begin) % r == 0) {
      const index_t i1 = end - i < r ? end : i + r;
      entries = l_row_ptr[i1] - l_row_ptr[i];
      pairs = match_ptr[l_row_ptr[i1]] - match_ptr[l_row_ptr[i]];
    }
    const int slot = b >= 0 ? (b * kIc0StagingChoices + j) * 2 : -1;
    warp_max_into(extents, slot, same, entries);
    warp_max_into(extents, slot < 0 ? -1 : slot + 1, same, pairs);
  }
}

__global__ void compose(long long n, const index_t* __restrict__ through,
                        const index_t* __restrict__ source, index_t* __restrict__ out) {
  const long long k = static_cast<long long>(blockIdx.x) * kThreads + threadIdx.x;
  if (k >= n) return;
  const index_t t = through[k];
  out[k] = t < 0 ? -1 : source[t];
}

__global__ void row_last(index_t rows, const index_t* __restrict__ row_ptr,
                         const index_t* __restrict__ map, index_t* __restrict__ out) {
  const index_t i = static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (i < rows) out[i] = map[row_ptr[i + 1] - 1];
}

__global__ void scatter_destinations(long long stored, const index_t* __restrict__ source,
                                     const index_t* __restrict__ factor,
                                     index_t* __restrict__ dest) {
  const long long s = static_cast<long long>(blockIdx.x) * kThreads + threadIdx.x;
  if (s >= stored) return;
  const index_t from = source != nullptr ? source[s] : static_cast<index_t>(s);
  if (from >= 0) dest[factor[from]] = static_cast<index_t>(s);
}

}  // namespace

void exclusive_sum(const index_t* in, index_t* out, index_t n, cudaStream_t stream) {
  if (n <= 0) return;
  std::size_t bytes = 0;
  PRISM_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, in, out, n, stream));
  // Never null: CUB takes a null scratch pointer for a size query.
  StreamScratch<unsigned char> scratch(std::max<std::size_t>(bytes, 1), stream);
  PRISM_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(scratch.data(), bytes, in, out, n, stream));
}

namespace {

/// Consecutive spans of `arena`, sized in order.
class Carver {
 public:
  explicit Carver(DeviceBuffer<index_t>& arena) : next_(arena.data()) {}
  DeviceSpan take(std::size_t n) {
    const DeviceSpan span{n > 0 ? next_ : nullptr, n};
    next_ += n;
    return span;
  }

 private:
  index_t* next_;
};

}  // namespace

DeviceIc0Pattern ic0_analysis(CsrView<double> a, index_t nnz, cudaStream_t stream) {
  const index_t n = a.rows;
  const auto rows = static_cast<std::size_t>(n);
  DeviceIc0Pattern p;
  p.rows = n;
  p.l_row_ptr = DeviceBuffer<index_t>(rows + 1);
  p.row_arena = DeviceBuffer<index_t>(4 * rows + 2);
  {
    Carver carve(p.row_arena);
    p.strict_lower_ptr = carve.take(rows + 1);
    p.strict_upper_ptr = carve.take(rows + 1);
    p.lower_reach = carve.take(rows);
    p.upper_reach = carve.take(rows);
  }
  StreamScratch<index_t> diagonal(rows, stream);  // freed in stream order: no wait
  // L's row lengths into l_row_ptr[0, n), the last made 0: the exclusive sum of n + 1
  // entries is its row pointer.
  PRISM_CUDA_CHECK(cudaMemsetAsync(p.l_row_ptr.data() + n, 0, sizeof(index_t), stream));
  if (n > 0) {
    measure_rows<<<blocks_for(n), kThreads, 0, stream>>>(n, a.row_ptr, a.col_idx, diagonal.data(),
                                                         p.l_row_ptr.data(), p.lower_reach.data(),
                                                         p.upper_reach.data());
    PRISM_CUDA_CHECK_LAUNCH();
  }
  exclusive_sum(p.l_row_ptr.data(), p.l_row_ptr.data(), n + 1, stream);
  strict_pointers<<<blocks_for(static_cast<long long>(n) + 1), kThreads, 0, stream>>>(
      n, a.row_ptr, p.l_row_ptr.data(), p.strict_lower_ptr.data(), p.strict_upper_ptr.data());
  PRISM_CUDA_CHECK_LAUNCH();
  index_t lower_nnz = 0;
  PRISM_CUDA_CHECK(cudaMemcpyAsync(&lower_nnz, p.l_row_ptr.data() + n, sizeof(index_t),
                                   cudaMemcpyDeviceToHost, stream));
  PRISM_CUDA_CHECK(cudaStreamSynchronize(stream));
  const auto l_entries = static_cast<std::size_t>(lower_nnz);
  const auto upper_entries = static_cast<std::size_t>(nnz - lower_nnz);
  p.l_col_idx = DeviceBuffer<index_t>(l_entries);
  p.entry_row = DeviceBuffer<index_t>(l_entries);
  p.entry_arena = DeviceBuffer<index_t>(l_entries + 2 * (l_entries - rows) + 2 * upper_entries);
  {
    Carver carve(p.entry_arena);
    p.lower_source = carve.take(l_entries);
    p.strict_lower_col = carve.take(l_entries - rows);
    p.strict_lower_source = carve.take(l_entries - rows);
    p.strict_upper_col = carve.take(upper_entries);
    p.strict_upper_source = carve.take(upper_entries);
  }
  if (n > 0) {
    const FillOutput out{p.l_col_idx.data(),           p.lower_source.data(),
                         p.entry_row.data(),           p.strict_lower_col.data(),
                         p.strict_lower_source.data(), p.strict_upper_col.data(),
                         p.strict_upper_source.data()};
    fill_rows<<<blocks_for(static_cast<long long>(kRowLanes) * n), kThreads, 0, stream>>>(
        n, a.row_ptr, a.col_idx, diagonal.data(), p.l_row_ptr.data(), out);
    PRISM_CUDA_CHECK_LAUNCH();
  }
  return p;
}

std::vector<index_t> ic0_block_longest(const index_t* l_row_ptr,
                                       const std::vector<index_t>& block_ptr, cudaStream_t stream) {
  const int blocks = static_cast<int>(block_ptr.size()) - 1;
  if (blocks <= 0) return {};
  const index_t rows = block_ptr.back();
  const DeviceBuffer<index_t> ptr = upload_and_wait(block_ptr, stream);
  StreamScratch<index_t> longest(static_cast<std::size_t>(blocks), stream);
  PRISM_CUDA_CHECK(cudaMemsetAsync(longest.data(), 0,
                                   static_cast<std::size_t>(blocks) * sizeof(index_t), stream));
  if (rows > 0) {
    block_longest<<<blocks_for(rows), kThreads, 0, stream>>>(rows, l_row_ptr, ptr.data(), blocks,
                                                             longest.data());
    PRISM_CUDA_CHECK_LAUNCH();
  }
  std::vector<index_t> host(static_cast<std::size_t>(blocks));
  PRISM_CUDA_CHECK(cudaMemcpyAsync(host.data(), longest.data(), host.size() * sizeof(index_t),
                                   cudaMemcpyDeviceToHost, stream));
  PRISM_CUDA_CHECK(cudaStreamSynchronize(stream));
  return host;
}

std::vector<index_t> ic0_staging_extents(const index_t* l_row_ptr, const index_t* match_ptr,
                                         const std::vector<index_t>& block_ptr,
                                         cudaStream_t stream) {
  const int blocks = static_cast<int>(block_ptr.size()) - 1;
  if (blocks <= 0) return {};
  const index_t rows = block_ptr.back();
  const DeviceBuffer<index_t> ptr = upload_and_wait(block_ptr, stream);
  const std::size_t size = static_cast<std::size_t>(blocks) * kIc0StagingChoices * 2;
  StreamScratch<index_t> extents(size, stream);
  PRISM_CUDA_CHECK(cudaMemsetAsync(extents.data(), 0, size * sizeof(index_t), stream));
  if (rows > 0) {
    staging_extents<<<blocks_for(rows), kThreads, 0, stream>>>(rows, l_row_ptr, match_ptr,
                                                               ptr.data(), blocks, extents.data());
    PRISM_CUDA_CHECK_LAUNCH();
  }
  std::vector<index_t> host(size);
  PRISM_CUDA_CHECK(cudaMemcpyAsync(host.data(), extents.data(), size * sizeof(index_t),
                                   cudaMemcpyDeviceToHost, stream));
  PRISM_CUDA_CHECK(cudaStreamSynchronize(stream));
  return host;
}

void compose_maps(std::size_t n, const index_t* through, const index_t* source, index_t* out,
                  cudaStream_t stream) {
  if (n == 0) return;
  compose<<<blocks_for(static_cast<long long>(n)), kThreads, 0, stream>>>(static_cast<long long>(n),
                                                                          through, source, out);
  PRISM_CUDA_CHECK_LAUNCH();
}

void row_last_entries(index_t rows, const index_t* row_ptr, const index_t* map, index_t* out,
                      cudaStream_t stream) {
  if (rows <= 0) return;
  row_last<<<blocks_for(rows), kThreads, 0, stream>>>(rows, row_ptr, map, out);
  PRISM_CUDA_CHECK_LAUNCH();
}

void factor_destinations(std::size_t stored, const index_t* source, const index_t* factor,
                         std::size_t factor_entries, index_t* dest, cudaStream_t stream) {
  // All bytes 0xff: every entry -1.
  if (factor_entries > 0) {
    PRISM_CUDA_CHECK(cudaMemsetAsync(dest, 0xff, factor_entries * sizeof(index_t), stream));
  }
  if (stored == 0) return;
  scatter_destinations<<<blocks_for(static_cast<long long>(stored)), kThreads, 0, stream>>>(
      static_cast<long long>(stored), source, factor, dest);
  PRISM_CUDA_CHECK_LAUNCH();
}

}  // namespace prism::kernels::cuda
