#pragma once
// Line IC's solves on the host with the cpu backend's kernels (kernels/line_ic.hpp: the
// reference's, or the threaded twins, the lines of a color at once): the cpu backend's
// LineIcSolver, the twin of the CUDA one.

#include "backend/factors.hpp"
#include "backend/host_kernels.hpp"

#include <memory>

namespace prism::backend {

/// `kernels` (the backend's) must outlive the solver.
std::unique_ptr<LineIcSolver> make_host_line_ic_solver(const LineIcFactor& pattern,
                                                       const HostKernels& kernels);

}  // namespace prism::backend
