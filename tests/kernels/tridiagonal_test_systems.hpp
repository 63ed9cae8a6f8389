#pragma once
// Random tridiagonal test systems shared by the reference and CUDA tridiagonal tests.
//
// Residual bound used by both: the normwise backward error of each system,
//   eta = ||d - A x||_inf / (||A||_inf ||x||_inf + ||d||_inf),
// must satisfy eta <= 16 (log2(N) + 2) u (u = unit roundoff of the solve's precision).
// Thomas on diagonally dominant / SPD matrices is backward stable with eta = O(u);
// k PCR steps add O(k u) with k <= log2(N), hence the log2(N) term.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "kernels/tridiagonal.hpp"

namespace prism::test {

enum class TriKind { dominant, laplacian };

template <typename T>
struct TriSystems {
  kernels::TridiagonalLayout layout{};
  index_t n = 0;
  index_t m = 0;
  std::vector<T> a, b, c, d;
  std::size_t at(std::int64_t s, std::int64_t i) const {
    return layout == kernels::TridiagonalLayout::contiguous ? static_cast<std::size_t>(s * n + i)
                                                            : static_cast<std::size_t>(i * m + s);
  }
};

// splitmix64: fast, so that 10^8-element systems are cheap to draw.
class TriRng {
 public:
  explicit TriRng(std::uint64_t seed) : state_(seed) {}
  double uniform() {  // [0, 1)
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return static_cast<double>(z >> 11) * 0x1.0p-53;
  }
  double symmetric() { return 2.0 * uniform() - 1.0; }

 private:
  std::uint64_t state_;
};

// dominant: a, c in (-1, 1), |b| = |a| + |c| + 0.5 + U(0,1) with random sign.
// laplacian: the 1D Laplacian plus a per-system shift in [1e-3, 1e-1] (SPD, kappa <= 4e3).
// a[first] and c[last] hold junk (1e3, -1e3): the solvers must ignore them.
template <typename T>
TriSystems<T> make_tri_systems(TriKind kind, kernels::TridiagonalLayout layout, index_t n,
                               index_t m, std::uint64_t seed) {
  TriSystems<T> s;
  s.layout = layout;
  s.n = n;
  s.m = m;
  const std::size_t total = static_cast<std::size_t>(n) * static_cast<std::size_t>(m);
  s.a.resize(total);
  s.b.resize(total);
  s.c.resize(total);
  s.d.resize(total);
  TriRng rng(seed);
  for (std::int64_t sys = 0; sys < m; ++sys) {
    const double shift = std::pow(10.0, -1.0 - 2.0 * rng.uniform());
    for (std::int64_t i = 0; i < n; ++i) {
      const std::size_t k = s.at(sys, i);
      double a = -1.0, b = 2.0 + shift, c = -1.0;
      if (kind == TriKind::dominant) {
        a = rng.symmetric();
        c = rng.symmetric();
        b = std::abs(a) + std::abs(c) + 0.5 + rng.uniform();
        if (rng.uniform() < 0.5) b = -b;
      }
      if (i == 0) a = 1e3;
      if (i == n - 1) c = -1e3;
      s.a[k] = static_cast<T>(a);
      s.b[k] = static_cast<T>(b);
      s.c[k] = static_cast<T>(c);
      s.d[k] = static_cast<T>(rng.symmetric());
    }
  }
  return s;
}

// Largest normwise backward error over the systems (computed in double); NaN if x has one.
template <typename T>
double tri_backward_error(const TriSystems<T>& s, const std::vector<T>& x) {
  double worst = 0.0;
  for (std::int64_t sys = 0; sys < s.m; ++sys) {
    double r_max = 0.0, a_norm = 0.0, x_norm = 0.0, d_norm = 0.0;
    for (std::int64_t i = 0; i < s.n; ++i) {
      const std::size_t k = s.at(sys, i);
      const double a = i == 0 ? 0.0 : static_cast<double>(s.a[k]);
      const double c = i == s.n - 1 ? 0.0 : static_cast<double>(s.c[k]);
      double ax = static_cast<double>(s.b[k]) * static_cast<double>(x[k]);
      if (i > 0) ax += a * static_cast<double>(x[s.at(sys, i - 1)]);
      if (i < s.n - 1) ax += c * static_cast<double>(x[s.at(sys, i + 1)]);
      const double r = static_cast<double>(s.d[k]) - ax;
      if (std::isnan(r)) return std::numeric_limits<double>::quiet_NaN();
      r_max = std::max(r_max, std::abs(r));
      a_norm = std::max(a_norm, std::abs(a) + std::abs(static_cast<double>(s.b[k])) + std::abs(c));
      x_norm = std::max(x_norm, std::abs(static_cast<double>(x[k])));
      d_norm = std::max(d_norm, std::abs(static_cast<double>(s.d[k])));
    }
    worst = std::max(worst, r_max / (a_norm * x_norm + d_norm));
  }
  return worst;
}

template <typename T>
double tri_residual_bound(index_t n) {
  return 16.0 * (std::log2(static_cast<double>(std::max<index_t>(n, 1))) + 2.0) *
         static_cast<double>(std::numeric_limits<T>::epsilon()) / 2.0;
}

}  // namespace prism::test
