#pragma once
// Deterministic block-wide sum and max for the reduction kernels (fixed shuffle tree, then
// the warp results in warp order).

#include <cuda_runtime.h>

namespace prism::kernels::cuda {

/// `value` reduced over a block of Threads threads (a multiple of 32, at most 1024) by `op`,
/// first within each warp and then over the warps' results, `identity` standing in for the
/// lanes past the last warp; valid in thread 0. Its shared slots (one set per Threads and
/// `op`) are reused by the next call: put a __syncthreads() between two calls.
template <int Threads, typename Op>
__device__ __forceinline__ double block_reduce(double value, double identity, Op op) {
  static_assert(Threads % 32 == 0 && Threads <= 1024, "whole warps, at most 1024 threads");
  __shared__ double warp_results[Threads / 32];
  for (int offset = 16; offset > 0; offset /= 2) {
    value = op(value, __shfl_down_sync(0xffffffffu, value, offset));
  }
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) warp_results[warp] = value;
  __syncthreads();
  if (warp == 0) {
    value = lane < Threads / 32 ? warp_results[lane] : identity;
    for (int offset = 16; offset > 0; offset /= 2) {
      value = op(value, __shfl_down_sync(0xffffffffu, value, offset));
    }
  }
  return value;
}

/// Sum of `value` over a block of Threads threads; valid in thread 0.
template <int Threads>
__device__ __forceinline__ double block_sum(double value) {
  return block_reduce<Threads>(value, 0.0, [](double a, double b) { return a + b; });
}

/// Max of non-negative `value`s over a block of Threads threads; valid in thread 0. Its
/// shared slots are reused by the next call: put a __syncthreads() between two calls.
template <int Threads>
__device__ __forceinline__ double block_max(double value) {
  return block_reduce<Threads>(value, 0.0, [](double a, double b) { return fmax(a, b); });
}

}  // namespace prism::kernels::cuda
