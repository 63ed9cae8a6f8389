#pragma once
// The CPU backend: the reference kernels on host memory, timed with steady_clock.

#include "backend/backend.hpp"

namespace prism::backend {

std::unique_ptr<Backend> make_cpu_backend();

}  // namespace prism::backend
