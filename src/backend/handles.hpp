#pragma once
// Opaque handles to data in a backend's memory: vectors, gather maps, SpMV matrices, and
// the CG scalars. A backend only accepts handles it created.

#include <prism/csr_matrix.hpp>

#include "kernels/cg_scalars.hpp"

#include <array>
#include <cstddef>
#include <string>
#include <vector>

namespace prism::backend {

/// Backend-resident scalars of the CG recurrence.
/// The slots of kernels/cg_scalars.hpp.
enum class Scalar : int {
  rz = kernels::kCgRz,
  rz_new = kernels::kCgRzNew,
  pq = kernels::kCgPq,
  rr = kernels::kCgRr,
  alpha = kernels::kCgAlpha
};
inline constexpr int kNumScalars = kernels::kCgScalarCount;
using ScalarValues = std::array<double, kNumScalars>;

/// A vector living in the backend's memory: its own, or a view of memory the caller owns
/// (Backend::view).
class Vector {
 public:
  virtual ~Vector() = default;
  virtual index_t size() const = 0;
  /// The values where the backend's kernels read them (a user's preconditioner gets these).
  virtual double* data() = 0;
  virtual const double* data() const = 0;
  /// Host memory this object owns (SetupReport::host_bytes); device memory is not counted.
  virtual std::size_t host_bytes() const { return 0; }
};

/// The values of the matrix given to Solver::setup(), arriving in the backend's memory
/// (refactor_on_backend), with where each entry of the solver's own (ordered) matrix
/// comes from: ordered entry k is values[source[k]]. Consumers compose their own maps
/// with `source` once and gather straight from `values`, so no reordered copy is made.
/// A null `source`: no map comes with the values, and each consumer reads them through
/// the one it holds: a consumer built from a matrix kept in the backend's memory
/// (backend/ordered_matrix.hpp) its map to the caller's entries, made there; block IC's
/// factor none (values already in the solver's order); the others throw.
struct SourceValues {
  const double* values = nullptr;
  const std::vector<index_t>* source = nullptr;
};

/// map[k] = source[through[k]] (and -1 where through[k] is -1, padding): a map that
/// reads the entries `through` picks from the ordered matrix straight from the values.
inline std::vector<index_t> compose_source(const std::vector<index_t>& through,
                                           const std::vector<index_t>& source) {
  std::vector<index_t> map(through.size());
  for (std::size_t k = 0; k < through.size(); ++k) {
    map[k] = through[k] < 0 ? -1 : source[static_cast<std::size_t>(through[k])];
  }
  return map;
}

/// An index array in the backend's memory: a gather map built once per pattern.
class IndexMap {
 public:
  virtual ~IndexMap() = default;
  virtual index_t size() const = 0;
  /// Host memory this object owns (SetupReport::host_bytes); device memory is not counted.
  virtual std::size_t host_bytes() const { return 0; }
};

/// A CSR matrix living in the backend's memory, for SpMV.
class Matrix {
 public:
  virtual ~Matrix() = default;
  virtual index_t rows() const = 0;
  virtual index_t nnz() const = 0;
  /// The SpMV algorithm actually used ("reference", "cusparse", "csr_vector").
  virtual std::string algorithm() const = 0;
  /// Replaces the values, same pattern (refactor).
  virtual void update_values(const std::vector<double>& values) = 0;
  /// The same with the values in the backend's memory; the first call composes and
  /// keeps the map from this matrix's storage to a.values (a.source fixed per pattern).
  virtual void update_values(const SourceValues& a) = 0;
  /// Host memory this object owns (SetupReport::host_bytes); device memory is not counted.
  virtual std::size_t host_bytes() const { return 0; }
};

}  // namespace prism::backend
