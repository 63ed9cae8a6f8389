#pragma once
// The set-up report's level-set sizes (analysis::level_ptr) of the matrix the set-up kept
// on the device (Backend::level_ptr_on_backend).

#include <prism/csr_matrix.hpp>

#include "backend/cuda/device_ordered.hpp"

#include <cuda_runtime.h>

#include <vector>

namespace prism::backend::cuda {

/// analysis::level_ptr(a, independent) for the kept matrix: the ranges levelled on the
/// device one after another (kernels/cuda/level_report.hpp); where they do not cover the
/// rows or a range couples, the rows levelled on the device as a dataflow in row order
/// (dataflow_level_ptr), and where an entry lacks its mirror (a set-up without checks), the
/// pattern comes to the host for level_sets (as analysis::level_ptr does).
std::vector<index_t> level_ptr_on_device(const DeviceOrdered& a,
                                         const std::vector<index_t>& independent,
                                         cudaStream_t stream);

}  // namespace prism::backend::cuda
