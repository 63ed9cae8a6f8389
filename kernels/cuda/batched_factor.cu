// Batched LU with partial pivoting, Cholesky, getrs and potrs on the GPU, after Dong,
// Haidar, Luszczek, Harris, Tomov, Dongarra, "LU Factorization of Small Matrices:
// Accelerating Batched DGETRF on the GPU" (HPCC 2014). Conventions: kernels/batched_factor.hpp.
//
// Correctness is checked by tests/kernels/test_batched_factor_cuda.cpp (every path against
// the reference), speed by tools/bench_batched_factor.cu. What is still to tune is marked
// TUNE. Paths: kernels/cuda/batched_factor.hpp.
//
// Blocked getrf (n beyond the register and shared-memory paths), K = nb * update_depth
//   (Sec. VI-D, multi-level update):
//   for J in 0, K, 2K, ...:                        (big panel: columns [J, J + KB))
//     for j in J, J + nb, ... < J + KB:            (panel: columns [j, j + jb))
//       panel:    P [A(j:n, j:j+jb)] = L U, pivots ipiv[j .. j+jb)
//       swap:     those pivots on the big panel's other columns [J, j), [j+jb, J+KB)
//       row block: U12 = inv(L11) A12 on columns [j+jb, J+KB)   (in registers, trtri +
//                                                                 gemm, or trsm)
//       update:   A22 -= L21 U12 on rows [j+jb, n), columns [j+jb, J+KB)  (rank jb)
//     swap:     all KB pivots of the big panel on columns [0, J) and [J+KB, n)
//     row block: U12 = inv(L_KB) A12 on columns [J+KB, n)
//     update:   A22 -= L21 U12 on rows [J+KB, n), columns [J+KB, n)        (rank KB)
// With update_depth = 1 this is the plain right-looking algorithm (Algorithm 2).
//
// Memory traffic per panel step: the panel (m x 32) is read and written once; the swap
// touches 2 * jb rows of the other columns; the trailing update reads L21 and U12 once per
// output tile (64 x 64, or 32 x 32 for narrow updates) and reads + writes A22 once. Where
// the time goes (ncu) is in tools/batched_factor.md.

#include "kernels/cuda/batched_factor.hpp"

#include "kernels/cuda/async_copy.cuh"
#include "kernels/cuda/check.hpp"
#include "kernels/cuda/tile_gemm.cuh"

#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>

#include <prism/errors.hpp>

