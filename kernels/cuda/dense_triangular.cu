// Dense triangular solves (trsv, batched trsv, trsm); see dense_triangular.hpp.
//
// Every variant is reduced to one lower-triangular, non-transposed solve L' x' = b' through
// an index map (LowerView): with p(i) = i or n-1-i,
//   lower/none:      L'(i, j) = A(i, j)                x'(i) = x(i)
//   lower/transpose: L'(i, j) = A(n-1-j, n-1-i)        x'(i) = x(n-1-i)
//   upper/none:      L'(i, j) = A(n-1-i, n-1-j)        x'(i) = x(n-1-i)
//   upper/transpose: L'(i, j) = A(j, i)                x'(i) = x(i)
// i.e. reverse = (upper != transpose) and swap = transpose. With swap the rows of L' are
// the columns of A, so the tile loader lets the fast thread index run along the storage
// rows of A (coalesced) and transposes the tile into shared memory on the way (Hogg,
// Section 7: "transpose critical-path blocks while prefetching").
//
// Still to tune on the GPU (nothing here has been run on a device yet):
//  - single_block: threads per block (128), the full-triangle shared cache (85 KB at
//    n = 128 in double limits the batched kernel to 2 blocks/SM: double-buffer block
//    columns instead), shuffle vs the paper's volatile shared slot in the diagonal solve.
//  - global_sync: warps per block (4; the paper used 8), blocks per SM, polling with
//    __nanosleep, the cost of __threadfence on Hopper, invert_from_block_row.
//  - trsm: one 32-row register tile per thread (64 threads/block) is simple but shared-
//    memory-load bound (one broadcast load per FMA); a 2D register tile (e.g. 8 rows x 4
//    columns per thread) and cp.async double buffering are the next steps; for nrhs
//    small (< ~64) route to trsv per column.

#include "kernels/cuda/dense_triangular.hpp"

#include <cstdint>
#include <string>
#include <type_traits>

#include <prism/errors.hpp>

#include "kernels/cuda/check.hpp"

