#pragma once
// The CUDA backend: one stream, cuSPARSE SpMV and SpSV, prism's fused vector kernels
// (kernels/cuda), CG scalars in device memory read back through pinned memory.

#include "backend/backend.hpp"

namespace prism::backend {

/// A backend on `placement` (its device made current only inside the backend's calls made
/// through a DeviceScope). Throws BackendError when no CUDA device is usable, ConfigError
/// when the placement names no device or a stream that cannot serve.
std::unique_ptr<Backend> make_cuda_backend(const DevicePlacement& placement = {});

}  // namespace prism::backend