namespace prism::kernels::cuda {
namespace {

constexpr int kNb = 32;               // panel width (the paper's nb)
constexpr int kPanelThreads = 256;    // threads of the per-matrix kernels
constexpr int kRegistersBlock = 128;  // threads of the warp-per-matrix register kernels
// Blocked getrf, update_depth = 0 (automatic): depth 2 from this n on, else 1. Measured on
// the H200 (double, batch 10^4 / 3000 / 1000, the final defaults otherwise): depth 1 / 2
// took 2424 / 3717 us at n = 96, 5277 / 5212 at 128, 4825 / 4300 at 192, 9949 / 8239 at
// 256, 21628 / 16159 at 512, and one build earlier 3067 / 3816 at 160.
constexpr int kGetrfDepth2MinN = 192;
// potrf, update_depth = 0 (automatic): depth 2 from this n on, else 1. Measured likewise:
// depth 1 / 2 took 745 / 825 us at n = 96, 1634 / 1414 at 128, 1342 / 1197 at 192, 5836 /
// 4773 at 512, and two builds earlier 1270 / 1110 at 160.
constexpr int kPotrfDepth2MinN = 128;
constexpr int kTile = 32;          // gemm output tile (kTile x kTile) and k chunk
constexpr int kRowBlockCols = 32;  // columns of A12 per row-block thread block
constexpr int kSolveCols = 8;      // right-hand sides per pass of getrs / potrs
constexpr int kSwapStage = 2048;   // elements staged per pass of the parallel swap

template <typename T>
__device__ __forceinline__ T* matrix_ptr(const DeviceMatrixBatch<T>& m, std::int64_t b) {
  return m.pointers != nullptr ? m.pointers[b] : m.base + b * m.stride;
}

template <typename T>
__device__ __forceinline__ T abs_value(T v) {
  return v < T(0) ? -v : v;
}

// Pivot search key of a candidate entry: |x|, NaN counted as 0 so that a column of NaNs
// still yields a valid pivot position (the factors are NaN then, as they must be).
template <typename T>
__device__ __forceinline__ T pivot_key(T x) {
  return x == x ? abs_value(x) : T(0);
}

// (value, row) pair reduction: larger value wins, ties go to the smaller row (idamax).
template <typename T>
__device__ __forceinline__ void argmax_merge(T& v, int& r, T ov, int orow) {
  if (ov > v || (ov == v && orow < r)) {
    v = ov;
    r = orow;
  }
}

// Block-wide argmax of |P(r, c)| over rows [first, m); every thread gets the row. All
// threads of the block must call it. scratch: 2 * 32 slots of T and int.
template <typename T>
__device__ int block_argmax(const T* col, int first, int m, T* s_val, int* s_row) {
  T v = T(-1);
  int r = INT_MAX;
  for (int i = first + threadIdx.x; i < m; i += blockDim.x)
    argmax_merge(v, r, pivot_key(col[i]), i);
#pragma unroll
  for (int off = 16; off > 0; off /= 2) {
    const T ov = __shfl_xor_sync(0xffffffffu, v, off);
    const int orow = __shfl_xor_sync(0xffffffffu, r, off);
    argmax_merge(v, r, ov, orow);
  }
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (lane == 0) {
    s_val[warp] = v;
    s_row[warp] = r;
  }
  __syncthreads();
  if (warp == 0) {
    const int warps = (blockDim.x + 31) / 32;
    v = lane < warps ? s_val[lane] : T(-1);
    r = lane < warps ? s_row[lane] : INT_MAX;
#pragma unroll
    for (int off = 16; off > 0; off /= 2) {
      const T ov = __shfl_xor_sync(0xffffffffu, v, off);
      const int orow = __shfl_xor_sync(0xffffffffu, r, off);
      argmax_merge(v, r, ov, orow);
    }
    if (lane == 0) s_row[32] = r;
  }
  __syncthreads();
  const int result = s_row[32];
  __syncthreads();  // s_row may be reused right after
  return result;
}

// ---------------------------------------------------------------------------------------
// Register kernels: every row of the matrix (or of the panel) stays in one thread's
// registers for the whole factorization; only the row or column a step broadcasts goes
// through shared memory (16-byte vector stores by its owner, broadcast vector loads by all),
// double-buffered so that one barrier per column suffices: the buffer written at step c + 2
// was last read before every thread passed the barrier of step c + 1.

// 16-byte vectors of T for the shared-memory broadcasts.
template <typename T>
struct Vec16;
template <>
struct Vec16<double> {
  using type = double2;
  static constexpr int size = 2;
  __device__ static type make(const double* r) { return make_double2(r[0], r[1]); }
  __device__ static double at(const type& v, int q) { return q == 0 ? v.x : v.y; }
};
template <>
struct Vec16<float> {
  using type = float4;
  static constexpr int size = 4;
  __device__ static type make(const float* r) { return make_float4(r[0], r[1], r[2], r[3]); }
  __device__ static float at(const type& v, int q) {
    return q == 0 ? v.x : (q == 1 ? v.y : (q == 2 ? v.z : v.w));
  }
};

// s[k] = r[k] for k >= first (a few entries before `first` too: whole vectors). `first` is
// a constant after unrolling, so every test here folds away and r stays in registers.
template <typename T, int N>
__device__ __forceinline__ void store_row_tail(T* s, const T (&r)[N], int first) {
  using V = Vec16<T>;
  static_assert(N % V::size == 0, "row length must be a multiple of the vector width");
#pragma unroll
  for (int k = 0; k < N; k += V::size) {
    if (k + V::size > first) *reinterpret_cast<typename V::type*>(s + k) = V::make(r + k);
  }
}

// r[k] -= m * u[k] for first <= k < N, restricted to kBegin <= k < kEnd (whole vectors; both
// multiples of the vector width); u in shared memory, the same for all threads.
// (Skipping the vectors past a warp's last row with a runtime, warp-uniform test per vector
// measured slower on the H200: potrf n = 56, 357 us against 309.)
template <int kBegin, int kEnd, typename T, int N>
__device__ __forceinline__ void axpy_row_range(T (&r)[N], T m, const T* u, int first) {
  using V = Vec16<T>;
  static_assert(kBegin % V::size == 0 && kEnd % V::size == 0 && kEnd <= N, "vector range");
#pragma unroll
  for (int k = kBegin; k < kEnd; k += V::size) {
    if (k + V::size > first) {
      const typename V::type v = *reinterpret_cast<const typename V::type*>(u + k);
#pragma unroll
      for (int q = 0; q < V::size; ++q) {
        if (k + q >= first) r[k + q] -= m * V::at(v, q);
      }
    }
  }
}

template <typename T, int N>
__device__ __forceinline__ void axpy_row_tail(T (&r)[N], T m, const T* u, int first) {
  axpy_row_range<0, N>(r, m, u, first);
}

// Reduces (key, position) pairs over groups of `width` lanes (a power of two <= 32):
// larger key wins, ties go to the smaller position (idamax); every lane of a group gets
// the result. (A max reduction of the keys followed by a min of the positions holding it
// issues fewer instructions but measured 7% slower at n = 16: two dependent chains.)
template <typename T>
__device__ __forceinline__ void group_argmax(T& key, int& pos, int width) {
  for (int off = width / 2; off > 0; off /= 2) {
    const T ok = __shfl_xor_sync(0xffffffffu, key, off, width);
    const int op = __shfl_xor_sync(0xffffffffu, pos, off, width);
    argmax_merge(key, pos, ok, op);
  }
}

// Pivot search by the warp's integer reductions (redux.sync): the candidate's |x| as an
// unsigned key whose order is the order of the values (IEEE bits of a non-negative number),
// compared a 32-bit word at a time. PivotBits<T>::hi is the word that decides almost always
// (+1, so that 0 marks a lane without a candidate); `lo` (double only) breaks ties of `hi`.
// NaN counts as 0, as pivot_key does: a NaN is still a candidate, so a segment with a
// candidate row always has a winner (a column of NaNs once had none, and the step then
// read a stale pivot position).
template <typename T>
struct PivotBits;
template <>
struct PivotBits<double> {
  static constexpr bool kTwoWords = true;
  unsigned hi, lo;
  __device__ PivotBits(double x, bool candidate) {
    const auto bits = static_cast<unsigned long long>(__double_as_longlong(x));
    const bool number = x == x;
    hi = candidate ? (number ? (static_cast<unsigned>(bits >> 32) & 0x7fffffffu) + 1u : 1u) : 0u;
    lo = candidate && number ? static_cast<unsigned>(bits) : 0u;
  }
};
template <>
struct PivotBits<float> {
  static constexpr bool kTwoWords = false;
  unsigned hi, lo;
  __device__ PivotBits(float x, bool candidate) {
    hi = candidate ? (x == x ? (__float_as_uint(x) & 0x7fffffffu) + 1u : 1u) : 0u;
    lo = 0;
  }
};

// Max of v over each kLanes-lane segment of the warp (every lane gets its segment's): one
// redux.sync per segment, over the whole warp with the other segments' values zeroed.
template <int kLanes>
__device__ __forceinline__ unsigned segment_max(unsigned v) {
  constexpr int kSegments = 32 / kLanes;
  if constexpr (kSegments == 1) {
    return __reduce_max_sync(0xffffffffu, v);
  } else {
    const int mine = static_cast<int>(threadIdx.x % 32) / kLanes;
    unsigned out = 0;
#pragma unroll
    for (int s = 0; s < kSegments; ++s) {
      const unsigned m = __reduce_max_sync(0xffffffffu, mine == s ? v : 0u);
      out = mine == s ? m : out;
    }
    return out;
  }
}

// idamax over each kLanes-lane segment of the warp, exactly: the largest key wins, ties go
// to the smallest pos. Returns the winner's bit in the warp's lane mask, in every lane of
// the segment (0 where the segment has no candidate). The high word decides unless two
// lanes share it; the rare ties take one or two more reductions (warp-uniform branches).
// Measured against group_argmax's shuffles in the getrf warp kernel (H200, double, batch
// 10^4, one probe run): n = 24, 67.7 -> 53.4 us; 32, 104.2 -> 86.8; 16, 21.5 -> 21.2; but
// n = 7 (8-lane segments, four reductions per warp) 10.0 -> 11.9, so 8-lane segments keep
// the shuffles. In the 64-thread rows kernel (two stages, one per warp and one over the
// warps' candidates) it lost too: n = 40, 349 -> 419 us (same-run A/B of the benchmark).
template <typename T, int kLanes>
__device__ __forceinline__ unsigned segment_argmax(const PivotBits<T>& key, int pos) {
  const unsigned lane = threadIdx.x % 32;
  const unsigned segment =
      kLanes == 32 ? 0xffffffffu : ((1u << (kLanes % 32)) - 1u) << (lane / kLanes * kLanes);
  // (Every reduction is called by all lanes: never on the right of && or ?:.)
  // Whether some segment still has two winners: with one segment the ballot's mask, the
  // same in every lane, says so without a vote.
  const auto tie = [&](unsigned w) {
    if constexpr (kLanes == 32) {
      return (w & (w - 1u)) != 0u;
    } else {
      return __any_sync(0xffffffffu, __popc(w & segment) > 1);
    }
  };
  const unsigned max_hi = segment_max<kLanes>(key.hi);
  unsigned winners = __ballot_sync(0xffffffffu, key.hi != 0 && key.hi == max_hi);
  if (tie(winners)) {
    bool in = (winners >> lane) & 1u;
    if constexpr (PivotBits<T>::kTwoWords) {
      const unsigned lo = in ? key.lo : 0u;
      const unsigned max_lo = segment_max<kLanes>(lo);
      winners &= __ballot_sync(0xffffffffu, in && lo == max_lo);
      in = (winners >> lane) & 1u;
    }
    if (tie(winners)) {
      const unsigned not_pos = in ? ~static_cast<unsigned>(pos) : 0u;  // min pos = max ~pos
      const unsigned max_not_pos = segment_max<kLanes>(not_pos);
      winners &= __ballot_sync(0xffffffffu, in && not_pos == max_not_pos);
    }
  }
  return winners & segment;
}

// Blocks per SM asked of ptxas for getrf_warp_kernel: in double the 32-column kernel takes
// 98 registers unasked (4 blocks per SM); 96 gives 5. The 24-column kernel takes 82 unasked
// (5 blocks: a warp's registers are allocated 256 at a time); 80 gave 6, with 8 bytes
// spilled outside the column loop: n = 24, 61.6 / 61.4 -> 58.4 / 58.3 us (H200, batch 10^4,
// same build, two runs each, 2026-11-22); since the kernels for n equal to their columns
// (2026-11-26), 72 gives 7 (24 bytes spilled): n = 24 53.5 / 53.0 -> 52.0 / 52.0 us, n = 20
// 50.0 / 49.9 -> 48.5 / 48.5 (H200, same run). The 16-column kernel keeps its 70 (7
// blocks): 64 (8 blocks, 68 bytes spilled) measured the same, 23.2 us.
constexpr int warp_kernel_min_blocks(std::size_t elem_size, int cols) {
  return elem_size == 8 && cols == 32 ? 5 : (elem_size == 8 && cols == 24 ? 7 : 0);
}

// n <= 32: one matrix per kLanes lanes (8, 16 or 32 >= n), row i in lane i's registers
// (kCols >= n entries: 8, 16, 24 or 32). Pivoting moves no data: each lane tracks the
// position `pos` of its row; at step j the pivot row takes position j and the row at
// position j takes the pivot's old position (so the recorded pivot is LAPACK's). The pivot
// row's owner leaves it in shared memory for its segment (one __syncwarp per column); rows
// are stored at their final places at the end. The pivot search is segment_argmax for 16-
// and 32-lane segments, group_argmax for 8. Scaling by a reciprocal (LAPACK's rule) instead
// of dividing measured no faster (n = 32: 94.2 against 93.3 us).
//
// One segment's shared memory in warp_lu: the pivot rows of the last two steps, each
// followed by its old position (so that both are addressed from one register), and the
// 1-based pivots, written by each step's pivot lane (no lane keeps its step's pivot in a
// register, where the 24-column kernel had spilled it inside the column loop).
template <typename T, int kCols>
struct WarpLuShared {
  static constexpr int kStride = kCols + 16 / static_cast<int>(sizeof(T));  // rows 16-byte aligned
  T rows[2][kStride];
  index_t pivots[kCols];
  __device__ int& position(int buffer) { return *reinterpret_cast<int*>(&rows[buffer][kCols]); }
};

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
        axpy_row_tail(r, r[j], s, j + 1);
      }
    }
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
#pragma unroll
    for (int k = 0; k < kCols; ++k) {
      if (k < n) A[pos + k * lda] = r[k];
    }
    ipiv[b * (j0 + n) + j0 + row] = j0 + my_pivot;
  }
  if (A != nullptr && row == 0) {
    if (j0 == 0) {
      info[b] = my_info;
    } else if (my_info != 0 && info[b] == 0) {
      info[b] = j0 + my_info;
    }
  }
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
// double, 8 copies a lane at n = 16 where each lane had copied its row's 16 entries one by
// one: H200, batch 10^4, same run, 21.0 / 21.1 -> 20.4 / 20.6 us); otherwise each lane
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
// 128 registers instead of 132; 32 columns: 96 instead of 104). Measured on the H200 (batch
// 10^4, same run, with / without, before the 40-column kernel existed): n = 40, 484 / 502
// us; n = 56 (blocked, a 56-row panel), 768 / 807; n = 64, 892 / 928. The 48-column kernel
// asks for 6 (168 registers, as unasked): with 8 (128 registers) it took 664 / 662 us at n
// = 48 and 566 / 563 at n = 44, with 7 666 / 662 and 568 / 568, with 6 621 / 624 and 540 /
// 540 (the register kernel forced on, two runs of four builds, 2026-11-22). A hint of 1 for the
// others made ptxas take more registers (104 -> 128 for the 512-row panel), so they get none.
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
      if (has_row) {
        if (pos == c && !is_pivot) {
          pos = wp;
        } else if (is_pivot) {
          pos = c;
        }
      }
      if (pivot == T(0)) {
        if (my_info == 0) my_info = c + 1;
      } else if (has_row && pos > c) {
        r[c] /= pivot;
        axpy_row_tail(r, r[c], u, c + 1);
      }
    }
  }
  if (has_row) {
#pragma unroll
    for (int k = 0; k < NC; ++k) {
      if (k < jb) G[pos + k * lda] = r[k];
    }
  }
  if (i == 0) {
    if (j0 == 0) {
      info[b] = my_info;
    } else if (my_info != 0 && info[b] == 0) {
      info[b] = j0 + my_info;
    }
  }
}

