#pragma once
// The pieces of the global_sync trsv kernel (trsv_sync.cu): its shape and shared memory, the
// solution published as values (the "unsolved" mark, relaxed stores and polls), the ring
// of off-diagonal tiles streamed with their x chunks, and the split block rows' helpers.
// Internal to kernels/cuda/dense_triangular/.

#include "kernels/cuda/dense_triangular/common.cuh"
#include "kernels/cuda/dense_triangular/warp_tiles.cuh"

#include "kernels/cuda/async_copy.cuh"

#include <cuda_runtime.h>

#include <cstddef>

namespace prism::kernels::cuda::dense_triangular {

constexpr int kSyncThreads = 256;  // global_sync: 8 warps per thread block

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
/// (cp.async.cg; kSwap: into the swizzled layout), else element by element. The pieces
/// stream more per SM than single elements, and a deeper ring would not add to it: what one
/// SM can stream bounds the long block rows of a large n (docs/kernels/dense_triangular.md).
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
/// trip (in the folded kernels the stream reaches its last tiles well after their chunks
/// are published). Only the folded kernels ask for it: for the others the extra loads
/// cost more than they save.
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

}  // namespace prism::kernels::cuda::dense_triangular
