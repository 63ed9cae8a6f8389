#pragma once
// Programmatic dependent launch (sm_90 and later): a kernel launched with
// launch_after_previous() may be scheduled while the kernel ahead of it on the stream
// still runs, so its launch and block start-up overlap that kernel's last wave instead of
// following its end. Such a kernel must call wait_for_previous() in every thread before it
// touches memory the kernels ahead of it write; what it reads before (data no kernel of
// the sequence writes) is its own contract. Every kernel launched this way waits before it
// ends, so the wait of the next one covers all earlier kernels too. Below sm_90 the
// instructions compile to nothing and the launch attribute is ignored (plain stream
// order). In a CUDA graph, captured launches keep the relation as programmatic edges.

#include "kernels/cuda/check.hpp"

#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

namespace prism::kernels::cuda {

/// Blocks until the kernel ahead of this one on the stream has finished and its memory
/// operations are visible.
__device__ __forceinline__ void wait_for_previous() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

/// Lets the next kernel on the stream, if launched with launch_after_previous(), be
/// scheduled as this kernel's blocks retire.
__device__ __forceinline__ void allow_next() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;");
#endif
}

/// Start of a kernel of a chain of solve launches (a launch of the chain behind another
/// launch of the same chain may `prefetch`: read the factor before it waits). Without
/// prefetch it waits before it lets the next kernel start, so that a prefetching kernel
/// behind it may rely on the caller's kernels ahead of the chain being done; a prefetching
/// kernel calls wait_for_previous() itself once its factor loads are issued.
__device__ __forceinline__ void start_after_previous(bool prefetch) {
  if (!prefetch) wait_for_previous();
  allow_next();
}

/// Launches kernel<<<blocks, threads, shared_bytes, stream>>>(args...) with programmatic
/// stream serialization allowed.
template <typename... Params, typename... Args>
void launch_after_previous_shared(void (*kernel)(Params...), unsigned blocks, unsigned threads,
                                  std::size_t shared_bytes, cudaStream_t stream, Args&&... args) {
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(blocks);
  config.blockDim = dim3(threads);
  config.dynamicSmemBytes = shared_bytes;
  config.stream = stream;
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute.val.programmaticStreamSerializationAllowed = 1;
  config.attrs = &attribute;
  config.numAttrs = 1;
  PRISM_CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, static_cast<Params>(args)...));
}

/// Launches kernel<<<blocks, threads, 0, stream>>>(args...) with programmatic stream
/// serialization allowed.
template <typename... Params, typename... Args>
void launch_after_previous(void (*kernel)(Params...), int blocks, int threads, cudaStream_t stream,
                           Args&&... args) {
  launch_after_previous_shared(kernel, static_cast<unsigned>(blocks),
                               static_cast<unsigned>(threads), 0, stream,
                               std::forward<Args>(args)...);
}

}  // namespace prism::kernels::cuda
