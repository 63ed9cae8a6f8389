#pragma once
// The level-set triangular solve baseline: cusparseSpSV (Naumov 2011), analysis once
// at creation, cusparseSpSV_updateMatrix on refactor.

#include "backend/backend.hpp"

#include <cuda_runtime.h>
#include <cusparse.h>

#include <memory>

namespace prism::backend::cuda {

std::unique_ptr<TriangularSolver> make_cusparse_trisolve(const CsrMatrix<double>& t,
                                                         Triangle triangle, cusparseHandle_t handle,
                                                         cudaStream_t stream);

}  // namespace prism::backend::cuda
