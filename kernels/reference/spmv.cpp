#include "kernels/spmv.hpp"

namespace prism::kernels::reference {

void spmv(CsrView<double> a, const double* x, double* y) {
  for (index_t i = 0; i < a.rows; ++i) {
    double sum = 0.0;
    for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) sum += a.values[k] * x[a.col_idx[k]];
    y[i] = sum;
  }
}

}  // namespace prism::kernels::reference
