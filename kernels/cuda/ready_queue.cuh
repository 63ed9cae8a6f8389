#pragma once
// The pieces of a one-launch dataflow over the rows of a pattern (a row is processed once
// the rows it depends on are): a queue of n slots that tiles of a warp pop in order and
// push ready rows to, read and written at device scope (ld/st.relaxed.gpu: never a stale
// L1 line), and the tile-wide reductions. A slot is kEmpty until written, then a row to
// process or kCounted (a row its tile went on with, which still takes a slot so that n
// slots drain the queue).

#include <prism/types.hpp>

namespace prism::kernels::cuda::ready_queue {

constexpr index_t kEmpty = -1;
constexpr index_t kCounted = -2;
// Longest pause between two polls of an empty slot (ns).
constexpr unsigned kMaxPauseNs = 256;

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

// The lanes of the calling thread's tile of `Tile` lanes.
template <int Tile>
__device__ __forceinline__ unsigned tile_mask() {
  static_assert(Tile <= 32 && 32 % Tile == 0, "tiles within a warp");
  if (Tile == 32) return 0xffffffffu;
  return ((1u << (Tile % 32)) - 1u) << (threadIdx.x % 32 / Tile * Tile);
}

template <int Tile>
__device__ __forceinline__ int tile_max(unsigned mask, int x) {
  for (int offset = Tile / 2; offset > 0; offset /= 2) {
    x = max(x, __shfl_xor_sync(mask, x, offset, Tile));
  }
  return x;
}

}  // namespace prism::kernels::cuda::ready_queue
