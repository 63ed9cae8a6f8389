#pragma once
// The split of a triangular factor in device memory (diagonal last in each lower row,
// first in each upper row) into its strict triangle, for the color-set solve laid out
// there (backend/cuda/device_operators.hpp): the strict triangle's row pointers and
// columns, each strict entry's entry of the factor, each row's diagonal entry and each
// strict row's reach (kernels/cuda/independent_blocks.hpp finds the row blocks from it).
// The host reference is backend::SplitTriangle::pattern_only (equal arrays entry for
// entry) and the reach its block scan reads (SplitTriangle's threaded_independent_blocks).

#include "kernels/cuda/device_memory.hpp"

#include <prism/types.hpp>

#include <cuda_runtime.h>

namespace prism::kernels::cuda {

struct DeviceTriangleSplit {
  /// The first row (0-based) that does not store its diagonal where the triangle puts it,
  /// -1 when every row does; the arrays below are empty then.
  index_t bad_row = -1;
  /// The strict triangle: rows + 1 row pointers, its columns, and source[s] = the factor's
  /// entry that strict entry s holds (SplitTriangle::strict_source).
  DeviceBuffer<index_t> row_ptr, col_idx, source;
  /// diagonal[i] = the factor's entry holding row i's diagonal (diagonal_source).
  DeviceBuffer<index_t> diagonal;
  /// reach[i]: strict row i's largest column in a lower triangle (-1 for an empty row), its
  /// smallest in an upper one (rows for an empty row).
  DeviceBuffer<index_t> reach;
};

/// The split of the factor (rows + 1 row pointers and nnz columns in device memory; a
/// row's columns need not be sorted). Waits for the stream once (the diagonals' check).
DeviceTriangleSplit triangle_split(index_t rows, const index_t* row_ptr, const index_t* col_idx,
                                   index_t nnz, bool lower, cudaStream_t stream);

}  // namespace prism::kernels::cuda
