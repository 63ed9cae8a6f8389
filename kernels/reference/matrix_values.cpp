#include "kernels/matrix_values.hpp"

#include <algorithm>
#include <cmath>

namespace prism::kernels::reference {

index_t first_bad_value(index_t n, const double* values, const index_t* mirror, double relative) {
  double largest = 0.0;
  for (index_t k = 0; k < n; ++k) {
    if (!std::isfinite(values[k])) return k;
    largest = std::max(largest, std::abs(values[k]));
  }
  const double tolerance = relative * largest;
  for (index_t k = 0; k < n; ++k) {
    const bool bad =
        mirror[k] == k ? !(values[k] > 0.0) : std::abs(values[k] - values[mirror[k]]) > tolerance;
    if (bad) return k;
  }
  return -1;
}

double largest_finite_magnitude(index_t n, const double* x) {
  double largest = 0.0;
  for (index_t i = 0; i < n; ++i) {
    if (std::isfinite(x[i])) largest = std::max(largest, std::abs(x[i]));
  }
  return largest;
}

index_t invert_positive(index_t n, double* x) {
  for (index_t i = 0; i < n; ++i) {
    if (!(x[i] > 0.0) || !std::isfinite(x[i])) return i;
    x[i] = 1.0 / x[i];
  }
  return -1;
}

}  // namespace prism::kernels::reference
