// The blocked path's work outside the panels: row interchanges, the row block
// U12 = inv(L11) A12 and the trailing update A22 -= L21 U12 (potrf's syrk too), on 32 x 32
// tiles or 64 x 64 tensor-core tiles (tile_gemm.cuh).

#include "kernels/cuda/batched_factor/common.cuh"
#include "kernels/cuda/batched_factor/launch.hpp"

#include "kernels/cuda/async_copy.cuh"
#include "kernels/cuda/check.hpp"
#include "kernels/cuda/launch_config.hpp"
#include "kernels/cuda/tile_gemm.cuh"

#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cstdint>

namespace prism::kernels::cuda::batched_factor {
namespace {

constexpr int kTile = 32;          // gemm output tile (kTile x kTile) and k chunk
constexpr int kRowBlockCols = 32;  // columns of A12 per row-block thread block
constexpr int kSwapStage = 2048;   // elements staged per pass of the parallel swap

// Row interchanges of pivots ipiv[j .. j + count) on columns [c0, c1) and [c2, c3).
// parallel (Sec. VI-A): the `count` sequential swaps are composed into one permutation of
// the affected rows (two vectors: destination rows and the rows their content comes from)
// and applied to all columns at once, staged through shared memory.
// serial: LAPACK laswp, one interchange after another, threads over columns.
// TUNE: more blocks per matrix for wide column ranges; skip the serial composition when
// count is small.
template <typename T>
__global__ void __launch_bounds__(kPanelThreads)
    swap_rows_kernel(int n, int j, int count, int c0, int c1, int c2, int c3,
                     DeviceMatrixBatch<T> a, const index_t* ipiv, bool parallel) {
  extern __shared__ unsigned char smem_raw[];
  const std::int64_t b = blockIdx.x;
  T* A = matrix_ptr(a, b);
  const std::int64_t lda = a.ld;
  const index_t* piv = ipiv + b * n;
  const int w1 = c1 - c0, total_cols = w1 + (c3 - c2);
  auto column = [&](int t) { return t < w1 ? c0 + t : c2 + (t - w1); };
  if (!parallel) {
    for (int i = j; i < j + count; ++i) {
      const int p = piv[i] - 1;
      if (p != i) {
        for (int t = threadIdx.x; t < total_cols; t += blockDim.x) {
          T* col = A + column(t) * lda;
          const T v = col[i];
          col[i] = col[p];
          col[p] = v;
        }
      }
      __syncthreads();
    }
    return;
  }
  // content[r - j]: the row whose content ends up in row r (r in [j, n)).
  int* content = reinterpret_cast<int*>(smem_raw);
  int* dst = content + (n - j);
  int* src = dst + 2 * count;
  __shared__ int s_moved;
  for (int r = threadIdx.x; r < n - j; r += blockDim.x) content[r] = j + r;
  if (threadIdx.x == 0) s_moved = 0;
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int i = j; i < j + count; ++i) {
      const int p = piv[i] - 1;
      const int t = content[i - j];
      content[i - j] = content[p - j];
      content[p - j] = t;
    }
  }
  __syncthreads();
  for (int r = threadIdx.x; r < n - j; r += blockDim.x) {
    if (content[r] != j + r) {
      const int slot = atomicAdd(&s_moved, 1);
      dst[slot] = j + r;
      src[slot] = content[r];
    }
  }
  __syncthreads();
  const int moved = s_moved;
  if (moved == 0) return;
  const int ints = (n - j) + 4 * count;
  T* stage = reinterpret_cast<T*>(smem_raw + ((ints * sizeof(int) + 15) / 16) * 16);
  const int chunk = max(1, kSwapStage / moved);  // columns staged at once
  for (int t0 = 0; t0 < total_cols; t0 += chunk) {
    const int cols = min(chunk, total_cols - t0);
    for (int e = threadIdx.x; e < moved * cols; e += blockDim.x) {
      const int d = e % moved, t = e / moved;
      stage[e] = A[src[d] + column(t0 + t) * lda];
    }
    __syncthreads();
    for (int e = threadIdx.x; e < moved * cols; e += blockDim.x) {
      const int d = e % moved, t = e / moved;
      A[dst[d] + column(t0 + t) * lda] = stage[e];
    }
    __syncthreads();
  }
}

