#pragma once
// The launches of the tridiagonal kernels: their shape (Launch), shared memory, and the
// launchers each kernel file exports to plan.cu. Internal to kernels/cuda/tridiagonal/.

#include "kernels/cuda/tridiagonal/chunks.cuh"
#include "kernels/cuda/tridiagonal/partition.cuh"

#include "kernels/cuda/check.hpp"
#include "kernels/cuda/dependent_launch.cuh"
#include "kernels/cuda/launch_config.hpp"

#include <cuda_runtime.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace prism::kernels::cuda::tridiagonal {

// One kernel launch: its arguments, grid and shared memory.
struct Launch {
  LaunchArgs args{};
  std::int64_t blocks = 0;
  int threads = 0;
  std::size_t shared_bytes = 0;
};

// Shared memory of either kernel: the units, then per thread the reduced-system planes of
// solve_kernel (4 values) or the chunk equations of reduce_kernel (6 values).
template <typename T>
std::size_t kernel_shared_bytes(int units, int threads) {
  return units_bytes(units, sizeof(Unit<T>)) +
         static_cast<std::size_t>(threads) * sizeof(Boundary<T>);
}

// Shared memory of cluster_solve_kernel: the units, five planes per thread (a, c, d, f, g;
// the first then holds w), and per unit, from each block of the cluster, the block's first
// top equation (3 values) and the expressions of its first and last w (6), then the w just
// outside this block (2).
template <typename T>
std::size_t cluster_shared_bytes(int units, int threads) {
  return units_bytes(units, sizeof(Unit<T>)) +
         (5 * static_cast<std::size_t>(threads) +
          (9 * kMaxClusterBlocks + 2) * static_cast<std::size_t>(units)) *
             sizeof(T);
}

// Whether every chunk of a launch has kChunkRows rows (or none: an idle thread), so that the
// kernels take their kFull form: no row past a chunk to mask, every test of a chunk's length
// folded away. The units' rows (the system, or kReduceRows of it) and the system's rows are
// then multiples of the chunk (make_unit: pu = len / L, cbase = L, crem = 0). In double the
// solve kernel then takes 100 registers instead of 120, the cluster kernel 114, and both run
// ahead of the forms that test the length (docs/kernels/tridiagonal.md).
template <typename T>
bool all_chunks_full(const LaunchArgs& args) {
  constexpr int kL = kChunkRows<T>;
  return args.n % kL == 0 && args.unit_rows % kL == 0;
}

// compute(device) for the current device, computed once per device (the first 64; beyond,
// every call computes it) and kept in `cache` (positive values only).
constexpr int kCachedDevices = 64;
template <typename Compute>
int cached_per_device(std::atomic<int> (&cache)[kCachedDevices], Compute compute) {
  int dev = 0;
  PRISM_CUDA_CHECK(cudaGetDevice(&dev));
  std::atomic<int>* slot = dev < kCachedDevices ? &cache[dev] : nullptr;
  if (slot != nullptr) {
    const int known = slot->load(std::memory_order_relaxed);
    if (known > 0) return known;
  }
  const int value = compute(dev);
  if (slot != nullptr) slot->store(value, std::memory_order_relaxed);
  return value;
}

// Launches `kernel` as `l` shapes it (blocks, threads, dynamic shared memory, reserved
// first), after the kernel ahead of it on the stream (launch_after_previous_shared).
template <typename... Params, typename... Args>
void launch_shaped(void (*kernel)(Params...), const Launch& l, cudaStream_t stream, Args... args) {
  reserve_dynamic_shared(kernel_id(kernel), l.shared_bytes, "tridiagonal_solve");
  launch_after_previous_shared(kernel, static_cast<unsigned>(l.blocks),
                               static_cast<unsigned>(l.threads), l.shared_bytes, stream, args...);
}

// one_pass.cu ----------------------------------------------------------------------------

// Most threads of a one-pass block: the largest of kMaxThreads, kMaxThreads / 2, ...,
// kTargetThreads at which two blocks of solve_kernel stay resident per SM (occupancy API;
// about 256 threads with sm_90's register file). A block loads, then computes, then stores:
// alone on its SM it cannot overlap one phase with another, and two passes do as well.
// Cached per device.
template <typename T>
int one_pass_threads();

// solve_kernel for launch `l` (x just outside each unit from z in pass 2, else z null).
template <typename T>
void launch_one_pass(const Launch& l, const T* a, const T* b, const T* c, const T* d, T* x,
                     const T* z, cudaStream_t stream);

// The solve_kernel instance launch_one_pass picks for `full` (all_chunks_full).
template <typename T>
const void* one_pass_kernel(bool full);

// cluster.cu -----------------------------------------------------------------------------

// Most blocks of `Threads` in a cluster of cluster_solve_kernel: the largest size (16, 8, 4 or
// 2) of which the device runs at least one at a time (cudaOccupancyMaxActiveClusters); 1
// where the device has no clusters (before sm_90) or the kernel was not compiled for sm_90
// (its barriers and remote writes are empty there: a build for an older architecture run as
// PTX on a newer GPU must not take this path). Cached per device.
template <typename T, int Threads>
int max_cluster_blocks();

// cluster_solve_kernel for launch `l` (l.args.clog > 0).
template <typename T>
void launch_cluster(const Launch& l, const T* a, const T* b, const T* c, const T* d, T* x,
                    cudaStream_t stream);

// The cluster_solve_kernel instance launch_cluster picks for `full` (all_chunks_full).
template <typename T>
const void* cluster_kernel(bool full);

// two_pass.cu ----------------------------------------------------------------------------

// reduce_kernel (pass 1) for launch `l`: the reduced systems into ra, rb, rc, rd.
template <typename T>
void launch_reduce(const Launch& l, const T* a, const T* b, const T* c, const T* d, T* ra, T* rb,
                   T* rc, T* rd, cudaStream_t stream);

}  // namespace prism::kernels::cuda::tridiagonal
