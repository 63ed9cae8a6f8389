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
// solution (red.release, whose fence waits for the stores to reach L2, then the consumer's
// acquire poll and a second load for the data), the producer needs no fence and the
// consumer's poll returns the data itself: a chain step saves two L2 round trips
// (docs/kernels/dense_triangular.md). The values
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
// Folding (32-row block rows with an inverted diagonal block D): the last
// two tiles L'(R, R-1) and L'(R, R-2) bypass the ring; they are requested with D and
// replaced by M_j = D^{-1} L'(R, R-1-j) in the prologue. After the stream (tiles up to
// R - 3) warp 0 forms c = D^{-1} (b' - sum), then x'(R) = c - M_1 x'(R-2) - M_0 x'(R-1).
// Unfolded, a chain step is the producer's store reaching the consumer, then the critical
// tile's update and the block reduction, then the inverse multiply and the stores, the
// last two parts as long as the first; folded, only one 32 x 32 multiply lies between
// seeing x'(R-1) and publishing x'(R), and the reduction and the inverse multiply get up
// to two steps (docs/kernels/dense_triangular.md).
//
// Memory traffic per block row: the kRows x 32 R kChunks tile stream (once), 32 values of x
// per tile (from L2), the packed diagonal block; no shared-memory traffic beyond one read
// of each element.

#include "kernels/cuda/dense_triangular/common.cuh"
#include "kernels/cuda/dense_triangular/launch.hpp"
#include "kernels/cuda/dense_triangular/trsv_sync.cuh"
#include "kernels/cuda/dense_triangular/warp_tiles.cuh"

#include "kernels/cuda/async_copy.cuh"
#include "kernels/cuda/check.hpp"
#include "kernels/cuda/device_memory.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace prism::kernels::cuda {
namespace dense_triangular {
namespace {

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

/// The bytes of xpub a global_sync solve of size n in T uses: n entries in whole chunks (a
/// multiple of 16).
template <typename T>
std::size_t sync_xpub_bytes(index_t n) {
  return static_cast<std::size_t>((n + kTile - 1) / kTile) * kTile * sizeof(T);
}

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
  reserve_dynamic_shared(kernel_id(kernel), smem, "trsv");
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

}  // namespace

template <typename T>
void launch_global_sync(TriUplo uplo, TriOp op, index_t n, const T* a, index_t lda, T* x, bool unit,
                        const SyncWorkspace& ws, int rows, bool invert, int invert_from, bool wide,
                        int split, cudaStream_t stream) {
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
    if (invert) {
      by_rows(std::true_type{});
    } else {
      by_rows(std::false_type{});
    }
  });
}

template void launch_global_sync<float>(TriUplo, TriOp, index_t, const float*, index_t, float*,
                                        bool, const SyncWorkspace&, int, bool, int, bool, int,
                                        cudaStream_t);
template void launch_global_sync<double>(TriUplo, TriOp, index_t, const double*, index_t, double*,
                                         bool, const SyncWorkspace&, int, bool, int, bool, int,
                                         cudaStream_t);

}  // namespace dense_triangular

// The entry points below hand their work to the implementation above.
using dense_triangular::kMinSplitTiles;
using dense_triangular::kTile;
using dense_triangular::kTrsvTicketBytes;
using dense_triangular::split_partial_entries;
using dense_triangular::split_tiles_for;

std::size_t trsv_workspace_bytes(index_t n) {
  // The ticket, then xpub: n entries rounded up to whole 32-entry chunks, sized for double
  // so that one size serves both precisions.
  // Then the most partial sums split block rows can have (the shortest segments), so
  // that one size serves every block_rows and split_tiles.
  const std::size_t chunks = static_cast<std::size_t>(std::max<index_t>(n, 0) + kTile - 1) / kTile;
  const std::size_t partials = split_partial_entries(n, split_tiles_for(n, kMinSplitTiles));
  return kTrsvTicketBytes + (chunks * kTile + partials) * sizeof(double);
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

}  // namespace prism::kernels::cuda
