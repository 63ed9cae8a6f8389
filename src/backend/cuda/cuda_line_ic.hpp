#pragma once
// Line IC's solves on the GPU (kernels/cuda/line_ic.hpp): the factor from the host, kept
// in device memory (L and L^T in SELL-32), a launch per color and half.

#include "backend/backend.hpp"

#include <cuda_runtime.h>

#include <memory>

namespace prism::backend::cuda {

std::unique_ptr<LineIcSolver> make_cuda_line_ic_solver(const LineIcFactor& pattern,
                                                       cudaStream_t stream);

}  // namespace prism::backend::cuda
