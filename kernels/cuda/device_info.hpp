#pragma once
// Device discovery; safe to call on machines without a GPU or driver.

namespace prism::kernels::cuda {

/// Number of usable CUDA devices; 0 when there is no device or no driver.
int device_count() noexcept;

}  // namespace prism::kernels::cuda
