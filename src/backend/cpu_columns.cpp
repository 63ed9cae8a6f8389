#include "backend/cpu_columns.hpp"

#include <prism/errors.hpp>

#include "kernels/columns.hpp"

namespace prism::backend {
namespace {

namespace ref = prism::kernels::reference;
namespace host = prism::kernels::host;

class HostColumnSet final : public ColumnSet {
 public:
  HostColumnSet(index_t rows, std::vector<index_t> columns)
      : rows_(rows), columns_(std::move(columns)) {}
  index_t rows() const override { return rows_; }
  const std::vector<index_t>& columns() const override { return columns_; }
  const index_t* backend_columns() const override { return columns_.data(); }

 private:
  index_t rows_;
  std::vector<index_t> columns_;
};

}  // namespace

std::unique_ptr<ColumnSet> make_host_column_set(index_t rows, const std::vector<index_t>& columns) {
  return std::make_unique<HostColumnSet>(rows, columns);
}

void HostColumnKernels::spmm(kernels::CsrView<double> a, const ColumnSet& set, const double* x,
                             double* y) const {
  const index_t* c = set.backend_columns();
  if (reference()) {
    ref::spmm(a, c, set.count(), x, y);
  } else {
    host::spmm(k_.threads(), a, c, set.count(), x, y);
  }
}

void HostColumnKernels::dot(const ColumnSet& set, const double* x, const double* y, double* s,
                            int slot) const {
  const index_t* c = set.backend_columns();
  if (reference()) {
    ref::dot_columns(set.rows(), c, set.count(), x, y, s, slot);
  } else {
    host::dot_columns(k_.threads(), set.rows(), c, set.count(), x, y, s, slot);
  }
}

void HostColumnKernels::axpy(const ColumnSet& set, double a, const double* x, double* y) const {
  const index_t* c = set.backend_columns();
  if (reference()) {
    ref::axpy_columns(set.rows(), c, set.count(), a, x, y);
  } else {
    host::axpy_columns(k_.threads(), set.rows(), c, set.count(), a, x, y);
  }
}

void HostColumnKernels::copy(const ColumnSet& set, const double* x, double* y) const {
  const index_t* c = set.backend_columns();
  if (reference()) {
    ref::copy_columns(set.rows(), c, set.count(), x, y);
  } else {
    host::copy_columns(k_.threads(), set.rows(), c, set.count(), x, y);
  }
}

void HostColumnKernels::pointwise_multiply(const ColumnSet& set, const double* d, const double* x,
                                           double* y) const {
  const index_t* c = set.backend_columns();
  if (reference()) {
    ref::pointwise_multiply_columns(set.rows(), c, set.count(), d, x, y);
  } else {
    host::pointwise_multiply_columns(k_.threads(), set.rows(), c, set.count(), d, x, y);
  }
}

void HostColumnKernels::cg_update(const ColumnSet& set, const double* p, const double* q, double* x,
                                  double* r, double* s) const {
  const index_t* c = set.backend_columns();
  if (reference()) {
    ref::cg_update_columns(set.rows(), c, set.count(), p, q, x, r, s);
  } else {
    host::cg_update_columns(k_.threads(), set.rows(), c, set.count(), p, q, x, r, s);
  }
}

void HostColumnKernels::cg_direction(const ColumnSet& set, const double* z, double* p,
                                     double* s) const {
  const index_t* c = set.backend_columns();
  if (reference()) {
    ref::cg_direction_columns(set.rows(), c, set.count(), z, p, s);
  } else {
    host::cg_direction_columns(k_.threads(), set.rows(), c, set.count(), z, p, s);
  }
}

void HostColumnKernels::colorset_solve(kernels::CsrView<double> strict,
                                       const double* inverse_diagonal, const index_t* block_ptr,
                                       int num_blocks, bool lower, const ColumnSet& set,
                                       const double* b, double* x) const {
  const index_t* c = set.backend_columns();
  if (reference()) {
    ref::colorset_solve_columns(strict, inverse_diagonal, block_ptr, num_blocks, lower, c,
                                set.count(), b, x);
  } else {
    host::colorset_solve_columns(k_.threads(), strict, inverse_diagonal, block_ptr, num_blocks,
                                 lower, c, set.count(), b, x);
  }
}

}  // namespace prism::backend

namespace prism::backend {

std::unique_ptr<ColumnLoop> ColumnOperations::record_column_loop(const std::function<void()>&,
                                                                 const ColumnSet&, Vector&,
                                                                 const std::vector<double>&, int,
                                                                 int) {
  throw BackendError("this backend runs no device-side loop over columns");
}

void ColumnOperations::mask_columns(ColumnSet&, const std::vector<index_t>&) {
  throw BackendError("this backend masks no columns of a set");
}

}  // namespace prism::backend
