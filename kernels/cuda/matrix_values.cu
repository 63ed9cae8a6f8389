#include "kernels/cuda/matrix_values.hpp"

#include "kernels/cuda/blas1.hpp"
#include "kernels/cuda/block_reduce.cuh"
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

/// One pass over the values: a non-finite value min-reduces its index into *first_bad;
/// per block, max |v| into max_abs and max |v - v_mirror| into max_diff (+inf for a
/// diagonal entry that is not positive: it needs the exact pass too).
__global__ void check_partials(index_t n, const double* __restrict__ values,
                               const index_t* __restrict__ mirror, double* __restrict__ max_abs,
                               double* __restrict__ max_diff, int* first_bad) {
  double a = 0.0, d = 0.0;
  for (index_t k = static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x; k < n;
       k += static_cast<index_t>(gridDim.x) * kThreads) {
    const double v = values[k];
    if (!isfinite(v)) {
      atomicMin(first_bad, static_cast<int>(k));
      continue;
    }
    a = fmax(a, fabs(v));
    const index_t m = mirror[k];
    d = fmax(d, m == k ? (v > 0.0 ? 0.0 : CUDART_INF) : fabs(v - values[m]));
  }
  a = block_max<kThreads>(a);
  if (threadIdx.x == 0) max_abs[blockIdx.x] = a;
  __syncthreads();  // block_max's shared slots are reused
  d = block_max<kThreads>(d);
  if (threadIdx.x == 0) max_diff[blockIdx.x] = d;
}

/// scratch[0] = tolerance = relative * max|v|; scratch[1] = 1 when some entry
/// may break the rule (max difference above the tolerance, or a bad diagonal), else 0.
__global__ void check_verdict(const double* __restrict__ max_abs,
                              const double* __restrict__ max_diff, int count, double relative,
                              double* scratch) {
  double a = 0.0, d = 0.0;
  for (int i = threadIdx.x; i < count; i += kThreads) {
    a = fmax(a, max_abs[i]);
    d = fmax(d, max_diff[i]);
  }
  a = block_max<kThreads>(a);
  __syncthreads();
  d = block_max<kThreads>(d);
  if (threadIdx.x == 0) {
    const double tolerance = relative * a;
    scratch[0] = tolerance;
    scratch[1] = d > tolerance ? 1.0 : 0.0;
  }
}

/// The exact rule, only when check_verdict found a suspect and no value is non-finite
/// (that one is the verdict): the smallest offending index.
__global__ void symmetry_check(index_t n, const double* __restrict__ values,
                               const index_t* __restrict__ mirror,
                               const double* __restrict__ scratch, int* first_bad) {
  if (*first_bad != kNoBadEntry || scratch[1] == 0.0) return;
  const double tolerance = scratch[0];
  for (index_t k = static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x; k < n;
       k += static_cast<index_t>(gridDim.x) * kThreads) {
    const index_t m = mirror[k];
    const double v = values[k];
    const bool bad = m == k ? !(v > 0.0) : fabs(v - values[m]) > tolerance;
    if (bad) atomicMin(first_bad, static_cast<int>(k));
  }
}

/// Per block, the largest finite |x_i|; then block 0 of a second launch takes the max.
__global__ void magnitude_partials(index_t n, const double* __restrict__ x,
                                   double* __restrict__ partials) {
  double a = 0.0;
  for (index_t i = static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x; i < n;
       i += static_cast<index_t>(gridDim.x) * kThreads) {
    const double v = x[i];
    if (isfinite(v)) a = fmax(a, fabs(v));
  }
  a = block_max<kThreads>(a);
  if (threadIdx.x == 0) partials[blockIdx.x] = a;
}

