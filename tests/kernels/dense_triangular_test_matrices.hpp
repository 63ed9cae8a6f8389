#pragma once
// Test matrices shared by the reference and the CUDA dense triangular tests: triangles
// with diagonal +-[1, 2] and off-diagonal entries +-0.5/n, so kappa_inf <= 5 and a
// relative error of 16 n u (bound<T>) is a meaningful test; NaN in every entry a solve
// must not read (the other triangle, a unit diagonal, the lda padding); and the variants
// both tests run, with their names.

#include "kernels/dense_triangular.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace prism::test {

using prism::index_t;
using prism::kernels::TriDiag;
using prism::kernels::TriOp;
using prism::kernels::TriUplo;

inline constexpr TriUplo kUplos[] = {TriUplo::lower, TriUplo::upper};
inline constexpr TriOp kOps[] = {TriOp::none, TriOp::transpose};
inline constexpr TriDiag kDiags[] = {TriDiag::non_unit, TriDiag::unit};

/// BLAS-style name of a variant: LNN, UTU, ...
inline std::string variant_name(TriUplo u, TriOp o, TriDiag d) {
  return std::string(u == TriUplo::lower ? "L" : "U") + (o == TriOp::none ? "N" : "T") +
         (d == TriDiag::unit ? "U" : "N");
}

inline std::uint64_t mix(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
inline double uniform(std::uint64_t& s) {  // [0, 1)
  s += 0x9e3779b97f4a7c15ULL;
  return static_cast<double>(mix(s) >> 11) * 0x1.0p-53;
}

// Column-major n x n with leading dimension lda; NaN everywhere BLAS must not read.
template <typename T>
std::vector<T> make_triangle(TriUplo uplo, TriDiag diag, index_t n, index_t lda,
                             std::uint64_t seed) {
  const T nan = std::numeric_limits<T>::quiet_NaN();
  std::vector<T> a(static_cast<std::size_t>(lda) * std::max<index_t>(n, 1), nan);
  std::uint64_t s = seed;
  for (index_t j = 0; j < n; ++j) {
    for (index_t i = 0; i < n; ++i) {
      const bool in = uplo == TriUplo::lower ? i > j : i < j;
      T& v = a[i + static_cast<std::size_t>(j) * lda];
      if (i == j) {
        v = diag == TriDiag::unit ? nan
                                  : static_cast<T>((uniform(s) < 0.5 ? -1 : 1) * (1 + uniform(s)));
      } else if (in) {
        v = static_cast<T>((2 * uniform(s) - 1) * 0.5 / n);
      }
    }
  }
  return a;
}

template <typename T>
std::vector<T> make_rhs(std::size_t count, std::uint64_t seed) {
  std::vector<T> b(count);
  std::uint64_t s = seed;
  for (auto& v : b) v = static_cast<T>(2 * uniform(s) - 1);
  return b;
}

template <typename T>
double bound(index_t n) {
  return 16.0 * std::max<index_t>(n, 1) * std::numeric_limits<T>::epsilon() / 2;
}

}  // namespace prism::test
