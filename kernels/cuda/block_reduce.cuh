#pragma once
// Deterministic block-wide sum and max for the reduction kernels (fixed shuffle tree, then
// the warp results in warp order).

#include <cuda_runtime.h>

namespace prism::kernels::cuda {

/// Sum of `value` over a block of Threads threads (a multiple of 32, at most 1024);
/// valid in thread 0.
template <int Threads>
__device__ __forceinline__ double block_sum(double value) {
  static_assert(Threads % 32 == 0 && Threads <= 1024, "whole warps, at most 1024 threads");
  __shared__ double warp_sums[Threads / 32];
  for (int offset = 16; offset > 0; offset /= 2) {
    value += __shfl_down_sync(0xffffffffu, value, offset);
  }
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) warp_sums[warp] = value;
  __syncthreads();
  if (warp == 0) {
    value = lane < Threads / 32 ? warp_sums[lane] : 0.0;
    for (int offset = 16; offset > 0; offset /= 2) {
      value += __shfl_down_sync(0xffffffffu, value, offset);
    }
  }
  return value;
}

/// Max of non-negative `value`s over a block of Threads threads; valid in thread 0. Its
/// shared slots are reused by the next call: put a __syncthreads() between two calls.
template <int Threads>
__device__ __forceinline__ double block_max(double value) {
  static_assert(Threads % 32 == 0 && Threads <= 1024, "whole warps, at most 1024 threads");
  __shared__ double warp_maxima[Threads / 32];
  for (int offset = 16; offset > 0; offset /= 2) {
    value = fmax(value, __shfl_down_sync(0xffffffffu, value, offset));
  }
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) warp_maxima[warp] = value;
  __syncthreads();
  if (warp == 0) {
    value = lane < Threads / 32 ? warp_maxima[lane] : 0.0;
    for (int offset = 16; offset > 0; offset /= 2) {
      value = fmax(value, __shfl_down_sync(0xffffffffu, value, offset));
    }
  }
  return value;
}

}  // namespace prism::kernels::cuda
