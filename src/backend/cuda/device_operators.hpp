#pragma once
// The cuda backend's SpMV matrix and color-set triangular solve made from a CSR pattern
// already in device memory (block IC's operators, analysed on the device): the same
// storage, and bit for bit the same results, as Backend::make_matrix and
// make_triangular_solver give from a host copy of the pattern, with no pass over it on
// the host.

#include <prism/options.hpp>

#include "backend/backend.hpp"
#include "kernels/cuda/device_memory.hpp"

#include <cuda_runtime.h>
#include <cusparse.h>

#include <memory>

namespace prism::backend::cuda {

/// The SpMV matrix make_matrix(a, algorithm) gives for the host CSR `a` with these arrays
/// (device memory, taken: rows + 1 row pointers, one column an entry), every value zero.
/// `automatic` takes pick_spmv_algorithm's choice for the pattern, counted on the device;
/// SELL is laid out there; BSR (planned on the host) reads the pattern back. Values come by
/// update_values(SourceValues{v, nullptr}) with v in device memory in the pattern's CSR
/// order (copied as they are, no map), update_values(SourceValues{v, &map}) (map[k]: v's
/// entry for CSR entry k, uploaded once), or update_values(host values in CSR order).
/// The matrix is the backend's own (CudaMatrix), for its spmv and column operations.
/// Throws Error where row_ptr does not hold rows + 1 entries.
std::unique_ptr<Matrix> make_cuda_matrix_from_device(index_t rows, index_t cols,
                                                     kernels::cuda::DeviceBuffer<index_t> row_ptr,
                                                     kernels::cuda::DeviceBuffer<index_t> col_idx,
                                                     SpmvAlgorithm algorithm,
                                                     cusparseHandle_t handle, cudaStream_t stream);

/// The color-set solve make_triangular_solver(t, triangle, spec) gives with
/// spec.algorithm colorset for the host copy t of this square triangle (device memory,
/// taken: rows + 1 row pointers, one column an entry), whose every row stores its diagonal
/// (lower: last in the row; upper: first): the same split into the strict triangle and
/// the inverse diagonal, the same independent row blocks (found on the device), the same
/// storage (spec.layout: CSR or SELL-32; spec.precision: fp64 or mixed) and solves equal
/// bit for bit once both hold the same values. Until then: zero strict entries and a unit
/// diagonal (the solve is the identity). Values come by update_values_on_backend(v) with
/// v in device memory in the triangle's CSR order (diagonal included), or
/// update_values(host values in that order; checked as the host-made solve checks them).
/// solve_columns as the host-made solve's. spec.algorithm automatic takes the color-set
/// solve whatever the blocks' count (where make_triangular_solver's could take cusparse);
/// cusparse or reference throws ConfigError. Throws InvalidMatrixError naming the first
/// row whose diagonal is not where `triangle` puts it, Error on arrays of the wrong sizes.
std::unique_ptr<TriangularSolver> make_cuda_colorset_from_device(
    index_t rows, kernels::cuda::DeviceBuffer<index_t> row_ptr,
    kernels::cuda::DeviceBuffer<index_t> col_idx, Triangle triangle, const TrisolveSpec& spec,
    cudaStream_t stream);

}  // namespace prism::backend::cuda
