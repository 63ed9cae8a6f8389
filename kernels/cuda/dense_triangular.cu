// Dense triangular solves (trsv, batched trsv, trsm); see dense_triangular.hpp.
//
// Every variant is reduced to one lower-triangular, non-transposed solve L' x' = b' through
// an index map (LowerView): with p(i) = i or n-1-i,
//   lower/none:      L'(i, j) = A(i, j)                x'(i) = x(i)
//   lower/transpose: L'(i, j) = A(n-1-j, n-1-i)        x'(i) = x(n-1-i)
//   upper/none:      L'(i, j) = A(n-1-i, n-1-j)        x'(i) = x(n-1-i)
//   upper/transpose: L'(i, j) = A(j, i)                x'(i) = x(i)
// i.e. reverse = (upper != transpose) and swap = transpose. With swap the rows of L' are
// the columns of A, so the tile loaders let the fast thread index run along the storage
// rows of A (coalesced) and transpose the tile on its way into shared memory (Hogg,
// Section 7: "transpose critical-path blocks while prefetching").
//
// Global-memory synchronisation (trsm; global_sync trsv publishes its solution as values,
// see there): a producer thread block stores its solution, passes __syncthreads() and one
// thread adds to a counter with red.release.gpu; a consumer's thread 0 spins with
// ld.acquire.gpu, then __syncthreads().
// This is the fence-free release/acquire pattern of the PTX memory model (as in CUTLASS's
// GenericBarrier); consumers read the published data only after the acquire. Blocks take
// their work from an atomic ticket and only ever wait on work with a smaller ticket, which
// was taken by a block already running: no wait can depend on a block that is not resident,
// whatever the grid size and occupancy.

#include "kernels/cuda/dense_triangular.hpp"

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>

#include <prism/errors.hpp>

#include "kernels/cuda/async_copy.cuh"
#include "kernels/cuda/check.hpp"
#include "kernels/cuda/cublas_handle.hpp"
#include "kernels/cuda/tile_gemm.cuh"