// inv(L) of the unit lower kb x kb block at (j, j) into w (leading dimension kb): column
// sweep X(i, :) -= L(i, k) X(k, :) for i > k, k = 0 .. kb-1, X = I at the start.
// Only the 64- and 128-column row blocks use it by default (register_rowblock).
// TUNE: L in shared memory; blocked inversion (two 16 x 16 inverses and a gemm).
template <typename T>
__global__ void __launch_bounds__(kPanelThreads)
    trtri_unit_lower_kernel(int j, int kb, DeviceMatrixBatch<T> a, T* workspace) {
  const std::int64_t b = blockIdx.x;
  const T* A = matrix_ptr(a, b) + j + j * static_cast<std::int64_t>(a.ld);
  const std::int64_t lda = a.ld;
  T* X = workspace + b * kb * kb;
  for (int e = threadIdx.x; e < kb * kb; e += blockDim.x) {
    const int i = e % kb, c = e / kb;
    X[e] = i == c ? T(1) : T(0);
  }
  __syncthreads();
  for (int k = 0; k + 1 < kb; ++k) {
    const int rows = kb - k - 1, cols = k + 1;
    for (int e = threadIdx.x; e < rows * cols; e += blockDim.x) {
      const int i = k + 1 + e % rows, c = e / rows;
      X[i + c * kb] -= A[i + k * lda] * X[k + c * kb];
    }
    __syncthreads();
  }
}

// Row block U12 = inv(L11) A12, L11 the unit lower kb x kb block at (j, j), A12 rows
// [j, j + kb), columns [c0, c1). Grid: (batch, column tiles of kRowBlockCols). The tile is
// staged in shared memory, then either multiplied by inv(L11) from `workspace` (trtri + gemm,
// Sec. V-A3) or solved in place (trsm, one rank-1 update per row with a barrier).
// (With the inverse and 32 < kb <= 64, row_block64_kernel does it on tensor cores.)
template <typename T>
__global__ void __launch_bounds__(kPanelThreads)
    row_block_kernel(int j, int kb, int c0, int c1, DeviceMatrixBatch<T> a, const T* workspace,
                     bool use_inverse) {
  extern __shared__ unsigned char smem_raw[];
  T* B = reinterpret_cast<T*>(smem_raw);  // kb x kRowBlockCols, leading dimension kb
  const std::int64_t b = blockIdx.x;
  T* A = matrix_ptr(a, b);
  const std::int64_t lda = a.ld;
  const int cfirst = c0 + blockIdx.y * kRowBlockCols;
  const int cols = min(kRowBlockCols, c1 - cfirst);
  if (cols <= 0) return;
  for (int e = threadIdx.x; e < kb * cols; e += blockDim.x) {
    const int r = e % kb, c = e / kb;
    B[r + c * kb] = A[j + r + (cfirst + c) * lda];
  }
  __syncthreads();
  if (use_inverse) {
    const T* X = workspace + b * kb * kb;
    for (int e = threadIdx.x; e < kb * cols; e += blockDim.x) {
      const int r = e % kb, c = e / kb;
      T s = B[r + c * kb];  // X(r, r) = 1
      for (int k = 0; k < r; ++k) s += X[r + k * kb] * B[k + c * kb];
      A[j + r + (cfirst + c) * lda] = s;
    }
  } else {
    for (int k = 0; k + 1 < kb; ++k) {
      const int rows = kb - k - 1;
      for (int e = threadIdx.x; e < rows * cols; e += blockDim.x) {
        const int r = k + 1 + e % rows, c = e / rows;
        B[r + c * kb] -= A[j + r + (j + k) * lda] * B[k + c * kb];
      }
      __syncthreads();
    }
    for (int e = threadIdx.x; e < kb * cols; e += blockDim.x) {
      const int r = e % kb, c = e / kb;
      A[j + r + (cfirst + c) * lda] = B[r + c * kb];
    }
  }
}

