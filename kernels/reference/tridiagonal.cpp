#include "kernels/tridiagonal.hpp"

#include <cstdint>
#include <string>
#include <vector>

#include <prism/errors.hpp>

namespace prism::kernels::reference {
namespace {

template <typename T>
void thomas_all(TridiagonalLayout layout, index_t n, index_t m, const T* a, const T* b, const T* c,
                const T* d, T* x) {
  if (n < 0 || m < 0) throw ConfigError("tridiagonal_solve: negative n or m");
  if (n == 0 || m == 0) return;
  const std::int64_t sys_stride = layout == TridiagonalLayout::contiguous ? n : 1;
  const std::int64_t row_stride = layout == TridiagonalLayout::contiguous ? 1 : m;
  std::vector<T> cp(static_cast<std::size_t>(n));
  for (std::int64_t s = 0; s < m; ++s) {
    const std::int64_t base = s * sys_stride;
    auto at = [&](std::int64_t i) { return base + i * row_stride; };
    // Forward elimination; d' goes straight into x (x may alias d: d[i] is read before
    // x[i] is written).
    T prev_c = 0;
    T prev_d = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      const T ai = i == 0 ? T(0) : a[at(i)];
      const T ci = i == n - 1 ? T(0) : c[at(i)];
      const T pivot = b[at(i)] - ai * prev_c;
      if (pivot == T(0)) {
        throw NumericalError("tridiagonal_solve: zero pivot in system " + std::to_string(s) +
                             " at row " + std::to_string(i));
      }
      prev_c = ci / pivot;
      prev_d = (d[at(i)] - ai * prev_d) / pivot;
      cp[static_cast<std::size_t>(i)] = prev_c;
      x[at(i)] = prev_d;
    }
    // Back substitution.
    for (std::int64_t i = n - 2; i >= 0; --i) {
      x[at(i)] -= cp[static_cast<std::size_t>(i)] * x[at(i + 1)];
    }
  }
}

}  // namespace

void tridiagonal_solve(TridiagonalLayout layout, index_t n, index_t m, const double* a,
                       const double* b, const double* c, const double* d, double* x) {
  thomas_all(layout, n, m, a, b, c, d, x);
}

void tridiagonal_solve(TridiagonalLayout layout, index_t n, index_t m, const float* a,
                       const float* b, const float* c, const float* d, float* x) {
  thomas_all(layout, n, m, a, b, c, d, x);
}

}  // namespace prism::kernels::reference
