#pragma once
// Shared helpers of the test suite: Eigen conversions, the shared/ matrices, and test
// matrices with awkward structure.

#include <prism/csr_matrix.hpp>
#include <prism/generators.hpp>
#include <prism/matrix_market.hpp>

#include <Eigen/SparseCore>

#include <algorithm>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

namespace prism::test {

inline Eigen::SparseMatrix<double> to_eigen(const CsrMatrix<double>& a) {
  std::vector<Eigen::Triplet<double>> t;
  t.reserve(a.values.size());
  for (index_t i = 0; i < a.rows; ++i) {
    for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
      t.emplace_back(i, a.col_idx[k], a.values[k]);
    }
  }
  Eigen::SparseMatrix<double> m(a.rows, a.cols);
  m.setFromTriplets(t.begin(), t.end());
  return m;
}

inline Eigen::VectorXd to_eigen(const std::vector<double>& v) {
  return Eigen::Map<const Eigen::VectorXd>(v.data(), static_cast<Eigen::Index>(v.size()));
}

/// Path of a matrix in ../shared/matrices, or "" when shared/ is not there.
inline std::string shared_matrix(const std::string& name) {
  const std::filesystem::path p = std::filesystem::path(PRISM_SHARED_DIR) / "matrices" / name;
  return std::filesystem::exists(p) ? p.string() : std::string();
}

/// The graph Laplacian of A's off-diagonal pattern plus the identity: an SPD matrix
/// with A's irregular structure (used for 1138_bus, whose shared copy has every value
/// 1.0 and is therefore indefinite).
inline CsrMatrix<double> graph_laplacian_plus_identity(CsrMatrix<double> a) {
  for (index_t i = 0; i < a.rows; ++i) {
    index_t diag = -1, degree = 0;
    for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
      if (a.col_idx[k] == i) {
        diag = k;
      } else {
        a.values[k] = -1.0;
        ++degree;
      }
    }
    if (diag >= 0) a.values[diag] = 1.0 + degree;
  }
  return a;
}

/// A random symmetric graph pattern (about `edges` edges, -1 off the diagonal) with a
/// dominant diagonal of 100.
inline CsrMatrix<double> random_symmetric(index_t n, int edges, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<index_t> pick(0, n - 1);
  std::vector<Triplet> t;
  for (int e = 0; e < edges; ++e) {
    const index_t i = pick(gen), j = pick(gen);
    if (i == j) continue;
    t.push_back({i, j, -1.0});
    t.push_back({j, i, -1.0});
  }
  for (index_t i = 0; i < n; ++i) t.push_back({i, i, 100.0});
  return csr_from_triplets(n, n, std::move(t));
}

/// A diagonal matrix (one color, no coupling), diagonal 1, 2, ..., n.
inline CsrMatrix<double> diagonal_only(index_t n) {
  std::vector<Triplet> t;
  for (index_t i = 0; i < n; ++i) t.push_back({i, i, 1.0 + i});
  return csr_from_triplets(n, n, std::move(t));
}

/// Uniform in [-1, 1), reproducible from the seed.
inline std::vector<double> random_vector(index_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  std::vector<double> v(static_cast<std::size_t>(n));
  for (double& x : v) x = dist(gen);
  return v;
}

/// ||b - A x|| / ||b||
inline double relative_residual(const CsrMatrix<double>& a, const std::vector<double>& x,
                                const std::vector<double>& b) {
  return (to_eigen(b) - to_eigen(a) * to_eigen(x)).norm() / to_eigen(b).norm();
}

/// A random symmetric band matrix: row i couples to about half of the columns within
/// `band`, weights in (0, 1), the diagonal `dominance` times the row's sum plus 1e-3
/// (diagonally dominant at 1; below it plain IC(0) is likely to break down: 300 rows,
/// band 20, dominance 0.5, seed 8 take 10 shift retries).
inline CsrMatrix<double> random_band(index_t n, index_t band, double dominance, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<Triplet> t;
  std::vector<double> row_sum(static_cast<std::size_t>(n), 0.0);
  for (index_t i = 0; i < n; ++i) {
    for (index_t j = std::max<index_t>(0, i - band); j < i; ++j) {
      if (u(rng) < 0.5) continue;
      const double v = -u(rng);
      t.push_back({i, j, v});
      t.push_back({j, i, v});
      row_sum[i] -= v;
      row_sum[j] -= v;
    }
  }
  for (index_t i = 0; i < n; ++i) t.push_back({i, i, dominance * row_sum[i] + 1e-3});
  return csr_from_triplets(n, n, std::move(t));
}

/// A's values times `scale`, its diagonal raised by `shift`: new values on A's pattern, as
/// a time step or a Newton step would bring them.
inline CsrMatrix<double> scaled_and_shifted(CsrMatrix<double> a, double scale, double shift) {
  for (index_t i = 0; i < a.rows; ++i) {
    for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
      a.values[k] = scale * a.values[k] + (a.col_idx[k] == i ? shift : 0.0);
    }
  }
  return a;
}

/// The entries of the 2D Poisson grid g, its diagonal raised by `shift`.
inline std::vector<Triplet> shifted_grid(const CsrMatrix<double>& g, double shift) {
  std::vector<Triplet> t;
  for (index_t i = 0; i < g.rows; ++i) {
    for (index_t k = g.row_ptr[i]; k < g.row_ptr[i + 1]; ++k) {
      t.push_back({i, g.col_idx[k], g.values[k] + (g.col_idx[k] == i ? shift : 0.0)});
    }
  }
  return t;
}

/// Entries (i, j) and (j, i) of value v.
inline void couple(std::vector<Triplet>& t, index_t i, index_t j, double v) {
  t.push_back({i, j, v});
  t.push_back({j, i, v});
}

/// A diagonally dominant 2D Poisson grid (48 x 48) plus a clique of 12 rows, each tied to
/// one grid row: greedy coloring gives two colors of about 1152 rows (their own launches
/// in the CSR color-set solve) and about ten small ones (a fused single-block run).
inline CsrMatrix<double> grid_and_clique() {
  const CsrMatrix<double> g = poisson2d(48, 48);
  std::vector<Triplet> t = shifted_grid(g, 12.0);
  for (index_t a = 0; a < 12; ++a) {
    t.push_back({g.rows + a, g.rows + a, 16.0});
    couple(t, g.rows + a, 100 * a, -0.5);
    for (index_t b = a + 1; b < 12; ++b) couple(t, g.rows + a, g.rows + b, -0.25);
  }
  return csr_from_triplets(g.rows + 12, g.rows + 12, t);
}

/// A 2D grid with three hub rows, each coupled to every second grid node (800 entries):
/// the long rows of the color-set solves (colorset_schedule), in natural order in the
/// lower triangle, in a largest-first coloring (hubs first) in the upper.
inline CsrMatrix<double> grid_and_hubs() {
  const CsrMatrix<double> g = poisson2d(40, 40);
  std::vector<Triplet> t = shifted_grid(g, 1.0);
  for (index_t h = 0; h < 3; ++h) {
    t.push_back({g.rows + h, g.rows + h, 1000.0});
    for (index_t j = h % 2; j < g.rows; j += 2) couple(t, g.rows + h, j, -0.1);
  }
  return csr_from_triplets(g.rows + 3, g.rows + 3, t);
}

}  // namespace prism::test