// The pivot of a Cholesky step as the register kernels publish it: d = the updated a(c, c)
// (its sign decides failure) and inv = 1 / sqrt(d) (LAPACK's potf2 also scales by the
// reciprocal). The row that owns the diagonal sets r[c] = sqrt(d) itself, so that only its
// warp takes the square root and the reciprocal and the other rows just multiply.
template <typename T, int NC>
__device__ __forceinline__ void potrf_publish_pivot(T (&r)[NC], int c, T* d, T* inv) {
  const T dc = r[c];
  *d = dc;
  if (dc > T(0)) {
    // sqrt(d) as d / sqrt(d) from one reciprocal square root (CUDA's rsqrt: MUFU and
    // refinement, 1 ulp in double), instead of a correctly rounded sqrt and then a
    // division: the chain on the critical path of every column is about half as long.
    // Float refines both by a Newton step (rsqrtf is 2 ulp: a 1 x 1 factor then missed
    // the tests' 4 n eps backward-error bound); in double the step cost registers in the
    // 512-row panel kernel (94 -> 128) and time (potrf n = 128: 1349 -> 1481 us).
    const T y = rsqrt(dc);
    const T s = dc * y;
    if constexpr (sizeof(T) == sizeof(double)) {
      r[c] = s;
      *inv = y;
    } else {
      const T h = T(0.5) * y;
      r[c] = fma(h, fma(-s, s, dc), s);    // s + (d - s^2) / (2 sqrt(d))
      *inv = fma(h, fma(-s, y, T(1)), y);  // y + y (1 - d y^2) / 2
    }
  }
}

// Cholesky step c, shared by the two potrf register kernels, for the thread holding row
// i >= 0 (has_row) of r (lower part: entries k <= i), after a pivot d > 0 was published
// with its reciprocal square root inv. Row c + 1 applies its own rank-1 update to its
// diagonal right away and publishes the next pivot, so that one barrier per step suffices;
// the other rows update after the barrier (axpy_row_tail).
template <typename T, int NC>
__device__ __forceinline__ void potrf_scale_step(T (&r)[NC], int c, int i, bool has_row, T inv,
                                                 T* col, T* d_next, T* inv_next) {
  if (!has_row || i <= c) return;
  r[c] *= inv;  // l(i, c)
  col[i] = r[c];
  if (c + 1 < NC && i == c + 1) {
    r[c + 1] -= r[c] * r[c];
    potrf_publish_pivot(r, c + 1, d_next, inv_next);
  }
}

// Blocks per SM asked of ptxas for potrf_warp_kernel (0: its own choice). In double the
// 24-column kernel took 89 registers unasked and the 16-column one 65, so with registers
// going to a warp 256 at a time 5 and 7 blocks fit; 80 and 64 registers (no spills) give 6
// and 8: n = 24, 50.7 / 50.4 -> 47.4 / 47.4 us; n = 16, 18.7 / 18.8 -> 18.5 / 18.5 (H200,
// batch 10^4, same build, two runs each, 2026-11-22).
constexpr int potrf_warp_min_blocks(std::size_t elem_size, int cols) {
  return elem_size == 8 && cols == 24 ? 6 : (elem_size == 8 && cols == 16 ? 8 : 0);
}

// n <= 32: Cholesky of one matrix per kLanes lanes (8, 16 or 32 >= n), row i (its lower
// part, kCols >= n entries: 8, 16, 24 or 32) in lane i's registers; each step's scaled column goes
// through shared memory (one value per lane, one __syncwarp per column). A non-positive pivot stops
// that matrix only (its lanes keep meeting the __syncwarp).
template <typename T, int kLanes, int kCols>
__global__ void __launch_bounds__(kRegistersBlock, potrf_warp_min_blocks(sizeof(T), kCols))
    potrf_warp_kernel(int n, DeviceMatrixBatch<T> a, index_t* info, int batch) {
  constexpr int kSegments = kRegistersBlock / kLanes;
  __shared__ __align__(16) T s_col[kSegments][2][kLanes];
  __shared__ T s_d[kSegments][2], s_inv[kSegments][2];
  const int seg = threadIdx.x / kLanes;
  const int row = threadIdx.x % kLanes;
  const std::int64_t b = static_cast<std::int64_t>(blockIdx.x) * kSegments + seg;
  const bool active = b < batch;
  T* A = active ? matrix_ptr(a, b) : nullptr;
  const std::int64_t lda = a.ld;
  const bool has_row = active && row < n;

  T r[kCols];
#pragma unroll
  for (int k = 0; k < kCols; ++k) r[k] = (has_row && k < n && k <= row) ? A[row + k * lda] : T(0);
  s_col[seg][0][row] = T(0);
  s_col[seg][1][row] = T(0);
  if (has_row && row == 0) potrf_publish_pivot(r, 0, &s_d[seg][0], &s_inv[seg][0]);
  __syncwarp();
  int fail = active ? 0 : -1;  // inactive segments do nothing
#pragma unroll
  for (int c = 0; c < kCols; ++c) {
    if (c < n) {  // uniform
      const int buf = c & 1;
      if (fail == 0) {
        const T d = s_d[seg][buf];
        if (!(d > T(0))) {
          fail = c + 1;
        } else {
          potrf_scale_step(r, c, row, has_row, s_inv[seg][buf], s_col[seg][buf], &s_d[seg][buf ^ 1],
                           &s_inv[seg][buf ^ 1]);
        }
      }
      __syncwarp();
      if (fail == 0 && has_row && row > c + 1) axpy_row_tail(r, r[c], s_col[seg][buf], c + 1);
    }
  }
  if (has_row) {
#pragma unroll
    for (int k = 0; k < kCols; ++k) {
      if (k < n && k <= row) A[row + k * lda] = r[k];
    }
  }
  if (active && row == 0) info[b] = fail;
}