// Trailing update inside each matrix: C -= L * U with C = rows [r0, r1) x columns [c0, c1),
// L = rows [r0, r1) x columns [k0, k0 + kb), U = rows [k0, k0 + kb) x columns [c0, c1)
// (kSyrk: U(k, c) = L(c, k) and only C(i, c) with i >= c is written: potrf's syrk).
// Grid: (batch, row tiles x column tiles); 32 x 32 tile, 256 threads, a 2 x 2 block of
// outputs per thread: per k one 2-vector of L and one of U from shared memory for 4 FMAs.
// Traffic per tile and k chunk: 32 x 32 of L and of U read once; C read and written once.
// Serves the updates of at most 32 columns (and all of them without tile64_update); the
// wider ones run on 64 x 64 tensor-core tiles (update64_kernel).
template <typename T>
struct Vec2;
template <>
struct Vec2<double> {
  using type = double2;
};
template <>
struct Vec2<float> {
  using type = float2;
};

template <typename T, bool kSyrk>
__global__ void __launch_bounds__(256)
    trailing_update_kernel(int r0, int r1, int c0, int c1, int k0, int kb, DeviceMatrixBatch<T> a,
                           const index_t* stop_if_info) {
  using V2 = typename Vec2<T>::type;
  // Ls[k][i] = L(row0 + i, k), Us[k][c] = U(k, col0 + c); rows padded by 2 (even, so that
  // the 2-vectors stay aligned) against bank conflicts of the column-wise U stores.
  __shared__ __align__(16) T Ls[kTile][kTile + 2];
  __shared__ __align__(16) T Us[kTile][kTile + 2];
  const std::int64_t b = blockIdx.x;
  if (stop_if_info != nullptr && stop_if_info[b] != 0) return;
  const int tiles_r = (r1 - r0 + kTile - 1) / kTile;
  const int tr = blockIdx.y % tiles_r, tc = blockIdx.y / tiles_r;
  const int row0 = r0 + tr * kTile, col0 = c0 + tc * kTile;
  if (kSyrk && col0 > row0 + kTile - 1) return;  // tile wholly above the diagonal
  T* A = matrix_ptr(a, b);
  const std::int64_t lda = a.ld;
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;  // rows 2tx, 2tx+1; cols 2ty, 2ty+1
  T acc[2][2] = {{T(0), T(0)}, {T(0), T(0)}};
  for (int kk = 0; kk < kb; kk += kTile) {
    for (int e = threadIdx.x; e < kTile * kTile; e += blockDim.x) {
      const int i = e % kTile, k = e / kTile;
      const bool ok = row0 + i < r1 && kk + k < kb;
      Ls[k][i] = ok ? A[row0 + i + (k0 + kk + k) * lda] : T(0);
    }
    for (int e = threadIdx.x; e < kTile * kTile; e += blockDim.x) {
      if (kSyrk) {
        const int c = e % kTile, k = e / kTile;
        const bool ok = col0 + c < c1 && kk + k < kb;
        Us[k][c] = ok ? A[col0 + c + (k0 + kk + k) * lda] : T(0);
      } else {
        const int k = e % kTile, c = e / kTile;
        const bool ok = col0 + c < c1 && kk + k < kb;
        Us[k][c] = ok ? A[k0 + kk + k + (col0 + c) * lda] : T(0);
      }
    }
    __syncthreads();
#pragma unroll 8
    for (int k = 0; k < kTile; ++k) {
      const V2 l = *reinterpret_cast<const V2*>(&Ls[k][2 * tx]);
      const V2 u = *reinterpret_cast<const V2*>(&Us[k][2 * ty]);
      acc[0][0] += l.x * u.x;
      acc[0][1] += l.x * u.y;
      acc[1][0] += l.y * u.x;
      acc[1][1] += l.y * u.y;
    }
    __syncthreads();
  }
#pragma unroll
  for (int q = 0; q < 2; ++q) {
    const int i = row0 + 2 * tx + q;
    if (i >= r1) continue;
#pragma unroll
    for (int s = 0; s < 2; ++s) {
      const int c = col0 + 2 * ty + s;
      if (c < c1 && (!kSyrk || i >= c)) A[i + c * lda] -= acc[q][s];
    }
  }
}

