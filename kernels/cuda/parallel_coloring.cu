#include "kernels/cuda/parallel_coloring.hpp"

#include "kernels/cuda/check.hpp"
#include "kernels/cuda/device_memory.hpp"
#include "kernels/parallel_coloring.hpp"

#include <algorithm>
#include <cstdint>

namespace prism::kernels::cuda {
namespace {

constexpr int kThreads = 256;

int blocks_for(index_t n) {
  return static_cast<int>((static_cast<long long>(n) + kThreads - 1) / kThreads);
}

// The smallest color c >= 0 no neighbour u != v with color[u] >= 0 has, 64 colors a window
// (the same answer as the reference's first fit).
__device__ int first_free_color(const CsrView<double>& a, index_t v, const int* color) {
  const index_t begin = a.row_ptr[v], end = a.row_ptr[v + 1];
  for (int base = 0;; base += 64) {
    std::uint64_t taken = 0;
    for (index_t k = begin; k < end; ++k) {
      const index_t u = a.col_idx[k];
      const int c = color[u] - base;
      if (u != v && c >= 0 && c < 64) taken |= std::uint64_t{1} << c;
    }
    if (~taken != 0) return base + __ffsll(static_cast<long long>(~taken)) - 1;
  }
}

// Adds `count` over the warp to *total with one atomic.
__device__ void add_warp(int count, int* total) {
  for (int offset = 16; offset > 0; offset /= 2) {
    count += __shfl_down_sync(0xffffffffu, count, offset);
  }
  if (threadIdx.x % 32 == 0 && count > 0) atomicAdd(total, count);
}

// Max of `value` over the warp into *total with one atomic.
__device__ void max_warp(int value, int* total) {
  for (int offset = 16; offset > 0; offset /= 2) {
    value = max(value, __shfl_down_sync(0xffffffffu, value, offset));
  }
  if (threadIdx.x % 32 == 0) atomicMax(total, value);
}

// chosen[v] = 1 for an uncoloured v that outranks its uncoloured neighbours; counts the
// uncoloured vertices not chosen (those left for the next round).
__global__ void choose(CsrView<double> a, const int* __restrict__ color,
                       unsigned char* __restrict__ chosen, int* left) {
  const index_t v = static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x;
  int stays = 0;
  if (v < a.rows) {
    bool maximum = false;
    if (color[v] < 0) {
      maximum = true;
      for (index_t k = a.row_ptr[v]; k < a.row_ptr[v + 1] && maximum; ++k) {
        const index_t u = a.col_idx[k];
        maximum = u == v || color[u] >= 0 || outranks(v, u);
      }
      stays = maximum ? 0 : 1;
    }
    chosen[v] = maximum ? 1 : 0;
  }
  add_warp(stays, left);
}

// The chosen vertices take their colors: no two are adjacent, so none reads another's.
__global__ void color_chosen(CsrView<double> a, const unsigned char* __restrict__ chosen,
                             int* color) {
  const index_t v = static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (v < a.rows && chosen[v]) color[v] = first_free_color(a, v, color);
}

// One class of a recoloring pass: its vertices (an independent set) take first fit among
// the neighbours recolored before; the largest new color goes to *largest.
__global__ void recolor_class(CsrView<double> a, const int* __restrict__ color, int c,
                              int* recolored, int* largest) {
  const index_t v = static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x;
  int mine = -1;
  if (v < a.rows && color[v] == c) {
    mine = first_free_color(a, v, recolored);
    recolored[v] = mine;
  }
  max_warp(mine, largest);
}

__global__ void largest_color(index_t n, const int* __restrict__ color, int* largest) {
  const index_t v = static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x;
  max_warp(v < n ? color[v] : -1, largest);
}

int read_counter(const int* device, cudaStream_t stream) {
  int host = 0;
  PRISM_CUDA_CHECK(cudaMemcpyAsync(&host, device, sizeof(int), cudaMemcpyDeviceToHost, stream));
  PRISM_CUDA_CHECK(cudaStreamSynchronize(stream));
  return host;
}

// Jones-Plassmann rounds over the uncoloured vertices (colors < 0) until none is left.
void hash_rounds(const CsrView<double>& a, int* colors, unsigned char* chosen, int* counter,
                 cudaStream_t stream) {
  const int blocks = blocks_for(a.rows);
  for (int left = a.rows; left > 0;) {
    PRISM_CUDA_CHECK(cudaMemsetAsync(counter, 0, sizeof(int), stream));
    choose<<<blocks, kThreads, 0, stream>>>(a, colors, chosen, counter);
    PRISM_CUDA_CHECK_LAUNCH();
    color_chosen<<<blocks, kThreads, 0, stream>>>(a, chosen, colors);
    PRISM_CUDA_CHECK_LAUNCH();
    left = read_counter(counter, stream);
  }
}

// The number of colors of a complete coloring.
int color_count(index_t n, const int* colors, int* counter, cudaStream_t stream) {
  PRISM_CUDA_CHECK(cudaMemsetAsync(counter, 0xff, sizeof(int), stream));
  largest_color<<<blocks_for(n), kThreads, 0, stream>>>(n, colors, counter);
  PRISM_CUDA_CHECK_LAUNCH();
  return read_counter(counter, stream) + 1;
}

// The recoloring passes; returns the number of colors after them.
int recolor(const CsrView<double>& a, int* colors, int count, int* counter, cudaStream_t stream) {
  const index_t n = a.rows;
  const auto size = static_cast<std::size_t>(n);
  DeviceBuffer<int> recolored(size);
  for (int pass = 0; pass < kRecolorPasses && count > 1; ++pass) {
    PRISM_CUDA_CHECK(cudaMemsetAsync(recolored.data(), 0xff, size * sizeof(int), stream));
    PRISM_CUDA_CHECK(cudaMemsetAsync(counter, 0xff, sizeof(int), stream));
    for (int c = count - 1; c >= 0; --c) {
      recolor_class<<<blocks_for(n), kThreads, 0, stream>>>(a, colors, c, recolored.data(),
                                                            counter);
      PRISM_CUDA_CHECK_LAUNCH();
    }
    PRISM_CUDA_CHECK(cudaMemcpyAsync(colors, recolored.data(), size * sizeof(int),
                                     cudaMemcpyDeviceToDevice, stream));
    const int now = read_counter(counter, stream) + 1;
    const bool saved = now < count;
    count = now;
    if (!saved) break;
  }
  return count;
}

// ---- The ordered sweep: sequential first fit in a vertex order as a dataflow ----
//
// A vertex is ready once all its earlier neighbours are colored (waiting[v], the earlier
// rows holding v that have not counted it off yet, reaches 0); it then takes the smallest
// color none of them has, and its round is 1 + the largest round among them (0 without
// any): what the ordered rounds of the reference give it. At round_limit or past it a vertex
// stays uncolored, and so do its later neighbours (they are still counted off). Tiles of
// kSweepTile lanes color one ready vertex at a time: its row's entries spread over the
// lanes, the earlier neighbours' states read, its state stored, then its later neighbours
// counted off. The tile colors the first of them that becomes ready next (the chain of
// rounds goes on without a hand-over) and pushes the others onto a queue of n slots, which
// the tiles without work pop in order. So no round waits for a barrier, a launch or the
// host, and only ready vertices hold a tile (tiles that took vertices in the vertex order
// and waited for them would hold back the ready ones behind them).
//
// Every vertex takes one slot: pushed, or, where its tile colors it next, a slot that only
// counts it (kCounted); the vertices nothing waits for fill the first slots. A tile leaves
// once it pops slot n or later. It cannot deadlock on any grid: the slot a tile waits for
// is reserved by a tile that is coloring (each reservation is followed by its store), and
// while vertices are left, one of them is ready (the first of them in the order) and
// pushed or held by a running tile; a block that is not resident holds nothing.
//
// Memory order: a state is stored, then fenced (release), then the later neighbours'
// counts go down (atomics); the tile that brings a count to 0 fences (acquire, and release
// for its push) before it reads the states or pushes the vertex; a popping tile fences
// after reading the slot. States and slots are read and written at device scope
// (ld/st.relaxed.gpu: never a stale L1 line).

// Lanes a vertex: its row's entries spread over them, so their loads go out at once
// (G3_circuit's rows and a 7-point grid's fit in one pass; longer rows take several).
constexpr int kSweepTile = 8;
static_assert(kSweepTile <= 32 && 32 % kSweepTile == 0, "tiles within a warp");
constexpr int kSweepThreads = 256;
// Blocks a multiprocessor: 2 x 32 tiles per multiprocessor, thousands on a large GPU, over
// ten times G3_circuit's average round (611 vertices) and most of a 7-point 128^3 grid's
// widest (12,288), while the idle ones polling their slots stay a small share of L2's
// bandwidth.
constexpr int kSweepBlocksPerSm = 2;
// Longest pause between two polls of an empty slot (ns).
constexpr unsigned kMaxPauseNs = 256;

// A vertex's state, one 64-bit word written once: its round + 1 in the high half and its
// color in the low half, or kPastLimit (color -1: the hash rounds color it).
using SweepState = unsigned long long;
constexpr SweepState kPastLimit = ~SweepState{0};

// Queue slots: kEmpty until written, then a vertex to color or kCounted (a vertex colored by
// the tile that made it ready).
constexpr index_t kEmpty = -1;
constexpr index_t kCounted = -2;

// The summary of a sweep, ints that start at -1: the largest color, the rounds (largest
// round + 1), whether a vertex is past the limit (1).
enum SweepSummary { kLargestColor, kRounds, kPast, kSummarySize };

__device__ __forceinline__ SweepState load_state(const SweepState* p) {
  SweepState s;
  asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(s) : "l"(p) : "memory");
  return s;
}

__device__ __forceinline__ void store_state(SweepState* p, SweepState s) {
  asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(p), "l"(s) : "memory");
}

