#pragma once
// Test matrices shared by the reference and the CUDA batched factorization tests:
// random, pivot-forcing (tiny diagonal), singular (a zero column), SPD and
// symmetric-but-not-SPD, reproducible from (kind, n, index in batch, seed).

#include <prism/types.hpp>

#include <Eigen/Dense>

#include <cstdint>
#include <limits>
#include <random>

namespace prism::test::batched {

using prism::index_t;

enum class Kind { random, pivoting, singular, spd, not_spd };

inline const char* kind_name(Kind k) {
  switch (k) {
    case Kind::random:
      return "random";
    case Kind::pivoting:
      return "pivoting";
    case Kind::singular:
      return "singular";
    case Kind::spd:
      return "spd";
    case Kind::not_spd:
      return "not_spd";
  }
  return "?";
}

template <typename T>
using Mat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;

// Matrix b of a batch of the given kind, n x n (dense Eigen, column-major).
template <typename T>
Mat<T> make_matrix(Kind kind, index_t n, index_t b, std::uint64_t seed) {
  std::mt19937_64 rng(seed * 1000003u + static_cast<std::uint64_t>(b) * 7919u + n);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Mat<double> m(n, n);
  for (index_t j = 0; j < n; ++j) {
    for (index_t i = 0; i < n; ++i) m(i, j) = u(rng);
  }
  const index_t k = n > 0 ? b % n : 0;
  switch (kind) {
    case Kind::random:
      break;
    case Kind::pivoting:
      for (index_t i = 0; i < n; ++i) m(i, i) *= 1e-9;
      break;
    case Kind::singular:
      m.col(k).setZero();
      break;
    case Kind::spd:
    case Kind::not_spd: {
      Mat<double> s = m * m.transpose() / static_cast<double>(n);
      s.diagonal().array() += 1.0;
      if (kind == Kind::not_spd) s(k, k) = -1.0;
      m = s;
      break;
    }
  }
  return m.template cast<T>();
}

template <typename T>
double unit_roundoff() {
  return std::numeric_limits<T>::epsilon() / 2;
}

/// Fills leading-dimension padding, to check no routine writes there.
template <typename T>
constexpr T kSentinel = T(-777);

}  // namespace prism::test::batched
