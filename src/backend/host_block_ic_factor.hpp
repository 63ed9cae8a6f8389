#pragma once
// Block IC(0) factored on the host with the cpu backend's kernels (kernels/block_ic.hpp:
// the reference's, or the threaded twins, a level's block rows at once): the cpu
// backend's BlockIcFactor, the twin of the CUDA one.

#include "backend/factors.hpp"
#include "backend/host_kernels.hpp"

#include <memory>

namespace prism::backend {

/// `kernels` (the backend's) must outlive the factor.
std::unique_ptr<BlockIcFactor> make_host_block_ic_factor(const kernels::BlockIcPlan& plan,
                                                         const HostKernels& kernels);

}  // namespace prism::backend
