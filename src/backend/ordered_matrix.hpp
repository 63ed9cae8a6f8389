#pragma once
// A's symmetric permutation P A P^T kept in the backend's memory by a set-up session
// (SetupSession::permute_kept): the SpMV matrix, the IC(0) factor and the level report
// build their storage there from it, with their maps to A's entries, and the host holds
// no copy of its pattern, values or maps (refactors pass SourceValues without a map).

#include <prism/csr_matrix.hpp>

namespace prism::backend {

class OrderedMatrix {
 public:
  virtual ~OrderedMatrix() = default;
  virtual index_t rows() const = 0;
  virtual index_t nnz() const = 0;
  /// A's values in the caller's order, in the backend's memory: the set-up's first
  /// factorization reads them through its own map, as refactor_on_backend() reads new ones.
  virtual const double* given_values() const = 0;
};

}  // namespace prism::backend
