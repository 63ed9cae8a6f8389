#pragma once
// Asynchronous global -> shared element copies (cp.async, sm_80 and later) for kernels that
// stream tiles through shared memory: dense_triangular/ and batched_factor/.

#include <cuda_runtime.h>

namespace prism::kernels::cuda {

__device__ __forceinline__ unsigned smem_u32(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

/// Copies one element global -> shared asynchronously; when !valid nothing is read and the
/// destination is zero-filled (src must still be a valid address: pass the matrix base).
template <typename T>
__device__ __forceinline__ void cp_async(T* dst, const T* src, bool valid) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "cp.async element of 4 or 8 bytes");
  asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(smem_u32(dst)), "l"(src),
               "n"(sizeof(T)), "r"(valid ? static_cast<int>(sizeof(T)) : 0)
               : "memory");
}

/// Copies 16 bytes global -> shared asynchronously through L2 only (cp.async.cg: no L1
/// line is allocated, so data another thread block is still writing is never read stale
/// from L1). Both addresses 16-byte aligned.
__device__ __forceinline__ void cp_async16_cg(void* dst, const void* src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(smem_u32(dst)), "l"(src)
               : "memory");
}

__device__ __forceinline__ void cp_async_commit() {
  asm volatile("cp.async.commit_group;\n" ::: "memory");
}

/// Waits until at most kPending of this thread's committed groups are still in flight.
template <int kPending>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending) : "memory");
}

}  // namespace prism::kernels::cuda
