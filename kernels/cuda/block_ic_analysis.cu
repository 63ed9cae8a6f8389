#include "kernels/cuda/block_ic_analysis.hpp"

#include "kernels/cuda/check.hpp"

#include <algorithm>
#include <numeric>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>

namespace prism::kernels::cuda {
namespace {

constexpr int kThreads = 256;
// Lanes a row in the scatter, the one pass over every entry of A that writes one: rows of
// a few dozen entries (FEM) write in one or a few coalesced steps.
constexpr int kRowLanes = 8;
// Relaxation passes of the levels on the device before the host finishes them: a pass
// settles at least one level (a block-colored order has about as many levels as colors;
// a chain of blocks, as a natural order has, one a block).
constexpr int kLevelPasses = 64;

using Key = unsigned long long;

int blocks_for(long long n) {
  return static_cast<int>((n + kThreads - 1) / kThreads);
}

/// Bits that hold the numbers 0 .. n - 1 (at least 1).
int bits_for(long long n) {
  int bits = 1;
  while (bits < 62 && (1LL << bits) < n) ++bits;
  return bits;
}

/// Runs a CUB call twice: the size query, then the call with that much scratch.
template <typename Call>
void with_scratch(Call&& call, cudaStream_t stream) {
  std::size_t bytes = 0;
  PRISM_CUDA_CHECK(call(nullptr, bytes));
  // Never null: CUB takes a null scratch pointer for a size query.
  StreamScratch<unsigned char> scratch(std::max<std::size_t>(bytes, 1), stream);
  PRISM_CUDA_CHECK(call(scratch.data(), bytes));
}

/// data[0, n) = its exclusive sum, in place.
template <typename T>
void exclusive_scan(T* data, long long n, cudaStream_t stream) {
  if (n <= 0) return;
  with_scratch(
      [&](void* scratch, std::size_t& bytes) {
        return cub::DeviceScan::ExclusiveSum(scratch, bytes, data, data, static_cast<int>(n),
                                             stream);
      },
      stream);
}

template <typename T>
T read_one(const T* device, cudaStream_t stream) {
  return download_and_wait(device, 1, stream)[0];
}

/// The first position in [begin, end) whose value is >= x (values sorted).
template <typename T>
__device__ index_t lower_bound(const T* __restrict__ v, index_t begin, index_t end, T x) {
  while (begin < end) {
    const index_t mid = begin + (end - begin) / 2;
    if (v[mid] < x) {
      begin = mid + 1;
    } else {
      end = mid;
    }
  }
  return begin;
}

struct Blocks {
  const index_t* ptr;  // block b: rows [ptr[b], ptr[b + 1])
  const index_t* of;   // block of each row
  index_t count;
  __device__ index_t size(index_t b) const { return ptr[b + 1] - ptr[b]; }
};

__global__ void block_of_rows(index_t rows, const index_t* __restrict__ block_ptr, index_t count,
                              index_t* __restrict__ block_of) {
  const index_t i = static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (i >= rows) return;
  index_t lo = 0, hi = count;  // the last block starting at or before i
  while (hi - lo > 1) {
    const index_t mid = lo + (hi - lo) / 2;
    if (block_ptr[mid] <= i) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  block_of[i] = lo;
}

/// Row i's diagonal entry (the smallest row without one into *missing) and the number of
/// distinct block columns J < I its entries fall in: sorted columns give them in
/// ascending runs, before the block's own columns.
__global__ void measure_rows(index_t rows, const index_t* __restrict__ row_ptr,
                             const index_t* __restrict__ col, Blocks blocks,
                             index_t* __restrict__ a_diagonal, index_t* __restrict__ key_count,
                             index_t* __restrict__ missing) {
  const index_t i = static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (i >= rows) return;
  const index_t begin = row_ptr[i], end = row_ptr[i + 1];
  const index_t d = lower_bound(col, begin, end, i);
  const bool found = d < end && col[d] == i;
  a_diagonal[i] = found ? d : -1;
  if (!found) atomicMin(missing, i);
  const index_t bi = blocks.of[i];
  index_t count = 0, previous = -1;
  for (index_t k = begin; k < end; ++k) {
    const index_t bj = blocks.of[col[k]];
    if (bj >= bi) break;
    if (bj != previous) ++count;
    previous = bj;
  }
  key_count[i] = count;
}

/// The keys (I, J) = I << shift | J that measure_rows counted, at key_ptr[i].
__global__ void emit_keys(index_t rows, const index_t* __restrict__ row_ptr,
                          const index_t* __restrict__ col, Blocks blocks,
                          const index_t* __restrict__ key_ptr, int shift, Key* __restrict__ keys) {
  const index_t i = static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (i >= rows) return;
  const index_t bi = blocks.of[i];
  index_t out = key_ptr[i], previous = -1;
  for (index_t k = row_ptr[i]; k < row_ptr[i + 1]; ++k) {
    const index_t bj = blocks.of[col[k]];
    if (bj >= bi) break;
    if (bj != previous) keys[out++] = static_cast<Key>(bi) << shift | static_cast<Key>(bj);
    previous = bj;
  }
}

/// high[e] = keys[e] >> shift, low[e] = the rest.
__global__ void split_keys(index_t n, const Key* __restrict__ keys, int shift,
                           index_t* __restrict__ high, index_t* __restrict__ low) {
  const index_t e = static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (e >= n) return;
  high[e] = static_cast<index_t>(keys[e] >> shift);
  low[e] = static_cast<index_t>(keys[e] & ((Key{1} << shift) - 1));
}

/// ptr[b] = the first position of b in sorted[0, n), b <= count: the row pointers of
/// entries sorted by row.
template <typename T>
__global__ void pointers_of_sorted(index_t count, const T* __restrict__ sorted, index_t n,
                                   index_t* __restrict__ ptr) {
  const index_t b = static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (b > count) return;
  ptr[b] = lower_bound(sorted, 0, n, static_cast<T>(b));
}

/// The factor's values in BlockFactor's order: block row I's entries L_IJ, then L_II. Item
/// e + I is entry e's size, item row_ptr[I + 1] + I the diagonal block's; the squares of
/// the blocks are also the inverses' sizes.
__global__ void entry_sizes(index_t entries, const index_t* __restrict__ entry_row,
                            const index_t* __restrict__ col, Blocks blocks,
                            std::int64_t* __restrict__ items) {
  const index_t e = static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (e >= entries) return;
  const index_t i = entry_row[e];
  items[e + i] = static_cast<std::int64_t>(blocks.size(i)) * blocks.size(col[e]);
}

__global__ void block_sizes(Blocks blocks, const index_t* __restrict__ row_ptr,
                            std::int64_t* __restrict__ items, std::int64_t* __restrict__ squares) {
  const index_t b = static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (b >= blocks.count) return;
  const std::int64_t size = blocks.size(b);
  items[row_ptr[b + 1] + b] = size * size;
  squares[b] = size * size;
}

__global__ void gather_offsets(index_t entries, const index_t* __restrict__ entry_row,
                               const std::int64_t* __restrict__ items,
                               std::int64_t* __restrict__ offset) {
  const index_t e = static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (e < entries) offset[e] = items[e + entry_row[e]];
}

__global__ void gather_diagonals(index_t count, const index_t* __restrict__ row_ptr,
                                 const std::int64_t* __restrict__ items,
                                 std::int64_t* __restrict__ diagonal) {
  const index_t b = static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (b < count) diagonal[b] = items[row_ptr[b + 1] + b];
}

struct Factor {
  const index_t* row_ptr;
  const index_t* col;
  const std::int64_t* offset;
  const std::int64_t* diagonal;
};

/// Where each entry of A goes in the factor's values (-1 above the block diagonal): its
/// block's L_II, or the L_IJ found in block row I; kRowLanes lanes a row.
__global__ void scatter_entries(index_t rows, const index_t* __restrict__ row_ptr,
                                const index_t* __restrict__ col, Blocks blocks, Factor f,
                                std::int64_t* __restrict__ scatter) {
  const long long thread = static_cast<long long>(blockIdx.x) * kThreads + threadIdx.x;
  const auto i = static_cast<index_t>(thread / kRowLanes);
  const int lane = static_cast<int>(thread % kRowLanes);
  if (i >= rows) return;
  const index_t bi = blocks.of[i];
  const std::int64_t r = i - blocks.ptr[bi];
  for (index_t k = row_ptr[i] + lane; k < row_ptr[i + 1]; k += kRowLanes) {
    const index_t j = col[k];
    const index_t bj = blocks.of[j];
    const std::int64_t c = j - blocks.ptr[bj];
    std::int64_t to = -1;
    if (bj == bi) {
      to = f.diagonal[bi] + r * blocks.size(bi) + c;
    } else if (bj < bi) {
      const index_t e = lower_bound(f.col, f.row_ptr[bi], f.row_ptr[bi + 1], bj);
      to = f.offset[e] + r * blocks.size(bj) + c;
    }
    scatter[k] = to;
  }
}

/// The transpose's sort keys (J, I) and values e.
__global__ void transpose_keys(index_t entries, const index_t* __restrict__ entry_row,
                               const index_t* __restrict__ col, int shift, Key* __restrict__ keys,
                               index_t* __restrict__ entry) {
  const index_t e = static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (e >= entries) return;
  keys[e] = static_cast<Key>(col[e]) << shift | static_cast<Key>(entry_row[e]);
  entry[e] = e;
}

__global__ void row_sizes(index_t n, const index_t* __restrict__ row, Blocks blocks,
                          index_t* __restrict__ sizes) {
  const index_t t = static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (t < n) sizes[t] = blocks.size(row[t]);
}

/// prefix[entry[t]] = the sizes of the block rows before t's in its block column J.
__global__ void transpose_prefixes(index_t entries, const index_t* __restrict__ t_col,
                                   const index_t* __restrict__ t_entry,
                                   const index_t* __restrict__ t_ptr,
                                   const index_t* __restrict__ before,
                                   index_t* __restrict__ prefix) {
  const index_t t = static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (t < entries) prefix[t_entry[t]] = before[t] - before[t_ptr[t_col[t]]];
}

/// One relaxation pass of level[I] = max over I's entries of level[J] + 1 (0 without
/// any): the levels only grow and stay at most the final ones, so a pass that changes
/// nothing leaves them final.
__global__ void relax_levels(index_t count, const index_t* __restrict__ row_ptr,
                             const index_t* __restrict__ col, int* level,
                             int* __restrict__ changed) {
  const index_t b = static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (b >= count) return;
  int l = 0;
  for (index_t e = row_ptr[b]; e < row_ptr[b + 1]; ++e) l = max(l, level[col[e]] + 1);
  if (l > level[b]) {
    level[b] = l;
    *changed = 1;
  }
}

__global__ void iota(index_t n, index_t* __restrict__ out) {
  const index_t i = static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (i < n) out[i] = i;
}

struct Widths {
  const index_t* forward;   // per block: the columns of its entries' blocks (W's row)
  const index_t* backward;  // per block: the rows of the block rows coupled to it (V's row)
};

__global__ void block_widths(Blocks blocks, const index_t* __restrict__ row_ptr,
                             const index_t* __restrict__ col, const index_t* __restrict__ t_ptr,
                             const index_t* __restrict__ t_row, index_t* __restrict__ forward,
                             index_t* __restrict__ backward) {
  const index_t b = static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (b >= blocks.count) return;
  index_t w = 0, v = 0;
  for (index_t e = row_ptr[b]; e < row_ptr[b + 1]; ++e) w += blocks.size(col[e]);
  for (index_t t = t_ptr[b]; t < t_ptr[b + 1]; ++t) v += blocks.size(t_row[t]);
  forward[b] = w;
  backward[b] = v;
}

struct OperatorRows {
  index_t* forward_diagonal;
  index_t* forward;
  index_t* backward_diagonal;
  index_t* backward;
};

/// Each row's length in F, I + W, B and I + V (block_sweeps.hpp).
__global__ void operator_lengths(index_t rows, Blocks blocks, Widths widths, OperatorRows out) {
  const index_t i = static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (i >= rows) return;
  const index_t b = blocks.of[i], r = i - blocks.ptr[b];
  out.forward_diagonal[i] = r + 1;
  out.forward[i] = widths.forward[b] + 1;
  out.backward_diagonal[i] = blocks.size(b) - r;
  out.backward[i] = widths.backward[b] + 1;
}

struct OperatorPatterns {
  const index_t* forward_diagonal_ptr;
  const index_t* forward_ptr;
  const index_t* backward_diagonal_ptr;
  const index_t* backward_ptr;
  index_t* forward_diagonal;
  index_t* forward;
  index_t* backward_diagonal;
  index_t* backward;
};

/// Row i's columns in the four operators, in block_sweeps_pattern's order.
__global__ void operator_columns(index_t rows, Blocks blocks, const index_t* __restrict__ row_ptr,
                                 const index_t* __restrict__ col, const index_t* __restrict__ t_ptr,
                                 const index_t* __restrict__ t_row, OperatorPatterns p) {
  const index_t i = static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (i >= rows) return;
  const index_t b = blocks.of[i], first = blocks.ptr[b], last = blocks.ptr[b + 1];
  index_t out = p.forward_diagonal_ptr[i];
  for (index_t c = first; c <= i; ++c) p.forward_diagonal[out++] = c;
  out = p.forward_ptr[i];
  for (index_t e = row_ptr[b]; e < row_ptr[b + 1]; ++e) {
    for (index_t c = blocks.ptr[col[e]]; c < blocks.ptr[col[e] + 1]; ++c) p.forward[out++] = c;
  }
  p.forward[out] = i;
  out = p.backward_diagonal_ptr[i];
  for (index_t c = i; c < last; ++c) p.backward_diagonal[out++] = c;
  out = p.backward_ptr[i];
  p.backward[out++] = i;
  for (index_t t = t_ptr[b]; t < t_ptr[b + 1]; ++t) {
    for (index_t c = blocks.ptr[t_row[t]]; c < blocks.ptr[t_row[t] + 1]; ++c) p.backward[out++] = c;
  }
}

/// Row i's sum of |a_ij| inside its block and in all.
__global__ void row_weights(index_t rows, CsrView<double> a, Blocks blocks,
                            double* __restrict__ inside, double* __restrict__ total) {
  const index_t i = static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (i >= rows) return;
  double in = 0.0, all = 0.0;
  const index_t bi = blocks.of[i];
  for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
    const double w = fabs(a.values[k]);
    all += w;
    if (blocks.of[a.col_idx[k]] == bi) in += w;
  }
  inside[i] = in;
  total[i] = all;
}

/// What the steps below share: the input, the blocks and the plan they fill.
struct Analysis {
  CsrView<double> a;
  index_t nnz;
  cudaStream_t stream;
  DeviceBlockIcPlan& plan;
  DeviceBuffer<index_t> block_of;
  int shift;  // bits of a block number in a pair key
  // The transpose's entries by block column: their columns and rows.
  DeviceBuffer<index_t> t_col, t_row;

