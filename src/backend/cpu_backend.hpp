#pragma once
// The CPU backend: host memory, timed with steady_clock, running the reference kernels
// (one thread, the oracle) or the threaded ones (src/backend/host_kernels.hpp).

#include "backend/backend.hpp"

namespace prism::backend {

/// The reference kernels by default (the oracle the tests compare against); `threads`
/// for the threaded kernels, 0: common::host_threads().
std::unique_ptr<Backend> make_cpu_backend(CpuKernels kernels = CpuKernels::reference,
                                          int threads = 0);

}  // namespace prism::backend