// The same update on 64 x 64 tiles (TileGemm of tile_gemm.cuh: FP64 tensor cores in double,
// a 4 x 4 register tile per thread in float), for updates wider than 32 columns. Blocks are
// numbered matrix-major (block = b * tiles + tile), so the tiles of one matrix run together
// and its L and U panels are read from L2 after the first tile; with kSyrk (r0 = c0) only
// the tiles that reach the lower triangle (tc <= tr) are launched. The k range streams through two
// shared-memory stages of kUpdateK columns (cp.async, zero-filled past the matrix and kb).
// The accumulators are loaded with C before the first chunk lands, so that its latency
// overlaps the panels'. Traffic per tile: C read and written once, the tile's L and U panels
// read once (from L2 after the first tile of the row or column).
constexpr int kUpdateK = 32;  // k columns per pipeline stage of the 64 x 64 update

template <typename T>
constexpr std::size_t update64_smem_bytes() {
  return 2 * static_cast<std::size_t>(kUpdateK) * (kGemmLdA + kGemmLdB) * sizeof(T);
}

// Stages a 64 x kUpdateK chunk of column-major src (leading dimension ld, the 64 along the
// columns: coalesced) as dst[k * ldd + r] = src[r + k * ld]; zero-filled (nothing read) for
// r >= rows or k >= ks. `base`: any valid address (the source of the zero fills).
template <typename T>
__device__ __forceinline__ void stage_chunk_rk(T* dst, int ldd, const T* src, std::int64_t ld,
                                               int rows, int ks, const T* base) {
#pragma unroll
  for (int e = threadIdx.x; e < kGemmTile * kUpdateK; e += kGemmThreads) {
    const int r = e % kGemmTile, k = e / kGemmTile;
    const bool ok = r < rows && k < ks;
    cp_async(dst + k * ldd + r, ok ? src + r + k * ld : base, ok);
  }
}

// Stages a kUpdateK x 64 chunk with the k along the columns of src (coalesced):
// dst[k * kGemmLdB + c] = src[k + c * ld]; zero-filled for c >= cols or k >= ks.
template <typename T>
__device__ __forceinline__ void stage_chunk_kc(T* dst, const T* src, std::int64_t ld, int cols,
                                               int ks, const T* base) {
#pragma unroll
  for (int e = threadIdx.x; e < kGemmTile * kUpdateK; e += kGemmThreads) {
    const int k = e % kUpdateK, c = e / kUpdateK;
    const bool ok = c < cols && k < ks;
    cp_async(dst + k * kGemmLdB + c, ok ? src + k + c * ld : base, ok);
  }
}

// The k loop of the 64 x 64 kernels: kb columns of k stream through the two shared-memory
// stages As / Bs (issue(kk, stage) requests the chunk starting at column kk, one cp.async
// group), and gemm accumulates As Bs (acc -= As Bs with kSubtract) chunk by chunk while the
// next chunk is in flight.
template <bool kSubtract, typename T, typename Issue>
__device__ __forceinline__ void stream_tile_gemm(TileGemm<T>& gemm, const T* As, const T* Bs,
                                                 int kb, int tid, Issue&& issue) {
  const int chunks = (kb + kUpdateK - 1) / kUpdateK;
  issue(0, 0);
  cp_async_commit();
  for (int s = 0; s < chunks; ++s) {
    if (s + 1 < chunks) issue((s + 1) * kUpdateK, (s + 1) & 1);
    cp_async_commit();
    cp_async_wait<1>();
    __syncthreads();
    gemm.template mma<kUpdateK, kSubtract>(As + (s & 1) * kUpdateK * kGemmLdA,
                                           Bs + (s & 1) * kUpdateK * kGemmLdB, tid);
    __syncthreads();  // the stage is refilled by the next iteration
  }
}

