#pragma once
// The color-set triangular solve on the CUDA backend: the strict triangle and the
// inverse diagonal in device memory, one kernel launch per independent row block.

#include "backend/backend.hpp"
#include "backend/split_triangle.hpp"

#include <cuda_runtime.h>

#include <memory>

namespace prism::backend::cuda {

std::unique_ptr<TriangularSolver> make_colorset_trisolve(SplitTriangle split, cudaStream_t stream);

}  // namespace prism::backend::cuda
