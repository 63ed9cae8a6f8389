#include "kernels/cuda/blas1.hpp"

#include "kernels/cg_scalars.hpp"
#include "kernels/cuda/block_reduce.cuh"
#include "kernels/cuda/check.hpp"
#include "kernels/cuda/dependent_launch.cuh"

#include <algorithm>

namespace prism::kernels::cuda {
namespace {

constexpr int kThreads = 256;

int grid_for(index_t n) {
  const long long blocks = (static_cast<long long>(n) + kThreads - 1) / kThreads;
  return static_cast<int>(std::max<long long>(1, std::min<long long>(blocks, 65535LL * 16)));
}

__device__ bool is_positive(double v) {
  return v > 0.0 && isfinite(v);
}

/// Sum of `value` over the block (blockDim.x == kThreads); valid in thread 0.
__device__ __forceinline__ double block_sum(double value) {
  return cuda::block_sum<kThreads>(value);
}

__global__ void dot_partials_kernel(index_t n, const double* __restrict__ x,
                                    const double* __restrict__ y, double* __restrict__ partials) {
  wait_for_previous();
  allow_next();
  double sum = 0.0;
  for (index_t i = blockIdx.x * kThreads + threadIdx.x; i < n; i += gridDim.x * kThreads) {
    sum += x[i] * y[i];
  }
  sum = block_sum(sum);
  if (threadIdx.x == 0) partials[blockIdx.x] = sum;
}

/// One block sums the partials into scalars[out], in a fixed order.
__global__ void finish_sum(const double* __restrict__ partials, int count,
                           double* __restrict__ scalars, int out) {
  double sum = 0.0;
  for (int i = threadIdx.x; i < count; i += kThreads) sum += partials[i];
  sum = block_sum(sum);
  if (threadIdx.x == 0) scalars[out] = sum;
}

constexpr int kWideThreads = 1024;

/// finish_sum for thousands of partials, as a dependent launch: one block of
/// kWideThreads, each thread's loads issued four at a time.
__global__ void __launch_bounds__(kWideThreads)
    finish_wide_sum(const double* __restrict__ partials, int count, double* __restrict__ scalars,
                    int out) {
  wait_for_previous();
  allow_next();
  constexpr int kBatch = 4;
  double sum = 0.0;
  for (int i = threadIdx.x; i < count; i += kBatch * kWideThreads) {
    double v[kBatch];
#pragma unroll
    for (int u = 0; u < kBatch; ++u) {
      const int k = i + u * kWideThreads;
      v[u] = k < count ? partials[k] : 0.0;
    }
#pragma unroll
    for (int u = 0; u < kBatch; ++u) sum += v[u];
  }
  sum = cuda::block_sum<kWideThreads>(sum);
  if (threadIdx.x == 0) scalars[out] = sum;
}

__global__ void axpy_kernel(index_t n, double a, const double* __restrict__ x,
                            double* __restrict__ y) {
  for (index_t i = blockIdx.x * kThreads + threadIdx.x; i < n; i += gridDim.x * kThreads) {
    y[i] += a * x[i];
  }
}

__global__ void pointwise_kernel(index_t n, const double* __restrict__ d,
                                 const double* __restrict__ x, double* __restrict__ y) {
  for (index_t i = blockIdx.x * kThreads + threadIdx.x; i < n; i += gridDim.x * kThreads) {
    y[i] = d[i] * x[i];
  }
}

__global__ void cg_update_kernel(index_t n, const double* __restrict__ p,
                                 const double* __restrict__ q, double* __restrict__ x,
                                 double* __restrict__ r, const double* __restrict__ scalars,
                                 double* __restrict__ partials) {
  const double rz = scalars[kCgRz], pq = scalars[kCgPq];
  const double alpha = is_positive(rz) && is_positive(pq) ? rz / pq : 0.0;
  double sum = 0.0;
  for (index_t i = blockIdx.x * kThreads + threadIdx.x; i < n; i += gridDim.x * kThreads) {
    x[i] += alpha * p[i];
    const double ri = r[i] - alpha * q[i];
    r[i] = ri;
    sum += ri * ri;
  }
  sum = block_sum(sum);
  if (threadIdx.x == 0) partials[blockIdx.x] = sum;
}

__global__ void cg_direction_kernel(index_t n, const double* __restrict__ z, double* __restrict__ p,
                                    const double* __restrict__ scalars) {
  const double rz = scalars[kCgRz];
  const double beta = is_positive(rz) ? scalars[kCgRzNew] / rz : 0.0;
  for (index_t i = blockIdx.x * kThreads + threadIdx.x; i < n; i += gridDim.x * kThreads) {
    p[i] = z[i] + beta * p[i];
  }
}

/// Sum of partials[0, count) in finish_sum's order, returned to every thread of the block.
__device__ double sum_of_partials(const double* __restrict__ partials, int count) {
  __shared__ double total;
  double sum = 0.0;
  for (int i = threadIdx.x; i < count; i += kThreads) sum += partials[i];
  sum = block_sum(sum);
  if (threadIdx.x == 0) total = sum;
  __syncthreads();
  return total;
}

__global__ void cg_residual_kernel(index_t n, const double* __restrict__ q, double* __restrict__ r,
                                   const double* __restrict__ in_partials, int count,
                                   double* __restrict__ partials, double* __restrict__ scalars) {
  wait_for_previous();
  allow_next();
  const double pq = sum_of_partials(in_partials, count);
  const double rz = scalars[kCgRzNew];
  const double alpha = is_positive(rz) && is_positive(pq) ? rz / pq : 0.0;
  double sum = 0.0;
  for (index_t i = blockIdx.x * kThreads + threadIdx.x; i < n; i += gridDim.x * kThreads) {
    const double ri = r[i] - alpha * q[i];
    r[i] = ri;
    sum += ri * ri;
  }
  sum = block_sum(sum);
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = sum;
    if (blockIdx.x == 0) {  // no block of this kernel reads these slots
      scalars[kCgPq] = pq;
      scalars[kCgAlpha] = alpha;
      scalars[kCgRz] = rz;
    }
  }
}

/// beta = rz_new / s[rz]; x += s[alpha] p; p = z + beta p over the grid-stride rows.
__device__ __forceinline__ void direction_and_x(index_t n, const double* __restrict__ z,
                                                double* __restrict__ p, double* __restrict__ x,
                                                double rz_new, const double* scalars) {
  const double rz = scalars[kCgRz];
  const double beta = is_positive(rz) ? rz_new / rz : 0.0;
  const double alpha = scalars[kCgAlpha];
  for (index_t i = blockIdx.x * kThreads + threadIdx.x; i < n; i += gridDim.x * kThreads) {
    x[i] += alpha * p[i];
    p[i] = z[i] + beta * p[i];
  }
}

__global__ void cg_direction_dot_kernel(index_t n, const double* __restrict__ z,
                                        double* __restrict__ p, double* __restrict__ x,
                                        const double* __restrict__ in_partials, int count,
                                        double* __restrict__ scalars) {
  wait_for_previous();
  allow_next();
  const double rz_new = sum_of_partials(in_partials, count);
  direction_and_x(n, z, p, x, rz_new, scalars);
  if (blockIdx.x == 0 && threadIdx.x == 0) scalars[kCgRzNew] = rz_new;  // read by no block here
}

__global__ void cg_direction_x_kernel(index_t n, const double* __restrict__ z,
                                      double* __restrict__ p, double* __restrict__ x,
                                      const double* __restrict__ scalars) {
  wait_for_previous();
  allow_next();
  direction_and_x(n, z, p, x, scalars[kCgRzNew], scalars);
}

__global__ void cg_finish_kernel(index_t n, const double* __restrict__ p, double* __restrict__ x,
                                 const double* __restrict__ scalars) {
  const double alpha = scalars[kCgAlpha];
  for (index_t i = blockIdx.x * kThreads + threadIdx.x; i < n; i += gridDim.x * kThreads) {
    x[i] += alpha * p[i];
  }
}

/// After every block of cg_direction has read the old rz (stream order).
__global__ void rotate_rz(double* scalars) {
  scalars[kCgRz] = scalars[kCgRzNew];
}

template <typename Out>
__global__ void gather_values_kernel(index_t n, const index_t* __restrict__ source,
                                     const double* __restrict__ x, Out* __restrict__ y) {
  for (index_t i = blockIdx.x * kThreads + threadIdx.x; i < n; i += gridDim.x * kThreads) {
    const index_t k = source[i];
    y[i] = k >= 0 ? static_cast<Out>(x[k]) : Out(0);
  }
}

int reduction_grid(index_t n) {
  return std::min(grid_for(n), kReductionBlocks);
}

}  // namespace