// kSyrk (r0 = c0): row tr and column tc <= tr of tile number t, numbered down the columns
// of the lower trapezoid of a tiles_r x tiles_c grid (column tc holds tiles_r - tc tiles).
__device__ __forceinline__ void lower_tile(int t, int tiles_r, int& tr, int& tc) {
  tc = 0;
  while (t >= tiles_r - tc) {
    t -= tiles_r - tc;
    ++tc;
  }
  tr = tc + t;
}

template <typename T, bool kSyrk>
__global__ void __launch_bounds__(kGemmThreads)
    update64_kernel(int r0, int r1, int c0, int c1, int k0, int kb, int tiles_r, int tiles,
                    DeviceMatrixBatch<T> a, const index_t* stop_if_info) {
  extern __shared__ __align__(16) unsigned char update_smem[];
  T* As = reinterpret_cast<T*>(update_smem);  // 2 x [kUpdateK][kGemmLdA]: L(r, k)
  T* Bs = As + 2 * kUpdateK * kGemmLdA;       // 2 x [kUpdateK][kGemmLdB]: U(k, c)
  const std::int64_t b = blockIdx.x / tiles;
  const int t = static_cast<int>(blockIdx.x % tiles);
  if (stop_if_info != nullptr && stop_if_info[b] != 0) return;
  int tr, tc;
  if (kSyrk) {
    lower_tile(t, tiles_r, tr, tc);
  } else {
    tr = t % tiles_r;
    tc = t / tiles_r;
  }
  const int row0 = r0 + kGemmTile * tr, col0 = c0 + kGemmTile * tc;
  T* A = matrix_ptr(a, b);
  const std::int64_t lda = a.ld;
  const int tid = threadIdx.x;

  auto issue = [&](int kk, int stage) {
    T* as = As + stage * kUpdateK * kGemmLdA;
    T* bs = Bs + stage * kUpdateK * kGemmLdB;
    const int k_ok = kb - kk;
    stage_chunk_rk(as, kGemmLdA, A + row0 + (k0 + kk) * lda, lda, r1 - row0, k_ok, A);
    if (kSyrk) {  // U(k, c) = A(col0 + c, k0 + k)
      stage_chunk_rk(bs, kGemmLdB, A + col0 + (k0 + kk) * lda, lda, c1 - col0, k_ok, A);
    } else {  // U(k, c) = A(k0 + k, col0 + c)
      stage_chunk_kc(bs, A + k0 + kk + col0 * lda, lda, c1 - col0, k_ok, A);
    }
  };

  // The accumulators start as C (loads in flight with the first chunk): acc -= L U.
  TileGemm<T> gemm;
  gemm.for_each(tid, [&](int r, int c, T& v) {
    const int i = row0 + r, j = col0 + c;
    v = i < r1 && j < c1 && (!kSyrk || i >= j) ? A[i + j * lda] : T(0);
  });
  stream_tile_gemm<true>(gemm, As, Bs, kb, tid, issue);
  gemm.for_each(tid, [&](int r, int c, T v) {
    const int i = row0 + r, j = col0 + c;
    if (i < r1 && j < c1 && (!kSyrk || i >= j)) A[i + j * lda] = v;
  });
}

