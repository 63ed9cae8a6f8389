#pragma once
// IC(0) computed on the GPU color by color and applied with the color-set solves,
// without the factor ever leaving the device.

#include "backend/backend.hpp"

#include <cuda_runtime.h>

#include <memory>

namespace prism::backend::cuda {

struct DeviceOrdered;  // backend/cuda/device_ordered.hpp

/// The factor of the IC(0) pattern of P A P^T kept in device memory (tril(A), diagonal
/// last), its analysis run on the device: the same factorization and solves, bit for bit,
/// as the factor made from precond::Ic0Pattern(P A P^T) below, and load(SourceValues)
/// with source = a.source's host copy reads the caller's values without composing a map.
std::unique_ptr<Ic0Factor> make_cuda_ic0_factor(const DeviceOrdered& a, const TrisolveSpec& spec,
                                                double* scalars, cudaStream_t stream);

std::unique_ptr<Ic0Factor> make_cuda_ic0_factor(const CsrMatrix<double>& lower,
                                                const CsrMatrix<double>& upper,
                                                const std::vector<index_t>& upper_source,
                                                const std::vector<index_t>& lower_source,
                                                const TrisolveSpec& spec, double* scalars,
                                                cudaStream_t stream);

}  // namespace prism::backend::cuda