void dot(index_t n, const double* x, const double* y, double* partials, double* scalars, int out,
         cudaStream_t stream) {
  const int blocks = dot_partials(n, x, y, partials, stream);
  finish_sum<<<1, kThreads, 0, stream>>>(partials, blocks, scalars, out);
  PRISM_CUDA_CHECK_LAUNCH();
}

int dot_partials(index_t n, const double* x, const double* y, double* partials,
                 cudaStream_t stream) {
  const int blocks = reduction_grid(n);
  launch_after_previous(dot_partials_kernel, blocks, kThreads, stream, n, x, y, partials);
  return blocks;
}

int cg_residual(index_t n, const double* q, double* r, const double* in_partials, int count,
                double* partials, double* scalars, bool finish_rr, cudaStream_t stream) {
  const int blocks = reduction_grid(n);
  launch_after_previous(cg_residual_kernel, blocks, kThreads, stream, n, q, r, in_partials, count,
                        partials, scalars);
  if (finish_rr) {
    finish_sum<<<1, kThreads, 0, stream>>>(partials, blocks, scalars, kCgRr);
    PRISM_CUDA_CHECK_LAUNCH();
  }
  return blocks;
}

void cg_direction_dot(index_t n, const double* r, const double* z, double* p, double* x,
                      double* partials, double* scalars, cudaStream_t stream) {
  const int count = dot_partials(n, r, z, partials, stream);
  // A fixed grid: every block re-reads the partials (8 KB), so not one block per 256 rows.
  launch_after_previous(cg_direction_dot_kernel, reduction_grid(n), kThreads, stream, n, z, p, x,
                        partials, count, scalars);
}

