#include "kernels/cuda/gear.hpp"

#include "kernels/cuda/blas1.hpp"
#include "kernels/cuda/block_reduce.cuh"
#include "kernels/cuda/check.hpp"

#include <algorithm>

namespace prism::kernels::cuda {
namespace {

constexpr int kThreads = 256;

int reduction_grid(index_t n) {
  const long long blocks = (static_cast<long long>(n) + kThreads - 1) / kThreads;
  return static_cast<int>(std::max<long long>(1, std::min<long long>(blocks, kReductionBlocks)));
}

__global__ void gear_update_kernel(index_t n, double alpha, double beta, bool first,
                                   const double* __restrict__ u, const double* __restrict__ w,
                                   double* __restrict__ p, double* __restrict__ s,
                                   double* __restrict__ x, double* __restrict__ r,
                                   double* __restrict__ partials) {
  double sum = 0.0;
  for (index_t i = blockIdx.x * kThreads + threadIdx.x; i < n; i += gridDim.x * kThreads) {
    const double pi = first ? u[i] : u[i] + beta * p[i];
    const double si = first ? w[i] : w[i] + beta * s[i];
    p[i] = pi;
    s[i] = si;
    x[i] += alpha * pi;
    const double ri = r[i] - alpha * si;
    r[i] = ri;
    sum += ri * ri;
  }
  sum = block_sum<kThreads>(sum);
  if (threadIdx.x == 0) partials[blockIdx.x] = sum;
}

__global__ void gear_dots_kernel(index_t n, const double* __restrict__ r,
                                 const double* __restrict__ u, const double* __restrict__ w,
                                 double* __restrict__ partials) {
  double ru = 0.0, wu = 0.0;
  for (index_t i = blockIdx.x * kThreads + threadIdx.x; i < n; i += gridDim.x * kThreads) {
    const double ui = u[i];
    ru += r[i] * ui;
    wu += w[i] * ui;
  }
  ru = block_sum<kThreads>(ru);
  __syncthreads();  // the two sums share block_sum's shared slots
  wu = block_sum<kThreads>(wu);
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = ru;
    partials[kReductionBlocks + blockIdx.x] = wu;
  }
}

/// sums[out + blockIdx.x] = the sum of partials[blockIdx.x * kReductionBlocks + (0 .. count)],
/// in a fixed order: one block per sum.
__global__ void finish_sums(const double* __restrict__ partials, int count,
                            double* __restrict__ sums, int out) {
  const double* mine = partials + static_cast<std::size_t>(blockIdx.x) * kReductionBlocks;
  double sum = 0.0;
  for (int i = threadIdx.x; i < count; i += kThreads) sum += mine[i];
  sum = block_sum<kThreads>(sum);
  if (threadIdx.x == 0) sums[out + blockIdx.x] = sum;
}

}  // namespace

void gear_update(index_t n, double alpha, double beta, bool first, const double* u, const double* w,
                 double* p, double* s, double* x, double* r, double* partials, double* sums,
                 int out, cudaStream_t stream) {
  const int blocks = reduction_grid(n);
  gear_update_kernel<<<blocks, kThreads, 0, stream>>>(n, alpha, beta, first, u, w, p, s, x, r,
                                                      partials);
  PRISM_CUDA_CHECK_LAUNCH();
  finish_sums<<<1, kThreads, 0, stream>>>(partials, blocks, sums, out);
  PRISM_CUDA_CHECK_LAUNCH();
}

void gear_dots(index_t n, const double* r, const double* u, const double* w, double* partials,
               double* sums, int out, cudaStream_t stream) {
  const int blocks = reduction_grid(n);
  gear_dots_kernel<<<blocks, kThreads, 0, stream>>>(n, r, u, w, partials);
  PRISM_CUDA_CHECK_LAUNCH();
  finish_sums<<<2, kThreads, 0, stream>>>(partials, blocks, sums, out);
  PRISM_CUDA_CHECK_LAUNCH();
}

}  // namespace prism::kernels::cuda
