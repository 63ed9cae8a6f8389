#include "kernels/ic0.hpp"

#include <cmath>

#include <vector>

namespace prism::kernels::reference {

Ic0Status ic0_scale(CsrView<double> lower, const index_t* source, const double* a, double* scaled,
                    double* row_scale) {
  const index_t n = lower.rows;
  std::vector<double> s(static_cast<std::size_t>(n));
  for (index_t i = 0; i < n; ++i) {
    const double d = a[source[lower.row_ptr[i + 1] - 1]];  // the diagonal: last in the row
    if (!(d > 0.0) || !std::isfinite(d)) return Ic0Status{i, d, true};
    row_scale[i] = std::sqrt(d);
    s[i] = 1.0 / row_scale[i];
  }
  for (index_t i = 0; i < n; ++i) {
    for (index_t k = lower.row_ptr[i]; k < lower.row_ptr[i + 1]; ++k) {
      scaled[k] = a[source[k]] * s[i] * s[lower.col_idx[k]];
    }
  }
  return Ic0Status{};
}

Ic0Status ic0_factor_row(CsrView<double> lower, double* values, double shift, index_t i) {
  const index_t* ptr = lower.row_ptr;
  const index_t* col = lower.col_idx;
  const index_t begin = ptr[i];
  const index_t diag = ptr[i + 1] - 1;
  // A row without its diagonal has no pivot to take; report it as a zero pivot rather
  // than read another row's entry.
  if (diag < begin || col[diag] != i) return Ic0Status{i, 0.0};

  // Up-looking: entries of row i left of position e are already final, so each l_ik
  // uses finished values of both row i and row k.
  for (index_t e = begin; e < diag; ++e) {
    const index_t k = col[e];
    const index_t k_diag = ptr[k + 1] - 1;
    double sum = values[e];
    index_t p = begin;
    index_t q = ptr[k];
    while (p < e && q < k_diag) {
      if (col[p] < col[q]) {
        ++p;
      } else if (col[q] < col[p]) {
        ++q;
      } else {
        sum -= values[p] * values[q];
        ++p;
        ++q;
      }
    }
    values[e] = sum / values[k_diag];
  }

  double pivot = values[diag] + shift;
  for (index_t e = begin; e < diag; ++e) pivot -= values[e] * values[e];
  if (!(pivot > 0.0) || !std::isfinite(pivot)) return Ic0Status{i, pivot};
  values[diag] = std::sqrt(pivot);
  return Ic0Status{};
}

Ic0Status ic0_factorize(CsrView<double> lower, double* values, double shift) {
  for (index_t i = 0; i < lower.rows; ++i) {
    const Ic0Status status = ic0_factor_row(lower, values, shift, i);
    if (!status.ok()) return status;
  }
  return Ic0Status{};
}

}  // namespace prism::kernels::reference
