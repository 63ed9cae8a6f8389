#pragma once
// IC(0) computed on the GPU color by color and applied with the color-set solves,
// without the factor ever leaving the device.

#include "backend/backend.hpp"

#include <cuda_runtime.h>

#include <memory>

namespace prism::backend::cuda {

std::unique_ptr<Ic0Factor> make_cuda_ic0_factor(const CsrMatrix<double>& lower,
                                                const CsrMatrix<double>& upper,
                                                const std::vector<index_t>& upper_source,
                                                const std::vector<index_t>& lower_source,
                                                const TrisolveSpec& spec, double* scalars,
                                                cudaStream_t stream);

}  // namespace prism::backend::cuda
