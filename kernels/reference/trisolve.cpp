#include "kernels/trisolve.hpp"

// Both solves read b[i] before writing x[i] and only read x at rows already solved,
// so x may alias b (an in-place solve).

namespace prism::kernels::reference {

void lower_solve(CsrView<double> lower, const double* b, double* x) {
  for (index_t i = 0; i < lower.rows; ++i) {
    const index_t diag = lower.row_ptr[i + 1] - 1;
    double sum = b[i];
    for (index_t k = lower.row_ptr[i]; k < diag; ++k) sum -= lower.values[k] * x[lower.col_idx[k]];
    x[i] = sum / lower.values[diag];
  }
}

void upper_solve(CsrView<double> upper, const double* b, double* x) {
  for (index_t i = upper.rows - 1; i >= 0; --i) {
    const index_t diag = upper.row_ptr[i];
    double sum = b[i];
    for (index_t k = diag + 1; k < upper.row_ptr[i + 1]; ++k) {
      sum -= upper.values[k] * x[upper.col_idx[k]];
    }
    x[i] = sum / upper.values[diag];
  }
}

void upper_solve_reversed(CsrView<double> reversed, const double* b, double* x) {
  for (index_t r = 0; r < reversed.rows; ++r) {
    const index_t i = reversed.rows - 1 - r;
    const index_t diag = reversed.row_ptr[r];
    double sum = b[i];
    for (index_t k = diag + 1; k < reversed.row_ptr[r + 1]; ++k) {
      sum -= reversed.values[k] * x[reversed.col_idx[k]];
    }
    x[i] = sum / reversed.values[diag];
  }
}

}  // namespace prism::kernels::reference
