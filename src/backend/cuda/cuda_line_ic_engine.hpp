#pragma once
// Line IC set up on the GPU from P A P^T kept in device memory (Backend::
// make_line_ic_on_backend): the split (kernels/cuda/line_ic_setup.hpp), the solver's SELL
// storage laid out there (cuda_line_ic.hpp), the maps to the caller's values composed
// there, and the attempts of BIC(0) color by color, writing the factor straight into the
// solver's storage. Nothing of the pattern goes through the host.

#include "backend/backend.hpp"

#include <cuda_runtime.h>

#include <memory>
#include <vector>

namespace prism::backend::cuda {

struct DeviceOrdered;  // backend/cuda/device_ordered.hpp

/// The engine on `a` (its lines and their colors as LineIcEngine's maker takes them); `a`
/// is not read after the call. Throws Error where the lines and colors do not partition
/// its rows.
std::unique_ptr<LineIcEngine> make_cuda_line_ic_engine(const DeviceOrdered& a,
                                                       const BlockPartition& lines,
                                                       const std::vector<index_t>& color_ptr,
                                                       cudaStream_t stream);

}  // namespace prism::backend::cuda