// Cholesky of rows [j0, n) x columns [j0, j0 + jb) (jb <= NC; lower part): the whole
// matrix (j0 = 0, jb = n <= 64) or a panel of the blocked algorithm (NC = 32, n - j0 <=
// 512: potf2 of the diagonal block and L21 = A21 L11^{-T} in one pass). One block per
// matrix, one thread per row (blockDim.x = n - j0 rounded up to 32), one barrier per
// column. Skips matrices whose info is already set (j0 > 0); info = j0 + failing column.
// (Splitting a panel's rows over several blocks, each refactoring the diagonal block,
// measured within 3% of this on the H200: the syrk, not the panel, dominates large n.)
template <typename T, int NC, int kMaxRows>
__global__ void __launch_bounds__(kMaxRows)
    potrf_rows_kernel(int n, int j0, int jb, DeviceMatrixBatch<T> a, index_t* info) {
  __shared__ __align__(16) T s_col[2][kMaxRows];
  __shared__ T s_d[2], s_inv[2];
  const std::int64_t b = blockIdx.x;
  if (j0 > 0 && info[b] != 0) return;  // uniform: the whole block leaves
  const int m = n - j0;
  const int i = threadIdx.x;
  const bool has_row = i < m;
  const std::int64_t lda = a.ld;
  T* G = matrix_ptr(a, b) + j0 + j0 * lda;

  T r[NC];
#pragma unroll
  for (int k = 0; k < NC; ++k) r[k] = (has_row && k < jb && k <= i) ? G[i + k * lda] : T(0);
  for (int k = i; k < NC; k += blockDim.x) {  // entries no row of this panel writes stay 0
    s_col[0][k] = T(0);
    s_col[1][k] = T(0);
  }
  if (i == 0 && has_row) potrf_publish_pivot(r, 0, &s_d[0], &s_inv[0]);
  __syncthreads();
  int fail = 0;
#pragma unroll
  for (int c = 0; c < NC; ++c) {
    if (c < jb) {
      const int buf = c & 1;
      const T d = s_d[buf];
      // Every thread read the same d: `fail` is uniform. (A `break` here instead made the
      // compiler keep two copies of the row: 255 registers and spills in double.)
      if (fail == 0 && !(d > T(0))) fail = c + 1;
      if (fail == 0) {
        potrf_scale_step(r, c, i, has_row, s_inv[buf], s_col[buf], &s_d[buf ^ 1], &s_inv[buf ^ 1]);
      }
      __syncthreads();
      if (fail == 0 && has_row && i > c + 1) {
        // Row i needs entries k <= i only: the first warp (rows < 32) stops at column 32,
        // one warp-uniform branch per column. H200, double, batch 10^4, same runs, without
        // / with: n = 40, 202.4 / 194.0 us; 44, 239.0 / 222.0; 48, 251.2 / 235.5.
        constexpr int kSplit = NC > 32 ? 32 : NC;
        axpy_row_range<0, kSplit>(r, r[c], s_col[buf], c + 1);
        if (kSplit < NC && i >= 32) axpy_row_range<kSplit, NC>(r, r[c], s_col[buf], c + 1);
      }
    }
  }
  if (has_row) {
#pragma unroll
    for (int k = 0; k < NC; ++k) {
      if (k < jb && k <= i) G[i + k * lda] = r[k];
    }
  }
  if (i == 0) info[b] = fail != 0 ? j0 + fail : 0;
}

// ---------------------------------------------------------------------------------------
// Unblocked LU (getf2) of columns [c0, c0 + w) of an m-row panel P (leading dimension ldp,
// shared or global memory) whose full width is `width`: swaps move whole panel rows (all
// `width` columns), the rank-1 updates stay inside [c0, c0 + w). Pivot rows are recorded
// as panel-local 0-based rows in s_piv[c]; s_info gets the first zero-pivot column + 1.
template <typename T>
__device__ void panel_getf2(T* P, int ldp, int m, int c0, int w, int width, int* s_piv, int* s_info,
                            T* s_val, int* s_row) {
  for (int c = c0; c < c0 + w && c < m; ++c) {
    T* col = P + static_cast<std::int64_t>(c) * ldp;
    const int p = block_argmax(col, c, m, s_val, s_row);
    const T pivot = col[p];
    __syncthreads();  // every thread has read the pivot before the swap moves it
    if (threadIdx.x == 0) {
      s_piv[c] = p;
      if (pivot == T(0) && *s_info == 0) *s_info = c + 1;
    }
    if (pivot != T(0)) {
      if (p != c) {
        for (int k = threadIdx.x; k < width; k += blockDim.x) {
          T* pk = P + static_cast<std::int64_t>(k) * ldp;
          const T t = pk[c];
          pk[c] = pk[p];
          pk[p] = t;
        }
        __syncthreads();
      }
      for (int i = c + 1 + threadIdx.x; i < m; i += blockDim.x) col[i] /= pivot;
      __syncthreads();
      // a(i, k) -= l(i, c) u(c, k), i > c, c < k < c0 + w
      const int rows = m - c - 1, cols = c0 + w - c - 1;
      for (int e = threadIdx.x; e < rows * cols; e += blockDim.x) {
        const int i = c + 1 + e % rows, k = c + 1 + e / rows;
        T* pk = P + static_cast<std::int64_t>(k) * ldp;
        pk[i] -= col[i] * pk[c];
      }
      __syncthreads();
    }
  }
}

// Recursive panel LU (Sec. VI-B): split the columns in halves down to 8, factor the left
// half, U12 = L11^{-1} A12 and A22 -= L21 U12 for the right half, factor the right half.
// Equivalent to LAPACK's dgetrf2 because swaps move whole panel rows.
template <typename T, int W>
__device__ void panel_recursive(T* P, int ldp, int m, int c0, int w, int width, int* s_piv,
                                int* s_info, T* s_val, int* s_row) {
  if constexpr (W <= 8) {
    panel_getf2(P, ldp, m, c0, w, width, s_piv, s_info, s_val, s_row);
  } else {
    if (w <= W / 2) {
      panel_recursive<T, W / 2>(P, ldp, m, c0, w, width, s_piv, s_info, s_val, s_row);
      return;
    }
    constexpr int h = W / 2;
    panel_recursive<T, h>(P, ldp, m, c0, h, width, s_piv, s_info, s_val, s_row);
    const int c1 = c0 + h, w2 = w - h;
    // U12: one thread per right-half column, forward substitution with unit L11.
    if (threadIdx.x < w2) {
      T* pc = P + static_cast<std::int64_t>(c1 + threadIdx.x) * ldp;
      for (int r = c0 + 1; r < c1 && r < m; ++r) {
        T s = pc[r];
        for (int k = c0; k < r; ++k) s -= P[r + static_cast<std::int64_t>(k) * ldp] * pc[k];
        pc[r] = s;
      }
    }
    __syncthreads();
    // A22 -= L21 U12: rows [c1, m), columns [c1, c1 + w2)
    const int rows = m - c1;
    for (int e = threadIdx.x; e < rows * w2; e += blockDim.x) {
      const int i = c1 + e % rows, cidx = c1 + e / rows;
      T* pc = P + static_cast<std::int64_t>(cidx) * ldp;
      T s = pc[i];
      for (int k = c0; k < c1; ++k) s -= P[i + static_cast<std::int64_t>(k) * ldp] * pc[k];
      pc[i] = s;
    }
    __syncthreads();
    if (rows > 0) {
      panel_recursive<T, h>(P, ldp, m, c1, w2, width, s_piv, s_info, s_val, s_row);
    }
  }
}

// Panel factorization of columns [j, j + jb), rows [j, n) of every matrix. One block per
// matrix; in_shared: the panel is copied to shared memory and factored recursively,
// otherwise column by column in global memory (the "classic" getf2).
// TUNE: several panels per block for small m; fuse trtri of L11 while L11 is in shared memory.
template <typename T>
__global__ void __launch_bounds__(kPanelThreads)
    getrf_panel_kernel(int n, int j, int jb, DeviceMatrixBatch<T> a, index_t* ipiv, index_t* info,
                       bool in_shared) {
  extern __shared__ unsigned char smem_raw[];
  __shared__ T s_val[32];
  __shared__ int s_row[33];
  __shared__ int s_piv[kNb];
  __shared__ int s_info;
  const std::int64_t b = blockIdx.x;
  T* A = matrix_ptr(a, b);
  const std::int64_t lda = a.ld;
  const int m = n - j;
  T* G = A + j + j * lda;  // panel origin in global memory
  if (threadIdx.x == 0) s_info = 0;
  if (in_shared) {
    T* P = reinterpret_cast<T*>(smem_raw);
    const int ldp = m;
    for (int e = threadIdx.x; e < m * jb; e += blockDim.x) {
      const int i = e % m, k = e / m;
      P[i + k * ldp] = G[i + k * lda];
    }
    __syncthreads();
    panel_recursive<T, kNb>(P, ldp, m, 0, jb, jb, s_piv, &s_info, s_val, s_row);
    __syncthreads();
    for (int e = threadIdx.x; e < m * jb; e += blockDim.x) {
      const int i = e % m, k = e / m;
      G[i + k * lda] = P[i + k * ldp];
    }
  } else {
    __syncthreads();
    panel_getf2(G, static_cast<int>(lda), m, 0, jb, jb, s_piv, &s_info, s_val, s_row);
  }
  __syncthreads();
  for (int c = threadIdx.x; c < jb; c += blockDim.x) ipiv[b * n + j + c] = j + s_piv[c] + 1;
  if (threadIdx.x == 0 && s_info != 0 && info[b] == 0) info[b] = j + s_info;
}

