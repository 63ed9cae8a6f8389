#include "kernels/cuda/matrix_values.hpp"

#include "kernels/cuda/blas1.hpp"
#include "kernels/cuda/check.hpp"
#include "kernels/matrix_values.hpp"

#include <math_constants.h>

#include <algorithm>

namespace prism::kernels::cuda {
namespace {

constexpr int kThreads = 256;

int blocks_for(long long n) {
  return static_cast<int>((n + kThreads - 1) / kThreads);
}

__device__ __forceinline__ double warp_max(double v) {
  for (int offset = 16; offset > 0; offset /= 2) v = fmax(v, __shfl_down_sync(0xffffffffu, v, offset));
  return v;
}

/// Per-block max |v| over a grid-stride range; a non-finite value counts as +inf and
/// also min-reduces its index into *first_bad.
__global__ void max_abs_partials(index_t n, const double* __restrict__ values,
                                 double* __restrict__ partials, int* first_bad) {
  __shared__ double warp_results[kThreads / 32];
  double m = 0.0;
  for (index_t k = static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x; k < n;
       k += static_cast<index_t>(gridDim.x) * kThreads) {
    const double v = values[k];
    if (!isfinite(v)) {
      atomicMin(first_bad, static_cast<int>(k));
      m = CUDART_INF;
    } else {
      m = fmax(m, fabs(v));
    }
  }
  m = warp_max(m);
  if (threadIdx.x % 32 == 0) warp_results[threadIdx.x / 32] = m;
  __syncthreads();
  if (threadIdx.x < 32) {
    m = threadIdx.x < kThreads / 32 ? warp_results[threadIdx.x] : 0.0;
    m = warp_max(m);
    if (threadIdx.x == 0) partials[blockIdx.x] = m;
  }
}

/// scratch[0] = tolerance = kSymmetryTolerance * max(partials)
__global__ void tolerance_from_partials(const double* __restrict__ partials, int count,
                                        double* scratch) {
  __shared__ double warp_results[kThreads / 32];
  double m = 0.0;
  for (int i = threadIdx.x; i < count; i += kThreads) m = fmax(m, partials[i]);
  m = warp_max(m);
  if (threadIdx.x % 32 == 0) warp_results[threadIdx.x / 32] = m;
  __syncthreads();
  if (threadIdx.x < 32) {
    m = threadIdx.x < kThreads / 32 ? warp_results[threadIdx.x] : 0.0;
    m = warp_max(m);
    if (threadIdx.x == 0) scratch[0] = kSymmetryTolerance * m;
  }
}

__global__ void symmetry_check(index_t n, const double* __restrict__ values,
                               const index_t* __restrict__ mirror,
                               const double* __restrict__ scratch, int* first_bad) {
  if (*first_bad != kNoBadEntry) return;  // a non-finite value was found: it is the verdict
  const double tolerance = scratch[0];
  for (index_t k = static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x; k < n;
       k += static_cast<index_t>(gridDim.x) * kThreads) {
    const index_t m = mirror[k];
    const double v = values[k];
    const bool bad = m == k ? !(v > 0.0) : fabs(v - values[m]) > tolerance;
    if (bad) atomicMin(first_bad, static_cast<int>(k));
  }
}

__global__ void invert_positive_kernel(index_t n, double* __restrict__ x, int* first_bad) {
  const index_t i = static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (i >= n) return;
  const double v = x[i];
  if (!(v > 0.0) || !isfinite(v)) {
    atomicMin(first_bad, static_cast<int>(i));
    return;
  }
  x[i] = 1.0 / v;
}

}  // namespace

void first_bad_value(index_t n, const double* values, const index_t* mirror, double* partials,
                     double* scratch, int* first_bad, cudaStream_t stream) {
  PRISM_CUDA_CHECK(cudaMemsetAsync(first_bad, 0x7f, sizeof(int), stream));
  if (n == 0) return;
  const int blocks = std::min(blocks_for(n), kReductionBlocks);
  max_abs_partials<<<blocks, kThreads, 0, stream>>>(n, values, partials, first_bad);
  PRISM_CUDA_CHECK_LAUNCH();
  tolerance_from_partials<<<1, kThreads, 0, stream>>>(partials, blocks, scratch);
  PRISM_CUDA_CHECK_LAUNCH();
  symmetry_check<<<blocks, kThreads, 0, stream>>>(n, values, mirror, scratch, first_bad);
  PRISM_CUDA_CHECK_LAUNCH();
}

void invert_positive(index_t n, double* x, int* first_bad, cudaStream_t stream) {
  PRISM_CUDA_CHECK(cudaMemsetAsync(first_bad, 0x7f, sizeof(int), stream));
  if (n == 0) return;
  invert_positive_kernel<<<blocks_for(n), kThreads, 0, stream>>>(n, x, first_bad);
  PRISM_CUDA_CHECK_LAUNCH();
}

}  // namespace prism::kernels::cuda
