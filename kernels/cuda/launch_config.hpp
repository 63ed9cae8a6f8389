#pragma once
// Launch settings the kernels share: the opt-in for dynamic shared memory and the occupancy
// queries, each in one place so that every kernel family asks the device the same way.
// Every call is for the current device and throws BackendError when the query fails.

#include <cstddef>

namespace prism::kernels::cuda {

/// A kernel as the runtime's attribute and occupancy calls take it.
template <typename Kernel>
const void* kernel_id(Kernel kernel) {
  return reinterpret_cast<const void*>(kernel);
}

/// Largest dynamic shared memory `kernel` can be given: the device's opt-in maximum per
/// block less the kernel's static shared memory.
std::size_t dynamic_shared_capacity(const void* kernel);

/// Makes a launch of `kernel` with `bytes` of dynamic shared memory valid. Without an
/// opt-in a kernel may take 48 KiB less its static shared memory, so the limit is raised
/// (cudaFuncAttributeMaxDynamicSharedMemorySize) whenever a launch needs more than the
/// kernel's current one, which is read from the kernel itself rather than assumed. Throws
/// ConfigError naming `who` when `bytes` exceeds dynamic_shared_capacity(kernel).
void reserve_dynamic_shared(const void* kernel, std::size_t bytes, const char* who);

/// Multiprocessors of the current device.
int multiprocessor_count();

/// Blocks of `kernel` that one multiprocessor keeps resident with `threads` threads and
/// `dynamic_bytes` of dynamic shared memory each (the occupancy API; 0 when none fits).
int blocks_per_multiprocessor(const void* kernel, int threads, std::size_t dynamic_bytes = 0);

/// Blocks of `kernel` (`threads` each, no dynamic shared memory) the whole device keeps
/// resident at once, at least 1: the size of a grid that stays resident. Cached per kernel
/// and device.
int resident_blocks(const void* kernel, int threads);

}  // namespace prism::kernels::cuda