// Row block of one panel (kb <= 32) by substitution in registers: U12 = L11^{-1} A12, L11 the
// unit lower kb x kb block at (j, j), A12 rows [j, j + kb), columns [c0, c1). One warp per
// 32 columns of A12 (block = b * chunks + chunk): lane c holds column c in registers and
// eliminates x(i) -= L(i, k) x(k) down the column; L11 in shared memory, read as
// broadcasts. No barrier after the loads, no workspace; the column loads and stores go
// through L1 (each lane walks its own column).
template <typename T>
__global__ void __launch_bounds__(kTile)
    row_block_registers_kernel(int j, int kb, int c0, int c1, int chunks, DeviceMatrixBatch<T> a) {
  __shared__ __align__(16) T Ls[kTile][kTile + 2];  // Ls[k][i] = L11(i, k), i > k
  const std::int64_t b = blockIdx.x / chunks;
  const int col = c0 + kTile * static_cast<int>(blockIdx.x % chunks) + threadIdx.x;
  const int lane = threadIdx.x;
  T* A = matrix_ptr(a, b);
  const std::int64_t lda = a.ld;
  const T* L = A + j + j * lda;
#pragma unroll 4
  for (int k = 0; k < kTile; ++k) {
    Ls[k][lane] = lane > k && lane < kb && k < kb ? L[lane + k * lda] : T(0);
  }
  const bool has_col = col < c1;
  T* X = A + j + col * lda;
  T x[kTile];
#pragma unroll
  for (int i = 0; i < kTile; ++i) x[i] = has_col && i < kb ? X[i] : T(0);
  __syncwarp();
#pragma unroll
  for (int k = 0; k < kTile; ++k) {
#pragma unroll
    for (int i = k + 1; i < kTile; ++i) x[i] -= Ls[k][i] * x[k];
  }
  if (has_col) {
#pragma unroll
    for (int i = 0; i < kTile; ++i) {
      if (i < kb) X[i] = x[i];
    }
  }
}

// Row block with the inverse on 64 x 64 tiles: U12 = inv(L11) A12 for 32 < kb <= 64, in
// place, one block per 64 columns of A12 (block = b * tiles + tile). inv(L11) (workspace,
// kb x kb, explicit unit diagonal and zero upper part) and the whole A12 tile stream through
// the two stages before the first store.
template <typename T>
__global__ void __launch_bounds__(kGemmThreads)
    row_block64_kernel(int j, int kb, int c0, int c1, int tiles, DeviceMatrixBatch<T> a,
                       const T* workspace) {
  extern __shared__ __align__(16) unsigned char row_block_smem[];
  T* As = reinterpret_cast<T*>(row_block_smem);  // 2 x [kUpdateK][kGemmLdA]: inv(L11)(r, k)
  T* Bs = As + 2 * kUpdateK * kGemmLdA;          // 2 x [kUpdateK][kGemmLdB]: A12(k, c)
  const std::int64_t b = blockIdx.x / tiles;
  const int col0 = c0 + kGemmTile * static_cast<int>(blockIdx.x % tiles);
  T* A = matrix_ptr(a, b);
  const std::int64_t lda = a.ld;
  const T* X = workspace + b * kb * kb;
  const int tid = threadIdx.x;
  auto issue = [&](int kk, int stage) {
    stage_chunk_rk(As + stage * kUpdateK * kGemmLdA, kGemmLdA, X + kk * kb,
                   static_cast<std::int64_t>(kb), kb, kb - kk, X);
    stage_chunk_kc(Bs + stage * kUpdateK * kGemmLdB, A + j + kk + col0 * lda, lda, c1 - col0,
                   kb - kk, A);
  };
  TileGemm<T> gemm;
  gemm.zero();
  stream_tile_gemm<false>(gemm, As, Bs, kb, tid, issue);
  gemm.for_each(tid, [&](int r, int c, T v) {
    if (r < kb && col0 + c < c1) A[j + r + (col0 + c) * lda] = v;
  });
}

// Whether `width` columns rounded up to 64 are at most a fifth more than rounded up to 32
// (96 columns: no; see launch_update).
bool little_padding(int width) {
  const int w32 = (width + kTile - 1) / kTile * kTile;
  const int w64 = (width + kGemmTile - 1) / kGemmTile * kGemmTile;
  return 5 * w64 <= 6 * w32;
}