void cg_direction_x(index_t n, const double* z, double* p, double* x, const double* scalars,
                    cudaStream_t stream) {
  launch_after_previous(cg_direction_x_kernel, grid_for(n), kThreads, stream, n, z, p, x, scalars);
}

void cg_finish(index_t n, const double* p, double* x, const double* scalars, cudaStream_t stream) {
  cg_finish_kernel<<<grid_for(n), kThreads, 0, stream>>>(n, p, x, scalars);
  PRISM_CUDA_CHECK_LAUNCH();
}

void sum_partials(const double* partials, int count, double* scalars, int out,
                  cudaStream_t stream) {
  finish_sum<<<1, kThreads, 0, stream>>>(partials, count, scalars, out);
  PRISM_CUDA_CHECK_LAUNCH();
}

void sum_many_partials(const double* partials, int count, double* scalars, int out,
                       cudaStream_t stream) {
  launch_after_previous(finish_wide_sum, 1, kWideThreads, stream, partials, count, scalars, out);
}

void axpy(index_t n, double a, const double* x, double* y, cudaStream_t stream) {
  axpy_kernel<<<grid_for(n), kThreads, 0, stream>>>(n, a, x, y);
  PRISM_CUDA_CHECK_LAUNCH();
}

void pointwise_multiply(index_t n, const double* d, const double* x, double* y,
                        cudaStream_t stream) {
  pointwise_kernel<<<grid_for(n), kThreads, 0, stream>>>(n, d, x, y);
  PRISM_CUDA_CHECK_LAUNCH();
}

void cg_update(index_t n, const double* p, const double* q, double* x, double* r, double* partials,
               double* scalars, cudaStream_t stream) {
  const int blocks = reduction_grid(n);
  cg_update_kernel<<<blocks, kThreads, 0, stream>>>(n, p, q, x, r, scalars, partials);
  PRISM_CUDA_CHECK_LAUNCH();
  finish_sum<<<1, kThreads, 0, stream>>>(partials, blocks, scalars, kCgRr);
  PRISM_CUDA_CHECK_LAUNCH();
}

void cg_direction(index_t n, const double* z, double* p, double* scalars, cudaStream_t stream) {
  cg_direction_kernel<<<grid_for(n), kThreads, 0, stream>>>(n, z, p, scalars);
  PRISM_CUDA_CHECK_LAUNCH();
  rotate_rz<<<1, 1, 0, stream>>>(scalars);
  PRISM_CUDA_CHECK_LAUNCH();
}

void gather_values(index_t n, const index_t* source, const double* x, double* y,
                   cudaStream_t stream) {
  if (n == 0) return;
  gather_values_kernel<<<grid_for(n), kThreads, 0, stream>>>(n, source, x, y);
  PRISM_CUDA_CHECK_LAUNCH();
}

void gather_values(index_t n, const index_t* source, const double* x, float* y,
                   cudaStream_t stream) {
  if (n == 0) return;
  gather_values_kernel<<<grid_for(n), kThreads, 0, stream>>>(n, source, x, y);
  PRISM_CUDA_CHECK_LAUNCH();
}

}  // namespace prism::kernels::cuda
