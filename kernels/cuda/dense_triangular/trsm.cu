// trsm: op(A) X = alpha B on 64 x 64 tiles of X', data flow between thread blocks through
// global memory, optionally blocked with cuBLAS GEMMs between diagonal blocks.
//
// Global-memory synchronisation (global_sync trsv publishes its solution as values
// instead, trsv_sync.cu): a producer thread block stores its solution, passes
// __syncthreads() and one thread adds to a counter with red.release.gpu; a consumer's
// thread 0 spins with ld.acquire.gpu, then __syncthreads().
// This is the fence-free release/acquire pattern of the PTX memory model (as in CUTLASS's
// GenericBarrier); consumers read the published data only after the acquire. Blocks take
// their work from an atomic ticket and only ever wait on work with a smaller ticket, which
// was taken by a block already running: no wait can depend on a block that is not resident,
// whatever the grid size and occupancy.

#include "kernels/cuda/dense_triangular.hpp"

#include "kernels/cuda/dense_triangular/common.cuh"

#include "kernels/cuda/async_copy.cuh"
#include "kernels/cuda/check.hpp"
#include "kernels/cuda/cublas_handle.hpp"
#include "kernels/cuda/tile_gemm.cuh"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <string>

#include <prism/errors.hpp>

namespace prism::kernels::cuda {
namespace dense_triangular {
namespace {

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
/// thread must have passed a barrier since it last read it. The polls are acquire loads
/// rather than relaxed polls and one acquire fence: the fence would also wait for the
/// thread's copies in flight.
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

// trsm: data flow over 64x64 tiles of X'. Tile (I, J) (ticket I * col_tiles + J) computes
//   X'(I, J) = L'(I, I)^{-1} (alpha B'(I, J) - sum_{l < I} L'(I, l) X'(l, J))
// with the sum as a GEMM over 64x64x64 steps (TileGemm of tile_gemm.cuh: FP64 tensor cores
// for double, a 4x4 register tile per thread for float; L' tiles stored [k][r], X' tiles
// [k][c]; cp.async double buffering, the L' tile of step l + 1 always and the X' tile when
// already published), then the diagonal solve, stores X'(I, J) and publishes done[J] += 1.
// The diagonal solve is by default one more tile GEMM with L'(I, I)^{-1}, computed for all
// I by trsm_invert_kernel before (one thread block per tile, all in parallel, off the
// chain); without inversion, substitution by warps (8 columns each, rows in lanes,
// shuffles), a chain of dependent steps that then dominates each step of the data flow.
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
  // build makes every column a divergent region and serialises the eight independent
  // chains (the double build chooses selects by itself).
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
  launch_view(
      uplo, op,
      [](auto rev, auto swap) {
        return trsm_invert_kernel<T, decltype(rev)::value, decltype(swap)::value>;
      },
      static_cast<unsigned>(row_tiles), kTrsmThreads, smem, "trsm", stream, static_cast<int>(m), a,
      lda, diag == TriDiag::unit, inv);
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
  launch_view(
      uplo, op,
      [](auto rev, auto swap) {
        return trsm_kernel<T, decltype(rev)::value, decltype(swap)::value>;
      },
      static_cast<unsigned>(tiles), kTrsmThreads, smem, "trsm", stream, static_cast<int>(m),
      static_cast<int>(nrhs), alpha, a, lda, b, ldb, unit, sync, static_cast<int>(col_tiles), inv);
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
}  // namespace dense_triangular

// The entry points below hand their work to the implementation above.
using dense_triangular::kMb;
using dense_triangular::kTileElems;
using dense_triangular::trsm_counter_bytes;
using dense_triangular::trsm_impl;

bool trsm_auto_blocked(index_t m, index_t nrhs) {
  // With the diagonal tiles inverted in one launch, the data-flow kernel wins while X is
  // small, the blocked algorithm from about 2M entries of X on; the threshold, 1.5M
  // entries, lies between the largest X on which the data-flow kernel won and the smallest
  // on which the blocked one did (docs/kernels/dense_triangular.md). Blocking needs two
  // diagonal blocks.
  return m >= 2 * trsm_auto_block_rows(m, nrhs) &&
         static_cast<double>(m) * static_cast<double>(nrhs) >= double(3 << 19);
}

index_t trsm_auto_block_rows(index_t m, index_t nrhs) {
  // A quarter of m, in 64-row tiles, between 128 and 512 rows: enough diagonal blocks that
  // the GEMMs carry the work, few enough that each diagonal solve keeps the GPU busy
  // (docs/kernels/dense_triangular.md).
  (void)nrhs;
  return std::clamp<index_t>(m / 4 / kMb * kMb, 2 * kMb, 8 * kMb);
}

std::size_t trsm_workspace_bytes(index_t m, index_t nrhs) {
  // Counters, then the inverses of the 64x64 diagonal tiles (sized for double, so one
  // size serves both precisions).
  const std::size_t row_tiles = static_cast<std::size_t>(std::max<index_t>(m, 0) + kMb - 1) / kMb;
  return trsm_counter_bytes(std::max<index_t>(nrhs, 0)) + row_tiles * kTileElems * sizeof(double);
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