// The row block by inv(L11) on 64 x 64 tiles (row_block64_kernel) where that pays, else by
// row_block_kernel (the inverse, or trsm without one).
template <typename T>
void launch_row_block_tiles(int j, int kb, int c0, int c1, DeviceMatrixBatch<T> a, const T* inverse,
                            index_t batch, bool wide64, cudaStream_t stream) {
  if (c1 <= c0) return;
  const int tiles = (c1 - c0 + kGemmTile - 1) / kGemmTile;
  const std::int64_t blocks64 = static_cast<std::int64_t>(batch) * tiles;
  if (wide64 && inverse != nullptr && kb > kTile && kb <= kGemmTile && little_padding(c1 - c0) &&
      blocks64 <= INT_MAX) {
    const std::size_t bytes = update64_smem_bytes<T>();
    reserve_dynamic_shared(kernel_id(row_block64_kernel<T>), bytes, "getrf_batched (row block)");
    row_block64_kernel<T><<<static_cast<unsigned>(blocks64), kGemmThreads, bytes, stream>>>(
        j, kb, c0, c1, tiles, a, inverse);
    PRISM_CUDA_CHECK_LAUNCH();
    return;
  }
  const dim3 grid(batch, (c1 - c0 + kRowBlockCols - 1) / kRowBlockCols);
  const std::size_t bytes = static_cast<std::size_t>(kb) * kRowBlockCols * sizeof(T);
  reserve_dynamic_shared(kernel_id(row_block_kernel<T>), bytes, "getrf_batched (row block)");
  row_block_kernel<T>
      <<<grid, kPanelThreads, bytes, stream>>>(j, kb, c0, c1, a, inverse, inverse != nullptr);
  PRISM_CUDA_CHECK_LAUNCH();
}

}  // namespace

template <typename T>
void launch_swap(index_t n, int j, int count, int c0, int c1, int c2, int c3,
                 DeviceMatrixBatch<T> a, const index_t* ipiv, index_t batch, bool parallel,
                 cudaStream_t stream) {
  if (c1 <= c0 && c3 <= c2) return;
  if (c1 < c0) c1 = c0;
  if (c3 < c2) c3 = c2;
  std::size_t bytes = 0;
  if (parallel) {
    // content[n - j], dst[2 count], src[2 count] ints, then the stage (moved <= 2 count
    // <= 256 < kSwapStage rows, so chunk * moved <= kSwapStage elements).
    const std::size_t ints = static_cast<std::size_t>(n - j) + 4 * count;
    bytes = (ints * sizeof(int) + 15) / 16 * 16 + kSwapStage * sizeof(T);
  }
  reserve_dynamic_shared(kernel_id(swap_rows_kernel<T>), bytes, "getrf_batched (row swap)");
  swap_rows_kernel<T>
      <<<batch, kPanelThreads, bytes, stream>>>(n, j, count, c0, c1, c2, c3, a, ipiv, parallel);
  PRISM_CUDA_CHECK_LAUNCH();
}

template <typename T>
void launch_row_block(int j, int kb, int c0, int c1, DeviceMatrixBatch<T> a, T* inverse,
                      index_t batch, const GetrfOptions& opt, cudaStream_t stream) {
  if (c1 <= c0) return;
  const int chunks = (c1 - c0 + kTile - 1) / kTile;
  const std::int64_t warps = static_cast<std::int64_t>(batch) * chunks;
  if (opt.register_rowblock && kb <= kTile && warps <= INT_MAX) {
    row_block_registers_kernel<T>
        <<<static_cast<unsigned>(warps), kTile, 0, stream>>>(j, kb, c0, c1, chunks, a);
    PRISM_CUDA_CHECK_LAUNCH();
    return;
  }
  if (inverse != nullptr) {
    trtri_unit_lower_kernel<T><<<batch, kPanelThreads, 0, stream>>>(j, kb, a, inverse);
    PRISM_CUDA_CHECK_LAUNCH();
  }
  launch_row_block_tiles<T>(j, kb, c0, c1, a, inverse, batch, opt.tile64_update, stream);
}

