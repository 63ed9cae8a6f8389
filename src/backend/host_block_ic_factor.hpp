#pragma once
// Block IC(0) factored on the host with the reference kernels (kernels/block_ic.hpp): the
// cpu backend's BlockIcFactor, the twin of the CUDA one.

#include "backend/factors.hpp"

#include <memory>

namespace prism::backend {

std::unique_ptr<BlockIcFactor> make_host_block_ic_factor(const kernels::BlockIcPlan& plan);

}  // namespace prism::backend
