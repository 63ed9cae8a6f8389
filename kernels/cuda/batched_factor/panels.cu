// The per-matrix kernels that factor in shared or global memory, one thread block per
// matrix: getrf's blocked-path panel (recursive in shared memory, or column by column), the
// whole matrix in shared memory (n <= 128, uniform or variable sizes), and potrf's panel.

#include "kernels/cuda/batched_factor/common.cuh"
#include "kernels/cuda/batched_factor/launch.hpp"

#include "kernels/cuda/check.hpp"
#include "kernels/cuda/launch_config.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cstdint>

namespace prism::kernels::cuda::batched_factor {
namespace {

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

template <typename T>
std::size_t shared_matrix_bytes(int n) {
  return static_cast<std::size_t>(n | 1) * n * sizeof(T);
}

}  // namespace

template <typename T>
void launch_getrf_shared(index_t n, DeviceMatrixBatch<T> a, index_t* ipiv, index_t* info,
                         index_t batch, cudaStream_t stream) {
  const std::size_t bytes = shared_matrix_bytes<T>(n);
  reserve_dynamic_shared(kernel_id(getrf_shared_kernel<T>), bytes, "getrf_batched (shared path)");
  getrf_shared_kernel<T>
      <<<batch, kPanelThreads, bytes, stream>>>(nullptr, n, a, nullptr, ipiv, n, info);
  PRISM_CUDA_CHECK_LAUNCH();
}

template <typename T>
void launch_getrf_vbatched(const index_t* n, index_t max_n, T* const* a, const index_t* lda,
                           index_t* ipiv, index_t ipiv_stride, index_t* info, index_t batch,
                           cudaStream_t stream) {
  const std::size_t bytes = shared_matrix_bytes<T>(std::max<index_t>(max_n, 1));
  reserve_dynamic_shared(kernel_id(getrf_shared_kernel<T>), bytes, "getrf_vbatched");
  getrf_shared_kernel<T><<<batch, kPanelThreads, bytes, stream>>>(
      n, static_cast<int>(max_n), DeviceMatrixBatch<T>::pointer_array(a, 1), lda, ipiv, ipiv_stride,
      info);
  PRISM_CUDA_CHECK_LAUNCH();
}

template <typename T>
void launch_getrf_panel(index_t n, int j, int jb, DeviceMatrixBatch<T> a, index_t* ipiv,
                        index_t* info, index_t batch, bool recursive, cudaStream_t stream) {
  const std::size_t capacity = dynamic_shared_capacity(kernel_id(getrf_panel_kernel<T>));
  const std::size_t bytes = static_cast<std::size_t>(n - j) * jb * sizeof(T);
  const bool in_shared = recursive && bytes <= capacity;
  const std::size_t dyn = in_shared ? bytes : 0;
  reserve_dynamic_shared(kernel_id(getrf_panel_kernel<T>), dyn, "getrf_batched (panel)");
  getrf_panel_kernel<T><<<batch, kPanelThreads, dyn, stream>>>(n, j, jb, a, ipiv, info, in_shared);
  PRISM_CUDA_CHECK_LAUNCH();
}

template <typename T>
void launch_potrf_panel(index_t n, int j, int jb, DeviceMatrixBatch<T> a, index_t* info,
                        index_t batch, cudaStream_t stream) {
  const std::size_t capacity = dynamic_shared_capacity(kernel_id(potrf_panel_kernel<T>));
  const std::size_t bytes = static_cast<std::size_t>((n - j) | 1) * jb * sizeof(T);
  const bool in_shared = bytes <= capacity;
  const std::size_t dyn = in_shared ? bytes : 0;
  reserve_dynamic_shared(kernel_id(potrf_panel_kernel<T>), dyn, "potrf_batched (panel)");
  potrf_panel_kernel<T><<<batch, kPanelThreads, dyn, stream>>>(n, j, jb, a, info, in_shared);
  PRISM_CUDA_CHECK_LAUNCH();
}

template void launch_getrf_shared<float>(index_t, DeviceMatrixBatch<float>, index_t*, index_t*,
                                         index_t, cudaStream_t);
template void launch_getrf_shared<double>(index_t, DeviceMatrixBatch<double>, index_t*, index_t*,
                                          index_t, cudaStream_t);
template void launch_getrf_vbatched<float>(const index_t*, index_t, float* const*, const index_t*,
                                           index_t*, index_t, index_t*, index_t, cudaStream_t);
template void launch_getrf_vbatched<double>(const index_t*, index_t, double* const*, const index_t*,
                                            index_t*, index_t, index_t*, index_t, cudaStream_t);
template void launch_getrf_panel<float>(index_t, int, int, DeviceMatrixBatch<float>, index_t*,
                                        index_t*, index_t, bool, cudaStream_t);
template void launch_getrf_panel<double>(index_t, int, int, DeviceMatrixBatch<double>, index_t*,
                                         index_t*, index_t, bool, cudaStream_t);
template void launch_potrf_panel<float>(index_t, int, int, DeviceMatrixBatch<float>, index_t*,
                                        index_t, cudaStream_t);
template void launch_potrf_panel<double>(index_t, int, int, DeviceMatrixBatch<double>, index_t*,
                                         index_t, cudaStream_t);

}  // namespace prism::kernels::cuda::batched_factor
