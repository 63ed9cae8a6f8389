#pragma once
// Device discovery; safe to call on machines without a GPU or driver.

namespace prism::kernels::cuda {

/// Number of usable CUDA devices; 0 when there is no device or no driver.
int device_count() noexcept;

/// Threads the current device keeps resident at once (multiprocessors x threads per
/// multiprocessor), 0 when it cannot be queried.
int resident_threads() noexcept;

/// Makes `device` the calling thread's current device; false when that fails.
bool set_current_device(int device) noexcept;

}  // namespace prism::kernels::cuda