  index_t n() const { return a.rows; }
  index_t count() const { return plan.blocks; }
  Blocks blocks() const { return {plan.block_ptr.data(), block_of.data(), plan.blocks}; }
};

template <typename T>
DeviceBuffer<T> copy_of(const T* device, std::size_t n, cudaStream_t stream) {
  DeviceBuffer<T> out(n);
  if (n > 0) {
    PRISM_CUDA_CHECK(
        cudaMemcpyAsync(out.data(), device, n * sizeof(T), cudaMemcpyDeviceToDevice, stream));
  }
  return out;
}

/// Sorts n pair keys (distinct) with their values, in place, and splits them: high[k] = the
/// first of the k-th pair, low[k] = the second.
void sort_pairs(Analysis& s, DeviceBuffer<Key>& keys, index_t n, index_t* values, index_t* high,
                index_t* low) {
  DeviceBuffer<Key> sorted(static_cast<std::size_t>(n));
  DeviceBuffer<index_t> sorted_values(static_cast<std::size_t>(n));
  with_scratch(
      [&](void* scratch, std::size_t& bytes) {
        return cub::DeviceRadixSort::SortPairs(scratch, bytes, keys.data(), sorted.data(), values,
                                               sorted_values.data(), n, 0, 2 * s.shift, s.stream);
      },
      s.stream);
  PRISM_CUDA_CHECK(cudaMemcpyAsync(values, sorted_values.data(), n * sizeof(index_t),
                                   cudaMemcpyDeviceToDevice, s.stream));
  split_keys<<<blocks_for(n), kThreads, 0, s.stream>>>(n, sorted.data(), s.shift, high, low);
  PRISM_CUDA_CHECK_LAUNCH();
}

/// The factor's block pattern (quotient_matrix's entries J < I) and A's diagonal entries;
/// false (missing_diagonal set) where a row stores no diagonal.
bool block_pattern(Analysis& s) {
  DeviceBlockIcPlan& plan = s.plan;
  const index_t n = s.n();
  plan.a_diagonal = DeviceBuffer<index_t>(static_cast<std::size_t>(n));
  DeviceBuffer<index_t> key_ptr(static_cast<std::size_t>(n) + 1);
  DeviceBuffer<index_t> missing(1);
  PRISM_CUDA_CHECK(cudaMemsetAsync(missing.data(), 0x7f, sizeof(index_t), s.stream));
  PRISM_CUDA_CHECK(cudaMemsetAsync(key_ptr.data() + n, 0, sizeof(index_t), s.stream));
  measure_rows<<<blocks_for(n), kThreads, 0, s.stream>>>(n, s.a.row_ptr, s.a.col_idx, s.blocks(),
                                                         plan.a_diagonal.data(), key_ptr.data(),
                                                         missing.data());
  PRISM_CUDA_CHECK_LAUNCH();
  exclusive_scan(key_ptr.data(), static_cast<long long>(n) + 1, s.stream);
  index_t found[2] = {0, 0};  // the keys, the first row without a diagonal
  PRISM_CUDA_CHECK(cudaMemcpyAsync(&found[0], key_ptr.data() + n, sizeof(index_t),
                                   cudaMemcpyDeviceToHost, s.stream));
  PRISM_CUDA_CHECK(cudaMemcpyAsync(&found[1], missing.data(), sizeof(index_t),
                                   cudaMemcpyDeviceToHost, s.stream));
  PRISM_CUDA_CHECK(cudaStreamSynchronize(s.stream));
  if (found[1] < n) {
    plan.missing_diagonal = found[1];
    return false;
  }
  // The rows of a block list each (I, J) once per row: sorted and made unique.
  DeviceBuffer<Key> keys(static_cast<std::size_t>(found[0]));
  emit_keys<<<blocks_for(n), kThreads, 0, s.stream>>>(n, s.a.row_ptr, s.a.col_idx, s.blocks(),
                                                      key_ptr.data(), s.shift, keys.data());
  PRISM_CUDA_CHECK_LAUNCH();
  index_t entries = 0;
  if (found[0] > 0) {
    DeviceBuffer<Key> sorted(keys.size()), unique(keys.size());
    DeviceBuffer<index_t> selected(1);
    with_scratch(
        [&](void* scratch, std::size_t& bytes) {
          return cub::DeviceRadixSort::SortKeys(scratch, bytes, keys.data(), sorted.data(),
                                                found[0], 0, 2 * s.shift, s.stream);
        },
        s.stream);
    with_scratch(
        [&](void* scratch, std::size_t& bytes) {
          return cub::DeviceSelect::Unique(scratch, bytes, sorted.data(), unique.data(),
                                           selected.data(), found[0], s.stream);
        },
        s.stream);
    entries = read_one(selected.data(), s.stream);
    keys = std::move(unique);
  }
  plan.entries = entries;
  plan.entry_row = DeviceBuffer<index_t>(static_cast<std::size_t>(entries));
  plan.col = DeviceBuffer<index_t>(static_cast<std::size_t>(entries));
  if (entries > 0) {
    split_keys<<<blocks_for(entries), kThreads, 0, s.stream>>>(
        entries, keys.data(), s.shift, plan.entry_row.data(), plan.col.data());
    PRISM_CUDA_CHECK_LAUNCH();
  }
  plan.row_ptr = DeviceBuffer<index_t>(static_cast<std::size_t>(s.count()) + 1);
  pointers_of_sorted<<<blocks_for(static_cast<long long>(s.count()) + 1), kThreads, 0, s.stream>>>(
      s.count(), plan.entry_row.data(), entries, plan.row_ptr.data());
  PRISM_CUDA_CHECK_LAUNCH();
  return true;
}

/// offset, diagonal and inverse: BlockFactor's layout of the values, and the inverses'.
void layout(Analysis& s) {
  DeviceBlockIcPlan& plan = s.plan;
  const index_t count = s.count(), entries = plan.entries;
  const long long items = static_cast<long long>(entries) + count + 1;
  DeviceBuffer<std::int64_t> positions(static_cast<std::size_t>(items));
  DeviceBuffer<std::int64_t> squares(static_cast<std::size_t>(count) + 1);
  PRISM_CUDA_CHECK(
      cudaMemsetAsync(positions.data() + items - 1, 0, sizeof(std::int64_t), s.stream));
  PRISM_CUDA_CHECK(cudaMemsetAsync(squares.data() + count, 0, sizeof(std::int64_t), s.stream));
  if (entries > 0) {
    entry_sizes<<<blocks_for(entries), kThreads, 0, s.stream>>>(
        entries, plan.entry_row.data(), plan.col.data(), s.blocks(), positions.data());
    PRISM_CUDA_CHECK_LAUNCH();
  }
  block_sizes<<<blocks_for(count), kThreads, 0, s.stream>>>(s.blocks(), plan.row_ptr.data(),
                                                            positions.data(), squares.data());
  PRISM_CUDA_CHECK_LAUNCH();
  exclusive_scan(positions.data(), items, s.stream);
  exclusive_scan(squares.data(), static_cast<long long>(count) + 1, s.stream);
  plan.offset = DeviceBuffer<std::int64_t>(static_cast<std::size_t>(entries));
  plan.diagonal = DeviceBuffer<std::int64_t>(static_cast<std::size_t>(count));
  if (entries > 0) {
    gather_offsets<<<blocks_for(entries), kThreads, 0, s.stream>>>(
        entries, plan.entry_row.data(), positions.data(), plan.offset.data());
    PRISM_CUDA_CHECK_LAUNCH();
  }
  gather_diagonals<<<blocks_for(count), kThreads, 0, s.stream>>>(
      count, plan.row_ptr.data(), positions.data(), plan.diagonal.data());
  PRISM_CUDA_CHECK_LAUNCH();
  plan.inverse = copy_of(squares.data(), static_cast<std::size_t>(count), s.stream);
  plan.value_count = read_one(positions.data() + items - 1, s.stream);
  plan.inverse_count = read_one(squares.data() + count, s.stream);
}

void scatter(Analysis& s) {
  DeviceBlockIcPlan& plan = s.plan;
  plan.scatter = DeviceBuffer<std::int64_t>(static_cast<std::size_t>(s.nnz));
  const Factor f{plan.row_ptr.data(), plan.col.data(), plan.offset.data(), plan.diagonal.data()};
  scatter_entries<<<blocks_for(static_cast<long long>(kRowLanes) * s.n()), kThreads, 0, s.stream>>>(
      s.n(), s.a.row_ptr, s.a.col_idx, s.blocks(), f, plan.scatter.data());
  PRISM_CUDA_CHECK_LAUNCH();
}

/// transpose_ptr, transpose_entry (set_transpose's counting sort: by block column, then
/// ascending block row) and transpose_prefix.
void transpose(Analysis& s) {
  DeviceBlockIcPlan& plan = s.plan;
  const index_t count = s.count(), entries = plan.entries;
  const auto size = static_cast<std::size_t>(entries);
  plan.transpose_entry = DeviceBuffer<index_t>(size);
  plan.transpose_prefix = DeviceBuffer<index_t>(size);
  plan.transpose_ptr = DeviceBuffer<index_t>(static_cast<std::size_t>(count) + 1);
  s.t_col = DeviceBuffer<index_t>(size);
  s.t_row = DeviceBuffer<index_t>(size);
  DeviceBuffer<index_t> before(size + 1);
  if (entries > 0) {
    DeviceBuffer<Key> keys(size);
    transpose_keys<<<blocks_for(entries), kThreads, 0, s.stream>>>(
        entries, plan.entry_row.data(), plan.col.data(), s.shift, keys.data(),
        plan.transpose_entry.data());
    PRISM_CUDA_CHECK_LAUNCH();
    sort_pairs(s, keys, entries, plan.transpose_entry.data(), s.t_col.data(), s.t_row.data());
    row_sizes<<<blocks_for(entries), kThreads, 0, s.stream>>>(entries, s.t_row.data(), s.blocks(),
                                                              before.data());
    PRISM_CUDA_CHECK_LAUNCH();
  }
  PRISM_CUDA_CHECK(cudaMemsetAsync(before.data() + entries, 0, sizeof(index_t), s.stream));
  exclusive_scan(before.data(), static_cast<long long>(entries) + 1, s.stream);
  pointers_of_sorted<<<blocks_for(static_cast<long long>(count) + 1), kThreads, 0, s.stream>>>(
      count, s.t_col.data(), entries, plan.transpose_ptr.data());
  PRISM_CUDA_CHECK_LAUNCH();
  if (entries > 0) {
    transpose_prefixes<<<blocks_for(entries), kThreads, 0, s.stream>>>(
        entries, s.t_col.data(), plan.transpose_entry.data(), plan.transpose_ptr.data(),
        before.data(), plan.transpose_prefix.data());
    PRISM_CUDA_CHECK_LAUNCH();
  }
}

/// The levels on the host (set_levels' loop), where the device's passes did not settle.
void host_levels(Analysis& s, DeviceBuffer<int>& level) {
  const std::vector<index_t> row_ptr = download_and_wait(s.plan.row_ptr, s.stream);
  const std::vector<index_t> col = download_and_wait(s.plan.col, s.stream);
  std::vector<int> host(static_cast<std::size_t>(s.count()), 0);
  for (index_t i = 0; i < s.count(); ++i) {
    for (index_t e = row_ptr[i]; e < row_ptr[i + 1]; ++e)
      host[i] = std::max(host[i], host[col[e]] + 1);
  }
  level.upload(host.data(), s.stream);
  PRISM_CUDA_CHECK(cudaStreamSynchronize(s.stream));
}

/// level_ptr (to the host) and level_blocks: the blocks by level, ascending in each.
void levels(Analysis& s) {
  DeviceBlockIcPlan& plan = s.plan;
  const index_t count = s.count();
  DeviceBuffer<int> level(static_cast<std::size_t>(count));
  PRISM_CUDA_CHECK(cudaMemsetAsync(level.data(), 0, count * sizeof(int), s.stream));
  DeviceBuffer<int> changed(1);
  bool settled = false;
  for (int pass = 0; pass < kLevelPasses && !settled; ++pass) {
    PRISM_CUDA_CHECK(cudaMemsetAsync(changed.data(), 0, sizeof(int), s.stream));
    relax_levels<<<blocks_for(count), kThreads, 0, s.stream>>>(
        count, plan.row_ptr.data(), plan.col.data(), level.data(), changed.data());
    PRISM_CUDA_CHECK_LAUNCH();
    settled = read_one(changed.data(), s.stream) == 0;
  }
  if (!settled) host_levels(s, level);
  DeviceBuffer<int> largest(1);
  with_scratch(
      [&](void* scratch, std::size_t& bytes) {
        return cub::DeviceReduce::Max(scratch, bytes, level.data(), largest.data(), count,
                                      s.stream);
      },
      s.stream);
  const index_t levels = read_one(largest.data(), s.stream) + 1;
  // The blocks sorted by level (stable: ascending in a level), as set_levels' counting sort.
  DeviceBuffer<index_t> blocks(static_cast<std::size_t>(count));
  DeviceBuffer<int> sorted(static_cast<std::size_t>(count));
  plan.level_blocks = DeviceBuffer<index_t>(static_cast<std::size_t>(count));
  iota<<<blocks_for(count), kThreads, 0, s.stream>>>(count, blocks.data());
  PRISM_CUDA_CHECK_LAUNCH();
  with_scratch(
      [&](void* scratch, std::size_t& bytes) {
        return cub::DeviceRadixSort::SortPairs(scratch, bytes, level.data(), sorted.data(),
                                               blocks.data(), plan.level_blocks.data(), count, 0,
                                               bits_for(levels), s.stream);
      },
      s.stream);
  DeviceBuffer<index_t> level_ptr(static_cast<std::size_t>(levels) + 1);
  pointers_of_sorted<<<blocks_for(static_cast<long long>(levels) + 1), kThreads, 0, s.stream>>>(
      levels, sorted.data(), count, level_ptr.data());
  PRISM_CUDA_CHECK_LAUNCH();
  plan.level_ptr = download_and_wait(level_ptr, s.stream);
}

/// The operators' patterns and row pointers (block_sweeps_pattern).
void operator_patterns(Analysis& s) {
  DeviceBlockIcPlan& plan = s.plan;
  const index_t n = s.n(), count = s.count();
  DeviceBuffer<index_t> widths(2 * static_cast<std::size_t>(count));
  block_widths<<<blocks_for(count), kThreads, 0, s.stream>>>(
      s.blocks(), plan.row_ptr.data(), plan.col.data(), plan.transpose_ptr.data(), s.t_row.data(),
      widths.data(), widths.data() + count);
  PRISM_CUDA_CHECK_LAUNCH();
  DevicePattern* patterns[] = {&plan.forward_diagonal, &plan.forward, &plan.backward_diagonal,
                               &plan.backward};
  for (DevicePattern* p : patterns) {
    p->row_ptr = DeviceBuffer<index_t>(static_cast<std::size_t>(n) + 1);
    PRISM_CUDA_CHECK(cudaMemsetAsync(p->row_ptr.data() + n, 0, sizeof(index_t), s.stream));
  }
  const Widths w{widths.data(), widths.data() + count};
  const OperatorRows lengths{plan.forward_diagonal.row_ptr.data(), plan.forward.row_ptr.data(),
                             plan.backward_diagonal.row_ptr.data(), plan.backward.row_ptr.data()};
  operator_lengths<<<blocks_for(n), kThreads, 0, s.stream>>>(n, s.blocks(), w, lengths);
  PRISM_CUDA_CHECK_LAUNCH();
  index_t sizes[4] = {0, 0, 0, 0};
  for (int k = 0; k < 4; ++k) {
    exclusive_scan(patterns[k]->row_ptr.data(), static_cast<long long>(n) + 1, s.stream);
    PRISM_CUDA_CHECK(cudaMemcpyAsync(&sizes[k], patterns[k]->row_ptr.data() + n, sizeof(index_t),
                                     cudaMemcpyDeviceToHost, s.stream));
  }
  PRISM_CUDA_CHECK(cudaStreamSynchronize(s.stream));
  for (int k = 0; k < 4; ++k) {
    patterns[k]->col_idx = DeviceBuffer<index_t>(static_cast<std::size_t>(sizes[k]));
    plan.operator_nnz[k] = sizes[k];
  }
  const OperatorPatterns out{plan.forward_diagonal.row_ptr.data(),  plan.forward.row_ptr.data(),
                             plan.backward_diagonal.row_ptr.data(), plan.backward.row_ptr.data(),
                             plan.forward_diagonal.col_idx.data(),  plan.forward.col_idx.data(),
                             plan.backward_diagonal.col_idx.data(), plan.backward.col_idx.data()};
  operator_columns<<<blocks_for(n), kThreads, 0, s.stream>>>(
      n, s.blocks(), plan.row_ptr.data(), plan.col.data(), plan.transpose_ptr.data(),
      s.t_row.data(), out);
  PRISM_CUDA_CHECK_LAUNCH();
}

/// diagonal_block_weight from A's values, block_of[i] the block of row i.
double block_weight(CsrView<double> a, const Blocks& blocks, cudaStream_t stream) {
  const index_t n = a.rows;
  if (n == 0) return 1.0;
  DeviceBuffer<double> rows(2 * static_cast<std::size_t>(n)), sums(2);
  row_weights<<<blocks_for(n), kThreads, 0, stream>>>(n, a, blocks, rows.data(), rows.data() + n);
  PRISM_CUDA_CHECK_LAUNCH();
  for (int k = 0; k < 2; ++k) {
    with_scratch(
        [&](void* scratch, std::size_t& bytes) {
          return cub::DeviceReduce::Sum(scratch, bytes, rows.data() + k * n, sums.data() + k, n,
                                        stream);
        },
        stream);
  }
  const std::vector<double> sum = download_and_wait(sums, stream);
  return sum[1] > 0.0 ? sum[0] / sum[1] : 1.0;
}

/// block_of[i] = the block of row i, i < rows.
void find_block_of(index_t rows, const index_t* block_ptr, index_t count, index_t* block_of,
                   cudaStream_t stream) {
  if (rows == 0) return;
  block_of_rows<<<blocks_for(rows), kThreads, 0, stream>>>(rows, block_ptr, count, block_of);
  PRISM_CUDA_CHECK_LAUNCH();
}

/// The plan of a matrix of no rows (and no blocks): pointers of one entry, one level of none.
DeviceBlockIcPlan empty_plan(DeviceBlockIcPlan plan, cudaStream_t stream) {
  const std::vector<index_t> zero{0};
  plan.row_ptr = upload_and_wait(zero, stream);
  plan.transpose_ptr = upload_and_wait(zero, stream);
  plan.level_ptr = zero;
  if (plan.operators) {
    for (DevicePattern* p :
         {&plan.forward_diagonal, &plan.forward, &plan.backward_diagonal, &plan.backward}) {
      p->row_ptr = upload_and_wait(zero, stream);
    }
  }
  return plan;
}

}  // namespace

BlockIcView DeviceBlockIcPlan::view() const {
  BlockIcView v;
  v.rows = rows;
  v.blocks = blocks;
  v.entries = entries;
  v.block_ptr = block_ptr.data();
  v.row_ptr = row_ptr.data();
  v.col = col.data();
  v.entry_row = entry_row.data();
  v.offset = offset.data();
  v.diagonal = diagonal.data();
  v.inverse = inverse.data();
  v.transpose_prefix = transpose_prefix.data();
  v.a_row_ptr = a_row_ptr.data();
  v.a_col = a_col.data();
  v.scatter = scatter.data();
  v.a_diagonal = a_diagonal.data();
  v.forward_ptr = forward.row_ptr.data();
  v.backward_ptr = backward.row_ptr.data();
  v.forward_diagonal_ptr = forward_diagonal.row_ptr.data();
  v.backward_diagonal_ptr = backward_diagonal.row_ptr.data();
  v.level_blocks = level_blocks.data();
  v.transpose_ptr = transpose_ptr.data();
  v.transpose_entry = transpose_entry.data();
  v.uniform_block = uniform_block;
  return v;
}

DeviceBlockIcPlan block_ic_analysis(CsrView<double> a, index_t nnz,
                                    const std::vector<index_t>& block_ptr, bool operators,
                                    bool float_solves, cudaStream_t stream) {
  DeviceBlockIcPlan plan;
  plan.rows = a.rows;
  plan.blocks = static_cast<index_t>(block_ptr.size()) - 1;
  plan.host_block_ptr = block_ptr;
  plan.operators = operators;
  plan.float_solves = float_solves;
  for (index_t b = 0; b < plan.blocks; ++b) {
    plan.largest_block = std::max(plan.largest_block, block_ptr[b + 1] - block_ptr[b]);
  }
  bool uniform = true;
  for (index_t b = 0; b < plan.blocks; ++b) {
    uniform = uniform && block_ptr[b + 1] - block_ptr[b] == plan.largest_block;
  }
  plan.uniform_block = uniform ? plan.largest_block : 0;
  plan.block_ptr = upload_and_wait(block_ptr, stream);
  plan.a_row_ptr = copy_of(a.row_ptr, static_cast<std::size_t>(a.rows) + 1, stream);
  plan.a_col = copy_of(a.col_idx, static_cast<std::size_t>(nnz), stream);
  if (a.rows == 0) return empty_plan(std::move(plan), stream);
  Analysis s{a,
             nnz,
             stream,
             plan,
             DeviceBuffer<index_t>(static_cast<std::size_t>(a.rows)),
             bits_for(std::max<index_t>(plan.blocks, 1)),
             {},
             {}};
  find_block_of(a.rows, plan.block_ptr.data(), plan.blocks, s.block_of.data(), stream);
  if (!block_pattern(s)) return plan;
  layout(s);
  scatter(s);
  transpose(s);
  levels(s);
  if (operators) operator_patterns(s);
  if (a.values != nullptr) plan.block_weight = block_weight(a, s.blocks(), stream);
  PRISM_CUDA_CHECK(cudaStreamSynchronize(stream));
  return plan;
}

double diagonal_block_weight(CsrView<double> a, const std::vector<index_t>& block_ptr,
                             cudaStream_t stream) {
  const DeviceBuffer<index_t> ptr = upload_and_wait(block_ptr, stream);
  const auto count = static_cast<index_t>(block_ptr.size()) - 1;
  DeviceBuffer<index_t> block_of(static_cast<std::size_t>(a.rows));
  find_block_of(a.rows, ptr.data(), count, block_of.data(), stream);
  return block_weight(a, {ptr.data(), block_of.data(), count}, stream);
}

}  // namespace prism::kernels::cuda