// ---------------------------------------------------------------------------------------
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

// ---------------------------------------------------------------------------------------
// Whole matrix in shared memory (n <= 128), one block per matrix; uniform n = n_max
// (n_array null) or variable n <= n_max (n_array, lda_array, pointer array). Right-looking
// getf2 with 4 barriers per column. A variable-size matrix the call cannot take (n < 0 or
// n > n_max, which the shared memory is sized for, or lda < max(1, n)) is left untouched
// with info = -1 or -4 (LAPACK's illegal-argument code: n is getrf_vbatched's first
// argument, lda its fourth). TUNE: several small matrices per block; register tiles instead
// of shared memory.
template <typename T>
__global__ void __launch_bounds__(kPanelThreads)
    getrf_shared_kernel(const index_t* n_array, int n_max, DeviceMatrixBatch<T> a,
                        const index_t* lda_array, index_t* ipiv, int ipiv_stride, index_t* info) {
  extern __shared__ unsigned char smem_raw[];
  __shared__ T s_val[32];
  __shared__ int s_row[33];
  __shared__ int s_piv[kBatchedFactorVarMaxN];
  __shared__ int s_info;
  const std::int64_t b = blockIdx.x;
  const int n = n_array != nullptr ? n_array[b] : n_max;
  const std::int64_t lda = lda_array != nullptr ? lda_array[b] : a.ld;
  if (n < 0 || n > n_max || lda < (n > 1 ? n : 1)) {  // block-uniform
    if (threadIdx.x == 0) info[b] = n < 0 || n > n_max ? -1 : -4;
    return;
  }
  T* A = matrix_ptr(a, b);
  T* S = reinterpret_cast<T*>(smem_raw);
  const int lds = n | 1;  // odd: rows of S fall in different banks
  if (threadIdx.x == 0) s_info = 0;
  for (int e = threadIdx.x; e < n * n; e += blockDim.x) {
    const int i = e % n, k = e / n;
    S[i + k * lds] = A[i + k * lda];
  }
  __syncthreads();
  panel_getf2(S, lds, n, 0, n, n, s_piv, &s_info, s_val, s_row);
  __syncthreads();
  for (int e = threadIdx.x; e < n * n; e += blockDim.x) {
    const int i = e % n, k = e / n;
    A[i + k * lda] = S[i + k * lds];
  }
  for (int c = threadIdx.x; c < n; c += blockDim.x) ipiv[b * ipiv_stride + c] = s_piv[c] + 1;
  if (threadIdx.x == 0) info[b] = s_info;
}

// ---------------------------------------------------------------------------------------
// Cholesky of columns [0, w) of an m-row lower panel P (potf2, right-looking); the
// diagonal block is rows [0, w). Returns (to all threads) the 1-based failing column or 0.
template <typename T>
__device__ int panel_potf2(T* P, int ldp, int m, int w) {
  for (int c = 0; c < w; ++c) {
    T* col = P + static_cast<std::int64_t>(c) * ldp;
    const T d = col[c];
    if (!(d > T(0))) return c + 1;  // every thread read the same d: uniform exit
    const T l = sqrt(d);
    __syncthreads();  // everyone has read col[c]
    if (threadIdx.x == 0) col[c] = l;
    for (int i = c + 1 + threadIdx.x; i < m; i += blockDim.x) col[i] /= l;
    __syncthreads();
    // a(i, k) -= l(i, c) l(k, c), c < k < w, i >= k
    const int rows = m - c - 1, cols = w - c - 1;
    for (int e = threadIdx.x; e < rows * cols; e += blockDim.x) {
      const int i = c + 1 + e % rows, k = c + 1 + e / rows;
      if (i >= k) P[i + static_cast<std::int64_t>(k) * ldp] -= col[i] * col[k];
    }
    __syncthreads();
  }
  return 0;
}

// potrf panel (blocked path) or whole matrix (j = 0, jb = n): rows [j, n), columns
// [j, j + jb), in shared memory when in_shared, else in global memory. Skips matrices whose
// info is already set.
template <typename T>
__global__ void __launch_bounds__(kPanelThreads)
    potrf_panel_kernel(int n, int j, int jb, DeviceMatrixBatch<T> a, index_t* info,
                       bool in_shared) {
  extern __shared__ unsigned char smem_raw[];
  const std::int64_t b = blockIdx.x;
  if (j > 0 && info[b] != 0) return;
  T* A = matrix_ptr(a, b);
  const std::int64_t lda = a.ld;
  const int m = n - j;
  T* G = A + j + j * lda;
  int fail = 0;
  if (in_shared) {
    T* P = reinterpret_cast<T*>(smem_raw);
    const int ldp = m | 1;
    for (int e = threadIdx.x; e < m * jb; e += blockDim.x) {
      const int i = e % m, k = e / m;
      if (i >= k) P[i + k * ldp] = G[i + k * lda];
    }
    __syncthreads();
    fail = panel_potf2(P, ldp, m, jb);
    __syncthreads();
    for (int e = threadIdx.x; e < m * jb; e += blockDim.x) {
      const int i = e % m, k = e / m;
      if (i >= k) G[i + k * lda] = P[i + k * ldp];
    }
  } else {
    fail = panel_potf2(G, static_cast<int>(lda), m, jb);
  }
  if (threadIdx.x == 0) info[b] = fail != 0 ? j + fail : 0;
}

// ---------------------------------------------------------------------------------------
// getrs / potrs: one block per matrix, kSolveCols right-hand sides at a time staged in
// shared memory (n x kSolveCols), column-oriented substitution with one barrier per row;
// each step divides by the diagonal on the fly, the stored value is divided at the end.
// TUNE: several blocks per matrix for many right-hand sides; L^T access in potrs is strided.
template <typename T, bool kCholesky>
__global__ void __launch_bounds__(kPanelThreads)
    solve_kernel(int n, int nrhs, DeviceMatrixBatch<const T> a, const index_t* ipiv,
                 DeviceMatrixBatch<T> rhs) {
  extern __shared__ unsigned char smem_raw[];
  int* perm = reinterpret_cast<int*>(smem_raw);
  T* X = reinterpret_cast<T*>(smem_raw + ((n * sizeof(int) + 15) / 16) * 16);
  const std::int64_t b = blockIdx.x;
  const T* A = matrix_ptr(a, b);
  T* B = matrix_ptr(rhs, b);
  const std::int64_t lda = a.ld, ldb = rhs.ld;
  if (!kCholesky) {
    for (int i = threadIdx.x; i < n; i += blockDim.x) perm[i] = i;
    __syncthreads();
    if (threadIdx.x == 0) {
      const index_t* piv = ipiv + b * n;
      for (int i = 0; i < n; ++i) {
        const int p = piv[i] - 1, t = perm[i];
        perm[i] = perm[p];
        perm[p] = t;
      }
    }
    __syncthreads();
  }
  for (int c0 = 0; c0 < nrhs; c0 += kSolveCols) {
    const int cols = min(kSolveCols, nrhs - c0);
    for (int e = threadIdx.x; e < n * cols; e += blockDim.x) {
      const int i = e % n, c = e / n;
      X[i + c * n] = B[(kCholesky ? i : perm[i]) + (c0 + c) * ldb];
    }
    __syncthreads();
    // forward: L y = x (unit diagonal for LU)
    for (int k = 0; k + 1 < n; ++k) {
      const int rows = n - k - 1;
      for (int e = threadIdx.x; e < rows * cols; e += blockDim.x) {
        const int i = k + 1 + e % rows, c = e / rows;
        T xk = X[k + c * n];
        if (kCholesky) xk /= A[k + k * lda];
        X[i + c * n] -= A[i + k * lda] * xk;
      }
      __syncthreads();
    }
    if (kCholesky) {
      for (int e = threadIdx.x; e < n * cols; e += blockDim.x) {
        const int i = e % n, c = e / n;
        X[i + c * n] /= A[i + i * lda];
      }
      __syncthreads();
    }
    // backward: U x = y (LU) or L^T x = y (Cholesky)
    for (int k = n - 1; k > 0; --k) {
      for (int e = threadIdx.x; e < k * cols; e += blockDim.x) {
        const int i = e % k, c = e / k;
        const T xk = X[k + c * n] / A[k + k * lda];
        X[i + c * n] -= (kCholesky ? A[k + i * lda] : A[i + k * lda]) * xk;
      }
      __syncthreads();
    }
    for (int e = threadIdx.x; e < n * cols; e += blockDim.x) {
      const int i = e % n, c = e / n;
      B[i + (c0 + c) * ldb] = X[i + c * n] / A[i + i * lda];
    }
    __syncthreads();
  }
}

