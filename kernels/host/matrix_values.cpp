#include "kernels/matrix_values.hpp"
#include "kernels/host/team.hpp"

#include <cmath>

namespace prism::kernels::host {

index_t first_bad_value(int threads, index_t n, const double* values, const index_t* mirror,
                        double relative) {
  // As the reference: a value that is not finite first, then the entries against the
  // tolerance of the largest magnitude (a maximum: the same for any split).
  const index_t not_finite = detail::first_index(threads, n, [&](index_t begin, index_t end) {
    for (index_t k = begin; k < end; ++k) {
      if (!std::isfinite(values[k])) return k;
    }
    return index_t{-1};
  });
  if (not_finite >= 0) return not_finite;
  const double tolerance = relative * largest_finite_magnitude(threads, n, values);
  return detail::first_index(threads, n, [&](index_t begin, index_t end) {
    for (index_t k = begin; k < end; ++k) {
      const bool bad =
          mirror[k] == k ? !(values[k] > 0.0) : std::abs(values[k] - values[mirror[k]]) > tolerance;
      if (bad) return k;
    }
    return index_t{-1};
  });
}

double largest_finite_magnitude(int threads, index_t n, const double* x) {
  double largest = 0.0;
  for (double part : detail::scan_parts<double>(threads, n, 0.0, [&](index_t begin, index_t end) {
         double m = 0.0;
         for (index_t i = begin; i < end; ++i) {
           if (std::isfinite(x[i])) m = std::max(m, std::abs(x[i]));
         }
         return m;
       })) {
    largest = std::max(largest, part);
  }
  return largest;
}

index_t invert_positive(int threads, index_t n, double* x) {
  return detail::first_index(threads, n, [&](index_t begin, index_t end) {
    for (index_t i = begin; i < end; ++i) {
      if (!(x[i] > 0.0) || !std::isfinite(x[i])) return i;
      x[i] = 1.0 / x[i];
    }
    return index_t{-1};
  });
}

}  // namespace prism::kernels::host
