// getrf with every row in registers (kernels/cuda/batched_factor/registers.cuh): one warp
// segment per matrix for n <= 32, one thread per row for the panels of the blocked path
// and for n <= 64.

#include "kernels/cuda/batched_factor/common.cuh"
#include "kernels/cuda/batched_factor/launch.hpp"
#include "kernels/cuda/batched_factor/registers.cuh"

#include "kernels/cuda/async_copy.cuh"
#include "kernels/cuda/check.hpp"
#include "kernels/cuda/launch_config.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cstdint>

namespace prism::kernels::cuda::batched_factor {
namespace {

// Blocks per SM asked of ptxas for getrf_warp_kernel (0: its own choice). In double the
// 32-column kernel takes 98 registers unasked (4 blocks per SM); 96 gives 5. The 24-column
// kernel takes 82 unasked (5 blocks: a warp's registers are allocated 256 at a time); 72
// gives 7 with 24 bytes spilled outside the column loop, and the extra resident warps more
// than pay for the spill. The 16-column kernel keeps its 70 (7 blocks): 64 would give 8
// blocks but spill 68 bytes, for no gain.
constexpr int warp_kernel_min_blocks(std::size_t elem_size, int cols) {
  return elem_size == 8 && cols == 32 ? 5 : (elem_size == 8 && cols == 24 ? 7 : 0);
}

// n <= 32: one matrix per kLanes lanes (8, 16 or 32 >= n), row i in lane i's registers
// (kCols >= n entries: 8, 16, 24 or 32). Pivoting moves no data: each lane tracks the
// position `pos` of its row; at step j the pivot row takes position j and the row at
// position j takes the pivot's old position (so the recorded pivot is LAPACK's). The pivot
// row's owner leaves it in shared memory for its segment (one __syncwarp per column); rows
// are stored at their final places at the end. The pivot search is segment_argmax for 16-
// and 32-lane segments, group_argmax for 8. Rows divide by the pivot: scaling by its
// reciprocal (LAPACK's rule) would save nothing here.
//
// One segment's shared memory in warp_lu: the pivot rows of the last two steps, each
// followed by its old position (so that both are addressed from one register), and the
// 1-based pivots, written by each step's pivot lane (no lane keeps its step's pivot in a
// register, which the 24-column kernel would spill inside the column loop).
template <typename T, int kCols>
struct WarpLuShared {
  static constexpr int kStride = kCols + 16 / static_cast<int>(sizeof(T));  // rows 16-byte aligned
  T rows[2][kStride];
  index_t pivots[kCols];
  __device__ int& position(int buffer) { return *reinterpret_cast<int*>(&rows[buffer][kCols]); }
};

// Step j of the elimination once its pivot row u (shared memory; pivot = u[j]) and the
// pivot's position p are known, for the thread holding row r at position pos (has_row;
// is_pivot: the pivot row itself): the row at position j takes the pivot's old position and
// the pivot row takes j (LAPACK's interchange, by positions); a zero pivot is recorded in
// my_info, else every row below position j is eliminated.
template <typename T, int N>
__device__ __forceinline__ void lu_step(T (&r)[N], int j, T pivot, const T* u, int p, bool has_row,
                                        bool is_pivot, int& pos, int& my_info) {
  if (has_row) {
    if (pos == j && !is_pivot) {
      pos = p;
    } else if (is_pivot) {
      pos = j;
    }
  }
  if (pivot == T(0)) {
    if (my_info == 0) my_info = j + 1;
  } else if (has_row && pos > j) {
    r[j] /= pivot;  // l(i, j)
    axpy_row_tail(r, r[j], u, j + 1);
  }
}

// warp_lu: those steps on the matrix whose row `row` (position `pos` on entry: row) is in
// r, with this segment's shared memory `sh`. On return pos is the row's final position,
// sh.pivots[j] the 1-based pivot of step j (visible to every lane of the segment) and
// my_info the first zero pivot (0: none). Every lane of the warp calls it (the reductions
// span the warp); has_row marks lanes holding a row of an active matrix. With kExact, n is
// kCols (a constant: no step tests it).
template <typename T, int kLanes, int kCols, bool kExact>
__device__ __forceinline__ void warp_lu(int n, T (&r)[kCols], bool has_row,
                                        WarpLuShared<T, kCols>& sh, int& pos, int& my_info) {
#pragma unroll
  for (int j = 0; j < kCols; ++j) {
    if (kExact || j < n) {  // n is uniform: no divergence
      T* s = sh.rows[j & 1];
      const bool eligible = has_row && pos >= j;
      int p;
      bool is_pivot;
      if constexpr (kLanes >= 16) {
        is_pivot =
            (segment_argmax<T, kLanes>(PivotBits<T>(r[j], eligible), pos) >> (threadIdx.x % 32)) &
            1u;
        if (is_pivot) {
          store_row_tail(s, r, j);
          sh.position(j & 1) = pos;
          sh.pivots[j] = pos + 1;
        }
        __syncwarp();
        p = sh.position(j & 1);
      } else {
        T v = eligible ? pivot_key(r[j]) : T(-1);
        p = eligible ? pos : INT_MAX;
        group_argmax(v, p, kLanes);
        is_pivot = eligible && pos == p;
        if (is_pivot) {
          store_row_tail(s, r, j);
          sh.pivots[j] = p + 1;
        }
        __syncwarp();
      }
      const T pivot = s[j];
      lu_step(r, j, pivot, s, p, has_row, is_pivot, pos, my_info);
    }
  }
}

// Stores the first `cols` entries of a row held in registers as row `pos` of a
// column-major block (leading dimension lda).
template <typename T, int N>
__device__ __forceinline__ void store_row(const T (&r)[N], T* A, std::int64_t lda, int pos,
                                          int cols) {
#pragma unroll
  for (int k = 0; k < N; ++k) {
    if (k < cols) A[pos + k * lda] = r[k];
  }
}

// Records the first zero pivot my_info (1-based step, 0: none) of the block at (j0, j0) of
// matrix b: set at j0 = 0, else only raised from 0 and offset by j0, as LAPACK's getrf.
__device__ __forceinline__ void store_info(index_t* info, std::int64_t b, int j0, int my_info) {
  if (j0 == 0) {
    info[b] = my_info;
  } else if (my_info != 0 && info[b] == 0) {
    info[b] = j0 + my_info;
  }
}

// Writes a factored matrix of n rows (rows at their final positions), its pivots and info.
// With j0 > 0 it is the trailing n x n block at (j0, j0) of a matrix of n_all = j0 + n rows
// (the last panel of the blocked path): pivots and info are offset by j0, and info is only
// raised from 0, as LAPACK's getrf (getrf_rows_kernel does the same).
template <typename T, int kCols>
__device__ __forceinline__ void warp_lu_store(int n, const T (&r)[kCols], T* A, std::int64_t lda,
                                              bool has_row, int row, int pos, std::int64_t b,
                                              index_t* ipiv, index_t my_pivot, index_t* info,
                                              int my_info, int j0 = 0) {
  if (has_row) {
    store_row(r, A, lda, pos, n);
    ipiv[b * (j0 + n) + j0 + row] = j0 + my_pivot;
  }
  if (A != nullptr && row == 0) store_info(info, b, j0, my_info);
}

// One matrix per segment, one segment's matrix per launch slot: the n x n matrix at (j0, j0)
// (j0 > 0: the last panel of the blocked path, warp_lu_store). kExact: n == kCols.
template <typename T, int kLanes, int kCols, bool kExact>
__global__ void __launch_bounds__(kRegistersBlock, warp_kernel_min_blocks(sizeof(T), kCols))
    getrf_warp_kernel(int n, int j0, DeviceMatrixBatch<T> a, index_t* ipiv, index_t* info,
                      int batch) {
  constexpr int kSegments = kRegistersBlock / kLanes;
  __shared__ __align__(16) WarpLuShared<T, kCols> s_lu[kSegments];
  if constexpr (kExact) n = kCols;
  const int seg = threadIdx.x / kLanes;
  const int row = threadIdx.x % kLanes;
  const std::int64_t b = static_cast<std::int64_t>(blockIdx.x) * kSegments + seg;
  const std::int64_t lda = a.ld;
  T* A = b < batch ? matrix_ptr(a, b) + j0 + j0 * lda : nullptr;
  const bool has_row = A != nullptr && row < n;

  T r[kCols];
#pragma unroll
  for (int k = 0; k < kCols; ++k) r[k] = (has_row && k < n) ? A[row + k * lda] : T(0);
  int pos = row;
  int my_info = 0;
  warp_lu<T, kLanes, kCols, kExact>(n, r, has_row, s_lu[seg], pos, my_info);
  const index_t my_pivot = has_row ? s_lu[seg].pivots[row] : 0;  // stored coalesced
  warp_lu_store(n, r, A, lda, has_row, row, pos, b, ipiv, my_pivot, info, my_info, j0);
}

// Blocks per SM asked of ptxas for getrf_warp_prefetch_kernel: in double it takes 78
// registers unasked for n = 16 with the 16-byte copies below (6 blocks per SM); 72 gives
// 7, with no spill.
constexpr int prefetch_kernel_min_blocks(std::size_t elem_size) {
  return elem_size == 8 ? 7 : 0;
}

// getrf_warp_kernel with a resident grid (GetrfOptions::prefetch_next): segment s of block
// k takes matrices b = k * kSegments + s, b + stride, ... (stride: the grid's segments) and
// copies its next matrix into shared memory with cp.async while it factors the current one;
// the pointer of the one after is loaded one matrix ahead too. The loop runs over the
// block's first matrix, so every lane of a warp takes the same number of steps (a segment
// past the batch idles). The copy: for n = kCols = kLanes and a 16-byte aligned matrix
// and column stride, the segment's lanes copy 16 bytes at a time, column by column (in
// double, 8 copies a lane at n = 16 instead of 16 single entries); otherwise each lane
// copies its own row, an entry at a time. Either way a __syncwarp after the lanes' waits
// makes every copy visible to the segment.
template <typename T, int kLanes, int kCols, bool kExact>
__global__ void __launch_bounds__(kRegistersBlock, prefetch_kernel_min_blocks(sizeof(T)))
    getrf_warp_prefetch_kernel(int n, DeviceMatrixBatch<T> a, index_t* ipiv, index_t* info,
                               int batch) {
  constexpr int kSegments = kRegistersBlock / kLanes;
  __shared__ __align__(16) WarpLuShared<T, kCols> s_lu[kSegments];
  if constexpr (kExact) n = kCols;
  // Entry k of row `row` at [seg][k][row].
  __shared__ __align__(16) T s_next[kSegments][kCols][kLanes];
  const int seg = threadIdx.x / kLanes;
  const int row = threadIdx.x % kLanes;
  const std::int64_t lda = a.ld;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * kSegments;
  const bool lane_row = row < n;
  constexpr int kPerCopy = 16 / static_cast<int>(sizeof(T));  // entries per 16-byte copy
  constexpr int kCopies = kCols / kPerCopy;                   // per column
  const bool lda_aligned = (lda * static_cast<std::int64_t>(sizeof(T))) % 16 == 0;
  auto fetch = [&](const T* A) {
    if (kExact && kCols == kLanes && A != nullptr && lda_aligned &&
        reinterpret_cast<std::uintptr_t>(A) % 16 == 0) {
      // Not unrolled, as below.
#pragma unroll 1
      for (int c = row; c < kCols * kCopies; c += kLanes) {
        const int k = c / kCopies, i = (c % kCopies) * kPerCopy;
        cp_async16_cg(&s_next[seg][k][i], A + i + k * lda);
      }
    } else if (A != nullptr && lane_row) {
      // Not unrolled: the addresses would take registers the factorization needs.
      const T* src = A + row;
      T* dst = &s_next[seg][0][row];
#pragma unroll 1
      for (int k = 0; k < n; ++k, src += lda, dst += kLanes) cp_async(dst, src, true);
    }
    cp_async_commit();
  };
  std::int64_t b = static_cast<std::int64_t>(blockIdx.x) * kSegments + seg;
  T* A = b < batch ? matrix_ptr(a, b) : nullptr;
  fetch(A);
  T* A_next = b + stride < batch ? matrix_ptr(a, b + stride) : nullptr;
  for (std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * kSegments; first < batch;
       first += stride, b += stride) {
    const bool has_row = A != nullptr && lane_row;
    T r[kCols];
    cp_async_wait<0>();
    __syncwarp();  // the other lanes' copies
#pragma unroll
    for (int k = 0; k < kCols; ++k) r[k] = (has_row && k < n) ? s_next[seg][k][row] : T(0);
    __syncwarp();  // orders these reads before the copy below overwrites s_next
    fetch(A_next);
    T* A_after = b + 2 * stride < batch ? matrix_ptr(a, b + 2 * stride) : nullptr;
    int pos = row;
    int my_info = 0;
    warp_lu<T, kLanes, kCols, kExact>(n, r, has_row, s_lu[seg], pos, my_info);
    const index_t my_pivot = has_row ? s_lu[seg].pivots[row] : 0;
    warp_lu_store(n, r, A, lda, has_row, row, pos, b, ipiv, my_pivot, info, my_info);
    A = A_next;
    A_next = A_after;
  }
}

// LU with partial pivoting of rows [j0, n) x columns [j0, j0 + jb) of every matrix (jb <=
// NC): the whole matrix (j0 = 0, jb = n <= 64) or a panel of the blocked algorithm (NC =
// 32, n - j0 <= 512). One block per matrix, one thread per row (blockDim.x = n - j0 rounded
// up to 32), the row's jb entries in registers; pivoting by positions as in the warp
// kernel. Pivot search: a warp reduction, each warp's candidate row left in shared memory,
// one barrier, then a reduction over the warps' candidates. Pivots (ipiv[j0 + c] = j0 +
// row + 1) and info (set at j0 = 0, else only raised from 0) as LAPACK's getrf.
// Blocks per SM asked of ptxas for getrf_rows_kernel (0: no hint, its own choice). In
// double the 64-thread kernels then fit 8 and 10 blocks per SM without spills (40 columns:
// 128 registers instead of 132; 32 columns: 96 instead of 104), and the extra blocks pay.
// The 48-column kernel asks for 6 (168 registers, as unasked): squeezed to 7 or 8 blocks
// it loses more to the smaller register budget than the blocks bring. A hint for the
// others makes ptxas take more registers (128 instead of 104 for the 512-row panel), so
// they get none.
constexpr int rows_kernel_min_blocks(std::size_t elem_size, int nc, int max_rows) {
  if (elem_size != 8 || max_rows != 64) return 0;
  return nc == 40 ? 8 : (nc == 48 ? 6 : (nc == 32 ? 10 : 0));
}

template <typename T, int NC, int kMaxRows>
__global__ void __launch_bounds__(kMaxRows, rows_kernel_min_blocks(sizeof(T), NC, kMaxRows))
    getrf_rows_kernel(int n, int j0, int jb, DeviceMatrixBatch<T> a, index_t* ipiv, index_t* info) {
  constexpr int kWarps = kMaxRows / 32;
  __shared__ __align__(16) T s_rows[2][kWarps][NC];
  __shared__ T s_val[2][kWarps];
  __shared__ int s_pos[2][kWarps];
  const std::int64_t b = blockIdx.x;
  const int m = n - j0;
  const int i = threadIdx.x, lane = i % 32, warp = i / 32;
  const int warps = static_cast<int>(blockDim.x) / 32;
  const bool has_row = i < m;
  const std::int64_t lda = a.ld;
  T* G = matrix_ptr(a, b) + j0 + j0 * lda;

  T r[NC];
#pragma unroll
  for (int k = 0; k < NC; ++k) r[k] = (has_row && k < jb) ? G[i + k * lda] : T(0);
  int pos = i;
  int my_info = 0;
#pragma unroll
  for (int c = 0; c < NC; ++c) {
    if (c < jb) {  // uniform
      const int buf = c & 1;
      const bool eligible = has_row && pos >= c;
      T v = eligible ? pivot_key(r[c]) : T(-1);
      int p = eligible ? pos : INT_MAX;
      group_argmax(v, p, 32);
      if (lane == 0) {
        s_val[buf][warp] = v;
        s_pos[buf][warp] = p;
      }
      if (eligible && pos == p) store_row_tail(s_rows[buf][warp], r, c);
      __syncthreads();
      // Candidates of the warps: lane l holds warp l % kWarps's; the reduction carries the
      // warp index along.
      const int cw = lane % kWarps;
      T wv = cw < warps ? s_val[buf][cw] : T(-1);
      int wp = cw < warps ? s_pos[buf][cw] : INT_MAX;
      int ww = cw;
      for (int off = kWarps / 2; off > 0; off /= 2) {
        const T ov = __shfl_xor_sync(0xffffffffu, wv, off);
        const int op = __shfl_xor_sync(0xffffffffu, wp, off);
        const int ow = __shfl_xor_sync(0xffffffffu, ww, off);
        if (ov > wv || (ov == wv && op < wp)) {
          wv = ov;
          wp = op;
          ww = ow;
        }
      }
      const T* u = s_rows[buf][ww];
      const T pivot = u[c];
      if (i == 0) ipiv[b * n + j0 + c] = j0 + wp + 1;
      const bool is_pivot = has_row && pos == wp;
      lu_step(r, c, pivot, u, wp, has_row, is_pivot, pos, my_info);
    }
  }
  if (has_row) store_row(r, G, lda, pos, jb);
  if (i == 0) store_info(info, b, j0, my_info);
}

}  // namespace

template <typename T>
void launch_getrf_warp(index_t n, int j0, DeviceMatrixBatch<T> a, index_t* ipiv, index_t* info,
                       index_t batch, cudaStream_t stream, bool prefetch) {
  const int m = static_cast<int>(n) - j0;
  // One matrix per `lanes` lanes.
  const auto blocks_for = [&](int lanes) {
    const std::int64_t per_block = kRegistersBlock / lanes;
    return (batch + per_block - 1) / per_block;
  };
  auto launch = [&](auto kernel, int lanes) {
    kernel<<<static_cast<unsigned>(blocks_for(lanes)), kRegistersBlock, 0, stream>>>(m, j0, a, ipiv,
                                                                                     info, batch);
    PRISM_CUDA_CHECK_LAUNCH();
  };
  // Each size's kernel in two forms: for n equal to its columns (the sizes 8, 16, 24, 32;
  // no step tests n) and for the sizes below.
  if (m <= 8) {
    launch(m == 8 ? getrf_warp_kernel<T, 8, 8, true> : getrf_warp_kernel<T, 8, 8, false>, 8);
  } else if (m <= 16 && prefetch && j0 == 0) {
    // A resident grid: at most the resident blocks.
    const auto kernel = m == 16 ? getrf_warp_prefetch_kernel<T, 16, 16, true>
                                : getrf_warp_prefetch_kernel<T, 16, 16, false>;
    const std::int64_t blocks =
        std::min<std::int64_t>(blocks_for(16), resident_blocks(kernel_id(kernel), kRegistersBlock));
    kernel<<<static_cast<unsigned>(blocks), kRegistersBlock, 0, stream>>>(m, a, ipiv, info, batch);
    PRISM_CUDA_CHECK_LAUNCH();
  } else if (m <= 16) {
    launch(m == 16 ? getrf_warp_kernel<T, 16, 16, true> : getrf_warp_kernel<T, 16, 16, false>, 16);
  } else if (m <= 24) {
    launch(m == 24 ? getrf_warp_kernel<T, 32, 24, true> : getrf_warp_kernel<T, 32, 24, false>, 32);
  } else {
    launch(m == 32 ? getrf_warp_kernel<T, 32, 32, true> : getrf_warp_kernel<T, 32, 32, false>, 32);
  }
}

// getrf_rows_kernel on rows [j0, n), columns [j0, j0 + jb): the whole matrix for 32 < n <=
// 64 (j0 = 0), or a blocked-path panel (jb <= 32).
template <typename T>
void launch_getrf_rows(index_t n, int j0, int jb, DeviceMatrixBatch<T> a, index_t* ipiv,
                       index_t* info, index_t batch, cudaStream_t stream) {
  const int threads = round_up_warp(n - j0);
  if (jb <= 32) {
    // kMaxRows sizes the reduction over the warps' candidates (log2 of its warps steps).
    if (threads <= 64) {
      getrf_rows_kernel<T, 32, 64><<<batch, threads, 0, stream>>>(n, j0, jb, a, ipiv, info);
    } else if (threads <= 128) {
      getrf_rows_kernel<T, 32, 128><<<batch, threads, 0, stream>>>(n, j0, jb, a, ipiv, info);
    } else {
      getrf_rows_kernel<T, 32, kBatchedFactorMaxN>
          <<<batch, threads, 0, stream>>>(n, j0, jb, a, ipiv, info);
    }
  } else if (jb <= 40) {
    getrf_rows_kernel<T, 40, 64><<<batch, threads, 0, stream>>>(n, j0, jb, a, ipiv, info);
  } else if (jb <= 48) {
    getrf_rows_kernel<T, 48, 64><<<batch, threads, 0, stream>>>(n, j0, jb, a, ipiv, info);
  } else {
    getrf_rows_kernel<T, 64, 64><<<batch, threads, 0, stream>>>(n, j0, jb, a, ipiv, info);
  }
  PRISM_CUDA_CHECK_LAUNCH();
}

template void launch_getrf_warp<float>(index_t, int, DeviceMatrixBatch<float>, index_t*, index_t*,
                                       index_t, cudaStream_t, bool);
template void launch_getrf_warp<double>(index_t, int, DeviceMatrixBatch<double>, index_t*, index_t*,
                                        index_t, cudaStream_t, bool);
template void launch_getrf_rows<float>(index_t, int, int, DeviceMatrixBatch<float>, index_t*,
                                       index_t*, index_t, cudaStream_t);
template void launch_getrf_rows<double>(index_t, int, int, DeviceMatrixBatch<double>, index_t*,
                                        index_t*, index_t, cudaStream_t);

}  // namespace prism::kernels::cuda::batched_factor
