#pragma once
// The cuda backend's OrderedMatrix: P A P^T in device memory, as the set-up session's
// permutation (kernels/cuda/setup_permute.hpp) leaves it: sorted columns, every row's
// diagonal stored (the checks passed), a symmetric pattern.

#include "backend/ordered_matrix.hpp"
#include "kernels/csr_view.hpp"
#include "kernels/cuda/device_memory.hpp"

namespace prism::backend::cuda {

struct DeviceOrdered final : OrderedMatrix {
  index_t n = 0;
  kernels::cuda::DeviceBuffer<index_t> row_ptr;  // n + 1
  kernels::cuda::DeviceBuffer<index_t> col_idx;  // nnz, sorted in each row
  kernels::cuda::DeviceBuffer<double> values;    // values[k] = caller_values[source[k]]
  kernels::cuda::DeviceBuffer<index_t> source;   // ordered entry <- caller's entry
  /// The caller's values in the caller's order (A's values as given to setup()): the
  /// set-up's first factorization reads them through the consumers' composed maps, as
  /// refactor_on_backend() does.
  kernels::cuda::DeviceBuffer<double> caller_values;

  index_t rows() const override { return n; }
  index_t nnz() const override { return static_cast<index_t>(col_idx.size()); }
  const double* given_values() const override { return caller_values.data(); }
  kernels::CsrView<double> view() const {
    return {n, n, row_ptr.data(), col_idx.data(), values.data()};
  }
};

}  // namespace prism::backend::cuda