// ---------------------------------------------------------------------------------------
// Host side.

// Dynamic shared memory of a kernel that takes some. By default a kernel may take
// 48 KiB less its static shared memory; beyond that the limit must be raised (opt-in, up
// to the device's opt-in maximum less the static part). The first GPU run failed exactly
// at that edge: 48 KiB of dynamic memory, below the old `> 48 KiB` test, plus a few hundred
// bytes static. Here the static size is read from the kernel itself and the limit raised
// (monotonically, once per kernel, device and new maximum) whenever a launch needs more.
class DynamicShared {
 public:
  // Largest dynamic shared memory `kernel` can be given on the current device.
  static std::size_t capacity(const void* kernel) { return entry(kernel).capacity; }

  // Makes a launch of `kernel` with `bytes` of dynamic shared memory valid; ConfigError
  // (naming `who`) when it cannot fit.
  static void reserve(const void* kernel, std::size_t bytes, const char* who) {
    std::lock_guard<std::mutex> lock(mutex());
    Entry& e = entry_locked(kernel);
    if (bytes > e.capacity) {
      throw ConfigError(std::string(who) + ": needs " + std::to_string(bytes) +
                        " bytes of shared memory per block, the device allows " +
                        std::to_string(e.capacity));
    }
    if (bytes > e.limit) {
      PRISM_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                            static_cast<int>(bytes)));
      e.limit = bytes;
    }
  }

 private:
  struct Entry {
    std::size_t capacity = 0;  // opt-in maximum less the static shared memory
    std::size_t limit = 0;     // the kernel's current cudaFuncAttributeMaxDynamicSharedMemorySize
  };
  static std::mutex& mutex() {
    static std::mutex m;
    return m;
  }
  static Entry& entry(const void* kernel) {
    std::lock_guard<std::mutex> lock(mutex());
    return entry_locked(kernel);
  }
  static Entry& entry_locked(const void* kernel) {
    static std::map<std::pair<const void*, int>, Entry> entries;
    int device = 0;
    PRISM_CUDA_CHECK(cudaGetDevice(&device));
    const auto key = std::make_pair(kernel, device);
    auto it = entries.find(key);
    if (it == entries.end()) {
      cudaFuncAttributes attr{};
      PRISM_CUDA_CHECK(cudaFuncGetAttributes(&attr, kernel));
      int optin = 0;
      PRISM_CUDA_CHECK(
          cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
      Entry e;
      e.capacity = static_cast<std::size_t>(optin) - attr.sharedSizeBytes;
      e.limit = static_cast<std::size_t>(attr.maxDynamicSharedSizeBytes);
      it = entries.emplace(key, e).first;
    }
    return it->second;
  }
};

template <typename Kernel>
const void* kernel_id(Kernel kernel) {
  return reinterpret_cast<const void*>(kernel);
}

void check_uniform(const char* who, index_t n, index_t ld, index_t batch) {
  if (n < 0 || batch < 0) throw ConfigError(std::string(who) + ": negative n or batch");
  if (n > kBatchedFactorMaxN) {
    throw ConfigError(std::string(who) + ": n = " + std::to_string(n) + " > " +
                      std::to_string(kBatchedFactorMaxN));
  }
  if (ld < std::max<index_t>(1, n)) {
    throw ConfigError(std::string(who) + ": leading dimension " + std::to_string(ld) +
                      " < max(1, n = " + std::to_string(n) + ")");
  }
}

int round_up_warp(int rows) {
  return (rows + 31) / 32 * 32;
}

template <typename T>
std::size_t shared_matrix_bytes(int n) {
  return static_cast<std::size_t>(n | 1) * n * sizeof(T);
}

template <typename T>
void launch_getrf_shared(index_t n, DeviceMatrixBatch<T> a, index_t* ipiv, index_t* info,
                         index_t batch, cudaStream_t stream) {
  const std::size_t bytes = shared_matrix_bytes<T>(n);
  DynamicShared::reserve(kernel_id(getrf_shared_kernel<T>), bytes, "getrf_batched (shared path)");
  getrf_shared_kernel<T>
      <<<batch, kPanelThreads, bytes, stream>>>(nullptr, n, a, nullptr, ipiv, n, info);
  PRISM_CUDA_CHECK_LAUNCH();
}

// Blocks of `kernel` (`threads` each, no dynamic shared memory) the current device keeps
// resident at once; cached per kernel and device.
int resident_blocks(const void* kernel, int threads) {
  static std::mutex mutex;
  static std::map<std::pair<const void*, int>, int> cache;
  int device = 0;
  PRISM_CUDA_CHECK(cudaGetDevice(&device));
  std::lock_guard<std::mutex> lock(mutex);
  const auto key = std::make_pair(kernel, device);
  auto it = cache.find(key);
  if (it == cache.end()) {
    int sms = 0, per_sm = 0;
    PRISM_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    PRISM_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, 0));
    it = cache.emplace(key, std::max(1, sms * per_sm)).first;
  }
  return it->second;
}

// n <= 32: getrf_warp_kernel with the smallest segment that holds a row; for 8 < n <= 16
// with GetrfOptions::prefetch_next, its prefetching form on a resident grid.
// getrf_warp_kernel on the (n - j0) x (n - j0) block at (j0, j0): the whole matrix for n <= 32
// (j0 = 0), or the last panel of the blocked path. The resident prefetching kernel (prefetch:
// GetrfOptions::prefetch_next) only takes whole matrices.
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

template <typename T>
void launch_potrf_warp(index_t n, DeviceMatrixBatch<T> a, index_t* info, index_t batch,
                       cudaStream_t stream) {
  auto launch = [&](auto kernel, int lanes) {
    const std::int64_t per_block = kRegistersBlock / lanes;
    const std::int64_t blocks = (batch + per_block - 1) / per_block;
    kernel<<<static_cast<unsigned>(blocks), kRegistersBlock, 0, stream>>>(n, a, info, batch);
    PRISM_CUDA_CHECK_LAUNCH();
  };
  if (n <= 8) {
    launch(potrf_warp_kernel<T, 8, 8>, 8);
  } else if (n <= 16) {
    launch(potrf_warp_kernel<T, 16, 16>, 16);
  } else if (n <= 24) {
    launch(potrf_warp_kernel<T, 32, 24>, 32);
  } else {
    launch(potrf_warp_kernel<T, 32, 32>, 32);
  }
}

// potrf_rows_kernel: the whole matrix for 32 < n <= 64 (j0 = 0, jb = n), or a blocked-path
// panel (jb <= 32).
template <typename T>
void launch_potrf_rows(index_t n, int j0, int jb, DeviceMatrixBatch<T> a, index_t* info,
                       index_t batch, cudaStream_t stream) {
  const int threads = round_up_warp(n - j0);
  if (jb <= kNb) {
    potrf_rows_kernel<T, kNb, kBatchedFactorMaxN>
        <<<batch, threads, 0, stream>>>(n, j0, jb, a, info);
  } else if (jb <= 40) {
    potrf_rows_kernel<T, 40, 64><<<batch, threads, 0, stream>>>(n, j0, jb, a, info);
  } else if (jb <= 48) {
    potrf_rows_kernel<T, 48, 64><<<batch, threads, 0, stream>>>(n, j0, jb, a, info);
  } else {
    potrf_rows_kernel<T, 64, 64><<<batch, threads, 0, stream>>>(n, j0, jb, a, info);
  }
  PRISM_CUDA_CHECK_LAUNCH();
}

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
  DynamicShared::reserve(kernel_id(swap_rows_kernel<T>), bytes, "getrf_batched (row swap)");
  swap_rows_kernel<T>
      <<<batch, kPanelThreads, bytes, stream>>>(n, j, count, c0, c1, c2, c3, a, ipiv, parallel);
  PRISM_CUDA_CHECK_LAUNCH();
}