// C -= L U on rows [r0, r1), columns [c0, c1) with rank kb (see trailing_update_kernel):
// 64 x 64 tiles (update64_kernel) when wide64, the region is wider than 32 columns and
// rounding its width up to 64 adds at most a fifth to rounding it up to 32, else 32 x 32
// tiles. The rule keeps the 64 x 64 tiles off widths such as 96, where a third of their
// work would be padding and the 32 x 32 tiles do better (docs/kernels/batched_factor.md).
template <typename T, bool kSyrk>
void launch_update(int r0, int r1, int c0, int c1, int k0, int kb, DeviceMatrixBatch<T> a,
                   const index_t* stop_if_info, index_t batch, bool wide64, cudaStream_t stream) {
  if (r1 <= r0 || c1 <= c0 || kb <= 0) return;
  const int tiles_r = (r1 - r0 + kGemmTile - 1) / kGemmTile;
  const int tiles_c = (c1 - c0 + kGemmTile - 1) / kGemmTile;
  int tiles64 = tiles_r * tiles_c;
  if (kSyrk) {
    tiles64 = 0;
    for (int tc = 0; tc < std::min(tiles_r, tiles_c); ++tc) tiles64 += tiles_r - tc;
  }
  const std::int64_t blocks64 = static_cast<std::int64_t>(batch) * tiles64;
  if (wide64 && c1 - c0 > kTile && little_padding(c1 - c0) && (!kSyrk || r0 == c0) &&
      blocks64 <= INT_MAX) {
    const std::size_t bytes = update64_smem_bytes<T>();
    reserve_dynamic_shared(kernel_id(update64_kernel<T, kSyrk>), bytes, "trailing update");
    update64_kernel<T, kSyrk><<<static_cast<unsigned>(blocks64), kGemmThreads, bytes, stream>>>(
        r0, r1, c0, c1, k0, kb, tiles_r, tiles64, a, stop_if_info);
    PRISM_CUDA_CHECK_LAUNCH();
    return;
  }
  const int tiles = ((r1 - r0 + kTile - 1) / kTile) * ((c1 - c0 + kTile - 1) / kTile);
  const dim3 grid(batch, tiles);
  trailing_update_kernel<T, kSyrk>
      <<<grid, 256, 0, stream>>>(r0, r1, c0, c1, k0, kb, a, stop_if_info);
  PRISM_CUDA_CHECK_LAUNCH();
}

template void launch_swap<float>(index_t, int, int, int, int, int, int, DeviceMatrixBatch<float>,
                                 const index_t*, index_t, bool, cudaStream_t);
template void launch_swap<double>(index_t, int, int, int, int, int, int, DeviceMatrixBatch<double>,
                                  const index_t*, index_t, bool, cudaStream_t);
template void launch_row_block<float>(int, int, int, int, DeviceMatrixBatch<float>, float*, index_t,
                                      const GetrfOptions&, cudaStream_t);
template void launch_row_block<double>(int, int, int, int, DeviceMatrixBatch<double>, double*,
                                       index_t, const GetrfOptions&, cudaStream_t);
template void launch_update<float, false>(int, int, int, int, int, int, DeviceMatrixBatch<float>,
                                          const index_t*, index_t, bool, cudaStream_t);
template void launch_update<double, false>(int, int, int, int, int, int, DeviceMatrixBatch<double>,
                                           const index_t*, index_t, bool, cudaStream_t);
template void launch_update<float, true>(int, int, int, int, int, int, DeviceMatrixBatch<float>,
                                         const index_t*, index_t, bool, cudaStream_t);
template void launch_update<double, true>(int, int, int, int, int, int, DeviceMatrixBatch<double>,
                                          const index_t*, index_t, bool, cudaStream_t);

}  // namespace prism::kernels::cuda::batched_factor
