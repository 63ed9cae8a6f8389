#pragma once
// What the batched factorization kernels (kernels/cuda/batched_factor/) share: the panel
// width, the block sizes and the device helpers for addressing a matrix of the batch and
// comparing pivot candidates. Internal to this folder.

#include "kernels/cuda/batched_factor.hpp"

#include <cuda_runtime.h>

#include <cstdint>

namespace prism::kernels::cuda::batched_factor {

constexpr int kNb = 32;               // panel width (the paper's nb)
constexpr int kPanelThreads = 256;    // threads of the per-matrix kernels
constexpr int kRegistersBlock = 128;  // threads of the warp-per-matrix register kernels

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

}  // namespace prism::kernels::cuda::batched_factor
