#pragma once
// The cpu backend's multi-column operations (backend/columns.hpp) on raw host arrays: the
// reference or the threaded kernels of kernels/columns.hpp, as the backend's HostKernels
// are (the same kind, the same threads).

#include "backend/columns.hpp"
#include "backend/host_kernels.hpp"
#include "kernels/csr_view.hpp"

#include <memory>
#include <vector>

namespace prism::backend {

std::unique_ptr<ColumnSet> make_host_column_set(index_t rows, const std::vector<index_t>& columns);

/// kernels/columns.hpp's operations with `k`'s kind and threads, on the columns of a set.
class HostColumnKernels {
 public:
  explicit HostColumnKernels(const HostKernels& k) : k_(k) {}
  void spmm(kernels::CsrView<double> a, const ColumnSet& set, const double* x, double* y) const;
  void dot(const ColumnSet& set, const double* x, const double* y, double* s, int slot) const;
  void axpy(const ColumnSet& set, double a, const double* x, double* y) const;
  void copy(const ColumnSet& set, const double* x, double* y) const;
  void pointwise_multiply(const ColumnSet& set, const double* d, const double* x, double* y) const;
  void cg_update(const ColumnSet& set, const double* p, const double* q, double* x, double* r,
                 double* s) const;
  void cg_direction(const ColumnSet& set, const double* z, double* p, double* s) const;
  void colorset_solve(kernels::CsrView<double> strict, const double* inverse_diagonal,
                      const index_t* block_ptr, int num_blocks, bool lower, const ColumnSet& set,
                      const double* b, double* x) const;

 private:
  bool reference() const { return k_.kind() == CpuKernels::reference; }
  const HostKernels& k_;
};

}  // namespace prism::backend
