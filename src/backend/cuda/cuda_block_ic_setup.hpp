#pragma once
// Block IC(0)'s set-up from the matrix kept in device memory (Backend::
// make_block_ic_on_backend): the analysis on the device (kernels/cuda/block_ic_analysis.hpp),
// the engine on its plan and the operators on its patterns, with no host copy of the
// pattern.

#include "backend/backend.hpp"

#include <cuda_runtime.h>
#include <cusparse.h>

namespace prism::backend::cuda {

struct DeviceOrdered;  // backend/cuda/device_ordered.hpp

/// Backend::make_block_ic_on_backend on the cuda backend (`handle`: its cuSPARSE handle).
BlockIcStorage make_cuda_block_ic_storage(const DeviceOrdered& a, const BlockPartition& blocks,
                                          const TrisolveSpec& spec, bool operators,
                                          bool float_solves, cusparseHandle_t handle,
                                          cudaStream_t stream);

/// Backend::block_weight_on_backend on the cuda backend.
double cuda_block_weight(const DeviceOrdered& a, const BlockPartition& blocks, cudaStream_t stream);

}  // namespace prism::backend::cuda
