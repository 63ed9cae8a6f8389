// potrf with every row in registers (kernels/cuda/batched_factor/registers.cuh): one warp
// segment per matrix for n <= 32, one thread per row for the panels of the blocked path
// and for n <= 64.

#include "kernels/cuda/batched_factor/common.cuh"
#include "kernels/cuda/batched_factor/launch.hpp"
#include "kernels/cuda/batched_factor/registers.cuh"

#include "kernels/cuda/check.hpp"

#include <cuda_runtime.h>

#include <cstdint>

namespace prism::kernels::cuda::batched_factor {
namespace {

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
    // the tests' 4 n eps backward-error bound); double keeps 1 ulp without it, and the step
    // would cost registers (128 instead of 94 in the 512-row panel kernel) and time.
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
// 24-column kernel takes 89 registers unasked and the 16-column one 65, so with registers
// going to a warp 256 at a time 5 and 7 blocks fit; 80 and 64 registers (no spills) give 6
// and 8, and the extra resident warps pay.
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
// would gain little: the syrk, not the panel, dominates large n.)
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
        // for one warp-uniform branch per column.
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

}  // namespace

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

template void launch_potrf_warp<float>(index_t, DeviceMatrixBatch<float>, index_t*, index_t,
                                       cudaStream_t);
template void launch_potrf_warp<double>(index_t, DeviceMatrixBatch<double>, index_t*, index_t,
                                        cudaStream_t);
template void launch_potrf_rows<float>(index_t, int, int, DeviceMatrixBatch<float>, index_t*,
                                       index_t, cudaStream_t);
template void launch_potrf_rows<double>(index_t, int, int, DeviceMatrixBatch<double>, index_t*,
                                        index_t, cudaStream_t);

}  // namespace prism::kernels::cuda::batched_factor