// Whether `width` columns rounded up to 64 are at most a fifth more than rounded up to 32
// (96 columns: no; see launch_update).
bool little_padding(int width) {
  const int w32 = (width + kTile - 1) / kTile * kTile;
  const int w64 = (width + kGemmTile - 1) / kGemmTile * kGemmTile;
  return 5 * w64 <= 6 * w32;
}

template <typename T>
void launch_row_block(int j, int kb, int c0, int c1, DeviceMatrixBatch<T> a, const T* inverse,
                      index_t batch, bool wide64, cudaStream_t stream) {
  if (c1 <= c0) return;
  const int tiles = (c1 - c0 + kGemmTile - 1) / kGemmTile;
  const std::int64_t blocks64 = static_cast<std::int64_t>(batch) * tiles;
  if (wide64 && inverse != nullptr && kb > kTile && kb <= kGemmTile && little_padding(c1 - c0) &&
      blocks64 <= INT_MAX) {
    const std::size_t bytes = update64_smem_bytes<T>();
    DynamicShared::reserve(kernel_id(row_block64_kernel<T>), bytes, "getrf_batched (row block)");
    row_block64_kernel<T><<<static_cast<unsigned>(blocks64), kGemmThreads, bytes, stream>>>(
        j, kb, c0, c1, tiles, a, inverse);
    PRISM_CUDA_CHECK_LAUNCH();
    return;
  }
  const dim3 grid(batch, (c1 - c0 + kRowBlockCols - 1) / kRowBlockCols);
  const std::size_t bytes = static_cast<std::size_t>(kb) * kRowBlockCols * sizeof(T);
  DynamicShared::reserve(kernel_id(row_block_kernel<T>), bytes, "getrf_batched (row block)");
  row_block_kernel<T>
      <<<grid, kPanelThreads, bytes, stream>>>(j, kb, c0, c1, a, inverse, inverse != nullptr);
  PRISM_CUDA_CHECK_LAUNCH();
}

// C -= L U on rows [r0, r1), columns [c0, c1) with rank kb (see trailing_update_kernel):
// 64 x 64 tiles (update64_kernel) when wide64, the region is wider than 32 columns and
// rounding its width up to 64 adds at most a fifth to rounding it up to 32, else 32 x 32
// tiles. Measured on the H200 (double): with every update on 64 x 64 tiles they lost where
// most updates are 96 wide (getrf n = 128: 6723 us against 6315 on 32 x 32 tiles; potrf
// n = 160: 1110 against 1052); with this rule they win or tie at every n of the benchmark (final
// build: getrf n = 128, 5275 against 5436; potrf n = 512, 4761 against 7575).
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
    DynamicShared::reserve(kernel_id(update64_kernel<T, kSyrk>), bytes, "trailing update");
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

// Panels per trailing update on the blocked path: 1, 2 or 4 (GetrfOptions::update_depth).
int update_depth(index_t n, const GetrfOptions& opt) {
  const int depth = opt.update_depth > 0 ? opt.update_depth : (n >= kGetrfDepth2MinN ? 2 : 1);
  return depth >= 4 ? 4 : (depth >= 2 ? 2 : 1);
}

template <typename T>
void getrf_blocked(index_t n, DeviceMatrixBatch<T> a, index_t* ipiv, index_t* info, index_t batch,
                   void* workspace, std::size_t workspace_bytes, cudaStream_t stream,
                   const GetrfOptions& opt) {
  const int big = kNb * update_depth(n, opt);
  T* inverse = nullptr;
  if (opt.trtri_rowblock) {
    const std::size_t need = static_cast<std::size_t>(batch) * big * big * sizeof(T);
    if (workspace == nullptr || workspace_bytes < need) {
      throw ConfigError("getrf_batched: trtri_rowblock needs " + std::to_string(need) +
                        " bytes of workspace (getrf_workspace_bytes)");
    }
    inverse = static_cast<T*>(workspace);
  }
  const std::size_t panel_capacity = DynamicShared::capacity(kernel_id(getrf_panel_kernel<T>));
  PRISM_CUDA_CHECK(
      cudaMemsetAsync(info, 0, static_cast<std::size_t>(batch) * sizeof(index_t), stream));

  auto panel = [&](int j, int jb) {
    if (opt.warp_last_panel && j + jb == n) {
      launch_getrf_warp<T>(n, j, a, ipiv, info, batch, stream, false);
      return;
    }
    if (opt.register_panel) {
      launch_getrf_rows<T>(n, j, jb, a, ipiv, info, batch, stream);
      return;
    }
    const std::size_t bytes = static_cast<std::size_t>(n - j) * jb * sizeof(T);
    const bool in_shared = opt.recursive_panel && bytes <= panel_capacity;
    const std::size_t dyn = in_shared ? bytes : 0;
    DynamicShared::reserve(kernel_id(getrf_panel_kernel<T>), dyn, "getrf_batched (panel)");
    getrf_panel_kernel<T>
        <<<batch, kPanelThreads, dyn, stream>>>(n, j, jb, a, ipiv, info, in_shared);
    PRISM_CUDA_CHECK_LAUNCH();
  };
  auto row_block = [&](int j, int kb, int c0, int c1) {
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
    launch_row_block<T>(j, kb, c0, c1, a, inverse, batch, opt.tile64_update, stream);
  };

  for (int J = 0; J < n; J += big) {
    const int KB = std::min(big, n - J);
    for (int j = J; j < J + KB; j += kNb) {
      const int jb = std::min(kNb, J + KB - j);
      panel(j, jb);
      launch_swap<T>(n, j, jb, J, j, j + jb, J + KB, a, ipiv, batch, opt.parallel_swap, stream);
      row_block(j, jb, j + jb, J + KB);
      launch_update<T, false>(j + jb, n, j + jb, J + KB, j, jb, a, nullptr, batch,
                              opt.tile64_update, stream);
    }
    launch_swap<T>(n, J, KB, 0, J, J + KB, n, a, ipiv, batch, opt.parallel_swap, stream);
    row_block(J, KB, J + KB, n);
    launch_update<T, false>(J + KB, n, J + KB, n, J, KB, a, nullptr, batch, opt.tile64_update,
                            stream);
  }
}

// Which getrf path runs for n under `opt` (see GetrfOptions).
enum class GetrfPath { warp, rows, shared, blocked };

GetrfPath getrf_path(index_t n, const GetrfOptions& opt) {
  if (n <= std::min(opt.register_max_n, 32)) return GetrfPath::warp;
  if (n <= std::min(opt.register_max_n, 64)) return GetrfPath::rows;
  if (n <= std::min<int>(opt.shared_max_n, kBatchedFactorVarMaxN)) return GetrfPath::shared;
  return GetrfPath::blocked;
}

template <typename T>
void getrf_impl(index_t n, DeviceMatrixBatch<T> a, index_t* ipiv, index_t* info, index_t batch,
                void* workspace, std::size_t workspace_bytes, cudaStream_t stream,
                const GetrfOptions& opt) {
  check_uniform("getrf_batched", n, a.ld, batch);
  if (batch == 0) return;
  if (n == 0) {
    PRISM_CUDA_CHECK(
        cudaMemsetAsync(info, 0, static_cast<std::size_t>(batch) * sizeof(index_t), stream));
    return;
  }
  switch (getrf_path(n, opt)) {
    case GetrfPath::warp:
      launch_getrf_warp<T>(n, 0, a, ipiv, info, batch, stream, opt.prefetch_next);
      break;
    case GetrfPath::rows:
      launch_getrf_rows<T>(n, 0, n, a, ipiv, info, batch, stream);
      break;
    case GetrfPath::shared:
      launch_getrf_shared<T>(n, a, ipiv, info, batch, stream);
      break;
    case GetrfPath::blocked:
      getrf_blocked<T>(n, a, ipiv, info, batch, workspace, workspace_bytes, stream, opt);
      break;
  }
}

