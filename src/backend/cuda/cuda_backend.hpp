#pragma once
// The CUDA backend: one stream, cuSPARSE SpMV and SpSV, prism's fused vector kernels
// (kernels/cuda), CG scalars in device memory read back through pinned memory.

#include "backend/backend.hpp"

namespace prism::backend {

/// Throws BackendError when no CUDA device is usable.
std::unique_ptr<Backend> make_cuda_backend();

}  // namespace prism::backend