namespace prism::kernels::cuda {
namespace {

constexpr int kTile = 32;        // trsv chunk / diagonal block size = warp size
constexpr int kLds = kTile + 1;  // padded leading dimension of 32x32 shared tiles (no bank
                                 // conflicts when a tile is transposed on the way in)
constexpr unsigned kFullMask = 0xffffffffu;

constexpr int kSmallThreads = 128;  // single_block / batched
constexpr int kSyncThreads = 256;   // global_sync: 8 warps per thread block

// ------------------------------------------------------------------------------------------
// Primitives: release/acquire counters (asynchronous copies: async_copy.cuh).

__device__ __forceinline__ int load_acquire(const int* p) {
  int v;
  asm volatile("ld.acquire.gpu.global.b32 %0, [%1];\n" : "=r"(v) : "l"(p) : "memory");
  return v;
}

__device__ __forceinline__ void add_release(int* p, int v) {
  asm volatile("red.release.gpu.global.add.s32 [%0], %1;\n" ::"l"(p), "r"(v) : "memory");
}

/// Thread 0 spins until *counter >= target; every thread gets the value it saw. Must be
/// called by the whole block (it synchronises); `seen` is a __shared__ slot, and every
/// thread must have passed a barrier since it last read it. The polls are acquire loads:
/// relaxed polls plus one acquire fence measured slower on an H200 (the fence also waits
/// for the thread's copies in flight).
__device__ int block_wait(const int* counter, int target, int* seen) {
  if (threadIdx.x == 0) {
    int v;
    while ((v = load_acquire(counter)) < target) {
    }
    *seen = v;
  }
  __syncthreads();
  return *seen;
}

/// The effective lower-triangular matrix L' of the file comment, on top of A.
template <typename T, bool kRev, bool kSwap>
struct LowerView {
  const T* a;
  long long lda;
  int n;
  __device__ int p(int i) const { return kRev ? n - 1 - i : i; }
  /// Address of L'(i, j) for 0 <= i, j < n.
  __device__ const T* ptr(int i, int j) const {
    int r = p(i);
    int c = p(j);
    if (kSwap) {
      const int t = r;
      r = c;
      c = t;
    }
    return a + r + static_cast<long long>(c) * lda;
  }
};

/// Requests tile (bi, bj) of L' into s asynchronously: s[c * kLds + r] = L'(32 bi + r,
/// 32 bj + c). Entries past n, above the diagonal of a diagonal tile and (unit) on it are
/// zero-filled without being read; prepare_diag_tile finishes a diagonal tile once it has
/// landed. Threads tid in [0, nthreads) take part.
template <typename T, bool kRev, bool kSwap>
__device__ void issue_tile32(const LowerView<T, kRev, kSwap>& L, int bi, int bj, bool unit, T* s,
                             int tid, int nthreads) {
  for (int e = tid; e < kTile * kTile; e += nthreads) {
    const int fast = e & (kTile - 1);
    const int slow = e / kTile;
    const int r = kSwap ? slow : fast;  // fast index along the storage rows of A
    const int c = kSwap ? fast : slow;
    const int i = kTile * bi + r;
    const int j = kTile * bj + c;
    bool ok = i < L.n && j < L.n;
    if (bi == bj) ok = ok && (r > c || (r == c && !unit));
    cp_async(s + c * kLds + r, ok ? L.ptr(i, j) : L.a, ok);
  }
}

/// One warp, after the tile has landed: diagonal entry -> its reciprocal (1 when unit or
/// past n, so padded rows are an identity and no solve divides).
template <typename T>
__device__ void prepare_diag_tile(T* s, int first_row, int n, bool unit, int lane) {
  T& d = s[lane * kLds + lane];
  d = (unit || first_row + lane >= n) ? T(1) : T(1) / d;
}

/// Per-lane steps of the warp solves below as selects (float) or as branches (double).
/// The float build turned `if (lane == i) ... else if (lane > i)` into a divergent region
/// per step (as it did in the trsm's substitution); double compiles the branches to
/// predicated instructions, and selects there add a dependent instruction to each step.
/// H200, global_sync with 32-row blocks, same-run A/B (branches -> selects, us): float,
/// chunks inverted from 0, n = 512 27.7 -> 20.3, 2048 68.6 -> 62.0; double, substitution,
/// n = 2048 84.4 -> 102.0, inverted from 0 64.0 -> 66.6.
template <typename T>
inline constexpr bool kSelectLanes = std::is_same<T, float>::value;

/// Step i of a warp's forward substitution, lane r holding b'(r) and then x'(r): lane i
/// scales its entry by the reciprocal diagonal diag(), broadcasts it with a shuffle, and
/// the lanes past i subtract entry() times it. diag() and entry() are read only where they
/// are used (inside the lane branches in double).
template <typename T, typename Diag, typename Entry>
__device__ __forceinline__ T substitution_step(T val, int lane, int i, Diag diag, Entry entry) {
  if constexpr (kSelectLanes<T>) {
    const T scaled = val * diag();
    val = lane == i ? scaled : val;
  } else if (lane == i) {
    val *= diag();
  }
  const T xi = __shfl_sync(kFullMask, val, i);
  if constexpr (kSelectLanes<T>) {
    const T updated = val - entry() * xi;
    val = lane > i ? updated : val;
  } else if (lane > i) {
    val -= entry() * xi;
  }
  return val;
}

/// One warp solves a 32x32 diagonal tile (reciprocal diagonal, lower part read only): lane r
/// holds b'(r) in val and returns x'(r). The solved entry is broadcast with a shuffle: the
/// paper's volatile shared slot relies on implicit warp synchrony, which Volta and later
/// no longer guarantee without __syncwarp.
template <typename T>
__device__ T warp_diag_solve(const T* s, T val, int lane) {
#pragma unroll
  for (int i = 0; i < kTile; ++i) {
    val = substitution_step(
        val, lane, i, [&] { return s[i * kLds + i]; }, [&] { return s[i * kLds + lane]; });
  }
  return val;
}

/// x'(lane) = sum_{c <= lane} X(lane, c) val(c): multiply with an explicit inverse
/// (independent FMAs instead of 32 dependent steps on the critical path). The zeros above
/// the diagonal are skipped, not multiplied: 0 * NaN would spread a NaN in b'(c) to the
/// rows before c, which substitution leaves alone.
template <typename T>
__device__ T warp_inverse_multiply(const T* inv, T val, int lane) {
  T out = T(0);
#pragma unroll
  for (int c = 0; c < kTile; ++c) {
    const T vc = __shfl_sync(kFullMask, val, c);
    if (c <= lane) out += inv[c * kLds + lane] * vc;
  }
  return out;
}

/// x'(lane) = sum_c A(lane, c) val(c) for a 32x32 tile A in shared memory (A(r, c) at
/// a[c * kLds + r]), val broadcast through `stage` (32 entries of shared memory that only
/// this warp uses) instead of shuffles, four partial sums instead of one chain of 32
/// dependent FMAs. kLower: A is lower triangular (an inverse) and its zeros above the
/// diagonal are skipped, as in warp_inverse_multiply.
template <bool kLower, typename T>
__device__ T warp_tile_multiply_staged(const T* a, T val, int lane, T* stage) {
  __syncwarp();  // earlier reads of stage are done
  stage[lane] = val;
  __syncwarp();
  T o[4] = {T(0), T(0), T(0), T(0)};
#pragma unroll
  for (int c = 0; c < kTile; ++c) {
    if (!kLower || c <= lane) o[c & 3] += a[c * kLds + lane] * stage[c];
  }
  return (o[0] + o[1]) + (o[2] + o[3]);
}

/// One warp computes columns c0 .. c0 + kN - 1 of inv(S) for a prepared diagonal tile S
/// (lane = row): forward substitution on unit vectors, kN independent chains interleaved.
/// The result is exactly zero above the diagonal.
template <typename T, int kN>
__device__ void warp_inverse_columns(const T* s, int c0, int lane, T (&v)[kN]) {
#pragma unroll
  for (int j = 0; j < kN; ++j) v[j] = lane == c0 + j ? T(1) : T(0);
  for (int i = c0; i < kTile; ++i) {
    const T di = s[i * kLds + i];
    const T li = s[i * kLds + lane];
#pragma unroll
    for (int j = 0; j < kN; ++j) {
      const T xi = __shfl_sync(kFullMask, v[j], i) * di;
      if constexpr (kSelectLanes<T>) {
        const T updated = v[j] - li * xi;
        v[j] = lane == i ? xi : (lane > i ? updated : v[j]);
      } else if (lane == i) {
        v[j] = xi;
      } else if (lane > i) {
        v[j] -= li * xi;
      }
    }
  }
}

__host__ __device__ constexpr int tri_tiles(int nb) {
  return nb * (nb + 1) / 2;
}

/// Position of tile (bi, bj), bj <= bi, in the packed lower triangle of tiles, column by
/// column (column bj holds tiles bj .. nb-1).
__device__ int tile_slot(int bi, int bj, int nb) {
  return bj * nb - bj * (bj - 1) / 2 + (bi - bj);
}

// ------------------------------------------------------------------------------------------
// single_block and batched trsv (n <= 128): Hogg Section 2, Listing 2. Every tile is
// requested up front (one cp.async group per block column), so the memory latency is paid
// about once instead of once per tile and per block column; the solve of block column k
// waits only for the group of column k.

template <typename T, bool kRev, bool kSwap>
__device__ void small_solve(int n, const T* a, long long lda, T* x, bool unit, T* smem) {
  const int nb = (n + kTile - 1) / kTile;
  const int tid = threadIdx.x;
  const int lane = tid & (kTile - 1);
  const int warp = tid / kTile;
  const int tile_elems = kTile * kLds;
  T* tiles = smem;
  T* xs = smem + tri_tiles(nb) * tile_elems;
  const LowerView<T, kRev, kSwap> L{a, lda, n};

  for (int bj = 0; bj < nb; ++bj) {
    for (int bi = bj; bi < nb; ++bi) {
      issue_tile32(L, bi, bj, unit, tiles + tile_slot(bi, bj, nb) * tile_elems, tid, blockDim.x);
    }
    cp_async_commit();
  }
  for (int i = tid; i < nb * kTile; i += blockDim.x) xs[i] = i < n ? x[L.p(i)] : T(0);
  for (int k = 0; k < nb; ++k) {
    switch (nb - 1 - k) {  // wait for block column k (nb <= 4 groups)
      case 0:
        cp_async_wait<0>();
        break;
      case 1:
        cp_async_wait<1>();
        break;
      case 2:
        cp_async_wait<2>();
        break;
      default:
        cp_async_wait<3>();
        break;
    }
    __syncthreads();
    if (warp == 0) {
      // x'(block k) = L'(k, k)^{-1} b'(block k), right-hand side in registers.
      T* d = tiles + tile_slot(k, k, nb) * tile_elems;
      prepare_diag_tile(d, kTile * k, n, unit, lane);
      __syncwarp();
      xs[kTile * k + lane] = warp_diag_solve(d, xs[kTile * k + lane], lane);
    }
    __syncthreads();
    // b'(below) -= L'(below, k) x'(block k), one thread per row.
    const int rows_below = (nb - k - 1) * kTile;
    for (int r = tid; r < rows_below; r += blockDim.x) {
      const T* t = tiles + tile_slot(k + 1 + r / kTile, k, nb) * tile_elems;
      const int rr = r & (kTile - 1);
      T acc = T(0);
#pragma unroll 8
      for (int c = 0; c < kTile; ++c) acc += t[c * kLds + rr] * xs[kTile * k + c];
      xs[kTile * (k + 1) + r] -= acc;
    }
    // The next iteration's __syncthreads orders these updates before the next solve.
  }
  for (int i = tid; i < n; i += blockDim.x) x[L.p(i)] = xs[i];
}

template <typename T, bool kRev, bool kSwap>
__global__ void __launch_bounds__(kSmallThreads)
    trsv_small_kernel(int n, const T* a, long long lda, T* x, bool unit) {
  extern __shared__ __align__(16) unsigned char small_smem[];
  small_solve<T, kRev, kSwap>(n, a, lda, x, unit, reinterpret_cast<T*>(small_smem));
}

template <typename T, bool kRev, bool kSwap>
__global__ void __launch_bounds__(kSmallThreads)
    trsv_batched_kernel(const index_t* n, const T* const* a, const index_t* lda, T* const* x,
                        bool unit) {
  extern __shared__ __align__(16) unsigned char batched_smem[];
  const int k = blockIdx.x;
  const int nk = n[k];
  if (nk <= 0) return;
  small_solve<T, kRev, kSwap>(nk, a[k], lda[k], x[k], unit, reinterpret_cast<T*>(batched_smem));
}

// single_block for n <= 32 kWarps (kWarps = 1 or 2) and trsv_batched for max_n <= 32: the
// calling thread is row i < 32 kWarps of the system and loads that row of L' straight
// into registers (the entries left of the diagonal and the diagonal's reciprocal; nothing
// it must not read). Warp w substitutes its 32 rows with one shuffle a step
// (substitution_step, as warp_diag_solve); with two warps, warp 0 then leaves its solution in xs
// (32 values, shared), and after one block barrier warp 1 subtracts its products before
// its own steps. Against small_solve's staging through shared memory (H100, double, the
// stream held until the call is enqueued, same-run A/B): n = 32 5.9 / 5.7 -> 4.8 / 4.9 us,
// n = 64 8.5 / 8.4 -> 6.9 / 7.2; an empty kernel takes 3.4 and one that only loads the
// triangle and b and stores x at n = 32 4.1 - 4.2 (tools/dense_triangular.md).
template <typename T, bool kRev, bool kSwap, int kWarps>
__device__ void registers_solve(int n, const T* a, long long lda, T* x, bool unit, int i, T* xs) {
  constexpr int kRows = kTile * kWarps;
  const LowerView<T, kRev, kSwap> L{a, lda, n};
  const int lane = i % kTile;
  const int warp = i / kTile;
  const bool row = i < n;
  T l[kRows];
#pragma unroll
  for (int j = 0; j < kRows; ++j) l[j] = row && j < i ? *L.ptr(i, j) : T(0);
  const T d = row && !unit ? T(1) / *L.ptr(i, i) : T(1);
  T val = row ? x[L.p(i)] : T(0);
#pragma unroll
  for (int w = 0; w < kWarps; ++w) {
    if (warp == w) {
#pragma unroll
      for (int s = 0; s < kTile; ++s) {
        if (kTile * w + s < n) {  // uniform
          val = substitution_step(
              val, lane, s, [&] { return d; }, [&] { return l[kTile * w + s]; });
        }
      }
      if (w + 1 < kWarps) xs[lane] = val;
    }
    if (w + 1 < kWarps) {
      __syncthreads();
      if (warp > w) {
#pragma unroll
        for (int c = 0; c < kTile; ++c) val -= l[kTile * w + c] * xs[c];
      }
    }
  }
  if (row) x[L.p(i)] = val;
}

template <typename T, bool kRev, bool kSwap, int kWarps>
__global__ void __launch_bounds__(kTile* kWarps)
    trsv_warp_kernel(int n, const T* a, long long lda, T* x, bool unit) {
  __shared__ T xs[kTile];
  registers_solve<T, kRev, kSwap, kWarps>(n, a, lda, x, unit, static_cast<int>(threadIdx.x), xs);
}

// trsv_batched for max_n <= 32: one warp a system, kBatchedWarps systems a block.
constexpr int kBatchedWarps = 4;
template <typename T, bool kRev, bool kSwap>
__global__ void __launch_bounds__(kTile* kBatchedWarps)
    trsv_batched_warp_kernel(int batch, const index_t* n, const T* const* a, const index_t* lda,
                             T* const* x, bool unit) {
  const int k =
      static_cast<int>(blockIdx.x) * kBatchedWarps + static_cast<int>(threadIdx.x) / kTile;
  if (k >= batch) return;  // the whole warp
  const int nk = static_cast<int>(n[k]);
  if (nk <= 0) return;
  registers_solve<T, kRev, kSwap, 1>(nk, a[k], lda[k], x[k], unit,
                                     static_cast<int>(threadIdx.x) % kTile, nullptr);
}

std::size_t small_smem_bytes(int max_n, std::size_t elem) {
  const int nb = (max_n + kTile - 1) / kTile;
  return (static_cast<std::size_t>(tri_tiles(nb)) * kTile * kLds + nb * kTile) * elem;
}

// ------------------------------------------------------------------------------------------
// global_sync trsv (any n): Hogg Sections 3, 4 and 7, Listings 3 and 4, with the solution
// published as values instead of behind a counter.
//
// Workspace: a ticket (the next block row) and `xpub`, the solution in the order of L'
// (chunk c = rows 32c .. 32c + 31), all-ones bits when the launch starts (the ticket then
// reads -1), set by a memset on the stream. A TrsvWorkspace needs no memset: it has two
// xpub halves that launches use in turn, each launch resetting what the one before used of
// the other half, and the ticket carries the half to use (SyncArgs). All-ones is a NaN that marks
// an entry not yet solved: a producer stores each solved entry with one 32- or 64-bit strong store
// (publishable() replaces that exact NaN by the quiet NaN, so it is never stored), and a consumer
// knows an entry is final when it reads anything else. Compared with a counter published after the
// solution (until 2026-11-22: red.release, whose fence waits for the stores to reach L2,
// then the consumer's acquire poll and a second load for the data), the producer needs no
// fence and the consumer's poll returns the data itself: a chain step loses two L2 round
// trips (H200: 20 - 26% faster from n = 512 to 8192, tools/dense_triangular.md). The values
// are the only data a consumer takes from a producer, so no acquire ordering is needed.
// Entries are 32- or 64-bit aligned words, each written by one store, so a reader sees the
// mark or the value, never a mix (also through the 16-byte cp.async copies below, which
// hardware serves per aligned word; the model of PTX guarantees this for the polls).
//
// A thread block owns kRows = 32 kChunks rows of L' and 256 threads: thread (g, r) with
// r = tid % kRows accumulates row r over column group g of every 32-wide column tile. The
// off-diagonal tiles stream through a ring of kStages shared-memory slots filled by
// cp.async kStages - 1 tiles ahead, issued before any wait, each with its x chunk from
// xpub (cp.async.cg, through L2 only, so no stale L1 line is ever read). When a tile has
// landed, the threads that copied its x chunk check it; if any entry is still unsolved
// (the stream has reached the solved frontier), warp 0 polls xpub for it, and at once for
// the rest of the producing block row's chunks, into a side buffer `xfix`. With kStages >=
// kChunks the whole critical block L'(R, R-1) is in flight before the first poll. The
// diagonal block (packed 32x32 tiles) is requested first and prepared (reciprocal
// diagonal; optionally inverted) while the stream runs.
//
// Folding (32-row block rows with an inverted diagonal block D, since 2026-11-22): the last
// two tiles L'(R, R-1) and L'(R, R-2) bypass the ring; they are requested with D and
// replaced by M_j = D^{-1} L'(R, R-1-j) in the prologue. After the stream (tiles up to
// R - 3) warp 0 forms c = D^{-1} (b' - sum), then x'(R) = c - M_1 x'(R-2) - M_0 x'(R-1).
// A %globaltimer probe on an H200 (n = 2048, double) had split a chain step of about
// 0.8 us into 320 ns from the producer's store to the consumer's sight of it, 128 ns for
// the critical tile's update and the block reduction, and 352 ns for the inverse multiply
// and the stores; folded, only one 32 x 32 multiply lies between seeing x'(R-1) and
// publishing x'(R), and the reduction and the inverse multiply get up to two steps.
// Same-run A/B: tools/dense_triangular.md.
//
// Memory traffic per block row: the kRows x 32 R kChunks tile stream (once), 32 values of x
// per tile (from L2), the packed diagonal block; no shared-memory traffic beyond one read
// of each element.

template <typename T, int kChunks, bool kInvert>
struct SyncShape {
  static constexpr int kRows = kTile * kChunks;
  static constexpr int kGroups = kSyncThreads / kRows;  // column groups per tile
  static constexpr int kCols = kTile / kGroups;         // columns per group
  // The last tiles folded into the diagonal block's inverse (see the kernel).
  static constexpr int kFoldTiles = kChunks == 1 && kInvert ? 2 : 0;
  // Ring depth (>= kChunks). 32-row blocks: 6, but 5 in double with folded tiles, which
  // would otherwise leave room for only two thread blocks per SM instead of three.
  static constexpr int kStages = kChunks == 1 ? (kFoldTiles > 0 && sizeof(T) == 8 ? 5 : 6) : 4;
  static constexpr int kInvCols = kTile * kChunks / (kSyncThreads / kTile);  // per warp
  static_assert(kStages >= kChunks, "the critical block must fit in the ring");
};

template <typename T, bool kSwap, int kChunks>
__host__ __device__ constexpr std::size_t sync_slot_elems() {
  return kSwap ? static_cast<std::size_t>(kTile * kChunks) * kLds
               : static_cast<std::size_t>(kTile * kChunks) * kTile;
}

template <typename T, bool kSwap, bool kInvert, int kChunks>
constexpr std::size_t sync_smem_bytes() {
  using S = SyncShape<T, kChunks, kInvert>;
  return (2 * S::kStages * kTile + S::kStages * sync_slot_elems<T, kSwap, kChunks>() +
          static_cast<std::size_t>(tri_tiles(kChunks) + S::kFoldTiles) * kTile * kLds +
          S::kGroups * S::kRows) *
         sizeof(T);
}

/// Bytes before xpub in the trsv workspace, the header: the ticket (and in a TrsvWorkspace
/// the sizes of the halves' last use), padded for 16-byte copies.
constexpr std::size_t kTrsvTicketBytes = 16;

/// The most helpers a split block row may have (split_tiles is raised to keep within it):
/// the owner's threads hold their sums in registers, kMaxHelperSums / kGroups each.
constexpr int kMaxHelperSums = 16;
/// The shortest helper segment, in tiles (the workspace is sized for it).
constexpr int kMinSplitTiles = 32;

/// Entries of an x chunk per 16-byte copy, and the threads that copy a 32-entry chunk.
template <typename T>
constexpr int kXPerCopy = 16 / static_cast<int>(sizeof(T));
template <typename T>
constexpr int kXCopiers = kTile / kXPerCopy<T>;

__device__ __forceinline__ bool unpublished(double v) {
  return __double_as_longlong(v) == -1LL;
}
__device__ __forceinline__ bool unpublished(float v) {
  return __float_as_int(v) == -1;
}

/// v, except that the all-ones NaN (the "unsolved" mark) becomes the quiet NaN.
__device__ __forceinline__ double publishable(double v) {
  return unpublished(v) ? __longlong_as_double(0x7ff8000000000000LL) : v;
}
__device__ __forceinline__ float publishable(float v) {
  return unpublished(v) ? __int_as_float(0x7fc00000) : v;
}

__device__ __forceinline__ void store_relaxed(double* p, double v) {
  asm volatile("st.relaxed.gpu.global.f64 [%0], %1;\n" ::"l"(p), "d"(v) : "memory");
}
__device__ __forceinline__ void store_relaxed(float* p, float v) {
  asm volatile("st.relaxed.gpu.global.f32 [%0], %1;\n" ::"l"(p), "f"(v) : "memory");
}
__device__ __forceinline__ double load_relaxed(const double* p) {
  double v;
  asm volatile("ld.relaxed.gpu.global.f64 %0, [%1];\n" : "=d"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ float load_relaxed(const float* p) {
  float v;
  asm volatile("ld.relaxed.gpu.global.f32 %0, [%1];\n" : "=f"(v) : "l"(p) : "memory");
  return v;
}

/// Slot row of row r of a kRows x 32 tile of L' (not kSwap): with kRev the rows of L' run
/// backwards through the storage columns of A, and the slot holds the tile upside down, so
/// that both orders copy contiguous 16-byte pieces of A in ascending order.
template <bool kRev, int kRows>
__host__ __device__ constexpr int slot_row(int r) {
  return kRev ? kRows - 1 - r : r;
}

/// Slot position of entry (r, c) of a kSwap tile copied in 16-byte pieces: rows of 32,
/// unpadded, the pieces of row r permuted by r (XOR swizzle, so that a warp reading column
/// c over 32 rows spreads over the banks) and, with kRev, the columns reversed, so that
/// each piece holds ascending addresses of A.
template <typename T, bool kRev>
__device__ __forceinline__ int swizzled(int r, int c) {
  constexpr int kPer = kXPerCopy<T>;
  constexpr int kPieces = kTile / kPer;
  const int cs = kRev ? kTile - 1 - c : c;
  return r * kTile + ((cs / kPer) ^ (r % kPieces)) * kPer + cs % kPer;
}

/// Requests column tile t of block row row0 (kRows x 32) into a ring slot, and its x chunk
/// from xpub (by the first kXCopiers threads). With `wide` (a whole block row, 16-byte
/// aligned columns: trsv_wide_copies) the tile is copied in 16-byte pieces through L2 only
/// (cp.async.cg; kSwap: into the swizzled layout), else element by element. H200, a plain stream of
/// 32 x 32 double tiles at lda = 8192 - 32768, one thread block per SM (probe, not committed):
/// 16-byte pieces 30 - 33 GB/s per SM against 25 - 27 element by element, the same with 5 or 10
/// ring stages: one SM streams at most about 30 GB/s, and the long block rows of a large n
/// are bound by it (tools/dense_triangular.md).
template <typename T, bool kRev, bool kSwap, int kChunks>
__device__ void issue_row_tile(const LowerView<T, kRev, kSwap>& L, const T* xpub, int row0, int t,
                               T* slot, T* xslot, int tid, bool wide) {
  constexpr int kRows = kTile * kChunks;
  constexpr int kPer = kXPerCopy<T>;
  if (kSwap && wide) {
    constexpr int kPieces = kTile / kPer;
#pragma unroll
    for (int e = tid; e < kRows * kTile / kPer; e += kSyncThreads) {
      const int p = e % kPieces;  // slot columns kPer p ..
      const int r = e / kPieces;
      // The piece's lowest address holds L' column kPer p, or 31 - kPer p with kRev.
      const int c = kRev ? kTile - 1 - kPer * p : kPer * p;
      cp_async16_cg(slot + swizzled<T, kRev>(r, c), L.ptr(row0 + r, kTile * t + c));
    }
  } else if (wide) {
    constexpr int kPerCol = kRows / kPer;
#pragma unroll
    for (int e = tid; e < kRows * kTile / kPer; e += kSyncThreads) {
      const int q = (e % kPerCol) * kPer;  // first slot row of the piece
      const int c = e / kPerCol;
      // The piece's lowest address holds slot row q: L' row q, or kRows - 1 - q with kRev.
      cp_async16_cg(slot + c * kRows + q, L.ptr(row0 + slot_row<kRev, kRows>(q), kTile * t + c));
    }
  } else {
    constexpr int kElems = kRows * kTile;
#pragma unroll 4
    for (int e = tid; e < kElems; e += kSyncThreads) {
      const int r = kSwap ? e / kTile : e % kRows;
      const int c = kSwap ? e % kTile : e / kRows;
      const bool ok = row0 + r < L.n;
      T* dst = kSwap ? slot + r * kLds + c : slot + c * kRows + slot_row<kRev, kRows>(r);
      cp_async(dst, ok ? L.ptr(row0 + r, kTile * t + c) : L.a, ok);
    }
  }
  if (tid < kXCopiers<T>) cp_async16_cg(xslot + kPer * tid, xpub + kTile * t + kPer * tid);
}

/// True in the copying threads when an entry of the x chunk they copied is still unsolved.
template <typename T>
__device__ bool chunk_copy_unsolved(const T* xslot, int tid) {
  constexpr int kPer = kXPerCopy<T>;
  bool unsolved = false;
  if (tid < kXCopiers<T>) {
#pragma unroll
    for (int q = 0; q < kPer; ++q) unsolved = unsolved || unpublished(xslot[kPer * tid + q]);
  }
  return unsolved;
}

/// Warp 0: polls xpub until chunk t is solved, loading the later chunks of its producing
/// block row (up to `last`, exclusive) in the same round trips, and stores every chunk
/// found complete into its slot of xfix with s_fix set. With kAhead > kChunks the first
/// round also loads the chunks of the tiles already in the ring behind those (up to
/// `ahead` >= last, at most kAhead <= kStages chunks): near the frontier their copies,
/// issued kStages - 1 tiles earlier, are stale, and checked one by one each costs a round
/// trip (H200 probe with %globaltimer stamps, folded 32-row blocks, n = 2048: the stream
/// reached its last tile about 0.9 us after that tile's chunk was published). Only the
/// folded kernels ask for it: the others measured slower with it (double, 32-row blocks
/// without inversion, n = 8192: 336 -> 360 us).
template <typename T, int kChunks, int kAhead, int kStages>
__device__ void await_chunks(const T* xpub, int t, int last, int ahead, int t0, T* xfix, int* s_fix,
                             int lane) {
  static_assert(kChunks <= kAhead && kAhead <= kStages, "chunks in the ring");
  T v[kAhead];
#pragma unroll
  for (int k = 0; k < kAhead; ++k) {
    if (t + k < ahead) v[k] = load_relaxed(xpub + kTile * (t + k) + lane);
  }
  while (!__all_sync(kFullMask, !unpublished(v[0]))) {
#pragma unroll
    for (int k = 0; k < kChunks; ++k) {
      if (t + k < last) v[k] = load_relaxed(xpub + kTile * (t + k) + lane);
    }
  }
#pragma unroll
  for (int k = 0; k < kAhead; ++k) {
    if (t + k < ahead && __all_sync(kFullMask, !unpublished(v[k]))) {  // warp-uniform
      const int slot = (t + k - t0) % kStages;  // the stream began at tile t0
      xfix[slot * kTile + lane] = v[k];
      if (lane == 0) s_fix[slot] = 1;
    }
  }
}

/// Where a global_sync launch finds its ticket and publishes its solution. Plain workspace
/// (`ready` false): `header` is the ticket (all-ones, i.e. -1, before the launch) and xpub
/// starts at `xpub0`. TrsvWorkspace (`ready`): two xpub halves, `half_bytes` apart, used by
/// launches in turn; header[0] holds the half the launch uses (bit 31) and the count of
/// tickets taken (bits 0 - 30), header[1 + h] the 16-byte pieces of half h the launch
/// that used it last wrote (`used_pieces`: this launch's).
struct SyncArgs {
  unsigned* header;
  unsigned char* xpub0;
  long long half_bytes;
  int used_pieces;
  bool ready;
};

// Split block rows (TrsvOptions::split_tiles; 32-row block rows only, so a row's tiles and
// the rows before it are counted alike): a block row R with at least 2 `split` off-diagonal
// tiles gets helpers, thread blocks that each stream `split` of its leftmost tiles and
// publish their rows' partial sums; the block row's own block (the owner) streams the
// remaining split ... 2 split - 1 tiles, adds the helpers' sums and solves. Row R has
// max(0, R / split - 1) helpers.
// Tickets run row by row, each row's helpers before its owner, so every block still waits
// only on blocks with smaller tickets: a helper on the owners of earlier rows (x), an owner
// on them and on its own helpers.
__host__ __device__ constexpr long long split_helpers(long long row, long long split) {
  return row / split >= 2 ? row / split - 1 : 0;
}
/// The helpers of block rows 0 .. row - 1 (their partial sums come first in the workspace).
__host__ __device__ constexpr long long split_helpers_before(long long row, long long split) {
  const long long q = row / split, m = row % split;
  return split * q * (q - 1) / 2 + q * m - (row > split ? row - split : 0);
}

template <typename T, bool kRev, bool kSwap, bool kInvert, int kChunks, bool kSplit>
__global__ void __launch_bounds__(kSyncThreads)
    trsv_sync_kernel(int n, const T* a, long long lda, T* x, bool unit, SyncArgs ws,
                     int invert_from, bool wide, int split) {
  static_assert(!kSplit || kChunks == 1, "split block rows are 32 rows");
  using S = SyncShape<T, kChunks, kInvert>;
  constexpr int kRows = S::kRows;
  constexpr int kStages = S::kStages;
  constexpr std::size_t kSlot = sync_slot_elems<T, kSwap, kChunks>();
  extern __shared__ __align__(16) unsigned char sync_smem[];
  T* xwin = reinterpret_cast<T*>(sync_smem);  // [kStages][32] x chunk copied with each tile
  T* xfix = xwin + kStages * kTile;           // [kStages][32] x chunk polled at the frontier
  T* ring = xfix + kStages * kTile;
  T* diag = ring + kStages * kSlot;                    // packed lower tiles of L'(R, R)
  T* fold = diag + tri_tiles(kChunks) * kTile * kLds;  // [kFoldTiles] L'(R, R-1-j), then M_j
  T* red = fold + S::kFoldTiles * kTile * kLds;        // [kGroups][kRows] partial sums
  __shared__ int s_ticket, s_row, s_role, s_half, s_reset;
  __shared__ long long s_hbase;               // helpers of the block rows before this one
  __shared__ __align__(16) T s_stage[kTile];  // warp 0's broadcast slot
  __shared__ int s_fix[kStages];              // xfix holds the slot's chunk

  const int tid = threadIdx.x;
  const int lane = tid & (kTile - 1);
  const int warp = tid / kTile;
  const int g = tid / kRows;
  const int r = tid % kRows;
  if (tid == 0) {
    if (!ws.ready) {
      s_ticket = static_cast<int>(atomicAdd(ws.header, 1u) + 1u);  // the ticket starts at -1
      s_half = 0;
      s_reset = 0;
    } else {
      // TrsvWorkspace: the ticket comes with the half to use. The block that takes the last
      // ticket (every other block has taken its own) hands the other half to the next
      // launch; one block records how much of this half the launch uses, and every block
      // resets a share of what the launch before used of the other half (below).
      const unsigned used0 = __ldcg(ws.header + 1), used1 = __ldcg(ws.header + 2);
      const unsigned t = atomicAdd(ws.header, 1u);
      const unsigned half = t >> 31, count = t & 0x7fffffffu;
      if (count == gridDim.x - 1) ws.header[0] = (half ^ 1u) << 31;
      if (count == 0) ws.header[1 + half] = static_cast<unsigned>(ws.used_pieces);
      s_ticket = static_cast<int>(count);
      s_half = static_cast<int>(half);
      s_reset = static_cast<int>(half ? used0 : used1);
    }
    // The ticket's block row and role (split: the largest row whose first ticket is at most
    // this one; its helpers come first).
    int row = s_ticket;
    long long before = 0;
    if (kSplit) {
      int lo = 0, hi = (n + kRows - 1) / kRows - 1;
      while (lo < hi) {
        const int mid = (lo + hi + 1) / 2;
        if (mid + split_helpers_before(mid, split) <= s_ticket) {
          lo = mid;
        } else {
          hi = mid - 1;
        }
      }
      row = lo;
      before = split_helpers_before(row, split);
    }
    s_row = row;
    s_role = static_cast<int>(s_ticket - row - before);  // < helpers: helper; == : owner
    s_hbase = before;
  }
  if (tid < kStages) s_fix[tid] = 0;
  __syncthreads();
  const int R = s_row;
  T* xpub = reinterpret_cast<T*>(ws.xpub0 + s_half * ws.half_bytes);
  const int row0 = kRows * R;
  const int ntiles = kChunks * R;  // off-diagonal column tiles
  // Split: this block's tiles [t0, t1), its row's helpers, where their partial sums are.
  const int helpers = kSplit ? static_cast<int>(split_helpers(R, split)) : 0;
  const bool helper = kSplit && s_role < helpers;  // block-uniform
  T* partials = xpub + static_cast<long long>((n + kTile - 1) / kTile) * kTile + s_hbase * kRows;
  const int t0 = !kSplit ? 0 : (helper ? s_role * split : helpers * split);
  const LowerView<T, kRev, kSwap> L{a, lda, n};
  // Folding (32-row blocks with an inverted diagonal block D): the last nfold <= 2 tiles
  // L'(R, R-1-j) are requested with D and replaced by M_j = D^{-1} L'(R, R-1-j) before the
  // stream, which covers the other tiles; c = D^{-1} (b' - their sum) is formed as soon as
  // x'(R - 1 - nfold) has been used, and then x'(R) = c - M_1 x'(R - 2) - M_0 x'(R - 1):
  // one 32 x 32 multiply between seeing x'(R - 1) and publishing x'(R), instead of the tile
  // update, a block reduction and the inverse multiply, which get up to two chain steps
  // to finish in.
  const int nfold = !helper && S::kFoldTiles > 0 && kInvert && R >= 1 && R >= invert_from
                        ? (R < S::kFoldTiles ? R : S::kFoldTiles)
                        : 0;  // block-uniform
  const bool folded = nfold > 0;
  const bool wide_row = wide && row0 + kRows <= n;  // block-uniform: 16-byte pieces
  const int nstream = ntiles - nfold;               // tiles through the ring
  const int t1 = helper ? t0 + split : nstream;

  // Diagonal block first (its own group; none for a helper), then the first kStages - 1
  // tiles.
  if (!helper) {
    for (int q = 0; q < kChunks; ++q) {
      for (int q2 = q; q2 < kChunks; ++q2) {
        issue_tile32(L, kChunks * R + q2, kChunks * R + q, unit,
                     diag + tile_slot(q2, q, kChunks) * kTile * kLds, tid, kSyncThreads);
      }
    }
    for (int j = 0; j < nfold; ++j) {
      issue_tile32(L, R, R - 1 - j, unit, fold + j * kTile * kLds, tid, kSyncThreads);
    }
  }
  cp_async_commit();
  for (int i = 0; i < kStages - 1; ++i) {
    if (t0 + i < t1) {
      issue_row_tile<T, kRev, kSwap, kChunks>(L, xpub, row0, t0 + i, ring + i * kSlot,
                                              xwin + i * kTile, tid, wide_row);
    }
    cp_async_commit();
  }
  T bq[kChunks];  // warp 0: b' of rows row0 + 32 q + lane
#pragma unroll
  for (int q = 0; q < kChunks; ++q) {
    const int row = row0 + kTile * q + lane;
    bq[q] = (warp == 0 && !helper && row < n) ? __ldcg(x + L.p(row)) : T(0);
  }
  // TrsvWorkspace: this block's share of the other half back to all-ones (no block of this
  // launch reads it; the next launch publishes into it). A few 16-byte stores at most.
  if (s_reset > 0) {
    uint4* other = reinterpret_cast<uint4*>(ws.xpub0 + (s_half ^ 1) * ws.half_bytes);
    for (int i = s_ticket * kSyncThreads + tid; i < s_reset;
         i += static_cast<int>(gridDim.x) * kSyncThreads) {
      other[i] = make_uint4(~0u, ~0u, ~0u, ~0u);
    }
  }

  // Prepare the diagonal tiles while the stream is in flight.
  cp_async_wait<kStages - 1>();
  __syncthreads();
  if (!helper && warp < kChunks) {
    prepare_diag_tile(diag + tile_slot(warp, warp, kChunks) * kTile * kLds, row0 + kTile * warp, n,
                      unit, lane);
  }
  __syncthreads();
  if (kInvert && !helper && kChunks * R + kChunks - 1 >= invert_from) {  // block-uniform
    constexpr int kWarpsPerTile = kSyncThreads / kTile / kChunks;
    const int q = warp / kWarpsPerTile;
    const int c0 = (warp % kWarpsPerTile) * S::kInvCols;
    T* tile = diag + tile_slot(q, q, kChunks) * kTile * kLds;
    const bool invert = kChunks * R + q >= invert_from;  // warp-uniform
    T v[S::kInvCols];
    if (invert) warp_inverse_columns(tile, c0, lane, v);
    __syncthreads();
    if (invert) {
#pragma unroll
      for (int j = 0; j < S::kInvCols; ++j) tile[(c0 + j) * kLds + lane] = v[j];
    }
    __syncthreads();
  }
  // M_f = D^{-1} L'(R, R-1-f) in place, kInvCols columns per warp.
  for (int f = 0; f < nfold; ++f) {
    constexpr int kM = S::kInvCols;
    const int c0 = warp * kM;
    T* tile = fold + f * kTile * kLds;
    T m[kM];
#pragma unroll
    for (int j = 0; j < kM; ++j) m[j] = T(0);
#pragma unroll 8
    for (int k = 0; k < kTile; ++k) {
      const T dk = diag[k * kLds + lane];  // D^{-1}(lane, k), zero above the diagonal
#pragma unroll
      for (int j = 0; j < kM; ++j) m[j] += dk * tile[(c0 + j) * kLds + k];
    }
    __syncwarp();
#pragma unroll
    for (int j = 0; j < kM; ++j) tile[(c0 + j) * kLds + lane] = m[j];
    // The barriers of the stream (or the one after it) order these before warp 0 reads M.
  }

  // Split owner: the helpers' partial sums of row r, helper j for column group g = j mod
  // kGroups, loaded a few tiles before the end of the stream (the helpers began with the
  // owner and stream fewer tiles, so they are usually done by then) and waited for after.
  constexpr int kPerGroup = kMaxHelperSums / S::kGroups;
  T hsum[kPerGroup];
  auto load_helper_sums = [&] {
#pragma unroll
    for (int u = 0; u < kPerGroup; ++u) {
      const int j = g + S::kGroups * u;
      if (j < helpers) hsum[u] = load_relaxed(partials + static_cast<long long>(j) * kRows + r);
    }
  };
  const int load_at = t1 - 4 > t0 ? t1 - 4 : t0;  // the tile at which they are loaded

  T acc = T(0);
  if (kSplit && !helper && helpers > 0 && t1 <= t0) load_helper_sums();
  for (int t = t0; t < t1; ++t) {
    if (kSplit && !helper && helpers > 0 && t == load_at) load_helper_sums();
    const int tn = t + kStages - 1;
    if (tn < t1) {
      const int sn = (tn - t0) % kStages;
      issue_row_tile<T, kRev, kSwap, kChunks>(L, xpub, row0, tn, ring + sn * kSlot,
                                              xwin + sn * kTile, tid, wide_row);
    }
    cp_async_commit();
    cp_async_wait<kStages - 1>();
    const int slot = (t - t0) % kStages;
    const bool unsolved = !s_fix[slot] && chunk_copy_unsolved(xwin + slot * kTile, tid);
    if (__syncthreads_or(unsolved)) {  // the stream has reached the solved frontier
      if (warp == 0) {
        int last = (t / kChunks + 1) * kChunks;  // end of the producing block row
        if (kSplit && helper && last > t1) last = t1;
        constexpr int kAhead = S::kFoldTiles > 0 ? kStages : kChunks;
        await_chunks<T, kChunks, kAhead, kStages>(xpub, t, last, folded ? nstream : last, t0, xfix,
                                                  s_fix, lane);
      }
      __syncthreads();
    }
    const T* s = ring + slot * kSlot;
    const T* xw = (s_fix[slot] ? xfix : xwin) + slot * kTile;
#pragma unroll
    for (int k = 0; k < S::kCols; ++k) {
      // Swizzled tiles: rows 8 apart take the columns of a piece in different orders, so
      // that a warp's 32 reads fall on distinct banks (2 wavefronts in double, 1 in float).
      const int c = g * S::kCols + (kSwap && wide_row ? k ^ ((r >> 3) & (kXPerCopy<T> - 1)) : k);
      const T l = kSwap ? s[wide_row ? swizzled<T, kRev>(r, c) : r * kLds + c]
                        : s[c * kRows + slot_row<kRev, kRows>(r)];
      acc += l * xw[c];
    }
    __syncthreads();  // the slot is refilled by the next iteration
    if (tid == 0) s_fix[slot] = 0;
  }
  cp_async_wait<0>();
  if (kSplit && !helper && helpers > 0) {
#pragma unroll
    for (int u = 0; u < kPerGroup; ++u) {
      const int j = g + S::kGroups * u;
      if (j < helpers) {
        while (unpublished(hsum[u])) {
          hsum[u] = load_relaxed(partials + static_cast<long long>(j) * kRows + r);
        }
        acc += hsum[u];
      }
    }
  }

  red[g * kRows + r] = acc;
  __syncthreads();
  if (kSplit && helper) {  // publish this segment's sums of the block row's rows
    if (tid < kRows) {
      T sum = T(0);
#pragma unroll
      for (int k = 0; k < S::kGroups; ++k) sum += red[k * kRows + tid];
      store_relaxed(partials + static_cast<long long>(s_role) * kRows + tid, publishable(sum));
    }
    return;
  }
  // The diagonal block by warp 0 alone, right-hand sides in registers (no block barriers on
  // the critical path): chunk q is solved (or multiplied by its inverse), published, stored
  // and eliminated from the chunks below it with shuffles. Folded: c, then the folded
  // tiles' products as their chunks arrive, then x'(R) published.
  if (warp == 0) {
    T v[kChunks];
#pragma unroll
    for (int q = 0; q < kChunks; ++q) {
      v[q] = bq[q];
#pragma unroll
      for (int k = 0; k < S::kGroups; ++k) v[q] -= red[k * kRows + kTile * q + lane];
    }
    if (folded) {
      constexpr int kFold = S::kFoldTiles > 0 ? S::kFoldTiles : 1;  // (no zero-sized array)
      T xv[kFold];  // x'(R - nfold + f), requested early: perhaps published already
#pragma unroll
      for (int f = 0; f < kFold; ++f) {
        if (f < nfold) xv[f] = load_relaxed(xpub + kTile * (R - nfold + f) + lane);
      }
      T xq = warp_tile_multiply_staged<true>(diag, v[0], lane, s_stage);  // c
#pragma unroll
      for (int f = 0; f < kFold; ++f) {
        if (f < nfold) {
          const int chunk = R - nfold + f;
          while (!__all_sync(kFullMask, !unpublished(xv[f]))) {
            xv[f] = load_relaxed(xpub + kTile * chunk + lane);
          }
          const T* m = fold + (R - 1 - chunk) * kTile * kLds;  // M for L'(R, chunk)
          xq -= warp_tile_multiply_staged<false>(m, xv[f], lane, s_stage);
        }
      }
      const int row = row0 + lane;
      if (row < n) {
        store_relaxed(xpub + row, publishable(xq));
        x[L.p(row)] = xq;
      }
      return;
    }
#pragma unroll
    for (int q = 0; q < kChunks; ++q) {
      const T* d = diag + tile_slot(q, q, kChunks) * kTile * kLds;
      const bool inverse = kInvert && kChunks * R + q >= invert_from;
      const T xq = inverse ? warp_inverse_multiply(d, v[q], lane) : warp_diag_solve(d, v[q], lane);
      const int row = row0 + kTile * q + lane;
      if (row < n) {
        store_relaxed(xpub + row, publishable(xq));
        x[L.p(row)] = xq;
      }
      if (q + 1 < kChunks) {
#pragma unroll 8
        for (int c = 0; c < kTile; ++c) {
          const T xc = __shfl_sync(kFullMask, xq, c);
#pragma unroll
          for (int q2 = q + 1; q2 < kChunks; ++q2) {
            v[q2] -= diag[tile_slot(q2, q, kChunks) * kTile * kLds + c * kLds + lane] * xc;
          }
        }
      }
    }
  }
}

// ------------------------------------------------------------------------------------------
// trsm: data flow over 64x64 tiles of X'. Tile (I, J) (ticket I * col_tiles + J) computes
//   X'(I, J) = L'(I, I)^{-1} (alpha B'(I, J) - sum_{l < I} L'(I, l) X'(l, J))
// with the sum as a GEMM over 64x64x64 steps (TileGemm of tile_gemm.cuh: FP64 tensor cores
// for double, a 4x4 register tile per thread for float; L' tiles stored [k][r], X' tiles
// [k][c]; cp.async double buffering, the L' tile of step l + 1 always and the X' tile when
// already published), then the diagonal solve, stores X'(I, J) and publishes done[J] += 1.
// The diagonal solve is by default one more tile GEMM with L'(I, I)^{-1}, computed for all
// I by trsm_invert_kernel before (one thread block per tile, all in parallel, off the
// chain); without inversion, substitution by warps (8 columns each, rows in lanes,
// shuffles): on an H200 that substitution took 9.8 of the 14.5 us of a double chain step.
// The diagonal tile (or its inverse) and B'(I, J) are requested before the GEMM. Memory
// traffic per tile: I + 1 tiles of L' (from L2 after the first column of tiles), I tiles
// of X' (from L2), B'(I, J) read and written once.

constexpr int kMb = kGemmTile;  // rows of a tile = diagonal block size
constexpr int kNb = kGemmTile;  // columns of a tile
constexpr int kTrsmThreads = kGemmThreads;
constexpr int kLdA = kGemmLdA;  // As[k][r] (tile_gemm.cuh)
constexpr int kLdX = kGemmLdB;  // Bs[k][c]
constexpr int kLdT = kMb + 1;   // Ld[k][r] and Ts[c][r]

constexpr int kTileElems = kMb * kMb;  // one 64x64 tile of diagonal-block inverses

/// The diagonal region holds L'(I, I) as Ld[k][r] (kLdT) or its inverse as [k][r] (kLdA).
template <typename T>
constexpr std::size_t trsm_smem_bytes() {
  return (2 * kMb * kLdA + 2 * kMb * kLdX + kMb * kLdA + kNb * kLdT) * sizeof(T);
}

/// As[k * kLdA + r] = L'(64 bi + r, 64 bj + k) (diagonal tile: lower part only, unit
/// diagonal not read; zero past m).
template <typename T, bool kRev, bool kSwap>
__device__ void issue_trsm_l_tile(const LowerView<T, kRev, kSwap>& L, int bi, int bj, bool unit,
                                  T* dst, int ld, int tid) {
#pragma unroll 4
  for (int e = tid; e < kMb * kMb; e += kTrsmThreads) {
    int r, k;
    if (!kSwap) {  // rows of A are rows of L': r fast
      r = e & (kMb - 1);
      k = e / kMb;
    } else {  // rows of A are columns of L': 8 consecutive k x 4 r per 32 lanes (bank-spread)
      k = (e & 7) | (((e >> 5) & 7) << 3);
      r = ((e >> 3) & 3) | ((e >> 8) << 2);
    }
    const int i = kMb * bi + r;
    const int j = kMb * bj + k;
    bool ok = i < L.n && j < L.n;
    if (bi == bj) ok = ok && (r > k || (r == k && !unit));
    cp_async(dst + k * ld + r, ok ? L.ptr(i, j) : L.a, ok);
  }
}

/// Tile (bi, J) of X' = B' (rows reversed when kRev): kTransposed ? dst[k * ld + c] :
/// dst[c * ld + k] with k the row in the tile and c the column; zero past m or nrhs.
template <typename T, bool kRev, bool kTransposed>
__device__ void issue_trsm_x_tile(const T* b, long long ldb, int m, int nrhs, int bi, int J, T* dst,
                                  int ld, int tid) {
#pragma unroll 4
  for (int e = tid; e < kMb * kNb; e += kTrsmThreads) {
    const int k = e & (kMb - 1);
    const int c = e / kMb;
    const int i = kMb * bi + k;
    const int col = kNb * J + c;
    const bool ok = i < m && col < nrhs;
    const T* src = ok ? b + (kRev ? m - 1 - i : i) + static_cast<long long>(col) * ldb : b;
    cp_async(kTransposed ? dst + k * ld + c : dst + c * ld + k, src, ok);
  }
}

/// Solves the 64x64 lower tile Ld[k * kLdT + r] (reciprocal diagonal) for the 64 columns
/// Ts[c * kLdT + r] in place by substitution: warp w owns columns 8w .. 8w + 7, lane holds
/// rows lane and lane + 32, x_k is broadcast by shuffles.
template <typename T>
__device__ void solve_diagonal_tile(const T* Ld, T* Ts, int lane, int warp) {
  constexpr int kWc = kNb / (kTrsmThreads / 32);
  T v0[kWc], v1[kWc];
#pragma unroll
  for (int c = 0; c < kWc; ++c) {
    v0[c] = Ts[(kWc * warp + c) * kLdT + lane];
    v1[c] = Ts[(kWc * warp + c) * kLdT + 32 + lane];
  }
  // Selects, not branches: with an if/else on the lane inside the column loop the float
  // build made every column a divergent region and serialised the eight independent
  // chains (H200: one 64-row tile 44 -> 17 us; the double build used selects already).
#pragma unroll 2
  for (int k = 0; k < 32; ++k) {
    const T dk = Ld[k * kLdT + k];
    const T l0 = Ld[k * kLdT + lane];
    const T l1 = Ld[k * kLdT + 32 + lane];
    const bool pivot = lane == k;
    const bool below = lane > k;
#pragma unroll
    for (int c = 0; c < kWc; ++c) {
      const T xk = __shfl_sync(kFullMask, v0[c], k) * dk;
      const T updated = v0[c] - l0 * xk;
      v0[c] = pivot ? xk : (below ? updated : v0[c]);
      v1[c] -= l1 * xk;
    }
  }
#pragma unroll 2
  for (int k = 0; k < 32; ++k) {
    const T dk = Ld[(32 + k) * kLdT + 32 + k];
    const T l1 = Ld[(32 + k) * kLdT + 32 + lane];
    const bool pivot = lane == k;
    const bool below = lane > k;
#pragma unroll
    for (int c = 0; c < kWc; ++c) {
      const T xk = __shfl_sync(kFullMask, v1[c], k) * dk;
      const T updated = v1[c] - l1 * xk;
      v1[c] = pivot ? xk : (below ? updated : v1[c]);
    }
  }
#pragma unroll
  for (int c = 0; c < kWc; ++c) {
    Ts[(kWc * warp + c) * kLdT + lane] = v0[c];
    Ts[(kWc * warp + c) * kLdT + 32 + lane] = v1[c];
  }
}

/// inv[64 x 64 tile I] = L'(I, I)^{-1} stored [k][r] (column k of the inverse contiguous),
/// one thread block per diagonal tile: the tile is solved against the identity by
/// solve_diagonal_tile. Rows past m get an identity block.
template <typename T, bool kRev, bool kSwap>
__global__ void __launch_bounds__(kTrsmThreads)
    trsm_invert_kernel(int m, const T* a, long long lda, bool unit, T* inv) {
  extern __shared__ __align__(16) unsigned char invert_smem[];
  T* Ld = reinterpret_cast<T*>(invert_smem);  // [kMb][kLdT]
  T* Ts = Ld + kMb * kLdT;                    // [kNb][kLdT], the identity, then the inverse
  const int tid = threadIdx.x;
  const int I = blockIdx.x;
  const LowerView<T, kRev, kSwap> L{a, lda, m};
  issue_trsm_l_tile(L, I, I, unit, Ld, kLdT, tid);
  cp_async_commit();
  for (int e = tid; e < kMb * kNb; e += kTrsmThreads) {
    const int r = e & (kMb - 1);
    const int c = e / kMb;
    Ts[c * kLdT + r] = r == c ? T(1) : T(0);
  }
  cp_async_wait<0>();
  __syncthreads();
  if (tid < kMb) {
    T& d = Ld[tid * kLdT + tid];
    d = (unit || kMb * I + tid >= m) ? T(1) : T(1) / d;
  }
  __syncthreads();
  solve_diagonal_tile(Ld, Ts, tid & 31, tid / 32);
  __syncthreads();
  T* out = inv + static_cast<long long>(I) * kTileElems;
  for (int e = tid; e < kMb * kNb; e += kTrsmThreads) {
    const int r = e & (kMb - 1);
    const int k = e / kMb;
    out[e] = Ts[k * kLdT + r];
  }
}

template <typename T, bool kRev, bool kSwap>
__global__ void __launch_bounds__(kTrsmThreads)
    trsm_kernel(int m, int nrhs, T alpha, const T* a, long long lda, T* b, long long ldb, bool unit,
                int* sync, int col_tiles, const T* inv) {
  extern __shared__ __align__(16) unsigned char trsm_smem[];
  T* As = reinterpret_cast<T*>(trsm_smem);  // 2 x [kMb][kLdA]
  T* Bs = As + 2 * kMb * kLdA;              // 2 x [kMb][kLdX]
  T* Ld = Bs + 2 * kMb * kLdX;         // L'(I, I) as [kMb][kLdT], or its inverse as [kMb][kLdA]
  T* Ts = Ld + kMb * kLdA;             // [kNb][kLdT] alpha B'(I, J) - sum
  const bool invert = inv != nullptr;  // multiply by the inverse instead of substituting
  __shared__ int s_item, s_seen;
  const int tid = threadIdx.x;
  const int lane = tid & 31;
  const int warp = tid / 32;
  if (tid == 0) {
    const int item = atomicAdd(sync, 1);
    s_item = item;
    s_seen = load_acquire(sync + 1 + item % col_tiles);
  }
  __syncthreads();
  const int I = s_item / col_tiles;
  const int J = s_item % col_tiles;
  int* done = sync + 1 + J;
  int ready = s_seen;  // solved block rows of column tile J known here (block-uniform)
  const LowerView<T, kRev, kSwap> L{a, lda, m};

  if (invert) {
    const T* src = inv + static_cast<long long>(I) * kTileElems;
    for (int e = tid; e < kTileElems; e += kTrsmThreads) {
      cp_async(Ld + (e / kMb) * kLdA + (e & (kMb - 1)), src + e, true);
    }
  } else {
    issue_trsm_l_tile(L, I, I, unit, Ld, kLdT, tid);
  }
  issue_trsm_x_tile<T, kRev, false>(b, ldb, m, nrhs, I, J, Ts, kLdT, tid);
  cp_async_commit();
  int x_issued = -1;
  if (I > 0) {
    issue_trsm_l_tile(L, I, 0, unit, As, kLdA, tid);
    if (0 < ready) {
      issue_trsm_x_tile<T, kRev, true>(b, ldb, m, nrhs, 0, J, Bs, kLdX, tid);
      x_issued = 0;
    }
    cp_async_commit();
  }
  __syncthreads();  // everyone has read s_seen before block_wait rewrites it

  TileGemm<T> gemm;
  gemm.zero();
  for (int l = 0; l < I; ++l) {
    const int buf = l & 1;
    if (x_issued < l) {
      if (l >= ready) ready = block_wait(done, l + 1, &s_seen);
      issue_trsm_x_tile<T, kRev, true>(b, ldb, m, nrhs, l, J, Bs + buf * kMb * kLdX, kLdX, tid);
      cp_async_commit();
      x_issued = l;
    }
    if (l + 1 < I) {
      issue_trsm_l_tile(L, I, l + 1, unit, As + (buf ^ 1) * kMb * kLdA, kLdA, tid);
      if (l + 1 < ready) {
        issue_trsm_x_tile<T, kRev, true>(b, ldb, m, nrhs, l + 1, J, Bs + (buf ^ 1) * kMb * kLdX,
                                         kLdX, tid);
        x_issued = l + 1;
      }
      cp_async_commit();
      cp_async_wait<1>();
    } else {
      cp_async_wait<0>();
    }
    __syncthreads();
    gemm.template mma<kMb>(As + buf * kMb * kLdA, Bs + buf * kMb * kLdX, tid);
    __syncthreads();  // the buffer is refilled two steps on
  }
  cp_async_wait<0>();
  __syncthreads();
  if (!invert && tid < kMb) {
    T& d = Ld[tid * kLdT + tid];
    d = (unit || kMb * I + tid >= m) ? T(1) : T(1) / d;
  }
  if (invert) {
    // X = L'(I, I)^{-1} T, one more GEMM on the tile, with T = alpha B' - sum written in
    // the B operand layout [k][c] into Bs buffer 0 (free after the loop).
    T* Tk = Bs;
    gemm.for_each(tid, [&](int r, int c, T v) { Tk[r * kLdX + c] = alpha * Ts[c * kLdT + r] - v; });
    __syncthreads();
    TileGemm<T> solve;
    solve.zero();
    solve.template mma<kMb>(Ld, Tk, tid);
    solve.for_each(tid, [&](int r, int c, T v) { Ts[c * kLdT + r] = v; });
  } else {
    gemm.for_each(tid, [&](int r, int c, T v) {
      T& t = Ts[c * kLdT + r];
      t = alpha * t - v;
    });
    __syncthreads();
    solve_diagonal_tile(Ld, Ts, lane, warp);
  }
  __syncthreads();
  constexpr int kWc = kNb / (kTrsmThreads / 32);
#pragma unroll
  for (int c = 0; c < kWc; ++c) {
    const int col = kNb * J + kWc * warp + c;
    if (col >= nrhs) continue;
    T* out = b + static_cast<long long>(col) * ldb;
    const int i0 = kMb * I + lane;
    const int i1 = i0 + 32;
    if (i0 < m) out[kRev ? m - 1 - i0 : i0] = Ts[(kWc * warp + c) * kLdT + lane];
    if (i1 < m) out[kRev ? m - 1 - i1 : i1] = Ts[(kWc * warp + c) * kLdT + 32 + lane];
  }
  __syncthreads();
  if (tid == 0) add_release(done, 1);
}

// ------------------------------------------------------------------------------------------
// Host side.

/// Whether the index map onto L' runs backwards through A (file header: upper xor
/// transpose).
bool reversed(TriUplo uplo, TriOp op) {
  return (uplo == TriUplo::upper) != (op == TriOp::transpose);
}

/// Calls f(integral_constant<bool, reverse>, integral_constant<bool, swap>).
template <typename F>
void dispatch_view(TriUplo uplo, TriOp op, F&& f) {
  const bool rev = reversed(uplo, op);
  const bool swap = op == TriOp::transpose;
  using Y = std::true_type;
  using N = std::false_type;
  if (rev && swap) {
    f(Y{}, Y{});
  } else if (rev) {
    f(Y{}, N{});
  } else if (swap) {
    f(N{}, Y{});
  } else {
    f(N{}, N{});
  }
}

template <typename Kernel>
void allow_dynamic_smem(Kernel kernel, std::size_t bytes) {
  if (bytes > 48 * 1024) {
    PRISM_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          static_cast<int>(bytes)));
  }
}

void check_square(const char* who, index_t n, index_t lda) {
  if (n < 0) throw ConfigError(std::string(who) + ": negative size n = " + std::to_string(n));
  if (lda < (n > 1 ? n : 1)) {
    throw ConfigError(std::string(who) + ": leading dimension " + std::to_string(lda) +
                      " < max(1, n = " + std::to_string(n) + ")");
  }
}

/// Whether global_sync copies the off-diagonal tiles of op(A) in 16-byte pieces (see
/// issue_row_tile): every column of A 16-byte aligned (a and lda) and, with the index map
/// reversed, n a multiple of the piece too (a reversed block row or tile starts at A row
/// n - 32 (R + 1)).
bool trsv_wide_copies(TriUplo uplo, TriOp op, index_t n, const void* a, index_t lda,
                      std::size_t elem) {
  const auto per = static_cast<index_t>(16 / elem);
  return reinterpret_cast<std::uintptr_t>(a) % 16 == 0 && lda % per == 0 &&
         (!reversed(uplo, op) || n % per == 0);
}

/// The bytes of xpub a global_sync solve of size n in T uses: n entries in whole chunks (a
/// multiple of 16).
template <typename T>
std::size_t sync_xpub_bytes(index_t n) {
  return static_cast<std::size_t>((n + kTile - 1) / kTile) * kTile * sizeof(T);
}

/// The workspace a global_sync solve is given: `size` bytes at `bytes`, the header, then
/// xpub; or a TrsvWorkspace (`ready`): two xpub halves `half_bytes` apart (see SyncArgs),
/// for n <= max_n.
struct SyncWorkspace {
  void* bytes = nullptr;
  std::size_t size = 0;
  bool ready = false;
  std::size_t half_bytes = 0;
  index_t max_n = 0;
};

/// The tiles per helper segment a split solve of n rows in 32-row block rows uses for a
/// requested `split` (0: none): at least kMinSplitTiles (the workspace is sized for that)
/// and long enough that no row has more than kMaxHelperSums helpers.
int split_tiles_for(index_t n, int split) {
  if (split <= 0) return 0;
  const long long rows = (n + kTile - 1) / kTile;
  const long long fewest = (rows - 1 + kMaxHelperSums) / (kMaxHelperSums + 1);
  return static_cast<int>(std::max<long long>(std::max(split, kMinSplitTiles), fewest));
}

/// Partial-sum entries of the helpers of a split solve of n rows (0 without a split).
std::size_t split_partial_entries(index_t n, int split) {
  if (split <= 0) return 0;
  const long long rows = (n + kTile - 1) / kTile;
  return static_cast<std::size_t>(split_helpers_before(rows, split)) * kTile;
}

template <typename T, bool kRev, bool kSwap, bool kInvert, int kChunks>
void launch_sync(index_t n, const T* a, index_t lda, T* x, bool unit, const SyncWorkspace& ws,
                 int invert_from, bool wide, int split_request, cudaStream_t stream) {
  constexpr int kRows = kTile * kChunks;
  const std::size_t smem = sync_smem_bytes<T, kSwap, kInvert, kChunks>();
  const int split = kChunks == 1 ? split_tiles_for(n, split_request) : 0;  // 32 rows only
  const long long rows = (n + kRows - 1) / kRows;
  const long long blocks = rows + (split > 0 ? split_helpers_before(rows, split) : 0);
  auto kernel = trsv_sync_kernel<T, kRev, kSwap, kInvert, kChunks, false>;
  if constexpr (kChunks == 1) {
    if (split > 0) kernel = trsv_sync_kernel<T, kRev, kSwap, kInvert, 1, true>;
  }
  allow_dynamic_smem(kernel, smem);
  // xpub, then the helpers' partial sums.
  const std::size_t used = sync_xpub_bytes<T>(n) + split_partial_entries(n, split) * sizeof(T);
  SyncArgs args{};
  args.header = static_cast<unsigned*>(ws.bytes);
  args.xpub0 = static_cast<unsigned char*>(ws.bytes) + kTrsvTicketBytes;
  args.used_pieces = static_cast<int>(used / 16);
  args.ready = ws.ready;
  if (ws.ready) {
    args.half_bytes = static_cast<long long>(ws.half_bytes);
  } else {
    // A plain workspace: the ticket and the entries the kernel uses to all-ones in one
    // memset (ticket -1, every entry unsolved).
    PRISM_CUDA_CHECK(cudaMemsetAsync(ws.bytes, 0xff, kTrsvTicketBytes + used, stream));
  }
  kernel<<<static_cast<unsigned>(blocks), kSyncThreads, smem, stream>>>(
      static_cast<int>(n), a, lda, x, unit, args, invert_from, wide, split);
  PRISM_CUDA_CHECK_LAUNCH();
}

template <typename T>
void trsv_impl(TriUplo uplo, TriOp op, TriDiag diag, index_t n, const T* a, index_t lda, T* x,
               const SyncWorkspace& ws, cudaStream_t stream, const TrsvOptions& options) {
  check_square("trsv", n, lda);
  const bool wide = trsv_wide_copies(uplo, op, n, a, lda, sizeof(T));
  const int rows = options.block_rows == 0 ? trsv_auto_block_rows(n, wide) : options.block_rows;
  if (rows != 32 && rows != 64 && rows != 128) {
    throw ConfigError("trsv: block_rows must be 0, 32, 64 or 128, got " +
                      std::to_string(options.block_rows));
  }
  if (n == 0) return;
  const bool unit = diag == TriDiag::unit;
  TrsvAlgorithm algo = options.algorithm;
  if (algo == TrsvAlgorithm::automatic) {
    const index_t single_max =
        ws.ready ? trsv_auto_single_block_max_n_ready : trsv_auto_single_block_max_n;
    algo = n <= single_max ? TrsvAlgorithm::single_block : TrsvAlgorithm::global_sync;
  }
  if (algo == TrsvAlgorithm::single_block) {
    if (n > trsv_small_max_n) {
      throw ConfigError("trsv: single_block needs n <= 128, got n = " + std::to_string(n));
    }
    if (n <= 2 * kTile) {
      dispatch_view(uplo, op, [&](auto rev, auto swap) {
        constexpr bool kR = decltype(rev)::value, kS = decltype(swap)::value;
        if (n <= kTile) {
          trsv_warp_kernel<T, kR, kS, 1>
              <<<1, kTile, 0, stream>>>(static_cast<int>(n), a, lda, x, unit);
        } else {
          trsv_warp_kernel<T, kR, kS, 2>
              <<<1, 2 * kTile, 0, stream>>>(static_cast<int>(n), a, lda, x, unit);
        }
        PRISM_CUDA_CHECK_LAUNCH();
      });
      return;
    }
    const std::size_t smem = small_smem_bytes(static_cast<int>(n), sizeof(T));
    dispatch_view(uplo, op, [&](auto rev, auto swap) {
      auto kernel = trsv_small_kernel<T, decltype(rev)::value, decltype(swap)::value>;
      allow_dynamic_smem(kernel, smem);
      kernel<<<1, kSmallThreads, smem, stream>>>(static_cast<int>(n), a, lda, x, unit);
      PRISM_CUDA_CHECK_LAUNCH();
    });
    return;
  }
  if (ws.ready && ws.bytes == nullptr) {
    throw ConfigError("trsv: the TrsvWorkspace is empty (moved from)");
  }
  if (ws.ready && n > ws.max_n) {
    throw ConfigError("trsv: n = " + std::to_string(n) +
                      " is larger than the TrsvWorkspace's max_n = " + std::to_string(ws.max_n));
  }
  if (!ws.ready && (ws.bytes == nullptr || ws.size < trsv_workspace_bytes(n))) {
    throw ConfigError("trsv: global_sync needs a workspace of trsv_workspace_bytes(n = " +
                      std::to_string(n) + ") = " + std::to_string(trsv_workspace_bytes(n)) +
                      " bytes, got " + std::to_string(ws.bytes == nullptr ? 0 : ws.size));
  }
  if (reinterpret_cast<std::uintptr_t>(ws.bytes) % 16 != 0) {
    throw ConfigError("trsv: the workspace must be 16-byte aligned (cudaMalloc's is)");
  }
  const int invert_from = options.invert_from_block_row;
  const int split = options.split_tiles < 0 ? 0
                    : options.split_tiles > 0
                        ? options.split_tiles
                        : trsv_auto_split_tiles(n, rows, sizeof(T), options.invert_diagonal_blocks);
  dispatch_view(uplo, op, [&](auto rev, auto swap) {
    constexpr bool kRev = decltype(rev)::value;
    constexpr bool kSwap = decltype(swap)::value;
    auto by_rows = [&](auto invert) {
      constexpr bool kInv = decltype(invert)::value;
      if (rows == 32) {
        launch_sync<T, kRev, kSwap, kInv, 1>(n, a, lda, x, unit, ws, invert_from, wide, split,
                                             stream);
      } else if (rows == 64) {
        launch_sync<T, kRev, kSwap, kInv, 2>(n, a, lda, x, unit, ws, invert_from, wide, split,
                                             stream);
      } else {
        launch_sync<T, kRev, kSwap, kInv, 4>(n, a, lda, x, unit, ws, invert_from, wide, split,
                                             stream);
      }
    };
    if (options.invert_diagonal_blocks) {
      by_rows(std::true_type{});
    } else {
      by_rows(std::false_type{});
    }
  });
}

template <typename T>
void batched_impl(TriUplo uplo, TriOp op, TriDiag diag, index_t batch, index_t max_n,
                  const index_t* n, const T* const* a, const index_t* lda, T* const* x,
                  cudaStream_t stream) {
  if (batch < 0) throw ConfigError("trsv_batched: negative batch = " + std::to_string(batch));
  if (max_n < 0 || max_n > trsv_small_max_n) {
    throw ConfigError("trsv_batched: max_n must be in [0, 128], got " + std::to_string(max_n));
  }
  if (batch == 0 || max_n == 0) return;
  const bool unit = diag == TriDiag::unit;
  if (max_n <= kTile) {
    const auto blocks = static_cast<unsigned>((batch + kBatchedWarps - 1) / kBatchedWarps);
    dispatch_view(uplo, op, [&](auto rev, auto swap) {
      trsv_batched_warp_kernel<T, decltype(rev)::value, decltype(swap)::value>
          <<<blocks, kTile * kBatchedWarps, 0, stream>>>(static_cast<int>(batch), n, a, lda, x,
                                                         unit);
      PRISM_CUDA_CHECK_LAUNCH();
    });
    return;
  }
  const std::size_t smem = small_smem_bytes(static_cast<int>(max_n), sizeof(T));
  dispatch_view(uplo, op, [&](auto rev, auto swap) {
    auto kernel = trsv_batched_kernel<T, decltype(rev)::value, decltype(swap)::value>;
    allow_dynamic_smem(kernel, smem);
    kernel<<<batch, kSmallThreads, smem, stream>>>(n, a, lda, x, unit);
    PRISM_CUDA_CHECK_LAUNCH();
  });
}

index_t trsm_col_tiles(index_t nrhs) {
  return (nrhs + kNb - 1) / kNb;
}

void check_trsm(index_t m, index_t nrhs, index_t lda, index_t ldb) {
  check_square("trsm", m, lda);
  if (nrhs < 0) throw ConfigError("trsm: negative nrhs = " + std::to_string(nrhs));
  if (ldb < (m > 1 ? m : 1)) {
    throw ConfigError("trsm: ldb = " + std::to_string(ldb) + " < max(1, m = " + std::to_string(m) +
                      ")");
  }
}

/// Bytes of the counters at the start of the trsm workspace (the inverses follow).
std::size_t trsm_counter_bytes(index_t nrhs) {
  const std::size_t bytes = static_cast<std::size_t>(1 + trsm_col_tiles(nrhs)) * sizeof(int);
  return (bytes + 255) / 256 * 256;
}

/// inv = the inverses of op(A)'s 64x64 diagonal tiles of L' (trsm_invert_kernel), one
/// launch for all of them.
template <typename T>
void trsm_invert(TriUplo uplo, TriOp op, TriDiag diag, index_t m, const T* a, index_t lda, T* inv,
                 cudaStream_t stream) {
  const index_t row_tiles = (m + kMb - 1) / kMb;
  const std::size_t smem = (kMb + kNb) * kLdT * sizeof(T);
  dispatch_view(uplo, op, [&](auto rev, auto swap) {
    auto kernel = trsm_invert_kernel<T, decltype(rev)::value, decltype(swap)::value>;
    allow_dynamic_smem(kernel, smem);
    kernel<<<static_cast<unsigned>(row_tiles), kTrsmThreads, smem, stream>>>(
        static_cast<int>(m), a, lda, diag == TriDiag::unit, inv);
    PRISM_CUDA_CHECK_LAUNCH();
  });
}

/// The data-flow kernel on op(A) X = alpha B; inv holds the inverses of its diagonal tiles
/// (trsm_invert), or is null for substitution.
template <typename T>
void trsm_launch(TriUplo uplo, TriOp op, TriDiag diag, index_t m, index_t nrhs, T alpha, const T* a,
                 index_t lda, T* b, index_t ldb, int* sync, const T* inv, cudaStream_t stream) {
  const index_t col_tiles = trsm_col_tiles(nrhs);
  const index_t tiles = ((m + kMb - 1) / kMb) * col_tiles;
  if (tiles > 0x7fffffff) throw ConfigError("trsm: too many 64x64 tiles of X");
  PRISM_CUDA_CHECK(cudaMemsetAsync(sync, 0, (1 + col_tiles) * sizeof(int), stream));
  const bool unit = diag == TriDiag::unit;
  const std::size_t smem = trsm_smem_bytes<T>();
  dispatch_view(uplo, op, [&](auto rev, auto swap) {
    auto kernel = trsm_kernel<T, decltype(rev)::value, decltype(swap)::value>;
    allow_dynamic_smem(kernel, smem);
    kernel<<<static_cast<unsigned>(tiles), kTrsmThreads, smem, stream>>>(
        static_cast<int>(m), static_cast<int>(nrhs), alpha, a, lda, b, ldb, unit, sync,
        static_cast<int>(col_tiles), inv);
    PRISM_CUDA_CHECK_LAUNCH();
  });
}

cublasStatus_t gemm(cublasHandle_t h, cublasOperation_t op_a, int m, int n, int k, double alpha,
                    const double* a, int lda, const double* b, int ldb, double beta, double* c,
                    int ldc) {
  return cublasDgemm(h, op_a, CUBLAS_OP_N, m, n, k, &alpha, a, lda, b, ldb, &beta, c, ldc);
}
cublasStatus_t gemm(cublasHandle_t h, cublasOperation_t op_a, int m, int n, int k, float alpha,
                    const float* a, int lda, const float* b, int ldb, float beta, float* c,
                    int ldc) {
  return cublasSgemm(h, op_a, CUBLAS_OP_N, m, n, k, &alpha, a, lda, b, ldb, &beta, c, ldc);
}

/// Blocked trsm: op(A) in diagonal blocks of nb rows, taken in solve order (top down when
/// L' is not reversed, bottom up when it is; a short block comes last). Block k:
///   X_k = op(A)_kk^{-1} (s B_k)                  data-flow kernel on the diagonal block
///   B_rest = s B_rest - op(A)_(rest, k) X_k        one GEMM, rest = the rows solved later
/// with s = alpha for the first block (which scales every other row once) and 1 after.
/// The diagonal blocks start on 64-row tiles of L' counted in solve order, so block k's
/// tile inverses are those of the whole matrix from tile `solved` / 64 on (inv may be null).
template <typename T>
void trsm_blocked(TriUplo uplo, TriOp op, TriDiag diag, index_t m, index_t nrhs, T alpha,
                  const T* a, index_t lda, T* b, index_t ldb, index_t nb, int* sync, const T* inv,
                  cudaStream_t stream) {
  cublasHandle_t handle = thread_cublas_handle();
  PRISM_CUBLAS_CHECK(cublasSetStream(handle, stream));
  const bool rev = (uplo == TriUplo::upper) != (op == TriOp::transpose);
  const bool trans = op == TriOp::transpose;
  const auto at = [&](index_t i, index_t j) { return a + i + static_cast<std::size_t>(j) * lda; };
  T scale = alpha;
  for (index_t solved = 0; solved < m; solved += nb) {
    const index_t rows = std::min(nb, m - solved);
    const index_t r0 = rev ? m - solved - rows : solved;  // the diagonal block's first row
    const T* block_inv = inv ? inv + static_cast<std::size_t>(solved / kMb) * kTileElems : nullptr;
    trsm_launch(uplo, op, diag, rows, nrhs, scale, at(r0, r0), lda, b + r0, ldb, sync, block_inv,
                stream);
    const index_t rest = m - solved - rows;
    if (rest == 0) break;
    const index_t u0 = rev ? 0 : r0 + rows;  // the first row still to solve
    // op(A)(u0 : u0 + rest, r0 : r0 + rows): A(u0.., r0..), or A(r0.., u0..) transposed.
    const T* block = trans ? at(r0, u0) : at(u0, r0);
    PRISM_CUBLAS_CHECK(gemm(handle, trans ? CUBLAS_OP_T : CUBLAS_OP_N, rest, nrhs, rows, T(-1),
                            block, lda, b + r0, ldb, scale, b + u0, ldb));
    scale = T(1);
  }
}

template <typename T>
void trsm_impl(TriUplo uplo, TriOp op, TriDiag diag, index_t m, index_t nrhs, T alpha, const T* a,
               index_t lda, T* b, index_t ldb, void* workspace, std::size_t workspace_bytes,
               cudaStream_t stream, const TrsmOptions& options) {
  check_trsm(m, nrhs, lda, ldb);
  if (options.block_rows < 0 || options.block_rows % kMb != 0) {
    throw ConfigError("trsm: block_rows must be 0 or a positive multiple of 64, got " +
                      std::to_string(options.block_rows));
  }
  if (m == 0 || nrhs == 0) return;
  if (workspace == nullptr || workspace_bytes < trsm_workspace_bytes(m, nrhs)) {
    throw ConfigError("trsm: needs a workspace of trsm_workspace_bytes(m, nrhs) = " +
                      std::to_string(trsm_workspace_bytes(m, nrhs)) + " bytes");
  }
  int* sync = static_cast<int*>(workspace);
  T* inv = nullptr;
  if (options.invert_diagonal_blocks) {  // every diagonal tile at once, for either algorithm
    inv = reinterpret_cast<T*>(static_cast<unsigned char*>(workspace) + trsm_counter_bytes(nrhs));
    trsm_invert(uplo, op, diag, m, a, lda, inv, stream);
  }
  const bool blocked =
      options.algorithm == TrsmAlgorithm::blocked ||
      (options.algorithm == TrsmAlgorithm::automatic && trsm_auto_blocked(m, nrhs));
  if (!blocked) {
    trsm_launch(uplo, op, diag, m, nrhs, alpha, a, lda, b, ldb, sync, inv, stream);
    return;
  }
  const index_t nb = options.block_rows > 0 ? options.block_rows : trsm_auto_block_rows(m, nrhs);
  trsm_blocked(uplo, op, diag, m, nrhs, alpha, a, lda, b, ldb, nb, sync, inv, stream);
}

/// Stream-ordered device allocation (cudaMallocAsync), released on the stream.
class StreamAllocation {
 public:
  StreamAllocation(std::size_t bytes, cudaStream_t stream) : stream_(stream) {
    PRISM_CUDA_CHECK(cudaMallocAsync(&data_, bytes, stream));
  }
  ~StreamAllocation() { cudaFreeAsync(data_, stream_); }
  StreamAllocation(const StreamAllocation&) = delete;
  StreamAllocation& operator=(const StreamAllocation&) = delete;
  void* data() const { return data_; }

