// getrs and potrs: the solves with the factors of getrf_batched and potrf_batched.

#include "kernels/cuda/batched_factor/common.cuh"
#include "kernels/cuda/batched_factor/launch.hpp"

#include "kernels/cuda/check.hpp"
#include "kernels/cuda/launch_config.hpp"

#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include <prism/errors.hpp>

namespace prism::kernels::cuda {
namespace batched_factor {
namespace {

constexpr int kSolveCols = 8;  // right-hand sides per pass of getrs / potrs

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

template <typename T, bool kCholesky>
void solve_impl(const char* who, index_t n, index_t nrhs, DeviceMatrixBatch<const T> a,
                const index_t* ipiv, DeviceMatrixBatch<T> b, index_t batch, cudaStream_t stream) {
  check_uniform(who, n, a.ld, batch);
  check_uniform(who, n, b.ld, batch);
  if (nrhs < 0) throw ConfigError(std::string(who) + ": negative nrhs");
  if (batch == 0 || n == 0 || nrhs == 0) return;
  const std::size_t bytes =
      ((n * sizeof(int) + 15) / 16) * 16 + static_cast<std::size_t>(n) * kSolveCols * sizeof(T);
  reserve_dynamic_shared(kernel_id(solve_kernel<T, kCholesky>), bytes, who);
  solve_kernel<T, kCholesky><<<batch, kPanelThreads, bytes, stream>>>(n, nrhs, a, ipiv, b);
  PRISM_CUDA_CHECK_LAUNCH();
}

}  // namespace
}  // namespace batched_factor

// The entry points below hand their work to the implementation above.
using batched_factor::solve_impl;

void getrs_batched(index_t n, index_t nrhs, DeviceMatrixBatch<const double> a, const index_t* ipiv,
                   DeviceMatrixBatch<double> b, index_t batch, cudaStream_t stream) {
  solve_impl<double, false>("getrs_batched", n, nrhs, a, ipiv, b, batch, stream);
}
void getrs_batched(index_t n, index_t nrhs, DeviceMatrixBatch<const float> a, const index_t* ipiv,
                   DeviceMatrixBatch<float> b, index_t batch, cudaStream_t stream) {
  solve_impl<float, false>("getrs_batched", n, nrhs, a, ipiv, b, batch, stream);
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
