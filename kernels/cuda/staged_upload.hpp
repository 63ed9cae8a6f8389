#pragma once
// Host -> device copies from pageable memory at page-locked copy speed. cudaMemcpyAsync
// from pageable memory stages through the driver's own buffers on one thread (a third of
// the page-locked speed, docs/how-it-works.md); here host threads ("lanes") copy the
// source chunk by chunk into page-locked staging buffers, two a lane, while the copy
// engine moves the chunks they filled before.

#include <cuda_runtime.h>

#include <cstddef>

namespace prism::kernels::cuda {

/// Bytes a staging buffer by default: a chunk's cudaMemcpyAsync call is small next to its
/// host copy, and the buffers of all lanes (12 MiB) pin quickly.
inline constexpr std::size_t kStagingChunkBytes = std::size_t{1} << 20;

/// Copies smaller than this (bytes) go straight through cudaMemcpyAsync by default.
inline constexpr std::size_t kStagedMinBytes = std::size_t{2} << 20;

/// Host threads copying into the staging buffers by default, at most: each lane's copy
/// from pageable memory runs at a few GB/s, and six reach most of the link's rate (more
/// lanes gain little and pin more buffers on a process's first copy; tools/bench_setup_steps
/// --lanes measures it).
inline constexpr int kStagingLanes = 6;

/// How staged_upload splits a copy; the defaults suit large arrays, tests shrink them.
struct StagingPlan {
  std::size_t chunk_bytes = kStagingChunkBytes;  ///< bytes a staging buffer (> 0)
  /// Lanes; 0: kStagingLanes, fewer on a machine of fewer than 12 hardware threads (half of
  /// them, at least one). Never more lanes than chunks.
  int lanes = 0;
  std::size_t min_bytes = kStagedMinBytes;  ///< smaller copies go straight
};

/// Copies `bytes` bytes from host memory at `host` (pageable or not) to device memory at
/// `device` in `stream`'s order, as cudaMemcpyAsync does: on return `host` may change or go
/// away, and the copy completes after the work queued on `stream` before it. Copies of
/// plan.min_bytes or more go through page-locked staging buffers that the process keeps
/// once allocated (plan.lanes x 2 x plan.chunk_bytes, allocated by the first such copy and
/// again when a plan asks for other sizes); one copy at a time uses them, and a copy that
/// finds them in use by another thread goes straight. Throws BackendError.
void staged_upload_bytes(void* device, const void* host, std::size_t bytes, cudaStream_t stream,
                         const StagingPlan& plan = {});

/// staged_upload_bytes of `count` elements of T.
template <typename T>
void staged_upload(T* device, const T* host, std::size_t count, cudaStream_t stream,
                   const StagingPlan& plan = {}) {
  staged_upload_bytes(device, host, count * sizeof(T), stream, plan);
}

}  // namespace prism::kernels::cuda