template <typename T>
void getrf_var_impl(const index_t* n, index_t max_n, T* const* a, const index_t* lda, index_t* ipiv,
                    index_t ipiv_stride, index_t* info, index_t batch, cudaStream_t stream) {
  if (batch < 0 || max_n < 0) throw ConfigError("getrf_vbatched: negative batch or max_n");
  if (max_n > kBatchedFactorVarMaxN) {
    throw ConfigError("getrf_vbatched: max_n = " + std::to_string(max_n) + " > " +
                      std::to_string(kBatchedFactorVarMaxN));
  }
  if (ipiv_stride < max_n) throw ConfigError("getrf_vbatched: ipiv_stride < max_n");
  if (batch == 0) return;
  const std::size_t bytes = shared_matrix_bytes<T>(std::max<index_t>(max_n, 1));
  DynamicShared::reserve(kernel_id(getrf_shared_kernel<T>), bytes, "getrf_vbatched");
  getrf_shared_kernel<T><<<batch, kPanelThreads, bytes, stream>>>(
      n, static_cast<int>(max_n), DeviceMatrixBatch<T>::pointer_array(a, 1), lda, ipiv, ipiv_stride,
      info);
  PRISM_CUDA_CHECK_LAUNCH();
}

template <typename T>
void potrf_impl(index_t n, DeviceMatrixBatch<T> a, index_t* info, index_t batch,
                cudaStream_t stream, const PotrfOptions& opt) {
  check_uniform("potrf_batched", n, a.ld, batch);
  if (batch == 0) return;
  if (n == 0) {
    PRISM_CUDA_CHECK(
        cudaMemsetAsync(info, 0, static_cast<std::size_t>(batch) * sizeof(index_t), stream));
    return;
  }
  if (n <= std::min(opt.register_max_n, 32)) {
    launch_potrf_warp<T>(n, a, info, batch, stream);
    return;
  }
  if (n <= std::min(opt.register_max_n, 64)) {
    launch_potrf_rows<T>(n, 0, n, a, info, batch, stream);
    return;
  }
  const std::size_t panel_capacity = DynamicShared::capacity(kernel_id(potrf_panel_kernel<T>));
  // The first panel (j = 0) sets every info; later ones skip the matrices that failed.
  auto shared_panel = [&](int j, int jb) {
    const std::size_t bytes = static_cast<std::size_t>((n - j) | 1) * jb * sizeof(T);
    const bool in_shared = bytes <= panel_capacity;
    const std::size_t dyn = in_shared ? bytes : 0;
    DynamicShared::reserve(kernel_id(potrf_panel_kernel<T>), dyn, "potrf_batched (panel)");
    potrf_panel_kernel<T><<<batch, kPanelThreads, dyn, stream>>>(n, j, jb, a, info, in_shared);
    PRISM_CUDA_CHECK_LAUNCH();
  };
  if (n <= std::min<int>(opt.shared_max_n, kBatchedFactorVarMaxN)) {
    shared_panel(0, n);
    return;
  }
  auto panel = [&](int j, int jb) {
    if (opt.register_panel) {
      launch_potrf_rows<T>(n, j, jb, a, info, batch, stream);
    } else {
      shared_panel(j, jb);
    }
  };
  // Columns [J, J + KB) per trailing update: each panel but the last updates only the
  // big panel's remaining columns (rows below them), then one syrk of rank KB.
  const int depth = opt.update_depth > 0 ? opt.update_depth : (n >= kPotrfDepth2MinN ? 2 : 1);
  const int big = kNb * (depth >= 4 ? 4 : (depth >= 2 ? 2 : 1));
  for (int J = 0; J < n; J += big) {
    const int KB = std::min(big, n - J);
    for (int j = J; j < J + KB; j += kNb) {
      const int jb = std::min(kNb, J + KB - j);
      panel(j, jb);
      launch_update<T, true>(j + jb, n, j + jb, J + KB, j, jb, a, info, batch, opt.tile64_update,
                             stream);
    }
    launch_update<T, true>(J + KB, n, J + KB, n, J, KB, a, info, batch, opt.tile64_update, stream);
  }
}

template <typename T, bool kCholesky>
void solve_impl(const char* who, index_t n, index_t nrhs, DeviceMatrixBatch<const T> a,
                const index_t* ipiv, DeviceMatrixBatch<T> b, index_t batch, cudaStream_t stream) {
  check_uniform(who, n, a.ld, batch);
  check_uniform(who, n, b.ld, batch);
  if (nrhs < 0) throw ConfigError(std::string(who) + ": negative nrhs");
  if (batch == 0 || n == 0 || nrhs == 0) return;
  const std::size_t bytes =
      ((n * sizeof(int) + 15) / 16) * 16 + static_cast<std::size_t>(n) * kSolveCols * sizeof(T);
  DynamicShared::reserve(kernel_id(solve_kernel<T, kCholesky>), bytes, who);
  solve_kernel<T, kCholesky><<<batch, kPanelThreads, bytes, stream>>>(n, nrhs, a, ipiv, b);
  PRISM_CUDA_CHECK_LAUNCH();
}

}  // namespace

std::size_t getrf_workspace_bytes(index_t n, index_t batch, std::size_t elem_size,
                                  const GetrfOptions& options) {
  if (getrf_path(n, options) != GetrfPath::blocked || !options.trtri_rowblock || batch <= 0) {
    return 0;
  }
  const std::size_t big = static_cast<std::size_t>(kNb) * update_depth(n, options);
  return static_cast<std::size_t>(batch) * big * big * elem_size;
}

void getrf_batched(index_t n, DeviceMatrixBatch<double> a, index_t* ipiv, index_t* info,
                   index_t batch, void* workspace, std::size_t workspace_bytes, cudaStream_t stream,
                   const GetrfOptions& options) {
  getrf_impl(n, a, ipiv, info, batch, workspace, workspace_bytes, stream, options);
}
void getrf_batched(index_t n, DeviceMatrixBatch<float> a, index_t* ipiv, index_t* info,
                   index_t batch, void* workspace, std::size_t workspace_bytes, cudaStream_t stream,
                   const GetrfOptions& options) {
  getrf_impl(n, a, ipiv, info, batch, workspace, workspace_bytes, stream, options);
}

void getrf_vbatched(const index_t* n, index_t max_n, double* const* a, const index_t* lda,
                    index_t* ipiv, index_t ipiv_stride, index_t* info, index_t batch,
                    cudaStream_t stream) {
  getrf_var_impl(n, max_n, a, lda, ipiv, ipiv_stride, info, batch, stream);
}
void getrf_vbatched(const index_t* n, index_t max_n, float* const* a, const index_t* lda,
                    index_t* ipiv, index_t ipiv_stride, index_t* info, index_t batch,
                    cudaStream_t stream) {
  getrf_var_impl(n, max_n, a, lda, ipiv, ipiv_stride, info, batch, stream);
}

void getrs_batched(index_t n, index_t nrhs, DeviceMatrixBatch<const double> a, const index_t* ipiv,
                   DeviceMatrixBatch<double> b, index_t batch, cudaStream_t stream) {
  solve_impl<double, false>("getrs_batched", n, nrhs, a, ipiv, b, batch, stream);
}
void getrs_batched(index_t n, index_t nrhs, DeviceMatrixBatch<const float> a, const index_t* ipiv,
                   DeviceMatrixBatch<float> b, index_t batch, cudaStream_t stream) {
  solve_impl<float, false>("getrs_batched", n, nrhs, a, ipiv, b, batch, stream);
}

void potrf_batched(index_t n, DeviceMatrixBatch<double> a, index_t* info, index_t batch,
                   cudaStream_t stream, const PotrfOptions& options) {
  potrf_impl(n, a, info, batch, stream, options);
}
void potrf_batched(index_t n, DeviceMatrixBatch<float> a, index_t* info, index_t batch,
                   cudaStream_t stream, const PotrfOptions& options) {
  potrf_impl(n, a, info, batch, stream, options);
}

void potrs_batched(index_t n, index_t nrhs, DeviceMatrixBatch<const double> a,
                   DeviceMatrixBatch<double> b, index_t batch, cudaStream_t stream) {
  solve_impl<double, true>("potrs_batched", n, nrhs, a, nullptr, b, batch, stream);
}
void potrs_batched(index_t n, index_t nrhs, DeviceMatrixBatch<const float> a,
                   DeviceMatrixBatch<float> b, index_t batch, cudaStream_t stream) {
  solve_impl<float, true>("potrs_batched", n, nrhs, a, nullptr, b, batch, stream);
}

}  // namespace prism::kernels::cuda