__global__ void max_partials(const double* __restrict__ partials, int count, double* largest) {
  double a = 0.0;
  for (int i = threadIdx.x; i < count; i += kThreads) a = fmax(a, partials[i]);
  a = block_max<kThreads>(a);
  if (threadIdx.x == 0) *largest = a;
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

void first_bad_value(index_t n, const double* values, const index_t* mirror, double tolerance,
                     double* partials, double* partials2, double* scratch, int* first_bad,
                     cudaStream_t stream) {
  PRISM_CUDA_CHECK(cudaMemsetAsync(first_bad, 0x7f, sizeof(int), stream));
  if (n == 0) return;
  const int blocks = std::min(blocks_for(n), kReductionBlocks);
  check_partials<<<blocks, kThreads, 0, stream>>>(n, values, mirror, partials, partials2,
                                                  first_bad);
  PRISM_CUDA_CHECK_LAUNCH();
  check_verdict<<<1, kThreads, 0, stream>>>(partials, partials2, blocks, tolerance, scratch);
  PRISM_CUDA_CHECK_LAUNCH();
  symmetry_check<<<blocks, kThreads, 0, stream>>>(n, values, mirror, scratch, first_bad);
  PRISM_CUDA_CHECK_LAUNCH();
}

void largest_finite_magnitude(index_t n, const double* x, double* partials, double* largest,
                              cudaStream_t stream) {
  if (n == 0) {
    PRISM_CUDA_CHECK(cudaMemsetAsync(largest, 0, sizeof(double), stream));
    return;
  }
  const int blocks = std::min(blocks_for(n), kReductionBlocks);
  magnitude_partials<<<blocks, kThreads, 0, stream>>>(n, x, partials);
  PRISM_CUDA_CHECK_LAUNCH();
  max_partials<<<1, kThreads, 0, stream>>>(partials, blocks, largest);
  PRISM_CUDA_CHECK_LAUNCH();
}

void invert_positive(index_t n, double* x, int* first_bad, cudaStream_t stream) {
  PRISM_CUDA_CHECK(cudaMemsetAsync(first_bad, 0x7f, sizeof(int), stream));
  if (n == 0) return;
  invert_positive_kernel<<<blocks_for(n), kThreads, 0, stream>>>(n, x, first_bad);
  PRISM_CUDA_CHECK_LAUNCH();
}

namespace {

template <typename T>
__global__ void gather_values_kernel(index_t n, const double* __restrict__ src,
                                     const index_t* __restrict__ map, T* __restrict__ dst) {
  const index_t k = static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (k < n) dst[k] = map[k] >= 0 ? static_cast<T>(src[map[k]]) : T(0);
}

template <typename T>
__global__ void gather_inverse_kernel(index_t n, const double* __restrict__ src,
                                      const index_t* __restrict__ map, T* __restrict__ dst) {
  const index_t i = static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (i < n) dst[i] = static_cast<T>(1.0 / src[map[i]]);
}

template <typename T>
__global__ void fill_kernel(index_t n, T value, T* __restrict__ dst) {
  const index_t i = static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (i < n) dst[i] = value;
}

}  // namespace

template <typename T>
void gather_values(index_t n, const double* src, const index_t* map, T* dst, cudaStream_t stream) {
  if (n == 0) return;
  gather_values_kernel<T><<<blocks_for(n), kThreads, 0, stream>>>(n, src, map, dst);
  PRISM_CUDA_CHECK(cudaGetLastError());
}

template <typename T>
void gather_inverse(index_t n, const double* src, const index_t* map, T* dst, cudaStream_t stream) {
  if (n == 0) return;
  gather_inverse_kernel<T><<<blocks_for(n), kThreads, 0, stream>>>(n, src, map, dst);
  PRISM_CUDA_CHECK(cudaGetLastError());
}

template <typename T>
void fill_values(index_t n, T value, T* dst, cudaStream_t stream) {
  if (n == 0) return;
  fill_kernel<T><<<blocks_for(n), kThreads, 0, stream>>>(n, value, dst);
  PRISM_CUDA_CHECK(cudaGetLastError());
}

template void gather_values<float>(index_t, const double*, const index_t*, float*, cudaStream_t);
template void gather_values<double>(index_t, const double*, const index_t*, double*, cudaStream_t);
template void gather_inverse<float>(index_t, const double*, const index_t*, float*, cudaStream_t);
template void gather_inverse<double>(index_t, const double*, const index_t*, double*, cudaStream_t);
template void fill_values<float>(index_t, float, float*, cudaStream_t);
template void fill_values<double>(index_t, double, double*, cudaStream_t);

}  // namespace prism::kernels::cuda
