#pragma once
// Block IC(0) factored on the GPU (kernels/cuda/block_ic.hpp): the factor and the
// operators of the solves never leave the device.

#include "backend/backend.hpp"

#include <cuda_runtime.h>

#include <memory>

namespace prism::backend::cuda {

std::unique_ptr<BlockIcFactor> make_cuda_block_ic_factor(const kernels::BlockIcPlan& plan,
                                                         cudaStream_t stream);

}  // namespace prism::backend::cuda