 private:
  void* data_ = nullptr;
  cudaStream_t stream_;
};

template <typename T>
void trsm_impl(TriUplo uplo, TriOp op, TriDiag diag, index_t m, index_t nrhs, T alpha, const T* a,
               index_t lda, T* b, index_t ldb, cudaStream_t stream, const TrsmOptions& options) {
  check_trsm(m, nrhs, lda, ldb);
  if (m == 0 || nrhs == 0) return;
  const std::size_t bytes = trsm_workspace_bytes(m, nrhs);
  StreamAllocation ws(bytes, stream);
  trsm_impl(uplo, op, diag, m, nrhs, alpha, a, lda, b, ldb, ws.data(), bytes, stream, options);
}

}  // namespace

int trsv_auto_block_rows(index_t n, bool wide_copies) {
  // H200, inverted diagonal chunks, values published as in trsv_sync_kernel
  // (tools/dense_triangular.md). Tiles copied in 16-byte pieces: 32-row block rows (one
  // chain step per 32 rows, no elimination inside the block) at every n; from n = 4097 on
  // their long rows are split (trsv_auto_split_tiles), which beat 64-row block rows, the
  // choice above n = 12288 before (same run, split at 64 tiles / 64 rows unsplit: double
  // 16384 454 / 551 us, 32768 1411 / 1466; float 16384 387 / 406; transposed double 16384
  // 491 / 568). Element by element (measured transposed, before it took 16-byte pieces,
  // without splits): 32 rows up to 16384 (14336 520 / 562, 16384 645 / 647), 64 above,
  // where the two are within 5% (20480 909 / 914, 32768 1868 / 1867).
  return wide_copies || n <= 16384 ? 32 : 64;
}

std::size_t trsv_workspace_bytes(index_t n) {
  // The ticket, then xpub: n entries rounded up to whole 32-entry chunks, sized for double
  // so that one size serves both precisions.
  // Then the most partial sums split block rows can have (the shortest segments), so
  // that one size serves every block_rows and split_tiles.
  const std::size_t chunks = static_cast<std::size_t>(std::max<index_t>(n, 0) + kTile - 1) / kTile;
  const std::size_t partials = split_partial_entries(n, split_tiles_for(n, kMinSplitTiles));
  return kTrsvTicketBytes + (chunks * kTile + partials) * sizeof(double);
}

int trsv_auto_split_tiles(index_t n, int block_rows, std::size_t elem_size, bool inverted) {
  // H200, 32-row block rows inverted from chunk 4, 16-byte tile copies, same run, us,
  // unsplit / helper segments of 32, 64, 128 tiles (tools/dense_triangular.md): double
  // 8192 213 / 191, 194, 203; 16384 605 / 453, 454, 494; 32768 1931 / 1423, 1429, 1447;
  // float 8192 157 / 193, 207, 177; 16384 470 / 390, 396, 414; transposed double 8192 214 /
  // 205, 206, 212. Splitting pays once a block row is longer than 32 KiB (n = 4096 has no
  // row with helpers); 32 tiles was best or within 1.5%. With substituted diagonal blocks
  // (a longer chain step: n = 4096, 163 against 94 us) splitting lost, double 8192 338 ->
  // 465 us, 16384 769 -> 959, 32768 1900 -> 2035 (the cause was not measured), so only
  // inverted ones are split.
  const bool long_rows = static_cast<double>(n) * static_cast<double>(elem_size) > 32768.0;
  return block_rows == 32 && inverted && long_rows ? 32 : 0;
}

bool trsm_auto_blocked(index_t m, index_t nrhs) {
  // H200, inverted diagonal tiles, all inverted in one launch (tools/dense_triangular.md):
  // the data-flow kernel wins while X is small (double 1024 x 1000: 154 against 160 us
  // blocked; 4096 x 64: 522 against 566; float 1024 x 1000: 136 against 140), the blocked
  // algorithm from about 2M entries of X on (double 2048 x 1000: 338 against 406;
  // 1024 x 2048: 184 against 215; float 2048 x 1000: 321 against 337; 4096 x 1000: 860
  // against 1313). The threshold, 1.5M entries, lies between the largest data-flow win
  // (1.02M) and the smallest blocked one (2.05M). It needs two diagonal blocks.
  return m >= 2 * trsm_auto_block_rows(m, nrhs) &&
         static_cast<double>(m) * static_cast<double>(nrhs) >= double(3 << 19);
}

index_t trsm_auto_block_rows(index_t m, index_t nrhs) {
  // A quarter of m, in 64-row tiles, between 128 and 512 rows: enough diagonal blocks that
  // the GEMMs carry the work, few enough that each diagonal solve keeps the GPU busy
  // (H200, double: 1024 x 10000 fastest with 256 rows; 2048 x 2048 and 4096 x 4096 with
  // 512; 8192 x 8192 within 2% from 256 to 1024; 4096 x 1000 4% slower than with 1024).
  (void)nrhs;
  return std::clamp<index_t>(m / 4 / kMb * kMb, 2 * kMb, 8 * kMb);
}

std::size_t trsm_workspace_bytes(index_t m, index_t nrhs) {
  // Counters, then the inverses of the 64x64 diagonal tiles (sized for double, so one
  // size serves both precisions).
  const std::size_t row_tiles = static_cast<std::size_t>(std::max<index_t>(m, 0) + kMb - 1) / kMb;
  return trsm_counter_bytes(std::max<index_t>(nrhs, 0)) + row_tiles * kTileElems * sizeof(double);
}

void trsv(TriUplo uplo, TriOp op, TriDiag diag, index_t n, const double* a, index_t lda, double* x,
          void* workspace, std::size_t workspace_bytes, cudaStream_t stream,
          const TrsvOptions& options) {
  trsv_impl(uplo, op, diag, n, a, lda, x, SyncWorkspace{workspace, workspace_bytes}, stream,
            options);
}
void trsv(TriUplo uplo, TriOp op, TriDiag diag, index_t n, const float* a, index_t lda, float* x,
          void* workspace, std::size_t workspace_bytes, cudaStream_t stream,
          const TrsvOptions& options) {
  trsv_impl(uplo, op, diag, n, a, lda, x, SyncWorkspace{workspace, workspace_bytes}, stream,
            options);
}
TrsvWorkspace::TrsvWorkspace(index_t max_n)
    : half_bytes_(trsv_workspace_bytes(max_n) - kTrsvTicketBytes),
      max_n_(std::max<index_t>(max_n, 0)) {
  buffer_ = DeviceBuffer<unsigned char>(kTrsvTicketBytes + 2 * half_bytes_);
  // The header zero (first ticket 0, half 0, nothing used), both halves all-ones (every
  // entry unsolved). Synchronous, so that the workspace is ready for a call on any stream.
  PRISM_CUDA_CHECK(cudaMemset(buffer_.data(), 0, kTrsvTicketBytes));
  PRISM_CUDA_CHECK(cudaMemset(buffer_.data() + kTrsvTicketBytes, 0xff, 2 * half_bytes_));
  PRISM_CUDA_CHECK(cudaDeviceSynchronize());
}

struct TrsvWorkspaceAccess {
  static SyncWorkspace view(TrsvWorkspace& w) {
    return SyncWorkspace{w.buffer_.data(), w.buffer_.size(), true, w.half_bytes_, w.max_n_};
  }
};

void trsv(TriUplo uplo, TriOp op, TriDiag diag, index_t n, const double* a, index_t lda, double* x,
          TrsvWorkspace& workspace, cudaStream_t stream, const TrsvOptions& options) {
  trsv_impl(uplo, op, diag, n, a, lda, x, TrsvWorkspaceAccess::view(workspace), stream, options);
}
void trsv(TriUplo uplo, TriOp op, TriDiag diag, index_t n, const float* a, index_t lda, float* x,
          TrsvWorkspace& workspace, cudaStream_t stream, const TrsvOptions& options) {
  trsv_impl(uplo, op, diag, n, a, lda, x, TrsvWorkspaceAccess::view(workspace), stream, options);
}
void trsv_batched(TriUplo uplo, TriOp op, TriDiag diag, index_t batch, index_t max_n,
                  const index_t* n, const double* const* a, const index_t* lda, double* const* x,
                  cudaStream_t stream) {
  batched_impl(uplo, op, diag, batch, max_n, n, a, lda, x, stream);
}
void trsv_batched(TriUplo uplo, TriOp op, TriDiag diag, index_t batch, index_t max_n,
                  const index_t* n, const float* const* a, const index_t* lda, float* const* x,
                  cudaStream_t stream) {
  batched_impl(uplo, op, diag, batch, max_n, n, a, lda, x, stream);
}
void trsm(TriUplo uplo, TriOp op, TriDiag diag, index_t m, index_t nrhs, double alpha,
          const double* a, index_t lda, double* b, index_t ldb, cudaStream_t stream,
          const TrsmOptions& options) {
  trsm_impl(uplo, op, diag, m, nrhs, alpha, a, lda, b, ldb, stream, options);
}
void trsm(TriUplo uplo, TriOp op, TriDiag diag, index_t m, index_t nrhs, float alpha,
          const float* a, index_t lda, float* b, index_t ldb, cudaStream_t stream,
          const TrsmOptions& options) {
  trsm_impl(uplo, op, diag, m, nrhs, alpha, a, lda, b, ldb, stream, options);
}
void trsm(TriUplo uplo, TriOp op, TriDiag diag, index_t m, index_t nrhs, double alpha,
          const double* a, index_t lda, double* b, index_t ldb, void* workspace,
          std::size_t workspace_bytes, cudaStream_t stream, const TrsmOptions& options) {
  trsm_impl(uplo, op, diag, m, nrhs, alpha, a, lda, b, ldb, workspace, workspace_bytes, stream,
            options);
}
void trsm(TriUplo uplo, TriOp op, TriDiag diag, index_t m, index_t nrhs, float alpha,
          const float* a, index_t lda, float* b, index_t ldb, void* workspace,
          std::size_t workspace_bytes, cudaStream_t stream, const TrsmOptions& options) {
  trsm_impl(uplo, op, diag, m, nrhs, alpha, a, lda, b, ldb, workspace, workspace_bytes, stream,
            options);
}

}  // namespace prism::kernels::cuda