namespace prism::kernels::cuda {
namespace {

constexpr int kTile = 32;        // diagonal block size = warp size
constexpr int kLds = kTile + 1;  // padded leading dimension of shared tiles (no bank conflicts
                                 // when a tile is transposed on the way in)
constexpr unsigned kFullMask = 0xffffffffu;

constexpr int kSmallThreads = 128;  // single_block / batched: warp 0 solves, 1..3 prefetch
constexpr int kSyncWarps = 4;       // global_sync: warps per thread block
constexpr int kSyncThreads = 32 * kSyncWarps;
constexpr int kColsPerWarp = kTile / kSyncWarps;
constexpr int kTrsmCols = 64;  // trsm: columns of X per thread block (one per thread)

/// The effective lower-triangular matrix L' of the file comment, on top of A.
template <typename T, bool kRev, bool kSwap>
struct LowerView {
  const T* a;
  long long lda;
  int n;
  __device__ int p(int i) const { return kRev ? n - 1 - i : i; }
  /// L'(i, j) for 0 <= i, j < n.
  __device__ T at(int i, int j) const {
    int r = p(i);
    int c = p(j);
    if (kSwap) {
      const int t = r;
      r = c;
      c = t;
    }
    return __ldg(a + r + static_cast<long long>(c) * lda);
  }
};

/// Block-cooperative load of tile (bi, bj) of L' into s: s[c * kLds + r] = L'(32 bi + r,
/// 32 bj + c). A diagonal tile gets zeros above the diagonal and the reciprocal of the
/// diagonal (1 when unit) on it, so no solve divides; rows/columns past n are padded with
/// an identity so partial blocks need no special cases. Threads t0 .. t0 + nthreads - 1
/// take part (tid is relative to t0).
template <typename T, bool kRev, bool kSwap>
__device__ void load_tile(const LowerView<T, kRev, kSwap>& L, int bi, int bj, bool unit, T* s,
                          int tid, int nthreads) {
  for (int e = tid; e < kTile * kTile; e += nthreads) {
    const int fast = e & (kTile - 1);
    const int slow = e / kTile;
    const int r = kSwap ? slow : fast;  // fast index along the storage rows of A
    const int c = kSwap ? fast : slow;
    const int i = kTile * bi + r;
    const int j = kTile * bj + c;
    T v;
    if (bi == bj) {
      if (r < c) {
        v = T(0);
      } else if (r == c) {
        v = (i >= L.n || unit) ? T(1) : T(1) / L.at(i, i);
      } else {
        v = i < L.n ? L.at(i, j) : T(0);
      }
    } else {
      v = (i < L.n && j < L.n) ? L.at(i, j) : T(0);
    }
    s[c * kLds + r] = v;
  }
}

/// One warp solves a 32x32 diagonal tile (reciprocal diagonal, see load_tile): lane r holds
/// b'(r) in val and returns x'(r). The solved entry is broadcast with a shuffle: the
/// paper's volatile shared slot relies on implicit warp synchrony, which Volta and later
/// no longer guarantee without __syncwarp.
template <typename T>
__device__ T warp_diag_solve(const T* s, T val, int lane) {
#pragma unroll
  for (int i = 0; i < kTile; ++i) {
    if (lane == i) val *= s[i * kLds + i];
    const T xi = __shfl_sync(kFullMask, val, i);
    if (lane > i) val -= s[i * kLds + lane] * xi;
  }
  return val;
}

/// x'(lane) = sum_c X(lane, c) val(c): multiply with an explicit inverse (independent
/// FMAs instead of 32 dependent steps on the critical path).
template <typename T>
__device__ T warp_inverse_multiply(const T* inv, T val, int lane) {
  T out = T(0);
#pragma unroll
  for (int c = 0; c < kTile; ++c) out += inv[c * kLds + lane] * __shfl_sync(kFullMask, val, c);
  return out;
}

/// Inverts the lower-triangular diagonal tile s (reciprocal diagonal) into inv with
/// Higham's method B (Higham, SIAM J. Sci. Comput. 16, 1995; Hogg Section 4): for block
/// sizes b = 1, 2, 4, 8, 16, each pair [L11 0; L21 L22] with X11 = inv(L11) known gets
/// X21 = inv(L22) (-L21 X11) by forward substitution, one thread per column of X21.
/// Must be called by the whole block (it synchronises).
template <typename T>
__device__ void invert_tile(const T* s, T* inv, int tid, int nthreads) {
  for (int e = tid; e < kTile * kTile; e += nthreads) {
    const int r = e & (kTile - 1);
    const int c = e / kTile;
    inv[c * kLds + r] = r == c ? s[c * kLds + c] : T(0);
  }
  __syncthreads();
  for (int b = 1; b < kTile; b *= 2) {
    if (tid < kTile / 2) {  // (16 / b) pairs x b columns = 16 jobs per level
      const int q = tid / b;
      const int c = tid % b;
      const int o = 2 * b * q;
      auto S = [&](int i, int j) { return s[j * kLds + i]; };
      T* xc = inv + (o + c) * kLds;  // column o + c of the inverse
      for (int i = 0; i < b; ++i) {  // w = -L21 X11(:, c); X11(k, c) = 0 for k < c
        T acc = T(0);
        for (int k = c; k < b; ++k) acc += S(o + b + i, o + k) * xc[o + k];
        xc[o + b + i] = -acc;
      }
      for (int i = 0; i < b; ++i) {  // X21(:, c) = inv(L22) w
        T v = xc[o + b + i];
        for (int k = 0; k < i; ++k) v -= S(o + b + i, o + b + k) * xc[o + b + k];
        xc[o + b + i] = v * S(o + b + i, o + b + i);
      }
    }
    __syncthreads();
  }
}

// ------------------------------------------------------------------------------------------
// single_block and batched trsv (n <= 128): Hogg Section 2, Listing 2.

__host__ __device__ constexpr int tri_tiles(int nb) {
  return nb * (nb + 1) / 2;
}

/// Position of tile (bi, bj), bj <= bi, in the packed lower triangle of tiles, column by
/// column (column bj holds tiles bj .. nb-1).
__device__ int tile_slot(int bi, int bj, int nb) {
  return bj * nb - bj * (bj - 1) / 2 + (bi - bj);
}

template <typename T, bool kRev, bool kSwap>
__device__ void small_solve(int n, const T* a, int lda, T* x, bool unit, T* smem) {
  const int nb = (n + kTile - 1) / kTile;
  const int tid = threadIdx.x;
  const int lane = tid & (kTile - 1);
  const int warp = tid / kTile;
  const int tile_elems = kTile * kLds;
  T* tiles = smem;
  T* xs = smem + tri_tiles(nb) * tile_elems;
  const LowerView<T, kRev, kSwap> L{a, lda, n};

  for (int i = tid; i < nb * kTile; i += blockDim.x) xs[i] = i < n ? x[L.p(i)] : T(0);
  for (int bi = 0; bi < nb; ++bi) {
    load_tile(L, bi, 0, unit, tiles + tile_slot(bi, 0, nb) * tile_elems, tid, blockDim.x);
  }
  __syncthreads();
  for (int k = 0; k < nb; ++k) {
    if (warp == 0) {
      // x'(block k) = L'(k, k)^{-1} b'(block k), right-hand side in registers.
      const T val =
          warp_diag_solve(tiles + tile_slot(k, k, nb) * tile_elems, xs[kTile * k + lane], lane);
      xs[kTile * k + lane] = val;
    } else {
      // Meanwhile the other warps prefetch block column k + 1.
      for (int bi = k + 1; bi < nb; ++bi) {
        load_tile(L, bi, k + 1, unit, tiles + tile_slot(bi, k + 1, nb) * tile_elems, tid - kTile,
                  blockDim.x - kTile);
      }
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
    __syncthreads();
  }
  for (int i = tid; i < n; i += blockDim.x) x[L.p(i)] = xs[i];
}

template <typename T, bool kRev, bool kSwap>
__global__ void __launch_bounds__(kSmallThreads)
    trsv_small_kernel(int n, const T* a, int lda, T* x, bool unit) {
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

std::size_t small_smem_bytes(int max_n, std::size_t elem) {
  const int nb = (max_n + kTile - 1) / kTile;
  return (static_cast<std::size_t>(tri_tiles(nb)) * kTile * kLds + nb * kTile) * elem;
}

// ------------------------------------------------------------------------------------------
// global_sync trsv (any n): Hogg Sections 3, 4 and 7, Listings 3 and 4.
//
// sync[0]: number of solved block columns (block row R publishes R + 1 after its x block is
// visible); sync[1]: next block row to hand out. Both are zeroed on the stream before the
// launch. Deadlock freedom: a thread block takes its row from sync[1] only once it runs,
// so rows are handed out in increasing order to resident blocks, and a block only waits on
// smaller rows, all held by resident blocks that are themselves waiting only on smaller
// rows; by induction every wait ends. This holds for any grid size and occupancy.

/// Lane 0 of the warp spins until sync[0] >= target; returns what it saw (warp-uniform).
/// The fence after the poll orders the later x loads (ld.cg, from L2) after it.
__device__ int warp_wait_solved(const int* solved, int target, int lane) {
  int seen = 0;
  if (lane == 0) {
    const volatile int* p = solved;
    while ((seen = *p) < target) {
    }
    __threadfence();
  }
  __syncwarp();
  return __shfl_sync(kFullMask, seen, 0);
}

template <typename T, bool kRev, bool kSwap, bool kInvert>
__global__ void __launch_bounds__(kSyncThreads)
    trsv_sync_kernel(int n, const T* a, long long lda, T* x, bool unit, int* sync,
                     int invert_from) {
  __shared__ T diag[kTile * kLds];
  __shared__ T inv[kInvert ? kTile * kLds : 1];
  __shared__ T red[kSyncWarps][kTile];
  __shared__ T pre[kTile];
  __shared__ int s_row;
  const int tid = threadIdx.x;
  const int lane = tid & (kTile - 1);
  const int warp = tid / kTile;
  if (tid == 0) s_row = atomicAdd(sync + 1, 1);
  __syncthreads();
  const int R = s_row;
  const LowerView<T, kRev, kSwap> L{a, lda, n};
  const int row = kTile * R + lane;  // the row of L' this lane accumulates (no-swap layout)

  // Critical-path block L'(R, R-1) into registers in the no-swap layout (transposed through
  // shared memory when swapped): thread (warp, lane) holds L'(row, 32(R-1) + warp*8 + k).
  T crit[kColsPerWarp];
  if (R > 0) {
    load_tile(L, R, R - 1, unit, diag, tid, kSyncThreads);
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kColsPerWarp; ++k) crit[k] = diag[(warp * kColsPerWarp + k) * kLds + lane];
    __syncthreads();
  }
  load_tile(L, R, R, unit, diag, tid, kSyncThreads);
  const T b = (warp == 0 && row < n) ? __ldcg(x + L.p(row)) : T(0);
  __syncthreads();
  const bool use_inverse = kInvert && R >= invert_from;
  if (use_inverse) invert_tile(diag, inv, tid, kSyncThreads);  // block-uniform branch

  int ready = 0;         // solved block columns this warp knows of
  T acc = T(0);          // no swap: partial sum of row `row` over this warp's columns
  T part[kColsPerWarp];  // swap: partial sums of rows 32R + warp*8 + k over column `lane`
#pragma unroll
  for (int k = 0; k < kColsPerWarp; ++k) part[k] = T(0);

  for (int j = 0; j + 1 < R; ++j) {
    // Issue the loads of block (R, j) before waiting: they do not depend on x.
    T av[kColsPerWarp];
#pragma unroll
    for (int k = 0; k < kColsPerWarp; ++k) {
      if (!kSwap) {
        av[k] = row < n ? L.at(row, kTile * j + warp * kColsPerWarp + k) : T(0);
      } else {
        const int r = kTile * R + warp * kColsPerWarp + k;  // coalesced along columns of L'
        av[k] = r < n ? L.at(r, kTile * j + lane) : T(0);
      }
    }
    if (j >= ready) ready = warp_wait_solved(sync, j + 1, lane);
    if (!kSwap) {
#pragma unroll
      for (int k = 0; k < kColsPerWarp; ++k) {
        acc += av[k] * __ldcg(x + L.p(kTile * j + warp * kColsPerWarp + k));
      }
    } else {
      const T xv = __ldcg(x + L.p(kTile * j + lane));
#pragma unroll
      for (int k = 0; k < kColsPerWarp; ++k) part[k] += av[k] * xv;
    }
  }
  if (kSwap) {
    // 8 warp reductions, before the last wait (off the critical path: Listing 4).
#pragma unroll
    for (int k = 0; k < kColsPerWarp; ++k) {
      T v = part[k];
#pragma unroll
      for (int off = kTile / 2; off > 0; off /= 2) v += __shfl_xor_sync(kFullMask, v, off);
      if (lane == 0) pre[warp * kColsPerWarp + k] = v;
    }
  }
  if (R > 0) {
    if (R - 1 >= ready) ready = warp_wait_solved(sync, R, lane);
#pragma unroll
    for (int k = 0; k < kColsPerWarp; ++k) {
      acc += crit[k] * __ldcg(x + L.p(kTile * (R - 1) + warp * kColsPerWarp + k));
    }
  }
  red[warp][lane] = acc;
  __syncthreads();
  if (warp == 0) {
    T val = b;
#pragma unroll
    for (int w = 0; w < kSyncWarps; ++w) val -= red[w][lane];
    if (kSwap && R > 0) val -= pre[lane];
    val = use_inverse ? warp_inverse_multiply(inv, val, lane) : warp_diag_solve(diag, val, lane);
    if (row < n) x[L.p(row)] = val;
    __threadfence();  // x block visible device-wide before the counter moves
    __syncwarp();
    if (lane == 0) atomicAdd(sync, 1);
  }
}

// ------------------------------------------------------------------------------------------
// trsm: one thread per column of X; block row I of X' is a 32-entry register tile per
// thread; L'(I, J) and X'(J, block's columns) are staged through padded shared memory with
// coalesced loads (left-looking: acc = alpha B'(I) - sum_{J<I} L'(I, J) X'(J), then the
// diagonal solve in registers). Solved rows go back to B and are re-read (from L2) by
// later block rows of the same thread block.

template <typename T, bool kRev>
__device__ void load_x_tile(const T* b, long long ldb, int m, int nrhs, int bi, int col0, T* xs,
                            int tid) {
  for (int e = tid; e < kTile * kTrsmCols; e += kTrsmCols) {
    const int r = e & (kTile - 1);
    const int c = e / kTile;
    const int i = kTile * bi + r;
    const int col = col0 + c;
    const int pi = kRev ? m - 1 - i : i;
    xs[r * (kTrsmCols + 1) + c] =
        (i < m && col < nrhs) ? b[pi + static_cast<long long>(col) * ldb] : T(0);
  }
}

template <typename T, bool kRev, bool kSwap>
__global__ void __launch_bounds__(kTrsmCols)
    trsm_kernel(int m, int nrhs, T alpha, const T* a, long long lda, T* b, long long ldb,
                bool unit) {
  __shared__ T ls[kTile * kLds];
  __shared__ T xs[kTile * (kTrsmCols + 1)];
  const int tid = threadIdx.x;
  const int col0 = blockIdx.x * kTrsmCols;
  const int nb = (m + kTile - 1) / kTile;
  const LowerView<T, kRev, kSwap> L{a, lda, m};
  for (int I = 0; I < nb; ++I) {
    T acc[kTile];
    __syncthreads();  // xs and ls free
    load_x_tile<T, kRev>(b, ldb, m, nrhs, I, col0, xs, tid);
    __syncthreads();
#pragma unroll
    for (int r = 0; r < kTile; ++r) acc[r] = alpha * xs[r * (kTrsmCols + 1) + tid];
    for (int J = 0; J < I; ++J) {
      __syncthreads();
      load_tile(L, I, J, unit, ls, tid, kTrsmCols);
      load_x_tile<T, kRev>(b, ldb, m, nrhs, J, col0, xs, tid);
      __syncthreads();
#pragma unroll 4
      for (int k = 0; k < kTile; ++k) {
        const T xk = xs[k * (kTrsmCols + 1) + tid];
#pragma unroll
        for (int r = 0; r < kTile; ++r) acc[r] -= ls[k * kLds + r] * xk;
      }
    }
    __syncthreads();
    load_tile(L, I, I, unit, ls, tid, kTrsmCols);
    __syncthreads();
#pragma unroll
    for (int r = 0; r < kTile; ++r) {
      acc[r] *= ls[r * kLds + r];
#pragma unroll
      for (int r2 = r + 1; r2 < kTile; ++r2) acc[r2] -= ls[r * kLds + r2] * acc[r];
    }
#pragma unroll
    for (int r = 0; r < kTile; ++r) xs[r * (kTrsmCols + 1) + tid] = acc[r];
    __syncthreads();
    for (int e = tid; e < kTile * kTrsmCols; e += kTrsmCols) {
      const int r = e & (kTile - 1);
      const int c = e / kTile;
      const int i = kTile * I + r;
      const int col = col0 + c;
      if (i < m && col < nrhs) {
        b[L.p(i) + static_cast<long long>(col) * ldb] = xs[r * (kTrsmCols + 1) + c];
      }
    }
  }
}

// ------------------------------------------------------------------------------------------
// Host side.

/// Calls f(integral_constant<bool, reverse>, integral_constant<bool, swap>).
template <typename F>
void dispatch_view(TriUplo uplo, TriOp op, F&& f) {
  const bool rev = (uplo == TriUplo::upper) != (op == TriOp::transpose);
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

template <typename T>
void trsv_impl(TriUplo uplo, TriOp op, TriDiag diag, index_t n, const T* a, index_t lda, T* x,
               void* workspace, std::size_t workspace_bytes, cudaStream_t stream,
               const TrsvOptions& options) {
  check_square("trsv", n, lda);
  if (n == 0) return;
  const bool unit = diag == TriDiag::unit;
  TrsvAlgorithm algo = options.algorithm;
  if (algo == TrsvAlgorithm::automatic) {
    algo = n <= trsv_small_max_n ? TrsvAlgorithm::single_block : TrsvAlgorithm::global_sync;
  }
  if (algo == TrsvAlgorithm::single_block) {
    if (n > trsv_small_max_n) {
      throw ConfigError("trsv: single_block needs n <= 128, got n = " + std::to_string(n));
    }
    const std::size_t smem = small_smem_bytes(n, sizeof(T));
    dispatch_view(uplo, op, [&](auto rev, auto swap) {
      auto kernel = trsv_small_kernel<T, decltype(rev)::value, decltype(swap)::value>;
      allow_dynamic_smem(kernel, smem);
      kernel<<<1, kSmallThreads, smem, stream>>>(n, a, lda, x, unit);
      PRISM_CUDA_CHECK_LAUNCH();
    });
    return;
  }
  if (workspace == nullptr || workspace_bytes < trsv_workspace_bytes()) {
    throw ConfigError("trsv: global_sync needs a workspace of trsv_workspace_bytes() = " +
                      std::to_string(trsv_workspace_bytes()) + " bytes");
  }
  int* sync = static_cast<int*>(workspace);
  PRISM_CUDA_CHECK(cudaMemsetAsync(sync, 0, 2 * sizeof(int), stream));
  const int nb = (n + kTile - 1) / kTile;
  dispatch_view(uplo, op, [&](auto rev, auto swap) {
    constexpr bool kRev = decltype(rev)::value;
    constexpr bool kSwap = decltype(swap)::value;
    if (options.invert_diagonal_blocks) {
      trsv_sync_kernel<T, kRev, kSwap, true><<<nb, kSyncThreads, 0, stream>>>(
          n, a, lda, x, unit, sync, options.invert_from_block_row);
    } else {
      trsv_sync_kernel<T, kRev, kSwap, false><<<nb, kSyncThreads, 0, stream>>>(
          n, a, lda, x, unit, sync, options.invert_from_block_row);
    }
    PRISM_CUDA_CHECK_LAUNCH();
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
  const std::size_t smem = small_smem_bytes(max_n, sizeof(T));
  const bool unit = diag == TriDiag::unit;
  dispatch_view(uplo, op, [&](auto rev, auto swap) {
    auto kernel = trsv_batched_kernel<T, decltype(rev)::value, decltype(swap)::value>;
    allow_dynamic_smem(kernel, smem);
    kernel<<<batch, kSmallThreads, smem, stream>>>(n, a, lda, x, unit);
    PRISM_CUDA_CHECK_LAUNCH();
  });
}

template <typename T>
void trsm_impl(TriUplo uplo, TriOp op, TriDiag diag, index_t m, index_t nrhs, T alpha, const T* a,
               index_t lda, T* b, index_t ldb, cudaStream_t stream) {
  check_square("trsm", m, lda);
  if (nrhs < 0) throw ConfigError("trsm: negative nrhs = " + std::to_string(nrhs));
  if (ldb < (m > 1 ? m : 1)) {
    throw ConfigError("trsm: ldb = " + std::to_string(ldb) + " < max(1, m = " + std::to_string(m) +
                      ")");
  }
  if (m == 0 || nrhs == 0) return;
  const bool unit = diag == TriDiag::unit;
  const int blocks = (nrhs + kTrsmCols - 1) / kTrsmCols;
  dispatch_view(uplo, op, [&](auto rev, auto swap) {
    trsm_kernel<T, decltype(rev)::value, decltype(swap)::value>
        <<<blocks, kTrsmCols, 0, stream>>>(m, nrhs, alpha, a, lda, b, ldb, unit);
    PRISM_CUDA_CHECK_LAUNCH();
  });
}

}  // namespace

std::size_t trsv_workspace_bytes() {
  return 2 * sizeof(int);
}

void trsv(TriUplo uplo, TriOp op, TriDiag diag, index_t n, const double* a, index_t lda, double* x,
          void* workspace, std::size_t workspace_bytes, cudaStream_t stream,
          const TrsvOptions& options) {
  trsv_impl(uplo, op, diag, n, a, lda, x, workspace, workspace_bytes, stream, options);
}
void trsv(TriUplo uplo, TriOp op, TriDiag diag, index_t n, const float* a, index_t lda, float* x,
          void* workspace, std::size_t workspace_bytes, cudaStream_t stream,
          const TrsvOptions& options) {
  trsv_impl(uplo, op, diag, n, a, lda, x, workspace, workspace_bytes, stream, options);
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
          const double* a, index_t lda, double* b, index_t ldb, cudaStream_t stream) {
  trsm_impl(uplo, op, diag, m, nrhs, alpha, a, lda, b, ldb, stream);
}
void trsm(TriUplo uplo, TriOp op, TriDiag diag, index_t m, index_t nrhs, float alpha,
          const float* a, index_t lda, float* b, index_t ldb, cudaStream_t stream) {
  trsm_impl(uplo, op, diag, m, nrhs, alpha, a, lda, b, ldb, stream);
}

}  // namespace prism::kernels::cuda
