#pragma once
// Test matrices shared by the reference and the CUDA batched factorization tests:
// random, pivot-forcing (tiny diagonal), singular (a zero column), SPD and
// symmetric-but-not-SPD, reproducible from (kind, n, index in batch, seed); and the
// backward error both test an LU factorization by.

#include <prism/types.hpp>

#include <Eigen/Dense>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <random>
#include <utility>
#include <vector>

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

/// Row permutation of LAPACK pivots (1-based): row i of P A is row perm[i] of A.
inline std::vector<index_t> pivots_to_perm(const index_t* ipiv, index_t n) {
  std::vector<index_t> perm(n);
  for (index_t i = 0; i < n; ++i) perm[i] = i;
  for (index_t i = 0; i < n; ++i) std::swap(perm[i], perm[ipiv[i] - 1]);
  return perm;
}

/// ||P A - L U||_F / ||A||_F of a packed LU factorization `lu` of `a` with pivots `ipiv`
/// (absolute for a zero matrix), in double.
template <typename T>
double lu_backward_error(const Mat<T>& a, const Mat<T>& lu, const index_t* ipiv) {
  const index_t n = static_cast<index_t>(a.rows());
  const Mat<double> l = lu.template cast<double>().template triangularView<Eigen::UnitLower>();
  const Mat<double> u = lu.template cast<double>().template triangularView<Eigen::Upper>();
  const std::vector<index_t> perm = pivots_to_perm(ipiv, n);
  Mat<double> pa(n, n);
  for (index_t i = 0; i < n; ++i) pa.row(i) = a.template cast<double>().row(perm[i]);
  const double an = a.template cast<double>().norm();
  return an > 0 ? (pa - l * u).norm() / an : (pa - l * u).norm();
}

/// `count` right-hand-side entries uniform in [-1, 1), reproducible from the seed.
template <typename T>
std::vector<T> random_rhs(std::size_t count, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<T> rhs(count);
  for (auto& v : rhs) v = static_cast<T>(u(rng));
  return rhs;
}

/// Fills leading-dimension padding, to check no routine writes there.
template <typename T>
constexpr T kSentinel = T(-777);

}  // namespace prism::test::batched