__device__ __forceinline__ index_t load_slot(const index_t* p) {
  index_t v;
  asm volatile("ld.relaxed.gpu.global.b32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

__device__ __forceinline__ void store_slot(index_t* p, index_t v) {
  asm volatile("st.relaxed.gpu.global.b32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

// The slot's entry once written, polled with pauses that grow to kMaxPauseNs.
__device__ __forceinline__ index_t wait_slot(const index_t* p) {
  index_t v = load_slot(p);
  for (unsigned pause = 32; v == kEmpty; pause = min(2 * pause, kMaxPauseNs)) {
    __nanosleep(pause);
    v = load_slot(p);
  }
  return v;
}

__device__ __forceinline__ int state_color(SweepState s) {
  return static_cast<int>(static_cast<unsigned>(s));
}

// The next slot for each calling lane; the lanes of a warp that come together share one
// atomic.
__device__ __forceinline__ unsigned take_slot(unsigned* next) {
  const unsigned active = __activemask();
  const int leader = __ffs(static_cast<int>(active)) - 1;
  const unsigned lane = threadIdx.x % 32;
  unsigned base = 0;
  if (static_cast<int>(lane) == leader) base = atomicAdd(next, __popc(active));
  base = __shfl_sync(active, base, leader);
  return base + __popc(active & ((1u << lane) - 1u));
}

// The lanes of the calling thread's tile.
__device__ __forceinline__ unsigned tile_mask() {
  if (kSweepTile == 32) return 0xffffffffu;
  return ((1u << (kSweepTile % 32)) - 1u) << (threadIdx.x % 32 / kSweepTile * kSweepTile);
}

__device__ __forceinline__ std::uint64_t tile_or(unsigned mask, std::uint64_t x) {
  for (int offset = kSweepTile / 2; offset > 0; offset /= 2) {
    x |= __shfl_xor_sync(mask, x, offset, kSweepTile);
  }
  return x;
}

__device__ __forceinline__ unsigned tile_max(unsigned mask, unsigned x) {
  for (int offset = kSweepTile / 2; offset > 0; offset /= 2) {
    x = max(x, __shfl_xor_sync(mask, x, offset, kSweepTile));
  }
  return x;
}

__device__ __forceinline__ index_t position_of(const index_t* rank, index_t u) {
  return rank != nullptr ? rank[u] : u;
}

// First fit past color 63, for a vertex whose earlier neighbours (all colored) take every
// color below 64: windows of 64 colors, as first_free_color.
__device__ int wide_first_fit(const CsrView<double>& a, const index_t* rank, index_t v,
                              index_t position, const SweepState* state, int lane, unsigned mask) {
  const index_t begin = a.row_ptr[v], end = a.row_ptr[v + 1];
  for (int base = 64;; base += 64) {
    std::uint64_t taken = 0;
    for (index_t k = begin + lane; k < end; k += kSweepTile) {
      const index_t u = a.col_idx[k];
      if (position_of(rank, u) >= position) continue;
      const int c = state_color(load_state(state + u)) - base;
      if (c >= 0 && c < 64) taken |= std::uint64_t{1} << c;
    }
    taken = tile_or(mask, taken);
    if (~taken != 0) return base + __ffsll(static_cast<long long>(~taken)) - 1;
  }
}

// The state of ready vertex v (at `position` in the order) from its earlier neighbours'.
__device__ SweepState color_ready(const CsrView<double>& a, const index_t* rank, index_t v,
                                  index_t position, int round_limit, const SweepState* state,
                                  int lane, unsigned mask) {
  unsigned round = 0;       // max over the earlier neighbours of their round + 1
  std::uint64_t taken = 0;  // their colors below 64
  bool past = false;        // one of them is past the limit
  const index_t end = a.row_ptr[v + 1];
  for (index_t k = a.row_ptr[v] + lane; k < end; k += kSweepTile) {
    const index_t u = a.col_idx[k];
    if (position_of(rank, u) >= position) continue;  // v itself or later
    const SweepState s = load_state(state + u);
    const int color = state_color(s);
    if (color < 0) {
      past = true;
      continue;
    }
    round = max(round, static_cast<unsigned>(s >> 32));
    if (color < 64) taken |= std::uint64_t{1} << color;
  }
  round = tile_max(mask, round);
  taken = tile_or(mask, taken);
  past = __any_sync(mask, past);
  if (past || static_cast<long long>(round) >= round_limit) return kPastLimit;
  const int color = ~taken != 0 ? __ffsll(static_cast<long long>(~taken)) - 1
                                : wide_first_fit(a, rank, v, position, state, lane, mask);
  return (SweepState{round + 1} << 32) | static_cast<unsigned>(color);
}

// waiting[u] += 1 for each entry u of row v later than v in the order (waiting starts at
// 0): the counts that the sweep's count-offs bring to 0, whatever the pattern (a pattern
// that is not structurally symmetric gives a wrong coloring, never a sweep that waits
// forever).
__global__ void count_waiting(CsrView<double> a, const index_t* __restrict__ rank,
                              index_t* waiting) {
  const index_t v = static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (v >= a.rows) return;
  const index_t position = position_of(rank, v);
  for (index_t k = a.row_ptr[v]; k < a.row_ptr[v + 1]; ++k) {
    const index_t u = a.col_idx[k];
    if (position_of(rank, u) > position) atomicAdd(waiting + u, 1);
  }
}

// The vertices nothing waits for take the first slots of the queue.
__global__ void push_first(index_t n, const index_t* __restrict__ waiting, index_t* queue,
                           unsigned* pushed) {
  const index_t v = static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (v < n && waiting[v] == 0) queue[take_slot(pushed)] = v;
}

// The sweep (see above): states stored to `state`, slots popped from *popped and pushed at
// *pushed (counts of slots taken so far).
__global__ void __launch_bounds__(kSweepThreads)
    ordered_sweep(CsrView<double> a, const index_t* __restrict__ rank, int round_limit,
                  SweepState* state, index_t* waiting, index_t* queue, unsigned* popped,
                  unsigned* pushed) {
  const int lane = static_cast<int>(threadIdx.x % kSweepTile);
  const unsigned mask = tile_mask();
  index_t v = kEmpty;  // the vertex this tile colors next, made ready by it; kEmpty: pop one
  for (;;) {
    const bool held = v >= 0;
    if (!held) {
      unsigned slot = 0;
      index_t entry = kEmpty;
      if (lane == 0) slot = take_slot(popped);
      slot = __shfl_sync(mask, slot, 0, kSweepTile);
      if (slot >= static_cast<unsigned>(a.rows)) return;
      if (lane == 0) {
        entry = wait_slot(queue + slot);
        __threadfence();  // acquire: the states stored before the push
      }
      __syncwarp(mask);
      v = __shfl_sync(mask, entry, 0, kSweepTile);
      if (v < 0) continue;  // a slot that only counts its vertex
    }
    unsigned count_slot = 0;  // a held vertex's slot, its store waits for the end
    if (held && lane == 0) count_slot = atomicAdd(pushed, 1u);
    const index_t position = position_of(rank, v);
    const SweepState result = color_ready(a, rank, v, position, round_limit, state, lane, mask);
    if (lane == 0) {
      store_state(state + v, result);
      if (held) store_slot(queue + count_slot, kCounted);
      __threadfence();  // release: the state before the counts go down
    }
    __syncwarp(mask);
    // v is counted off its later neighbours; those it was the last one for are ready.
    index_t ready = kEmpty;  // the first this lane finds
    const index_t end = a.row_ptr[v + 1];
    for (index_t k = a.row_ptr[v] + lane; k < end; k += kSweepTile) {
      const index_t u = a.col_idx[k];
      if (position_of(rank, u) <= position || atomicSub(waiting + u, 1) != 1) continue;
      __threadfence();  // acquire: u's earlier neighbours' states; release for a push
      if (ready < 0) {
        ready = u;
      } else {
        store_slot(queue + atomicAdd(pushed, 1u), u);
      }
    }
    __syncwarp(mask);
    const unsigned found = __ballot_sync(mask, ready >= 0);
    if (found == 0) {
      v = kEmpty;
      continue;
    }
    const int first = __ffs(static_cast<int>(found)) - 1;  // a lane of the warp
    v = __shfl_sync(mask, ready, first % kSweepTile, kSweepTile);
    if (ready >= 0 && static_cast<int>(threadIdx.x % 32) != first) {
      store_slot(queue + atomicAdd(pushed, 1u), ready);
    }
  }
}

// colors[v] from the states, and the summary's largest color, rounds and past flag.
__global__ void finish_sweep(index_t n, const SweepState* __restrict__ state,
                             int* __restrict__ colors, int* summary) {
  int largest = -1, rounds = -1, past = -1;
  const long long stride = 1LL * gridDim.x * kThreads;  // no overflow past n near 2^31
  for (long long v = 1LL * blockIdx.x * kThreads + threadIdx.x; v < n; v += stride) {
    const SweepState s = state[v];
    const int color = state_color(s);
    colors[v] = color;
    if (color >= 0) {
      largest = max(largest, color);
      rounds = max(rounds, static_cast<int>(s >> 32));
    } else {
      past = 1;
    }
  }
  max_warp(largest, summary + kLargestColor);
  max_warp(rounds, summary + kRounds);
  max_warp(past, summary + kPast);
}

// Blocks of a kernel over a grid-stride loop, or of the sweep: a few a multiprocessor.
int resident_blocks(int per_sm, long long needed) {
  int device = 0, sms = 0;
  PRISM_CUDA_CHECK(cudaGetDevice(&device));
  PRISM_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return static_cast<int>(std::max(1LL, std::min<long long>(needed, 1LL * per_sm * sms)));
}

}  // namespace

int jones_plassmann_coloring(const CsrView<double>& a, int* colors, cudaStream_t stream) {
  const index_t n = a.rows;
  if (n == 0) return 0;
  DeviceBuffer<unsigned char> chosen(static_cast<std::size_t>(n));
  DeviceBuffer<int> counter(1);
  PRISM_CUDA_CHECK(cudaMemsetAsync(colors, 0xff, n * sizeof(int), stream));  // all -1
  hash_rounds(a, colors, chosen.data(), counter.data(), stream);
  return recolor(a, colors, color_count(n, colors, counter.data(), stream), counter.data(), stream);
}

GreedyColoring ordered_greedy_coloring(const CsrView<double>& a, const index_t* rank,
                                       int round_limit, int* colors, cudaStream_t stream) {
  GreedyColoring result;
  const index_t n = a.rows;
  if (n == 0) return result;
  const auto size = static_cast<std::size_t>(n);
  DeviceBuffer<SweepState> state(size);
  DeviceBuffer<index_t> waiting(size), queue(size);
  DeviceBuffer<int> summary(kSummarySize);
  DeviceBuffer<unsigned> slots(2);  // popped, pushed
  PRISM_CUDA_CHECK(cudaMemsetAsync(queue.data(), 0xff, size * sizeof(index_t), stream));  // kEmpty
  PRISM_CUDA_CHECK(cudaMemsetAsync(summary.data(), 0xff, kSummarySize * sizeof(int), stream));
  PRISM_CUDA_CHECK(cudaMemsetAsync(slots.data(), 0, 2 * sizeof(unsigned), stream));
  PRISM_CUDA_CHECK(cudaMemsetAsync(state.data(), 0, size * sizeof(SweepState), stream));
  PRISM_CUDA_CHECK(cudaMemsetAsync(waiting.data(), 0, size * sizeof(index_t), stream));
  count_waiting<<<blocks_for(n), kThreads, 0, stream>>>(a, rank, waiting.data());
  PRISM_CUDA_CHECK_LAUNCH();
  push_first<<<blocks_for(n), kThreads, 0, stream>>>(n, waiting.data(), queue.data(),
                                                     slots.data() + 1);
  PRISM_CUDA_CHECK_LAUNCH();
  const long long needed = (1LL * n * kSweepTile + kSweepThreads - 1) / kSweepThreads;
  ordered_sweep<<<resident_blocks(kSweepBlocksPerSm, needed), kSweepThreads, 0, stream>>>(
      a, rank, round_limit, state.data(), waiting.data(), queue.data(), slots.data(),
      slots.data() + 1);
  PRISM_CUDA_CHECK_LAUNCH();
  finish_sweep<<<resident_blocks(4, blocks_for(n)), kThreads, 0, stream>>>(n, state.data(), colors,
                                                                           summary.data());
  PRISM_CUDA_CHECK_LAUNCH();
  int got[kSummarySize];  // the one readback of an exact coloring
  PRISM_CUDA_CHECK(
      cudaMemcpyAsync(got, summary.data(), sizeof got, cudaMemcpyDeviceToHost, stream));
  PRISM_CUDA_CHECK(cudaStreamSynchronize(stream));
  result.exact = got[kPast] <= 0;
  result.rounds = result.exact ? got[kRounds] : std::max(round_limit, 0);
  if (result.exact) {
    result.colors = got[kLargestColor] + 1;
    return result;
  }
  DeviceBuffer<unsigned char> chosen(size);
  hash_rounds(a, colors, chosen.data(), summary.data(), stream);
  result.colors =
      recolor(a, colors, color_count(n, colors, summary.data(), stream), summary.data(), stream);
  return result;
}

}  // namespace prism::kernels::cuda
