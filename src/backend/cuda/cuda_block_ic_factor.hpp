#pragma once
// Block IC(0) factored on the GPU (kernels/cuda/block_ic.hpp): the factor and the
// operators of the solves never leave the device.

#include "backend/backend.hpp"
#include "kernels/cuda/block_ic_analysis.hpp"
#include "kernels/cuda/device_memory.hpp"

#include <cuda_runtime.h>

#include <memory>

namespace prism::backend::cuda {

std::unique_ptr<BlockIcFactor> make_cuda_block_ic_factor(const kernels::BlockIcPlan& plan,
                                                         cudaStream_t stream);

/// The same factor on a plan analysed on the device (kernels/cuda/block_ic_analysis.hpp),
/// its arrays taken (the operators' columns are left in `plan` for their objects), for the
/// matrix kept there: `source` is a device copy of the kept matrix's map to the caller's
/// entries, so load(SourceValues{caller_values, nullptr}) reads entry k of the ordered
/// matrix as caller_values[source[k]] (as the kept IC(0) factor does); a SourceValues with
/// a map reads through that map instead. Bit for bit the factor, operators and solves of
/// the host plan's engine on the same matrix.
std::unique_ptr<BlockIcFactor> make_cuda_block_ic_factor(
    kernels::cuda::DeviceBlockIcPlan&& plan, kernels::cuda::DeviceBuffer<index_t> source,
    cudaStream_t stream);

}  // namespace prism::backend::cuda
